"""The learned belief: a per-contract softmax over card features (:mod:`carioca_agents.belief.features`).

For an opponent ``s`` with ``k`` hidden cards, one unseen copy of card type ``c`` has the
weight ``exp(features[s, c] @ theta)``; :func:`carioca_agents.belief.sampling.inclusion` turns the
weights into the probability that the copy is hidden in ``s``'s hand (summing to ``k``),
and :func:`carioca_agents.belief.sampling.sample_game` draws determinizations with exactly those
marginals.  The weights are fitted by ``carioca_experiments.studies.belief`` on game records of the
built-in agents, from decks no evaluation deals.

A calibrated model (:meth:`BeliefModel.calibrated`) scales the logits by its temperature
and mixes the uniform belief into each opponent's probabilities; the mixed probabilities
then stand in for the weights (they are at most 1 and sum to ``k`` over the unseen copies,
so :func:`inclusion` returns them as they are, and the samples keep those marginals).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from carioca_agents.belief.base import Belief
from carioca_agents.belief.features import view_features
from carioca_agents.belief.model import SHIPPED_BELIEF, BeliefModel, load_belief_model
from carioca_agents.belief.sampling import inclusion, sample_game
from carioca_env import Game, PlayerView
from carioca_env.cards import NUM_CARD_TYPES
from carioca_env.determinize import hidden_slots, unseen_pool


class LearnedBelief(Belief):
    """A :class:`~carioca_agents.belief.model.BeliefModel` as a belief.

    The weights of the last view asked about are kept, so the many samples a search draws
    from one decision's view compute its features once.
    """

    name = "learned"

    def __init__(self, model: BeliefModel) -> None:
        self.model = model
        self._cache: tuple[PlayerView, np.ndarray] | None = None

    @classmethod
    def load(cls, name: str | Path = SHIPPED_BELIEF) -> LearnedBelief:
        """The belief of a shipped model's name or a model file (see :func:`load_belief_model`)."""
        return cls(load_belief_model(name))

    def weights(self, view: PlayerView) -> np.ndarray:
        """Per seat and card type, the weight of one unseen copy, shape ``(num_players, 53)``
        (ones in the viewing seat's row, which nothing draws from); with a uniform weight in
        the model's calibration, an opponent's row is its mixed probabilities."""
        if self._cache is None or self._cache[0] is not view:
            temperature, uniform = self.model.calibrated(view.deal)
            logits = temperature * (view_features(view) @ self.model.theta(view.deal))
            logits -= logits.max(axis=1, keepdims=True)  # a softmax: only differences matter
            # floored so that no unseen card is impossible (a weight must stay positive)
            w = np.exp(np.maximum(logits, -50.0))
            if uniform > 0:
                pool = unseen_pool(view)
                total = sum(pool)
                for s, k in enumerate(hidden_slots(view)):
                    if k and s != view.seat:
                        w[s] = (1.0 - uniform) * np.array(inclusion(w[s].tolist(), pool, k)) + uniform * k / total
            self._cache = (view, w)
        return self._cache[1]

    def expected_hidden(self, view: PlayerView) -> np.ndarray:
        """Per seat, unseen copies times :func:`inclusion` of its weights over all the unseen cards."""
        pool = unseen_pool(view)
        slots = hidden_slots(view)
        w = self.weights(view)
        out = np.zeros((view.num_players, NUM_CARD_TYPES))
        for s, k in enumerate(slots):
            if k:
                out[s] = np.array(inclusion(w[s].tolist(), pool, k)) * np.array(pool)
        return out

    def sample(self, view: PlayerView, rng: random.Random) -> Game:
        """:func:`carioca_agents.belief.sampling.sample_game` with this view's weights."""
        return sample_game(view, self.weights(view).tolist(), rng)
