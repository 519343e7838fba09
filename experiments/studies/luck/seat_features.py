"""Version 1's features of a full game state for the luck value function (a study: :mod:`carioca_experiments.studies.luck.values`).

A state is read in full (every hand, the table, the discard pile, whose turn it is), never
the order of the stock.  Everything is first reduced to a few *seat statistics* per seat
(:data:`STATS`): whether it has opened, its deficiency toward the contract (the fewest cards
it still has to draw to hold the whole contract, :func:`carioca_env.analysis.analyze`), its
hand penalty and size, and, once opened, how many of its cards can be laid off on the
table now.  :func:`design` turns seat statistics into the regression's design rows, one
per seat, relative to the seat that just drew.

The statistics after every possible stock draw come from one analysis of the drawer's hand
before the draw (:func:`draw_stats`): drawing an *out* lowers the deficiency by exactly one
and any other card leaves it, a drawn card adds its points to the penalty and, for an
opened seat, is layable or not.  So the value of all possible draws costs one analysis and
one vectorised product, not one per card; :func:`state_stats` computes the same numbers
for the one state at hand, and the tests check that the two agree card by card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from carioca_env.analysis import analyze
from carioca_env.cards import NUM_CARD_TYPES, PENALTY
from carioca_experiments.evaluation.luck.race_features import layable_types, stock_counts

#: The seat statistics, in column order.
STATS = ("opened", "deficiency", "penalty", "size", "layable", "junk")
OPENED, DEF, PEN, SIZE, LAY, JUNK = range(len(STATS))

#: Version of :func:`design`: a value file is only read with the features it was fitted on.
FEATURE_VERSION = "seat-stats-1"

#: Deficiencies above this are one category (contract 7 can start a dozen cards short).
D_CAP = 6
#: Cards an opened seat cannot lay off now, above this one category.
JUNK_CAP = 5
#: A seat's distance to closing (see :func:`design`), above this one category.
DIST_CAP = 5

_POINTS = np.array(PENALTY, dtype=np.float64)


def _seat_row(counts: Sequence[int], opened: bool, contract: Any, layable: np.ndarray) -> list[float]:
    cnt = np.asarray(counts, dtype=np.float64)
    pen = float(cnt @ _POINTS)
    size = float(cnt.sum())
    if opened:
        lay = float(cnt @ layable)
        junk = float((cnt * (1.0 - layable)) @ _POINTS)
        return [1.0, 0.0, pen, size, lay, junk]
    d = float(analyze(counts, contract, want_outs=False).deficiency)
    return [0.0, d, pen, size, 0.0, pen]


def state_stats(game: Any) -> np.ndarray:
    """The seat statistics of the state as it is: an array ``[num_players, len(STATS)]``."""
    lay = layable_types(game)
    return np.array(
        [_seat_row(game.hands[s], game.opened[s], game.contract, lay) for s in range(game.num_players)],
        dtype=np.float64,
    )


def draw_stats(game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seat statistics after each possible stock draw of the player to act.

    The game must be in its draw phase with a non-empty stock.  Returns ``(cards,
    weights, stats)``: the card types in the stock, their copies (the next card is uniform
    over the stock's cards, whatever the history of shuffles and recycles), and an array
    ``[len(cards), num_players, len(STATS)]``: row ``k`` is :func:`state_stats` of the state
    after drawing ``cards[k]``.
    """
    counts = stock_counts(game)
    cards = np.flatnonzero(counts)
    weights = counts[cards]
    lay = layable_types(game)
    seat = game.current
    base = np.array(
        [_seat_row(game.hands[s], game.opened[s], game.contract, lay) if s != seat else [0.0] * len(STATS)
         for s in range(game.num_players)],
        dtype=np.float64,
    )
    stats = np.repeat(base[None, :, :], len(cards), axis=0)
    hand = np.asarray(game.hands[seat], dtype=np.float64)
    pts = _POINTS[cards]
    pen = float(hand @ _POINTS)
    size = float(hand.sum())
    row = stats[:, seat, :]
    row[:, PEN] = pen + pts
    row[:, SIZE] = size + 1.0
    if game.opened[seat]:
        lay_c = lay[cards]
        row[:, OPENED] = 1.0
        row[:, LAY] = float(hand @ lay) + lay_c
        row[:, JUNK] = float((hand * (1.0 - lay)) @ _POINTS) + (1.0 - lay_c) * pts
    else:
        a = analyze(game.hands[seat], game.contract, want_outs=True)
        outs = np.zeros(NUM_CARD_TYPES, dtype=np.float64)
        if a.outs:
            outs[list(a.outs)] = 1.0
        row[:, DEF] = a.deficiency - outs[cards]
        row[:, JUNK] = pen + pts
    return cards, weights, stats


