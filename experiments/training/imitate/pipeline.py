"""A resumable imitation run: held-out data, DAgger iterations, the model and its card.

``run_imitation(config, out)`` writes in ``out``:

- ``data/``: the labelled states (:mod:`carioca_experiments.training.imitate.dataset`);
- ``learner/iter<i>.zip``: the learner after iteration i (full MaskablePPO state);
- ``imitation.csv``: per iteration, rows, beta, losses, held-out accuracy;
- ``strength/``: the duplicate tournament of the model against its teacher;
- ``model.zip``, ``model.json``: the final model (no optimizer state) and its card.

Each stage is skipped when its output exists, so rerunning the same command after an
interruption resumes at the first unfinished shard or iteration (a killed shard is
replayed from its first game: its games are seeded, so the same rows come out).
Iteration ``i`` trains the learner of iteration ``i - 1`` for ``epochs`` passes over the
data of iterations ``0..i`` (DAgger's aggregation), then measures it on the held-out
decks.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carioca_experiments.common.progress import progress_bar
from carioca_experiments.common.seeds import IMITATE, derive_seed
from carioca_experiments.training.imitate.config import ImitateConfig, ImitateError
from carioca_experiments.training.imitate.dataset import DataFolder, DatasetError, Rows
from carioca_experiments.training.imitate.learn import accuracy, build_model, fit, learner_policy, load_init
from carioca_experiments.training.imitate.rollout import play_game

CURVE_COLUMNS = ("iteration", "beta", "train_rows", "learner_rows", "policy_loss", "value_loss",
                 "heldout_rows", "heldout_accuracy", "uniform_accuracy", "choice_accuracy", "heldout_cross_entropy",
                 "value_explained_variance", "wall_time_s")


#: what ``--overwrite`` deletes in the run folder
RUN_FILES = ("data", "learner", "strength", "imitation.csv", "state.json", "model.zip", "model.json")


def _build_agents(config: ImitateConfig) -> tuple[Any, list[Any]]:
    from carioca_experiments.common.argtypes import check_agent_specs

    teacher = check_agent_specs("--teacher", [config.teacher], config.players, ImitateError)[0]
    return teacher, check_agent_specs("--opponents", config.opponents, config.players, ImitateError)


def _generate(config: ImitateConfig, folder: DataFolder, split: str, iteration: int, games: int, beta: float,
              teacher: Any, opponents: list[Any], learner: Any, progress: bool) -> None:
    """Play the unfinished shards of ``split``/``iteration`` into ``folder`` (a progress bar per block)."""
    shards = range(0, games, config.shard_games)
    todo = [k for k in shards if not folder.has(f"{split}-i{iteration}-{k // config.shard_games}.npz")]
    if not todo:
        return
    bar = progress_bar(total=games, initial=games - sum(min(config.shard_games, games - k) for k in todo),
                       unit="game", desc=f"{split} i{iteration} beta={beta:.2f}", enabled=progress, file=sys.stderr)
    for k in todo:
        rows = Rows()
        truncated = learner_moves = 0
        for g in range(k, min(k + config.shard_games, games)):
            info = play_game(config, split, iteration, g, beta, teacher, opponents, learner, rows)
            truncated += info["truncated"]
            learner_moves += info["learner_moves"]
            bar.update(1)
        folder.write(f"{split}-i{iteration}-{k // config.shard_games}.npz", rows, split=split, iteration=iteration,
                     games=[k, min(k + config.shard_games, games)], beta=beta, truncated=truncated,
                     learner_decisions=learner_moves)
    bar.close()


def _read_curve(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return [{k: (float(v) if k not in ("iteration",) else int(v)) for k, v in r.items()} for r in csv.DictReader(fh)]


def _write_curve(path: Path, rows: list[dict[str, Any]]) -> None:
    from carioca_experiments.common.files import write_file
    from carioca_experiments.common.report import csv_text

    write_file(path, csv_text(CURVE_COLUMNS, rows, digits=5, blank_nan=False))


def strength(model_path: Path, config: ImitateConfig, decks: int, seed: int, out: Path,
             workers: int = 1, luck: bool = False) -> dict[str, Any]:
    """Duplicate tournament of ``ppo:model_path`` against the teacher on the run's contracts
    (``decks`` per contract, tournament ``seed``): means, paired difference and its 95% interval."""
    return strength_against(model_path, config.teacher, config.players, config.deals, config.max_turns, decks,
                            seed, out, workers, luck)


def luck_problem(players: int, contracts: tuple[int, ...]) -> str | None:
    """Why a luck-corrected strength tournament cannot be played at this player count and
    on these contracts (the shipped value function has no model), or ``None``."""
    from carioca_experiments.evaluation.luck import ValueFileError, shipped_value

    try:
        for k in contracts:
            shipped_value().model(players, k)
    except ValueFileError as exc:
        return f"--luck-correction: {exc}"
    return None


def strength_against(model_path: Path, opponent: str, players: int, contracts: tuple[int, ...], max_turns: int,
                     decks: int, seed: int, out: Path, workers: int = 1, luck: bool = False) -> dict[str, Any]:
    """Duplicate tournament of ``ppo:model_path`` against ``opponent`` on ``contracts``
    (``decks`` per contract, tournament ``seed``): means, paired difference and its 95%
    interval (negative: the model pays less).  With ``luck`` (``--luck-correction``) it
    also holds the luck-corrected difference and interval (``corrected_*``) and the value
    function's fingerprint (``luck``)."""
    from carioca_experiments.evaluation.luck import shipped_value
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    tc = TournamentConfig(agents=(f"imitated=ppo:{model_path}", f"teacher={opponent}"), players=players,
                          contracts=contracts, decks=decks, seed=seed, max_turns=max_turns,
                          luck=shipped_value().fingerprint if luck else None)
    summary = run_tournament(tc, out, workers=workers, progress=False, overwrite=True, write_summary=True,
                             log=lambda m: None)
    me, them = summary.agent("imitated"), summary.agent("teacher")
    pair = summary.pair("imitated", "teacher")
    result = {"opponent": opponent, "contracts": list(contracts), "decks": decks, "tournament_seed": seed,
              "deals": summary.deals_played, "imitated_mean": me.mean_penalty, "teacher_mean": them.mean_penalty,
              "diff_mean": pair.mean_diff, "diff_ci_low": pair.ci_low, "diff_ci_high": pair.ci_high}
    if luck:
        result.update({"luck": tc.luck, "corrected_diff_mean": pair.corrected_diff,
                       "corrected_ci_low": pair.corrected_low, "corrected_ci_high": pair.corrected_high})
    return result


