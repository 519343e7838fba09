"""Agents for Carioca: every agent plays from its seat's :class:`~carioca_env.PlayerView`.

Use :func:`carioca_agents.registry.make_agent` with a spec string (``"random"``,
``"greedy"``, ``"heuristic"``, ``"ppo:PATH"``) to build one.

Importing the package does nothing else: the heuristic's observation feature sets
``"advice"`` and ``"advice_play"`` are registered where they are needed
(:func:`carioca_agents.advice.register_advice`).
"""
