"""Files of a run folder: step counts in file names, the latest checkpoint, a writable
``--out``, and the run's wall clock kept across resumed sessions."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from carioca_experiments.common.argtypes import check_output_path
from carioca_experiments.common.files import write_file
from carioca_experiments.training.train.errors import TrainError


def _steps_of(stem: str) -> int:
    m = re.search(r"(\d+)$", stem)
    return int(m.group(1)) if m else -1


def latest_checkpoint(out: str | Path) -> Path | None:
    """The checkpoint with the most steps in ``OUT/checkpoints`` (``None`` if there is none)."""
    d = Path(out) / "checkpoints"
    if not d.is_dir():
        return None
    files = sorted(d.glob("ckpt_*.zip"), key=lambda p: _steps_of(p.stem))
    return files[-1] if files else None


def check_writable(out: Path) -> None:
    """Refuse an output folder that cannot be created or written, before anything is written
    (:func:`carioca_experiments.common.argtypes.check_output_path`: nothing is created).

    Raises:
        TrainError: naming the folder and the reason.
    """
    try:
        check_output_path(Path(out), "--out", "folder")
    except OSError as exc:
        raise TrainError(f"{exc}; choose another --out") from None


def remove_run_files(out: Path, names: Iterable[str]) -> None:
    """``--overwrite``: delete these files and folders of the run in ``out`` (only these:
    anything else in the folder stays).  Called only once every option has been checked,
    so a refused command never loses a finished run."""
    for name in names:
        p = out / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()


class RunClock:
    """The wall time of a resumable run: the seconds its earlier sessions recorded in
    ``state.json`` (``wall_time_s``) plus this session's since the clock was made.

    Calling the clock gives the run's seconds so far; :meth:`save` records them. The file
    is replaced atomically, so a run killed while saving resumes with its last saved time
    instead of an unreadable state file.

    Raises:
        TrainError: the state file exists but is not a JSON object with a number in
            ``wall_time_s`` (naming the file; ``--overwrite`` starts the run again).
    """

    def __init__(self, state_file: Path) -> None:
        self.path = Path(state_file)
        self.state: dict[str, Any] = {"wall_time_s": 0.0}
        if self.path.exists():
            try:
                state = json.loads(self.path.read_text(encoding="utf-8"))
                float(state.get("wall_time_s", 0.0))  # refuse a file whose time is not a number
            except (ValueError, TypeError, AttributeError, OSError) as exc:
                raise TrainError(f"{self.path} is not a run state file ({type(exc).__name__}: {exc}); "
                                 "pass --overwrite to start the run again") from None
            self.state = state
        self._base = float(self.state.get("wall_time_s", 0.0))
        self._t0 = time.monotonic()

    def __call__(self) -> float:
        """The run's wall-clock seconds so far, over every session."""
        return self._base + time.monotonic() - self._t0

    def save(self) -> None:
        """Record the run's seconds so far in the state file (atomically)."""
        self.state["wall_time_s"] = self()
        write_file(self.path, json.dumps(self.state) + "\n")
