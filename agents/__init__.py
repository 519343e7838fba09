"""Agents for Carioca: every agent plays from its seat's :class:`~carioca_env.PlayerView`.

Use :func:`agents.registry.make_agent` with a spec string (``"random"``, ``"greedy"``,
``"heuristic"``, ``"ppo:PATH"``) to build one.

Importing the package registers the heuristic's observation feature sets ``"advice"``
and ``"advice_play"`` with the core (:mod:`agents.advice`), so every process that uses an
agent (or loads a model reading those pieces) has them.
"""

from agents import advice as _advice  # noqa: F401  (registers the advice feature sets)
