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
the best weights are adopted by copying them into ``agents.heuristic.TUNED_BY_DEAL``.
Sampler: Optuna's TPE seeded by ``--seed``; with one worker the run is reproducible.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from carioca_env import Game, GameConfig
from carioca_env.cards import full_deck

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
    from agents.greedy import GreedyAgent
    from agents.heuristic import HeuristicAgent

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

    from experiments.progress import progress_bar

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial({k: min(max(start[k], lo), hi) for k, (lo, hi) in SEARCH_SPACE.items()})
    records: list[dict[str, Any]] = []
    bar = progress_bar(total=trials, unit="trial", desc="tune-heuristic", enabled=progress, file=sys.stderr)

    def objective(trial: Any) -> float:
        params = {k: trial.suggest_float(k, lo, hi, log=True) for k, (lo, hi) in SEARCH_SPACE.items()}
        params = {**start, **params}
        t0 = time.perf_counter()
        res = evaluate(params, contracts, players, decks, seed, max_turns)
        records.append({"trial": trial.number, "params": params, **res, "seconds": time.perf_counter() - t0})
        bar.update(1)
        bar.set_postfix(best=min(r["value"] for r in records))
        return res["value"]

    study.optimize(objective, n_trials=trials)
    bar.close()
    best = min(records, key=lambda r: r["value"])
    return {
        "format": "carioca-tune-heuristic", "version": 1,
        "contracts": list(contracts), "players": list(players), "decks": decks, "seed": seed,
        "max_turns": max_turns, "trials": records, "start": records[0], "best": best,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca tune-heuristic``."""
    parser.add_argument("--contracts", type=int, nargs="+", default=[1, 4], metavar="K",
                        help="contracts tuned together (default 1 4: the trio contracts)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], metavar="N",
                        help="player counts tuned together (default 2 3 4)")
    parser.add_argument("--trials", type=int, default=40, help="Optuna trials (default 40)")
    parser.add_argument("--decks", type=int, default=12, help="tuning decks per contract and player count (default 12)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the decks and the sampler (default 0; keep < 1000)")
    parser.add_argument("--max-turns", type=int, default=400, help="turns after which a deal is scored by hands (default 400)")
    parser.add_argument("--start", default="v1", help="preset of the first trial and of untuned weights (default v1)")
    parser.add_argument("--out", type=Path, default=None,
                        help="result JSON (default results/tune-heuristic-c<contracts>-p<players>-s<seed>.json)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Run the tuning and write the JSON result; print the best weights."""
    from agents.heuristic import PRESETS

    bad = [k for k in args.contracts if not 1 <= k <= 7] + [n for n in args.players if not 2 <= n <= 4]
    if bad or args.trials < 1 or args.decks < 1 or args.seed < 0:
        raise ValueError(f"contracts are 1..7, players 2..4, --trials and --decks >= 1, --seed >= 0; got {bad or ''}"
                         f" trials={args.trials} decks={args.decks} seed={args.seed}")
    if args.start not in PRESETS:
        raise ValueError(f"--start must be one of {', '.join(PRESETS)}, got {args.start!r}")
    start = dict(PRESETS[args.start][0])
    progress = not args.no_progress and sys.stderr.isatty()
    doc = run_study(args.contracts, args.players, args.trials, args.decks, args.seed, args.max_turns, start, progress)
    doc["command"] = " ".join(["carioca", "tune-heuristic", *sys.argv[2:]]) if len(sys.argv) > 1 else ""
    out = args.out or Path("results") / (
        f"tune-heuristic-c{''.join(map(str, args.contracts))}-p{''.join(map(str, args.players))}-s{args.seed}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"start value {doc['start']['value']:+.2f}, best {doc['best']['value']:+.2f} (trial {doc['best']['trial']})")
    print(json.dumps({k: round(v, 4) for k, v in doc["best"]["params"].items()}))
    print(f"written to {out}")
    return 0
