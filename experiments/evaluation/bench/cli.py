"""The command line of ``carioca bench``: its options, and running it into a JSON file."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
from dataclasses import dataclass, replace
from pathlib import Path

from carioca_env.records import write_atomic
from carioca_experiments.common.argtypes import check_writable_file, int_at_least, real_at_least
from carioca_experiments.evaluation.bench.config import FULL, QUICK, SECTIONS, Sizes
from carioca_experiments.evaluation.bench.play import check_baseline
from carioca_experiments.evaluation.bench.presentation import report
from carioca_experiments.evaluation.bench.runner import run_bench


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca bench``."""
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="seed of every measurement (default 0)")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, skips full games and some PPO variants (under a minute)")
    parser.add_argument("--repeats", type=int_at_least(1), default=None,
                        help="repetitions of each measurement (default 3; 2 with --quick)")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON result path (default results/bench-<timestamp>.json)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=None, metavar="SECTION",
                        help=f"sections to run, from: {', '.join(SECTIONS)} (default all)")
    parser.add_argument("--full-game-seconds", type=real_at_least(0), default=None,
                        help="time budget per player count for full random 7-deal games, measured once "
                             "(default 45; 0 skips; a random game takes ~10 s to several minutes)")
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile engine random play and env steps and print the top costs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--baseline", type=Path, default=None, metavar="CHECKOUT",
                        help="a checkout of another commit (e.g. git worktree add /tmp/base dbb015d) that the "
                             "play section also times, each repetition in a fresh process, for the ratios "
                             "play.*/baseline")


@dataclass(frozen=True)
class BenchConfig:
    """What ``carioca bench`` measures and where it writes the result.

    Attributes:
        sections: the sections to run, in :data:`SECTIONS` order (at least one).
        sizes: how much work each measurement does (:data:`FULL`, :data:`QUICK` or a test's own).
        seed: seed of every measurement (>= 0).
        repeats: repetitions of each measurement (>= 1).
        out: the JSON result file.
        profile: also cProfile random play and env steps and print the top costs.
        progress: show a progress bar.
        baseline: the checkout the ``play`` section compares with (``--baseline``), or None.
    """

    sections: tuple[str, ...]
    sizes: Sizes
    seed: int
    repeats: int
    out: Path
    profile: bool = False
    progress: bool = True
    baseline: Path | None = None


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    """The benchmark's config, ``--out`` checked writable (before minutes of measuring, not after).

    Raises:
        OSError: ``--out`` is a folder or cannot be written (the command line exits 2).
        ValueError: ``--baseline`` is not a checkout of this project.
    """
    sizes = QUICK if args.quick else FULL
    if args.full_game_seconds is not None:
        sizes = replace(sizes, full_game_seconds=args.full_game_seconds)
    repeats = args.repeats if args.repeats is not None else (2 if args.quick else 3)
    chosen = tuple(args.only) if args.only else SECTIONS
    out = args.out or Path("results") / f"bench-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    check_writable_file(out, "--out")
    baseline = None if args.baseline is None else check_baseline(args.baseline)
    return BenchConfig(sections=tuple(s for s in SECTIONS if s in chosen), sizes=sizes, seed=args.seed,
                       repeats=repeats, out=out, profile=args.profile, progress=not args.no_progress,
                       baseline=baseline)


def run(args: argparse.Namespace) -> int:
    """Build the config from the options, then run the benchmark."""
    return run_bench_command(config_from_args(args))


def run_bench_command(config: BenchConfig) -> int:
    """Run the benchmark, print the table and write the JSON file; 1 if a measurement failed."""
    doc = run_bench(config.sections, config.sizes, config.seed, config.repeats,
                    progress=config.progress, profile=config.profile, baseline=config.baseline)
    report(doc)
    write_atomic(config.out, json.dumps(doc, indent=1, default=str) + "\n")
    print(f"Results written to {config.out}")
    return 1 if doc["errors"] else 0
