"""Optional dependencies: which extra of ``carioca-env`` brings which module.

The core install (numpy, gymnasium, pettingzoo) runs the engine and the environments;
training, plots, ratings, rendering and the reference benchmarks need extras.  Code that
needs one calls :func:`require` before importing, so a missing module is reported with
the command that installs it rather than as a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib.util

#: top-level module -> the extra that installs it
EXTRA_OF: dict[str, str] = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "tqdm": "stats",
    "scipy": "stats",
    "tabulate": "stats",
    "choix": "stats",
    "fastapi": "web",
    "uvicorn": "web",
    "jinja2": "web",
    "matplotlib": "plots",
    "PIL": "render",
    "pyspiel": "openspiel",  # the OpenSpiel game; [bench] brings it too
    "rlcard": "bench",
    "mkdocs": "docs",
    "optuna": "tune",
    "ray": "ray",
    "pandas": "notebook",
    "nbformat": "notebook",
    "nbclient": "notebook",
    "httpx": "web-test",
    "playwright": "web-test",
}


class MissingExtraError(ImportError):
    """A module of an optional extra is not installed; the message says what to install."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``."""
    return f'pip install "carioca-env[{extra}]"'


def require(what: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every module in ``modules`` is installed.

    Args:
        what: what needs them, for the message (``"the ppo agent"``).
        modules: top-level module names (keys of :data:`EXTRA_OF`).
    """
    missing = [m for m in modules if not _installed(m)]
    if missing:
        extras = sorted({EXTRA_OF.get(m, "?") for m in missing})
        raise MissingExtraError(
            f"{what} needs {' and '.join(missing)} (not installed): "
            + " and ".join(install_hint(e) for e in extras)
        )


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def explain(exc: ModuleNotFoundError) -> str | None:
    """The install hint for a failed import of an extra's module, or ``None``."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRA_OF.get(top)
    return None if extra is None else f"{top} is not installed: {install_hint(extra)}"
