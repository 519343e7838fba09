"""Melds: trios and runs, their notation, and the checks the rules put on them.

A run's cards sit on *positions* 1..14 of one suit: position 1 is the low ace, 2..13 the
ranks 2..K, and 14 the high ace (R4).  K–A–2 never wraps because positions never wrap; a
run can reach 14 cards, A low to A high, which takes two physical aces.  A joker in a run
stands for the card of the position it fills; a joker in a trio stands for a card of the
trio's rank (R5).

:class:`Meld` is an immutable value: the melds of an opening move and the snapshots of
the table shown to players.  :class:`TableMeld` is the engine's mutable meld on the table,
which grows with lay-offs (R9) and joker swaps (R11).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from carioca_env.cards import (
    JOKER,
    NUM_RANKS,
    card_str,
    card_symbol,
    is_joker,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)
from carioca_env.errors import ArgumentTypeError, IllegalMoveError, InvalidNotationError, described, excerpt

LOW_ACE = 1
HIGH_ACE = 14
TRIO_SIZE = 3
RUN_SIZE = 4
#: the most cards a trio can hold: the deck's 8 naturals of a rank and its 4 jokers (R1)
MAX_TRIO = 12


class MeldKind(IntEnum):
    """Trio (cards of one rank) or run (consecutive cards of one suit)."""

    TRIO = 0
    RUN = 1


class End(IntEnum):
    """An end of a run: where a laid-off card goes, or where a swapped joker moves."""

    LOW = 0
    HIGH = 1

    def __str__(self) -> str:
        return "low" if self is End.LOW else "high"


def position_rank(pos: int) -> int:
    """Rank (1..13) of the card that fills run position ``pos`` (1..14); 14 is the ace."""
    return 1 if pos == HIGH_ACE else pos


def position_card(suit: int, pos: int) -> int:
    """Card type that fills position ``pos`` of a run of ``suit``."""
    return make_card(position_rank(pos), suit)


def card_positions(card: int) -> tuple[int, ...]:
    """Run positions a natural card can fill: the ace fills 1 or 14 (R4)."""
    r = rank_of(card)
    return (LOW_ACE, HIGH_ACE) if r == 1 else (r,)


@dataclass(frozen=True, order=True)
class Meld:
    """An immutable trio or run.

    Attributes:
        kind: trio or run.
        key: the trio's rank (1..13) or the run's suit (0..3).
        lo: for a run, the position (1..14) of its lowest card; 0 for a trio.
        cards: a trio's naturals sorted by suit, then its jokers; a run's cards from low
            to high, ``JOKER`` where a joker fills a position.
    """

    kind: MeldKind
    key: int
    lo: int
    cards: tuple[int, ...]

    @staticmethod
    def trio(rank: int, suits: tuple[int, ...] | list[int], jokers: int = 0) -> Meld:
        """A trio of ``rank`` with naturals of ``suits`` (repeats allowed) and ``jokers``."""
        naturals = sorted(make_card(rank, s) for s in suits)
        return Meld(MeldKind.TRIO, rank, 0, tuple(naturals) + (JOKER,) * jokers)

    @staticmethod
    def run(suit: int, lo: int, size: int = RUN_SIZE, jokers_at: tuple[int, ...] = ()) -> Meld:
        """A run of ``suit`` on positions ``lo..lo+size-1``, jokers at the given positions."""
        cards = tuple(
            JOKER if p in jokers_at else position_card(suit, p) for p in range(lo, lo + size)
        )
        return Meld(MeldKind.RUN, suit, lo, cards)

    @property
    def hi(self) -> int:
        """Position of a run's highest card (0 for a trio)."""
        return self.lo + len(self.cards) - 1 if self.kind is MeldKind.RUN else 0

    @property
    def num_jokers(self) -> int:
        """How many jokers the meld holds."""
        return self.cards.count(JOKER)

    def stands_for(self) -> tuple[tuple[int, int], ...]:
        """What each joker stands for, as ``(index in cards, card or -rank)`` pairs.

        A run's joker stands for one card (its position's suit and rank); a trio's joker
        stands for "a card of rank r", given as ``-r`` (R5).
        """
        out = []
        for i, c in enumerate(self.cards):
            if c == JOKER:
                if self.kind is MeldKind.RUN:
                    out.append((i, position_card(self.key, self.lo + i)))
                else:
                    out.append((i, -self.key))
        return tuple(out)

    def __str__(self) -> str:
        return " ".join(card_str(c) for c in self.cards)

    def render(self) -> str:
        """The meld with suit symbols, a joker followed by what it stands for."""
        parts = []
        joker_meaning = dict(self.stands_for())
        for i, c in enumerate(self.cards):
            if c == JOKER and self.kind is MeldKind.RUN:
                parts.append(f"{card_symbol(c)}({card_symbol(joker_meaning[i])})")
            else:
                parts.append(card_symbol(c))
        return " ".join(parts)

    @staticmethod
    def parse(text: str) -> Meld:
        """Parse a meld's notation (the inverse of ``str``): a trio is 3 or more cards of
        one rank (naturals by suit, then jokers, in any order), a run 4 or more
        consecutive cards of one suit from low to high, ``JK`` where a joker fills a
        place.  Table melds grown by lay-offs parse back too (a run can reach 14 cards).

        Raises:
            ArgumentTypeError: ``text`` is not a string.
            InvalidNotationError: fewer than 3 cards, or cards that form no trio or run.
        """
        if not isinstance(text, str):
            raise ArgumentTypeError(f"a meld's notation must be a string like '8C 8D JK', got {described(text)}")
        cards = [parse_card(t) for t in text.split()]
        naturals = [c for c in cards if not is_joker(c)]
        if TRIO_SIZE <= len(cards) <= MAX_TRIO and naturals and len({rank_of(c) for c in naturals}) == 1:
            return Meld.trio(rank_of(naturals[0]), tuple(suit_of(c) for c in naturals), len(cards) - len(naturals))
        if len(cards) == TRIO_SIZE:
            raise InvalidNotationError(
                f"{excerpt(text)} is not a trio: its natural cards must share one rank (e.g. '8C 8D JK')"
            )
        if RUN_SIZE <= len(cards) <= HIGH_ACE:
            return _parse_run(cards, text)
        raise InvalidNotationError(
            f"{excerpt(text)} is not a meld: a trio is 3 to 12 cards of one rank (an opening meld "
            f"has 3, e.g. '8C 8D JK'), a run 4 to 14 cards of one suit from low to high (an opening "
            f"meld has 4, e.g. '4S 5S JK 7S')"
        )

    def canonical(self) -> Meld:
        """The one representation of this meld: a trio's naturals sorted by suit, then its
        jokers, ``lo`` 0 (a trio has no positions).  A run is its own: its card order says
        which position each card fills."""
        if self.kind is MeldKind.TRIO and (self.lo != 0 or any(a > b for a, b in zip(self.cards, self.cards[1:]))):
            return Meld(self.kind, self.key, 0, tuple(sorted(self.cards)))
        return self


