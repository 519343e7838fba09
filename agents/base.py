"""The agent protocol shared by tournaments, the single-agent wrapper and ``carioca play``.

An agent chooses a move from what its seat may know: the seat's
:class:`~carioca_env.PlayerView` and the list of legal moves (which the engine derives
from that same seat's hand and the public table).  It never receives the game itself,
so it cannot read another hand or the stock order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from carioca_env import Move, PlayerView


@runtime_checkable
class Agent(Protocol):
    """A Carioca player.

    Attributes:
        name: the spec the agent was built from (e.g. ``"heuristic"``).
    """

    name: str

    def reset(self, seed: int) -> None:
        """Start a new deal or game; all of the agent's randomness comes from ``seed``."""

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Choose one of ``legal`` (never empty) for the seat of ``view``."""
        ...


class SeededAgent:
    """Base of the scripted agents: one ``random.Random`` for tie-breaks, reseeded by :meth:`reset`."""

    name = "seeded"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int) -> None:
        """Reseed the generator: the same seed gives the same decisions."""
        self.rng = random.Random(seed)


def forced_draw(legal: Sequence[Move]) -> Move | None:
    """The draw when only one of stock and discard is legal (no choice to make), else None."""
    take, stock = Move.draw_discard(), Move.draw_stock()
    if take not in legal:
        return stock
    if stock not in legal:
        return take
    return None
