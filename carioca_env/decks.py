"""Decks: the check that a deck is the 108 cards (R1, R16) and stacking one that deals
given hands (for tests and puzzles)."""

from __future__ import annotations

from collections.abc import Sequence

from carioca_env.cards import DECK_SIZE, NUM_CARD_TYPES, card_str, cards_of, counts_of, deck_counts
from carioca_env.errors import ArgumentTypeError, MisdealError, described


def validate_deck(deck: Sequence[int]) -> None:
    """Raise :class:`MisdealError` unless ``deck`` is a permutation of the 108 cards (R1, R16).

    Raises:
        ArgumentTypeError: ``deck`` is not a list or tuple.
        MisdealError: a wrong size, a value that is no card type, or wrong copies.
    """
    if not isinstance(deck, (list, tuple)):
        raise ArgumentTypeError(
            f"deck must be a list of {DECK_SIZE} card types 0..52, got {described(deck)}"
        )
    if len(deck) != DECK_SIZE:
        raise MisdealError(
            f"a deck must hold {DECK_SIZE} cards (two 52-card packs and 4 jokers), got {len(deck)}"
        )
    for i, c in enumerate(deck):
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NUM_CARD_TYPES:
            raise MisdealError(f"a deck holds card types 0..52 (ints) only; position {i} holds {described(c)}")
    have, want = counts_of(deck), deck_counts()
    wrong = [f"{card_str(c)} x{have[c]} (want {want[c]})" for c in range(NUM_CARD_TYPES) if have[c] != want[c]]
    if wrong:
        raise MisdealError(
            "the deck is not a permutation of the 108 cards: " + ", ".join(wrong[:6])
            + (" ..." if len(wrong) > 6 else "")
        )


def stack_deck(
    hands: Sequence[Sequence[int]],
    upcard: int,
    stock_top: Sequence[int] = (),
    dealer: int = -1,
) -> list[int]:
    """Build a deck that deals the given hands, upcard and stock top (for tests and puzzles).

    ``hands[s]`` is seat ``s``'s hand (every hand of the deal's size); ``stock_top`` are the
    first stock cards in draw order; the remaining cards follow in a fixed order.
    ``dealer`` is the seat that deals (needed to map seats to dealing order; default the
    last seat, so seat 0 is dealt first).

    Raises:
        MisdealError: the cards asked for are not all in the 108-card deck.
    """
    n = len(hands)
    if dealer < 0:
        dealer = n - 1
    sizes = {len(h) for h in hands}
    if len(sizes) != 1:
        raise MisdealError(f"every hand must have the same size, got sizes {sorted(sizes)}")
    size = sizes.pop()
    remaining = deck_counts()
    for c in [c for h in hands for c in h] + [upcard] + list(stock_top):
        if remaining[c] == 0:
            raise MisdealError(f"too many copies of {card_str(c)} asked for the deck")
        remaining[c] -= 1
    deck: list[int] = []
    order = [(dealer + 1 + i) % n for i in range(n)]
    for r in range(size):
        for seat in order:
            deck.append(hands[seat][r])
    deck.append(upcard)
    deck.extend(stock_top)
    deck.extend(cards_of(remaining))
    return deck
