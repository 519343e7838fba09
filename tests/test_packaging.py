"""What the wheel installs: one namespace, the product without its studies, beside others.

Every top-level import name the wheel installs begins with ``carioca`` (the folders
``agents/`` and ``experiments/`` install as ``carioca_agents`` and ``carioca_experiments``),
so it cannot collide with another distribution's ``agents`` (the OpenAI Agents SDK
installs one) or with a user's ``agents/`` folder.  The slow tests build the wheel,
install it in a fresh virtualenv beside a stand-in distribution that installs top-level
``agents`` and ``experiments``, play a tournament with a shipped model from a folder that
holds ``agents/``, ``experiments/`` and ``agents.py``, and uninstall each in turn.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

from package_dirs import LISTED_PACKAGES, PACKAGE_DIRS, ROOT, STUDY_FOLDERS


def _packages_on_disk() -> set[str]:
    """Every package of the three folders (a folder with ``__init__.py``), by import name."""
    found = set()
    for name, folder in PACKAGE_DIRS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT)
            if any(str(rel).startswith(s) for s in STUDY_FOLDERS):
                continue
            found.add(".".join([name, *rel.parts[1:]]))
    return found


def test_the_wheel_lists_every_package_but_the_studies() -> None:
    assert set(LISTED_PACKAGES) == _packages_on_disk()
    assert not [p for p in LISTED_PACKAGES if ".studies" in p]
    assert all(name.startswith("carioca") for name in PACKAGE_DIRS)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Our wheel and a stand-in distribution's, built without the network."""
    out = tmp_path_factory.mktemp("wheels")
    env = {**os.environ, "PIP_NO_INDEX": "1"}
    # from a copy of the source: setuptools builds in the tree's build/, where files of an
    # earlier build (a module since moved to the studies) would ride along into the wheel
    src = tmp_path_factory.mktemp("src") / "carioca-env"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info",
                                                             "__pycache__", "results", "runs", "site", ".hypothesis"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w",
                    str(out / "ours"), str(src)], check=True, capture_output=True, env=env, timeout=600)
    standin = tmp_path_factory.mktemp("standin")
    for package in ("agents", "experiments"):
        (standin / package).mkdir()
        (standin / package / "__init__.py").write_text(f"WHO = 'the stand-in {package}'\n")
    (standin / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "standin-agents"
        version = "1.0"
        [tool.setuptools]
        packages = ["agents", "experiments"]
    """))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w",
                    str(out / "standin"), str(standin)], check=True, capture_output=True, env=env, timeout=300)
    return {"ours": next((out / "ours").glob("*.whl")), "standin": next((out / "standin").glob("*.whl"))}


@pytest.mark.slow
def test_the_built_wheel_installs_only_carioca_names_and_no_study(wheels: dict[str, Path]) -> None:
    names = zipfile.ZipFile(wheels["ours"]).namelist()
    tops = {n.split("/")[0] for n in names if ".dist-info/" not in n}
    assert tops == {"carioca_env", "carioca_agents", "carioca_experiments"}, tops
    assert not [n for n in names if "/studies/" in n or n.endswith(("value-v1.json", "value-v4.json"))]
    for module in ("carioca_experiments/evaluation/luck/value.py", "carioca_agents/models/contract1/model.zip",
                   "carioca_experiments/evaluation/luck/value-v7.json", "carioca_env/openspiel_game.py"):
        assert module in names, module
    for study in ("fit6.py", "playout.py", "departures.py", "filtered.py", "improve/pipeline.py"):
        assert not [n for n in names if n.endswith(study)], study


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(python), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


@pytest.mark.slow
def test_the_wheel_lives_beside_another_agents_and_a_users_folders(wheels: dict[str, Path], tmp_path: Path) -> None:
    # A fresh virtualenv; the heavy dependencies (torch, stable-baselines3) are this
    # environment's, read through a path entry placed after the new site-packages, so that
    # what is installed here is found first and the test needs no network.
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path)
                .stdout.strip())
    (site / "zz_outer_site.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    def pip(*args: str) -> None:
        done = _run(python, "-m", "pip", *args, "--no-index", "--no-deps", "--ignore-installed", "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr

    pip("install", str(wheels["standin"]))
    pip("install", str(wheels["ours"]))

    # a user's folder with the usual names: ours still imports and the command still runs
    work = tmp_path / "work"
    for folder in ("agents", "experiments"):
        (work / folder).mkdir(parents=True)
        (work / folder / "__init__.py").write_text("raise ImportError('the user folder was imported')\n")
    (work / "agents.py").write_text("raise ImportError('the user module was imported')\n")
    api = _run(python, "-c", "import carioca_agents, carioca_env; from carioca_agents.registry import make_agent; "
               "from carioca_env import Game, GameConfig; g = Game(GameConfig(2, (1,)), seed=3); "
               "a = make_agent('ppo:contract1', seed=0); m = a.act(g.view(g.current), g.legal_moves()); "
               "print(carioca_agents.__file__, m in g.legal_moves())", cwd=work)
    assert api.returncode == 0 and api.stdout.split()[-1] == "True", api.stderr
    assert str(site) in api.stdout  # the installed copy, not the checkout
    carioca = tmp_path / "venv" / "bin" / "carioca"

    def tournament(out: str) -> None:
        done = _run(carioca, "tournament", "--agents", "ppo:contract1", "greedy", "--players", "2", "--contracts", "1",
                    "--decks", "1", "--workers", "2", "--no-progress", "--out", out, cwd=work)
        assert done.returncode == 0 and "ppo:contract1" in done.stdout, done.stderr
        assert (work / out / "summary.json").is_file()

    tournament("t1")
    # the other distribution's names are its own
    other = _run(python, "-c", "import agents, experiments; print(agents.WHO, '|', experiments.WHO)", cwd=tmp_path)
    assert other.stdout.strip() == "the stand-in agents | the stand-in experiments", other.stderr

    # uninstalling either leaves the other whole
    done = _run(python, "-m", "pip", "uninstall", "--yes", "--quiet", "standin-agents", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tournament("t2")
    pip("install", str(wheels["standin"]))
    done = _run(python, "-m", "pip", "uninstall", "--yes", "--quiet", "carioca-env", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    again = _run(python, "-c", "import agents, experiments; print(agents.WHO, '|', experiments.WHO)", cwd=tmp_path)
    assert again.stdout.strip() == "the stand-in agents | the stand-in experiments", again.stderr
    gone = _run(python, "-c", "import carioca_agents", cwd=tmp_path)
    assert gone.returncode != 0 and "No module named 'carioca_agents'" in gone.stderr
