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
- *Draws from the discard pile and every move*: decisions, not chance, unless the agent
  declares its move random (below).
- *An R13 redeal* (a deal cancelled for an empty stock is dealt again): rare, and left
  uncorrected for the same reason as the first deal; the draws of the cancelled attempt
  keep their corrections (each has expectation 0 given the past, so the sum stays unbiased).

*Action terms* (AIVAT's, for players whose policy is known): an agent's own coin flips are
luck too.  When the agent declares that it drew its move at random among options with
known probabilities (:class:`carioca_agents.base.DeclaredChoice`, read with
:func:`carioca_agents.base.declared_choice` and passed to :meth:`LuckTracker.before`), and the
value function values options (version 4, :meth:`~carioca_experiments.evaluation.luck.value.ActionValue.action_values`),
each seat's correction gains ``V(after the option played) - sum_a p(a) V(after a)``: it
too has expectation 0 given everything before it, whatever ``V`` is.  An agent that
declares nothing (learned models, plugins, search) gets no action terms, and its draws are
corrected as before, so the correction works for every agent.  Versions 1-3 value no
options: their corrections ignore declarations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from carioca_env.moves import Move, MoveKind
from carioca_env.view import Phase
from carioca_experiments.evaluation.luck.value import AnyValue

if TYPE_CHECKING:
    from carioca_agents.base import DeclaredChoice


class LuckTracker:
    """Accumulates the luck corrections of one deal as it is played.

    Call :meth:`before` with the move about to be applied (and the choice its agent
    declared, if any) and :meth:`after` once it has been; only stock draws and declared
    choices the value function values do anything.  ``corrections[s]`` is the sum of seat
    ``s``'s corrections so far, ``draws`` the number of stock draws valued and ``actions``
    the number of declared choices valued.
    """

    def __init__(self, value: AnyValue, num_players: int) -> None:
        self.value = value
        self.corrections = np.zeros(num_players, dtype=np.float64)
        self.draws = 0
        self.actions = 0
        self._pending: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def before(self, game: Any, move: Move, choice: DeclaredChoice | None = None) -> None:
        """Value every possible outcome of ``move`` if it is a stock draw; if ``choice`` (the
        declared choice ``move`` was drawn from) can be valued, add its action term."""
        self._pending = None
        if move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock:
            cards, counts, values = self.value.draw_values(game)
            expected = np.sum(counts[:, None] * values, axis=0) / np.sum(counts)
            self._pending = (cards, values, expected)
        elif choice is not None and choice.move == move:
            term = action_term(self.value, game, choice)
            if term is not None:
                self.corrections += term
                self.actions += 1

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


def action_term(value: AnyValue, game: Any, choice: DeclaredChoice) -> np.ndarray | None:
    """Each seat's action term of ``choice`` made at ``game`` (before its move):
    ``V(after the option played) - sum_a p(a) V(after a)``, or ``None`` when ``value``
    values no such options (versions 1-3, or no action weights for this game)."""
    values_of = getattr(value, "action_values", None)
    if values_of is None:
        return None
    values = values_of(game, choice.options)
    if values is None:
        return None
    expected = np.tensordot(np.asarray(choice.weights(), dtype=np.float64), values, axes=1)
    return np.asarray(values[choice.chosen] - expected, dtype=np.float64)
