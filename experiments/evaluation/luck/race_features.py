"""Features of the state right after a stock draw for the version-2 luck value function.

Version 2 (:data:`FEATURE_VERSION` ``"race-2"``) adds to version 1's seat statistics
(:mod:`carioca_experiments.studies.luck.seat_features`, a study) what decides the race to close: each seat's *live*
cards, the copies still in the stock of the card types that help it (for a seat that has
not opened, the *outs* of its hand, the types that lower its deficiency; for an opened
seat, the types it could lay off on the table now), and how many cards the stock holds.

The value function is only evaluated right after a stock draw (the luck of a draw is
``V(after it) - E[V]``), so the drawer's statistics are read from its hand *before* the
draw and the card it drew: one analysis of the hand before the draw gives its deficiency
and outs, and drawing an out lowers the deficiency by exactly one (any other card leaves
it).  This is a function of the state after the draw (the hand minus the drawn card is the
hand before it), and it lets :func:`draw_stats` value every possible draw with that one
analysis instead of one per card.  The other seats' hands have not changed since their
last turn, so their analyses come from the per-process cache of
:func:`carioca_env.analysis.analyze`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carioca_env.analysis import analyze
from carioca_env.cards import NUM_CARD_TYPES, PENALTY
from carioca_env.view import Phase

#: Version of :func:`state_stats` and :func:`design`: a value file is only read with the features it was fitted on.
FEATURE_VERSION = "race-2"

#: The seat statistics, in column order.
STATS = ("opened", "deficiency", "penalty", "size", "layable", "junk", "live", "good")
OPENED, DEF, PEN, SIZE, LAY, JUNK, LIVE, GOOD = range(len(STATS))
#: Deficiencies above this are one value (contract 7 can start a dozen cards short).
D_CAP = 8

_POINTS = np.array(PENALTY, dtype=np.float64)


def layable_types(game: Any) -> np.ndarray:
    """0/1 per card type: whether a card of that type can be laid off on some table meld now."""
    out = np.zeros(NUM_CARD_TYPES, dtype=np.float64)
    for melds in game.table:
        for m in melds:
            for c in m.layoff_cards():
                out[c] = 1.0
    return out


def stock_counts(game: Any) -> np.ndarray:
    """Copies of each card type in the stock (its contents, not its order)."""
    return np.bincount(np.asarray(game.stock, dtype=np.int64), minlength=NUM_CARD_TYPES).astype(np.float64)


def just_drew(game: Any) -> bool:
    """Whether the state is right after a stock draw of the player to act."""
    return (game.phase is Phase.PLAY and bool(game.history) and game.history[-1].kind == "DRAW_STOCK"
            and game.history[-1].seat == game.current and game.drawn_card >= 0)


def _good_types(counts: Any, opened: bool, contract: Any, lay: np.ndarray) -> tuple[float, np.ndarray]:
    """``(deficiency, 0/1 per card type of the types that help)`` of one hand."""
    if opened:
        return 0.0, lay
    a = analyze(counts, contract, want_outs=True)
    good = np.zeros(NUM_CARD_TYPES, dtype=np.float64)
    if a.outs:
        good[list(a.outs)] = 1.0
    return float(a.deficiency), good


def _row(counts: np.ndarray, opened: bool, d: float, good: np.ndarray, lay: np.ndarray,
         stock: np.ndarray) -> list[float]:
    pen = float(counts @ _POINTS)
    size = float(counts.sum())
    if opened:
        nlay = float(counts @ lay)
        junk = float((counts * (1.0 - lay)) @ _POINTS)
    else:
        nlay, junk = 0.0, pen
    return [float(opened), d, pen, size, nlay, junk, float(stock @ good), float(good.sum())]


def state_stats(game: Any) -> np.ndarray:
    """The seat statistics ``[num_players, len(STATS)]`` of the state as it is.

    Right after a stock draw (:func:`just_drew`) the drawer's deficiency and live cards are
    those of its hand before the draw, less one deficiency if the card drawn was an out;
    :func:`draw_stats` gives the same numbers for every possible draw at once.
    """
    lay = layable_types(game)
    stock = stock_counts(game)
    drew = just_drew(game)
    rows = []
    for s in range(game.num_players):
        counts = np.asarray(game.hands[s], dtype=np.float64)
        opened = bool(game.opened[s])
        if drew and s == game.current:
            before = list(game.hands[s])
            before[game.drawn_card] -= 1
            d, good = _good_types(before, opened, game.contract, lay)
            if not opened:
                d -= good[game.drawn_card]
        else:
            d, good = _good_types(game.hands[s], opened, game.contract, lay)
        rows.append(_row(counts, opened, d, good, lay, stock))
    return np.array(rows, dtype=np.float64)


def draw_stats(game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seat statistics after each possible stock draw of the player to act.

    The game must be in its draw phase with a non-empty stock.  Returns ``(cards,
    weights, stats)``: the card types in the stock, their copies (the next card is uniform
    over the stock's cards), and ``[len(cards), num_players, len(STATS)]``: row ``k`` is
    :func:`state_stats` of the state after drawing ``cards[k]``.
    """
    stock = stock_counts(game)
    cards = np.flatnonzero(stock)
    weights = stock[cards]
    lay = layable_types(game)
    seat = game.current
    k = len(cards)
    n = game.num_players
    stats = np.empty((k, n, len(STATS)), dtype=np.float64)
    pts = _POINTS[cards]
    for s in range(n):
        counts = np.asarray(game.hands[s], dtype=np.float64)
        opened = bool(game.opened[s])
        d, good = _good_types(game.hands[s], opened, game.contract, lay)
        row = np.array(_row(counts, opened, d, good, lay, stock), dtype=np.float64)
        stats[:, s, :] = row
        # the drawn card leaves the stock: one live card fewer for every seat it helps
        stats[:, s, LIVE] = row[LIVE] - good[cards]
        if s != seat:
            continue
        stats[:, s, PEN] = row[PEN] + pts
        stats[:, s, SIZE] = row[SIZE] + 1.0
        if opened:
            stats[:, s, LAY] = row[LAY] + lay[cards]
            stats[:, s, JUNK] = row[JUNK] + (1.0 - lay[cards]) * pts
        else:
            stats[:, s, DEF] = d - good[cards]
            stats[:, s, JUNK] = row[JUNK] + pts
    return cards, weights, stats