def strength_line(s: dict[str, Any]) -> str:
    """One line of a strength result for the command line (with the corrected difference when there is one)."""
    line = (f"vs {s['opponent']} ({s['decks']} decks per contract, {s['deals']} deals): imitated "
            f"{s['imitated_mean']:.1f}, teacher {s['teacher_mean']:.1f}, diff {s['diff_mean']:+.1f} "
            f"[{s['diff_ci_low']:+.1f}, {s['diff_ci_high']:+.1f}]")
    if "corrected_diff_mean" in s:
        line += (f", luck-corrected {s['corrected_diff_mean']:+.1f} "
                 f"[{s['corrected_ci_low']:+.1f}, {s['corrected_ci_high']:+.1f}]")
    return line


def run_imitation(config: ImitateConfig, out: str | Path, progress: bool = True, command: str = "",
                  strength_decks: int = 0, strength_seed: int = 7, workers: int = 1,
                  log: Callable[[str], None] | None = None, overwrite: bool = False,
                  strength_luck: bool = False) -> dict[str, Any]:
    """Run (or resume) an imitation run into ``out``; returns the model card.

    ``strength_decks > 0`` also plays the model against its teacher on that many fresh
    decks per contract (tournament seed ``strength_seed``; tournament decks come from
    another seed namespace than the imitation games), with ``strength_luck`` also
    luck-corrected (:func:`strength_against`).  ``overwrite`` deletes the run's
    files in ``out`` first, once everything has been checked (:data:`RUN_FILES`).

    Raises:
        ImitateError: a bad agent spec, an unwritable folder, or a folder of another run.
    """
    import torch

    from carioca_agents.model_file import load_maskable
    from carioca_agents.ppo_agent import _rng_preserved, env_layout, model_card
    from carioca_agents.threads import limit_torch_threads
    from carioca_experiments.training.train import check_writable, package_versions, save_model
    from carioca_experiments.training.train.files import RunClock, remove_run_files

    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(out)
    teacher, opponents = _build_agents(config)
    init = load_init(config)  # checked before anything is written
    problem = luck_problem(config.players, config.deals) if strength_decks > 0 and strength_luck else None
    if problem:
        raise ImitateError(problem)
    check_writable(out)
    threads = limit_torch_threads()  # small networks: one thread by default (carioca_agents.threads); checked first
    if overwrite:  # only now: a refused command must not lose the finished run
        remove_run_files(out, RUN_FILES)
    try:
        try:
            folder = DataFolder(out / "data", {**config.data_meta(), **env_layout(config.players, config.features)})
        except DatasetError as exc:
            raise ImitateError(str(exc)) from None
        wall = RunClock(out / "state.json")

        num_actions = env_layout(config.players, config.features)["action_size"]
        _generate(config, folder, "heldout", 0, config.heldout_games, 1.0, teacher, opponents, None, progress)
        heldout = folder.load("heldout")
        curve = _read_curve(out / "imitation.csv")
        model = None
        for i in range(config.iterations):
            ckpt = out / "learner" / f"iter{i}.zip"
            if ckpt.exists():
                continue
            if model is None:
                if i == 0:
                    model = build_model(config)
                    if init is not None:
                        model.policy.load_state_dict(init.policy.state_dict())
                else:
                    with _rng_preserved():
                        model = load_maskable(out / "learner" / f"iter{i - 1}.zip")
            beta = config.beta(i)
            learner = None if i == 0 else learner_policy(model, config.learner_sample)
            _generate(config, folder, "train", i, config.games, beta, teacher, opponents, learner, progress)
            data = folder.load("train", iterations=range(i + 1))
            n = len(data["action"])
            bar = progress_bar(total=n * config.epochs, unit="row", desc=f"fit i{i}", enabled=progress,
                               file=sys.stderr)
            losses = fit(model, data, config, num_actions, derive_seed(IMITATE, config.seed, "fit", i), bar.update)
            bar.close()
            acc = accuracy(model, heldout, num_actions)
            save_model(model, ckpt)
            row = {"iteration": i, "beta": beta, "train_rows": n, "learner_rows": int(data["by_learner"].sum()),
                   **losses, "heldout_rows": acc["rows"], "heldout_accuracy": acc["accuracy"],
                   "uniform_accuracy": acc["uniform_accuracy"], "choice_accuracy": acc["choice_accuracy"],
                   "heldout_cross_entropy": acc["cross_entropy"],
                   "value_explained_variance": acc["value_explained_variance"], "wall_time_s": round(wall(), 1)}
            curve = [r for r in curve if r["iteration"] != i] + [row]
            _write_curve(out / "imitation.csv", curve)
            wall.save()
            say(f"[imitate] iteration {i}: beta {beta:.2f}, {n} rows, held-out accuracy {acc['accuracy']:.3f} "
                f"(uniform {acc['uniform_accuracy']:.3f}; {acc['choice_accuracy']:.3f} where there is a choice), "
                f"{wall() / 60:.1f} min")
        final = out / "model.zip"
        card_file = out / "model.json"
        if final.exists() and card_file.exists():
            card = json.loads(card_file.read_text())
        else:
            if model is None:
                with _rng_preserved():
                    model = load_maskable(out / "learner" / f"iter{config.iterations - 1}.zip")
            last = curve[-1] if curve else {}
            card = model_card(
                config.players, features=config.features, contract=config.contract, deals=list(config.deals), steps=0,
                seed=config.seed, command=command or f"carioca_experiments.training.imitate.pipeline.run_imitation({config.to_json()})",
                trained_by="imitation", teacher=config.teacher, opponents=list(config.opponents),
                settings=config.network_settings(),
                imitation={**config.to_json(), "data": "data", "curve": "imitation.csv",
                           "heldout_accuracy": last.get("heldout_accuracy"),
                           "uniform_accuracy": last.get("uniform_accuracy"),
                           "choice_accuracy": last.get("choice_accuracy"),
                           "train_rows": last.get("train_rows"), "heldout_rows": last.get("heldout_rows")},
                wall_time_s=round(wall(), 1), versions=package_versions(),
                created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            )
            save_model(model, final, card, slim=True)
        if strength_decks > 0 and "strength" not in card:
            card["strength"] = strength(final, config, strength_decks, strength_seed, out / "strength", workers,
                                        strength_luck)
            card["wall_time_s"] = round(wall(), 1)
            from carioca_experiments.common.files import write_file

            write_file(card_file, (json.dumps(card, indent=1) + "\n").encode())
        return card
    finally:
        torch.set_num_threads(threads)
