"""Where each installed package lives in the repository, read from pyproject.toml.

The folders keep the design's names (``agents/``, ``experiments/``) and install under
names that begin with ``carioca`` (``[tool.setuptools.package-dir]``); tests that walk
the source tree turn a file's path into the module name a user imports through here.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
#: import name -> folder of the repository
PACKAGE_DIRS: dict[str, str] = dict(_SETUPTOOLS["package-dir"])
#: the packages the wheel lists
LISTED_PACKAGES: list[str] = list(_SETUPTOOLS["packages"])
#: folders left out of the wheel: the studies run from a checkout only
STUDY_FOLDERS = ("experiments/studies",)


def module_name(path: Path) -> str:
    """The import name of the source file ``path`` (``agents/search.py`` -> ``carioca_agents.search``)."""
    rel = path.resolve().relative_to(ROOT).with_suffix("")
    parts = list(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
    for name, folder in PACKAGE_DIRS.items():
        if parts[0] == folder:
            return ".".join([name, *parts[1:]])
    raise ValueError(f"{path} is not inside an installed package's folder")


def source_files(name: str) -> list[Path]:
    """Every ``.py`` file of the installed package ``name`` (its folder, studies included)."""
    return sorted((ROOT / PACKAGE_DIRS[name]).rglob("*.py"))
