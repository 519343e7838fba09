"""The draw features of the version-3 luck value function: what the drawn card is worth to each seat.

Version 3 (:data:`FEATURE_VERSION` ``"draw-3"``) values only what the luck correction
needs, the difference a stock draw makes.  Its value right after a stock draw is, for
each seat ``s``, a sum of products ``context[s, i] * attribute[s, j] * w[r, i, j]``:

- the *context* (:data:`CONTEXT`) is read from the state before the draw: seat ``s``'s
  own race (opened; deficiency 1, 2, 3 or more toward the contract; hand penalty), the
  drawer's race (opened; deficiency 1 or 2), the cards in the stock and the turn;
- the *attributes* (:data:`ATTRS`) are properties of the card drawn, relative to seat
  ``s``: whether it helps ``s`` (an *out* of its hand, a type that lowers its deficiency,
  or for an opened seat a type it could lay off), its penalty points, its points when it
  does not help ``s``, whether it helps the drawer, whether it is a joker;
- ``w`` is fitted per player count, contract and ``r``, the seat's position after the
  drawer in playing order (``r = 0`` is the drawer).

This is a function of the state after the draw (the drawer's hand minus the drawn card is
its hand before it), and since only attributes depend on the card, the values of every
possible draw cost one analysis per hand (the other seats' from the engine's cache) and
one small product: :func:`draw_features` computes them at once, :func:`state_features`
for the one state at hand (the tests check that the two agree card by card).

Why this shape: a luck correction only ever uses ``V(after the draw) - E[V]`` over the
possible draws, and every term here is a function of the state before the draw times a
property of the card, so the weights can be fitted to make the corrections themselves
explain the final penalties (:mod:`carioca_experiments.studies.luck.fit3`), instead of fitting a
value of whole states whose errors between draws add noise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carioca_env.cards import JOKER, NUM_CARD_TYPES, NUM_RANKS, NUM_SUITS, PENALTY
from carioca_experiments.evaluation.luck.race_features import _good_types, just_drew, layable_types, stock_counts

#: Version of :func:`draw_features`: a value file is only read with the features it was fitted on.
FEATURE_VERSION = "draw-3"
#: The context of a seat, read before the draw, in column order.
CONTEXT = ("one", "junk0", "junk1", "junk2", "junk3+", "def1", "def2", "def3", "def4+", "penalty",
           "drawer_junk<=1", "drawer_junk2+", "drawer_def1", "drawer_def2", "other_junk<=1", "other_def1", "stock", "turn")
#: The drawn card's attributes relative to a seat, in column order.
ATTRS = ("helps", "points", "points_not_helping", "helps_drawer", "joker", "pairs", "run_neighbours")

_POINTS = np.array(PENALTY, dtype=np.float64) / 10.0
_JOKER = np.zeros(NUM_CARD_TYPES, dtype=np.float64)
_JOKER[JOKER] = 1.0


def _context(opened: float, d: float, junk: float, pen: float, m_opened: float, m_d: float, m_junk: float,
             o_close: float, o_open: float, stock: float, turn: int) -> np.ndarray:
    """A seat's context: its race (cards it cannot lay off once opened, else its
    deficiency), its penalty, the drawer's race, whether another seat is one card from
    closing or from opening, how far the deal has gone."""
    un, m_un = 1.0 - opened, 1.0 - m_opened
    return np.array([1.0, opened * (junk == 0), opened * (junk == 1), opened * (junk == 2), opened * (junk >= 3),
                     un * (d == 1), un * (d == 2), un * (d == 3), un * (d >= 4), pen / 100.0,
                     m_opened * (m_junk <= 1), m_opened * (m_junk >= 2), m_un * (m_d == 1), m_un * (m_d == 2),
                     o_close, o_open, stock / 50.0, min(turn, 150) / 50.0])


def suit_near(naturals: np.ndarray) -> np.ndarray:
    """``[suits, ranks]``: per natural card, the cards of ``naturals`` (counts by suit and
    rank) of its suit at most two ranks away, itself excluded."""
    # slice additions, not np.pad and a sum over shifted copies: this runs at every draw for every seat
    near = np.zeros_like(naturals)
    near[:, 1:] += naturals[:, :-1]
    near[:, :-1] += naturals[:, 1:]
    near[:, 2:] += naturals[:, :-2]
    near[:, :-2] += naturals[:, 2:]
    return near


def _neighbours(hand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per card type: ``(cards of its rank in the hand, at most 2, over 2; cards of its suit
    within two ranks of it in the hand, over 4)``; 0 for the joker.  What a card that is not
    an out yet may become: a trio's pair, a run's neighbour."""
    naturals = hand[:JOKER].reshape(NUM_SUITS, NUM_RANKS)
    pairs = np.zeros(NUM_CARD_TYPES)
    pairs[:JOKER] = np.tile(np.minimum(naturals.sum(axis=0), 2.0) / 2.0, NUM_SUITS)
    near = suit_near(naturals)
    runs = np.zeros(NUM_CARD_TYPES)
    runs[:JOKER] = near.ravel() / 4.0
    return pairs, runs


def _goods(game: Any, hands: list[Any]) -> tuple[list[float], list[np.ndarray]]:
    lay = layable_types(game)
    ds, goods = [], []
    for s in range(game.num_players):
        d, good = _good_types(hands[s], bool(game.opened[s]), game.contract, lay)
        ds.append(d)
        goods.append(good)
    return ds, goods


