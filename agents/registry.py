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

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from carioca_agents.base import Agent


class SpecError(ValueError):
    """An agent spec that does not parse or names an unknown agent, key or value."""


def _parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false, 1/0, yes/no, on/off)")


_TYPE_NAMES = {int: "int", float: "float", str: "str", bool: "bool"}


@dataclass(frozen=True)
class Param:
    """One typed argument of an agent spec.

    Attributes:
        type: ``int``, ``float``, ``str`` or ``bool``.
        default: the value when the key is not given.
        help: what it means.
        choices: if set, the allowed values.
        minimum: if set, the smallest allowed value (numbers).
        maximum: if set, the largest allowed value (numbers).
        kind: what a ``str`` value names: ``"value"`` (plain text), ``"agent"`` (another
            agent spec, parsed and checked with its parent: ``search``'s ``rollout``) or
            ``"model"`` (a model file or a shipped model's name: ``ppo``'s ``path``).
            :func:`parse_spec` and :mod:`carioca_agents.allowlist` use it to find every spec and
            file a spec names, however deep.
    """

    type: type
    default: Any
    help: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    kind: str = "value"

    def parse(self, text: str) -> Any:
        """The typed value of ``text``; raises ``ValueError`` saying what is expected."""
        if self.type is bool:
            value: Any = _parse_bool(text)
        elif self.type is int:
            try:
                value = int(text)
            except ValueError:
                raise ValueError(f"{text!r} is not an int") from None
        elif self.type is float:
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"{text!r} is not a number") from None
            if not math.isfinite(value):  # nan compares false with every bound
                raise ValueError(f"{text!r} is not a finite number")
        else:
            value = text
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(map(str, self.choices))}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{text!r} is below the minimum {self.minimum:g}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{text!r} is above the maximum {self.maximum:g}")
        return value

    def describe(self) -> str:
        """``int, default 64`` style summary."""
        kind = "|".join(map(str, self.choices)) if self.choices else _TYPE_NAMES.get(self.type, str(self.type))
        return f"{kind}, default {self.default!r}"


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


def _keys_text(name: str, entry: _Entry) -> str:
    if not entry.params:
        return f"{name} takes no arguments"
    keys = ", ".join(f"{k} ({p.describe()})" for k, p in entry.params.items())
    bare = f"; a bare {name}:VALUE sets {entry.default_key}" if entry.default_key else ""
    return f"allowed keys of {name}: {keys}{bare}"


def describe(name: str) -> str:
    """The keys an agent's spec takes, with types and defaults."""
    return _keys_text(name, _factory_for(name, name))


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


def _builds_nothing(**kwargs: Any) -> Agent:
    """The factory of an entry made only to word :func:`parse_args`'s errors."""
    raise TypeError("this registry entry only checks arguments; it builds no agent")


def parse_args(name: str, arg: str, params: Mapping[str, Param], default_key: str | None) -> dict[str, Any]:
    """The typed keywords of the argument text ``arg`` of agent ``name`` (see the module docstring).

    Raises:
        SpecError: unknown key, bad value, repeated key, or arguments where none are taken.
    """
    entry = _Entry(_builds_nothing, params, default_key)  # for the error texts only
    values = {k: p.default for k, p in params.items()}
    if not arg:
        return values
    if not params:
        raise SpecError(f"{name}:{arg}: {name} takes no arguments (write just {name!r})")
    if "=" not in arg:
        if default_key is None:
            raise SpecError(f"{name}:{arg}: a bare argument needs key=value here; {_keys_text(name, entry)}")
        items = [(default_key, arg)]
    else:
        items = []
        for i, part in enumerate(arg.split(",")):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq:
                if i == 0 and default_key is not None:
                    items.append((default_key, part))
                    continue
                raise SpecError(f"{name}:{arg}: {part!r} is not key=value; {_keys_text(name, entry)}")
            items.append((key, value.strip()))
    seen = set()
    for key, value in items:
        if key not in params:
            raise SpecError(f"{name}:{arg}: unknown key {key!r}; {_keys_text(name, entry)}")
        if key in seen:
            raise SpecError(f"{name}:{arg}: key {key!r} is given twice")
        seen.add(key)
        try:
            values[key] = params[key].parse(value)
        except ValueError as exc:
            raise SpecError(f"{name}:{arg}: bad value for {key} ({params[key].describe()}): {exc}") from None
    return values


