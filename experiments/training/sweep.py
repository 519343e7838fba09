"""``carioca sweep``: one training configuration over several seeds and a grid of settings, on Ray Tune.

Usage::

    carioca sweep --contract 1 --steps 50000 --seeds 0 1 2 3 --grid learning_rate=3e-4/1e-3
    carioca sweep --contract 3 --grid batch_size=128/256 net_arch=64/64,64 --seeds 0 1 --address auto
    carioca sweep --quick                      # a smoke run: 2 seeds, a few hundred steps
    carioca sweep --report results/sweep       # only rebuild the table

What it does
    Every point of the grid (the product of the ``--grid KEY=V1/V2/...`` lists; a
    ``KEY`` is a training setting of ``carioca train --set``, values separated by ``/``)
    is trained once per ``--seeds`` seed: each (point, seed) is one Ray Tune trial that
    asks for ``--cpus-per-trial`` CPUs and runs :func:`carioca_experiments.training.train.train` into
    ``OUT/trials/<point>/seed<k>`` (resumable: a rerun skips finished trials).  At the
    end of its training each trial plays its evaluation, a duplicate tournament against
    ``--eval-opponent`` (default ``heuristic``) on ``--eval-decks`` fresh decks (seed
    ``--eval-seed``, never used in training), and reports the learner's mean penalty
    per deal, the opponent's, and their paired difference (learner - opponent; negative:
    the learner is better).

    The table (printed, ``OUT/sweep.md``; every trial in ``OUT/sweep.csv``) gives per
    point each seed's difference and their mean with a 95% t-interval over seeds
    (:func:`carioca_experiments.common.stats.mean_ci`): the spread between seeds is the uncertainty that
    matters when comparing settings.

Where it runs: ``--address`` / ``RAY_ADDRESS``, else a Ray started here with the
machine's CPUs (see :mod:`carioca_experiments.common.ray_cluster`).  On a cluster of several machines
``--out`` must be on a filesystem every node mounts at the same path.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import json
import math
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from carioca_experiments.common.files import write_file
from carioca_experiments.common.ray_cluster import RayUnavailable, connect
from carioca_experiments.common.report import Report
from carioca_experiments.common.stats import mean_ci
from carioca_experiments.training.train import DEFAULT_N_ENVS, TrainConfig, TrainError, check_writable, parse_settings

#: ``--quick``: a smoke run in a minute or two (the test's size).
QUICK: dict[str, Any] = {"steps": 256, "seeds": [0, 1], "eval_decks": 1, "n_envs": 2,
                         "settings": {"rollout_steps": 128, "batch_size": 64, "n_epochs": 1, "max_turns": 200}}
TRIAL_COLUMNS = ("point", "seed", "status", "steps", "learner_mean", "opponent_mean", "diff_mean", "diff_ci_low",
                 "diff_ci_high", "decks", "wall_time_s", "error")


#: Ray Tune's switch that leaves SIGINT to Python (KeyboardInterrupt) instead of its own handler
_NO_TUNE_SIGINT = "TUNE_DISABLE_SIGINT_HANDLER"


class SweepError(ValueError):
    """A sweep that cannot run (the message says what to change)."""


def parse_grid(items: list[str]) -> list[dict[str, Any]]:
    """``["learning_rate=3e-4/1e-3", "n_epochs=2/4"]`` -> the list of the grid's points (settings dicts).

    Raises:
        SweepError: an item that is not ``KEY=V1/V2...`` with a known setting and valid values.
    """
    axes: list[list[dict[str, Any]]] = []
    seen: set[str] = set()
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not values or key in seen:
            raise SweepError(f"--grid {item!r}: expected KEY=V1/V2/... with each KEY once, e.g. learning_rate=3e-4/1e-3")
        seen.add(key)
        try:
            axes.append([parse_settings([f"{key}={v}"]) for v in values.split("/")])
        except (TrainError, ValueError) as exc:
            raise SweepError(f"--grid {item!r}: {exc}") from None
    points = [{}] if not axes else [dict(kv for d in combo for kv in d.items()) for combo in itertools.product(*axes)]
    return points


def point_name(point: dict[str, Any]) -> str:
    """A folder-safe name of a grid point (``default`` for no overrides)."""
    if not point:
        return "default"
    text = "_".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in sorted(point.items()))
    return re.sub(r"[^A-Za-z0-9_.=,+-]+", "_", text)


def _trial(params: dict[str, Any]) -> None:
    """One Tune trial: train one (point, seed) and report its final evaluation."""
    from ray import tune

    from carioca_experiments.training.train import train

    base = dict(params["base"])
    settings = {**base.pop("settings"), **params["point"]}
    cfg = TrainConfig(**base, seed=int(params["seed"]), settings=settings)
    out = Path(params["out"]) / "trials" / point_name(params["point"]) / f"seed{params['seed']}"
    result = train(cfg, out, progress=False, log=lambda m: None)
    last = [r for r in result.eval_rows if r["steps"] == result.num_timesteps]
    row = last[0]
    tune.report({"steps": result.num_timesteps, "learner_mean": row["learner_mean"],
                 "opponent_mean": row["opponent_mean"], "diff_mean": row["diff_mean"],
                 "diff_ci_low": row["diff_ci_low"], "diff_ci_high": row["diff_ci_high"], "decks": row["decks"],
                 "wall_time_s": round(result.wall_time_s, 1)})


def run_sweep(base: TrainConfig, points: list[dict[str, Any]], seeds: list[int], out: str | Path, *,
              cpus_per_trial: float = 1.0, address: str | None = None, num_cpus: int | None = None,
              log: Any = None) -> list[dict[str, Any]]:
    """Run every (point, seed) trial on Ray Tune into ``out``; returns the trial rows (also in sweep.csv).

    ``base`` holds everything but the seed and the grid's settings (its evaluation
    opponents: one).

    Raises:
        SweepError: Ray or Tune unavailable, or bad arguments.
    """
    say = log or (lambda m: print(m, file=sys.stderr))
    check_sweep(base, points, seeds)
    out = Path(out).resolve()
    try:
        check_writable(out)
    except TrainError as exc:
        raise SweepError(str(exc)) from None
    try:
        ray, owns = connect(address, num_cpus)
        from ray import tune
    except (RayUnavailable, ImportError) as exc:
        raise SweepError(f"{exc} (carioca sweep runs on Ray Tune: pip install 'carioca-env[ray]')") from None
    out.mkdir(parents=True, exist_ok=True)
    base_d = asdict(base)
    for k in ("seed", "command"):
        base_d.pop(k)
    base_d["opponents"] = list(base.opponents)
    base_d["eval_opponents"] = list(base.eval_opponents)
    write_file(out / "sweep.json", (json.dumps({"format": "carioca-sweep", "base": base_d, "points": points,
                                                   "seeds": seeds}, indent=1) + "\n").encode())
    say(f"[sweep] {len(points)} point(s) x {len(seeds)} seed(s) = {len(points) * len(seeds)} trials, "
        f"{cpus_per_trial:g} CPU each, on {int(ray.cluster_resources().get('CPU', 0))} CPUs -> {out}")
    try:
        tuner = tune.Tuner(
            tune.with_resources(_trial, {"cpu": cpus_per_trial}),
            param_space={"base": base_d, "out": str(out), "point": tune.grid_search(points),
                         "seed": tune.grid_search(list(seeds))},
            run_config=tune.RunConfig(name="tune", storage_path=str(out), verbose=0),
        )
        # Ctrl-C raises KeyboardInterrupt here at once (exit 130; a rerun resumes, trial by
        # trial), rather than Tune's own handler, which ends the run "gracefully" and returns
        # results of trials that never reported
        before = os.environ.get(_NO_TUNE_SIGINT)
        os.environ[_NO_TUNE_SIGINT] = "1"
        try:
            results = tuner.fit()
        finally:
            if before is None:
                os.environ.pop(_NO_TUNE_SIGINT, None)
            else:
                os.environ[_NO_TUNE_SIGINT] = before
    finally:
        if owns:
            ray.shutdown()
    rows = []
    for i in range(len(results)):  # a ResultGrid indexes (its stubs declare no iteration)
        r = results[i]
        cfg = r.config or {}
        row: dict[str, Any] = {"point": point_name(cfg.get("point", {})), "seed": cfg.get("seed")}
        if r.error is not None:
            row.update(status="error", error=str(r.error).strip().splitlines()[-1][:300])
        elif not r.metrics or "diff_mean" not in r.metrics:  # stopped before it reported its evaluation
            row.update(status="unfinished", error="the trial ended before its evaluation; rerun to resume")
        else:
            row.update(status="ok", **{k: r.metrics.get(k) for k in TRIAL_COLUMNS if k in r.metrics})
        rows.append(row)
    order = {point_name(p): i for i, p in enumerate(points)}
    rows.sort(key=lambda r: (order.get(r["point"], 1 << 30), r["seed"] if r["seed"] is not None else -1))
    files = Report(out)
    files.csv("sweep.csv", TRIAL_COLUMNS, rows)
    files.lines("sweep.md", [sweep_table(rows, base.eval_opponents[0])])
    return rows


def check_sweep(base: TrainConfig, points: list[dict[str, Any]], seeds: list[int]) -> None:
    """Check a sweep before Ray starts: the seeds, every grid point's training config, and
    every agent (training opponents and the evaluation opponent, built once).

    Raises:
        SweepError: naming what is wrong.
    """
    from carioca_experiments.common.argtypes import check_agent_specs

    if not seeds or len(set(seeds)) != len(seeds) or any(isinstance(x, bool) or not isinstance(x, int) or x < 0
                                                         for x in seeds):
        raise SweepError(f"--seeds must list distinct integers >= 0, got {seeds}")
    if len(base.eval_opponents) != 1:
        raise SweepError("a sweep evaluates against one opponent (--eval-opponent)")
    for point in points:
        try:
            TrainConfig(**{**asdict(base), "settings": {**base.settings, **point}})
        except (TrainError, ValueError, TypeError) as exc:
            raise SweepError(f"--grid point {point_name(point)}: {exc}") from None
    check_agent_specs("--opponents", base.opponents, base.players, SweepError)
    check_agent_specs("--eval-opponent", base.eval_opponents, base.players, SweepError)


def read_trials(out: str | Path) -> list[dict[str, Any]]:
    """The trial rows of a sweep folder's ``sweep.csv``."""
    path = Path(out) / "sweep.csv"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SweepError(f"cannot read {path}: {exc.strerror or exc} (give the --out folder of a sweep)") from None
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        row: dict[str, Any] = dict(r)
        for k in ("seed", "steps", "decks"):
            row[k] = int(row[k]) if row.get(k) else None
        for k in ("learner_mean", "opponent_mean", "diff_mean", "diff_ci_low", "diff_ci_high", "wall_time_s"):
            row[k] = float(row[k]) if row.get(k) else math.nan
        rows.append(row)
    return rows


