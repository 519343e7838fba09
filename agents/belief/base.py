"""What every belief about the hidden cards is (:class:`Belief`), and the two that need no
model: :class:`UniformBelief` and :class:`RuleBelief`.

The leaf of :mod:`carioca_agents.belief`: the learned and inferred beliefs build on it, and
the package's :func:`~carioca_agents.belief.make_belief` builds any of them by name.
"""


from __future__ import annotations

import random
from abc import ABC, abstractmethod

import numpy as np

from carioca_agents.opponent_model import DEFAULT_FACTOR, informed_determinization, informed_hidden
from carioca_env import Game, PlayerView
from carioca_env.cards import NUM_CARD_TYPES
from carioca_env.determinize import determinize_view, hidden_slots, unseen_pool

#: The belief names :func:`make_belief` and search's ``belief=`` accept.
BELIEFS = ("uniform", "rule", "learned", "inferred")
#: The beliefs ``inferred`` can draw its candidates from.
BASE_BELIEFS = ("uniform", "rule", "learned")
#: Candidates ``inferred`` draws from its base and weighs per decision, by default.
DEFAULT_POOL = 64

#: Samples the rule model's expected counts average (it is a sampler, not a formula).
RULE_SAMPLES = 64
#: The fixed seed of those samples: the expectation is a function of the view alone.
RULE_SEED = 20261203


class Belief(ABC):
    """What a seat believes the opponents hold, from its view alone (see the module docstring).

    Attributes:
        name: the belief's name (``uniform``, ``rule``, ``learned``).
    """

    name: str = "belief"

    @abstractmethod
    def expected_hidden(self, view: PlayerView) -> np.ndarray:
        """Per seat, the expected count of each card type among its hidden cards, shape
        ``(num_players, 53)``.

        Raises:
            InvalidPositionError: the view is inconsistent.
        """

    @abstractmethod
    def sample(self, view: PlayerView, rng: random.Random) -> Game:
        """A one-deal game consistent with ``view``, hidden cards drawn from the belief
        with ``rng`` (same view, same generator state: same game).

        Raises:
            InvalidPositionError: the view is inconsistent.
        """


class UniformBelief(Belief):
    """Every arrangement of the unseen cards equally likely."""

    name = "uniform"

    def expected_hidden(self, view: PlayerView) -> np.ndarray:
        """Each seat's hidden places share every unseen card in proportion."""
        pool = np.array(unseen_pool(view), dtype=float)
        slots = hidden_slots(view)
        total = pool.sum()
        out = np.zeros((view.num_players, NUM_CARD_TYPES))
        if total > 0:
            for s, k in enumerate(slots):
                out[s] = pool * (k / total)
        return out

    def sample(self, view: PlayerView, rng: random.Random) -> Game:
        """:func:`carioca_env.determinize.determinize_view`."""
        return determinize_view(view, rng)


class RuleBelief(Belief):
    """Today's rule model (:mod:`carioca_agents.opponent_model`) with its replay ``factor``."""

    name = "rule"

    def __init__(self, factor: float = DEFAULT_FACTOR, samples: int = RULE_SAMPLES) -> None:
        if not factor >= 0 or samples < 1:
            raise ValueError(f"factor must be >= 0 and samples >= 1, got {factor} and {samples}")
        self.factor, self.samples = factor, samples

    def expected_hidden(self, view: PlayerView) -> np.ndarray:
        """The mean hidden counts of :data:`RULE_SAMPLES` samples drawn with a fixed seed."""
        rng = random.Random(RULE_SEED)
        out = np.zeros((view.num_players, NUM_CARD_TYPES))
        for _ in range(self.samples):
            hidden, _stock = informed_hidden(view, rng, self.factor)
            for s, cards in enumerate(hidden):
                for c in cards:
                    out[s, c] += 1
        return out / self.samples

    def sample(self, view: PlayerView, rng: random.Random) -> Game:
        """:func:`carioca_agents.opponent_model.informed_determinization`."""
        return informed_determinization(view, rng, self.factor)
