"""User agents as plugins: specs that name user code, resolved again in every worker.

Two ways to enter an agent of your own without touching this project:

``py:MODULE:FACTORY[:KEY=VALUE,KEY=VALUE...]``
    ``MODULE`` is an importable module (``my_pkg.bots``, or ``my_agent`` for a
    ``my_agent.py`` in the working directory), ``FACTORY`` a callable in it.  The agent
    is ``FACTORY(seed=SEED, **kwargs)``; values are read as JSON where they parse
    (``depth=2``, ``greedy=true``, ``temperature=0.5``) and are strings otherwise
    (``model=runs/a.zip``).  Example: ``py:carioca_agents.examples.cautious:make_agent:patience=3``.

An entry point in the group ``carioca_env.agents``
    A package that declares, in its ``pyproject.toml``::

        [project.entry-points."carioca_env.agents"]
        mybot = "my_pkg.bots:make_agent"

    makes ``mybot`` (and ``mybot:KEY=VALUE,...``) a spec once it is installed, with the
    same calling convention.  Built-in names win over entry points of the same name.

Both are plain strings, so they travel to spawn processes and Ray workers, which build
the agent themselves (the module must be importable there: installed, or on
``PYTHONPATH``).

The working directory: ``python -m`` puts it on the import path, an installed console
script (the ``carioca`` command) does not.  So the ``carioca`` command calls
:func:`allow_working_directory`, deliberately: a ``py:`` module that is not importable
otherwise is then looked for in the folder the command was started in (and only for
``py:`` specs, only after the installed modules, so a file there never shadows an
installed module nor is imported by anything else).  The folder travels to the workers
in the environment variable ``CARIOCA_PLUGIN_PATH`` (folders separated by
``os.pathsep``), which a library user may set too.  A factory given to :func:`carioca_agents.registry.register` at run time (in a
notebook, a script) lives only in the process that registered it:
:func:`carioca_agents.registry.worker_problem` says so before a tournament starts its workers.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from importlib import metadata
from typing import Any

from carioca_agents.base import Agent
from carioca_agents.specs import SpecError

PREFIX = "py:"
ENTRY_POINT_GROUP = "carioca_env.agents"
#: folders (``os.pathsep``-separated) where a ``py:`` module is looked for when it is not importable
PATH_ENV = "CARIOCA_PLUGIN_PATH"


class PluginError(SpecError):
    """A plugin spec that cannot be resolved (the message says what was wrong and what would
    be right; a :class:`~carioca_agents.specs.SpecError`, hence a ``ValueError``)."""


def parse_kwargs(text: str, spec: str) -> dict[str, Any]:
    """``"a=1,b=x"`` -> ``{"a": 1, "b": "x"}`` (values as JSON where they parse, else strings)."""
    out: dict[str, Any] = {}
    if not text:
        return out
    for part in text.split(","):
        key, sep, raw = part.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise PluginError(
                f"agent spec {spec!r}: arguments must be KEY=VALUE pairs separated by commas "
                f"(e.g. depth=2,name=x), got {part!r}"
            )
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _check_agent(obj: Any, spec: str, source: str) -> Agent:
    if not (callable(getattr(obj, "act", None)) and callable(getattr(obj, "reset", None))):
        raise PluginError(
            f"agent spec {spec!r}: {source} returned {type(obj).__name__}, which is not an agent "
            f"(an agent has act(view, legal) -> Move and reset(seed); see carioca_agents.base.Agent)"
        )
    return obj


def _call(factory: Callable[..., Any], kwargs: dict[str, Any], seed: int, spec: str, source: str) -> Agent:
    try:
        agent = factory(seed=seed, **kwargs)
    except TypeError as exc:
        raise PluginError(
            f"agent spec {spec!r}: {source} cannot be called as {source}(seed=..., "
            f"{', '.join(f'{k}=...' for k in kwargs)}): {exc}"
        ) from None
    return _check_agent(agent, spec, source)


def parse_py_spec(spec: str) -> tuple[str, str, dict[str, Any]]:
    """``py:MODULE:FACTORY[:KEY=VALUE,...]`` -> ``(MODULE, FACTORY, kwargs)``, importing nothing.

    Raises:
        PluginError: not of that form, or arguments that are not ``KEY=VALUE`` pairs.
    """
    body = spec[len(PREFIX):] if spec.startswith(PREFIX) else ""
    module_name, _, rest = body.partition(":")
    factory_name, _, args = rest.partition(":")
    if not module_name or not factory_name:
        raise PluginError(
            f"agent spec {spec!r} is not py:MODULE:FACTORY[:KEY=VALUE,...] "
            f"(e.g. py:carioca_agents.examples.cautious:make_agent:patience=3)"
        )
    return module_name, factory_name, parse_kwargs(args, spec)


def build_py_agent(module_name: str, factory_name: str, kwargs: dict[str, Any], seed: int, spec: str) -> Agent:
    """Import ``module_name`` and build ``factory_name(seed=seed, **kwargs)`` (the parts of a
    ``py:`` spec that :func:`parse_py_spec` returned; ``spec`` names it in errors).

    Raises:
        PluginError: module not importable, no such factory, bad arguments, or the
            factory did not return an agent.
    """
    try:
        module = _import_plugin(module_name)
    except ImportError as exc:
        raise PluginError(
            f"agent spec {spec!r}: cannot import module {module_name!r} ({exc}); the module must be "
            f"importable in every worker: install its package, or put its folder on PYTHONPATH"
        ) from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise PluginError(f"agent spec {spec!r}: module {module_name!r} has no callable {factory_name!r}")
    return _call(factory, dict(kwargs), seed, spec, f"{module_name}:{factory_name}")


def make_py_agent(spec: str, seed: int) -> Agent:
    """Build the agent of a ``py:MODULE:FACTORY[:KEY=VALUE,...]`` spec.

    Raises:
        PluginError: malformed spec, module not importable, no such factory, bad
            arguments, or the factory did not return an agent.
    """
    module_name, factory_name, kwargs = parse_py_spec(spec)
    return build_py_agent(module_name, factory_name, kwargs, seed, spec)


def plugin_dirs() -> list[str]:
    """The folders of ``CARIOCA_PLUGIN_PATH`` (see the module docstring), in order."""
    return [d for d in os.environ.get(PATH_ENV, "").split(os.pathsep) if d]


def allow_working_directory() -> None:
    """Let ``py:`` specs name modules of the working directory, in this process and its
    workers (what the ``carioca`` command does at start; see the module docstring)."""
    cwd = os.getcwd()
    dirs = plugin_dirs()
    if cwd not in dirs:
        os.environ[PATH_ENV] = os.pathsep.join([*dirs, cwd])


def _import_plugin(module_name: str) -> Any:
    """Import a ``py:`` spec's module: from the import path, else from :func:`plugin_dirs`
    (added to the path only while this module is imported, after every other entry)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.partition(".")[0]
        extra = [d for d in plugin_dirs() if d not in sys.path]
        if exc.name != top or not extra:
            raise
    sys.path.extend(extra)
    try:
        importlib.invalidate_caches()
        return importlib.import_module(module_name)
    finally:
        for d in extra:
            if d in sys.path:
                sys.path.remove(d)


def entry_points() -> dict[str, metadata.EntryPoint]:
    """The installed agent plugins of the ``carioca_env.agents`` group, by name."""
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def entry_point_factory(name: str) -> Callable[[str, int], Agent] | None:
    """A registry factory ``(arg, seed) -> Agent`` for the entry point ``name``, or None."""
    ep = entry_points().get(name)
    if ep is None:
        return None

    def factory(arg: str, seed: int) -> Agent:
        spec = f"{name}:{arg}" if arg else name
        try:
            target = ep.load()
        except Exception as exc:  # a broken plugin package: say which one
            raise PluginError(f"agent {name!r}: the entry point {ep.value!r} does not load: {type(exc).__name__}: {exc}") from None
        return _call(target, parse_kwargs(arg, spec), seed, spec, ep.value)

    return factory
