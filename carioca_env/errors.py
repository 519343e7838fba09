"""Typed errors of the Carioca engine, and the checks every boundary shares.

Every error says what was wrong and what would be right.  :class:`IllegalMoveError`
carries the ruling it enforces (``rule``, e.g. ``"R9"``) so tests and tools can check
which rule a move broke.  Errors about a *value* (a move that is not well formed, an
argument of the wrong type or out of range) are not rulings and have their own classes.

Messages echo the bad input through :func:`excerpt` only, so a megabyte of input gives
a message of a line, and a structure nested 100,000 levels deep gives no
``RecursionError`` while the message is built.
"""

from __future__ import annotations

import operator
import reprlib
import sys
from typing import Any

#: longest echo of a bad input in a message, in characters
EXCERPT_CHARS = 80

_REPR = reprlib.Repr()
_REPR.maxstring = EXCERPT_CHARS
_REPR.maxother = EXCERPT_CHARS
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8


class CariocaError(Exception):
    """Base class of every error the engine raises."""


class InvalidNotationError(CariocaError, ValueError):
    """A card, meld or move string that does not parse."""


class IllegalMoveError(CariocaError, ValueError):
    """A move that the rules forbid in the current state.

    Attributes:
        rule: the ruling or guide section the move breaks (e.g. ``"R10"``).
    """

    def __init__(self, message: str, rule: str = "") -> None:
        self.rule = rule
        super().__init__(f"[{rule}] {message}" if rule else message)


class MalformedMoveError(CariocaError, ValueError):
    """A :class:`~carioca_env.moves.Move` value that is no move at all: a field of the
    wrong type, a value that is no card type, a field its kind does not have, or an
    opening not in canonical form (build openings with ``Move.open``, which sorts them).

    A representation error, not a ruling: it breaks no rule of the game.
    """


class MisdealError(CariocaError, ValueError):
    """A deal that breaks R1/R3: a deck that is not a permutation of the 108 cards (R16)."""


class InvalidConfigError(CariocaError, ValueError):
    """Game options that make no game (player count, deals, limits)."""


class RecordError(CariocaError, ValueError):
    """A saved game record that is corrupt, foreign, or does not replay."""


class InvalidArgumentError(CariocaError, ValueError):
    """An argument of the right type but outside what is allowed (a seat that is not at
    the table, an agent name the env does not have)."""


class ArgumentTypeError(CariocaError, TypeError):
    """An argument of the wrong type; the message names the argument, what it got and
    what is allowed."""


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A bounded ``repr`` of ``value`` for an error message.

    Strings longer than ``limit`` are cut and say how long they were; containers show
    their first items and at most three levels (``reprlib``), so this never recurses
    deeply and never returns much more than ``limit`` characters.
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    try:
        text = _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 2 * limit else text[: 2 * limit] + "..."


def described(value: Any) -> str:
    """``value``'s type and bounded repr, e.g. ``float 0.7`` (what a message says it got)."""
    return f"{type(value).__name__} {excerpt(value)}"


def as_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python int if it is an integer (Python or numpy, never a bool) in
    ``lo..hi``; otherwise raise naming ``name``, what it got and what is allowed.

    Raises:
        ArgumentTypeError: not an integer (a float, a string, a bool, ``None`` ...).
        InvalidArgumentError: an integer outside ``lo..hi``.
    """
    allowed = _int_range(lo, hi)
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{name} must be {allowed}, got a bool {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"{name} must be {allowed}, got {described(value)}") from None
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        raise InvalidArgumentError(f"{name} must be {allowed}, got {number}")
    return number


def as_real(name: str, value: Any) -> float:
    """``value`` as a finite float if it is a real number (int or float, Python or numpy,
    never a bool); otherwise raise :class:`ArgumentTypeError` / :class:`InvalidArgumentError`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not _is_numpy_real(value):
        raise ArgumentTypeError(f"{name} must be a real number (int or float), got {described(value)}")
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise InvalidArgumentError(f"{name} must be a finite number, got {number}")
    return number


def _is_numpy_real(value: Any) -> bool:
    # a numpy scalar exists only if numpy is loaded: the engine does not import it for this
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, (np.integer, np.floating))


def _int_range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an integer {lo}..{hi}"
    if lo is not None:
        return f"an integer >= {lo}"
    if hi is not None:
        return f"an integer <= {hi}"
    return "an integer"
