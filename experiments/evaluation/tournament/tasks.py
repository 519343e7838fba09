"""The unit of work: a :class:`Task` (one deal of one contract on one lineup) and its id.

Tasks are ordered by contract (in the config's order), deck, lineup; ``Task.index`` is the
position in that order and ``Task.id`` (``c{contract}-d{deck}-l{lineup}``) names it in the
results file, in error messages and in the executors.  Executors move tasks in chunks
(:func:`chunk_tasks`) so that a remote call carries several deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from carioca_experiments.common.seeds import TOURNAMENT, derive_seed
from carioca_experiments.evaluation.tournament.config import TournamentConfig, lineups


@dataclass(frozen=True)
class Task:
    """One deal to play: a contract, a dealt deck and a lineup."""

    index: int
    contract: int
    deck: int
    lineup: int
    seating: tuple[int, ...]

    @property
    def id(self) -> str:
        """``c{contract}-d{deck}-l{lineup}``."""
        return f"c{self.contract}-d{self.deck}-l{self.lineup}"


def make_tasks(config: TournamentConfig) -> list[Task]:
    """All tasks of the tournament, in task order."""
    sets = lineups(len(config.agents), config.players)
    tasks: list[Task] = []
    for contract in config.contracts:
        for deck in range(config.decks):
            chosen: Sequence[int]
            if config.format == "duplicate":
                chosen = range(len(sets))
            else:
                chosen = [derive_seed(TOURNAMENT, config.seed, "seating", contract, deck) % len(sets)]
            for lineup in chosen:
                tasks.append(Task(len(tasks), contract, deck, lineup, sets[lineup]))
    return tasks


def chunk_tasks(tasks: Sequence[Task], size: int) -> list[tuple[Task, ...]]:
    """``tasks`` cut into consecutive chunks of at most ``size`` (at least 1)."""
    size = max(1, int(size))
    return [tuple(tasks[i:i + size]) for i in range(0, len(tasks), size)]


def chunk_id(chunk: Sequence[Task]) -> str:
    """A chunk's name: its task id, or ``first..last`` for several tasks."""
    if not chunk:
        return "(empty chunk)"
    return chunk[0].id if len(chunk) == 1 else f"{chunk[0].id}..{chunk[-1].id}"
