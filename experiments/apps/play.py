"""``carioca play``: one person against bots in the terminal.

The person types a move in the engine's notation (``draw stock``, ``discard 8S``,
``open 8C 8D 8H / 4S 5S 6S 7S``, ``lay 8S 0.1 high``, ...) or its number in the listed
legal moves.  A wrong entry gets a message and the prompt again.

The game is never lost: the options, the bots (and their player count) and the save path
are checked before the first move, and the record (``carioca replay`` reads it) is
written after every move, atomically (a temporary file, then ``os.replace``), so
``quit``, the end of the input, Ctrl-C or a bot that fails leave the game as it stood
after the last move.  The record holds each bot decision's explanation beside its move
(:mod:`carioca_env.explanations`), which ``carioca serve``'s viewer shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from carioca_agents.explain import act_and_explain
from carioca_agents.registry import make_agent
from carioca_env import CariocaError, Game, GameConfig, InvalidConfigError, Move, parse_move
from carioca_env.errors import excerpt
from carioca_env.explanations import Explanation, attach_explanations
from carioca_env.records import write_atomic
from carioca_env.view import Phase
from carioca_experiments.apps.textview import view_text
from carioca_experiments.common.argtypes import PLAYER_CHOICES, add_contracts_option, check_writable_file, int_at_least

QUIT_WORDS = ("quit", "exit", "q")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca play``."""
    parser.add_argument("--players", type=int, choices=PLAYER_CHOICES, default=2, help="players at the table, 2-4 (default 2)")
    parser.add_argument("--bots", nargs="+", default=["heuristic"], help="agent specs for the other seats, used in turn (default heuristic)")
    add_contracts_option(parser, [1, 2, 3, 4, 5, 6, 7], "contracts to play, in order (default the full game)")
    parser.add_argument("--seat", type=int_at_least(0), default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the game and the bots")
    parser.add_argument("--save", type=Path, default=None,
                        help="record file, rewritten after every move (default results/play-SEED.json)")


def _read(prompt: str, stdin: TextIO, stdout: TextIO) -> str | None:
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    return None if line == "" else line.strip()


def choose_move(game: Game, legal: Sequence[Move], entry: str) -> tuple[Move | None, str]:
    """The move an entry names (a number in ``legal`` or a notation), or why it names none."""
    if entry.isascii() and entry.isdigit():
        if len(entry) > 6:
            return None, f"there is no move number {excerpt(entry)}: choose 1..{len(legal)}"
        i = int(entry)
        if 1 <= i <= len(legal):
            return legal[i - 1], ""
        return None, f"there is no move number {i}: choose 1..{len(legal)}"
    try:
        move = parse_move(entry)
    except CariocaError as exc:
        return None, str(exc)
    if move in legal:
        return move, ""
    try:
        game.check(move)  # names the ruling the move breaks
    except CariocaError as exc:
        return None, f"illegal move: {exc}"
    return None, "illegal move"


def play_game(
    game: Game,
    human_seat: int,
    bots: dict[int, object],
    names: Sequence[str],
    stdin: TextIO,
    stdout: TextIO,
    save: Callable[[], Path],
    saved_to: Path,
    explanations: list[Explanation | None] | None = None,
) -> int:
    """Run the game loop until it ends or the person quits; ``save`` runs after every move.

    ``saved_to`` is where ``save`` writes (the game as it is now is already there).
    ``explanations``, if given, gets one entry per move as it is played: a bot's
    explanation (:func:`carioca_agents.explain.act_and_explain`; the move is the one
    ``act`` plays), ``None`` for the person's moves and forced ones.
    Returns 0, or 130 after Ctrl-C (the record then holds the game up to the last move).
    """
    try:
        out = stdout.write
        while not game.game_over:
            seat = game.current_player
            legal = game.legal_moves()
            results_before = len(game.deal_results)
            if seat != human_seat:
                played, weighed = act_and_explain(bots[seat], game.view(seat), legal)
                game.apply(played)
                if explanations is not None:
                    explanations.append(None if weighed is None or weighed.kind == "forced" else weighed)
                save()
                shown = "draw stock" if played.kind.name == "DRAW_STOCK" else str(played)
                out(f"seat {seat} ({names[seat]}): {shown}\n")
            else:
                if game.phase is Phase.DRAW or game.phase is Phase.PLAY:
                    out("\n" + view_text(game.view(seat), names) + "\n")
                out("legal moves:\n" + "".join(f"  {i + 1:>3}. {m}\n" for i, m in enumerate(legal)))
                while True:
                    entry = _read("your move (number or notation; 'quit' saves and stops): ", stdin, stdout)
                    if entry is None or entry.lower() in QUIT_WORDS:
                        path = save()
                        out(f"\ngame saved to {path}\n")
                        return 0
                    if not entry:
                        continue
                    move, why = choose_move(game, legal, entry)
                    if move is not None:
                        game.apply(move)
                        if explanations is not None:
                            explanations.append(None)
                        save()
                        break
                    out(f"  {why}\n")
            if len(game.deal_results) > results_before:
                r = game.deal_results[-1]
                if r.cancelled:
                    out(f"\n== deal {r.deal} cancelled: the stock ran out with nothing to recycle; dealt again\n")
                else:
                    out(f"\n== deal {r.deal} closed by seat {r.closer}: scores {list(r.scores)}, totals {game.totals}\n")
        path = save()
        winners = ", ".join(f"seat {w}" for w in game.winners)
        out(f"\nGame over. Totals {game.totals}. Winner(s): {winners}. Record saved to {path}\n")
        return 0
    except KeyboardInterrupt:
        # not saved again: Ctrl-C may have stopped a move half applied; the record written
        # after the last whole move (atomically, so never half written) is the game
        stdout.write(f"\ninterrupted: the game as it stood after the last move is saved in {saved_to}\n")
        return 130


def build_bots(specs: Sequence[str], players: int, human_seat: int, seed: int) -> tuple[dict[int, object], list[str]]:
    """The bots of every seat but the person's, built and checked before the first move.

    Raises:
        InvalidConfigError: a spec that builds no agent (unknown, a missing or corrupt
            model file ...) or a model made for another player count.
    """
    bots: dict[int, object] = {}
    names: list[str] = []
    k = 0
    for seat in range(players):
        if seat == human_seat:
            names.append("you")
            continue
        spec = specs[k % len(specs)]
        k += 1
        try:
            bot = make_agent(spec, seed=seed * 10 + seat)
        except Exception as exc:  # noqa: BLE001 - a model file can fail in many ways; name the spec
            raise InvalidConfigError(f"--bots {spec!r} builds no agent: {type(exc).__name__}: {exc}") from exc
        made_for = getattr(bot, "num_players", None)
        if made_for is not None and made_for != players:
            raise InvalidConfigError(
                f"--bots {spec!r} is a model made for {made_for} players; this table has {players} (--players)"
            )
        bots[seat] = bot
        names.append(spec)
    return bots, names


@dataclass(frozen=True)
class PlayConfig:
    """A game of ``carioca play``, checked when built.

    Attributes:
        game: the players and contracts.
        bots: agent specs for the other seats, used in turn.
        seat: the person's seat.
        seed: seed of the game and the bots.
        save: the record file, rewritten after every move (``None``: results/play-SEED.json).

    Raises:
        InvalidConfigError: the seat is not at the table, or no bot is named.
    """

    game: GameConfig
    bots: tuple[str, ...] = ("heuristic",)
    seat: int = 0
    seed: int = 0
    save: Path | None = None

    def __post_init__(self) -> None:
        players = self.game.num_players
        if not 0 <= self.seat < players:
            raise InvalidConfigError(f"--seat must be 0..{players - 1} at a {players}-player table, got {self.seat}")
        if not self.bots:
            raise InvalidConfigError("--bots needs at least one agent spec")

    @property
    def save_path(self) -> Path:
        """The record file."""
        return self.save or Path("results") / f"play-{self.seed}.json"


def config_from_args(args: argparse.Namespace) -> PlayConfig:
    """The game's config from the options (checked)."""
    game = GameConfig(num_players=args.players, deals=tuple(args.contracts))
    return PlayConfig(game, tuple(args.bots), args.seat, args.seed, args.save)


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Build the config from the options, then play (see :func:`run_play`)."""
    return run_play(config_from_args(args), stdin, stdout)


def run_play(config: PlayConfig, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Start the game (the bots and the record file are checked before the first move)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    players = config.game.num_players
    game = Game(config.game, seed=config.seed)
    bots, names = build_bots(config.bots, players, config.seat, config.seed)
    path = config.save_path
    check_writable_file(path, "--save")

    explanations: list[Explanation | None] = []

    def save() -> Path:
        # the bots' explanations beside the moves (carioca_env.explanations): a record the
        # viewer shows with what each bot weighed
        record = attach_explanations(game.to_record(agents=names), explanations)
        write_atomic(path, json.dumps(record) + "\n")
        return path

    save()  # the empty game: the path is known good before the first move
    stdout.write(f"Carioca: you are seat {config.seat}; bots: {', '.join(n for n in names if n != 'you')}; "
                 f"the game is saved in {path} after every move\n")
    return play_game(game, config.seat, bots, names, stdin, stdout, save, path, explanations)
