"""``carioca tournament`` refuses bad input before playing: one paragraph, exit 2, no traceback, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carioca_experiments import cli

REPO = Path(__file__).resolve().parents[1]
BASE = ["tournament", "--agents", "a=random", "b=random", "--contracts", "1", "--decks", "1", "--max-turns", "100",
        "--workers", "1", "--no-progress"]


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = cli.main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and "carioca tournament: error:" in err
    return err


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_out_below_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    before = _tree(tmp_path)
    err = _refused([*BASE, "--out", str(f / "sub")], capsys)
    assert f"{f} is a file, not a folder" in err
    assert _tree(tmp_path) == before


def test_out_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    err = _refused([*BASE, "--out", str(f)], capsys)
    assert "is a file, not a folder" in err and f.read_text() == "keep me"


def test_a_results_file_that_is_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "results.jsonl").mkdir()
    before = _tree(tmp_path)
    err = _refused([*BASE, "--out", str(tmp_path)], capsys)
    assert "results.jsonl is a folder, not a results file" in err
    assert _tree(tmp_path) == before
    err = _refused(["tournament", "--report", str(tmp_path)], capsys)
    assert "cannot read tournament results" in err


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--records", "-1", "--records must be 0 (none) or a positive N"),
    ("--workers", "0", "--workers must be at least 1"),
    ("--retries", "-1", "--retries must be 0 or more"),
    ("--decks", "0", "--decks (decks per contract) must be at least 1"),
    ("--address", "auto", "--address names a Ray cluster: use it with --backend ray"),
])
def test_bad_running_options_are_refused_before_anything_is_written(
        option: str, value: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    err = _refused([*BASE, option, value, "--out", str(out)], capsys)
    assert words in err
    assert not out.exists()


def test_a_two_player_model_at_three_seats_is_refused_before_workers_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    card = json.loads((REPO / "agents" / "models" / "contract1" / "model.json").read_text())
    assert card["num_players"] == 2
    out = tmp_path / "out"
    err = _refused(["tournament", "--agents", f"ppo:{REPO / 'agents' / 'models' / 'contract1'}", "random", "greedy", "--players", "3",
                    "--contracts", "1", "--decks", "1", "--workers", "2", "--no-progress", "--out", str(out)], capsys)
    assert "trained for 2 players" in err and "3 seats" in err and "--players 2" in err
    assert len(err.strip().splitlines()) <= 2  # a paragraph, not a dump
    assert not out.exists()


def test_decks_is_the_option_and_deals_still_works_with_a_deprecation_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    assert cli.main([*BASE[:-5], "--decks", "2", "--max-turns", "100", "--workers", "1", "--no-progress",
                     "--out", str(new)]) == 0
    assert "deprecated" not in capsys.readouterr().err
    base_without_decks = [a for i, a in enumerate(BASE) if a != "--decks" and BASE[i - 1] != "--decks"]
    assert cli.main([*base_without_decks, "--deals", "2", "--out", str(old)]) == 0
    err = capsys.readouterr().err
    assert "--deals is deprecated" in err and "use --decks" in err
    lines = [(d / "results.jsonl").read_text().splitlines()[1:] for d in (new, old)]
    assert lines[0] == lines[1] and len(lines[0]) == 4
    err = _refused([*base_without_decks, "--deals", "2", "--decks", "3", "--out", str(tmp_path / "x")], capsys)
    assert "disagree" in err


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # progress is on by default; captured stderr is not a TTY, so no bar (a log gets no \r lines)
    args = [a for a in BASE if a != "--no-progress"]
    assert cli.main([*args, "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "deal/s" not in err and "tournament:" not in err
