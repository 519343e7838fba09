"""An example of a user's own agent, entered in a tournament as a plugin.

Copy this file into your own package (or next to where you run ``carioca``) and name it
with a ``py:`` spec; nothing in this project has to know about it::

    carioca tournament --agents mine=py:carioca_agents.examples.my_agent:make_agent:patience=2 random \\
        --players 2 --decks 20 --workers 2

(for a ``my_agent.py`` in the working directory: ``py:my_agent:make_agent:patience=2``).

The agent: it lays, lays off and swaps whenever it can (melding early cuts its
penalty), takes the discard only when ``patience`` or fewer of its turns have passed
without a meld, and otherwise discards its highest-penalty card (ties broken by its
own seeded generator).  It sees only its seat's ``PlayerView`` and the legal moves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from carioca_env import Move, MoveKind, PlayerView
from carioca_env.cards import PENALTY

_MELDING = (MoveKind.OPEN, MoveKind.LAY_OFF, MoveKind.SWAP)


class HighCardDumper:
    """Melds as soon as it can, else dumps its most expensive card (see the module docstring)."""

    def __init__(self, seed: int = 0, patience: int = 1) -> None:
        if not isinstance(patience, int) or isinstance(patience, bool) or patience < 0:
            raise ValueError(f"patience must be a non-negative integer, got {patience!r}")
        self.name = "my_agent"
        self.patience = patience
        self.rng = random.Random(seed)
        self._dry_turns = 0

    def reset(self, seed: int) -> None:
        """New deal: reseed the tie-break generator and forget the turns without a meld."""
        self.rng = random.Random(seed)
        self._dry_turns = 0

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Meld if possible; draw the discard while still patient; discard the highest penalty."""
        melds = [m for m in legal if m.kind in _MELDING]
        if melds:
            self._dry_turns = 0
            return melds[self.rng.randrange(len(melds))]
        take, stock = Move.draw_discard(), Move.draw_stock()
        if take in legal or stock in legal:
            if take in legal and (self._dry_turns <= self.patience or stock not in legal):
                return take
            return stock if stock in legal else take
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        if discards:
            self._dry_turns += 1
            top = max(PENALTY[m.card] for m in discards)
            best = [m for m in discards if PENALTY[m.card] == top]
            return best[self.rng.randrange(len(best))]
        return legal[self.rng.randrange(len(legal))]


def make_agent(seed: int = 0, patience: int = 1) -> HighCardDumper:
    """The plugin factory: ``py:carioca_agents.examples.my_agent:make_agent[:patience=N]``."""
    return HighCardDumper(seed, patience)