#: per player count, for each seat the seats in playing order from it (``[n, n]``)
_ORDER = {n: np.array([[(s + i) % n for i in range(n)] for s in range(n)]) for n in (2, 3, 4)}


def design(stats: np.ndarray, mover: int, turn: int, stock: float) -> np.ndarray:
    """Input rows ``[..., num_players, num_inputs(num_players)]`` from seat statistics ``[..., num_players, len(STATS)]``.

    Row ``s`` describes seat ``s`` and then each other seat in playing order after it
    (so the same network values every seat), followed by how many turns until ``s`` acts
    (the player to act, ``mover``, has just drawn), how far the deal has gone (``turn``
    completed turns) and the cards left in the stock after the draw (``stock``).
    """
    n = stats.shape[-2]
    opened = stats[..., OPENED]
    un = 1.0 - opened
    stock_n = max(float(stock), 1.0)
    per_seat = np.stack([
        opened,
        np.minimum(stats[..., DEF], D_CAP) * un / 4.0,
        stats[..., PEN] / 100.0,
        stats[..., SIZE] / 10.0,
        (stats[..., SIZE] - stats[..., LAY]) * opened / 5.0,
        stats[..., JUNK] / 100.0,
        stats[..., LIVE] / 10.0,
        stats[..., LIVE] / stock_n,
        stats[..., GOOD] / 10.0,
    ], axis=-1)
    seats = per_seat[..., _ORDER[n], :]  # [..., n, n, per-seat]
    seats = seats.reshape(seats.shape[:-2] + (-1,))
    rel = (np.arange(n) - mover) % n
    glob = np.concatenate([
        (rel[:, None] == np.arange(n)).astype(np.float64),
        np.full((n, 1), min(turn, 150) / 50.0),
        np.full((n, 1), stock / 50.0),
    ], axis=-1)
    glob = np.broadcast_to(glob, seats.shape[:-1] + (glob.shape[-1],))
    return np.concatenate([seats, glob], axis=-1)


def num_inputs(num_players: int) -> int:
    """Columns of :func:`design` for a player count."""
    return design(np.zeros((num_players, len(STATS))), 0, 0, 1.0).shape[-1]
