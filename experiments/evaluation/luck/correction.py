"""The luck correction of one deal (AIVAT-style): the value of every stock draw's luck.

At each stock draw the correction of each seat is ``V(after the draw) - E[V]``, the
expectation over the card types still in the stock weighted by their copies (the stock's
next card is uniform over its cards: a deal's stock is a uniform shuffle, and a recycled
stock is shuffled again).  Each correction has expectation 0 given everything before it,
whatever ``V`` is, so ``penalty - sum of corrections`` is an unbiased estimate of the
expected penalty; a ``V`` that predicts the penalty well takes most of the draws' luck out.

What is not corrected, and why:

- *The deal* (hands and upcard): its correction, ``V(start) - E[V(start)]``, is a
  constant per seat for a dealt deck.  In a duplicate tournament every agent sits in
  every seat of a deck equally often, so that constant appears once in each agent's
  total and cancels exactly in every paired difference: it is left out (and with it an
  expectation over all possible deals that could only be estimated).  Under the
  ``random`` format it would not cancel; leaving it out still leaves the estimate
  unbiased (it removes less luck).
- *Draws from the discard pile and every move*: decisions, not chance.
- *An R13 redeal* (a deal cancelled for an empty stock is dealt again): rare, and left
  uncorrected for the same reason as the first deal; the draws of the cancelled attempt
  keep their corrections (each has expectation 0 given the past, so the sum stays unbiased).

Agents' own randomness is theirs (a policy), not chance: nothing here reads a policy, so
the correction works for every agent, built in, model or plugin.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carioca_env.moves import Move, MoveKind
from carioca_env.view import Phase
from experiments.evaluation.luck.value import AnyValue


class LuckTracker:
    """Accumulates the luck corrections of one deal as it is played.

    Call :meth:`before` with the move about to be applied and :meth:`after` once it has
    been; only stock draws do anything.  ``corrections[s]`` is the sum of seat ``s``'s
    corrections so far and ``draws`` the number of stock draws valued.
    """

    def __init__(self, value: AnyValue, num_players: int) -> None:
        self.value = value
        self.corrections = np.zeros(num_players, dtype=np.float64)
        self.draws = 0
        self._pending: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def before(self, game: Any, move: Move) -> None:
        """Value every possible outcome of ``move`` if it is a stock draw."""
        self._pending = None
        if move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock:
            cards, counts, values = self.value.draw_values(game)
            expected = np.sum(counts[:, None] * values, axis=0) / np.sum(counts)
            self._pending = (cards, values, expected)

    def after(self, game: Any) -> None:
        """Add the correction of the draw just applied (``game.drawn_card``)."""
        if self._pending is None:
            return
        cards, values, expected = self._pending
        self._pending = None
        k = int(np.searchsorted(cards, game.drawn_card))
        self.corrections += values[k] - expected
        self.draws += 1

    def corrected(self, penalty: list[int] | list[float]) -> list[float]:
        """``penalty - corrections`` per seat."""
        return [float(p) - float(c) for p, c in zip(penalty, self.corrections)]
