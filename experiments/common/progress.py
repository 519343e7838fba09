"""Progress bars that are on only when someone watches a terminal.

A tqdm bar redraws itself with carriage returns.  On a terminal that is a bar; in a log
file or a pipe it is one endless line (a non-TTY log of a tournament got one
8,429-character line of them).  Every command that shows progress makes its bar with
:func:`progress_bar`, which switches it off when its stream is not a terminal, and when
the command was asked for no progress (``--no-progress``).
"""

from __future__ import annotations

import sys
from typing import IO, Any

__all__ = ["is_terminal", "progress_bar"]


def is_terminal(stream: IO[str] | Any) -> bool:
    """Whether ``stream`` is an interactive terminal (``False`` for files, pipes, StringIO, closed streams)."""
    isatty = getattr(stream, "isatty", None)
    if isatty is None:
        return False
    try:
        return bool(isatty())
    except (ValueError, OSError):  # closed or detached stream
        return False


def progress_bar(*, total: int | None = None, enabled: bool = True, file: IO[str] | None = None, **kwargs: Any) -> Any:
    """A ``tqdm`` bar on ``file`` (default stderr), disabled unless ``enabled`` and ``file`` is a terminal.

    A disabled bar accepts the same calls (``update``, ``set_postfix``, ``close`` ...) and
    prints nothing.  Other keyword arguments go to ``tqdm`` (``desc``, ``unit``,
    ``initial`` ...); the width follows the terminal.
    """
    from tqdm import tqdm

    stream = sys.stderr if file is None else file
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(total=total, file=stream, disable=not (enabled and is_terminal(stream)), **kwargs)
