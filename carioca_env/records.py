"""Game record files: reading (bounded, never a traceback) and atomic writing, and the
checks of a record's result fields.  The record format is documented in the README and
:meth:`carioca_env.game.Game.to_record`; replaying lives in :class:`~carioca_env.game.Game`.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from carioca_env.errors import RecordError, excerpt


def read_record(path: str | Path) -> Any:
    """The JSON value in a record file (not yet checked as a record).

    Raises:
        RecordError: the file cannot be read, is not UTF-8 JSON, or nests too deeply.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise RecordError(f"cannot read a game record from {path}: {exc}") from exc
    except RecursionError:
        raise RecordError(f"cannot read a game record from {path}: its JSON nests too deeply") from None


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and
    ``os.replace``: readers see the old file or the new one, never a part.

    Raises:
        OSError: the folder does not exist or cannot be written.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_record_lists(record: dict[str, Any]) -> None:
    """``deal_scores`` (a list of lists of ints) and ``totals`` (a list of ints), if present."""
    scores = record.get("deal_scores", [])
    if not isinstance(scores, list) or not all(
        isinstance(row, list) and all(type(x) is int for x in row) for row in scores
    ):
        raise RecordError(f"corrupt record: 'deal_scores' must be a list of lists of ints, got {excerpt(scores)}")
    totals = record.get("totals", [])
    if not isinstance(totals, list) or not all(type(x) is int for x in totals):
        raise RecordError(f"corrupt record: 'totals' must be a list of ints, got {excerpt(totals)}")

