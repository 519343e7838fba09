"""``random``: uniform over the legal moves."""

from __future__ import annotations

import random
from collections.abc import Sequence

from carioca_env import Move, PlayerView


class RandomAgent:
    """Chooses uniformly among the legal moves with its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int) -> None:
        """Reseed the generator."""
        self.rng = random.Random(seed)

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """A uniformly random legal move."""
        return legal[self.rng.randrange(len(legal))]
