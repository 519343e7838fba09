"""Agent specs as data: the typed keys an agent takes and a spec parsed against them.

The leaf of the agents' imports (``tests/test_agent_imports.py``): agents declare their
keys with :class:`Param` without importing the registry that builds them, and
:class:`ParsedSpec` is what :func:`carioca_agents.registry.parse_spec` returns.  The spec
syntax is described in :mod:`carioca_agents.registry`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any


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


def keys_text(name: str, params: Mapping[str, Param] | None, default_key: str | None) -> str:
    """``allowed keys of NAME: key (type, default ...)``: what an error about a spec says is allowed."""
    if not params:
        return f"{name} takes no arguments"
    keys = ", ".join(f"{k} ({p.describe()})" for k, p in params.items())
    bare = f"; a bare {name}:VALUE sets {default_key}" if default_key else ""
    return f"allowed keys of {name}: {keys}{bare}"


def parse_args(name: str, arg: str, params: Mapping[str, Param], default_key: str | None) -> dict[str, Any]:
    """The typed keywords of the argument text ``arg`` of agent ``name`` (see the module docstring).

    Raises:
        SpecError: unknown key, bad value, repeated key, or arguments where none are taken.
    """
    values = {k: p.default for k, p in params.items()}
    if not arg:
        return values
    if not params:
        raise SpecError(f"{name}:{arg}: {name} takes no arguments (write just {name!r})")
    if "=" not in arg:
        if default_key is None:
            raise SpecError(f"{name}:{arg}: a bare argument needs key=value here; {keys_text(name, params, default_key)}")
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
                raise SpecError(f"{name}:{arg}: {part!r} is not key=value; {keys_text(name, params, default_key)}")
            items.append((key, value.strip()))
    seen = set()
    for key, value in items:
        if key not in params:
            raise SpecError(f"{name}:{arg}: unknown key {key!r}; {keys_text(name, params, default_key)}")
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

    :func:`carioca_agents.registry.parse_spec` makes one,
    :func:`carioca_agents.registry.build_agent` builds the agent from it.  Between the two a
    caller can check everything the spec names (:meth:`walk` visits nested specs too;
    :func:`carioca_agents.registry.spec_params` gives a spec's typed keys):
    :class:`carioca_agents.allowlist.Allowlist` does so for specs from untrusted sources.

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


__all__ = ["MAX_SPEC_DEPTH", "Param", "ParsedSpec", "SpecError", "keys_text", "parse_args"]
