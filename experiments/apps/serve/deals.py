"""How each finished deal of a browser game ended: every hand, the melds and the scores.

R14 scores the cards each player has left when a deal ends, so at that moment every
hand is shown at the table: a scored deal's final hands are public from then on.  A
deal cancelled for an empty stock (R13) is scored by nobody and shuffled in unseen, so
its summary has no hands.  Nothing of the deal in progress is in a summary.

The engine deals the next deal inside the move that ends one, so the hands at the end
of a deal exist only just before that move.  The summaries are rebuilt by replaying the
game's record; a :class:`DealLog` keeps each game's replay and pushes only the moves
played since the last call, so a page load costs a few moves, not a whole game.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from carioca_env import Game
from carioca_experiments.apps.serve.frames import card_list, meld_json

#: games whose replay a :class:`DealLog` keeps (least recently used dropped first)
MAX_GAMES = 32


@dataclass
class _Replayed:
    """One game replayed up to ``len(moves)`` moves, and the summaries of its finished deals."""

    game: Game
    moves: list[str] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)


def _push(state: _Replayed, text: str) -> None:
    """Play one move of the record; when it ends a deal, add that deal's summary."""
    game = state.game
    before = len(game.deal_results)
    # only a discard can end a deal (it empties the closer's hand, or leaves a stock that
    # cannot be rebuilt, R13), and the engine deals the next deal inside that move: keep
    # the hands and melds from just before each discard
    if text.startswith("discard "):
        hands = [game.hand(s) for s in range(game.num_players)]
        melds = game.table_melds()
        contract, deal_index, mover = str(game.contract), game.deal_index, game.current_player
    move = game.push(text)
    state.moves.append(text)
    for result in game.deal_results[before:]:
        totals = list(state.summaries[-1]["totals"]) if state.summaries else [0] * game.num_players
        summary: dict[str, Any] = {
            "number": len(state.summaries) + 1, "deal": result.deal, "deal_index": deal_index,
            "contract": contract, "dealer": result.dealer, "closer": result.closer,
            "cancelled": result.cancelled, "turns": result.turns, "scores": list(result.scores),
            "totals": [t + s for t, s in zip(totals, result.scores)],
            "last_move": {"seat": mover, "text": text}, "hands": None, "melds": None,
        }
        if not result.cancelled:  # R14: the hands are counted, so shown
            hands[mover].remove(move.card)
            summary["hands"] = [card_list(h) for h in hands]
            summary["melds"] = [[meld_json(s, i, m) for i, m in enumerate(ms)] for s, ms in enumerate(melds)]
        state.summaries.append(summary)


class DealLog:
    """The summaries of the finished deals of browser games, by game, replayed incrementally."""

    def __init__(self, size: int = MAX_GAMES) -> None:
        self.size = size
        self._games: OrderedDict[str, _Replayed] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(game_id: str, record: dict[str, Any]) -> str:
        # the header (options, seed, stacked deck) names the game: a file replaced by
        # another game under the same id is replayed afresh
        header = {k: v for k, v in record.items() if k not in ("moves", "deal_scores", "totals", "agents", "session")}
        return game_id + "\x00" + json.dumps(header, sort_keys=True, default=str)

    def summaries(self, game_id: str, game: Game) -> list[dict[str, Any]]:
        """One summary per finished deal of ``game`` (a browser game's engine game), in order.

        Raises:
            RecordError: the game's own record does not replay (it always does for a
                game the engine played; a tampered file is refused when it is loaded).
        """
        record = game.to_record()
        moves = [str(m) for m in record["moves"]]
        key = self._key(game_id, record)
        with self._lock:
            state = self._games.get(key)
            if state is None or state.moves != moves[:len(state.moves)]:
                start, _ = Game.start_of_record(record)
                state = _Replayed(start)
                self._games[key] = state
            self._games.move_to_end(key)
            while len(self._games) > self.size:
                self._games.popitem(last=False)
            for text in moves[len(state.moves):]:
                _push(state, text)
            return [dict(s) for s in state.summaries]
