"""Command-line argument checks shared by the ``carioca`` sub-commands.

argparse refuses a bad value with the usage line and exit status 2 before anything runs,
so ranges are checked here (``--max-turns -1`` is refused, not accepted), and an output
path is checked before minutes of work are spent on results it could not hold.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def int_at_least(lo: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``>= lo`` (the message says what was given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {lo}, got {text[:40]!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"expected an integer >= {lo}, got {value}")
        return value

    parse.__name__ = f"integer >= {lo}"
    return parse


#: the contracts of the game, as ``choices`` of ``--contracts``
CONTRACT_CHOICES = range(1, 8)
#: the player counts of the game, as ``choices`` of ``--players``
PLAYER_CHOICES = (2, 3, 4)


class DeprecatedAlias(argparse.Action):
    """An old option spelling that still works for one release, with a message on stderr.

    ``parser.add_argument("--deals", action=DeprecatedAlias, new="--contracts",
    dest="contracts", ...)``: stores like the new option and says to use it.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, new: str = "", **kwargs: Any) -> None:
        self.new = new
        kwargs.setdefault("help", f"deprecated spelling of {new}; it will be removed in the next release")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog}: {option_string} is deprecated and will be removed in the next release; "
              f"use {self.new} (it means the same)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_contracts_option(parser: argparse.ArgumentParser, default: Sequence[int], help_text: str) -> None:
    """``--contracts K ...`` (1..7), and ``--deals`` as its deprecated spelling (``play``, ``demo``)."""
    parser.add_argument("--contracts", type=int, nargs="+", choices=CONTRACT_CHOICES, default=list(default),
                        metavar="K", help=help_text)
    parser.add_argument("--deals", action=DeprecatedAlias, new="--contracts", dest="contracts", type=int,
                        nargs="+", choices=CONTRACT_CHOICES, metavar="K")


def check_writable_file(path: Path, what: str) -> None:
    """Make sure ``path``'s folder exists and a file can be written there, now.

    It creates the folder (as the write would) and a temporary file in it, which it
    removes; ``path`` itself is not touched.

    Raises:
        OSError: with a message naming ``what`` and ``path``.
    """
    if path.is_dir():
        raise IsADirectoryError(f"{what} {path} is a folder; give a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OSError(f"{what} {path} cannot be written: {exc.strerror or exc}") from exc
