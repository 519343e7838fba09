"""``carioca tune-heuristic``: tune the heuristic's weights with Optuna over duplicate decks.

Usage::

    carioca tune-heuristic --contracts 1 4 --players 2 3 4 --trials 40 --decks 12
    carioca tune-heuristic --contracts 2 3 5 6 7 --trials 40 --out results/tune-runs.json

Objective (minimized): one candidate ``heuristic`` at a table of ``greedy`` players
(the ladder's weak spot), every seat rotation of every deck (duplicate: each deck is
played once with the candidate in each seat), over the given contracts and player
counts; the value is the candidate's mean deal penalty minus the mean penalty of the
greedy players at its table.  The first trial is the current weights (``--start``), so
the best trial is never worse than them on the tuning decks.

Tuning decks are disjoint from evaluation decks: a tuning deck is shuffled by
``random.Random("carioca-tune:<seed>:<players>:<contract>:<deck>")``, a namespace no
tournament uses (``carioca tournament`` derives its decks from
``["carioca-tournament", seed, "deck", ...]``), and the project's evaluation
tournaments use seeds 1000 and above while tuning uses 0-999 by convention.

The result JSON holds every trial (weights, value), the best weights and the command;
the best weights are adopted by copying them into ``carioca_agents.heuristic.TUNED_BY_DEAL``.
Sampler: Optuna's TPE seeded by ``--seed``; with one worker the run is reproducible.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from carioca_env import Game, GameConfig
from carioca_env.cards import full_deck
from carioca_env.game_config import MAX_TURNS
from carioca_env.records import write_atomic
from carioca_experiments.common.argtypes import CONTRACT_CHOICES, PLAYER_CHOICES, check_output_path, int_at_least

#: (low, high) of each tuned weight, searched on a log scale (the weights are scales).
SEARCH_SPACE: dict[str, tuple[float, float]] = {
    "w_def": (3.0, 30.0),
    "w_out": (0.05, 1.5),
    "w_out_cap": (6.0, 60.0),
    "w_pen": (0.002, 0.2),
    "w_pen_danger": (0.05, 1.0),
    "w_feed_open": (1.0, 20.0),
    "w_feed_close": (0.05, 1.0),
    "w_feed_rank": (0.3, 8.0),
    "w_feed_suit": (0.1, 4.0),
    "w_table_keep": (0.1, 1.0),
    "w_ext": (0.5, 12.0),
    "w_pot": (2.0, 40.0),
}


def tuning_deck(seed: int, players: int, contract: int, deck: int) -> tuple[list[int], int, int]:
    """Tuning deck ``deck``: ``(cards, dealer, game_seed)`` (namespace ``carioca-tune``)."""
    rng = random.Random(f"carioca-tune:{seed}:{players}:{contract}:{deck}")
    cards = full_deck()
    rng.shuffle(cards)
    return cards, rng.randrange(players), rng.getrandbits(63)


def play_deal(cards: list[int], dealer: int, game_seed: int, players: int, contract: int,
              agents: Sequence[Any], max_turns: int) -> tuple[int, ...]:
    """Play one deal; the penalties (a deal cut off at ``max_turns`` scores the hands)."""
    from carioca_env.cards import hand_penalty

    game = Game.from_deck(cards, dealer, GameConfig(players, (contract,)), game_seed)
    while not game.game_over and game.turn < max_turns:
        s = game.current
        legal = game.legal_moves()
        game.apply(legal[0] if len(legal) == 1 else agents[s].act(game.view(s), legal))
    if game.game_over:
        return game.deal_results[-1].scores
    return tuple(hand_penalty(game.hands[s]) for s in range(players))


def evaluate(params: dict[str, float], contracts: Sequence[int], players: Sequence[int], decks: int,
             seed: int, max_turns: int) -> dict[str, Any]:
    """Mean (candidate - greedy) penalty over every deck and seat rotation, and per cell."""
    from carioca_agents.greedy import GreedyAgent
    from carioca_agents.heuristic import HeuristicAgent

    cells: dict[str, list[float]] = {}
    for n in players:
        for k in contracts:
            diffs = []
            for d in range(decks):
                cards, dealer, game_seed = tuning_deck(seed, n, k, d)
                for seat in range(n):
                    agent_seed = random.Random(f"carioca-tune-agents:{seed}:{n}:{k}:{d}:{seat}").getrandbits(32)
                    agents = [HeuristicAgent(agent_seed + s, params) if s == seat else GreedyAgent(agent_seed + s)
                              for s in range(n)]
                    scores = play_deal(cards, dealer, game_seed, n, k, agents, max_turns)
                    others = (sum(scores) - scores[seat]) / (n - 1)
                    diffs.append(scores[seat] - others)
            cells[f"p{n}.c{k}"] = diffs
    every = [x for v in cells.values() for x in v]
    return {"value": sum(every) / len(every), "cells": {c: sum(v) / len(v) for c, v in cells.items()}}


def run_study(contracts: Sequence[int], players: Sequence[int], trials: int, decks: int, seed: int,
              max_turns: int, start: dict[str, float], progress: bool,
              log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the Optuna study; returns the result document (see the module docstring)."""
    import optuna

    from carioca_experiments.common.progress import progress_bar

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial({k: min(max(start[k], lo), hi) for k, (lo, hi) in SEARCH_SPACE.items()})
    records: list[dict[str, Any]] = []
    bar = progress_bar(total=trials, unit="trial", desc="tune-heuristic", enabled=progress, file=sys.stderr)

    interrupted = []

    def objective(trial: Any) -> float:
        params = {k: trial.suggest_float(k, lo, hi, log=True) for k, (lo, hi) in SEARCH_SPACE.items()}
        params = {**start, **params}
        t0 = time.perf_counter()
        try:
            res = evaluate(params, contracts, players, decks, seed, max_turns)
        except KeyboardInterrupt:
            # Optuna logs an interrupted trial as a failure with a traceback; a pruned trial
            # is logged quietly, and the interrupt is raised again once the study stops
            interrupted.append(trial.number)
            study.stop()
            raise optuna.TrialPruned() from None
        records.append({"trial": trial.number, "params": params, **res, "seconds": time.perf_counter() - t0})
        bar.update(1)
        bar.set_postfix(best=min(r["value"] for r in records))
        return res["value"]

    study.optimize(objective, n_trials=trials)
    bar.close()
    if interrupted:
        raise KeyboardInterrupt
    best = min(records, key=lambda r: r["value"])
    return {
        "format": "carioca-tune-heuristic", "version": 1,
        "contracts": list(contracts), "players": list(players), "decks": decks, "seed": seed,
        "max_turns": max_turns, "trials": records, "start": records[0], "best": best,
    }


