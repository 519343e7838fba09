"""A tournament summary with deals cancelled for an empty stock (R13, docs/rules.md).

The engine deals a cancelled deal again (same contract, same dealer), and the tournament
records the deal once: the penalties of the attempt that was played out, and in
``cancelled`` how many attempts were void before it (:mod:`carioca_experiments.evaluation.tournament.play`).
The summary must count those redeals, per deal played and per agent at the table, and
otherwise treat the deal like any other: one observation per seat, in its deck's unit of
the paired differences, with the penalties it recorded (never the void attempt's zeros).

R13's cancel cannot be reached through legal play (tests/test_rulings.py), so the results
file is written here, line by line, in the format the tournament writes.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from carioca_experiments.evaluation.tournament.config import TournamentConfig, lineups
from carioca_experiments.evaluation.tournament.results import FORMAT_NAME, FORMAT_VERSION, RESULTS_FILE, result_line
from carioca_experiments.evaluation.tournament.summary import summarize
from carioca_experiments.evaluation.tournament.tasks import make_tasks

#: Three agents at two seats, so a deck is played in six lineups and the paired
#: difference (every deal of a deck) and the head-to-head one (shared tables) differ.
CONFIG = TournamentConfig(agents=("a=random", "b=heuristic", "c=random"), players=2, contracts=(1, 3), decks=3, seed=4)
#: R13 redeals by task id: one deal redealt twice, one once, on two contracts.
CANCELLED = {"c1-d1-l2": 2, "c3-d0-l0": 1}
SKILL = {"a": 0, "b": 25, "c": 40}  # what each agent adds to a seat's penalty


def _penalty(agent: str, contract: int, deck: int, seat: int, closer: int) -> int:
    """A made-up penalty that varies by agent, deck and seat (the closer scores 0, R14)."""
    return 0 if seat == closer else 10 + SKILL[agent] + 7 * deck + 3 * contract + 5 * seat


def _results(folder: Path, cancelled: dict[str, int]) -> Path:
    labels = CONFIG.labels
    lines = [json.dumps({
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "config": CONFIG.to_dict(),
        "lineups": [[labels[a] for a in s] for s in lineups(len(labels), CONFIG.players)],
        "tasks": len(make_tasks(CONFIG)), "created": "2026-01-01T00:00:00+00:00",
    }).encode() + b"\n"]
    for task in make_tasks(CONFIG):
        seats = [labels[a] for a in task.seating]
        closer = task.deck % 2
        lines.append(result_line({
            "task": task.id, "index": task.index, "contract": task.contract, "deck": task.deck,
            "lineup": task.lineup, "rotation": task.lineup % 2, "seats": seats, "dealer": 1, "closer": closer,
            "penalty": [_penalty(a, task.contract, task.deck, s, closer) for s, a in enumerate(seats)],
            "turns": 30 + task.index, "truncated": False, "cancelled": cancelled.get(task.id, 0),
            "opened": [s == closer for s in range(2)], "open_turn": [9 if s == closer else None for s in range(2)],
            "hands": ["", ""],
        }))
    folder.mkdir()
    (folder / RESULTS_FILE).write_bytes(b"".join(lines))
    return folder


@pytest.fixture(scope="module")
def summaries(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    root = tmp_path_factory.mktemp("cancelled")
    return summarize(_results(root / "with", CANCELLED)), summarize(_results(root / "without", {}))


def test_the_summary_counts_every_redeal_once(summaries) -> None:
    s, _ = summaries
    tasks = {t.id: t for t in make_tasks(CONFIG)}
    assert s.complete and s.deals_played == len(tasks)  # a redealt deal is still one deal
    assert s.cancelled == 3 and s.to_dict()["cancelled"] == 3
    assert "Cancelled and redealt (R13): 3" in s.to_text()
    for row in s.agents:  # over the tables each agent sat at, per contract and in all
        expected = sum(n for tid, n in CANCELLED.items()
                       if row.agent in (CONFIG.labels[a] for a in tasks[tid].seating)
                       and row.contract in ("all", str(tasks[tid].contract)))
        assert row.cancelled == expected, row
    assert sum(r.cancelled for r in s.agents if r.contract == "all") == 2 * 3  # two seats at each table


def test_a_redealt_deal_counts_like_any_other_in_every_statistic(summaries) -> None:
    s, plain = summaries
    strip = ("cancelled",)
    assert [{k: v for k, v in dataclasses.asdict(r).items() if k not in strip} for r in s.agents] == \
           [{k: v for k, v in dataclasses.asdict(r).items() if k not in strip} for r in plain.agents]
    assert s.pairs == plain.pairs and s.ratings == plain.ratings
    assert any(r.cancelled for r in s.agents) and not any(r.cancelled for r in plain.agents)


def test_paired_differences_use_the_recorded_penalties_of_a_redealt_deck(summaries) -> None:
    """Recomputed by hand: per (contract, deck), each agent's mean over its seats, then x - y."""
    s, _ = summaries
    tasks = make_tasks(CONFIG)
    labels = CONFIG.labels
    for contract in ("1", "3"):
        for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
            diffs = []
            for deck in range(CONFIG.decks):
                seat_pens: dict[str, list[int]] = {"a": [], "b": [], "c": []}
                for t in tasks:
                    if str(t.contract) == contract and t.deck == deck:
                        for seat, a in enumerate(t.seating):
                            seat_pens[labels[a]].append(_penalty(labels[a], t.contract, deck, seat, deck % 2))
                diffs.append(sum(seat_pens[x]) / len(seat_pens[x]) - sum(seat_pens[y]) / len(seat_pens[y]))
            pair = next(p for p in s.pairs if (p.contract, p.agent_x, p.agent_y) == (contract, x, y))
            assert pair.decks == CONFIG.decks
            assert math.isclose(pair.mean_diff, sum(diffs) / len(diffs))
