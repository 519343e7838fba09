"""Which agent specs an untrusted source may name, checked before anything is built.

A spec that comes from a web request, or from a file anyone could have written into a
served folder, must not run code or read a file it was not meant to.
:meth:`Allowlist.check` parses the whole spec (:func:`carioca_agents.registry.parse_spec`
imports no user code and reads no file), walks every nested spec (``search``'s
``rollout``), and refuses with :class:`SpecRefused` anything outside the list:

- agents: the built-in ones (:data:`BUILTIN_AGENTS`), no ``py:MODULE:FACTORY`` spec and
  no installed entry point, at any depth;
- models (keys of kind ``model``, ``ppo:PATH``): a shipped model by name, or a file the
  caller's ``resolve_model`` accepts (a web server: a model inside its folder); without
  one, shipped models only;
- budgets: the keys in ``limits`` (a search's rollouts and time, an OpenSpiel bot's
  simulations, rollouts and horizon) at most that much;
- extras: an agent whose optional extra is not installed (``openspiel`` without
  OpenSpiel) is refused with the command that installs it, and not offered;
- plugins: only the labels the operator gave (``plugins``), each standing for a spec
  the operator wrote, named exactly (no arguments from the source).

What it returns is the spec parsed, each model argument replaced by the model file it
resolved to; :func:`carioca_agents.registry.build_agent` builds exactly that.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from carioca_agents.openspiel_bots import NAME as OPENSPIEL_NAME
from carioca_agents.openspiel_bots import missing_extra
from carioca_agents.registry import parse_spec, spec_params
from carioca_agents.specs import ParsedSpec, SpecError
from carioca_env.errors import CariocaError

#: The agents a request may name: this package's own code, reading no file but a model.
BUILTIN_AGENTS = frozenset({"random", "greedy", "heuristic", "search", "ppo", "openspiel"})

#: The most a source may ask of one decision: a search's rollouts, milliseconds and
#: rollout length (a request must not hold a server's core for minutes per move).
DEFAULT_LIMITS: Mapping[tuple[str, str], float] = {
    ("search", "sims"): 256,
    ("search", "ms"): 5000.0,
    ("search", "horizon"): 400,
    ("search", "top"): 16,
    # OpenSpiel's bots: a decision costs about sims x rollouts x horizon rollout steps; at
    # these caps about as much as search at its caps (docs/results/2026-12-07-openspiel.md)
    ("openspiel", "sims"): 256,
    ("openspiel", "rollouts"): 2,
    ("openspiel", "horizon"): 20,
}

#: A plugin label: what a request names to get the operator's spec.
LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


class SpecRefused(SpecError):
    """A spec that parses but names what this caller does not allow (user code, an
    entry point, a model outside the allowed folder, a budget above the limit)."""


@dataclass(frozen=True)
class Allowlist:
    """What specs from an untrusted source may name (see the module docstring).

    Attributes:
        names: the agent names allowed, at any depth.
        plugins: label -> the operator's parsed spec (user code allowed by the operator).
        resolve_model: a model argument -> the model file, raising when it is refused
            (``PathRefused``, ``SpecRefused``...); None: shipped models only.
        limits: ``(agent, key)`` -> the largest value allowed.
    """

    names: frozenset[str] = BUILTIN_AGENTS
    plugins: Mapping[str, ParsedSpec] = field(default_factory=dict)
    resolve_model: Callable[[str], Path] | None = None
    limits: Mapping[tuple[str, str], float] = field(default_factory=lambda: dict(DEFAULT_LIMITS))

    def choices(self) -> list[str]:
        """The names a source may give without arguments (built-ins but ``ppo`` and those
        whose extra is not installed, then the labels)."""
        return sorted(n for n in self.names if n != "ppo" and _missing(n) is None) + sorted(self.plugins)

    def check(self, spec: Any) -> ParsedSpec:
        """The parsed spec, every model resolved to its file; nothing is imported or loaded.

        Raises:
            SpecError: not a string, or a spec that does not parse (unknown agent, key, value).
            SpecRefused: it parses but names what is not allowed (the message says what is).
            ModelLoadError: a model name that is not shipped (from ``resolve_model``).
        """
        if not isinstance(spec, str):
            raise SpecError(f"an agent spec is a string such as 'greedy', got {type(spec).__name__}")
        if spec in self.plugins:
            return replace(self.plugins[spec], text=spec)
        if spec.startswith("py:"):  # refused before it is even parsed
            raise SpecRefused(
                f"{spec[:80]!r} names code (py:MODULE:FACTORY), which a request may not name; the operator "
                f"can allow a plugin by a label: carioca serve --allow-plugin LABEL=SPEC"
            )
        head = spec.partition(":")[0]
        if head in self.plugins:
            raise SpecRefused(f"the plugin {head!r} is named as it is, without arguments (the operator set them)")
        return self._checked(parse_spec(spec))

    def _checked(self, node: ParsedSpec) -> ParsedSpec:
        if node.kind == "py":
            raise SpecRefused(f"{node.text[:80]!r} names code (py:MODULE:FACTORY), which may not be named here")
        if node.kind != "typed" or node.name not in self.names:
            raise SpecRefused(
                f"agent {node.name!r} may not be named here; allowed: {', '.join(sorted(self.names))}"
                + (f", and the operator's plugins {', '.join(sorted(self.plugins))}" if self.plugins else "")
            )
        missing = _missing(node.name)
        if missing is not None:  # a 400 that says what to install, not a failure when it is built
            raise SpecError(f"{node.text}: {missing}")
        params = spec_params(node)
        values: dict[str, Any] = {}
        for key, value in node.args.items():
            limit = self.limits.get((node.name, key))
            if limit is not None and isinstance(value, (int, float)) and value > limit:
                raise SpecRefused(f"{node.text}: {key} is at most {limit:g} here, got {value:g}")
            if isinstance(value, ParsedSpec):
                value = self._checked(value)
            elif params[key].kind == "model":
                value = str(self._model(node, str(value)))
            values[key] = value
        return replace(node, args=values)

    def _model(self, node: ParsedSpec, arg: str) -> Path:
        from carioca_agents.ppo_agent import SHIPPED_NAME, resolve_model_path

        if not arg:
            raise SpecError(f"{node.text}: {node.name} needs a model: a shipped model's name or a model in the folder")
        if SHIPPED_NAME.match(arg):
            try:
                return resolve_model_path(arg)
            except CariocaError as exc:  # ModelLoadError: not shipped (the message lists those that are)
                raise SpecError(str(exc)) from None
        if self.resolve_model is None:
            raise SpecRefused(f"{node.text}: only shipped models may be named here (contract1, full-p4, ...)")
        return self.resolve_model(arg)


def _missing(name: str) -> str | None:
    """Why the built-in agent ``name`` cannot be built here (an optional extra is not
    installed), or None; nothing is imported."""
    return missing_extra() if name == OPENSPIEL_NAME else None


def model_files(parsed: ParsedSpec) -> list[Path]:
    """The model files a parsed spec names, nested specs included (after :meth:`Allowlist.check`:
    the resolved files)."""
    out = []
    for node in parsed.walk():
        for key, param in spec_params(node).items():
            if param.kind == "model" and node.args.get(key):
                out.append(Path(node.args[key]))
    return out


def parse_plugin_option(text: str) -> tuple[str, ParsedSpec]:
    """An operator's ``LABEL=SPEC`` (or ``NAME``, an installed entry point, as its own
    label) as ``(label, parsed spec)``; parsed only, nothing is built.

    Raises:
        SpecError: a bad label, a label that shadows a built-in agent, or a spec that
            does not parse.
    """
    label, eq, spec = text.partition("=")
    if not eq:
        label, spec = text, text
    if not LABEL.match(label):
        raise SpecError(f"plugin label {label!r}: letters, digits, '_' and '-', starting with a letter (LABEL=SPEC)")
    if label in BUILTIN_AGENTS:
        raise SpecError(f"plugin label {label!r} is a built-in agent's name: choose another (LABEL=SPEC)")
    return label, parse_spec(spec)
