"""Agent specs as strings: ``make_agent("heuristic", seed=1)``, ``make_agent("search:sims=64")``.

Spec syntax (one for every agent):

- ``NAME``: the agent with its defaults;
- ``NAME:key=value,key=value``: typed arguments (int, float, bool, str or one of a set);
- ``NAME:VALUE``: a bare argument, the value of the agent's default key
  (``ppo:models/contract1`` is ``ppo:path=models/contract1``).

A value runs to the next comma, so it holds no comma (it may hold ``:`` and ``=`` after
its key: ``search:rollout=ppo:models/contract1``).  A bare argument with no ``=`` is the
whole text after the colon.  An unknown key, a value of the wrong type, a repeated key,
or an argument given to an agent that takes none raises :class:`SpecError` naming the
allowed keys with their types and defaults.

Built-in agents and their keys (``available()``, ``describe(name)``):

- ``random``, ``greedy``: no arguments.
- ``heuristic``: ``preset`` (``v1``, the default: the hand-set weights of the first
  version; or ``tuned``, the Optuna weights for contracts 1 and 4) and every weight of
  :data:`carioca_agents.heuristic.DEFAULT_PARAMS` as a float (``heuristic:w_def=12,w_pen=0.05``).
- ``search``: ``sims``, ``ms``, ``rollout``, ``top``, ``horizon``, ``z``, ``race_z``, ``race_top``, ``race_stop``, ``infer``, ``belief``
  (see :mod:`carioca_agents.search`).
- ``ppo``: ``path`` (default key): a trained model.
- ``openspiel``: ``algo`` (default key: ``ismcts`` or ``mcts``), ``sims``, ``rollouts``, ``uct_c``,
  ``horizon``, ``rollout`` (``random`` or ``heuristic``): OpenSpiel's own search bots, with the
  ``[openspiel]`` extra (see :mod:`carioca_agents.openspiel_bots`).
- ``cheat-search``: ``search``'s keys and ``noise`` (a share of the true hidden cards dealt
  again); a labelled reference cheat that searches with the opponents' true hands
  (:mod:`carioca_agents.cheat`): only ``carioca tournament`` shows it the game, ``carioca serve``
  refuses it.

Building is two steps, so a caller can check a spec before anything runs:
:func:`parse_spec` parses it (nested specs too) into a :class:`ParsedSpec`, importing
no user code and reading no file; :func:`build_agent` builds it.  :func:`make_agent`
does both.  :class:`carioca_agents.allowlist.Allowlist` is that check for specs from untrusted
sources (a web request, a file in a served folder).

Modules add agents with :func:`register`: ``register(name, factory)`` keeps the raw form
(``factory(arg, seed)`` gets the text after the colon, unparsed); ``register(name,
factory, params={...}, default_key=...)`` gets typed keywords, ``factory(seed=..., **kw)``.
Names are resolved in :func:`_factory_for`.  User code enters as a plugin
(:mod:`carioca_agents.plugins`): ``py:MODULE:FACTORY[:KEY=VALUE,...]`` names a factory in an
importable module, and an installed entry point of the group ``carioca_env.agents``
adds a name; both work in spawned worker processes and Ray workers, which an agent
added with :func:`register` at run time does not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from carioca_agents.base import Agent
from carioca_agents.specs import MAX_SPEC_DEPTH, Param, ParsedSpec, SpecError, keys_text, parse_args


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    params: Mapping[str, Param] | None  # None: the raw form factory(arg, seed)
    default_key: str | None
    plugin: bool = False  # an installed entry point (user code, loaded when built)


#: name -> how to build it (filled by register(); built-ins on first use)
_FACTORIES: dict[str, _Entry] = {}


def register(
    name: str,
    factory: Callable[..., Agent],
    params: Mapping[str, Param] | None = None,
    default_key: str | None = None,
) -> None:
    """Make ``name`` a spec.

    Without ``params``: ``factory(arg, seed)`` receives the raw text after the colon
    (empty when there is none).  With ``params`` (possibly empty: no arguments):
    ``factory(seed=seed, **values)`` receives every key typed, defaults filled in;
    ``default_key`` is the key a bare argument sets.
    """
    if not isinstance(name, str) or not name or ":" in name or "," in name:
        raise SpecError(f"an agent name is a non-empty string without ':' or ',', got {name!r}")
    if params is not None and default_key is not None and default_key not in params:
        raise SpecError(f"default_key {default_key!r} is not one of the keys {sorted(params)}")
    _FACTORIES[name] = _Entry(factory, dict(params) if params is not None else None, default_key)


def available() -> list[str]:
    """The registered agent names."""
    _load_builtins()
    return sorted(_FACTORIES)


def describe(name: str) -> str:
    """The keys an agent's spec takes, with types and defaults."""
    entry = _factory_for(name, name)
    return keys_text(name, entry.params, entry.default_key)


