"""``carioca replay RECORD``: replay a saved game, check it, and print it turn by turn.

Every move is checked against the rules and the stored deal scores and totals against
the replayed ones; a record that does not replay is refused with the move and the reason
(through the ``carioca`` error path: one paragraph on stderr, exit code 1).  ``--seat S`` prints the game as seat S saw it: its own hand, the public
moves, never another hand or a card drawn from the stock.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from carioca_env import CariocaError, Game, RecordError
from carioca_env.errors import excerpt
from carioca_env.records import read_record
from carioca_env.view import Phase
from carioca_experiments.apps.textview import grouped_hand, view_text
from carioca_experiments.common.argtypes import int_at_least


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca replay``."""
    parser.add_argument("record", type=Path, help="a game record (JSON) written by carioca play, a tournament or Game.save")
    parser.add_argument("--seat", type=int_at_least(0), default=None, help="show the game from this seat's point of view only")
    parser.add_argument("--quiet", action="store_true", help="only check the record and print the result")


def load_record(path: Path) -> dict[str, Any]:
    """Read a record file (JSON).

    Raises:
        RecordError: the file cannot be read, is not JSON, or nests too deeply.
    """
    return read_record(path)


def replay(record: dict[str, Any], out: TextIO, seat: int | None = None, quiet: bool = False) -> Game:
    """Replay and print a record; returns the final game.

    Raises:
        RecordError: a move does not replay or the stored scores differ.
    """
    game, moves = Game.start_of_record(record)
    if seat is not None and not 0 <= seat < game.num_players:
        raise RecordError(f"--seat must be 0..{game.num_players - 1} for this {game.num_players}-player record")
    names = record.get("agents") or [f"seat {s}" for s in range(game.num_players)]
    write = (lambda s: None) if quiet else out.write
    write(f"record: {game.num_players} players ({', '.join(names)}), deals {list(game.config.deals)}, seed {game.seed}\n")
    for i, text in enumerate(moves):
        actor = game.current_player
        if game.phase is Phase.DRAW:
            if seat is None:
                hands = "  ".join(f"[{s}] {grouped_hand(game.hand(s))}" for s in range(game.num_players))
                write(f"\n{game.contract} turn {game.turn}: seat {actor} to play\n  hands: {hands}\n")
            elif actor == seat:
                write("\n" + view_text(game.view(seat), names) + "\n")
        results = len(game.deal_results)
        try:
            game.push(text)
        except CariocaError as exc:
            raise RecordError(f"move {i + 1} {excerpt(text)} (seat {actor}) does not replay: {exc}") from exc
        write(f"  seat {actor}: {text}\n")
        if len(game.deal_results) > results:
            r = game.deal_results[-1]
            label = "cancelled (R13)" if r.cancelled else f"closed by seat {r.closer}: scores {list(r.scores)}"
            write(f"== deal {r.deal} {label}; totals {game.totals}\n")
    game.check_record_results(record)
    status = f"winner(s) {list(game.winners)}" if game.game_over else "unfinished"
    out.write(f"replayed {len(moves)} moves: every move legal, scores match; totals {game.totals}, {status}\n")
    return game


@dataclass(frozen=True)
class ReplayConfig:
    """What ``carioca replay`` replays.

    Attributes:
        record: the record file (JSON).
        seat: show the game as this seat saw it; ``None``: every hand.
        quiet: print only the check's result.
    """

    record: Path
    seat: int | None = None
    quiet: bool = False


def config_from_args(args: argparse.Namespace) -> ReplayConfig:
    """The replay's config (the parser's types checked every value)."""
    return ReplayConfig(args.record, args.seat, args.quiet)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Build the config from the options, then replay the record (see :func:`run_replay`)."""
    return run_replay(config_from_args(args), out)


def run_replay(config: ReplayConfig, out: TextIO | None = None) -> int:
    """Replay the record of ``config``.

    Raises:
        RecordError: the record is refused (the ``carioca`` error path reports it).
    """
    replay(load_record(config.record), out or sys.stdout, config.seat, config.quiet)
    return 0
