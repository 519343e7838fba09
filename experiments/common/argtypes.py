"""Command-line argument checks shared by the ``carioca`` sub-commands.

argparse refuses a bad value with the usage line and exit status 2 before anything runs,
so ranges are checked here (``--max-turns -1`` is refused, not accepted), and an output
path is checked before minutes of work are spent on results it could not hold.
"""

from __future__ import annotations

import argparse
import math
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


def real_at_least(lo: float) -> Callable[[str], float]:
    """An argparse ``type``: a finite number ``>= lo`` (``nan``, ``inf`` and ``-5`` are refused)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number >= {lo:g}, got {text[:40]!r}") from None
        if not math.isfinite(value) or value < lo:
            raise argparse.ArgumentTypeError(f"expected a finite number >= {lo:g}, got {text[:40]}")
        return value

    parse.__name__ = f"number >= {lo:g}"
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


def check_output_path(path: Path, what: str, kind: str = "file") -> None:
    """Refuse an output ``path`` that could not be written, creating and changing nothing.

    ``kind`` is ``"file"`` (``path`` must not be a folder) or ``"folder"`` (``path`` must
    not be a file).  The nearest part of ``path`` that exists must be a folder this
    process can write in, so a path under a regular file (``a_file/run``) or in a
    read-only folder is refused before any work is done, and a refused command leaves no
    folder behind.

    Raises:
        OSError: (``IsADirectoryError``, ``NotADirectoryError``, ``PermissionError``) with
            a message naming ``what`` and ``path``.
    """
    if kind not in ("file", "folder"):
        raise ValueError(f"kind must be 'file' or 'folder', got {kind!r}")
    if kind == "file" and path.is_dir():
        raise IsADirectoryError(f"{what} {path} is a folder; give a file path")
    if kind == "folder" and path.exists() and not path.is_dir():
        raise NotADirectoryError(f"{what} {path} is a file, not a folder; give a folder path")
    probe = path.parent if kind == "file" else path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise NotADirectoryError(f"{what} {path} cannot be written: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise PermissionError(f"{what} {path} cannot be written: {probe} is not writable")


def check_agent_specs(option: str, specs: Sequence[str], players: int | None = None,
                      error: type[Exception] = ValueError) -> list[Any]:
    """Build the agent of every spec once (seed 0), so a bad one is refused before any work.

    Building resolves the name, parses every key, imports a ``py:`` plugin's module and
    loads a ``ppo:`` model; no game is played.  ``players``: an agent made for another
    number of seats (a model's card says) is refused too.

    Returns:
        The agents built, in the order of ``specs`` (for a caller that needs more of them).

    Raises:
        error: naming ``option``, the spec and why it does not build.
    """
    from carioca_agents.registry import make_agent
    from carioca_env.errors import excerpt

    built = []
    for spec in specs:
        try:
            agent = make_agent(spec, 0)
        except Exception as exc:  # noqa: BLE001 - any failure means the spec is unusable
            text = " ".join(str(exc).split("\nTraceback (most recent call last)")[0].split())
            raise error(f"{option}: cannot build agent {excerpt(spec)}: {text}") from None
        made_for = getattr(agent, "num_players", None)
        if players is not None and isinstance(made_for, int) and made_for != players:
            raise error(f"{option}: {spec} was made for {made_for} players; this run has {players}")
        built.append(agent)
    return built
