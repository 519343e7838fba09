"""``carioca train-all --pipeline imitate+ppo``: the learned set, one model per (contract or full game, players).

Usage::

    carioca train-all --pipeline imitate+ppo --players 2 4 --out runs/learned
    carioca train-all --pipeline imitate+ppo --players 2 --contracts 1 2 3 --no-full --out runs/learned
    carioca train-all --pipeline imitate+ppo --players 2 4 --out runs/learned --final-tournament

For each player count P and each target T (``contract1`` .. ``contract7``, ``full``), in
that order, into ``OUT/p<P>/<T>/`` (every imitation first, then every fine-tuning: an
imitation model plays well after minutes, a fine-tuning takes most of an hour):

1. ``imitate/``: ``carioca imitate`` from :data:`PIPELINE` (teacher ``heuristic``,
   opponents heuristic and greedy, DAgger, the ``advice_play`` observation, the card
   head and the advice prior, ``net_arch`` 64,64), with its held-out accuracy;
2. ``ppo/``: ``carioca train --init OUT/p<P>/<T>/imitate`` (MaskablePPO against heuristic,
   greedy and the learner's own snapshots; value warm-up and a decaying KL anchor to the
   imitation policy), with its learning curve against heuristic and greedy.

``--pipeline imitate`` runs only the first stage (the fine-tuning of a whole set takes
about seven hours here; the final tournament then plays the imitation models).  Each
stage resumes (its own checkpoints) and is skipped when done (an imitation model made
by its own ``carioca imitate`` counts, its card filling the record); ``pipeline.json``
records per model the commands, seeds and wall times of both stages.  Nothing here is
shipped automatically: ``--ship NAME=T/P`` copies a finished model and its card to
``agents/models/NAME`` (for example ``contract3-p4``), with the card's paths made
relative.

Seeds, and why the final tournament's decks are fresh
    Imitation games are dealt from ``derive_seed(seed, ...)`` in the ``carioca-imitate``
    namespace (:mod:`carioca_experiments.training.imitate.config`); training episodes from the env's own
    seeded generator; training evaluations are duplicate tournaments with tournament
    seed ``--eval-seed`` (default 1).  The final tournament uses tournament seed
    ``--tournament-seed`` (default 2026): a different seed of the tournament's namespace,
    so its decks were never used for training, evaluation or tuning.

``--final-tournament`` then plays, per player count and contract, duplicate tournaments
of the contract's model and the full-game model against heuristic, greedy and random on
``--decks`` fresh decks (:func:`final_tournament`: with 2 players every pair at both
seats; with 3-4 one learned agent at a table of one baseline), into
``OUT/p<P>/final/`` (each with ``summary.md``, ``.csv``, ``.json``), and writes
``OUT/final.md``: per player count, contract, learned agent and baseline, the paired
difference of mean penalty per deal (learned minus baseline, head to head on the same
decks) with its 95% interval (:func:`report`), and ``OUT/learning_curves.png`` (every
model's evaluations against the heuristic over steps and over wall time).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from carioca_experiments.common.argtypes import check_output_path
from carioca_experiments.common.files import write_file
from carioca_experiments.common.report import Report, pyplot
from carioca_experiments.training.imitate.config import ImitateConfig
from carioca_experiments.training.train import ALL_CONTRACTS, TrainConfig, TrainError, check_writable, train

if TYPE_CHECKING:
    from carioca_experiments.training.train_all import TrainAllConfig

#: The pipeline's defaults (chosen by the measurements in docs/results/2026-12-01-learned-set.md).
PIPELINE: dict[str, Any] = {
    "net_arch": (64, 64),
    # the discard piece lifted the imitated contract-6 agent (2 players, 100 fresh decks)
    # from +69.9 to +13.5 points per deal behind the heuristic, and the card head to level
    # with it; the advice piece (the heuristic's own verdicts) lifted the held-out
    # accuracy of the 2-player contract models from 0.84-0.94 to 0.94-0.98, and on 1,000
    # fresh decks their gap to the heuristic from +0.4..+4.5 (6 of 7 significant) to
    # -1.3..+2.0 (2 of 7) points per deal (see docs/results); advice_play (its next
    # opening meld, lay-off or swap) cut the contract-2 model's lay-off turns outside the
    # heuristic's choices from 10% to 0.9% and its openings from 13.5% to 8%
    "features": "advice_play",
    "card_head": True,
    # the advice prior took the contract-2 model's openings outside the heuristic's choices
    # from 8% to 0 and its gap on 1,000 fresh decks from +1.0* to -0.0 (paired -1.1*)
    "action_prior": True,
    "imitate": {"iterations": 4, "games": 1500, "heldout_games": 200, "epochs": 4},
    "ppo": {"steps": 800_000, "opponents": ("heuristic", "greedy"), "self_play": True, "self_play_prob": 0.3,
            "settings": {"kl_coef": 0.5, "kl_decay_steps": 200_000, "value_warmup_updates": 5,
                         "learning_rate": 3e-4, "ent_coef": 0.003},
            "eval_every": 100_000, "eval_decks": 30, "eval_opponents": ("heuristic", "greedy"),
            "checkpoint_every": 20_000, "snapshot_every": 50_000},
}
#: The stages ``--pipeline`` runs: imitation alone (minutes per model), or imitation then
#: fine-tuning (most of an hour more per model).
PIPELINES = ("imitate", "imitate+ppo")
#: Games per imitation iteration of the full-game model: a game has seven deals, so a
#: quarter of the games gives about twice the rows of a contract model (and the rows
#: of all iterations are held in memory while fitting: ~3.6 kB each with 2 players).
FULL_GAMES_SHARE = 0.25
#: ``--quick``: a smoke run in minutes.
QUICK: dict[str, Any] = {"imitate": {"iterations": 2, "games": 12, "heldout_games": 6, "epochs": 1},
                         "ppo": {"steps": 512, "eval_every": 0, "eval_decks": 1, "checkpoint_every": 256,
                                 "settings": {"rollout_steps": 256, "batch_size": 128, "n_epochs": 1}}}


def targets(contracts: tuple[int, ...], full: bool) -> list[str]:
    """``contract<K>`` for each contract, then ``full``."""
    return [f"contract{k}" for k in contracts] + (["full"] if full else [])


def _contract(target: str) -> int | str:
    return "full" if target == "full" else int(target.removeprefix("contract"))


def imitate_config(target: str, players: int, seed: int, quick: bool) -> ImitateConfig:
    """The imitation stage of one model."""
    im = dict(PIPELINE["imitate"])
    if quick:
        im.update(QUICK["imitate"])
    elif target == "full":
        im["games"] = max(1, int(im["games"] * FULL_GAMES_SHARE))
    return ImitateConfig(contract=_contract(target), players=players, net_arch=tuple(PIPELINE["net_arch"]),
                         features=PIPELINE["features"], card_head=bool(PIPELINE["card_head"]),
                         action_prior=bool(PIPELINE["action_prior"]), seed=seed, **im)


def ppo_config(target: str, players: int, seed: int, init: Path, quick: bool, eval_seed: int,
               luck_correction: bool = False) -> TrainConfig:
    """The fine-tuning stage of one model (``luck_correction``: its evaluations luck-corrected too)."""
    p = dict(PIPELINE["ppo"])
    settings = dict(p.pop("settings"))
    if quick:
        q = dict(QUICK["ppo"])
        settings.update(q.pop("settings"))
        p.update(q)
    decks = p.pop("eval_decks")
    if target == "full":  # evaluated on all seven contracts: about as many deals in all
        decks = max(1, decks // 3)
    steps = p.pop("steps") * (2 if target == "full" and not quick else 1)
    return TrainConfig(contract=_contract(target), players=players, seed=seed, init=str(init), steps=steps,
                       settings=settings, eval_decks=decks, eval_seed=eval_seed, tensorboard=False,
                       n_envs=8, luck_correction=luck_correction, **p)


def _ppo_command(cfg: TrainConfig, out: Path) -> str:
    sets = "".join(f" --set {k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in cfg.settings.items())
    return (f"carioca train --contract {cfg.contract} --players {cfg.players} --init {cfg.init} "
            f"--opponents {' '.join(cfg.opponents)}{' --self-play' if cfg.self_play else ''} "
            f"--self-play-prob {cfg.self_play_prob} --steps {cfg.steps} --seed {cfg.seed}{sets} "
            f"--eval-every {cfg.eval_every} --eval-decks {cfg.eval_decks} --eval-opponents "
            f"{' '.join(cfg.eval_opponents)} --eval-seed {cfg.eval_seed} --checkpoint-every {cfg.checkpoint_every} "
            f"--snapshot-every {cfg.snapshot_every} --no-tensorboard"
            f"{' --luck-correction' if cfg.luck_correction else ''} --out {out}")


def _imitate_command(c: ImitateConfig, out: Path) -> str:
    return (f"carioca imitate --contract {c.contract} --players {c.players} --teacher {c.teacher} --opponents "
            f"{' '.join(c.opponents)} --iterations {c.iterations} --games {c.games} --heldout-games "
            f"{c.heldout_games} --epochs {c.epochs} --net-arch {','.join(map(str, c.net_arch))} --features "
            f"{c.features}{' --card-head' if c.card_head else ''}{' --action-prior' if c.action_prior else ''} --seed {c.seed} --out {out}")


def _imitate_entry(card: dict[str, Any]) -> dict[str, Any]:
    """``pipeline.json``'s record of an imitation stage, from the model's card."""
    imitation = card.get("imitation") or {}
    return {"command": card.get("command"), "wall_time_s": card.get("wall_time_s"), "seed": card.get("seed"),
            "heldout_accuracy": imitation.get("heldout_accuracy"),
            "uniform_accuracy": imitation.get("uniform_accuracy"), "features": card.get("features", "base")}


def run_pipeline(args: TrainAllConfig, log: Any = None) -> Path:
    """Run (or resume) every model of the set; returns the output folder."""
    from carioca_experiments.training.imitate.pipeline import run_imitation

    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(args.out)
    check_writable(out)
    out.mkdir(parents=True, exist_ok=True)
    record_file = out / "pipeline.json"
    record: dict[str, Any] = json.loads(record_file.read_text()) if record_file.exists() else {"format": "carioca-learned-set",
                                                                                  "models": {}}
    progress = args.progress and sys.stderr.isatty()
    models = [(players, target) for players in args.players
              for target in targets(tuple(args.contracts), args.full)]
    # every imitation first (minutes each, and a model that plays), then every fine-tuning
    for players, target in models:
        key = f"p{players}/{target}"
        base = out / f"p{players}" / target
        entry = record["models"].setdefault(key, {"seed": args.seed})
        icfg = imitate_config(target, players, args.seed, args.quick)
        card_file = base / "imitate" / "model.json"
        session: dict[str, float] = {}
        if not card_file.exists():
            say(f"[learned-set] {key}: imitation -> {base / 'imitate'}")
            t = time.monotonic()
            run_imitation(icfg, base / "imitate", progress=progress,
                          command=_imitate_command(icfg, base / "imitate"), log=say)
            session = {"this_session_s": round(time.monotonic() - t, 1)}
        if session or "imitate" not in entry:
            # the card says how the model was made (here, or by its own `carioca imitate`)
            entry["imitate"] = {**_imitate_entry(json.loads(card_file.read_text())), **session}
            write_file(record_file, (json.dumps(record, indent=1) + "\n").encode())
    for players, target in models if args.pipeline == "imitate+ppo" else ():
        key = f"p{players}/{target}"
        base = out / f"p{players}" / target
        entry = record["models"][key]
        pcfg = ppo_config(target, players, args.seed, base / "imitate", args.quick, args.eval_seed,
                          args.luck_correction)
        card_file = base / "ppo" / "model.json"
        done = card_file.exists() and json.loads(card_file.read_text()).get("steps", -1) >= pcfg.steps
        if not done:
            say(f"[learned-set] {key}: fine-tuning {pcfg.steps} steps -> {base / 'ppo'}")
            res = train(TrainConfig(**{**pcfg.__dict__, "command": _ppo_command(pcfg, base / "ppo")}),
                        base / "ppo", progress=progress, log=say)
            entry["ppo"] = {"command": _ppo_command(pcfg, base / "ppo"), "wall_time_s": round(res.wall_time_s, 1),
                            "steps": res.num_timesteps, "seed": pcfg.seed,
                            "last_evaluation": [r for r in res.eval_rows if r["steps"] == res.num_timesteps]}
            entry["wall_time_s"] = round(entry["imitate"]["wall_time_s"] + res.wall_time_s, 1)
            write_file(record_file, (json.dumps(record, indent=1) + "\n").encode())
        say(f"[learned-set] {key}: done")
    return out


BASELINES = ("heuristic", "greedy", "random")


def _learned(out: Path, players: int, k: int) -> list[tuple[str, Path]]:
    """The finished models that play contract ``k``: imitation (``im_``) and fine-tuned (``ppo_``)."""
    found = []
    for tag, target in ((f"c{k}", f"contract{k}"), ("full", "full")):
        for prefix, stage in (("im", "imitate"), ("ppo", "ppo")):
            model = out / f"p{players}" / target / stage / "model.zip"
            if model.exists():
                found.append((f"{prefix}_{tag}", model))
    return found


def final_tournament(args: TrainAllConfig, log: Any = None) -> list[Path]:
    """The final duplicate tournaments, on ``--decks`` fresh decks per contract (seed ``--tournament-seed``).

    2 players: per contract, the contract's models and the full-game models (imitation
    ``im_`` and fine-tuned ``ppo_``, those that are finished), heuristic, greedy and
    random, every pair at both seats.  3-4 players: per contract, learned agent and
    baseline, one learned agent at a table of that baseline (``ppo_c3 b1 b2 b3``, every
    rotation), so each learned agent meets three heuristics, three greedies, three
    randoms.  Folders ``OUT/p<P>/final/c<K>[-<agent>-<baseline>]/``.  With
    ``luck_correction`` (``--luck-correction``) the summaries also hold the luck-corrected
    paired differences.
    """
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(args.out)
    written = []
    for players in args.players:
        for k in args.contracts:
            learned = _learned(out, players, k)
            if not learned:
                say(f"[learned-set] p{players} contract {k}: no finished model; skipped")
                continue
            if players == 2:
                tables = [(f"c{k}", [f"{lab}=ppo:{m}" for lab, m in learned] + list(BASELINES))]
            else:
                tables = [(f"c{k}-{lab}-{b}", [f"{lab}=ppo:{m}"] + [f"{b}{i}={b}" for i in range(1, players)])
                          for lab, m in learned for b in BASELINES]
            for name, agents in tables:
                tc = TournamentConfig(agents=tuple(agents), players=players, contracts=(k,), decks=args.decks or 100,
                                      seed=args.final_seed, max_turns=args.max_turns, luck=args.luck)
                d = out / f"p{players}" / "final" / name
                say(f"[learned-set] tournament p{players} {name}: {', '.join(agents)}")
                run_tournament(tc, d, workers=args.workers, progress=args.progress, log=say)
                written.append(d)
    return written


def paired_rows(results: Path | Sequence[Path], learned_labels: Sequence[str] | None = None,
                baselines: Sequence[str] = BASELINES) -> list[dict[str, Any]]:
    """Per learned agent and baseline of one tournament, the paired difference of mean penalty
    (learned minus baseline; several seats of one baseline, ``greedy1`` ``greedy2`` ..., count
    as their mean) over decks and contracts, from the tournament's ``results.jsonl``: each
    deck's mean over the deals where both sat.  The learned agents are the labels starting
    ``ppo_`` or ``im_``, or ``learned_labels``.

    ``results`` may be several results files of the same agents and player count (say,
    tournaments of two seeds): their decks are pooled, each file's decks distinct.  When
    every deal of them recorded its luck (``--luck-correction``, one value function), a
    row also holds the same difference of luck-corrected penalties (``corrected_diff``,
    ``corrected_low``, ``corrected_high``, ``corrected_significant``) and the value
    function's fingerprint (``luck``).

    Raises:
        ValueError: the files disagree on the player count or were corrected by different
            value functions.
    """
    tournaments = []
    for f in [results] if isinstance(results, Path) else results:
        lines = [json.loads(x) for x in Path(f).read_text().splitlines() if x.strip()]
        tournaments.append((lines[0], lines[1:]))
    return paired_rows_of(tournaments, learned_labels, baselines)


def paired_rows_of(tournaments: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]],
                   learned_labels: Sequence[str] | None = None,
                   baselines: Sequence[str] = BASELINES) -> list[dict[str, Any]]:
    """:func:`paired_rows` of tournaments already read: each a results file's header and
    its deal lines (a caller may leave some deals out, say the decks of an unfinished
    tournament); :func:`carioca_experiments.evaluation.tournament.summary.table_mate_rows` with
    the learned labels found.

    Raises:
        ValueError: as :func:`paired_rows`.
    """
    from carioca_experiments.evaluation.tournament.summary import table_mate_rows

    labels = [a.partition("=")[0] if "=" in a else a for h, _ in tournaments for a in h["config"]["agents"]]
    learned = list(learned_labels) if learned_labels is not None else [
        x for x in dict.fromkeys(labels) if x.startswith(("ppo_", "im_"))]
    return table_mate_rows(tournaments, learned, baselines)


def report(out: Path) -> str:
    """The markdown table of every final tournament in ``out`` (also written to ``OUT/final.md``),
    with the luck-corrected difference beside the raw one when the tournaments were
    played with ``--luck-correction``."""
    rows = []
    for f in sorted(out.glob("p*/final/*/results.jsonl")):
        rows += paired_rows(f)
    text = final_table(rows)
    files = Report(out)
    files.text("final.md", text)
    plot_curves(files)
    return text


def final_table(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown table of :func:`paired_rows` rows (the first row of each player count,
    contract, learned agent and baseline): raw, and luck-corrected when any row has it
    (``-`` in the rows of an uncorrected tournament), with the value functions named."""
    seen = set()
    fingerprints = sorted({r["luck"] for r in rows if r.get("luck")})
    corrected = bool(fingerprints)
    head = "| players | contract | learned | baseline | decks | learned - baseline | 95% CI | sig. |"
    rule = "|---|---|---|---|---|---|---|---|"
    if corrected:
        head += " luck-corrected | 95% CI | sig. |"
        rule += "---|---|---|"
    lines = [head, rule]
    order = {b: i for i, b in enumerate(BASELINES)}
    for r in sorted(rows, key=lambda r: (r["players"], r["contract"], r["agent"],
                                         order.get(r["baseline"], len(order)), r["baseline"])):
        key = (r["players"], r["contract"], r["agent"], r["baseline"])
        if key in seen:
            continue
        seen.add(key)
        line = (f"| {r['players']} | {r['contract']} | {r['agent']} | {r['baseline']} | {r['decks']} | "
                f"{r['diff']:+.1f} | [{r['low']:+.1f}, {r['high']:+.1f}] | {'*' if r['significant'] else ''} |")
        if corrected:
            line += (f" {r['corrected_diff']:+.1f} | [{r['corrected_low']:+.1f}, {r['corrected_high']:+.1f}] | "
                     f"{'*' if r['corrected_significant'] else ''} |" if "corrected_diff" in r else " - | - | |")
        lines.append(line)
    if corrected:
        lines += ["", "Luck-corrected: each penalty minus the luck of its stock draws, valued by the luck value "
                      f"function {', '.join(fingerprints)} (carioca tournament --luck-correction)."]
    return "\n".join(lines) + "\n"


