"""The action features of the version-4 luck value function: what each option of an agent's
declared random choice is worth to each seat.

Version 4 adds AIVAT's *action terms* to version 3's draw corrections.  When an agent
declares that it drew its move at random among options with known probabilities
(:class:`carioca_agents.base.DeclaredChoice`), the correction of each seat gains
``V(after the option played) - sum_a p(a) V(after a)``, which has expectation 0 given the
past whatever ``V`` is.  Its value after option ``a`` is, for each seat ``s``, a sum of
products ``context[s, i] * attribute[a, s, j] * w[r, i, j]`` as in version 3:

- the *context* is version 3's (:data:`carioca_experiments.evaluation.luck.draw_features.CONTEXT`),
  read from the state before the move, the mover in the drawer's place;
- the *attributes* (:data:`ACTION_ATTRS`) are properties of the option relative to seat
  ``s``: of the card it puts on the discard pile (whether it helps ``s``, its points, the
  cards of its rank and of its suit nearby in ``s``'s hand, a joker) and of the cards it
  takes out of the mover's hand (the same, summed, and how many cards of their rank and
  of their suit nearby are still in the stock: what the mover gives up);
- ``w`` is fitted per player count, contract and ``r``, the seat's position after the
  mover, jointly with the draw weights (:mod:`carioca_experiments.studies.luck.fit4`).

Only options of kinds that move cards out of the hand are valued (discards, openings,
lay-offs, joker swaps); a choice among draws gets no term (leaving a term out keeps the
estimate unbiased: whether it is left out is known before the pick).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from carioca_env.cards import JOKER, NUM_CARD_TYPES, NUM_RANKS, NUM_SUITS
from carioca_env.moves import Move, MoveKind
from carioca_experiments.evaluation.luck.draw_features import _JOKER, _POINTS, _neighbours, seat_contexts, suit_near
from carioca_experiments.studies.luck.seat_features import stock_counts

#: Version of :func:`action_features`: a value file is only read with the features it was fitted on.
FEATURE_VERSION = "action-4"
#: An option's attributes relative to a seat, in column order.
ACTION_ATTRS = ("pile_helps", "pile_points", "pile_pairs", "pile_runs", "pile_joker",
                "out_helps", "out_points", "out_pairs", "out_runs", "out_stock_rank", "out_stock_suit")
#: The kinds of move whose options are valued.
VALUED = frozenset({MoveKind.DISCARD, MoveKind.OPEN, MoveKind.LAY_OFF, MoveKind.SWAP})


def valued(options: Sequence[Move]) -> bool:
    """Whether every option is of a kind version 4 values (:data:`VALUED`)."""
    return all(m.kind in VALUED for m in options)


def removed(move: Move) -> np.ndarray:
    """Per card type, the cards ``move`` takes out of the mover's hand (a swap's joker comes
    in: -1)."""
    out = np.zeros(NUM_CARD_TYPES)
    if move.kind is MoveKind.OPEN:
        for meld in move.melds:
            for c in meld.cards:
                out[c] += 1.0
    elif move.kind in VALUED:
        out[move.card] += 1.0
        if move.kind is MoveKind.SWAP:
            out[JOKER] -= 1.0
    return out


def _stock_neighbours(stock: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per card type: ``(stock cards of its rank, over 8; stock cards of its suit within two
    ranks of it, over 8)``; 0 for the joker."""
    naturals = stock[:JOKER].reshape(NUM_SUITS, NUM_RANKS)
    rank = np.zeros(NUM_CARD_TYPES)
    rank[:JOKER] = np.tile(naturals.sum(axis=0), NUM_SUITS) / 8.0
    suit = np.zeros(NUM_CARD_TYPES)
    suit[:JOKER] = suit_near(naturals).ravel() / 8.0
    return rank, suit


def action_features(game: Any, options: Sequence[Move]) -> tuple[np.ndarray, np.ndarray]:
    """``(context [n, len(CONTEXT)], attributes [len(options), n, len(ACTION_ATTRS)])`` of the
    options of the player to act, from the state before its move.

    Raises:
        ValueError: an option is of a kind that is not valued (:func:`valued`).
    """
    if not valued(options):
        raise ValueError("version-4 action features value discards, openings, lay-offs and swaps only")
    n = game.num_players
    mover = game.current
    stock = stock_counts(game)
    ctx, goods, counts = seat_contexts(game, list(game.hands), mover, float(stock.sum()))
    out = np.array([removed(m) for m in options])  # [k, types]
    pile = np.zeros_like(out)
    for i, m in enumerate(options):
        if m.kind is MoveKind.DISCARD:
            pile[i, m.card] = 1.0
    s_rank, s_suit = _stock_neighbours(stock)
    attrs = np.empty((len(options), n, len(ACTION_ATTRS)))
    for s in range(n):
        pairs, runs = _neighbours(counts[s])
        g = goods[s]
        attrs[:, s, 0] = pile @ g
        attrs[:, s, 1] = pile @ _POINTS
        attrs[:, s, 2] = pile @ pairs
        attrs[:, s, 3] = pile @ runs
        attrs[:, s, 4] = pile @ _JOKER
        attrs[:, s, 5] = out @ g
        attrs[:, s, 6] = out @ _POINTS
        attrs[:, s, 7] = out @ pairs
        attrs[:, s, 8] = out @ runs
        attrs[:, s, 9] = out @ s_rank
        attrs[:, s, 10] = out @ s_suit
    return ctx, attrs


def centred(attrs: np.ndarray, chosen: int, probs: Sequence[float]) -> np.ndarray:
    """The chosen option's attributes minus their probability-weighted mean over the options
    (``[n, len(ACTION_ATTRS)]``): an action term is linear in them."""
    p = np.asarray(probs, dtype=np.float64)
    return attrs[chosen] - np.tensordot(p, attrs, axes=1)
