"""Agent specs as strings: ``make_agent("heuristic", seed=1)``.

A spec is ``NAME`` or ``NAME:ARGUMENT`` (``ppo:models/contract3.zip``).  Modules add
their agents with :func:`register`; the built-in ones are registered on import.  User
code enters as a plugin (:mod:`agents.plugins`): ``py:MODULE:FACTORY[:KEY=VALUE,...]``
or an installed entry point of the group ``carioca_env.agents``.
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
    if spec.startswith("py:"):  # user code named by the spec: agents.plugins
        from agents.plugins import make_py_agent

        agent = make_py_agent(spec, seed)
        agent.name = spec
        return agent
    name, _, arg = spec.partition(":")
    factory = _FACTORIES.get(name)
    if factory is None:  # an installed plugin (entry point group carioca_env.agents)?
        from agents.plugins import entry_point_factory

        factory = entry_point_factory(name)
    if factory is None:
        raise ValueError(f"unknown agent {spec!r}; known agents: {', '.join(sorted(_FACTORIES))} (and NAME:ARG forms; user code: py:MODULE:FACTORY, see agents.plugins)")
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