def summarize_points(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per grid point: the seeds, each seed's difference, their mean and 95% t-interval over seeds."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["point"], []).append(r)
    out = []
    for point, rs in by.items():
        ok = [r for r in rs if r["status"] == "ok"]
        ci = mean_ci([float(r["diff_mean"]) for r in ok])
        learner = mean_ci([float(r["learner_mean"]) for r in ok])
        out.append({"point": point, "seeds": [r["seed"] for r in ok], "diffs": [float(r["diff_mean"]) for r in ok],
                    "failed": len(rs) - len(ok), "diff": ci, "learner": learner})
    return out


def _fmt(x: float, signed: bool = True) -> str:
    return "n/a" if x is None or math.isnan(x) else (f"{x:+.1f}" if signed else f"{x:.1f}")


def sweep_table(rows: list[dict[str, Any]], opponent: str) -> str:
    """The Markdown table of a sweep (one line per grid point)."""
    lines = [
        f"Final evaluation against {opponent}: paired difference of mean penalty per deal, learner - {opponent} "
        f"(negative: the learner is better), per seed; mean and 95% t-interval over seeds "
        f"(n/a with fewer than 2 seeds).", "",
        "| setting | seeds | per seed | learner mean | mean diff | 95% CI over seeds |",
        "|---|---|---|---|---|---|",
    ]
    for p in summarize_points(rows):
        d = p["diff"]
        ci = "n/a" if math.isnan(d.low) else f"[{_fmt(d.low)}, {_fmt(d.high)}]"
        per = ", ".join(f"s{s}: {_fmt(x)}" for s, x in zip(p["seeds"], p["diffs"]))
        failed = f" ({p['failed']} failed)" if p["failed"] else ""
        lines.append(f"| {p['point']} | {len(p['seeds'])}{failed} | {per} | {_fmt(p['learner'].mean, False)} | "
                     f"{_fmt(d.mean)} | {ci} |")
    return "\n".join(lines)


# =========================================================================== CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca sweep``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ("Each (grid point, seed) is a Ray Tune trial: carioca train into OUT/trials/<point>/seed<k>, "
                     "then its evaluation\nagainst --eval-opponent on fresh decks. Rerunning resumes: finished "
                     "trials are not trained again.")
    parser.add_argument("--out", type=Path, default=Path("results/sweep"), help="folder (default results/sweep)")
    parser.add_argument("--contract", default="1", help="1..7 or full (default 1)")
    parser.add_argument("--players", type=int, default=2, help="seats, 2-4 (default 2)")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy"], metavar="SPEC",
                        help="training opponents (default random greedy)")
    parser.add_argument("--steps", type=int, help="steps per trial (default 50000)")
    parser.add_argument("--seeds", type=int, nargs="+", help="training seeds (default 0 1 2)")
    parser.add_argument("--grid", nargs="*", default=[], metavar="KEY=V1/V2",
                        help="settings to vary (carioca train --set keys), values separated by /")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting fixed for every trial (repeatable)")
    parser.add_argument("--eval-opponent", default="heuristic", metavar="SPEC",
                        help="the agent every trial is evaluated against (default heuristic)")
    parser.add_argument("--eval-decks", type=int, help="evaluation decks (default 20)")
    parser.add_argument("--eval-seed", type=int, default=1, help="evaluation seed (default 1; decks never trained on)")
    parser.add_argument("--n-envs", type=int, help=f"environments per trial (default {DEFAULT_N_ENVS})")
    parser.add_argument("--cpus-per-trial", type=float, default=1.0, help="CPUs each trial asks Ray for (default 1)")
    parser.add_argument("--address", metavar="ADDR", help="the Ray cluster to join (default $RAY_ADDRESS, else local)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 seeds, 256 steps, 1 evaluation deck")
    parser.add_argument("--report", type=Path, metavar="DIR", help="only print the table of DIR's sweep.csv")


