"""Determinization: a full game consistent with everything one seat knows.

Search over an imperfect-information game (PIMC, IS-MCTS) samples the hidden cards and
plays on a full game.  :func:`determinize_view` builds such a game from a seat's
:class:`~carioca_env.PlayerView` alone, so an agent can search without ever touching the
real game; :func:`determinize` (and ``Game.determinize(seat, rng)``) is the same from a
game.

What is kept (everything the seat has seen): its own hand, the table, the discard pile,
the stock size, every hand size, the public history of the deal, the cards each seat
took from the discard pile, the cards each opponent *surely* still holds
(``PlayerView.known_cards``: taken from the pile and not shown since), each seat's
discards, the turn, phase, dealer, deal and totals.  The seat's own view of the result is
the view it started from.

What is sampled: the unseen cards (the 108 minus the seat's hand, the table, the discard
pile and the cards known to be in other hands) are shuffled uniformly by the caller's
generator and dealt to the hidden part of each opponent's hand, in seat order, and the
rest becomes the stock in that random order.  Every arrangement of the unseen cards
over the hidden places is equally likely (no inference from the opponents' play).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from carioca_env.cards import NUM_CARD_TYPES, cards_of, deck_counts
from carioca_env.errors import ArgumentTypeError, described
from carioca_env.game import Game
from carioca_env.position import InvalidPositionError, Position, game_from_position
from carioca_env.view import PlayerView

#: a ``random.Random`` or a ``numpy.random.Generator``
RandomSource = Any


def check_rng(rng: Any) -> RandomSource:
    """``rng`` if it is a generator this module can draw from, else a typed error naming it.

    A ``random.Random``, or a ``numpy.random.Generator`` (recognised by its methods, so the
    engine does not import numpy): a seed (an int, ``None``, a string) is refused rather
    than turned into a generator here, because the caller's generator is what keeps a
    search reproducible.

    Raises:
        ArgumentTypeError: ``rng`` is neither.
    """
    if isinstance(rng, random.Random) or (callable(getattr(rng, "permutation", None))
                                          and callable(getattr(rng, "integers", None))):
        return rng
    raise ArgumentTypeError(
        f"rng must be a random.Random or a numpy.random.Generator, got {described(rng)} "
        f"(for a seed s, pass random.Random(s))"
    )


def _permute(cards: list[int], rng: RandomSource) -> list[int]:
    """A uniformly random order of ``cards`` from either kind of generator."""
    if isinstance(rng, random.Random):
        out = cards.copy()
        rng.shuffle(out)
        return out
    order = rng.permutation(len(cards))  # numpy.random.Generator
    return [cards[i] for i in order]


def _seed_from(rng: RandomSource) -> int:
    if isinstance(rng, random.Random):
        return rng.getrandbits(63)
    return int(rng.integers(0, 2**63 - 1))


def unseen_pool(view: PlayerView) -> list[int]:
    """Counts (53) of the cards ``view``'s seat has not seen and cannot place.

    The deck minus its own hand, the table, the discard pile and the cards other seats
    surely hold.

    Raises:
        InvalidPositionError: the view places more copies of a card than the deck has.
    """
    pool = deck_counts()
    placed = list(view.hand_counts)
    for melds in view.table:
        for m in melds:
            for c in m.cards:
                placed[c] += 1
    for c in view.discard_pile:
        placed[c] += 1
    for s, known in enumerate(view.known_cards):
        if s != view.seat:
            for c, k in enumerate(known):
                placed[c] += k
    for c in range(NUM_CARD_TYPES):
        pool[c] -= placed[c]
        if pool[c] < 0:
            raise InvalidPositionError("cards", f"the view places {placed[c]} copies of card type {c}")
    return pool


def hidden_slots(view: PlayerView) -> list[int]:
    """Per seat, how many of its cards ``view``'s seat cannot see (0 for itself)."""
    return [
        0 if s == view.seat else view.hand_sizes[s] - sum(view.known_cards[s])
        for s in range(view.num_players)
    ]