def _factory_for(name: str, spec: str) -> _Entry:
    """The registered entry of ``name`` (the one place names are resolved)."""
    _load_builtins()
    entry = _FACTORIES.get(name)
    if entry is None:  # an installed plugin (entry point group carioca_env.agents)?
        from carioca_agents.plugins import entry_point_factory

        factory = entry_point_factory(name)
        if factory is not None:
            return _Entry(factory, None, None, plugin=True)
        raise SpecError(
            f"unknown agent {spec!r}; known agents: {', '.join(sorted(_FACTORIES))} "
            f"(written NAME or NAME:key=value,...; user code: py:MODULE:FACTORY, see carioca_agents.plugins)"
        )
    return entry


def parse_spec(spec: str) -> ParsedSpec:
    """Parse an agent spec (syntax in the module docstring) without building anything.

    Nothing is imported but this package's built-in agents, no file is read and no
    factory runs: a ``py:`` spec is split into module, factory and arguments; an entry
    point is found in the installed packages' metadata, not loaded.  Nested specs
    (keys of kind ``agent``) are parsed too, at most :data:`MAX_SPEC_DEPTH` deep.

    Raises:
        TypeError: ``spec`` is not a string.
        SpecError: unknown agent, key or value (the message lists what is allowed).
        carioca_agents.plugins.PluginError: a malformed ``py:`` spec (a ``SpecError`` too).
    """
    if not isinstance(spec, str):
        raise TypeError(f"make_agent(spec): spec must be a string such as 'heuristic' or 'search:sims=64', got {spec!r}")
    return _parse(spec, 0)


def _parse(spec: str, depth: int) -> ParsedSpec:
    if depth > MAX_SPEC_DEPTH:
        raise SpecError(f"agent spec {spec!r}: specs nest at most {MAX_SPEC_DEPTH} deep")
    if spec.startswith("py:"):  # user code named by the spec: carioca_agents.plugins (parsed, not imported)
        from carioca_agents.plugins import parse_py_spec

        module, factory, kwargs = parse_py_spec(spec)
        return ParsedSpec(spec, "py", "py", kwargs, target=f"{module}:{factory}")
    name, _, arg = spec.partition(":")
    entry = _factory_for(name, spec)
    if entry.params is None:
        return ParsedSpec(spec, "plugin" if entry.plugin else "raw", name, raw=arg)
    values = parse_args(name, arg, entry.params, entry.default_key)
    for key, param in entry.params.items():
        if param.kind == "agent" and isinstance(values[key], str):
            try:
                values[key] = _parse(values[key], depth + 1)
            except SpecError as exc:
                raise SpecError(f"{spec}: in {key}: {exc}") from None
    return ParsedSpec(spec, "typed", name, values)


def build_agent(parsed: ParsedSpec, seed: int = 0) -> Agent:
    """Build the agent of a parsed spec (user code is imported here, models load here).

    Raises:
        TypeError: ``seed`` is not an int.
        SpecError: the agent cannot be built from these arguments (plugins say why).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"make_agent(seed): seed must be an int, got {seed!r}")
    if parsed.kind == "py":
        from carioca_agents.plugins import build_py_agent

        module, _, factory = parsed.target.partition(":")
        agent = build_py_agent(module, factory, dict(parsed.args), seed, parsed.text)
    else:
        entry = _factory_for(parsed.name, parsed.text)
        if entry.params is None:
            agent = entry.factory(parsed.raw, seed)
        else:
            agent = entry.factory(seed=seed, **parsed.args)
    agent.name = parsed.text
    return agent


def make_agent(spec: str | ParsedSpec, seed: int = 0) -> Agent:
    """Build the agent a spec names (syntax in the module docstring): :func:`parse_spec`,
    then :func:`build_agent`.

    Raises:
        TypeError: ``spec`` is not a string or ``seed`` not an int.
        SpecError: unknown agent, key or value (the message lists what is allowed).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"make_agent(seed): seed must be an int, got {seed!r}")
    return build_agent(spec if isinstance(spec, ParsedSpec) else parse_spec(spec), seed)