def plot_curves(files: Report) -> Path | None:
    """``learning_curves.png`` in ``files``' folder: every fine-tuned model's evaluation against
    the heuristic (learned minus heuristic, penalty points per deal, 95% interval) over steps
    and over wall time."""
    out = files.folder
    from carioca_experiments.training.train import read_eval_csv

    curves = {}
    for f in sorted(out.glob("p*/*/ppo/eval.csv")):
        rows = [r for r in read_eval_csv(f) if r["opponent"] == "heuristic"]
        if rows:
            curves[f"{f.parts[-4]}/{f.parts[-3]}"] = rows
    if not curves:
        return None
    fig, axes = pyplot().subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for name, rows in curves.items():
        for ax, key, scale in ((axes[0], "steps", 1e3), (axes[1], "wall_time_s", 60.0)):
            xs = [r[key] / scale for r in rows]
            line, = ax.plot(xs, [r["diff_mean"] for r in rows], marker="o", ms=3, label=name)
            ax.fill_between(xs, [r["diff_ci_low"] for r in rows], [r["diff_ci_high"] for r in rows],
                            color=line.get_color(), alpha=0.15)
    for ax, label in ((axes[0], "steps (thousands)"), (axes[1], "wall time (min)")):
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("learned - heuristic, penalty per deal (95% CI)")
    axes[1].legend(fontsize=7, ncol=2)
    fig.suptitle("Fine-tuning from imitation: evaluation against the heuristic (below 0: learned better)")
    fig.tight_layout()
    return files.figure("learning_curves.png", fig, dpi=100)


