"""``carioca train-all``: one MaskablePPO agent per contract and one for the whole game, compared.

Usage::

    carioca train-all                         # the default size (~45 min on 2 idle cores, 1-2 h shared)
    carioca train-all --scale 4               # 4x the steps and decks
    carioca train-all --quick                 # a smoke run in minutes
    carioca train-all --report results/rl     # only rebuild the tables and plots

What it does (every stage resumes: rerun the same command after an interruption)

1. Trains ``models/contract<K>`` for each contract K (``carioca train --contract K``:
   episodes of that deal only) and ``models/full`` (``--contract full``: the whole
   game), each against ``--opponents`` (default random and greedy, one drawn per episode
   and seat), ``--steps`` steps per contract
   model and ``--full-steps`` for the full-game model, each with its learning curve
   (``eval.csv`` against random and greedy).
2. For each contract K a duplicate tournament (``tournaments/contract<K>``) of
   ``ppo`` (the contract-K model), ``ppo_full`` (the full-game model, which plays every
   contract), ``random``, ``greedy`` and ``heuristic`` on contract K, ``--decks`` decks:
   every pair of agents at every seat of every deck.  With ``--luck-correction`` each
   deal also records its luck and the summaries the luck-corrected paired differences
   (``corrected_*``, as ``carioca tournament --luck-correction``).
3. Writes ``results.csv`` (mean penalty per deal per contract per agent with 95%
   intervals, and an ``all`` row: the mean of the seven contract means), ``pairs.csv``
   (paired differences of the two PPO agents against each other agent), ``results.md``
   (the tables), ``penalty.png`` (penalty per contract per agent, 95% CIs) and
   ``learning_curves.png`` (every model's evaluation against its steps).

``notebooks/results.ipynb`` reads the same folder.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carioca_env.game_config import MAX_TURNS
from carioca_experiments.common.files import write_file
from carioca_experiments.common.plots import eval_units
from carioca_experiments.common.report import Report, pyplot
from carioca_experiments.common.stats import format_interval
from carioca_experiments.training.train import (
    ALL_CONTRACTS,
    DEFAULT_N_ENVS,
    TrainConfig,
    TrainError,
    check_agents,
    check_writable,
    command_line,
    read_eval_csv,
    train,
)
from carioca_experiments.training.train.evaluation import has_corrected

BASELINES = ("random", "greedy", "heuristic")

#: The default size (``--scale`` multiplies steps and decks).
DEFAULTS: dict[str, Any] = {"steps": 200_000, "full_steps": 400_000, "decks": 10, "eval_every": 25_000,
                            "eval_decks": 20}
#: ``--quick``: minutes, for smoke tests.
QUICK: dict[str, Any] = {"steps": 2048, "full_steps": 2048, "decks": 2, "eval_every": 1024, "eval_decks": 2,
                         "settings": {"n_epochs": 2}}


def model_dirs(out: Path, contracts: tuple[int, ...], full: bool) -> dict[str, Path]:
    """``{"contract1": out/models/contract1, ..., "full": out/models/full}``."""
    d = {f"contract{k}": out / "models" / f"contract{k}" for k in contracts}
    if full:
        d["full"] = out / "models" / "full"
    return d


def _trained_steps(model_dir: Path) -> int:
    try:
        return int(json.loads((model_dir / "model.json").read_text())["steps"])
    except (OSError, ValueError, KeyError, TypeError):
        return -1


@dataclass(frozen=True)
class TrainAllConfig:
    """One ``carioca train-all`` run: every option, as :func:`add_arguments` parses them.

    :meth:`from_args` builds it from the parsed options and :meth:`check` refuses bad
    numbers, player counts and contracts before anything is trained or written (the
    agent specs, the training configs and the folder are checked by the stage that uses
    them, also before anything is written).  ``tournament_seed`` ``None`` is the default
    of each branch (0; 2026 with ``pipeline``, decks never used in training).
    """

    out: Path = Path("results/rl-experiment")
    players: tuple[int, ...] = (2,)
    contracts: tuple[int, ...] = ALL_CONTRACTS
    full: bool = True
    steps: int | None = None
    full_steps: int | None = None
    decks: int | None = None
    scale: float = 1.0
    quick: bool = False
    opponents: tuple[str, ...] = ("random", "greedy")
    baselines: tuple[str, ...] = BASELINES
    eval_every: int | None = None
    seed: int = 0
    tournament_seed: int | None = None
    max_turns: int = MAX_TURNS
    n_envs: int = DEFAULT_N_ENVS
    workers: int = 2
    backend: str = "local"
    address: str | None = None
    tensorboard: bool = True
    progress: bool = True
    pipeline: str | None = None
    final_tournament: bool = False
    #: the tournaments also record each deal's luck and report luck-corrected paired
    #: differences (``--luck-correction``, :mod:`carioca_experiments.evaluation.luck`)
    luck_correction: bool = False
    eval_seed: int = 1
    ship: tuple[str, ...] = ()
    export: Path | None = None
    #: the command line, recorded in ``experiment.json``
    command: str = ""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> TrainAllConfig:
        """The config of parsed options (:meth:`check` it before use)."""
        players = tuple(args.players) if isinstance(args.players, (list, tuple)) else (args.players,)
        shown = argparse.Namespace(**vars(args))  # the command line as the options were normalised
        if len(players) == 1:
            shown.players = players[0]
        if shown.tournament_seed is None and args.pipeline is None:
            shown.tournament_seed = 0
        return cls(
            out=Path(args.out), players=players, contracts=tuple(args.contracts), full=not args.no_full,
            steps=args.steps, full_steps=args.full_steps, decks=args.decks, scale=args.scale, quick=bool(args.quick),
            opponents=tuple(args.opponents), baselines=tuple(args.baselines), eval_every=args.eval_every,
            seed=args.seed, tournament_seed=args.tournament_seed, max_turns=args.max_turns, n_envs=args.n_envs,
            workers=args.workers, backend=getattr(args, "backend", "local"), address=getattr(args, "address", None),
            tensorboard=not args.no_tensorboard, progress=not args.no_progress, pipeline=args.pipeline,
            final_tournament=bool(args.final_tournament), luck_correction=bool(args.luck_correction),
            eval_seed=args.eval_seed, ship=tuple(args.ship),
            export=args.export, command=command_line(shown, "train-all"))

    @property
    def final_seed(self) -> int:
        """The seed of the tournaments: ``tournament_seed``, else 0 (2026 with ``pipeline``)."""
        if self.tournament_seed is not None:
            return self.tournament_seed
        return 2026 if self.pipeline is not None else 0

    def check(self) -> None:
        """Refuse bad numbers, player counts and contracts before anything runs.

        Raises:
            TrainError: naming the option, what it got and what is allowed.
        """
        if self.pipeline is not None:
            for name, low in (("seed", 0), ("eval_seed", 0), ("workers", 1), ("max_turns", 1)):
                v = getattr(self, name)
                if v < low:
                    raise TrainError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {v}")
            if self.decks is not None and self.decks < 1:
                raise TrainError(f"--decks must be an integer >= 1, got {self.decks}")
            if self.final_tournament or self.pipeline == "imitate+ppo":
                self._check_luck(self.players)
            self._check_backend()
            from carioca_experiments.training import learned_set

            learned_set.check(self)  # every --ship and the folders too, before the first model is trained
            return
        if len(self.players) != 1:
            raise TrainError(f"--players takes one count without --pipeline, got {list(self.players)!r}")

        def count(name: str, value: Any, low: int) -> None:
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
                raise TrainError(f"--{name} must be an integer >= {low}, got {value!r}")

        count("steps", self.steps, 1)
        count("full-steps", self.full_steps, 1)
        count("decks", self.decks, 1)
        count("eval-every", self.eval_every, 0)
        count("seed", self.seed, 0)
        count("tournament-seed", self.tournament_seed, 0)
        count("max-turns", self.max_turns, 1)
        count("n-envs", self.n_envs, 1)
        count("workers", self.workers, 1)
        if self.players[0] not in (2, 3, 4):
            raise TrainError(f"--players must be 2, 3 or 4, got {self.players[0]!r}")
        bad = [k for k in self.contracts if k not in ALL_CONTRACTS]
        if bad or not self.contracts:
            raise TrainError(f"--contracts must be among 1..7, got {list(self.contracts)!r}")
        if not (isinstance(self.scale, (int, float)) and math.isfinite(self.scale) and self.scale > 0):
            raise TrainError(f"--scale must be a number > 0, got {self.scale!r}")
        self._check_luck(self.players)
        self._check_backend()

    def _check_backend(self) -> None:
        """With ``--backend ray``: Ray is installed and something answers at the address
        (``--address``, else ``RAY_ADDRESS``), checked before the folder is written.

        Raises:
            TrainError: Ray is missing, or nothing answers at the address.
        """
        if self.backend != "ray":
            return
        from carioca_experiments.common.ray_cluster import RayUnavailable, check_reachable, import_ray

        try:
            import_ray()
            address = self.address or os.environ.get("RAY_ADDRESS")
            if address:
                check_reachable(address)
        except RayUnavailable as exc:
            raise TrainError(str(exc)) from None

    def _check_luck(self, players: tuple[int, ...]) -> None:
        """Refuse ``--luck-correction`` at a player count or contract the shipped value function has no model for."""
        if not self.luck_correction:
            return
        from carioca_experiments.training.imitate.pipeline import luck_problem

        for p in players:
            problem = luck_problem(p, tuple(self.contracts))
            if problem:
                raise TrainError(problem)

    @property
    def luck(self) -> str | None:
        """The luck value function's fingerprint the tournaments record (``--luck-correction``), or ``None``."""
        if not self.luck_correction:
            return None
        from carioca_experiments.evaluation.luck import shipped_value

        return shipped_value().fingerprint


