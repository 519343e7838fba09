"""Files of a run folder: step counts in file names, the latest checkpoint, a writable ``--out``."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from experiments.common.argtypes import check_output_path
from experiments.training.train.errors import TrainError


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
    (:func:`experiments.common.argtypes.check_output_path`: nothing is created).

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
