"""Typed errors of the Carioca engine.

Every error says what was wrong and what would be right.  :class:`IllegalMoveError`
carries the ruling it enforces (``rule``, e.g. ``"R9"``) so tests and tools can check
which rule a move broke.
"""

from __future__ import annotations


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


class MisdealError(CariocaError, ValueError):
    """A deal that breaks R1/R3: a deck that is not a permutation of the 108 cards (R16)."""


class InvalidConfigError(CariocaError, ValueError):
    """Game options that make no game (player count, deals, limits)."""


class RecordError(CariocaError, ValueError):
    """A saved game record that is corrupt, foreign, or does not replay."""