def seat_contexts(game: Any, hands: list[Any], mover: int,
                  size: float) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """``(context [n, len(CONTEXT)], goods, counts)`` of every seat for ``hands``, ``mover``
    the seat to act and ``size`` cards in the stock: the context rows, and per seat the
    0/1 types that help it (:func:`carioca_experiments.evaluation.luck.race_features._good_types`) and
    its hand as counts."""
    n = game.num_players
    ds, goods = _goods(game, hands)
    ctx = np.empty((n, len(CONTEXT)))
    counts = [np.asarray(h, dtype=np.float64) for h in hands]
    # an opened seat's junk: the cards it cannot lay off now (its goods are the layable types)
    junk = [float(counts[s] @ (1.0 - goods[s])) for s in range(n)]
    m_opened = float(game.opened[mover])
    close = [bool(game.opened[s]) and junk[s] <= 1 for s in range(n)]
    opens = [not game.opened[s] and ds[s] == 1 for s in range(n)]
    for s in range(n):
        pen = float(counts[s] @ _POINTS) * 10.0
        o_close = float(any(close[o] for o in range(n) if o != s))
        o_open = float(any(opens[o] for o in range(n) if o != s))
        ctx[s] = _context(float(game.opened[s]), ds[s], junk[s], pen, m_opened, ds[mover], junk[mover], o_close,
                          o_open, size, game.turn)
    return ctx, goods, counts


def _features(game: Any, hands: list[Any], mover: int, stock: np.ndarray,
              cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(context [n, len(CONTEXT)], attributes [len(cards), n, len(ATTRS)])`` for the
    hands before the draw and the stock before it."""
    n = game.num_players
    ctx, goods, counts = seat_contexts(game, hands, mover, float(stock.sum()))
    attrs = np.empty((len(cards), n, len(ATTRS)))
    pts = _POINTS[cards]
    for s in range(n):
        g = goods[s][cards]
        pairs, runs = _neighbours(counts[s])
        attrs[:, s, 0] = g
        attrs[:, s, 1] = pts
        attrs[:, s, 2] = (1.0 - g) * pts
        attrs[:, s, 3] = goods[mover][cards]
        attrs[:, s, 4] = _JOKER[cards]
        attrs[:, s, 5] = pairs[cards]
        attrs[:, s, 6] = runs[cards]
    return ctx, attrs


def draw_features(game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The features of every possible stock draw of the player to act.

    The game must be in its draw phase with a non-empty stock.  Returns ``(cards, weights,
    context, attributes)``: the card types in the stock, their copies (the next card is
    uniform over the stock's cards), the context ``[num_players, len(CONTEXT)]`` and the
    attributes ``[len(cards), num_players, len(ATTRS)]`` of drawing ``cards[k]``.
    """
    stock = stock_counts(game)
    cards = np.flatnonzero(stock)
    ctx, attrs = _features(game, list(game.hands), game.current, stock, cards)
    return cards, stock[cards], ctx, attrs


def state_features(game: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(context, attributes [num_players, len(ATTRS)])`` of the state right after a stock draw
    (:func:`carioca_experiments.evaluation.luck.race_features.just_drew`), the drawn card's row of
    :func:`draw_features` before the draw.

    Raises:
        ValueError: the state is not right after a stock draw.
    """
    if not just_drew(game):
        raise ValueError("the version-3 luck features are defined right after a stock draw only")
    mover = game.current
    hands = [list(h) for h in game.hands]
    hands[mover][game.drawn_card] -= 1
    stock = stock_counts(game)
    stock[game.drawn_card] += 1
    ctx, attrs = _features(game, hands, mover, stock, np.array([game.drawn_card]))
    return ctx, attrs[0]


def values(weights: np.ndarray, mover: int, ctx: np.ndarray, attrs: np.ndarray) -> np.ndarray:
    """``V`` per possible draw and seat, ``[..., num_players]``, from :func:`draw_features`'
    context and attributes ``[..., num_players, len(ATTRS)]`` and the weights
    ``[num_players (position after the drawer), len(CONTEXT), len(ATTRS)]``."""
    n = ctx.shape[0]
    rel = (np.arange(n) - mover) % n
    per_seat = np.einsum("sc,sca->sa", ctx, weights[rel])  # [n, len(ATTRS)]
    return np.einsum("...sa,sa->...s", attrs, per_seat)


def basis(mover: int, ctx: np.ndarray, attrs: np.ndarray) -> np.ndarray:
    """The regression rows behind :func:`values`: ``[..., num_players, num_players * len(CONTEXT) * A]``
    (``A`` attributes, ``len(ATTRS)`` for draws) such that ``values(w, ...) == basis(...) @ w.ravel()``."""
    n = ctx.shape[0]
    rel = (np.arange(n) - mover) % n
    outer = ctx[:, :, None] * attrs[..., :, None, :]  # [..., n, C, A]
    # any attribute count: version 4's action attributes use the same layout
    out = np.zeros(attrs.shape[:-2] + (n, n, ctx.shape[1] * attrs.shape[-1]))
    for s in range(n):
        out[..., s, rel[s], :] = outer[..., s, :, :].reshape(attrs.shape[:-2] + (-1,))
    return out.reshape(attrs.shape[:-2] + (n, -1))
