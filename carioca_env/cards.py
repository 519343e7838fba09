"""Cards of Argentine Carioca: ids, notation, penalty values and the 108-card deck.

A card *type* is an int in ``0..52``: ``suit * 13 + (rank - 1)`` for the 52 natural
cards (rank 1 = ace, 11 = J, 12 = Q, 13 = K; suits in the order S, H, D, C) and
``JOKER = 52``.  The two copies of a natural card are interchangeable in play (R1), so
hands are multisets of card types, kept as a list of 53 counts.

Notation: rank then suit, ``A 2..10 J Q K`` and ``S H D C`` (``8S``, ``10H``, ``AC``),
and ``JK`` for a joker.  Rendering uses suit symbols: ``8♠ 10♥ A♣ 🃏``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from carioca_env.errors import ArgumentTypeError, InvalidNotationError, described, excerpt

NUM_SUITS = 4
NUM_RANKS = 13
JOKER = 52
NUM_CARD_TYPES = 53
DECK_SIZE = 108
COPIES_PER_NATURAL = 2
NUM_JOKERS = 4

SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER_NAME = "JK"
JOKER_SYMBOL = "🃏"

_RANK_BY_NAME = {name: i + 1 for i, name in enumerate(RANK_NAMES)}


def make_card(rank: int, suit: int) -> int:
    """Card type of a natural card; ``rank`` is 1..13 (ace = 1), ``suit`` is 0..3."""
    if not 1 <= rank <= NUM_RANKS or not 0 <= suit < NUM_SUITS:
        raise ValueError(f"no natural card has rank {rank} and suit {suit}")
    return suit * NUM_RANKS + rank - 1


def rank_of(card: int) -> int:
    """Rank 1..13 of a natural card (ace = 1); 0 for the joker."""
    return 0 if card == JOKER else card % NUM_RANKS + 1


def suit_of(card: int) -> int:
    """Suit 0..3 of a natural card; -1 for the joker."""
    return -1 if card == JOKER else card // NUM_RANKS


def is_joker(card: int) -> bool:
    """Whether the card type is the joker (the only wild card, R1)."""
    return card == JOKER


def _penalty(card: int) -> int:
    if card == JOKER:
        return 50
    rank = rank_of(card)
    if rank == 1:
        return 20
    return 10 if rank >= 11 else rank


#: Penalty of each card type left in hand at the end of a deal (R14, guide §07).
PENALTY: tuple[int, ...] = tuple(_penalty(c) for c in range(NUM_CARD_TYPES))


def card_str(card: int) -> str:
    """Compact notation of a card type: ``8S``, ``10H``, ``AC``, ``JK``."""
    if card == JOKER:
        return JOKER_NAME
    if not 0 <= card < JOKER:
        raise ValueError(f"card type must be 0..52, got {excerpt(card)}")
    return RANK_NAMES[rank_of(card) - 1] + SUIT_LETTERS[suit_of(card)]


def card_symbol(card: int) -> str:
    """Rendering of a card with a suit symbol: ``8♠``, ``A♣``, ``🃏``."""
    if card == JOKER:
        return JOKER_SYMBOL
    return RANK_NAMES[rank_of(card) - 1] + SUIT_SYMBOLS[suit_of(card)]


def parse_card(text: str) -> int:
    """Parse a card's notation (``8S``, ``10h``, ``AC``, ``JK``, or ``8♠``) into its type.

    Raises:
        ArgumentTypeError: ``text`` is not a string.
        InvalidNotationError: the text is not a card.
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"a card's notation must be a string like '8S', got {described(text)}")
    s = text.strip().upper()
    if s in (JOKER_NAME, JOKER_SYMBOL):
        return JOKER
    if len(s) >= 2:
        rank_part, suit_part = s[:-1], s[-1]
        rank = _RANK_BY_NAME.get(rank_part)
        if suit_part in SUIT_LETTERS:
            suit = SUIT_LETTERS.index(suit_part)
        elif suit_part in SUIT_SYMBOLS:
            suit = SUIT_SYMBOLS.index(suit_part)
        else:
            suit = -1
        if rank is not None and suit >= 0:
            return make_card(rank, suit)
    raise InvalidNotationError(
        f"{excerpt(text)} is not a card: write rank then suit, rank one of "
        f"{' '.join(RANK_NAMES)} and suit one of S H D C (e.g. 8S, 10H, AC), or JK for a joker"
    )


def parse_cards(text: str) -> list[int]:
    """Parse whitespace-separated card notations, e.g. ``"8S 8D JK"``."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"cards' notation must be a string like '8S 8D JK', got {described(text)}")
    return [parse_card(tok) for tok in text.split()]


def full_deck() -> list[int]:
    """The 108 cards in a fixed order: two copies of each natural card, then 4 jokers (R1)."""
    return [c for c in range(JOKER) for _ in range(COPIES_PER_NATURAL)] + [JOKER] * NUM_JOKERS


def deck_counts() -> list[int]:
    """How many physical cards of each type the 108-card deck holds."""
    return [COPIES_PER_NATURAL] * JOKER + [NUM_JOKERS]


def counts_of(cards: Iterable[int]) -> list[int]:
    """Multiset of card types as a list of 53 counts."""
    counts = [0] * NUM_CARD_TYPES
    for c in cards:
        counts[c] += 1
    return counts


def cards_of(counts: Sequence[int]) -> list[int]:
    """Sorted list of card types from a list of 53 counts (inverse of :func:`counts_of`)."""
    return [c for c in range(NUM_CARD_TYPES) for _ in range(counts[c])]


def hand_penalty(counts: Sequence[int]) -> int:
    """Penalty points of a hand given as counts (R14)."""
    return sum(n * p for n, p in zip(counts, PENALTY) if n)


def sort_key(card: int) -> tuple[int, int]:
    """Sort cards by suit then rank, jokers last (how hands are shown)."""
    return (NUM_SUITS, 0) if card == JOKER else (suit_of(card), rank_of(card))


def cards_str(cards: Iterable[int], symbols: bool = False) -> str:
    """Space-separated notation (or symbols) of some cards."""
    fmt = card_symbol if symbols else card_str
    return " ".join(fmt(c) for c in cards)