def run_experiment(config: TrainAllConfig, log: Any = None) -> Path:
    """Run (or resume) the whole experiment into ``config.out``; returns the folder.

    Every option, agent spec and the folder are checked before anything is written.
    """
    from carioca_experiments.common.argtypes import check_agent_specs
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    say = log or (lambda m: print(m, file=sys.stderr))
    config.check()
    args = config
    players = config.players[0]
    size = dict(QUICK if args.quick else DEFAULTS)
    steps = int((args.steps or size["steps"]) * args.scale)
    full_steps = int((args.full_steps or size["full_steps"]) * args.scale)
    decks = max(1, int((args.decks or size["decks"]) * args.scale))
    eval_every = size["eval_every"] if args.eval_every is None else args.eval_every
    out = Path(args.out)
    contracts = tuple(args.contracts)
    dirs = model_dirs(out, contracts, args.full)
    # everything is checked before anything is written: the training runs (their
    # configs), the tournaments' agents, the folder
    jobs = _training_jobs(args, dirs, size, steps, full_steps, eval_every)
    check_agents(jobs[0][1])  # every run has the same opponents and evaluation agents
    check_agent_specs("--baselines", args.baselines, players, TrainError)
    tournaments = {k: TournamentConfig(agents=tuple(_tournament_agents(dirs, k, args.baselines)), players=players,
                                       contracts=(k,), decks=decks, seed=config.final_seed, max_turns=args.max_turns,
                                       luck=config.luck)
                   for k in contracts}
    check_writable(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TrainError(f"--out {out}: cannot create the folder ({exc.strerror or exc}); choose another --out") from None
    write_file(out / "experiment.json", (json.dumps({
        "format": "carioca-rl-experiment", "players": players, "contracts": list(contracts),
        "full": args.full, "steps": steps, "full_steps": full_steps, "decks": decks,
        "opponents": list(args.opponents), "baselines": list(args.baselines), "seed": args.seed,
        "n_envs": args.n_envs, "quick": bool(args.quick), "scale": args.scale,
        "command": config.command,
    }, indent=1) + "\n").encode())

    # 1. training
    jobs = [(name, cfg, d) for name, cfg, d in jobs if _trained_steps(d) < cfg.steps]
    for name, d in dirs.items():
        if name not in {j[0] for j in jobs}:
            say(f"[train-all] {name}: already trained ({_trained_steps(d)} steps)")
    if args.backend == "ray":  # each run a Ray task (experiments/training/ray_train.py)
        from carioca_experiments.training.ray_train import train_on_ray

        train_on_ray(jobs, address=args.address, log=say)
    else:
        for name, cfg, d in jobs:
            say(f"[train-all] training {name}: {cfg.steps} steps -> {d}")
            t = time.monotonic()
            train(cfg, d, progress=args.progress, log=say)
            say(f"[train-all] {name} done in {(time.monotonic() - t) / 60:.1f} min")

    # 2. tournaments
    for k, tc in tournaments.items():
        say(f"[train-all] tournament on contract {k}: {', '.join(tc.agents)}")
        run_tournament(tc, out / "tournaments" / f"contract{k}", workers=args.workers,
                       progress=args.progress, log=say, backend=args.backend, address=args.address)

    # 3. tables and plots
    report(out, log=say)
    return out


def _tournament_agents(dirs: dict[str, Path], k: int, baselines: tuple[str, ...]) -> list[str]:
    """The agents of contract ``k``'s tournament: its model, the full-game model, the baselines."""
    agents = [f"ppo=ppo:{dirs[f'contract{k}']}"]
    if "full" in dirs:
        agents.append(f"ppo_full=ppo:{dirs['full']}")
    return agents + list(baselines)


def _training_jobs(args: TrainAllConfig, dirs: dict[str, Path], size: dict[str, Any], steps: int,
                   full_steps: int, eval_every: int) -> list[tuple[str, TrainConfig, Path]]:
    """``(name, config, folder)`` of every model's training run (checked as the configs are built)."""
    jobs = []
    for name, d in dirs.items():
        target = full_steps if name == "full" else steps
        contract: int | str = "full" if name == "full" else int(name.removeprefix("contract"))
        eval_decks = max(1, int(size["eval_decks"] * min(args.scale, 2)))
        if name == "full":  # evaluated on all seven contracts: about as many decks in all
            eval_decks = max(1, eval_decks // 3)
        settings = dict(size.get("settings", {}))
        players = args.players[0]
        cfg = TrainConfig(
            contract=contract, players=players, opponents=tuple(args.opponents), steps=target,
            seed=args.seed, n_envs=args.n_envs, settings=settings, eval_every=eval_every, eval_decks=eval_decks,
            eval_opponents=("random", "greedy"), eval_max_turns=args.max_turns,
            checkpoint_every=max(4096, target // 5), tensorboard=args.tensorboard,
            luck_correction=args.luck_correction,
            command=(f"carioca train --contract {contract} --players {players} --opponents "
                     f"{' '.join(args.opponents)} --steps {target} --seed {args.seed} --n-envs {args.n_envs} "
                     + "".join(f"--set {k}={','.join(map(str, v)) if isinstance(v, list) else v} "
                               for k, v in settings.items())
                     + f"--eval-every {eval_every} --eval-decks {eval_decks} --eval-opponents random greedy "
                     f"--eval-max-turns {args.max_turns} "
                     f"--checkpoint-every {max(4096, target // 5)} "
                     + ("--luck-correction " if args.luck_correction else "") + f"--out {d}"),
        )
        jobs.append((name, cfg, d))
    return jobs


# =========================================================================== report


def collect(out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """``(agent rows, pair rows, learning curves by model)`` of an experiment folder."""
    rows: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for sj in sorted((out / "tournaments").glob("contract*/summary.json"), key=lambda p: int(p.parent.name[8:])):
        s = json.loads(sj.read_text())
        for r in s["agents"]:
            if r["contract"] == "all":
                continue
            rows.append({k: r[k] for k in ("contract", "agent", "decks", "mean_penalty", "ci_low", "ci_high",
                                            "ci_half", "win_rate", "open_rate", "close_rate", "truncated")})
        for p in s["pairs"]:
            if p["contract"] != "all":
                pairs.append(dict(p))
    curves = {d.name: read_eval_csv(d / "eval.csv") for d in sorted((out / "models").glob("*")) if (d / "eval.csv").exists()}
    return rows, pairs, curves


def _nan(x: Any) -> float:
    return math.nan if x is None else float(x)


def overall_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per agent, the mean of its contract means with a normal 95% half-width
    ``sqrt(sum of squared half-widths) / K`` (contracts use independent decks)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["agent"], []).append(r)
    out = []
    for agent, rs in by.items():
        means = [_nan(r["mean_penalty"]) for r in rs]
        halves = [_nan(r["ci_half"]) for r in rs]
        m = sum(means) / len(means)
        h = math.sqrt(sum(x * x for x in halves)) / len(halves)
        out.append({"contract": "all", "agent": agent, "decks": sum(r["decks"] for r in rs), "mean_penalty": m,
                    "ci_low": m - h, "ci_high": m + h, "ci_half": h,
                    "win_rate": sum(_nan(r["win_rate"]) for r in rs) / len(rs),
                    "open_rate": sum(_nan(r["open_rate"]) for r in rs) / len(rs),
                    "close_rate": sum(_nan(r["close_rate"]) for r in rs) / len(rs),
                    "truncated": sum(r["truncated"] for r in rs)})
    return out


def _cell(m: float, lo: float, hi: float, n: int) -> str:
    if math.isnan(m):
        return "-"
    return f"{m:.1f} {format_interval(lo, hi, n)}"  # "n/a (1 deck)" without an interval


def _diff_cells(mean: Any, low: Any, high: Any, decks: int) -> str:
    """A paired difference's two table cells: the mean, and its interval (``*`` when it
    excludes 0); ``-`` cells when there is no difference (an uncorrected tournament)."""
    m, lo, hi = _nan(mean), _nan(low), _nan(high)
    if math.isnan(m):
        return " - | - |"
    sig = "*" if not math.isnan(lo) and (lo > 0 or hi < 0) else ""
    return f" {m:+.1f} | {format_interval(lo, hi, decks, signed=True)} {sig} |"


def _fingerprints(out: Path) -> list[str]:
    """The luck value functions that corrected the experiment's tournaments."""
    found = set()
    for sj in (out / "tournaments").glob("contract*/summary.json"):
        luck = json.loads(sj.read_text())["config"].get("luck")
        if luck:
            found.add(luck)
    return sorted(found)


def report(out: str | Path, log: Any = None) -> list[Path]:
    """Write results.csv, pairs.csv, results.md, penalty.png, learning_curves.png; returns the paths."""
    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(out)
    rows, pairs, curves = collect(out)
    if not rows:
        raise TrainError(f"{out} holds no tournament summaries (tournaments/contract*/summary.json)")
    allrows = rows + overall_rows(rows)
    cols = ["contract", "agent", "decks", "mean_penalty", "ci_low", "ci_high", "ci_half", "win_rate",
            "open_rate", "close_rate", "truncated"]
    files = Report(out)
    files.csv("results.csv", cols, allrows, digits=3)
    ppo_pairs = [p for p in pairs if "ppo" in (p["agent_x"], p["agent_y"]) or "ppo_full" in (p["agent_x"], p["agent_y"])]
    corrected = [p for p in ppo_pairs if p.get("corrected_diff") is not None]
    files.csv("pairs.csv", ["contract", "agent_x", "agent_y", "decks", "mean_diff", "ci_low", "ci_high", "ci_half"]
              + (["corrected_diff", "corrected_low", "corrected_high", "corrected_half"] if corrected else []),
              ppo_pairs, digits=3)
    contracts = sorted({r["contract"] for r in rows}, key=int)
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    lines = ["# RL experiment: MaskablePPO per contract and for the full game", "",
             "Mean penalty per deal (lower is better), 95% t-interval over decks; `ppo` is the model trained on "
             "that contract, `ppo_full` the full-game model. `all`: mean of the contract means "
             "(half-width sqrt(sum h^2)/K).", "",
             "| agent | " + " | ".join(f"c{c}" for c in contracts) + " | all |",
             "|---|" + "---|" * (len(contracts) + 1)]
    look = {(r["contract"], r["agent"]): r for r in allrows}
    for a in agents:
        cells = []
        for c in contracts + ["all"]:
            r = look.get((c, a))
            cells.append("-" if r is None else _cell(_nan(r["mean_penalty"]), _nan(r["ci_low"]), _nan(r["ci_high"]),
                                                        int(r["decks"])))
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    if ppo_pairs:
        lines += ["", "## Paired differences (x - y on the same decks; negative: x better; * = CI excludes 0)", "",
                  "| contract | x - y | mean diff | 95% CI |" + (" luck-corrected | 95% CI |" if corrected else ""),
                  "|---|---|---|---|" + ("---|---|" if corrected else "")]
        for p in ppo_pairs:
            line = (f"| {p['contract']} | {p['agent_x']} - {p['agent_y']} |"
                    + _diff_cells(p["mean_diff"], p["ci_low"], p["ci_high"], int(p["decks"])))
            if corrected:
                line += _diff_cells(p.get("corrected_diff"), p.get("corrected_low"), p.get("corrected_high"),
                                    int(p["decks"]))
            lines.append(line)
        if corrected:
            lines += ["", "Luck-corrected: each penalty minus the luck of its stock draws (value function "
                          f"{', '.join(_fingerprints(out))}; carioca tournament --luck-correction)."]
    if curves:
        cur = any(has_corrected(r) for rs in curves.values() for r in rs)
        lines += ["", "## Learning curves (last evaluation of each model)", "",
                  "| model | steps | opponent | learner | opponent | diff [95% CI] |"
                  + (" luck-corrected [95% CI] |" if cur else ""), "|---|---|---|---|---|---|" + ("---|" if cur else "")]
        for name, rs in curves.items():
            if not rs:
                continue
            last = max(r["steps"] for r in rs)
            for r in rs:
                if r["steps"] == last:
                    line = (f"| {name} | {last} | {r['opponent']} | {r['learner_mean']:.1f} | {r['opponent_mean']:.1f} | "
                            f"{r['diff_mean']:+.1f} "
                            f"{format_interval(r['diff_ci_low'], r['diff_ci_high'], eval_units(r), signed=True)} |")
                    if cur:
                        ci = format_interval(r["corrected_diff_ci_low"], r["corrected_diff_ci_high"], eval_units(r),
                                             signed=True) if has_corrected(r) else ""
                        line += f" {r['corrected_diff_mean']:+.1f} {ci} |" if has_corrected(r) else " - |"
                    lines.append(line)
    files.lines("results.md", lines)
    try:
        plot(files, allrows, curves)
    except ImportError:
        say("note: matplotlib is not installed: no plots")
    return files.paths


def plot(files: Report, rows: list[dict[str, Any]], curves: dict[str, list[dict[str, Any]]]) -> list[Path]:
    """``penalty.png`` and ``learning_curves.png`` into ``files`` (see :mod:`carioca_experiments.common.plots`
    for the bands and legends); returns their paths."""
    plt = pyplot()
    from carioca_experiments.common.plots import learning_curves_figure, legend_outside

    paths = []
    groups = sorted({r["contract"] for r in rows if r["contract"] != "all"}, key=int) + ["all"]
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    look = {(r["contract"], r["agent"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups) + 2), 4.2))
    width = 0.8 / max(len(agents), 1)
    for i, a in enumerate(agents):
        xs, ys, lo, hi = [], [], [], []
        for j, g in enumerate(groups):
            r = look.get((g, a))
            if r is None or math.isnan(_nan(r["mean_penalty"])):
                continue
            m = _nan(r["mean_penalty"])
            xs.append(j + (i - (len(agents) - 1) / 2) * width)
            ys.append(m)
            # a penalty is never negative: an older t-interval reaching below 0 is drawn to 0
            lo.append(0.0 if math.isnan(_nan(r["ci_low"])) else m - max(0.0, _nan(r["ci_low"])))
            hi.append(0.0 if math.isnan(_nan(r["ci_high"])) else _nan(r["ci_high"]) - m)
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=a)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"c{g}" if g != "all" else "all" for g in groups])
    ax.set_ylabel("mean penalty per deal (lower is better)")
    ax.set_title("Penalty per contract per agent, 95% CI over decks", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    legend_outside(ax)
    fig.tight_layout()
    paths.append(files.figure("penalty.png", fig, dpi=110, bbox_inches="tight"))
    if any(curves.values()):
        paths.append(files.figure("learning_curves.png", learning_curves_figure(curves), dpi=100))
    return paths


# =========================================================================== CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca train-all``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (f"Default size: {DEFAULTS['steps']} steps per contract model, {DEFAULTS['full_steps']} for the "
                     f"full game, {DEFAULTS['decks']} tournament decks per contract (~45 min on 2 idle cores, 1-2 h shared);\n"
                     "--scale multiplies steps and decks. Rerunning the same command resumes every stage.")
    parser.add_argument("--out", type=Path, default=Path("results/rl-experiment"), help="folder (default results/rl-experiment)")
    parser.add_argument("--players", type=int, nargs="+", default=[2],
                        help="seats, 2-4 (default 2; several only with --pipeline)")
    parser.add_argument("--contracts", type=int, nargs="+", default=list(ALL_CONTRACTS), help="contracts (default all seven)")
    parser.add_argument("--no-full", action="store_true", help="no full-game model")
    parser.add_argument("--steps", type=int, help=f"steps per contract model (default {DEFAULTS['steps']})")
    parser.add_argument("--full-steps", type=int, help=f"steps of the full-game model (default {DEFAULTS['full_steps']})")
    parser.add_argument("--decks", type=int, help=f"tournament decks per contract (default {DEFAULTS['decks']})")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply steps and decks (default 1)")
    parser.add_argument("--quick", action="store_true", help="a tiny version (minutes): 2048 steps, 2 decks")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy"], metavar="SPEC",
                        help="training opponents; each episode every opponent seat draws one (default random greedy)")
    parser.add_argument("--baselines", nargs="+", default=list(BASELINES), metavar="SPEC",
                        help="tournament opponents (default random greedy heuristic)")
    parser.add_argument("--eval-every", type=int, help="steps between learning-curve evaluations (default 25000)")
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    parser.add_argument("--tournament-seed", type=int,
                        help="tournament seed (default 0; with --pipeline 2026: decks never used in training)")
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS,
                        help=f"turns after which a deal is cut off (R17), in training and the tournaments (default {MAX_TURNS})")
    parser.add_argument("--n-envs", type=int, default=DEFAULT_N_ENVS,
                        help=f"environments per training run (default {DEFAULT_N_ENVS}, in one process)")
    parser.add_argument("--workers", type=int, default=2, help="tournament processes (default 2)")
    parser.add_argument("--luck-correction", action="store_true",
                        help="the tournaments (with --pipeline: --final-tournament) and the training runs' evaluations "
                             "(carioca train --luck-correction; with --pipeline imitate+ppo: the fine-tunings') also "
                             "report the luck-corrected paired differences (2 or 4 players)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="ray: every training run a Ray task (1 CPU each), then the tournaments on Ray; "
                             "--address or RAY_ADDRESS joins a cluster (default local)")
    parser.add_argument("--address", metavar="ADDR", help="with --backend ray: the Ray cluster to join")
    parser.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard logs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--report", type=Path, metavar="DIR", help="only rebuild the tables and plots of DIR")
    p = parser.add_argument_group("the learned set (experiments/training/learned_set.py)")
    p.add_argument("--pipeline", metavar="STAGES",
                   help="imitate+ppo: per player count and target, imitation of the heuristic then fine-tuning; "
                        "imitate: the imitation alone (resumable; see experiments/training/learned_set.py)")
    p.add_argument("--final-tournament", action="store_true",
                   help="with --pipeline: the duplicate tournament of the learned agents against heuristic, greedy "
                        "and random on --decks fresh decks per contract (default 100)")
    p.add_argument("--eval-seed", type=int, default=1, help="with --pipeline: tournament seed of training evaluations")
    p.add_argument("--ship", nargs="+", default=[], metavar="NAME=TARGET/P",
                   help="with --pipeline: copy finished models to agents/models/NAME (e.g. contract3-p4=contract3/4)")
    p.add_argument("--export", type=Path, metavar="DIR",
                   help="with --pipeline: copy the final tables, tournament summaries, learning curves and model "
                        "cards to DIR (shipped-results/ holds them for notebooks/results.ipynb)")


#: what the command says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "rerun the same command to resume"


def run(args: argparse.Namespace) -> int:
    """Run, resume or report the experiment."""
    if args.report is not None:
        for p in report(args.report):
            print(f"wrote {p}")
        print((args.report / "results.md").read_text())
        return 0
    config = TrainAllConfig.from_args(args)
    config.check()
    if config.pipeline is not None:
        return _run_pipeline(config)
    t = time.monotonic()
    out = run_experiment(config)
    print((out / "results.md").read_text())
    print(f"results in {out}/ (results.csv, pairs.csv, results.md, penalty.png, learning_curves.png); "
          f"{(time.monotonic() - t) / 60:.1f} min")
    return 0


def _run_pipeline(config: TrainAllConfig) -> int:
    from carioca_experiments.training import learned_set

    out = learned_set.run_pipeline(config)
    for spec in config.ship:
        print(f"shipped {learned_set.ship(out, spec)}")
    if config.final_tournament:
        learned_set.final_tournament(config)
        print(learned_set.report(out))
    if config.export is not None:
        learned_set.report(out)
        print(f"exported {len(learned_set.export(out, config.export))} files to {config.export}/")
    print(f"learned set in {out}/ (pipeline.json: commands, seeds and wall times)")
    return 0