def unseen_places(view: PlayerView) -> tuple[list[int], list[int]]:
    """The cards ``view``'s seat has not seen (a list, by card type) and, per seat, its
    hidden places (:func:`hidden_slots`): what every sampler deals out.

    Raises:
        InvalidPositionError: the view is inconsistent (more cards than the deck holds, or
            hidden places and stock that do not match the unseen cards).
    """
    pool = cards_of(unseen_pool(view))
    slots = hidden_slots(view)
    if sum(slots) + view.stock_size != len(pool):
        raise InvalidPositionError(
            "hands", f"{len(pool)} unseen cards but {sum(slots)} hidden hand places and {view.stock_size} in the stock"
        )
    return pool, slots


def determinize_view(
    view: PlayerView, rng: RandomSource, deals: Sequence[int] | None = None
) -> Game:
    """A full game consistent with ``view`` (see the module docstring), hidden cards from ``rng``.

    ``deals`` is the game's list of contracts; without it the game plays only the current
    deal (``deals=(view.deal,)``), so it is over when this deal closes: what a search
    rollout needs.  The game's own generator (for later reshuffles) is seeded from ``rng``.

    Raises:
        InvalidPositionError: the view is inconsistent (more cards than the deck holds, or
            hidden places that do not match the unseen cards).
        ArgumentTypeError: ``rng`` is not a generator (see :func:`check_rng`).
    """
    check_rng(rng)
    pool, slots = unseen_places(view)
    shuffled = _permute(pool, rng)
    hidden: list[tuple[int, ...]] = []
    pos = 0
    for s in range(view.num_players):
        hidden.append(tuple(shuffled[pos:pos + slots[s]]))
        pos += slots[s]
    return game_from_view(view, hidden, tuple(shuffled[pos:]), _seed_from(rng), deals)


def game_from_view(
    view: PlayerView,
    hidden: Sequence[Sequence[int]],
    stock: Sequence[int],
    seed: int,
    deals: Sequence[int] | None = None,
) -> Game:
    """The full game of ``view`` with ``hidden[s]`` as the unseen part of seat ``s``'s
    hand (besides its :attr:`~carioca_env.PlayerView.known_cards`; empty for the viewing
    seat) and ``stock`` in draw order: the part of :func:`determinize_view` that places
    the cards, for samplers that choose the hidden cards another way.  ``deals`` as in
    :func:`determinize_view`; ``seed`` seeds the game's generator (later reshuffles).

    Raises:
        InvalidPositionError: the cards do not make the 108 of the deck with the view, or
            a hand or the stock has the wrong size.
    """
    slots = hidden_slots(view)
    if len(hidden) != view.num_players or any(len(h) != k for h, k in zip(hidden, slots)):
        raise InvalidPositionError(
            "hands", f"hidden parts of sizes {[len(h) for h in hidden]}, the view has {slots} hidden places"
        )
    if len(stock) != view.stock_size:
        raise InvalidPositionError("stock", f"{len(stock)} stock cards, the view has {view.stock_size}")
    hands: list[tuple[int, ...]] = []
    for s in range(view.num_players):
        if s == view.seat:
            hands.append(tuple(view.hand))
        else:
            hands.append(tuple(cards_of(view.known_cards[s])) + tuple(hidden[s]))
    if deals is None:
        deals, deal_index = (view.deal,), 0
    else:
        deals, deal_index = tuple(deals), view.deal_index
    position = Position(
        hands=tuple(hands),
        table=view.table,
        stock=tuple(stock),
        discard=view.discard_pile,
        dealer=view.dealer,
        current=view.current_player,
        phase=view.phase,
        deals=deals,
        deal_index=deal_index,
        totals=view.totals,
        deal_results=view.deal_results,
        turn=view.turn,
        history=tuple(view.history),
        picked=view.picked_from_discard,
        known=tuple(tuple(cards_of(k)) for k in view.known_cards),
        discarded=tuple(tuple(cards_of(d)) for d in view.discarded),
    )
    return game_from_position(position, seed)


def determinize(game: Game, seat: int, rng: RandomSource) -> Game:
    """A full game consistent with what ``seat`` knows of ``game`` (its view), the
    unseen cards dealt from ``rng``; the same list of deals, so ``seat``'s view of the
    result equals its view of ``game``.

    Raises:
        ArgumentTypeError: ``rng`` is not a generator (see :func:`check_rng`), checked
            before anything else is done.
    """
    check_rng(rng)
    return determinize_view(game.view(seat), rng, game.config.deals)
