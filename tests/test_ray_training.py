"""Training on Ray: ``carioca sweep`` (Ray Tune, seeds x grid) and ``carioca train-all --backend ray``.

Ray starts once for the module with 2 CPUs; the runs are a few hundred steps each.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from carioca_experiments import cli

ray = pytest.importorskip("ray", reason="the Ray tests need the [ray] extra")

from carioca_experiments.common.ray_cluster import local_runtime_env  # noqa: E402
from carioca_experiments.training.sweep import SweepError, parse_grid, point_name, read_trials  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, runtime_env=local_runtime_env(), log_to_driver=False)
    yield
    ray.shutdown()


def test_grid_points_are_the_product_of_the_axes() -> None:
    pts = parse_grid(["learning_rate=3e-4/1e-3", "net_arch=64/64,64"])
    assert pts == [{"learning_rate": 3e-4, "net_arch": [64]}, {"learning_rate": 3e-4, "net_arch": [64, 64]},
                   {"learning_rate": 1e-3, "net_arch": [64]}, {"learning_rate": 1e-3, "net_arch": [64, 64]}]
    assert parse_grid([]) == [{}] and point_name({}) == "default"
    assert point_name(pts[1]) == "learning_rate=0.0003_net_arch=64,64"
    for bad in (["nope=1/2"], ["learning_rate"], ["learning_rate=1e-3", "learning_rate=2e-3"], ["batch_size=x"]):
        with pytest.raises(SweepError, match="--grid"):
            parse_grid(bad)


def test_a_tiny_sweep_over_two_seeds_reports_both(tmp_path: Path, ray_cluster: None,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    assert cli.main(["sweep", "--quick", "--seeds", "0", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = read_trials(out)
    assert [(r["seed"], r["status"], r["steps"]) for r in rows] == [(0, "ok", 256), (1, "ok", 256)]
    for r in rows:
        assert not math.isnan(r["diff_mean"]) and r["decks"] == 1
        assert r["diff_mean"] == pytest.approx(r["learner_mean"] - r["opponent_mean"])
        assert (out / "trials" / "default" / f"seed{r['seed']}" / "model.zip").exists()
    mean = (rows[0]["diff_mean"] + rows[1]["diff_mean"]) / 2
    line = next(x for x in printed.splitlines() if x.startswith("| default |"))
    assert "s0: " in line and "s1: " in line and f"{mean:+.1f}" in line
    assert cli.main(["sweep", "--report", str(out)]) == 0
    assert line in capsys.readouterr().out  # the table again, from sweep.csv alone


def test_train_all_on_ray_trains_each_model_as_a_task_then_plays_on_ray(tmp_path: Path, ray_cluster: None) -> None:
    from carioca_experiments.training import train_all

    parser = argparse.ArgumentParser()
    train_all.add_arguments(parser)
    out = tmp_path / "rl"
    args = parser.parse_args(["--quick", "--contracts", "2", "--steps", "256", "--full-steps", "256", "--decks", "1",
                              "--baselines", "random", "--no-progress", "--no-tensorboard", "--max-turns", "60",
                              "--backend", "ray", "--out", str(out)])
    logs: list[str] = []
    assert train_all.run_experiment(train_all.TrainAllConfig.from_args(args), log=logs.append) == out
    assert any("2 training runs on Ray" in m for m in logs)
    assert any("contract2 done on Ray" in m for m in logs) and any("full done on Ray" in m for m in logs)
    for name in ("contract2", "full"):
        card = json.loads((out / "models" / name / "model.json").read_text())
        assert card["steps"] >= 256 and card["evaluation"]["results"]
    summary = json.loads((out / "tournaments" / "contract2" / "summary.json").read_text())
    assert summary["deals_played"] == summary["deals_expected"] > 0
