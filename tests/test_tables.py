"""carioca_experiments.common.tables and the tournament summary's tables: no stray blank lines, n/a intervals, Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from carioca_experiments.common.tables import markdown_table, text_table, wrap_cell
from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament


def test_rules_only_between_groups_of_several_rows() -> None:
    grouped = text_table(["contract", "agent", "pen."], [["1", "a", "1.0"], ["1", "b", "2.0"], ["2", "a", "3.0"]])
    lines = grouped.splitlines()
    assert len(lines) == 2 + 3 + 1 and set(lines[4]) <= {"-", " "}  # one rule, between contract 1 and 2
    # the group column changes on every row: no rule (and no blank line) after every row
    flat = text_table(["contract", "x - y", "diff"], [["1", "a - b", "+1"], ["2", "a - b", "+2"], ["all", "a - b", "+3"]])
    assert len(flat.splitlines()) == 2 + 3 and "" not in flat.splitlines()


def test_alignment_and_no_number_parsing() -> None:
    table = text_table(["agent", "mean", "95% CI"], [["a", "1.50", "[0.0, 3.0]"], ["bbbb", "12.00", "n/a (1 deck)"]],
                       left=1, group=None)
    head, _, row1, row2 = table.splitlines()
    assert row1.startswith("a ") and row1.endswith("[0.0, 3.0]")  # label left, figures right
    assert "1.50" in row1 and "12.00" in row2  # the caller's digits are kept


def test_markdown_escapes_pipes_and_rows_must_fit_the_header() -> None:
    md = markdown_table(["x - y", "diff"], [["a|b - c", "+1.0"]])
    assert md.splitlines()[0].startswith("| x - y") and "a\\|b - c" in md
    assert md.splitlines()[1].startswith("|:")
    with pytest.raises(ValueError, match="row 0 has 1 cells, the header has 2"):
        text_table(["a", "b"], [["only one"]])
    with pytest.raises(ValueError, match="the header has 2"):
        markdown_table(["a", "b"], [["1", "2", "3"]])


def test_wrap_cell() -> None:
    assert all(len(line) <= 10 for line in wrap_cell("one two three four five six", 10).splitlines())
    assert wrap_cell("", 10) == ""


def test_tournament_summary_tables(tmp_path: Path) -> None:
    config = TournamentConfig(agents=("random", "greedy", "heuristic"), players=3, contracts=(1, 2), decks=1,
                              seed=4, max_turns=200)
    summary = run_tournament(config, tmp_path, workers=1, progress=False, log=lambda m: None)
    text = summary.to_text()
    assert "nan" not in text
    assert "n/a (1 deck)" in text  # one deck per contract: no interval, and it says why
    pairs = text.split("Paired differences")[1].split("Bradley-Terry")[0]
    rows = [line for line in pairs.splitlines()[1:] if line.strip()]
    assert sum(1 for line in pairs.splitlines() if not line.strip()) == 1  # only the blank line before the ratings
    assert sum(1 for line in rows if " - " in line and line[:3].strip() in ("1", "2", "all")) == 9
    assert max(len(line) for line in text.splitlines()) <= 130
    md = (tmp_path / "summary.md").read_text()
    assert "| contract" in md and "n/a (1 deck)" in md and "## Ratings" in md


def test_train_all_report_prints_na_for_single_deck_intervals(tmp_path: Path) -> None:
    import csv
    import json
    import shutil

    from carioca_experiments.training.train_all import report

    out = tmp_path / "rl"
    shutil.copytree(Path(__file__).resolve().parent / "data" / "rl_results", out)
    # one deck: the summary has no interval (null), the learning curve an empty one
    sj = out / "tournaments" / "contract1" / "summary.json"
    s = json.loads(sj.read_text())
    for row in s["agents"] + s["pairs"]:
        row.update(decks=1, ci_low=None, ci_high=None, ci_half=None)
    sj.write_text(json.dumps(s))
    ev = out / "models" / "contract1" / "eval.csv"
    rows = list(csv.DictReader(ev.open()))
    for r in rows:
        r.update(decks="1", learner_ci_low="", learner_ci_high="", diff_ci_low="", diff_ci_high="")
    with ev.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    report(out, log=lambda m: None)
    text = (out / "results.md").read_text()
    assert "nan" not in text
    assert "| contract1 | 2048 | random |" in text and "n/a (1 deck)" in text
    assert "| 1 | ppo - random |" in text
