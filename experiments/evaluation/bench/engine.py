"""The ``engine`` section of ``carioca bench``: random play through the rules engine.

Decisions per second per player count and contract (``legal_moves`` and the unchecked
apply of one; a new game when one ends), and the seconds of a full seven-deal game
under a time budget (measured once).
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from carioca_experiments.common.seeds import BENCH, derive_seed
from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit


def _engine_decisions_unit(n: int, k: int, sizes: Sizes, seed: int) -> Unit:
    from carioca_env import Game, GameConfig

    cfg = GameConfig(num_players=n, deals=(k,))

    def fn(rep: int) -> Sample:
        rng = random.Random(derive_seed(BENCH, seed, "engine", n, k, rep))
        game_seed = derive_seed(BENCH, seed, "engine-game", n, k, rep)
        games = 0
        done_decisions = 0
        decisions_in_game = 0
        game = Game(cfg, seed=game_seed)
        t0 = time.perf_counter()
        for _ in range(sizes.engine_decisions):
            if game.game_over:
                games += 1
                done_decisions += decisions_in_game
                decisions_in_game = 0
                game_seed += 1
                game = Game(cfg, seed=game_seed)
            # a move of legal_moves() is legal: the unchecked apply, like OpenSpiel's
            # apply_action beside ApplyActionWithLegalityCheck, whose apply_action the
            # reference times
            game.apply_unchecked(rng.choice(game.legal_moves()))
            decisions_in_game += 1
        dt = time.perf_counter() - t0
        if game.game_over:
            games += 1
            done_decisions += decisions_in_game
        return Sample(
            sizes.engine_decisions / dt,
            {
                "decisions": sizes.engine_decisions,
                "seconds": dt,
                "games_completed": games,
                "games_per_s": games / dt,
                "decisions_per_game": done_decisions / games if games else None,
            },
        )

    return Unit("engine", f"engine.decisions.p{n}.c{k}", f"decisions/s {n}p contract {k}", "/s", fn)


def _engine_full_game_unit(n: int, sizes: Sizes, seed: int) -> Unit:
    from carioca_env import Game, GameConfig

    cfg = GameConfig(num_players=n)
    budget = sizes.full_game_seconds

    def fn(rep: int) -> Sample:
        rng = random.Random(derive_seed(BENCH, seed, "full", n))
        game_seed = derive_seed(BENCH, seed, "full-game", n)
        games: list[dict[str, Any]] = []
        decisions = 0
        t0 = time.perf_counter()
        while len(games) < sizes.full_game_max_games:
            game = Game(cfg, seed=game_seed + len(games))
            g0, d0 = time.perf_counter(), decisions
            while not game.game_over:
                game.apply(rng.choice(game.legal_moves()))
                decisions += 1
                if not decisions & 1023 and time.perf_counter() - t0 > budget:
                    break
            partial: dict[str, Any] | None
            if not game.game_over:
                partial = {
                    "seconds": time.perf_counter() - g0,
                    "decisions": decisions - d0,
                    "deals_completed": sum(1 for r in game.deal_results if not r.cancelled),
                    "deal_in_progress": game.deal_number,
                    "turn_in_progress": game.turn,
                }
                break
            partial = None
            games.append(
                {
                    "seconds": time.perf_counter() - g0,
                    "decisions": decisions - d0,
                    "turns_per_deal": [r.turns for r in game.deal_results if not r.cancelled],
                }
            )
            if time.perf_counter() - t0 > budget:
                break
        dt = time.perf_counter() - t0
        # elapsed time per completed game, the unfinished game's time included: the
        # inverse of games per second (a mean over finished games alone would favour
        # the short games that fit in the budget)
        return Sample(
            dt / len(games) if games else None,
            {
                "elapsed_s": dt,
                "mean_finished_game_s": statistics.mean(g["seconds"] for g in games) if games else None,
                "lower_bound_s": None if games else dt,
                "budget_s": budget,
                "games_completed": len(games),
                "games": games,
                "unfinished": partial,
                "decisions": decisions,
                "decisions_per_s": decisions / dt if dt else None,
                "games_per_s": len(games) / dt if dt else None,
            },
        )

    return Unit(
        "engine",
        f"engine.full_game.p{n}",
        f"seconds per full game {n}p (1-7)",
        "s",
        fn,
        higher_is_better=False,
        once=True,
        note=(f"measured once: up to {sizes.full_game_max_games} games within {budget:g} s; value = elapsed "
              f"time / games completed (unfinished game included); raise --full-game-seconds for more games"),
    )


def engine_units(sizes: Sizes, seed: int) -> list[Unit]:
    """Decisions/s per player count and contract, and full games when ``sizes.full_game_seconds`` > 0."""
    units = [
        _engine_decisions_unit(n, k, sizes, seed)
        for n in sizes.engine_players
        for k in sizes.engine_contracts
    ]
    if sizes.full_game_seconds > 0:
        units += [_engine_full_game_unit(n, sizes, seed) for n in sizes.engine_players]
    return units
