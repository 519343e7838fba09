"""Ctrl-C: every command exits with 130 and one line, promptly, and leaves what it wrote resumable.

The bounds are liveness bounds (a command that ignores Ctrl-C never ends), not speed claims.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from carioca_experiments import cli
from carioca_experiments.training import sweep

ROOT = Path(__file__).resolve().parents[1]

#: a plugin whose act() takes an hour, and says (once per process) that it is inside act()
SLOW_AGENT = '''
import os
import time
from pathlib import Path

from carioca_agents.random_agent import RandomAgent


class Slow(RandomAgent):
    def act(self, view, legal):
        marker = Path(os.environ["SLOW_AGENT_MARKERS"]) / str(os.getpid())
        marker.write_text("in act")
        time.sleep(3600)
        return super().act(view, legal)


def make_agent(seed=0):
    return Slow(seed)
'''


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("workers", [2, 1])
def test_ctrl_c_stops_a_tournament_whose_plugin_is_slow_inside_act(tmp_path: Path, workers: int) -> None:
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT)
    markers = tmp_path / "markers"
    markers.mkdir()
    env = {**os.environ, "SLOW_AGENT_MARKERS": str(markers)}
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "carioca_experiments.cli", "tournament", "--agents", "slow=py:slow_agent:make_agent", "random",
         "--players", "2", "--contracts", "1", "--decks", "4", "--workers", str(workers), "--no-progress",
         "--out", str(tmp_path / "t")],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # a test runner may ignore SIGINT, and children inherit that: restore it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while len(list(markers.iterdir())) < workers and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        in_act = [int(p.name) for p in markers.iterdir()]
        assert len(in_act) == workers, "every worker is inside the slow act()"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)  # a liveness bound: it used to run for ever
    finally:
        if proc.poll() is None:
            proc.kill()
    text = err.decode()
    assert proc.returncode == 130, text[-2000:]
    assert "Traceback" not in text and "interrupted" in text
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in in_act) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in in_act if pid != proc.pid and _alive(pid)], "a worker outlived the command"


def test_ctrl_c_in_tune_heuristic_gives_one_line_and_no_optuna_traceback(tmp_path, monkeypatch, capsys) -> None:
    from carioca_experiments.training import tune_heuristic

    calls = []

    def interrupted(*args, **kwargs):
        calls.append(args)
        raise KeyboardInterrupt

    monkeypatch.setattr(tune_heuristic, "evaluate", interrupted)
    out = tmp_path / "t.json"
    code = cli.main(["tune-heuristic", "--contracts", "1", "--players", "2", "--trials", "3", "--decks", "1",
                     "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 130 and len(calls) == 1, err
    assert "Traceback" not in err and "failed" not in err and "interrupted" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_sweep_trial_without_its_evaluation_is_unfinished_not_a_key_error() -> None:
    rows = [{"point": "default", "seed": 0, "status": "ok", "diff_mean": -1.0, "learner_mean": 20.0},
            {"point": "default", "seed": 1, "status": "unfinished"}]
    table = sweep.sweep_table(rows, "heuristic")
    assert "(1 failed)" in table and "s0: -1.0" in table


RAY_DRIVER = '''
import sys, time
from carioca_experiments.common.ray_cluster import connect
ray, owns = connect(None, 1)
print("up", owns, flush=True)
time.sleep(3600)
'''


def test_the_next_start_stops_the_ray_helpers_of_a_command_killed_with_sigkill(tmp_path, monkeypatch) -> None:
    from carioca_experiments.common import ray_cluster

    records = tmp_path / "records"
    env = {**os.environ, "CARIOCA_RAY_RECORDS": str(records)}
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.Popen([sys.executable, "-c", RAY_DRIVER], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # blocks until Ray is up (or the process ends)
        assert line.strip() == "up True", proc.stderr.read()[-2000:] if proc.poll() is not None else line
        recorded = json.loads(next(records.glob("driver-*.json")).read_text())
        helpers = [pid for pid, _ in recorded["helpers"]]
        assert len(helpers) >= 2, recorded  # at least the GCS server and the raylet
        monkeypatch.setenv("CARIOCA_RAY_RECORDS", str(records))
        assert ray_cluster.stop_stale_local_rays() == [], "a running command's Ray is left alone"
    finally:
        proc.kill()  # kill -9: no ray.shutdown(), no atexit
        proc.wait(30)
    time.sleep(2)  # the helpers that share the command's fate end now
    left = [pid for pid in helpers if ray_cluster._start_time(pid)]
    assert left, "kill -9 leaves some of Ray's helpers running (its dashboard and runtime-env agents)"
    stopped = ray_cluster.stop_stale_local_rays()
    assert set(left) <= set(stopped)
    assert not [pid for pid in set(helpers) | set(stopped) if ray_cluster._start_time(pid)], "a helper survived"
    assert list(records.iterdir()) == []
