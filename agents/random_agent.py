"""``random``: uniform over the legal moves."""

from __future__ import annotations

from collections.abc import Sequence

from carioca_agents.base import SeededAgent
from carioca_agents.explain import Explaining, uniform
from carioca_env import Move, PlayerView
from carioca_env.explanations import Explanation


class RandomAgent(SeededAgent, Explaining):
    """Chooses uniformly among the legal moves with its own seeded generator (declared: :meth:`SeededAgent.choose`)."""

    name = "random"

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """A uniformly random legal move."""
        return self.choose(list(legal))

    def weigh(self, view: PlayerView, legal: Sequence[Move], move: Move) -> Explanation:
        """Every legal move at the same probability."""
        return uniform(self.name, legal, move)
