"""carioca_experiments.common.progress: bars only on a terminal; every command's bar goes through the helper."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from carioca_experiments.common.progress import is_terminal, progress_bar

ROOT = Path(__file__).resolve().parents[1]


class FakeTerminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _run(stream: io.StringIO, enabled: bool = True) -> str:
    bar = progress_bar(total=500, enabled=enabled, file=stream, desc="work", mininterval=0)
    for _ in range(500):
        bar.update(1)
    bar.set_postfix(truncated=1)
    bar.close()
    return stream.getvalue()


def test_no_output_at_all_when_the_stream_is_not_a_terminal() -> None:
    # A log file or a pipe: no carriage returns (a log once got one 8,429-character line of them).
    assert _run(io.StringIO()) == ""


def test_a_terminal_gets_a_bar() -> None:
    out = _run(FakeTerminal())
    assert "\r" in out and "500/500" in out


def test_disabled_on_request_even_on_a_terminal() -> None:
    assert _run(FakeTerminal(), enabled=False) == ""


def test_is_terminal_of_files_pipes_and_closed_streams(tmp_path: Path) -> None:
    with open(tmp_path / "log.txt", "w") as fh:
        assert not is_terminal(fh)
    r, w = os.pipe()
    with os.fdopen(r) as rf, os.fdopen(w, "w") as wf:
        assert not is_terminal(wf) and not is_terminal(rf)
    closed = io.StringIO()
    closed.close()
    assert not is_terminal(closed)
    assert not is_terminal(object())
    assert is_terminal(FakeTerminal())


COMMAND_SOURCES = sorted(p for p in (ROOT / "experiments").rglob("*.py") if p.name != "progress.py")


@pytest.mark.parametrize("path", COMMAND_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_commands_make_their_bars_with_the_helper(path: Path) -> None:
    source = path.read_text()
    assert not re.search(r"^\s*(from tqdm import|import tqdm)", source, re.M), f"{path.name} builds its own tqdm bar"
    assert "tqdm(" not in source


def test_tournament_cli_log_has_no_carriage_returns(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "t"
    proc = subprocess.run(
        [sys.executable, "-m", "carioca_experiments.cli", "tournament", "--agents", "a=random", "b=random", "--contracts", "1",
         "--deals", "2", "--max-turns", "100", "--workers", "1", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")},
    )
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "\r" not in proc.stdout
    assert "Deals played: 4 of 4" in proc.stdout
