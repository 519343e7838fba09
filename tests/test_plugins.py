"""User agents as plugins: ``py:`` specs and the ``carioca_env.agents`` entry points, in workers too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carioca_agents.plugins import PluginError, parse_kwargs
from carioca_agents.registry import make_agent, register, worker_problem
from carioca_experiments.evaluation.tournament import (
    RESULTS_FILE,
    TournamentConfig,
    TournamentError,
    run_tournament,
)

EXAMPLE = "py:carioca_agents.examples.my_agent:make_agent"


def _lines(out: Path) -> list[str]:
    return (out / RESULTS_FILE).read_text(encoding="utf-8").splitlines()[1:]


def test_a_py_spec_builds_the_factory_with_its_arguments() -> None:
    agent = make_agent(EXAMPLE + ":patience=3", seed=5)
    assert agent.patience == 3 and agent.name == EXAMPLE + ":patience=3"
    assert make_agent(EXAMPLE, 5).patience == 1  # the factory's default


def test_plugin_arguments_are_json_where_they_parse() -> None:
    assert parse_kwargs("a=1,b=0.5,c=true,d=x,e=runs/a.zip", "s") == {"a": 1, "b": 0.5, "c": True, "d": "x",
                                                                       "e": "runs/a.zip"}


@pytest.mark.parametrize(("spec", "words"), [
    ("py:no_such_module_xyz:make", "cannot import module 'no_such_module_xyz'"),
    ("py:carioca_agents.examples.my_agent:nope", "has no callable 'nope'"),
    ("py:carioca_agents.examples.my_agent", "is not py:MODULE:FACTORY"),
    (EXAMPLE + ":patience", "KEY=VALUE"),
    (EXAMPLE + ":colour=red", "cannot be called"),
    (EXAMPLE + ":patience=-1", "patience must be a non-negative integer"),
    ("py:json:dumps", "cannot be called"),
    ("py:builtins:dict", "not an agent"),
])
def test_bad_plugin_specs_say_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make_agent(spec, 0)


def test_an_installed_entry_point_is_a_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A minimal installed distribution: its metadata folder on sys.path declares the entry point.
    info = tmp_path / "carioca_test_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: carioca-test-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[carioca_env.agents]\ndumper = carioca_agents.examples.my_agent:make_agent\nbroken = no_such_mod_q:f\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("dumper:patience=4", 1)
    assert agent.patience == 4 and agent.name == "dumper:patience=4"
    with pytest.raises(PluginError, match="entry point 'no_such_mod_q:f' does not load"):
        make_agent("broken", 0)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        make_agent("nobody", 0)


def test_a_plugin_plays_in_a_local_tournament_with_two_workers(tmp_path: Path) -> None:
    cfg = TournamentConfig(agents=(f"mine={EXAMPLE}:patience=2", "random"), players=2, contracts=(1, 2), decks=2,
                           seed=4, max_turns=200)
    s2 = run_tournament(cfg, tmp_path / "w2", workers=2, progress=False, log=lambda m: None, write_summary=False)
    run_tournament(cfg, tmp_path / "w1", workers=1, progress=False, log=lambda m: None, write_summary=False)
    assert _lines(tmp_path / "w2") == _lines(tmp_path / "w1")
    assert s2.complete and {json.loads(x)["seats"][0] for x in _lines(tmp_path / "w2")} == {"mine", "random"}


def _runtime_factory(arg: str, seed: int):  # type: ignore[no-untyped-def]
    from carioca_agents.random_agent import RandomAgent

    return RandomAgent(seed)


def test_an_agent_registered_at_run_time_is_refused_for_workers_with_a_hint(tmp_path: Path) -> None:
    register("test-runtime-only", _runtime_factory)
    assert worker_problem("test-runtime-only") is not None and worker_problem("random") is None
    assert worker_problem(EXAMPLE) is None
    cfg = TournamentConfig(agents=("test-runtime-only", "random"), players=2, contracts=(1,), decks=1)
    with pytest.raises(TournamentError, match=r"registered at run time.*py:MODULE:FACTORY"):
        run_tournament(cfg, tmp_path, workers=2, progress=False, log=lambda m: None)
    assert not (tmp_path / RESULTS_FILE).exists()  # refused before anything was written
    # in this process it plays
    s = run_tournament(cfg, tmp_path, workers=1, progress=False, log=lambda m: None, write_summary=False)
    assert s.complete


def test_the_installed_carioca_command_loads_a_plugin_from_the_working_directory(tmp_path: Path) -> None:
    """A console script has no working directory on sys.path; the command adds it for
    py: specs only (carioca_agents.plugins.allow_working_directory), in spawned workers too."""
    import os
    import shutil
    import subprocess
    import sys

    command = Path(sys.executable).parent / "carioca"
    assert command.is_file(), "the venv's console script"
    root = Path(__file__).resolve().parents[1]
    shutil.copy(root / "agents" / "examples" / "my_agent.py", tmp_path / "cwd_only_agent.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARIOCA_PLUGIN_PATH")}
    argv = [str(command), "tournament", "--agents", "mine=py:cwd_only_agent:make_agent:patience=2", "random",
            "--players", "2", "--contracts", "1", "--decks", "1", "--max-turns", "200", "--workers", "2",
            "--no-progress", "--out", "t"]
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seats = {json.loads(x)["seats"][0] for x in _lines(tmp_path / "t")}
    assert seats == {"mine", "random"}
    # elsewhere the module is not importable: the same spec is refused, naming the module
    other = tmp_path / "elsewhere"
    other.mkdir()
    done = subprocess.run(argv, cwd=other, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "cannot import module 'cwd_only_agent'" in done.stderr, done.stderr
    assert not (other / "t").exists()
