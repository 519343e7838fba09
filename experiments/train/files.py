"""Files of a run folder: atomic writes, step counts in file names, the latest checkpoint, a writable ``--out``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from experiments.train.errors import TrainError


def _steps_of(stem: str) -> int:
    m = re.search(r"(\d+)$", stem)
    return int(m.group(1)) if m else -1


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def latest_checkpoint(out: str | Path) -> Path | None:
    """The checkpoint with the most steps in ``OUT/checkpoints`` (``None`` if there is none)."""
    d = Path(out) / "checkpoints"
    if not d.is_dir():
        return None
    files = sorted(d.glob("ckpt_*.zip"), key=lambda p: _steps_of(p.stem))
    return files[-1] if files else None


def check_writable(out: Path) -> None:
    """Refuse an output folder that cannot be created or written, before anything is written.

    Raises:
        TrainError: naming the folder and the reason.
    """
    probe = out
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise TrainError(f"--out {out}: {probe} is a file, not a folder; choose another --out")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise TrainError(f"--out {out}: {probe} is not writable; choose another --out")
