"""A resumable rollout-advantage run: data, epochs, the best model and its card.

``run_improvement(config, out)`` writes in ``out``:

- ``data/``: the labelled rows of the teacher's games (:mod:`carioca_experiments.studies.improve.data`),
  training and held-out;
- ``learner/epoch<e>.zip``: the policy after epoch ``e`` (full MaskablePPO state);
- ``advantages.csv``: the teacher's distance from one-step optimal on the training data,
  the mean advantage of each alternative per kind of decision
  (:mod:`carioca_experiments.studies.improve.report`);
- ``improve.csv``: per epoch (epoch 0 is the starting model), the losses and the
  held-out measures of :func:`carioca_experiments.studies.improve.learn.captured`;
- ``model.zip``, ``model.json``: the epoch with the highest held-out gain (the starting
  model if none beats it) and its card;
- ``strength/``: with ``strength_decks``, a duplicate tournament of the model against
  the teacher on fresh decks.

Each stage is skipped when its output exists, so rerunning the same command resumes it.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from carioca_experiments.common.progress import progress_bar
from carioca_experiments.common.seeds import IMPROVE, derive_seed
from carioca_experiments.studies.improve.config import ImproveConfig, ImproveError
from carioca_experiments.studies.improve.data import AdvantageFolder, generate
from carioca_experiments.studies.improve.learn import captured, fit_epoch
from carioca_experiments.studies.improve.report import advantage_table, format_advantage_table

CURVE_COLUMNS = ("epoch", "train_rows", "valued_rows", "pair_loss", "anchor_loss", "heldout_rows", "gain",
                 "gain_ci_low", "gain_ci_high", "gain_per_seat_deal", "deviations", "outside", "best", "agreement",
                 "wall_time_s")


def _read_curve(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return [{k: (int(v) if k == "epoch" else float(v)) for k, v in r.items()} for r in csv.DictReader(fh)]


def _write_curve(path: Path, rows: list[dict[str, Any]]) -> None:
    _write_rows(path, sorted(rows, key=lambda r: r["epoch"]), CURVE_COLUMNS)


def _write_rows(path: Path, rows: list[dict[str, Any]], columns: tuple[str, ...] | None = None) -> None:
    """``rows`` as a CSV file (floats to 5 decimals), written atomically."""
    from carioca_experiments.common.files import write_file
    from carioca_experiments.common.report import csv_text

    write_file(path, csv_text(columns or list(rows[0] if rows else ()), rows, digits=5, blank_nan=False))


def load_start(init: str) -> tuple[Any, dict[str, Any], Path]:
    """The starting model (a fresh copy, never the agents' shared cache), its card and file.

    Raises:
        ImproveError: no such model, or a model whose card does not fit this code.
    """
    from carioca_agents.ppo_agent import ModelLoadError, check_card, read_card, resolve_model_path

    try:
        path = resolve_model_path(init)
        if not path.is_file():
            raise ModelLoadError(f"no model file at {path} (give a shipped name such as contract3, "
                                 f"a model .zip or its folder)")
        card = read_card(path)
        check_card(card, str(path))
    except ModelLoadError as exc:
        raise ImproveError(f"--init: {exc}") from None
    return load_model_file(path), card, path


#: what ``--overwrite`` deletes in the run folder
RUN_FILES = ("data", "learner", "strength", "improve.csv", "advantages.csv", "state.json", "model.zip", "model.json")


def _check_agents(config: ImproveConfig, players: int) -> None:
    """The teacher must build and rank its discards (the candidates come from its
    ranking); every opponent must build; both for ``players`` seats.

    Raises:
        ImproveError: one does not.
    """
    from carioca_experiments.common.argtypes import check_agent_specs

    teacher = check_agent_specs("--teacher", [config.teacher], players, ImproveError)[0]
    check_agent_specs("--opponents", config.opponents, players, ImproveError)
    if not callable(getattr(teacher, "ranked_discards", None)):
        raise ImproveError(f"--teacher {config.teacher}: the candidates are the teacher's next-best discards, and "
                           f"{type(teacher).__name__} does not rank them (it has no ranked_discards); "
                           f"use an agent that does, such as heuristic")


def load_model_file(path: Path) -> Any:
    """A fresh MaskablePPO from ``path`` (its own copy, with its optimizer state; the global
    random generators are left as they were)."""
    from carioca_agents.model_file import load_maskable
    from carioca_agents.ppo_agent import _rng_preserved

    with _rng_preserved():
        return load_maskable(path)


def run_improvement(config: ImproveConfig, out: str | Path, workers: int = 1, progress: bool = True,
                    command: str = "", strength_decks: int = 0, strength_seed: int = 7,
                    log: Callable[[str], None] | None = None, overwrite: bool = False,
                    strength_luck: bool = False) -> dict[str, Any]:
    """Run (or resume) a rollout-advantage run into ``out``; returns the model card.

    ``strength_luck`` makes the strength tournament (``strength_decks > 0``) also report
    the luck-corrected difference
    (:func:`carioca_experiments.training.imitate.pipeline.strength_against`).

    ``overwrite`` deletes the run's files in ``out`` first, once everything has been
    checked (:data:`RUN_FILES`).

    Raises:
        ImproveError: a bad starting model, an unwritable folder, or a folder of another run.
    """
    import torch

    from carioca_agents.ppo_agent import card_features, env_layout, model_card
    from carioca_agents.threads import limit_torch_threads
    from carioca_experiments.training.imitate.dataset import DatasetError
    from carioca_experiments.training.imitate.pipeline import luck_problem, strength_against
    from carioca_experiments.training.train import check_writable, package_versions, save_model
    from carioca_experiments.training.train.files import RunClock, remove_run_files

    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(out)
    model, start_card, start_path = load_start(config.init)
    players, features = int(start_card["num_players"]), card_features(start_card)
    if start_card.get("deals") not in (None, [config.contract], list(range(1, 8))):
        raise ImproveError(f"--init {config.init} was trained on deals {start_card.get('deals')}, "
                           f"not on contract {config.contract}: give that contract's model or a full-game one")
    _check_agents(config, players)
    problem = luck_problem(players, (config.contract,)) if strength_decks > 0 and strength_luck else None
    if problem:
        raise ImproveError(problem)
    check_writable(out)
    threads = limit_torch_threads()  # small networks: one thread by default (carioca_agents.threads); checked first
    if overwrite:  # only now: a refused command must not lose the finished run
        remove_run_files(out, RUN_FILES)
    try:
        layout = env_layout(players, features)
        try:
            folder = AdvantageFolder(out / "data", {**config.data_meta(), **layout, "init": config.init})
        except DatasetError as exc:
            raise ImproveError(str(exc)) from None
        wall = RunClock(out / "state.json")

        generate(config, folder, "heldout", features, players, workers, progress)
        generate(config, folder, "train", features, players, workers, progress)
        wall.save()
        heldout, train = folder.load("heldout"), folder.load("train")
        num_actions = layout["action_size"]
        n = len(train["action"])
        valued = int(((train["cand"] >= 0).sum(1) > 1).sum())
        if not (out / "advantages.csv").exists():
            table = advantage_table(train, players)
            _write_rows(out / "advantages.csv", table)
            say("[improve] the teacher's alternatives on the training decisions (rollout advantage, points):\n"
                + format_advantage_table(table))
        curve = _read_curve(out / "improve.csv")
        if not any(r["epoch"] == 0 for r in curve):
            curve.append({"epoch": 0, "train_rows": n, "valued_rows": valued, "pair_loss": float("nan"),
                          "anchor_loss": float("nan"), **_measures(captured(model.policy, heldout, num_actions)),
                          "wall_time_s": round(wall(), 1)})
            _write_curve(out / "improve.csv", curve)
        done = [e for e in range(1, config.epochs + 1) if (out / "learner" / f"epoch{e}.zip").exists()]
        last = max(done, default=0)
        if last:  # resume after the last finished epoch
            model = load_model_file(out / "learner" / f"epoch{last}.zip")
        for e in range(last + 1, config.epochs + 1):
            ckpt = out / "learner" / f"epoch{e}.zip"
            bar = progress_bar(total=n, unit="row", desc=f"fit epoch {e}", enabled=progress, file=sys.stderr)
            losses = fit_epoch(model.policy, train, num_actions, config.batch_size, config.learning_rate,
                               config.anchor, config.adv_scale,
                               np.random.default_rng(derive_seed(IMPROVE, config.seed, "batches", e)), bar.update)
            bar.close()
            save_model(model, ckpt)
            m = _measures(captured(model.policy, heldout, num_actions))
            curve = [r for r in curve if r["epoch"] != e] + [{"epoch": e, "train_rows": n, "valued_rows": valued,
                                                              **losses, **m, "wall_time_s": round(wall(), 1)}]
            _write_curve(out / "improve.csv", curve)
            wall.save()
            say(f"[improve] epoch {e}: held-out gain {m['gain']:+.3f} [{m['gain_ci_low']:+.3f}, "
                f"{m['gain_ci_high']:+.3f}] points per decision, {m['gain_per_seat_deal']:+.2f} per seat and deal; "
                f"leaves the teacher at {m['deviations']:.1%} of valued decisions; {wall() / 60:.1f} min")
        final, card_file = out / "model.zip", out / "model.json"
        if final.exists() and card_file.exists():
            card = json.loads(card_file.read_text())
        else:
            best = max(curve, key=lambda r: (r["gain"], -r["epoch"]))
            chosen = start_path if best["epoch"] == 0 else out / "learner" / f"epoch{best['epoch']}.zip"
            best_model = load_model_file(chosen)
            card = model_card(
                players, features=features, contract=config.contract, deals=[config.contract], steps=0,
                seed=config.seed, command=command or f"carioca_experiments.studies.improve.pipeline.run_improvement({config.to_json()})",
                trained_by="rollout-advantage", teacher=config.teacher,
                opponents=list(config.opponents) or [config.teacher],
                settings=start_card.get("settings", {}),
                improvement={**config.to_json(), "data": "data", "curve": "improve.csv", "chosen_epoch": best["epoch"],
                             "start": {k: curve[0][k] for k in ("gain", "deviations")},
                             "heldout": {k: best[k] for k in CURVE_COLUMNS if k not in ("epoch", "wall_time_s")},
                             "start_card": {k: start_card.get(k) for k in ("trained_by", "command", "imitation")
                                            if k in start_card}},
                wall_time_s=round(wall(), 1), versions=package_versions(),
                created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            )
            save_model(best_model, final, card, slim=True)
            say(f"[improve] chose epoch {best['epoch']} (held-out gain {best['gain']:+.3f} per decision)")
        if strength_decks > 0 and "strength" not in card:
            card["strength"] = strength_against(final, config.teacher, players, (config.contract,), config.max_turns,
                                                strength_decks, strength_seed, out / "strength", workers,
                                                strength_luck)
            card["wall_time_s"] = round(wall(), 1)
            from carioca_experiments.common.files import write_file

            write_file(card_file, (json.dumps(card, indent=1) + "\n").encode())
        return card
    finally:
        torch.set_num_threads(threads)


def _measures(m: dict[str, float]) -> dict[str, Any]:
    return {"heldout_rows": int(m["rows"]), **{k: v for k, v in m.items() if k != "rows"}}
