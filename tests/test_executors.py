"""Executors: local processes and Ray give the same results file; failures and dead workers; resuming on Ray.

Ray starts once for this module (2 CPUs, no dashboard), so the Ray tests cost seconds.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from carioca_experiments import cli
from carioca_experiments.evaluation.tournament import (
    RESULTS_FILE,
    ProcessExecutor,
    SerialExecutor,
    TaskFailed,
    TournamentConfig,
    run_tournament,
    summarize,
)

ray = pytest.importorskip("ray", reason="the Ray tests need the [ray] extra")

from carioca_experiments.common.ray_cluster import local_runtime_env  # noqa: E402
from carioca_experiments.evaluation.tournament.ray_executor import RayExecutor  # noqa: E402

EXAMPLE = "py:carioca_agents.examples.my_agent:make_agent:patience=2"
#: Three agents (one a plugin) at two seats: 6 lineups x 2 decks x 2 contracts = 24 deals.
CFG = TournamentConfig(agents=(f"mine={EXAMPLE}", "random", "greedy"), players=2, contracts=(1, 2), decks=2,
                       seed=11, max_turns=200)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, runtime_env=local_runtime_env(), log_to_driver=False)
    yield
    ray.shutdown()


def _lines(out: Path) -> list[str]:
    return (out / RESULTS_FILE).read_text(encoding="utf-8").splitlines()[1:]


def _play(cfg: TournamentConfig, out: Path, **kw: object) -> object:
    kw.setdefault("write_summary", False)
    return run_tournament(cfg, out, progress=False, log=lambda m: None, **kw)


def test_executors_run_every_item_once() -> None:
    # the protocol on a trivial function: every item once, as results arrive
    items = list(range(7))
    assert list(SerialExecutor().map_unordered(_square, items, str)) == [x * x for x in items]
    pool = ProcessExecutor(2)
    try:
        assert sorted(pool.map_unordered(_square, items, str)) == sorted(x * x for x in items)
    finally:
        pool.close()


def _square(x: int) -> int:
    if x < 0:
        raise ValueError(f"negative {x}")
    return x * x


@pytest.mark.parametrize("make", [SerialExecutor, lambda: ProcessExecutor(2)])
def test_an_exception_in_fn_is_task_failed_with_its_id(make) -> None:  # type: ignore[no-untyped-def]
    ex = make()
    try:
        with pytest.raises(TaskFailed) as info:
            list(ex.map_unordered(_square, [1, -2, 3], lambda x: f"item{x}"))
        assert info.value.task_id == "item-2" and "ValueError: negative -2" in info.value.error
    finally:
        ex.close()


def test_local_and_ray_with_one_and_two_workers_write_the_same_results(tmp_path: Path, ray_cluster: None) -> None:
    _play(CFG, tmp_path / "local", workers=2)
    _play(CFG, tmp_path / "ray1", backend="ray", workers=1)
    s2 = _play(CFG, tmp_path / "ray2", backend="ray", workers=2)
    local = _lines(tmp_path / "local")
    assert len(local) == 24 and {json.loads(x)["task"] for x in local} == {f"c{k}-d{d}-l{r}" for k in (1, 2)
                                                                          for d in (0, 1) for r in range(6)}
    assert _lines(tmp_path / "ray1") == local
    assert _lines(tmp_path / "ray2") == local
    assert s2.complete and summarize(tmp_path / "local").to_dict() == s2.to_dict()


@pytest.mark.parametrize("version", [None, pytest.param(4, marks=pytest.mark.study)])
def test_luck_corrections_are_the_same_on_local_and_ray(tmp_path: Path, ray_cluster: None, version: int | None) -> None:
    """The default value function, and version 4 (action terms from the agents' declared
    tie-breaks, on a contract where it has action weights: a study's version, which the
    studies register, here and in the Ray workers)."""
    from carioca_experiments.evaluation.luck import shipped_value, shipped_version

    if version == 4:
        importlib.import_module("carioca_experiments.studies.luck")
    value = shipped_value() if version is None else shipped_version(version)
    contract = int(sorted(getattr(value, "actions", {"p2-c1": None}))[0].split("-c")[1])
    cfg = TournamentConfig(agents=("heuristic", "greedy"), players=2, contracts=(contract,), decks=2, seed=11,
                           max_turns=300, luck=value.fingerprint)
    _play(cfg, tmp_path / "local", workers=1)
    s = _play(cfg, tmp_path / "ray", backend="ray", workers=2)
    local = _lines(tmp_path / "local")
    assert _lines(tmp_path / "ray") == local and all("luck" in json.loads(x) for x in local)
    assert summarize(tmp_path / "local").to_dict() == s.to_dict()
    assert s.pairs[0].corrected_half > 0


def test_a_task_that_fails_on_ray_is_reported_by_task_id_and_the_results_kept(tmp_path: Path,
                                                                            ray_cluster: None) -> None:
    cfg = TournamentConfig(agents=("a=random", "b=py:plugin_agents:failing:contract=2"), players=2,
                           contracts=(1, 2), decks=2, max_turns=150)
    with pytest.raises(TaskFailed) as info:
        _play(cfg, tmp_path, backend="ray", workers=2)
    assert info.value.task_id.startswith("c2-")
    assert "RuntimeError: boom in contract 2" in str(info.value) and "deals played so far are kept" in str(info.value)
    kept = [json.loads(x) for x in _lines(tmp_path)]
    assert {r["contract"] for r in kept} <= {1} and [r["index"] for r in kept] == list(range(len(kept)))


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_a_worker_that_dies_is_retried_and_the_results_do_not_change(tmp_path: Path, backend: str,
                                                                     request: pytest.FixtureRequest) -> None:
    if backend == "ray":
        request.getfixturevalue("ray_cluster")
    marker = tmp_path / "died"
    flaky = TournamentConfig(agents=("a=random", f"b=py:plugin_agents:dies_once:marker={marker}"), players=2,
                             contracts=(1, 2), decks=2, seed=5, max_turns=150)
    plain = TournamentConfig(agents=("a=random", "b=random"), players=2, contracts=(1, 2), decks=2, seed=5,
                             max_turns=150)
    _play(flaky, tmp_path / "flaky", backend=backend, workers=2)
    _play(plain, tmp_path / "plain", workers=1)
    assert marker.exists(), "the worker should have died once"
    assert _lines(tmp_path / "flaky") == _lines(tmp_path / "plain")


def test_a_worker_that_always_dies_fails_for_good_after_the_retries(tmp_path: Path) -> None:
    marker = tmp_path / "died"
    cfg = TournamentConfig(agents=("a=random", f"b=py:plugin_agents:dies_once:marker={marker},always=true"), players=2,
                           contracts=(2,), decks=1, max_turns=150)
    with pytest.raises(TaskFailed, match=r"(?s)task c2-d0-l.*worker process died"):
        _play(cfg, tmp_path / "out", workers=2, retries=1)


def test_an_interrupted_ray_driver_resumes_to_the_same_results(tmp_path: Path, ray_cluster: None) -> None:
    full = tmp_path / "full"
    _play(CFG, full, workers=1)
    out = tmp_path / "cut"
    seen: list[str] = []

    class Stop(Exception):
        pass

    # the driver stops after receiving 7 results (as a Ctrl-C would); then a kill leaves a cut last line
    from carioca_experiments.evaluation.tournament import results as results_mod

    real_add = results_mod.ResultsWriter.add

    def add(self, result, record=None):  # type: ignore[no-untyped-def]
        real_add(self, result, record)
        seen.append(result["task"])
        if len(seen) == 7:
            raise Stop

    results_mod.ResultsWriter.add = add  # type: ignore[method-assign]
    try:
        with pytest.raises(Stop):
            _play(CFG, out, backend="ray", workers=2)
    finally:
        results_mod.ResultsWriter.add = real_add  # type: ignore[method-assign]
    cut = _lines(out)
    assert len(cut) <= 7 and cut == _lines(full)[:len(cut)]  # a prefix in task order, whatever arrived first
    with open(out / RESULTS_FILE, "ab") as fh:
        fh.write(b'{"task": "c1-d1-l')  # what a SIGKILL mid-write leaves
    resumed = _play(CFG, out, backend="ray", workers=2)
    assert _lines(out) == _lines(full)
    assert resumed.to_dict() == summarize(full).to_dict()


def test_cli_ray_backend_end_to_end(tmp_path: Path, ray_cluster: None, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = cli.main(["tournament", "--backend", "ray", "--agents", "a=random", f"b={EXAMPLE}", "--contracts", "1",
                     "--decks", "2", "--max-turns", "150", "--no-progress", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert "Deals played: 4 of 4" in capsys.readouterr().out
    local = tmp_path / "local"
    assert cli.main(["tournament", "--agents", "a=random", f"b={EXAMPLE}", "--contracts", "1", "--decks", "2",
                     "--max-turns", "150", "--no-progress", "--workers", "1", "--out", str(local)]) == 0
    assert _lines(out) == _lines(local)


def _timed_nap(x: int) -> tuple[float, float]:
    import time

    start = time.monotonic()
    time.sleep(0.3)
    return start, time.monotonic()


def test_ray_executor_joins_the_running_instance_and_leaves_it_up(ray_cluster: None) -> None:
    ex = RayExecutor(workers=1)
    assert ex.parallelism == 1 and sorted(ex.map_unordered(_square, [3, 4], str)) == [9, 16]
    # one worker means one task at a time, though the cluster has 2 CPUs (so 1 vs 2 workers is a real comparison)
    spans = sorted(ex.map_unordered(_timed_nap, [0, 1, 2, 3], str))
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    ex.close()
    assert ray.is_initialized()  # it did not start it, so it does not stop it
    assert RayExecutor(workers=2).in_flight == 4  # the whole 2-CPU cluster: twice its CPUs queued


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_ray_address_is_refused_at_once_and_writes_nothing(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from carioca_experiments.common.ray_cluster import RayUnavailable, check_reachable

    port = _closed_port()
    with pytest.raises(RayUnavailable, match=f"nothing answers at the Ray address 127.0.0.1:{port}"):
        check_reachable(f"127.0.0.1:{port}")
    check_reachable("auto")  # not HOST:PORT: left to Ray
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    env.pop("RAY_ADDRESS", None)
    out = tmp_path / "out"
    # (the timeout guards against Ray's minutes of reconnecting, which this check replaces)
    proc = subprocess.run([sys.executable, "-m", "carioca_experiments.cli", "tournament", "--backend", "ray", "--address",
                           f"127.0.0.1:{port}", "--agents", "random", "greedy", "--contracts", "1", "--decks", "1",
                           "--out", str(out)], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "nothing answers at the Ray address" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()
