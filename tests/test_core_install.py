"""The ``carioca`` command on the core install (numpy, gymnasium, pettingzoo; no extras).

One test builds a fresh virtualenv, installs a copy of the source tree with a plain
``pip install`` (no extras) and runs the commands a new user runs first: ``--version``,
``--help``, ``demo``, ``play`` and ``replay`` work; every other command exits 2 with one
line naming the extra to install, and no traceback.  The others check, in the full install,
that ``carioca --help`` imports no sub-command module (so it needs no torch and is quick).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from carioca_experiments.cli import COMMANDS, STUDY_COMMANDS

ROOT = Path(__file__).resolve().parents[1]

#: commands that run on the core install
CORE_COMMANDS = ("demo", "play", "replay", "diff")
#: the extra each other command names when it is run on the core install
EXTRA_NAMED = {
    "tournament": "stats",
    "bench": "stats",
    "train": "train",
    "imitate": "train",
    "train-all": "stats",
    "serve": "web",
    "sweep": "stats",
    "tune-heuristic": "tune",
}
#: what the source copy leaves out: local environments, build outputs, caches, git
IGNORED = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", "results",
                                 ".pytest_cache", ".hypothesis", "site")


def test_every_command_is_covered():
    assert set(CORE_COMMANDS) | set(EXTRA_NAMED) == set(COMMANDS)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []], ids=["help", "version", "nothing"])
def test_the_top_level_command_imports_no_sub_command(argv):
    code = (
        "import sys\n"
        "from carioca_experiments.cli import COMMANDS, main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'scipy', 'ray', 'tabulate', 'optuna', 'fastapi') if m in sys.modules]\n"
        "loaded = [c for c, (m, _) in COMMANDS.items() if m in sys.modules]\n"
        "print(heavy, loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.splitlines()[-1] == "[] []", out.stdout + out.stderr


def test_one_command_imports_only_its_own_module():
    code = (
        "import sys\n"
        "from carioca_experiments.cli import COMMANDS, main\n"
        "try:\n    main(['replay', '--help'])\nexcept SystemExit:\n    pass\n"
        "print([c for c, (m, _) in COMMANDS.items() if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.splitlines()[-1] == "['replay']", out.stdout + out.stderr


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with a plain ``pip install`` of a copy of the source tree; its bin/."""
    base = tmp_path_factory.mktemp("core")
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=IGNORED)
    venv.create(base / "venv", with_pip=True)
    bin_dir = base / "venv" / "bin"
    subprocess.run([bin_dir / "python", "-m", "pip", "install", "--quiet", str(src)], check=True, timeout=600,
                   capture_output=True)
    return bin_dir


def _carioca(bin_dir: Path, *args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(bin_dir / "carioca"), *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.mark.slow
def test_the_core_install_runs_the_first_commands(core_venv: Path, tmp_path: Path):
    # the core install is what it says: no extra came with it
    probe = subprocess.run([core_venv / "python", "-c", "import importlib.util as u; "
                            "print([m for m in ('torch', 'scipy', 'tabulate', 'fastapi') if u.find_spec(m)])"],
                           capture_output=True, text=True, cwd=tmp_path, check=True)
    assert probe.stdout.strip() == "[]"

    version = _carioca(core_venv, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("carioca "), version.stderr
    helped = _carioca(core_venv, "--help", cwd=tmp_path)
    assert helped.returncode == 0 and all(name in helped.stdout for name in COMMANDS), helped.stderr
    demo = _carioca(core_venv, "demo", "--seed", "1", cwd=tmp_path)
    assert demo.returncode == 0 and "Game over" in demo.stdout, demo.stderr
    for name in CORE_COMMANDS:
        shown = _carioca(core_venv, name, "--help", cwd=tmp_path)
        assert shown.returncode == 0 and f"usage: carioca {name}" in shown.stdout, shown.stderr

    # two moves at the terminal, then quit: the record is saved and replays
    played = _carioca(core_venv, "play", "--seed", "0", "--save", "game.json", cwd=tmp_path, stdin="1\n1\nquit\n")
    assert played.returncode == 0 and (tmp_path / "game.json").is_file(), played.stderr
    replayed = _carioca(core_venv, "replay", "--quiet", "game.json", cwd=tmp_path)
    assert replayed.returncode == 0 and "every move legal" in replayed.stdout, replayed.stderr

    # a study's command is not in the installed package: refused in one line that says why
    for name in STUDY_COMMANDS:
        assert name not in helped.stdout.split("{", 1)[-1].split("}", 1)[0], helped.stdout
        study = _carioca(core_venv, name, "--help", cwd=tmp_path)
        assert study.returncode == 2 and "a study's command" in study.stderr and "checkout" in study.stderr, study.stderr
        assert len(study.stderr.strip().splitlines()) == 1 and "Traceback" not in study.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXTRA_NAMED))
def test_the_core_install_names_the_extra_of_every_other_command(core_venv: Path, tmp_path: Path, name: str):
    out = _carioca(core_venv, name, cwd=tmp_path)
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"carioca {name}"), out.stderr
    assert f"carioca-env[{EXTRA_NAMED[name]}]" in lines[0]
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert not list(tmp_path.iterdir())  # refused before it wrote anything