#: per player count, for each seat the indices of the other seats (``[n, n - 1]``)
_OTHERS = {n: np.array([[o for o in range(n) if o != s] for s in range(n)]) for n in (2, 3, 4)}


def _onehot(x: np.ndarray, cap: int) -> np.ndarray:
    return (np.minimum(x, cap)[..., None] == np.arange(cap + 1)).astype(np.float64)


def design(stats: np.ndarray, mover: int, turn: int) -> np.ndarray:
    """Design rows ``[..., num_players, num_features]`` from seat statistics ``[..., num_players, len(STATS)]``.

    ``mover`` is the seat that just drew (the player to act), ``turn`` the deal's
    completed turns.  Each seat's row describes the seat itself (its deficiency or, once
    opened, its cards that cannot be laid off; its penalty), the threat from the others
    (the smallest *distance* among them: deficiency + 1 for a seat that has not opened,
    cards it cannot lay off for one that has), the crossing of the two, how many turns
    until it acts again, and how far the deal has gone.
    """
    n = stats.shape[-2]
    opened = stats[..., OPENED]
    un = 1.0 - opened
    d = stats[..., DEF]
    pen = stats[..., PEN] / 100.0
    size = stats[..., SIZE]
    junk_n = size - stats[..., LAY]
    junk = stats[..., JUNK] / 100.0
    dist = np.where(opened > 0, junk_n, d + 1.0)
    others = np.min(dist[..., _OTHERS[n]], axis=-1)  # per seat, the smallest distance among the other seats
    opp_open = np.sum(opened, axis=-1, keepdims=True) - opened
    rel = (np.arange(n) - mover) % n
    rel_oh = np.broadcast_to(_onehot(rel.astype(np.float64), 3), stats.shape[:-1] + (4,))
    d_oh = _onehot(d, D_CAP) * un[..., None]
    j_oh = _onehot(junk_n, JUNK_CAP) * opened[..., None]
    own = np.concatenate([d_oh, j_oh], axis=-1)
    threat = _onehot(others, DIST_CAP)
    cross = (own[..., :, None] * threat[..., None, :]).reshape(own.shape[:-1] + (-1,))
    t = np.full_like(pen, min(turn, 150) / 50.0)
    cols = [
        np.ones_like(pen)[..., None],
        own,
        own * pen[..., None],
        cross,
        threat * pen[..., None],
        (pen * un)[..., None],
        (pen * opened)[..., None],
        (junk * opened)[..., None],
        (size * opened)[..., None],
        (size * un)[..., None],
        (opp_open / 3.0)[..., None],
        ((opp_open / 3.0) * pen)[..., None],
        rel_oh,
        rel_oh * un[..., None],
        rel_oh * pen[..., None],
        t[..., None],
        (t * un)[..., None],
        (t * pen)[..., None],
        (t * d * un / 10.0)[..., None],
    ]
    return np.concatenate(cols, axis=-1)


def num_features(num_players: int) -> int:
    """Columns of :func:`design` (the same for every player count)."""
    return design(np.zeros((num_players, len(STATS))), 0, 0).shape[-1]
