"""Registration with the Gymnasium and PettingZoo registries.

- ``gymnasium.make("Carioca-v0", ...)`` builds the single-agent wrapper
  (:class:`~carioca_env.wrappers.CariocaSingleAgentEnv`); keyword arguments are the
  wrapper's and :class:`~carioca_env.env.EnvConfig`'s.
- ``pettingzoo.make("aec", "carioca/carioca-v0", ...)`` builds the AEC environment
  (:func:`carioca_env.carioca_v0.env`).

Neither Gymnasium 1.x nor PettingZoo 1.27 loads installed plugins (Gymnasium 1.0 dropped
its ``gymnasium.envs`` entry-point group, and PettingZoo's registry never had one), so
registration happens when this package is imported, in either order:

- ``gymnasium.make("carioca_env:Carioca-v0")`` imports the package itself, so it works
  right after installing, with no import of ours;
- ``import carioca_env`` registers with each framework that is already imported, and
  with each one imported later, when its import completes (:func:`register_on_import`):
  ``import carioca_env`` then ``import gymnasium`` (isort's order) works as the reverse;
- importing :mod:`carioca_env.carioca_v0` or :mod:`carioca_env.wrappers` registers with
  both; :func:`register_envs` does it explicitly.

The engine stays free of RL imports: ``import carioca_env`` alone imports neither
framework.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType

#: the Gymnasium id of the single-agent wrapper
GYMNASIUM_ID = "Carioca-v0"
#: the PettingZoo id of the AEC environment (namespace ``carioca``)
PETTINGZOO_ID = "carioca/carioca-v0"


def register_gymnasium() -> None:
    """Register ``Carioca-v0`` with Gymnasium (once; a second call changes nothing)."""
    import gymnasium

    if GYMNASIUM_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=GYMNASIUM_ID,
        entry_point="carioca_env.wrappers:CariocaSingleAgentEnv",
        # No max_episode_steps: the env truncates deals itself (EnvConfig.max_turns,
        # R17), and a TimeLimit on top would cut games at an unrelated step count.
        disable_env_checker=False,
    )


def register_pettingzoo() -> None:
    """Register ``carioca/carioca-v0`` with PettingZoo's AEC registry (once)."""
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):
        return  # PettingZoo before 1.27 has no registry: carioca_v0.env() is the way in
    if PETTINGZOO_ID in pettingzoo.aec_registry:
        return
    pettingzoo.register("aec", PETTINGZOO_ID, entry_point="carioca_env.carioca_v0:env")


def register_envs() -> None:
    """Register the environments with Gymnasium and PettingZoo."""
    register_gymnasium()
    register_pettingzoo()


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Calls a registration function right after a framework's top-level module is executed.

    It finds nothing itself: for a watched name it asks the other finders for the spec and
    wraps that spec's ``exec_module`` once, restoring the original loader before running
    it, so the imported module is the framework's own, unchanged.
    """

    def __init__(self) -> None:
        self.pending: dict[str, Callable[[], None]] = {}
        self._lock = threading.Lock()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The framework's own spec, with registration added after its module runs."""
        with self._lock:
            hook = self.pending.pop(fullname, None)
            if not self.pending and self in sys.meta_path:
                sys.meta_path.remove(self)  # nothing left to watch
        if hook is None:
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is not self and hasattr(finder, "find_spec"):
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # not installed (the import fails as usual) or an unusual loader
        loader = spec.loader
        original = loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            original(module)
            hook()

        spec.loader = _Loader(loader, exec_then_register)
        return spec


class _Loader(importlib.abc.Loader):
    """A loader that runs ``exec_module`` and otherwise is ``inner`` (and puts it back)."""

    def __init__(self, inner: importlib.abc.Loader, exec_module: Callable[[ModuleType], None]) -> None:
        self._inner = inner
        self._exec = exec_module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        """The inner loader's module."""
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        """Give the module its own loader back, then execute it and register."""
        module.__loader__ = self._inner
        if module.__spec__ is not None:
            module.__spec__.loader = self._inner
        self._exec(module)

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


_WATCHER = _RegisterAfterImport()


def register_on_import() -> None:
    """Register with Gymnasium and PettingZoo now if imported, or when they are imported.

    Called by ``import carioca_env``; it imports neither framework itself.
    """
    for name, register in (("gymnasium", register_gymnasium), ("pettingzoo", register_pettingzoo)):
        if name in sys.modules:
            register()
        else:
            with _WATCHER._lock:
                _WATCHER.pending[name] = register
    with _WATCHER._lock:
        if _WATCHER.pending and _WATCHER not in sys.meta_path:
            sys.meta_path.insert(0, _WATCHER)
