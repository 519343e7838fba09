"""``carioca improve``: one step of policy improvement from rollouts, on top of an imitation model.

Usage::

    carioca improve --init contract1 --contract 1 --out runs/improve-c1-p2 --workers 2
    carioca improve --init runs/imitate-c3-p4/model.zip --contract 3 --games 2000 --strength-decks 500

The teacher (the heuristic) plays every seat; at its draws and discards the candidate
moves are rolled out from the true position (the stock reshuffled, every candidate on the
same shuffles), and the policy is fitted to the sign of their mean advantage over many
states.  Rerunning the same command resumes it; ``--strength-decks N`` ends with a
duplicate tournament of the model against the teacher on N fresh decks.  See
:mod:`carioca_experiments.studies.improve` for the method and the files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from carioca_experiments.common.argtypes import int_at_least
from carioca_experiments.studies.improve.config import ImproveConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca improve``."""
    d = ImproveConfig()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    # the docstring's example commands, without the reST "Usage::" marker
    parser.epilog = "examples:\n" + __doc__.split("Usage::\n\n", 1)[1].split("\n\n", 1)[0]
    g = parser.add_argument_group("run (these define it; a resume must repeat them)")
    g.add_argument("--init", default=d.init,
                   help=f"starting model: a shipped name (contract3, contract3-p4, ...) or a path (default {d.init})")
    g.add_argument("--contract", type=int, default=d.contract, help=f"contract 1..7 (default {d.contract})")
    g.add_argument("--teacher", default=d.teacher, help=f"agent whose states and continuation are used (default {d.teacher})")
    g.add_argument("--opponents", nargs="+", default=[], metavar="SPEC",
                   help="the teacher plays one seat among these agents (one drawn per other seat and game), in "
                        "the games and the rollouts; only its seat is labelled (default: the teacher everywhere)")
    g.add_argument("--games", type=int, default=d.games, help=f"teacher games of training data (default {d.games})")
    g.add_argument("--heldout-games", type=int, default=d.heldout_games,
                   help=f"held-out games that measure each epoch (default {d.heldout_games})")
    g.add_argument("--reshuffles", type=int, default=d.reshuffles,
                   help=f"stock shuffles per valued decision (default {d.reshuffles})")
    g.add_argument("--top", type=int, default=d.top, help=f"candidates per decision at most (default {d.top})")
    g.add_argument("--epochs", type=int, default=d.epochs, help=f"passes over the data (default {d.epochs})")
    g.add_argument("--batch-size", type=int, default=d.batch_size, help=f"(default {d.batch_size})")
    g.add_argument("--learning-rate", type=float, default=d.learning_rate, help=f"(default {d.learning_rate})")
    g.add_argument("--anchor", type=float, default=d.anchor, help=f"weight of the anchor loss (default {d.anchor})")
    g.add_argument("--adv-scale", type=float, default=d.adv_scale,
                   help=f"penalty points per unit of the pairwise loss (default {d.adv_scale})")
    g.add_argument("--seed", type=int, default=d.seed, help=f"seed of everything (default {d.seed})")
    g.add_argument("--max-turns", type=int, default=d.max_turns, help=f"turns per deal (default {d.max_turns})")
    g.add_argument("--shard-games", type=int, default=d.shard_games, help=f"games per data shard (default {d.shard_games})")
    r = parser.add_argument_group("running")
    r.add_argument("--out", type=Path, help="run folder (default runs/improve-c<K>-<init name>-s<seed>)")
    r.add_argument("--workers", type=int_at_least(1), default=1, help="processes labelling data and playing the tournament (default 1)")
    r.add_argument("--strength-decks", type=int_at_least(0), default=0,
                   help="then a duplicate tournament against the teacher on this many decks (default 0)")
    r.add_argument("--strength-seed", type=int_at_least(0), default=7, help="tournament seed of that tournament (default 7)")
    r.add_argument("--luck-correction", action="store_true",
                   help="that tournament also reports the luck-corrected difference (carioca tournament --luck-correction)")
    r.add_argument("--overwrite", action="store_true", help="delete the run in --out first (once every option has been checked)")
    r.add_argument("--no-progress", action="store_true", help="no progress bars")


def config_from_args(args: argparse.Namespace) -> ImproveConfig:
    """The run's config (checked)."""
    return ImproveConfig(
        init=args.init, contract=args.contract, teacher=args.teacher, opponents=tuple(args.opponents), games=args.games,
        heldout_games=args.heldout_games, reshuffles=args.reshuffles, top=args.top, epochs=args.epochs,
        batch_size=args.batch_size, learning_rate=args.learning_rate, anchor=args.anchor, adv_scale=args.adv_scale,
        seed=args.seed, max_turns=args.max_turns, shard_games=args.shard_games,
    )


#: what the command says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "rerun the same command to resume"


def run(args: argparse.Namespace) -> int:
    """Run or resume; prints the held-out gain and, if asked, the strength against the teacher."""
    from carioca_experiments.studies.improve.pipeline import run_improvement
    from carioca_experiments.training.train import command_line

    config = config_from_args(args)
    out = args.out or Path("runs") / f"improve-c{config.contract}-{Path(config.init).stem}-s{config.seed}"
    card = run_improvement(config, out, workers=args.workers, progress=not args.no_progress and sys.stderr.isatty(),
                           command=command_line(args, "improve"), strength_decks=args.strength_decks,
                           strength_seed=args.strength_seed, overwrite=args.overwrite,
                           strength_luck=args.luck_correction)
    h = card["improvement"]["heldout"]
    print(f"improved {config.init} on contract {config.contract}: epoch {card['improvement']['chosen_epoch']}, "
          f"held-out gain {h['gain']:+.3f} [{h['gain_ci_low']:+.3f}, {h['gain_ci_high']:+.3f}] points per decision "
          f"({h['gain_per_seat_deal']:+.2f} per seat and deal), leaves the teacher at {h['deviations']:.1%} "
          f"of valued decisions; {card['wall_time_s'] / 60:.1f} min")
    if "strength" in card:
        s = card["strength"]
        print(f"vs {s['opponent']} ({s['decks']} decks, {s['deals']} deals): model {s['imitated_mean']:.1f}, "
              f"teacher {s['teacher_mean']:.1f}, diff {s['diff_mean']:+.2f} [{s['diff_ci_low']:+.2f}, "
              f"{s['diff_ci_high']:+.2f}]" + (f", luck-corrected {s['corrected_diff_mean']:+.2f} "
                                              f"[{s['corrected_ci_low']:+.2f}, {s['corrected_ci_high']:+.2f}]"
                                              if "corrected_diff_mean" in s else ""))
    print(f"model: {out / 'model.zip'}")
    return 0
