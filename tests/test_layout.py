"""The shape of experiments/: commands live in modules named after them, groups import downward."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from carioca_experiments.cli import COMMANDS, STUDY_COMMANDS

from package_dirs import PACKAGE_DIRS, module_name, source_files

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "experiments"
#: the groups of experiments/, each importing only the ones listed for it
ALLOWED = {
    "common": set(),
    "evaluation": {"common"},
    "training": {"common", "evaluation"},
    "apps": {"common", "evaluation"},
    # the studies that answered their question: they may use everything, nothing uses them
    "studies": {"common", "evaluation", "training", "apps"},
}
#: the one package allowed across: the bench's ppo section measures training itself
CROSSING = {("carioca_experiments.evaluation.bench", "training")}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_lives_in_the_module_named_after_it(command: str) -> None:
    module = COMMANDS[command][0]
    group, name = module.split(".")[1:]
    assert group in ("evaluation", "training", "apps") and name == command.replace("-", "_")


@pytest.mark.parametrize("command", sorted(STUDY_COMMANDS))
def test_a_study_command_lives_with_the_studies(command: str) -> None:
    module = STUDY_COMMANDS[command][0]
    assert module == f"carioca_experiments.studies.{command.replace('-', '_')}"
    assert command not in COMMANDS


def test_nothing_outside_the_studies_imports_them() -> None:
    """The installed packages (the wheel leaves experiments/studies/ out) never reach into
    the studies, lazily or otherwise; only the command table names their commands."""
    wrong = []
    for name in PACKAGE_DIRS:
        for path in source_files(name):
            if "studies" in path.relative_to(ROOT).parts:
                continue
            wrong += [f"{path.relative_to(ROOT)} imports {m}" for m in _imports(path)
                      if m.startswith("carioca_experiments.studies")]
    assert not wrong, wrong


def test_experiments_has_no_loose_modules_beside_its_groups() -> None:
    loose = sorted(p.name for p in EXPERIMENTS.glob("*.py"))
    assert loose == ["__init__.py", "cli.py"]
    assert sorted(p.name for p in EXPERIMENTS.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(ALLOWED)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_groups_import_downward_only() -> None:
    wrong = []
    for path in sorted(EXPERIMENTS.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        if len(rel.parts) < 3:
            continue  # experiments/__init__.py and cli.py sit above the groups
        group = rel.parts[1]
        package = ".".join(module_name(path).split(".")[:3])
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] != "carioca_experiments" or len(parts) < 2 or parts[1] in (group, "cli"):
                continue
            if parts[1] not in ALLOWED[group] and (package, parts[1]) not in CROSSING:
                wrong.append(f"{'/'.join(rel.parts)} imports {name}")
    assert not wrong, wrong


@pytest.mark.parametrize("command", ["demo", "play", "replay", "tournament", "serve"])
def test_a_command_module_has_the_cli_interface(command: str) -> None:
    module = importlib.import_module(COMMANDS[command][0])
    assert callable(module.add_arguments) and callable(module.run)