def spec_params(parsed: ParsedSpec) -> Mapping[str, Param]:
    """The typed keys of a parsed spec's agent (empty unless its ``kind`` is ``typed``)."""
    if parsed.kind != "typed":
        return {}
    return _factory_for(parsed.name, parsed.text).params or {}


def worker_problem(spec: str) -> str | None:
    """Why a worker process could not build ``spec``, or None if it can.

    Built-in names, ``py:`` specs and entry points are rebuilt from the string in every
    worker.  A name added with :func:`carioca_agents.registry.register` by code outside the
    ``carioca_agents`` package (a notebook, a script, a test) exists only in this process.
    """
    if spec.startswith("py:"):  # a plugin spec: rebuilt from the string in every worker
        return None
    available()  # loads the built-ins
    name = spec.partition(":")[0]
    entry = _FACTORIES.get(name)
    factory = None if entry is None else entry.factory
    module = getattr(factory, "__module__", "") or ""
    if entry is None or module == "carioca_agents" or module.startswith("carioca_agents."):
        return None  # unknown names are reported by make_agent itself
    return (
        f"agent {name!r} was registered at run time (by {module or 'unknown code'}) with "
        f"carioca_agents.registry.register, so it exists only in this process: worker processes "
        f"(--workers > 1) and Ray workers cannot build it. Name its factory with a plugin spec "
        f"instead, py:MODULE:FACTORY[:KEY=VALUE,...] (the module importable by the workers), "
        f"or play with --workers 1"
    )


def _load_builtins() -> None:
    if "random" in _FACTORIES:
        return
    from carioca_agents.cheat import CHEAT_NAME, CHEAT_PARAMS, CheatSearchAgent
    from carioca_agents.greedy import GreedyAgent
    from carioca_agents.heuristic import HEURISTIC_PARAMS, make_heuristic
    from carioca_agents.openspiel_bots import NAME as OPENSPIEL_NAME
    from carioca_agents.openspiel_bots import OPENSPIEL_PARAMS, make_openspiel
    from carioca_agents.random_agent import RandomAgent
    from carioca_agents.search import SEARCH_PARAMS, SearchAgent

    register("random", lambda seed: RandomAgent(seed), params={})
    register("greedy", lambda seed: GreedyAgent(seed), params={})
    register("heuristic", make_heuristic, params=HEURISTIC_PARAMS)
    # search plays any agent spec in its rollouts: it is handed this registry's builder, so
    # that it need not import the registry (which imports it)
    register("search", lambda seed, **kw: SearchAgent(seed=seed, build=make_agent, **kw), params=SEARCH_PARAMS)
    # a reference cheat (the opponents' true hands): only runners that show it the game play it
    register(CHEAT_NAME, lambda seed, **kw: CheatSearchAgent(seed=seed, build=make_agent, **kw), params=CHEAT_PARAMS)
    register("ppo", _make_ppo, params={"path": Param(str, "", "a model .zip (with its .json card) or their folder, "
                                                     "or a shipped model's name", kind="model")},
             default_key="path")
    # OpenSpiel's IS-MCTS and MCTS: listed always, built only with the [openspiel] extra
    # (make_openspiel says so); the module imports no OpenSpiel until an agent is built
    register(OPENSPIEL_NAME, make_openspiel, params=OPENSPIEL_PARAMS, default_key="algo")


def _make_ppo(seed: int, path: str) -> Agent:
    # imported here: torch / sb3-contrib load only when a ppo agent is built
    from carioca_env.extras import require

    require("the ppo agent", "torch", "sb3_contrib")
    from carioca_agents.ppo_agent import make_ppo_agent

    return make_ppo_agent(path, seed)


#: The registry's own names and, for code written against it, the spec types it re-exports
#: from :mod:`carioca_agents.specs`.
__all__ = ["MAX_SPEC_DEPTH", "Param", "ParsedSpec", "SpecError", "available", "build_agent", "describe",
           "make_agent", "parse_args", "parse_spec", "register", "spec_params", "worker_problem"]