#: How deep specs may nest (``search:rollout=search:rollout=...``).
MAX_SPEC_DEPTH = 4


@dataclass(frozen=True)
class ParsedSpec:
    """An agent spec parsed and type-checked, with nothing imported or loaded yet.

    :func:`parse_spec` makes one, :func:`build_agent` (or :func:`make_agent`) builds the
    agent from it.  Between the two a caller can check everything the spec names
    (:meth:`walk` visits nested specs too): :class:`carioca_agents.allowlist.Allowlist` does so
    for specs from untrusted sources.

    Attributes:
        text: the spec as written (the built agent's ``name``).
        kind: ``"typed"`` (a registered name with typed keys), ``"raw"`` (a registered
            name that takes its argument text unparsed), ``"plugin"`` (an installed entry
            point: user code) or ``"py"`` (``py:MODULE:FACTORY``: user code).
        name: the registered or entry-point name; ``py`` for a ``py:`` spec.
        args: the typed keywords, defaults filled in, a nested spec as a
            :class:`ParsedSpec` (``typed``); the keyword arguments (``py``).
        raw: the argument text (``raw`` and ``plugin``).
        target: ``MODULE:FACTORY`` (``py``).
    """

    text: str
    kind: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    raw: str = ""
    target: str = ""

    def __str__(self) -> str:
        return self.text

    def params(self) -> Mapping[str, Param]:
        """The typed keys of this spec's agent (empty unless ``kind`` is ``typed``)."""
        if self.kind != "typed":
            return {}
        return _factory_for(self.name, self.text).params or {}

    def children(self) -> Iterator[tuple[str, ParsedSpec]]:
        """``(key, spec)`` of each nested agent spec (a key of kind ``agent``)."""
        for key, value in self.args.items():
            if isinstance(value, ParsedSpec):
                yield key, value

    def walk(self) -> Iterator[ParsedSpec]:
        """This spec and every spec nested in it, depth first."""
        yield self
        for _key, child in self.children():
            yield from child.walk()

    def with_args(self, **values: Any) -> ParsedSpec:
        """A copy with some arguments replaced (the text stays as written)."""
        return replace(self, args={**self.args, **values})


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


def _load_builtins() -> None:
    if "random" in _FACTORIES:
        return
    from carioca_agents.cheat import CHEAT_NAME, CHEAT_PARAMS, CheatSearchAgent
    from carioca_agents.greedy import GreedyAgent
    from carioca_agents.heuristic import HEURISTIC_PARAMS, make_heuristic
    from carioca_agents.random_agent import RandomAgent
    from carioca_agents.search import SEARCH_PARAMS, SearchAgent

    register("random", lambda seed: RandomAgent(seed), params={})
    register("greedy", lambda seed: GreedyAgent(seed), params={})
    register("heuristic", make_heuristic, params=HEURISTIC_PARAMS)
    register("search", lambda seed, **kw: SearchAgent(seed=seed, **kw), params=SEARCH_PARAMS)
    # a reference cheat (the opponents' true hands): only runners that show it the game play it
    register(CHEAT_NAME, lambda seed, **kw: CheatSearchAgent(seed=seed, **kw), params=CHEAT_PARAMS)
    register("ppo", _make_ppo, params={"path": Param(str, "", "a model .zip (with its .json card) or their folder, "
                                                     "or a shipped model's name", kind="model")},
             default_key="path")


def _make_ppo(seed: int, path: str) -> Agent:
    # imported here: torch / sb3-contrib load only when a ppo agent is built
    from carioca_env.extras import require

    require("the ppo agent", "torch", "sb3_contrib")
    from carioca_agents.ppo_agent import make_ppo_agent

    return make_ppo_agent(path, seed)