def portable_text(text: str, out: Path, what: str) -> str:
    """``text`` with the folder holding ``out`` written as ``runs`` (``/work/runs/learned/p2``
    becomes ``runs/learned/p2``): a shipped card or summary says where a model came from in
    the project's terms, never in one machine's.

    Raises:
        TrainError: ``text`` still holds another absolute path (``what`` names the file).
    """
    for root in {out.resolve().parent, out.absolute().parent}:
        text = text.replace(f"{root}/", "runs/")
    absolute = re.search(r'(?<![\w.])/(?:[\w.,-]+/)+[\w.,-]*', text)
    if absolute:
        raise TrainError(f"{what} holds the absolute path {absolute.group(0)!r} outside {out.parent}; "
                         "fix it first")
    return text


#: What ``--export`` copies from a learned set: the final tables and tournament summaries,
#: the fine-tunings' learning curves, and every model card (a few hundred kB in all).
EXPORTED = ("final.md", "p*/final/*/summary.json", "p*/final/*/summary.md", "p*/final/*/pairs.csv",
            "p*/*/ppo/eval.csv", "p*/*/*/model.json", "p*/*/imitate/imitation.csv")


def export(out: Path, dest: Path) -> list[Path]:
    """Copy the summary files of the learned set ``out`` (:data:`EXPORTED`) to ``dest``,
    paths made portable (:func:`portable_text`): the files ``shipped-results/`` holds for
    ``notebooks/results.ipynb``.  Everything is checked before anything is written."""
    files = sorted({f for pattern in EXPORTED for f in out.glob(pattern) if f.is_file()})
    if not files:
        raise TrainError(f"--export: no results in {out} (run the pipeline and --final-tournament first)")
    texts = {f: portable_text(f.read_text(), out, f"--export: {f}") for f in files}
    written = []
    for f, text in texts.items():
        target = dest / f.relative_to(out)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, text.encode())
        written.append(target)
    return written


