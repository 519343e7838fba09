"""Writing a run's results: CSV tables, Markdown and JSON text, and figures, into one folder.

Every orchestrator (a tournament's summary, ``carioca train-all``, its learned-set
pipeline, ``carioca sweep``) and every learning curve (``eval.csv``, ``imitation.csv``,
``improve.csv``) writes through here, so a results file has one format: CSV with ``\\n``
line ends, an empty cell for a missing value, floats rounded where the caller asks; every
file written atomically (a reader sees the old file or the new one, never a part).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from carioca_experiments.common.files import write_file


def csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any]], *, digits: int | None = None,
             blank_nan: bool = True) -> str:
    """``rows`` as CSV text under the header ``columns`` (keys not in it are left out).

    Args:
        columns: the header, in order.
        rows: one mapping per line; a missing key or ``None`` is an empty cell.
        digits: floats rounded to this many decimals (``None``: as they are).
        blank_nan: a NaN is an empty cell (else it is written as ``nan``).
    """
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: _cell(v, digits, blank_nan) for k, v in r.items()})
    return buf.getvalue()


def _cell(v: Any, digits: int | None, blank_nan: bool) -> Any:
    if isinstance(v, float):
        if blank_nan and math.isnan(v):
            return ""
        return round(v, digits) if digits is not None else v
    return v


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display).

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class Report:
    """The files of one results folder, each written atomically, in the order written (:attr:`paths`)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.paths: list[Path] = []

    def _put(self, name: str, data: str | bytes) -> Path:
        path = self.folder / name
        write_file(path, data)
        self.paths.append(path)
        return path

    def text(self, name: str, text: str) -> Path:
        """Write ``text`` (Markdown, a table ...) as UTF-8 to ``name``."""
        return self._put(name, text)

    def lines(self, name: str, lines: Iterable[str]) -> Path:
        """Write ``lines``, each ended by ``\\n``."""
        return self._put(name, "".join(line + "\n" for line in lines))

    def json(self, name: str, value: Any, indent: int | None = 1) -> Path:
        """Write ``value`` as JSON (with ``indent``) and a final newline."""
        return self._put(name, json.dumps(value, indent=indent) + "\n")

    def csv(self, name: str, columns: Sequence[str], rows: Iterable[Mapping[str, Any]], *,
            digits: int | None = None, blank_nan: bool = True) -> Path:
        """Write a CSV table (:func:`csv_text`)."""
        return self._put(name, csv_text(columns, rows, digits=digits, blank_nan=blank_nan))

    def figure(self, name: str, fig: Any, **savefig: Any) -> Path:
        """Save a matplotlib figure (``savefig`` options: ``dpi``, ``bbox_inches`` ...) and close it."""
        buf = io.BytesIO()
        fmt = Path(name).suffix.lstrip(".") or "png"
        try:
            fig.savefig(buf, format=fmt, **savefig)
        finally:
            pyplot().close(fig)
        return self._put(name, buf.getvalue())
