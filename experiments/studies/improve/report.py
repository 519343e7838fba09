"""How far the teacher is from one-step optimal: the mean advantage of each alternative.

For every kind of valued decision (drawing from the stock, taking the discard,
discarding) and every rank of alternative (the teacher's second choice, third, ...),
the mean rollout advantage of playing that alternative instead of the teacher's move,
with a 95% interval clustered by (game, seat) (rows of one seat's deal are not
independent), and the share of rows where the alternative came out ahead.  A teacher
that is one-step optimal against its own continuation has every mean at or below 0;
a mean above 0 is a kind of decision where deviating pays on average, which is the
most a one-step improvement can hope to learn from.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from carioca_env.actions import action_table
from carioca_experiments.common.tables import text_table


def _clustered_mean(values: np.ndarray, groups: np.ndarray) -> tuple[float, float]:
    """Mean of ``values`` and the half-width of its 95% interval over ``groups`` (a ratio
    estimator: each group's sum against its count)."""
    mean = float(values.mean())
    _, inverse = np.unique(groups, return_inverse=True)
    sums = np.bincount(inverse, weights=values)
    counts = np.bincount(inverse)
    g = len(sums)
    if g < 2:
        return mean, math.nan
    resid = sums - mean * counts
    se = math.sqrt(g / (g - 1) * float((resid ** 2).sum())) / len(values)
    return mean, 1.96 * se


def advantage_table(data: dict[str, np.ndarray], players: int) -> list[dict[str, Any]]:
    """One row per (kind of the teacher's move, alternative rank) with at least one valued
    decision: ``kind``, ``alternative`` (1 = the teacher's second choice), ``n``,
    ``mean`` and ``half`` (the 95% half-width) in penalty points, and ``share_ahead``."""
    table = action_table(players)
    cand, adv = data["cand"], data["adv"]
    valued = np.flatnonzero((cand >= 0).sum(1) > 1)
    kinds = np.array([table.to_move(int(cand[i, 0]), int(data["seat"][i])).kind.name for i in valued])
    groups = data["game"].astype(np.int64) * 8 + data["seat"]
    out = []
    for kind in sorted(set(kinds.tolist())):
        rows = valued[kinds == kind]
        for j in range(1, cand.shape[1]):
            sel = rows[cand[rows, j] >= 0]
            if not len(sel):
                continue
            a = adv[sel, j].astype(np.float64)
            mean, half = _clustered_mean(a, groups[sel])
            out.append({"kind": kind, "alternative": j, "n": int(len(sel)), "mean": mean, "half": half,
                        "share_ahead": float((a > 0).mean())})
    return out


def format_advantage_table(rows: list[dict[str, Any]]) -> str:
    """The table of :func:`advantage_table` for the terminal."""
    head = ["teacher's move", "alternative", "decisions", "mean advantage", "95% interval", "ahead"]
    body = [[r["kind"].lower().replace("_", " "), str(r["alternative"]), f"{r['n']:,}", f"{r['mean']:+.2f}",
             f"[{r['mean'] - r['half']:+.2f}, {r['mean'] + r['half']:+.2f}]", f"{r['share_ahead']:.0%}"]
            for r in rows]
    return text_table(head, body)
