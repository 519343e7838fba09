"""Records replayed once, then stepped to any move.

Opening a record replays it through the rules (every move checked, the stored scores
compared, as ``carioca replay`` does) and keeps a copy of the game every
:data:`CHECKPOINT_EVERY` moves; the position after move ``k`` is the nearest earlier
copy, copied again, with the remaining moves (checked once, when the record was opened)
played unchecked.  The cache is bounded and keyed by
the file's path, size and modification time, so an edited record is replayed anew.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from carioca_env import CariocaError, Game, RecordError, parse_move
from carioca_env.explanations import ExplanationError, check_explanations
from carioca_experiments.apps.serve.discovery import read_json
from carioca_experiments.apps.serve.frames import display_name
from carioca_experiments.apps.serve.safepath import SafeRoot

CHECKPOINT_EVERY = 16
MAX_CACHED = 8


@dataclass
class Replay:
    """A checked record: its moves, who played each, where each deal starts, and checkpoints."""

    record: dict[str, Any]
    moves: list[str]
    actors: list[int]
    deal_starts: list[dict[str, int]]
    names: list[str]
    checkpoints: list[Game]
    num_players: int
    finished: bool
    #: one per move: what the mover weighed (an explanation's dict), or None; empty when
    #: the record keeps no explanations (carioca_env.explanations)
    explanations: list[dict[str, Any] | None] = field(default_factory=list)

    @property
    def length(self) -> int:
        """The number of moves."""
        return len(self.moves)

    def game_at(self, k: int) -> Game:
        """A fresh game in the position after the first ``k`` moves (0 = the first deal dealt).

        Raises:
            ValueError: ``k`` is not 0..length.
        """
        if not 0 <= k <= self.length:
            raise ValueError(f"move must be 0..{self.length} for this record, got {k}")
        base = k // CHECKPOINT_EVERY
        game = copy.deepcopy(self.checkpoints[base])
        for text in self.moves[base * CHECKPOINT_EVERY:k]:
            # build_replay checked every move of this record: replay them unchecked
            game.apply_unchecked(parse_move(text))
        return game


def build_replay(record: dict[str, Any]) -> Replay:
    """Replay and check a record.

    Raises:
        RecordError: a foreign or corrupt record, a move that does not replay, or stored
            scores that differ from the replayed ones.
    """
    game, moves = Game.start_of_record(record)
    agents = record.get("agents")
    names = [display_name(str(a)) for a in agents] if isinstance(agents, list) and len(agents) == game.num_players else \
        [f"seat {s}" for s in range(game.num_players)]
    checkpoints = [copy.deepcopy(game)]
    actors: list[int] = []
    deal_starts = [{"deal": game.deal_number, "move": 0}]
    for i, text in enumerate(moves):
        actors.append(game.current_player)
        results = len(game.deal_results)
        try:
            game.push(text)
        except (CariocaError, ValueError) as exc:
            raise RecordError(f"move {i + 1} {text!r} (seat {actors[-1]}) does not replay: {exc}") from exc
        if len(game.deal_results) > results and not game.game_over:
            deal_starts.append({"deal": game.deal_number, "move": i + 1})
        if (i + 1) % CHECKPOINT_EVERY == 0:
            checkpoints.append(copy.deepcopy(game))
    game.check_record_results(record)
    try:  # start_of_record checked them; parsed again here to send
        explained = check_explanations(record, moves)
    except ExplanationError as exc:
        raise RecordError(str(exc)) from None
    explanations = [None if e is None else e.to_dict() for e in explained] if explained is not None else []
    return Replay(record, list(moves), actors, deal_starts, names, checkpoints, game.num_players, game.game_over,
                  explanations)


class ReplayCache:
    """A bounded, thread-safe cache of :class:`Replay` by file (path, size, mtime)."""

    def __init__(self, root: SafeRoot, size: int = MAX_CACHED) -> None:
        self.root = root
        self.size = size
        self._items: OrderedDict[tuple[str, int, int], Replay] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: Path) -> Replay:
        """The replay of the record file at ``path`` (a real path the caller checked).

        Raises:
            UnreadableFile: the file is not readable JSON (too large, too deep, not UTF-8).
            RecordError: the file is not a game record, or does not replay.
        """
        st = path.stat()
        key = (str(path), st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        record = read_json(self.root, path)
        replay = build_replay(record)
        with self._lock:
            self._items[key] = replay
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return replay