def _parse_run(cards: list[int], text: str) -> Meld:
    naturals = [(i, c) for i, c in enumerate(cards) if not is_joker(c)]
    suits = {suit_of(c) for _, c in naturals}
    size = len(cards)
    if len(suits) == 1 and naturals:
        suit = suits.pop()
        for lo in range(LOW_ACE, HIGH_ACE - size + 2):
            if all(lo + i in card_positions(c) for i, c in naturals):
                jokers_at = tuple(lo + i for i, c in enumerate(cards) if is_joker(c))
                return Meld.run(suit, lo, size, jokers_at)
    raise InvalidNotationError(
        f"{excerpt(text)} is not a run: write 4 or more consecutive cards of one suit from low to "
        f"high, a joker where a card is missing (e.g. '4S 5S JK 7S', 'JH QH KH AH'), or a trio "
        f"of one rank (e.g. '8C 8D JK')"
    )


def check_opening_meld(meld: Meld) -> None:
    """Raise :class:`IllegalMoveError` unless ``meld`` may be laid at an opening (R4, R5).

    A trio: exactly 3 cards of one rank, at most one joker (so at least two naturals).
    A run: exactly 4 consecutive positions of one suit inside 1..14, at most one joker.
    """
    if meld.num_jokers > 1:
        raise IllegalMoveError(
            f"meld '{meld}' has {meld.num_jokers} jokers; an opening meld may hold at most one",
            "R5",
        )
    if meld.kind is MeldKind.TRIO:
        if len(meld.cards) != TRIO_SIZE or not 1 <= meld.key <= NUM_RANKS:
            raise IllegalMoveError(f"'{meld}' is not a trio of exactly 3 cards", "R5")
        for c in meld.cards:
            if not is_joker(c) and rank_of(c) != meld.key:
                raise IllegalMoveError(f"'{meld}' mixes ranks; a trio is one rank", "R5")
        return
    if len(meld.cards) != RUN_SIZE or not 0 <= meld.key < 4:
        raise IllegalMoveError(f"'{meld}' is not a run of exactly 4 cards of a suit 0..3", "R5")
    if not (LOW_ACE <= meld.lo and meld.hi <= HIGH_ACE):
        raise IllegalMoveError(f"run '{meld}' leaves the ranks A..A; K-A-2 never wraps", "R4")
    for i, c in enumerate(meld.cards):
        if not is_joker(c) and c != position_card(meld.key, meld.lo + i):
            raise IllegalMoveError(
                f"'{meld}' is not 4 consecutive cards of one suit from low to high", "R5"
            )


