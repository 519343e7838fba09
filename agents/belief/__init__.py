"""Beliefs about the opponents' hidden cards, and determinizations drawn from them.

A :class:`Belief` reads a seat's :class:`~carioca_env.PlayerView` and nothing else, and gives

- :meth:`Belief.expected_hidden`: per seat, the expected count of each card type among
  the cards of its hand the seat cannot see (an array ``(num_players, 53)``; a row sums
  to that seat's hidden cards, the viewing seat's row is zero).  The cards an opponent
  surely holds (``PlayerView.known_cards``: taken from the pile and not shown since) are
  not hidden: its whole hand is those plus the hidden part;
- :meth:`Belief.sample`: one full one-deal game consistent with the view (exact hand
  sizes, the seat's own hand, the table, the pile and the surely-held cards in place, the
  stock taking the rest), drawn from the belief with the caller's generator.

Three beliefs, by name (:func:`make_belief`, search's ``belief=`` key):

- ``uniform``: every arrangement of the unseen cards is equally likely
  (:func:`carioca_env.determinize.determinize_view`);
- ``rule``: today's rule model (:mod:`carioca_agents.opponent_model`): an unopened opponent's
  hidden cards replay ``factor`` draws per stock draw it made, keeping what helps;
- ``learned``: the newest shipped learned model (:mod:`carioca_agents.belief.learned`), fitted on game
  records of the built-in agents;
- ``inferred``: a base belief's samples (``learned`` unless told) weighted by how well they
  explain each opponent's last turn if the opponent plays the heuristic
  (:mod:`carioca_agents.belief.inferred`);
- ``filtered``: a particle filter over the opponents' hands that explains every opponent
  turn of the deal under the same model (:mod:`carioca_agents.belief.filtered`), falling back to a
  base belief (``learned`` unless told) where it cannot run.
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
BELIEFS = ("uniform", "rule", "learned", "inferred", "filtered")
#: The beliefs ``inferred`` can draw its candidates from (and ``filtered`` falls back to).
BASE_BELIEFS = ("uniform", "rule", "learned")

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


def make_belief(name: str, factor: float = DEFAULT_FACTOR, base: str = "learned", pool: int | None = None) -> Belief:
    """The belief named ``name``: ``uniform``, ``rule`` (with the replay ``factor``),
    ``learned`` (the newest shipped model), a shipped learned model's name (``belief-v1``),
    ``inferred`` (candidates from the belief named ``base``, ``pool`` of them per view:
    :class:`carioca_agents.belief.inferred.InferredBelief`) or ``filtered`` (``pool`` particles,
    falling back to ``base``: :class:`carioca_agents.belief.filtered.FilteredBelief`).

    Raises:
        ValueError: an unknown name, a ``base`` that is ``inferred`` or ``filtered``, or a ``pool`` below 1.
        carioca_agents.belief.model.BeliefModelError: a learned model that does not load.
    """
    if name in ("inferred", "filtered"):
        from carioca_agents.belief.inferred import DEFAULT_POOL, InferredBelief

        if base in ("inferred", "filtered"):
            raise ValueError(f"the base of the {name} belief cannot be the {base} belief")
        size = DEFAULT_POOL if pool is None else pool
        if name == "filtered":
            from carioca_agents.belief.filtered import FilteredBelief

            return FilteredBelief(make_belief(base, factor), size)
        return InferredBelief(make_belief(base, factor), size)
    if name == "uniform":
        return UniformBelief()
    if name == "rule":
        return RuleBelief(factor)
    from carioca_agents.belief.model import BELIEF_NAME, SHIPPED_BELIEF

    if name == "learned" or BELIEF_NAME.match(name):
        from carioca_agents.belief.learned import LearnedBelief

        return LearnedBelief.load(SHIPPED_BELIEF if name == "learned" else name)
    raise ValueError(f"unknown belief {name!r}; known: {', '.join(BELIEFS)} (or a shipped model such as belief-v1)")


__all__ = ["BASE_BELIEFS", "BELIEFS", "Belief", "RuleBelief", "UniformBelief", "make_belief"]
