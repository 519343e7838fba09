"""The shared writers of carioca_experiments.common: atomic files and the report (CSV, text, JSON, figures)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from carioca_env.records import write_atomic
from carioca_experiments.common.files import write_file
from carioca_experiments.common.report import Report, csv_text


def test_write_atomic_takes_text_and_bytes_and_replaces_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    write_atomic(path, "é\nline\n")
    assert path.read_bytes() == "é\nline\n".encode()
    write_atomic(path, b"\x00\x01", durable=True)
    assert path.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]  # no temporary file left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "keep.json"
    write_atomic(path, "old")
    with pytest.raises(TypeError):
        write_atomic(path, 12345)  # type: ignore[arg-type]  # neither text nor bytes
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.json"]


def test_write_file_creates_the_folder_and_refuses_a_file_in_the_way(tmp_path: Path) -> None:
    write_file(tmp_path / "x" / "y" / "z.csv", "a\n")
    assert (tmp_path / "x" / "y" / "z.csv").read_text() == "a\n"
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError):
        write_file(tmp_path / "file" / "z.csv", "a\n")


def test_csv_text_blanks_missing_values_rounds_floats_and_drops_extra_keys() -> None:
    rows = [{"a": 1.23456, "b": None, "c": math.nan, "extra": 9}, {"a": "x", "c": 2.0}]
    assert csv_text(["a", "b", "c"], rows) == "a,b,c\n1.23456,,\nx,,2.0\n"
    assert csv_text(["a", "b", "c"], rows, digits=3) == "a,b,c\n1.235,,\nx,,2.0\n"
    assert csv_text(["a", "c"], rows, digits=5, blank_nan=False) == "a,c\n1.23456,nan\nx,2.0\n"


def test_a_report_writes_its_files_in_order_and_names_them(tmp_path: Path) -> None:
    plt = pytest.importorskip("matplotlib.pyplot")
    report = Report(tmp_path / "run")
    report.text("a.md", "# A\n")
    report.lines("b.md", ["x", "y"])
    report.json("c.json", {"k": [1, 2]})
    report.csv("d.csv", ["k"], [{"k": 1}])
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    report.figure("e.png", fig, dpi=50)
    names = [p.name for p in report.paths]
    assert names == ["a.md", "b.md", "c.json", "d.csv", "e.png"]
    assert (tmp_path / "run" / "b.md").read_text() == "x\ny\n"
    assert json.loads((tmp_path / "run" / "c.json").read_text()) == {"k": [1, 2]}
    assert (tmp_path / "run" / "e.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not plt.fignum_exists(fig.number)  # the figure was closed
