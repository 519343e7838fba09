"""An opponent model for determinizations: hidden hands as far along as the play implies.

:func:`carioca_env.determinize.determinize_view` deals the unseen cards uniformly.  An
opponent who has played for a while is not holding a random hand: it drew and kept what
brought it closer to its contract, so a uniform hand is further from the contract than
the true one, and the more so the longer the deal has run.  Search over such hands
believes every opponent is slow, and its own long plans look safe when they are not
(the calibration: ``docs/results/2026-12-01-search-and-heuristic.md``).

:func:`informed_determinization` replays, for each unopened opponent, the draws it made
from the stock this deal (their number is public: the history shows each stock draw)
on the unseen cards: the hidden part of its hand starts as a uniform deal from the
unseen cards, and each replayed draw takes a random unseen card, keeps it when it
lowers the hand's exact deficiency for the contract (:func:`carioca_env.analysis.analyze`),
and then gives back a card whose loss keeps that deficiency (a drawn card that does not
help is given back at once).  That is what a player who keeps only useful cards would
hold after as many draws.  Opened opponents' hidden cards and the stock stay uniform.

It reads only the seat's :class:`~carioca_env.PlayerView`: the seat's own hand, the
table, the discard pile and the cards each opponent surely holds stay where they are
(the result's view for the seat is the view it came from), and only the unseen cards
move between the hidden places.  Everything random comes from the caller's generator.
"""

from __future__ import annotations

import random

from carioca_env import Game, PlayerView
from carioca_env.analysis import analyze
from carioca_env.determinize import game_from_view, unseen_places

#: Replayed draws per stock draw of the opponent (see :func:`informed_hidden`).
DEFAULT_FACTOR = 2.0


def stock_draws(view: PlayerView) -> list[int]:
    """Per seat, how many cards it drew from the stock this deal (public: the history)."""
    out = [0] * view.num_players
    for event in view.history:
        if event.kind == "DRAW_STOCK":
            out[event.seat] += 1
    return out


def informed_hidden(
    view: PlayerView, rng: random.Random, factor: float = DEFAULT_FACTOR
) -> tuple[list[tuple[int, ...]], list[int]]:
    """The hidden part of each seat's hand and the stock (in draw order) of one sample.

    Each unopened opponent's hidden cards replay ``factor`` times its stock draws (see
    the module docstring); everything else is uniform from ``rng``.

    Raises:
        InvalidPositionError: the view is inconsistent (hidden places that do not match
            the unseen cards).
    """
    pool, slots = unseen_places(view)
    rng.shuffle(pool)
    draws = stock_draws(view)
    hidden: list[tuple[int, ...]] = []
    for s in range(view.num_players):
        k = slots[s]
        mine, pool = pool[:k], pool[k:]
        if k and not view.opened[s] and pool:
            mine = _replay(view, s, mine, pool, round(factor * draws[s]), rng)
        hidden.append(tuple(mine))
    rng.shuffle(pool)  # the cards given back went to its end: the stock is uniform again
    return hidden, pool


def _replay(
    view: PlayerView, seat: int, mine: list[int], pool: list[int], draws: int, rng: random.Random
) -> list[int]:
    """``seat``'s hidden cards after ``draws`` replayed stock draws from ``pool`` (which
    receives every card given back, so the unseen cards stay the same multiset)."""
    counts = list(view.known_cards[seat])
    for c in mine:
        counts[c] += 1
    contract = view.contract
    now = analyze(counts, contract, want_outs=False).deficiency
    for _ in range(draws):
        if now <= 1:
            break  # an unopened player is never complete: it opens as soon as it can
        i = rng.randrange(len(pool))
        card = pool[i]
        counts[card] += 1
        after = analyze(counts, contract, want_outs=False).deficiency
        if after >= now:
            counts[card] -= 1
            continue
        # keep it; give back a hidden card (never a known one) that keeps the new deficiency
        back = None
        order = list(range(len(mine)))
        rng.shuffle(order)
        for j in order:
            c = mine[j]
            counts[c] -= 1
            if analyze(counts, contract, want_outs=False).deficiency == after:
                back = j
                break
            counts[c] += 1
        if back is None:  # every hidden card is needed: the draw is not kept after all
            counts[card] -= 1
            continue
        pool[i] = mine[back]
        mine[back] = card
        now = after
    return mine


def informed_determinization(
    view: PlayerView, rng: random.Random, factor: float = DEFAULT_FACTOR
) -> Game:
    """A one-deal game consistent with ``view`` whose unopened opponents' hidden cards
    are as far along as their stock draws imply (see the module docstring)."""
    hidden, stock = informed_hidden(view, rng, factor)
    return game_from_view(view, hidden, stock, rng.getrandbits(63))
