"""``carioca imitate``: train a MaskablePPO policy from a teacher agent (DAgger), resumably.

Usage::

    carioca imitate --contract 1 --out runs/imitate-c1-p2
    carioca imitate --contract full --players 4 --teacher heuristic --iterations 4 --games 600
    carioca train --contract 1 --init runs/imitate-c1-p2 --opponents heuristic greedy --self-play \\
        --set net_arch=256,256 --set kl_coef=0.5 --set kl_decay_steps=200000 --set value_warmup_updates=5

Rerunning the same command resumes it; ``--strength-decks N`` ends with a duplicate
tournament of the model against its teacher on N fresh decks per contract.  See
:mod:`carioca_experiments.training.imitate.pipeline` for what is written and
:mod:`carioca_experiments.training.imitate.dataset` for the data format.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from carioca_agents.advice import register_advice
from carioca_env.observation import feature_sets
from carioca_experiments.common.argtypes import int_at_least
from carioca_experiments.training.imitate.config import ImitateConfig, ImitateError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca imitate``."""
    register_advice()  # offered as choices of --features
    d = ImitateConfig()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    # the docstring's example commands, without the reST "Usage::" marker
    parser.epilog = "examples:\n" + __doc__.split("Usage::\n\n", 1)[1].split("\n\n", 1)[0]
    g = parser.add_argument_group("run (these define it; a resume must repeat them)")
    g.add_argument("--contract", default="1", help="contract 1..7, or full (default 1)")
    g.add_argument("--players", type=int, default=2, help="seats, 2-4 (default 2)")
    g.add_argument("--teacher", default=d.teacher, help=f"agent spec imitated (default {d.teacher})")
    g.add_argument("--opponents", nargs="+", default=list(d.opponents), metavar="SPEC",
                   help=f"other seats' agents, one drawn per seat and game (default {' '.join(d.opponents)})")
    g.add_argument("--iterations", type=int, default=d.iterations, help=f"DAgger iterations (default {d.iterations})")
    g.add_argument("--games", type=int, default=d.games, help=f"games per iteration (default {d.games})")
    g.add_argument("--heldout-games", type=int, default=d.heldout_games,
                   help=f"held-out games for the accuracy (default {d.heldout_games})")
    g.add_argument("--beta0", type=float, default=d.beta0,
                   help=f"share of teacher moves in iteration 1 (iteration 0: all; default {d.beta0})")
    g.add_argument("--beta-decay", type=float, default=d.beta_decay,
                   help=f"beta_i = beta0 * decay^(i-1) (default {d.beta_decay})")
    g.add_argument("--epochs", type=int, default=d.epochs, help=f"passes over the data per iteration (default {d.epochs})")
    g.add_argument("--batch-size", type=int, default=d.batch_size, help=f"(default {d.batch_size})")
    g.add_argument("--learning-rate", type=float, default=d.learning_rate, help=f"(default {d.learning_rate})")
    g.add_argument("--vf-coef", type=float, default=d.vf_coef, help=f"weight of the value loss (default {d.vf_coef})")
    g.add_argument("--net-arch", default=",".join(map(str, d.net_arch)),
                   help=f"hidden layers of the policy and value nets (default {','.join(map(str, d.net_arch))})")
    g.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    g.add_argument("--max-turns", type=int, default=d.max_turns, help=f"turns per deal (default {d.max_turns})")
    g.add_argument("--features", choices=feature_sets(), default=d.features,
                   help=f"observation variant (default {d.features}; planning adds the hand's plan)")
    g.add_argument("--learner-sample", action="store_true", help="the learner samples in roll-ins (default: argmax)")
    g.add_argument("--card-head", action="store_true",
                   help="the policy also scores each card type with one shared net (agents/ppo_policy.py)")
    g.add_argument("--action-prior", action="store_true",
                   help="add the heuristic's advice, scored against every action id, to the logits with one learned "
                        "weight per kind (agents/action_prior.py; needs --features advice_play)")
    g.add_argument("--init", metavar="MODEL",
                   help="start the network from this model's weights (a shipped name such as contract4-p4, or a "
                        "path) instead of fresh ones; its features and network settings must be the run's")
    r = parser.add_argument_group("running")
    r.add_argument("--out", type=Path, help="run folder (default runs/imitate-c<K>-p<players>-s<seed>)")
    r.add_argument("--strength-decks", type=int_at_least(0), default=0,
                   help="then a duplicate tournament against the teacher on this many decks per contract (default 0)")
    r.add_argument("--strength-seed", type=int_at_least(0), default=7, help="tournament seed of that tournament (default 7)")
    r.add_argument("--luck-correction", action="store_true",
                   help="that tournament also reports the luck-corrected difference (carioca tournament --luck-correction)")
    r.add_argument("--workers", type=int_at_least(1), default=1, help="tournament processes (default 1)")
    r.add_argument("--overwrite", action="store_true", help="delete the run in --out first (once every option has been checked)")
    r.add_argument("--no-progress", action="store_true", help="no progress bars")


def config_from_args(args: argparse.Namespace) -> ImitateConfig:
    """The run's config (checked)."""
    try:
        arch = tuple(int(x) for x in str(args.net_arch).split(",") if x)
    except ValueError:
        raise ImitateError(f"--net-arch must be comma-separated integers, got {args.net_arch!r}") from None
    return ImitateConfig(
        contract=args.contract, players=args.players, teacher=args.teacher, opponents=tuple(args.opponents),
        iterations=args.iterations, games=args.games, heldout_games=args.heldout_games, beta0=args.beta0,
        beta_decay=args.beta_decay, epochs=args.epochs, batch_size=args.batch_size,
        learning_rate=args.learning_rate, vf_coef=args.vf_coef, net_arch=arch, seed=args.seed,
        max_turns=args.max_turns, learner_sample=args.learner_sample, features=args.features, card_head=args.card_head,
        action_prior=args.action_prior, init=args.init,
    )


#: what the command says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "rerun the same command to resume"


def run(args: argparse.Namespace) -> int:
    """Run or resume; prints the accuracy and, if asked, the strength against the teacher."""
    from carioca_experiments.training.imitate.pipeline import run_imitation, strength_line
    from carioca_experiments.training.train import command_line

    config = config_from_args(args)
    out = args.out or Path("runs") / f"imitate-c{config.contract}-p{config.players}-s{config.seed}"
    card = run_imitation(config, out, progress=not args.no_progress and sys.stderr.isatty(),
                         command=command_line(args, "imitate"), strength_decks=args.strength_decks,
                         strength_seed=args.strength_seed, workers=args.workers, overwrite=args.overwrite,
                         strength_luck=args.luck_correction)
    im = card["imitation"]
    print(f"imitation of {card['teacher']}: held-out accuracy {im['heldout_accuracy']:.3f} "
          f"(uniform over legal moves {im['uniform_accuracy']:.3f}) on {im['heldout_rows']} states; "
          f"{card['wall_time_s'] / 60:.1f} min")
    if "strength" in card:
        print(strength_line(card["strength"]))
    print(f"model: {out / 'model.zip'}")
    return 0
