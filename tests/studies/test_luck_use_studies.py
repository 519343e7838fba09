"""The studies' part of ``tests/test_luck_use.py``: tests of modules in ``experiments/studies/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_luck_use import _oldest_other_value, _tournament

from carioca_experiments.evaluation.luck import (
    shipped_value,
)
from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament


def test_replace_compares_each_seat_with_the_same_seat_at_the_all_baseline_table(tmp_path: Path) -> None:
    """``replayed.replace``: the two tournaments of one seed deal the same cards; per deck the
    agent's penalty in each seat minus that seat's at the all-heuristic table, averaged
    over its seats, raw and corrected; an unfinished deck is left out; other seeds refused."""
    from carioca_experiments.common.stats import paired_difference
    from carioca_experiments.studies.luck import replayed

    four = ("g=greedy", "heuristic1=heuristic", "heuristic2=heuristic", "heuristic3=heuristic")
    _tournament(tmp_path, "g", four, 4, 3, 31)
    _tournament(tmp_path, "h", ("heuristic",), 4, 3, 31)
    (row,) = replayed.replace([(tmp_path / "g", tmp_path / "h")], "g")
    alone = {d["deck"]: d for d in map(json.loads, (tmp_path / "h" / "results.jsonl").read_text().splitlines()[1:])}
    mine: dict[int, list[float]] = {}
    base: dict[int, list[float]] = {}
    for d in map(json.loads, (tmp_path / "g" / "results.jsonl").read_text().splitlines()[1:]):
        s, b = d["seats"].index("g"), alone[d["deck"]]
        assert b["hands"] == d["hands"]  # the same cards
        mine.setdefault(d["deck"], []).append(d["penalty"][s] - d["luck"][s])
        base.setdefault(d["deck"], []).append(b["penalty"][s] - b["luck"][s])
    ci = paired_difference({k: sum(v) / 4 for k, v in mine.items()}, {k: sum(v) / 4 for k, v in base.items()})
    assert row["decks"] == 3 and row["corrected_diff"] == pytest.approx(ci.mean)
    assert row["corrected_low"] == pytest.approx(ci.low) and row["ratio"] == pytest.approx(
        row["corrected_half"] / row["half"])
    # a killed run leaves a deck with some of its rotations: it is not counted
    lines = (tmp_path / "g" / "results.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "g" / "results.jsonl").write_text("".join(lines[:-1]))
    (cut,) = replayed.replace([(tmp_path / "g", tmp_path / "h")], "g")
    assert cut["decks"] == 2
    _tournament(tmp_path, "other", ("heuristic",), 4, 3, 32)
    with pytest.raises(replayed.ReplayError, match="differ in seed"):
        replayed.replace([(tmp_path / "g", tmp_path / "other")], "g")
    _tournament(tmp_path, "raw", ("heuristic",), 4, 3, 31, luck=False)
    with pytest.raises(replayed.ReplayError, match="not played with --luck-correction"):
        replayed.replace([(tmp_path / "g", tmp_path / "raw")], "g")


def test_versus_pairs_two_agents_differences_deck_by_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``replayed.versus``: two tournaments of one seed (greedy against the heuristic, random
    against it); per deck the first's table-mate difference minus the second's, raw and
    corrected, is the pairing of the two ``mates`` rows' per-deck values; other seeds and
    other deals are refused."""
    from carioca_experiments.common.stats import paired_difference
    from carioca_experiments.studies.luck import replayed

    _tournament(tmp_path, "g", ("g=greedy", "heuristic"), 2, 3, 51)
    _tournament(tmp_path, "r", ("r=random", "heuristic"), 2, 3, 51)

    def per_deck(name: str, label: str, corrected: bool) -> dict[int, float]:
        diffs: dict[int, list[float]] = {}
        for d in map(json.loads, (tmp_path / name / "results.jsonl").read_text().splitlines()[1:]):
            pen = [p - (c if corrected else 0.0) for p, c in zip(d["penalty"], d["luck"])]
            me = d["seats"].index(label)
            diffs.setdefault(d["deck"], []).append(pen[me] - pen[1 - me])
        return {k: sum(v) / len(v) for k, v in diffs.items()}

    (row,) = replayed.versus([(tmp_path / "g", tmp_path / "r")], "g", "r", "heuristic")
    raw = paired_difference(per_deck("g", "g", False), per_deck("r", "r", False))
    cor = paired_difference(per_deck("g", "g", True), per_deck("r", "r", True))
    assert row["decks"] == 3 and row["diff"] == pytest.approx(raw.mean) and row["low"] == pytest.approx(raw.low)
    assert row["corrected_diff"] == pytest.approx(cor.mean) and row["corrected_high"] == pytest.approx(cor.high)
    assert row["diff"] != 0  # greedy and random differ against the same heuristic
    assert replayed.main(["versus", "--agent", "g", "--other", "r", "--baseline", "heuristic",
                          f"{tmp_path / 'g'}:{tmp_path / 'r'}"]) == 0
    assert f"| 1 | 3 | {row['diff']:+.1f} [{row['low']:+.1f}, {row['high']:+.1f}]" in capsys.readouterr().out
    _tournament(tmp_path, "other", ("r=random", "heuristic"), 2, 3, 52)
    with pytest.raises(replayed.ReplayError, match="differ in seed"):
        replayed.versus([(tmp_path / "g", tmp_path / "other")], "g", "r", "heuristic")
    # the same seed, but deals that are not the same cards (a tampered file): refused
    lines = (tmp_path / "r" / "results.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(lines[1])
    first["hands"] = first["hands"][::-1]
    (tmp_path / "r" / "results.jsonl").write_text(lines[0] + json.dumps(first) + "\n" + "".join(lines[2:]))
    with pytest.raises(replayed.ReplayError, match="dealt contract 1 deck .* differently"):
        replayed.versus([(tmp_path / "g", tmp_path / "r")], "g", "r", "heuristic")


def test_replayed_command_prints_both_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from carioca_experiments.studies.luck import replayed
    from carioca_experiments.training.learned_set import paired_rows

    _tournament(tmp_path, "two", ("learned=ppo:contract1", "heuristic"), 2, 3, 41)
    assert replayed.main(["mates", "--agent", "learned", "--baseline", "heuristic", str(tmp_path / "two")]) == 0
    (r,) = paired_rows(tmp_path / "two" / "results.jsonl", learned_labels=["learned"], baselines=("heuristic",))
    out = capsys.readouterr().out
    assert (f"| 1 | 3 | {r['diff']:+.1f} [{r['low']:+.1f}, {r['high']:+.1f}]" in out
            and f"{r['corrected_diff']:+.1f} [{r['corrected_low']:+.1f}, {r['corrected_high']:+.1f}]" in out)
    assert shipped_value().fingerprint in out
    with pytest.raises(SystemExit) as exit_:  # no BASELINE_DIR: refused like any bad argument
        replayed.main(["replace", "--agent", "s", str(tmp_path / "two")])
    assert exit_.value.code == 2 and "give AGENT_DIR:BASELINE_DIR" in capsys.readouterr().err
    assert replayed.main(["replace", "--agent", "learned", f"{tmp_path / 'two'}:{tmp_path / 'none'}"]) == 2
    assert "error:" in capsys.readouterr().err  # a folder without results: one line, no traceback


def test_reluck_recomputes_a_tournaments_luck_from_its_records_as_if_played_with_that_function(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``replayed.reluck``: replaying the kept records with the function the tournament used
    gives its luck back exactly; with an older shipped function, the luck of the same
    tournament played with that function from the start, and the same penalties."""
    from carioca_experiments.studies.luck import replayed

    older = _oldest_other_value()
    four = ("g=greedy", "heuristic1=heuristic", "heuristic2=heuristic", "heuristic3=heuristic")

    def play(name: str, luck: str) -> list[dict]:
        tc = TournamentConfig(agents=four, players=4, contracts=(1,), decks=2, seed=51, max_turns=16, luck=luck)
        run_tournament(tc, tmp_path / name, workers=1, progress=False, log=lambda m: None, record_every=1)
        return [json.loads(x) for x in (tmp_path / name / "results.jsonl").read_text().splitlines()]

    new = play("new", shipped_value().fingerprint)
    old = play("old", older)
    # deals cut off at --max-turns (R17) and closed ones both replay
    assert {d["truncated"] for d in new[1:]} == {True, False}
    assert replayed.reluck(tmp_path / "new", tmp_path / "same", shipped_value().fingerprint) == 8
    same = [json.loads(x) for x in (tmp_path / "same" / "results.jsonl").read_text().splitlines()]
    assert [d["luck"] for d in same[1:]] == [d["luck"] for d in new[1:]]
    assert replayed.main(["reluck", "--luck", older, str(tmp_path / "new"), str(tmp_path / "back")]) == 0
    assert "8 deals" in capsys.readouterr().out
    back = [json.loads(x) for x in (tmp_path / "back" / "results.jsonl").read_text().splitlines()]
    assert back[0]["config"] == old[0]["config"] and back[0]["luck_recomputed_from"] == shipped_value().fingerprint
    assert [x for d in back[1:] for x in d["luck"]] == pytest.approx([x for d in old[1:] for x in d["luck"]])
    assert [d["penalty"] for d in back[1:]] == [d["penalty"] for d in new[1:]]
    assert [d["luck"] for d in back[1:]] != [d["luck"] for d in new[1:]]
    # the recomputed folder tabulates like one played with the older function
    assert replayed.mates([tmp_path / "back"], "g", "heuristic") == replayed.mates([tmp_path / "old"], "g",
                                                                                   "heuristic")


def test_reluck_refuses_before_writing_anything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No records, an unknown function, a folder that already holds results, a record of
    another deal: one clear error and no output file."""
    from carioca_experiments.studies.luck import replayed

    fp = shipped_value().fingerprint
    _tournament(tmp_path, "bare", ("greedy", "heuristic"), 2, 2, 52)
    with pytest.raises(replayed.ReplayError, match="has no game record"):
        replayed.reluck(tmp_path / "bare", tmp_path / "o1", fp)
    tc = TournamentConfig(agents=("greedy", "heuristic"), players=2, contracts=(1,), decks=2, seed=53, max_turns=40,
                          luck=fp)
    run_tournament(tc, tmp_path / "kept", workers=1, progress=False, log=lambda m: None, record_every=1)
    with pytest.raises(replayed.ReplayError, match="no luck value function shipped"):
        replayed.reluck(tmp_path / "kept", tmp_path / "o2", "v9-0000")
    with pytest.raises(replayed.ReplayError, match="already holds results"):
        replayed.reluck(tmp_path / "kept", tmp_path / "bare", fp)
    records = tmp_path / "kept" / "records"
    (records / "c1-d0-l0.json").write_text((records / "c1-d1-l0.json").read_text())
    with pytest.raises(replayed.ReplayError, match="not the deal of its result line"):
        replayed.reluck(tmp_path / "kept", tmp_path / "o3", fp)
    assert replayed.main(["reluck", "--luck", fp, str(tmp_path / "kept"), str(tmp_path / "o4")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3", "o4"))
