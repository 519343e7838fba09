"""The command line of ``carioca train``: its options, the run config and command line they give, and the printed result."""

from __future__ import annotations

import argparse
from pathlib import Path

from carioca_experiments.training.train.config import DEFAULT_N_ENVS, DEFAULT_VEC, TrainConfig
from carioca_experiments.training.train.evaluation import has_corrected
from carioca_experiments.training.train.loop import TrainResult, train
from carioca_experiments.training.train.settings import TRAIN_SETTINGS, parse_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca train``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "Writes OUT/model.zip + model.json, OUT/eval.csv (learning curve), OUT/checkpoints/,\n"
        "OUT/tb/ (TensorBoard). Rerunning the same command resumes from the last checkpoint;\n"
        "a larger --steps trains further. Settings: " + ", ".join(f"{k}={v}" for k, v in TRAIN_SETTINGS.items())
    )
    g = parser.add_argument_group("run (these define it; a resume must repeat them)")
    g.add_argument("--contract", default="1", help="contract 1..7, or full for the whole game (default 1)")
    g.add_argument("--players", type=int, default=2, help="seats, 2-4 (default 2)")
    g.add_argument("--opponents", nargs="+", default=["random"], metavar="SPEC",
                   help="opponent agent specs; each episode every opponent seat draws one (default random)")
    g.add_argument("--self-play", action="store_true",
                   help="opponents also play frozen snapshots of the learner (a pool of its last ones)")
    g.add_argument("--self-play-prob", type=float, default=0.8, help="chance a seat plays a snapshot (default 0.8)")
    g.add_argument("--pool-size", type=int, default=8, help="snapshots kept in the self-play pool (default 8)")
    g.add_argument("--snapshot-every", type=int, default=20_000, metavar="K", help="steps between snapshots (default 20000)")
    g.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    g.add_argument("--n-envs", type=int, default=DEFAULT_N_ENVS,
                   help=f"parallel environments (default {DEFAULT_N_ENVS})")
    g.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a training setting, e.g. --set net_arch=64,64 --set ent_coef=0.02")
    g.add_argument("--steps", type=int, default=100_000, help="environment steps to train to (default 100000)")
    g.add_argument("--init", metavar="MODEL",
                   help="start from this model's weights (a path or a shipped name, e.g. an imitation model from "
                        "`carioca imitate`); anchored to it by --set kl_coef=, kl_decay_steps=, value_warmup_updates=")
    e = parser.add_argument_group("evaluation")
    e.add_argument("--eval-every", type=int, default=25_000,
                   help="steps between evaluations (default 25000; 0 = only at the end)")
    e.add_argument("--eval-decks", type=int, default=20, help="decks per contract of an evaluation (default 20)")
    e.add_argument("--eval-opponents", nargs="+", default=["random", "greedy"], metavar="SPEC",
                   help="evaluation opponents (default random greedy)")
    e.add_argument("--eval-seed", type=int, default=1, help="tournament seed of the evaluations (default 1)")
    e.add_argument("--eval-max-turns", type=int, help="truncation of evaluation deals (default: max_turns)")
    e.add_argument("--luck-correction", action="store_true",
                   help="the evaluations also report the luck-corrected difference (carioca tournament "
                        "--luck-correction; 2 or 4 players); a resumed run keeps the value function it recorded")
    r = parser.add_argument_group("running")
    r.add_argument("--out", type=Path, help="run folder (default runs/contract<K>-p<players>-s<seed>)")
    r.add_argument("--vec", choices=("auto", "dummy", "subproc"), default=DEFAULT_VEC,
                   help=f"dummy: all environments in this process; subproc: one process each; auto: "
                        f"subproc when --n-envs > 1 (default {DEFAULT_VEC}: fastest on 2 cores)")
    r.add_argument("--checkpoint-every", type=int, default=20_000, help="steps between checkpoints (default 20000)")
    r.add_argument("--overwrite", action="store_true", help="delete the run in --out and start afresh")
    r.add_argument("--clean", action="store_true",
                   help="at the end keep only model.zip, model.json, eval.csv and run.json (a folder to ship; "
                        "a later run continues from model.zip with a fresh optimizer state)")
    r.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard logs")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")


def command_line(args: argparse.Namespace, name: str = "train") -> str:
    """The command line of parsed options (every option spelled out; for model cards)."""
    import shlex

    parts = ["carioca", name]
    for key, value in vars(args).items():
        if key in ("command", "func", "players_list") or value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            parts.append(flag)
        elif key == "set":
            for item in value:
                parts += [flag, str(item)]
        elif isinstance(value, (list, tuple)):
            parts += [flag, *map(str, value)]
        else:
            parts += [flag, str(value)]
    return " ".join(shlex.quote(p) for p in parts)


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The run config of the command line."""
    return TrainConfig(
        contract=args.contract, players=args.players, opponents=tuple(args.opponents), self_play=args.self_play,
        steps=args.steps, seed=args.seed, n_envs=args.n_envs, vec=args.vec, settings=parse_settings(args.set),
        eval_every=args.eval_every, eval_decks=args.eval_decks, eval_opponents=tuple(args.eval_opponents),
        eval_seed=args.eval_seed, eval_max_turns=args.eval_max_turns, checkpoint_every=args.checkpoint_every,
        snapshot_every=args.snapshot_every, pool_size=args.pool_size, self_play_prob=args.self_play_prob,
        tensorboard=not args.no_tensorboard, clean=args.clean, command=command_line(args), init=args.init,
        luck_correction=bool(args.luck_correction),
    )


def print_result(result: TrainResult) -> None:
    """The final evaluation and where things are."""
    from carioca_experiments.common.plots import eval_units
    from carioca_experiments.common.stats import format_interval

    print(f"trained to {result.num_timesteps} steps in {result.wall_time_s / 60:.1f} min "
          f"({result.num_timesteps / max(result.wall_time_s, 1e-9):.0f} steps/s incl. evaluation)")
    for r in [r for r in result.eval_rows if r["steps"] == result.num_timesteps]:
        n = eval_units(r)  # an interval needs two decks: "n/a (1 deck)", not "[nan, nan]"
        print(f"  vs {r['opponent']:<10} learner {r['learner_mean']:6.1f} "
              f"{format_interval(r['learner_ci_low'], r['learner_ci_high'], n)}"
              f"  opponent {r['opponent_mean']:6.1f}  diff {r['diff_mean']:+6.1f} "
              f"{format_interval(r['diff_ci_low'], r['diff_ci_high'], n, signed=True)}"
              + (f"  luck-corrected {r['corrected_diff_mean']:+6.1f} "
                 f"{format_interval(r['corrected_diff_ci_low'], r['corrected_diff_ci_high'], n, signed=True)}"
                 if has_corrected(r) else "")
              + f"  ({r['decks']} decks, contracts {r['contracts']})")
    luck = next((r["luck"] for r in result.eval_rows if r.get("luck")), None)
    if luck:
        print(f"  (luck-corrected with the value function {luck})")
    print(f"model: {result.model_path} (+ {result.model_path.with_suffix('.json').name}); "
          f"learning curve: {result.out / 'eval.csv'}")


#: what `carioca train` says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "rerun the same command to resume from the last checkpoint"


def run(args: argparse.Namespace) -> int:
    """Train (or resume) and print the final evaluation."""
    config = config_from_args(args)
    out = args.out or Path("runs") / f"contract{config.contract}-p{config.players}-s{config.seed}"
    result = train(config, out, progress=not args.no_progress, overwrite=args.overwrite)
    print_result(result)
    return 0
