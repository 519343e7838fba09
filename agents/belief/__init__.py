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

The beliefs, by name (:func:`make_belief`, search's ``belief=`` key):

- ``uniform``: every arrangement of the unseen cards is equally likely
  (:func:`carioca_env.determinize.determinize_view`);
- ``rule``: today's rule model (:mod:`carioca_agents.opponent_model`): an unopened opponent's
  hidden cards replay ``factor`` draws per stock draw it made, keeping what helps;
- ``learned``: the newest shipped learned model (:mod:`carioca_agents.belief.learned`), fitted on game
  records of the built-in agents;
- ``inferred``: a base belief's samples (``learned`` unless told) weighted by how well they
  explain each opponent's last turn if the opponent plays the heuristic
  (:mod:`carioca_agents.belief.inferred`).

(A particle filter through every opponent turn of the deal was measured and did not beat
``learned``; it lives with the studies, ``experiments/studies/belief/filtered.py``.)
"""

from __future__ import annotations

from carioca_agents.belief.base import (
    BASE_BELIEFS,
    BELIEFS,
    DEFAULT_POOL,
    RULE_SAMPLES,
    RULE_SEED,
    Belief,
    RuleBelief,
    UniformBelief,
)
from carioca_agents.opponent_model import DEFAULT_FACTOR


def make_belief(name: str, factor: float = DEFAULT_FACTOR, base: str = "learned", pool: int | None = None) -> Belief:
    """The belief named ``name``: ``uniform``, ``rule`` (with the replay ``factor``),
    ``learned`` (the newest shipped model), a shipped learned model's name (``belief-v1``),
    ``inferred`` (candidates from the belief named ``base``, ``pool`` of them per view:
    :class:`carioca_agents.belief.inferred.InferredBelief`).

    Raises:
        ValueError: an unknown name, a ``base`` that is ``inferred``, or a ``pool`` below 1.
        carioca_agents.belief.model.BeliefModelError: a learned model that does not load.
    """
    if name == "inferred":
        from carioca_agents.belief.inferred import InferredBelief

        if base == "inferred":
            raise ValueError(f"the base of the {name} belief cannot be the {base} belief")
        size = DEFAULT_POOL if pool is None else pool
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


__all__ = ["BASE_BELIEFS", "BELIEFS", "DEFAULT_POOL", "RULE_SAMPLES", "RULE_SEED", "Belief", "RuleBelief",
           "UniformBelief", "make_belief"]
