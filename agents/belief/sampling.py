"""Determinizations from per-card beliefs: exact hand sizes, exact marginals.

A belief gives, for an opponent's hidden cards (the part of its hand the seat cannot
see), a weight per card type.  :func:`inclusion` turns the weights into the probability
that each unseen copy of a card type is among those ``k`` hidden cards: ``min(1, lam *
w)`` with ``lam`` chosen so that the probabilities sum to ``k`` (a copy can be held at most
once, so a heavy weight saturates at 1 and the rest share what remains).  The expected
count of a card type is its unseen copies times its probability.

:func:`systematic_sample` draws exactly ``k`` copies with exactly those probabilities
(Madow's systematic sampling over a random order of the copies): the cumulative
probabilities are cut by ``u, u + 1, ..., u + k - 1`` for one uniform ``u``.  Sampling
without replacement weighted by the counts would not do: its marginals drift from the
weights as the hand fills.

With several opponents the hands are drawn in seat order after the viewing seat, each
from the cards the previous ones left: the first opponent's marginals are exact, a later
one's are its weights renormalised over what is left (the sum over opponents of their
beliefs may exceed the unseen copies of a card, which no sample can honour).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence

from carioca_env import Game, PlayerView
from carioca_env.cards import NUM_CARD_TYPES, cards_of
from carioca_env.determinize import game_from_view, unseen_places, unseen_pool
from carioca_env.errors import ArgumentTypeError, described

#: Probabilities this close to 1 are taken as certain (float sums of many terms drift).
_SURE = 1.0 - 1e-12


def inclusion(weights: Sequence[float], pool: Sequence[int], k: int) -> list[float]:
    """Per card type, the probability that one unseen copy is among ``k`` hidden cards.

    ``weights[c]`` > 0 is the belief's relative weight of one copy of card type ``c``;
    ``pool[c]`` the unseen copies.  The result ``p`` has ``sum(pool[c] * p[c]) == k``,
    ``0 <= p[c] <= 1``, ``p[c]`` proportional to ``weights[c]`` below the cap of 1, and 0
    where ``pool[c]`` is 0.

    Raises:
        ValueError: ``k`` is negative or more than the unseen copies, or a weight of a
            card with unseen copies is not positive.
    """
    total = sum(pool)
    if not 0 <= k <= total:
        raise ValueError(f"{k} hidden cards cannot come from {total} unseen cards")
    live = [c for c in range(len(pool)) if pool[c] > 0]
    if any(not weights[c] > 0 for c in live):
        raise ValueError("every card type with unseen copies needs a positive weight")
    out = [0.0] * len(pool)
    if k == 0:
        return out
    # water-filling: the heaviest types saturate at 1 until lam * w <= 1 for the rest
    live.sort(key=lambda c: -weights[c])
    rest_mass = sum(pool[c] * weights[c] for c in live)
    need = float(k)
    j = 0
    while j < len(live):
        lam = need / rest_mass
        c = live[j]
        if lam * weights[c] < 1.0:
            break
        out[c] = 1.0
        need -= pool[c]
        rest_mass -= pool[c] * weights[c]
        j += 1
    if j < len(live):
        lam = need / rest_mass
        for c in live[j:]:
            out[c] = min(1.0, lam * weights[c])
    return out


def systematic_sample(units: list[int], probs: Sequence[float], k: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """Choose exactly ``k`` of ``units`` (card types, one entry per copy), copy ``i``
    with probability ``probs[units[i]]`` (which sum to ``k`` over the units); returns
    ``(chosen, left)``, both in a random order.  Units of probability 1 are always chosen."""
    order = list(range(len(units)))
    rng.shuffle(order)
    sure = [i for i in order if probs[units[i]] >= _SURE]
    maybe = [i for i in order if probs[units[i]] < _SURE]
    want = k - len(sure)
    chosen_idx = list(sure)
    if want > 0:
        p = [probs[units[i]] for i in maybe]
        scale = want / sum(p)  # undo float drift: the cut points must fall inside the total
        cum: list[float] = []
        acc = 0.0
        for x in p:
            acc += x * scale
            cum.append(acc)
        u = rng.random()
        taken = set()
        for j in range(want):
            i = min(bisect_right(cum, u + j), len(maybe) - 1)
            while i in taken:  # only when float error puts two cuts in one copy
                i = (i + 1) % len(maybe)
            taken.add(i)
        chosen_idx += [maybe[i] for i in sorted(taken)]
    chosen_set = set(chosen_idx)
    chosen = [units[i] for i in chosen_idx]
    left = [units[i] for i in order if i not in chosen_set]
    rng.shuffle(chosen)
    return chosen, left


def sample_hidden(
    view: PlayerView, weights: Sequence[Sequence[float]], rng: random.Random
) -> tuple[list[tuple[int, ...]], list[int]]:
    """The hidden part of each seat's hand and the stock (in draw order) of one sample:
    each opponent's hidden cards drawn by :func:`systematic_sample` with the probabilities
    :func:`inclusion` gives its ``weights`` row over the cards still undealt (opponents in
    seat order after the viewing seat), the stock a uniform order of the rest.

    Raises:
        ArgumentTypeError: ``rng`` is not a ``random.Random``.
        InvalidPositionError: the view is inconsistent.
    """
    if not isinstance(rng, random.Random):
        raise ArgumentTypeError(f"rng must be a random.Random, got {described(rng)}")
    units, slots = unseen_places(view)
    n = view.num_players
    hidden: list[tuple[int, ...]] = [()] * n
    for step in range(1, n):
        s = (view.seat + step) % n
        k = slots[s]
        if k == 0:
            continue
        pool = [0] * NUM_CARD_TYPES
        for c in units:
            pool[c] += 1
        probs = inclusion(weights[s], pool, k)
        chosen, units = systematic_sample(units, probs, k, rng)
        hidden[s] = tuple(chosen)
    rng.shuffle(units)
    return hidden, units


def sample_game(view: PlayerView, weights: Sequence[Sequence[float]], rng: random.Random) -> Game:
    """A one-deal game consistent with ``view`` whose hidden hands follow ``weights``
    (:func:`sample_hidden`); the game's own generator is seeded from ``rng``."""
    hidden, stock = sample_hidden(view, weights, rng)
    return game_from_view(view, hidden, stock, rng.getrandbits(63))


def game_with_hidden(view: PlayerView, hidden: Sequence[Sequence[int]], rng: random.Random) -> Game:
    """A one-deal game consistent with ``view`` in which each opponent's hidden cards are
    ``hidden[seat]`` (the viewing seat's entry empty), the stock the other unseen cards in
    an order from ``rng``; the game's own generator is seeded from ``rng`` (the candidate
    beliefs, inferred and filtered, deal a weighted candidate this way)."""
    left = unseen_pool(view)
    for cards in hidden:
        for c in cards:
            left[c] -= 1
    stock = cards_of(left)
    rng.shuffle(stock)
    return game_from_view(view, [tuple(h) for h in hidden], stock, rng.getrandbits(63))