@dataclass(frozen=True)
class SweepConfig:
    """One ``carioca sweep``: the base training run, the grid points, the seeds and where it runs.

    Built (and checked) by :func:`config_from_args`; :func:`run_sweep` runs it.
    """

    base: TrainConfig
    points: tuple[dict[str, Any], ...]
    seeds: tuple[int, ...]
    out: Path
    cpus_per_trial: float = 1.0
    address: str | None = None


def config_from_args(args: argparse.Namespace) -> SweepConfig:
    """The sweep of the command line, every option checked before anything runs.

    Raises:
        SweepError, TrainError: bad options (checked before anything runs).
    """
    q = QUICK if args.quick else {}
    steps = args.steps if args.steps is not None else q.get("steps", 50_000)
    decks = args.eval_decks if args.eval_decks is not None else q.get("eval_decks", 20)
    n_envs = args.n_envs if args.n_envs is not None else q.get("n_envs", DEFAULT_N_ENVS)
    for name, v in (("--steps", steps), ("--eval-decks", decks), ("--n-envs", n_envs)):
        if v < 1:
            raise SweepError(f"{name} must be at least 1, got {v}")
    if args.cpus_per_trial <= 0:
        raise SweepError(f"--cpus-per-trial must be positive, got {args.cpus_per_trial}")
    settings = {**q.get("settings", {}), **parse_settings(args.settings)}
    base = TrainConfig(contract=args.contract, players=args.players, opponents=tuple(args.opponents), steps=steps,
                       n_envs=n_envs, settings=settings, eval_every=0, eval_decks=decks,
                       eval_opponents=(args.eval_opponent,), eval_seed=args.eval_seed,
                       checkpoint_every=max(steps, 4096), tensorboard=False)
    seeds = list(args.seeds) if args.seeds else list(q.get("seeds", [0, 1, 2]))
    points = parse_grid(args.grid)
    check_sweep(base, points, seeds)
    try:
        check_writable(Path(args.out))
    except TrainError as exc:
        raise SweepError(str(exc)) from None
    return SweepConfig(base=base, points=tuple(points), seeds=tuple(seeds), out=Path(args.out),
                       cpus_per_trial=args.cpus_per_trial, address=args.address)


#: what the command says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "rerun the same command to resume"


def run(args: argparse.Namespace) -> int:
    """Run (or resume, or report) a sweep and print its table."""
    if args.report is not None:
        rows = read_trials(args.report)
        opp = json.loads((args.report / "sweep.json").read_text())["base"]["eval_opponents"][0]
        print(sweep_table(rows, opp))
        return 0
    config = config_from_args(args)
    rows = run_sweep(config.base, list(config.points), list(config.seeds), config.out,
                     cpus_per_trial=config.cpus_per_trial, address=config.address)
    print(sweep_table(rows, config.base.eval_opponents[0]))
    failed = [r for r in rows if r["status"] != "ok"]
    for r in failed:
        print(f"trial {r['point']} seed {r['seed']} failed: {r.get('error')}", file=sys.stderr)
    print(f"\ntrials in {config.out}/trials; table in {config.out}/sweep.md, every trial in sweep.csv")
    return 1 if failed else 0