def ship(out: Path, spec: str) -> Path:
    """Copy the fine-tuned model ``T/P`` of ``out`` to ``agents/models/NAME`` (``spec`` is
    ``NAME=T/P``, e.g. ``contract3-p4=contract3/4``; ``NAME=T/P/imitate`` ships the
    imitation model instead, when the measurements say it plays better); the card's paths
    become relative, and the weights are stored in float16 (:mod:`carioca_agents.model_file`).

    Raises:
        TrainError: a malformed spec, a bad name, an unfinished model, a file that is no
            model, or a card holding an absolute path outside ``out`` (nothing is copied then).
    """
    from carioca_agents.model_file import STORED_DTYPE, compact_model_file, is_model_file
    from carioca_agents.ppo_agent import SHIPPED_DIR

    name, target, players, stage = parse_ship(spec)
    src = out / f"p{players}" / target / stage
    if not (src / "model.zip").exists():
        raise TrainError(f"--ship {spec!r}: no finished model at {src}")
    card = json.loads((src / "model.json").read_text())
    card["stored_weights"] = STORED_DTYPE  # how compact_model_file keeps the shipped weights
    text = portable_text(json.dumps(card, indent=1), out, f"--ship {spec!r}: the card of {src}")
    if not is_model_file(src / "model.zip"):
        raise TrainError(f"--ship {spec!r}: {src / 'model.zip'} is not a stable-baselines3 model file")
    dst = SHIPPED_DIR / name
    dst.mkdir(parents=True, exist_ok=True)
    compact_model_file(src / "model.zip", dst / "model.zip")
    write_file(dst / "model.json", (text + "\n").encode())
    for extra in ("eval.csv", "imitation.csv"):
        (dst / extra).unlink(missing_ok=True)
        if (src / extra).exists():
            shutil.copyfile(src / extra, dst / extra)
    return dst


