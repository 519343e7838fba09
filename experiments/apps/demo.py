"""``carioca demo``: a short game between random players, printed turn by turn."""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from carioca_env import Game, GameConfig, cards_str
from carioca_env.view import Phase
from carioca_experiments.common.argtypes import PLAYER_CHOICES, add_contracts_option, int_at_least


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca demo``."""
    parser.add_argument("--players", type=int, choices=PLAYER_CHOICES, default=3, help="players at the table, 2-4 (default 3)")
    add_contracts_option(parser, [1], "contracts to play, in order (default: 1)")
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the deal and the players (default 0)")
    # not --max-turns: that option cuts off one deal (R17) everywhere else; this one stops the
    # whole demonstration, whose random players rarely open and so rarely end a deal
    parser.add_argument("--stop-after", type=int_at_least(1), default=400, metavar="TURNS",
                        help="stop the demonstration after this many turns in all (default 400)")


@dataclass(frozen=True)
class DemoConfig:
    """What ``carioca demo`` plays.

    Attributes:
        game: the players and contracts (checked when built).
        seed: seed of the deal and of the random players.
        stop_after: turns after which the demonstration stops, in all (>= 1).
    """

    game: GameConfig
    seed: int = 0
    stop_after: int = 400


def config_from_args(args: argparse.Namespace) -> DemoConfig:
    """The demonstration's config (the parser's types checked every value)."""
    return DemoConfig(GameConfig(num_players=args.players, deals=tuple(args.contracts)), args.seed, args.stop_after)


def run(args: argparse.Namespace) -> int:
    """Build the config from the options, then play and print the game."""
    return run_demo(config_from_args(args))


def run_demo(config: DemoConfig) -> int:
    """Play and print the demonstration game."""
    game = Game(config.game, seed=config.seed)
    rng = random.Random(config.seed)
    turns = 0
    contracts = list(config.game.deals)
    print(f"Carioca demo: {config.game.num_players} random players, contracts {contracts}, seed {config.seed}")
    while not game.game_over and turns < config.stop_after:
        if game.phase is Phase.DRAW:
            seat = game.current_player
            print(f"\n{game.contract} | turn {game.turn} | seat {seat} holds {cards_str(game.hand(seat), True)}"
                  f" | top discard {cards_str([game.top_discard], True)} | stock {game.stock_size}")
            turns += 1
        seat = game.current_player
        move = rng.choice(game.legal_moves())
        before = len(game.deal_results)
        game.apply(move)
        print(f"  seat {seat}: {move}")
        if len(game.deal_results) > before:
            r = game.deal_results[-1]
            print(f"== deal {r.deal} ended: closer {r.closer}, scores {list(r.scores)}, totals {game.totals}")
    if game.game_over:
        print(f"\nGame over. Totals {game.totals}; winner(s): seats {list(game.winners)}")
    else:
        print(f"\nStopped after {turns} turns (random players rarely open); totals {game.totals}")
    return 0
