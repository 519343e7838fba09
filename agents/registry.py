"""Agent specs as strings: ``make_agent("heuristic", seed=1)``.

A spec is ``NAME`` or ``NAME:ARGUMENT`` (``ppo:models/contract3.zip``).  Modules add
their agents with :func:`register`; the built-in ones are registered on import.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent

#: name -> factory(argument, seed) -> Agent
_FACTORIES: dict[str, Callable[[str, int], Agent]] = {}


def register(name: str, factory: Callable[[str, int], Agent]) -> None:
    """Make ``name`` (and ``name:ARG``) a spec that builds an agent with ``factory(arg, seed)``."""
    _FACTORIES[name] = factory


def available() -> list[str]:
    """The registered agent names."""
    _load_builtins()
    return sorted(_FACTORIES)


def make_agent(spec: str, seed: int = 0) -> Agent:
    """Build the agent a spec names.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    _load_builtins()
    name, _, arg = spec.partition(":")
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {spec!r}; known agents: {', '.join(sorted(_FACTORIES))} (and NAME:ARG forms)")
    agent = factory(arg, seed)
    agent.name = spec
    return agent


def _load_builtins() -> None:
    if "random" in _FACTORIES:
        return
    from agents.greedy import GreedyAgent
    from agents.heuristic import HeuristicAgent
    from agents.random_agent import RandomAgent

    register("random", lambda arg, seed: RandomAgent(seed))
    register("greedy", lambda arg, seed: GreedyAgent(seed))
    register("heuristic", lambda arg, seed: HeuristicAgent(seed))
    register("ppo", _make_ppo)


def _make_ppo(arg: str, seed: int) -> Agent:
    # imported here: torch / sb3-contrib load only when a ppo agent is built
    from carioca_env.extras import require

    require("the ppo agent", "torch", "sb3_contrib")
    from agents.ppo_agent import make_ppo_agent

    return make_ppo_agent(arg, seed)
