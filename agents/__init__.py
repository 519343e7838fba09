"""Agents for Carioca: every agent plays from its seat's :class:`~carioca_env.PlayerView`.

Use :func:`agents.registry.make_agent` with a spec string (``"random"``, ``"greedy"``,
``"heuristic"``, ``"ppo:PATH"``) to build one.
"""