class TableMeld:
    """A meld on the table: owned by the seat that laid it, grown by lay-offs and swaps.

    The engine mutates it; players see :meth:`snapshot` values.
    """

    __slots__ = ("kind", "key", "lo", "cards", "owner")

    def __init__(self, meld: Meld, owner: int) -> None:
        self.kind = meld.kind
        self.key = meld.key
        self.lo = meld.lo
        self.cards = list(meld.cards)
        self.owner = owner

    @property
    def hi(self) -> int:
        """Position of a run's highest card."""
        return self.lo + len(self.cards) - 1

    def copy(self) -> TableMeld:
        """An independent copy (its own list of cards): what :meth:`Game.clone` needs."""
        new = TableMeld.__new__(TableMeld)
        new.kind, new.key, new.lo, new.owner = self.kind, self.key, self.lo, self.owner
        new.cards = self.cards.copy()
        return new

    def snapshot(self) -> Meld:
        """The meld as an immutable value."""
        return Meld(self.kind, self.key, self.lo, tuple(self.cards))

    def layoff_cards(self) -> dict[int, tuple[End | None, ...]]:
        """Card types that may be laid off here, with the run ends each may go to (R9).

        A trio takes any natural of its rank and jokers (end ``None``); a run takes, at
        each open end, the natural card of the next position or a joker (R4: no wrap,
        nothing beyond the aces).
        """
        if self.kind is MeldKind.TRIO:
            out: dict[int, tuple[End | None, ...]] = {
                make_card(self.key, s): (None,) for s in range(4)
            }
            out[JOKER] = (None,)
            return out
        out = {}
        ends: list[End] = []
        if self.lo > LOW_ACE:
            out[position_card(self.key, self.lo - 1)] = (End.LOW,)
            ends.append(End.LOW)
        if self.hi < HIGH_ACE:
            c = position_card(self.key, self.hi + 1)
            out[c] = out.get(c, ()) + (End.HIGH,)
            ends.append(End.HIGH)
        if ends:
            out[JOKER] = tuple(ends)
        return out

    def open_ends(self) -> tuple[End, ...]:
        """The ends of a run that can still grow (none for a full A..A run)."""
        ends = []
        if self.lo > LOW_ACE:
            ends.append(End.LOW)
        if self.hi < HIGH_ACE:
            ends.append(End.HIGH)
        return tuple(ends)

    def joker_swaps(self) -> list[int]:
        """Natural card types that could replace a joker of this run (R11); empty for trios."""
        if self.kind is MeldKind.TRIO:
            return []
        return [
            position_card(self.key, self.lo + i) for i, c in enumerate(self.cards) if c == JOKER
        ]

    def lay_off(self, card: int, end: End | None) -> None:
        """Add a card (validated by the caller against :meth:`layoff_cards`)."""
        if self.kind is MeldKind.TRIO:
            if card == JOKER:
                self.cards.append(card)
            else:
                n_nat = len(self.cards) - self.cards.count(JOKER)
                self.cards.insert(n_nat, card)
                self.cards[:n_nat + 1] = sorted(self.cards[:n_nat + 1])
        elif end is End.LOW:
            self.cards.insert(0, card)
            self.lo -= 1
        else:
            self.cards.append(card)

    def swap(self, card: int, end: End) -> None:
        """Put natural ``card`` where the joker standing for it is; the joker goes to ``end``."""
        self.cards[self._joker_index(card)] = card
        self.lay_off(JOKER, end)

    def _joker_index(self, card: int) -> int:
        for i, c in enumerate(self.cards):
            if c == JOKER and position_card(self.key, self.lo + i) == card:
                return i
        raise IllegalMoveError(f"no joker in '{self.snapshot()}' stands for {card_str(card)}", "R11")