@dataclass(frozen=True)
class TuneConfig:
    """One tuning run, every option checked when it is built (before the study runs).

    Attributes:
        contracts: contracts tuned together (1..7, each once).
        players: player counts tuned together (2..4, each once).
        trials: Optuna trials (>= 1); decks: tuning decks per contract and player count (>= 1).
        seed: seed of the decks and the sampler (>= 0; keep < 1000, see the module docstring).
        max_turns: turns after which a deal is scored by the hands (>= 1).
        start: the preset of the first trial and of the untuned weights.
        out: the result JSON (its folder must be creatable: not under a regular file).
    """

    contracts: tuple[int, ...] = (1, 4)
    players: tuple[int, ...] = (2, 3, 4)
    trials: int = 40
    decks: int = 12
    seed: int = 0
    max_turns: int = MAX_TURNS
    start: str = "v1"
    out: Path | None = None

    def __post_init__(self) -> None:
        from carioca_agents.heuristic import PRESETS
        from carioca_env.errors import as_int

        for name, allowed in (("contracts", range(1, 8)), ("players", range(2, 5))):
            values = tuple(as_int(f"--{name}", v, allowed.start, allowed.stop - 1) for v in getattr(self, name))
            if not values or len(set(values)) != len(values):
                raise ValueError(f"--{name} must list distinct values among {allowed.start}..{allowed.stop - 1}, "
                                 f"got {list(values)}")
            object.__setattr__(self, name, values)
        for name, low in (("trials", 1), ("decks", 1), ("seed", 0), ("max_turns", 1)):
            as_int(f"--{name.replace('_', '-')}", getattr(self, name), low)
        if self.start not in PRESETS:
            raise ValueError(f"--start must be one of {', '.join(PRESETS)}, got {self.start!r}")
        out = self.out if self.out is not None else Path("results") / (
            f"tune-heuristic-c{''.join(map(str, self.contracts))}-p{''.join(map(str, self.players))}-s{self.seed}.json")
        check_output_path(Path(out), "--out", "file")  # before the study, not after it
        object.__setattr__(self, "out", Path(out))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca tune-heuristic``."""
    parser.add_argument("--contracts", type=int, nargs="+", default=[1, 4], metavar="K", choices=CONTRACT_CHOICES,
                        help="contracts tuned together (default 1 4: the trio contracts)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], metavar="N", choices=PLAYER_CHOICES,
                        help="player counts tuned together (default 2 3 4)")
    parser.add_argument("--trials", type=int_at_least(1), default=40, help="Optuna trials (default 40)")
    parser.add_argument("--decks", type=int_at_least(1), default=12, help="tuning decks per contract and player count (default 12)")
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the decks and the sampler (default 0; keep < 1000)")
    parser.add_argument("--max-turns", type=int_at_least(1), default=MAX_TURNS,
                        help=f"turns after which a deal is cut off (R17) and scored by the cards in hand (default {MAX_TURNS})")
    parser.add_argument("--start", default="v1", help="preset of the first trial and of untuned weights (default v1)")
    parser.add_argument("--out", type=Path, default=None,
                        help="result JSON (default results/tune-heuristic-c<contracts>-p<players>-s<seed>.json)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def config_from_args(args: argparse.Namespace) -> TuneConfig:
    """The run's config (every option checked, ``--out`` included)."""
    return TuneConfig(contracts=tuple(args.contracts), players=tuple(args.players), trials=args.trials,
                      decks=args.decks, seed=args.seed, max_turns=args.max_turns, start=args.start, out=args.out)


#: what the command says after Ctrl-C (carioca_experiments.cli prints it)
INTERRUPTED = "nothing was written (a study does not resume); rerun the command to tune again"


def run(args: argparse.Namespace) -> int:
    """Check every option, run the tuning, write the JSON result and print the best weights."""
    from carioca_agents.heuristic import PRESETS

    config = config_from_args(args)
    start = dict(PRESETS[config.start][0])
    progress = not args.no_progress and sys.stderr.isatty()
    doc = run_study(config.contracts, config.players, config.trials, config.decks, config.seed, config.max_turns,
                    start, progress)
    doc["command"] = " ".join(["carioca", "tune-heuristic", *sys.argv[2:]]) if len(sys.argv) > 1 else ""
    out = cast(Path, config.out)  # __post_init__ set the default
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, json.dumps(doc, indent=1) + "\n")
    print(f"start value {doc['start']['value']:+.2f}, best {doc['best']['value']:+.2f} (trial {doc['best']['trial']})")
    print(json.dumps({k: round(v, 4) for k, v in doc["best"]["params"].items()}))
    print(f"written to {out}")
    return 0
