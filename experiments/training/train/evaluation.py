"""The learning curve: duplicate tournaments of the current model against each evaluation opponent, and ``eval.csv``."""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from carioca_experiments.common.files import write_file
from carioca_experiments.common.report import csv_text
from carioca_experiments.training.train.config import TrainConfig

EVAL_COLUMNS = (
    "steps", "opponent", "contracts", "decks", "deals",
    "learner_mean", "learner_ci_low", "learner_ci_high",
    "opponent_mean", "opponent_ci_low", "opponent_ci_high",
    "diff_mean", "diff_ci_low", "diff_ci_high",
    "learner_open_rate", "learner_win_rate", "truncated", "wall_time_s",
    # with --luck-correction: the same paired difference with each penalty minus the luck
    # of its stock draws, and the value function's fingerprint (blank without it)
    "corrected_diff_mean", "corrected_diff_ci_low", "corrected_diff_ci_high", "luck",
)


def _label(spec: str) -> str:
    lab = re.sub(r"[^A-Za-z0-9_.+-]+", "_", spec).strip("_") or "opponent"
    return "opp_" + lab if lab == "learner" else lab


def evaluate(model_path: str | Path, config: TrainConfig, steps: int, workdir: str | Path,
             wall_time: float = 0.0, luck: str | None = None) -> list[dict[str, Any]]:
    """Duplicate tournaments of ``ppo:model_path`` against each evaluation opponent (one row each).

    With ``luck`` (a luck value function's fingerprint, ``--luck-correction``) each
    tournament also records every deal's luck, and each row holds the luck-corrected
    difference and interval (``corrected_diff_*``) and the fingerprint (``luck``).
    """
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    rows = []
    max_turns = config.eval_max_turns or config.merged_settings["max_turns"]
    contracts = config.eval_contracts
    for opp in config.eval_opponents:
        lab = _label(opp)
        tc = TournamentConfig(agents=(f"learner=ppo:{model_path}", f"{lab}={opp}"), players=config.players,
                              contracts=contracts, decks=config.eval_decks, seed=config.eval_seed,
                              max_turns=max_turns, luck=luck)
        summary = run_tournament(tc, Path(workdir) / f"vs-{lab}", workers=1, progress=False, overwrite=True,
                                 write_summary=False, log=lambda m: None)
        me, them = summary.agent("learner"), summary.agent(lab)
        pair = summary.pair("learner", lab)
        row = {
            "steps": steps, "opponent": opp, "contracts": " ".join(map(str, contracts)),
            "decks": config.eval_decks, "deals": summary.deals_played,
            "learner_mean": me.mean_penalty, "learner_ci_low": me.ci_low, "learner_ci_high": me.ci_high,
            "opponent_mean": them.mean_penalty, "opponent_ci_low": them.ci_low, "opponent_ci_high": them.ci_high,
            "diff_mean": pair.mean_diff, "diff_ci_low": pair.ci_low, "diff_ci_high": pair.ci_high,
            "learner_open_rate": me.open_rate, "learner_win_rate": me.win_rate,
            "truncated": summary.truncated, "wall_time_s": round(wall_time, 1),
        }
        if luck is not None:
            row.update(corrected_diff_mean=pair.corrected_diff, corrected_diff_ci_low=pair.corrected_low,
                       corrected_diff_ci_high=pair.corrected_high, luck=luck)
        rows.append(row)
    return rows


def read_eval_csv(path: str | Path) -> list[dict[str, Any]]:
    """Rows of an ``eval.csv`` (numbers as floats/ints)."""
    p = Path(path)
    if not p.exists():
        return []
    rows = []
    with open(p, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            row: dict[str, Any] = {}
            for k, v in r.items():
                if k in ("opponent", "contracts"):
                    row[k] = v
                elif k == "luck":  # blank: the evaluation was not luck-corrected
                    row[k] = v or None
                elif k in ("steps", "decks", "deals", "truncated"):
                    row[k] = int(float(v)) if v not in ("", None) else 0
                else:
                    row[k] = float(v) if v not in ("", None) else math.nan
            rows.append(row)
    return rows


def write_eval_csv(path: str | Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write the learning curve (atomically)."""
    write_file(path, csv_text(EVAL_COLUMNS, rows, digits=3))


def _eval_text(rows: Sequence[dict[str, Any]]) -> str:
    """The progress bar's evaluation: learner/opponent mean per opponent, and the
    luck-corrected difference when there is one."""
    return " ".join(f"{_label(r['opponent'])}:{r['learner_mean']:.1f}/{r['opponent_mean']:.1f}"
                    + (f" (corrected {r['corrected_diff_mean']:+.1f})" if has_corrected(r) else "") for r in rows)


def has_corrected(row: dict[str, Any]) -> bool:
    """Whether an evaluation row holds a luck-corrected difference (``--luck-correction``)."""
    x = row.get("corrected_diff_mean")
    return isinstance(x, float) and not math.isnan(x)