def parse_ship(spec: str) -> tuple[str, str, int, str]:
    """``NAME=TARGET/PLAYERS[/imitate]`` -> ``(name, target, players, stage)`` (stage ``ppo``
    unless ``imitate``).

    Raises:
        TrainError: a malformed spec, a name a shipped model cannot have, or an unknown target.
    """
    from carioca_agents.ppo_agent import SHIPPED_NAME

    name, sep, where = spec.partition("=")
    target, _, rest = where.partition("/")
    players, _, stage = rest.partition("/")
    stage = stage or "ppo"
    known = target == "full" or target.removeprefix("contract") in tuple(map(str, ALL_CONTRACTS))
    if not sep or not SHIPPED_NAME.match(name) or players not in ("2", "3", "4") or stage not in ("ppo", "imitate") \
            or not known:
        raise TrainError(f"--ship {spec!r}: expected NAME=TARGET/PLAYERS[/imitate] with TARGET contract1..contract7 "
                         f"or full and PLAYERS 2-4, e.g. contract3-p4=contract3/4")
    return name, target, int(players), stage


def check(args: TrainAllConfig) -> None:
    """Refuse bad pipeline options before anything runs: the numbers, the output folders,
    and every ``--ship`` (well formed, and a model this run makes or the folder holds)."""
    bad = [p for p in args.players if p not in (2, 3, 4)]
    if bad or not args.players:
        raise TrainError(f"--players must be among 2, 3, 4, got {list(args.players)!r}")
    if args.pipeline not in PIPELINES:
        raise TrainError(f"--pipeline must be one of {', '.join(PIPELINES)}, got {args.pipeline!r}")
    if any(k not in ALL_CONTRACTS for k in args.contracts):
        raise TrainError(f"--contracts must be among 1..7, got {list(args.contracts)!r}")
    out = Path(args.out)
    made = {(p, t) for p in args.players for t in targets(tuple(args.contracts), args.full)}
    for spec in args.ship:
        _, target, players, stage = parse_ship(spec)
        if (stage == "ppo" and args.pipeline != "imitate+ppo") or (players, target) not in made:
            if not (out / f"p{players}" / target / stage / "model.zip").is_file():
                raise TrainError(f"--ship {spec!r}: this run does not make p{players}/{target}/{stage} (--pipeline "
                                 f"{args.pipeline}, --players {' '.join(map(str, args.players))}, --contracts "
                                 f"{' '.join(map(str, args.contracts))}) and {out} holds no such model")
    check_writable(out)
    if args.export is not None:
        try:
            check_output_path(Path(args.export), "--export", "folder")
        except OSError as exc:
            raise TrainError(str(exc)) from None
