"""The ``play`` section's workloads, each timed in a fresh process of one checkout.

Run as a script (never imported by the bench: it runs under *another* checkout's code
too)::

    export PYTHONPATH=/tmp/base
    python experiments/evaluation/bench/workloads.py heuristic --size 3000 --seed 0 --names old

It prints one JSON line: ``{"value": per second, "seconds": ..., "count": ...,
"digest": ...}``.  ``digest`` is a SHA-256 of the moves (or results) the workload
produced, so that two checkouts can be seen to make the same choices for the same seed.

It imports only the public API that every checkout since ``dbb015d`` has (``Game``,
``GameConfig``, ``HeuristicAgent``, ``SearchAgent``, ``CariocaSingleAgentEnv``,
``run_tournament``), under the upper packages' names that checkout has: ``--names new``
(``carioca_agents``, ``carioca_experiments``) or ``--names old`` (``agents``,
``experiments``, before the rename); the bench says which.  Every run is a
new process, so caches start empty in both checkouts alike.

Workloads (``size`` is how much work):

- ``heuristic``: decisions per second of heuristic-vs-heuristic play at 2 players,
  one-deal games of contracts 1..7 in turn (``legal_moves`` + ``view`` + ``act`` +
  ``apply``), until ``size`` decisions;
- ``tournament``: deals per second of ``carioca tournament --agents heuristic greedy
  --players 2 --decks size`` (every contract, one worker, no summary files);
- ``wrapper``: steps per second of ``CariocaSingleAgentEnv`` (2 players, the full game,
  ``max_turns=200``) with a heuristic opponent and a random learner, ``size`` steps;
- ``search``: searched decisions per second of ``SearchAgent(sims=...)`` at ``size``
  states reached by heuristic play (2 players, every contract); the agent's choices go
  into the digest.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import random
import tempfile
import time
from types import ModuleType
from typing import Any

WORKLOADS = ("heuristic", "tournament", "wrapper", "search")


#: which of the upper packages' names the checkout being timed has (``--names``)
NAMES = {"names": "new"}


def _module(new: str, old: str) -> ModuleType:
    """The module under the names of the checkout being timed (:data:`NAMES`)."""
    return importlib.import_module(new if NAMES["names"] == "new" else old)


def _digest(items: list[str]) -> str:
    return hashlib.sha256("\n".join(items).encode()).hexdigest()[:16]


def heuristic(size: int, seed: int, sims: int) -> dict[str, Any]:
    """Heuristic-vs-heuristic decisions per second (see the module docstring)."""
    from carioca_env import Game, GameConfig

    agent_cls = _module("carioca_agents.heuristic", "agents.heuristic").HeuristicAgent
    done = k = 0
    moves: list[str] = []
    t0 = time.perf_counter()
    while done < size:
        game = Game(GameConfig(2, (1 + k % 7,)), seed=seed * 1000 + k)
        agents = [agent_cls(seed * 1000 + 2 * k + s) for s in range(2)]
        while not game.game_over and game.turn < 200 and done < size:
            s = game.current
            move = agents[s].act(game.view(s), game.legal_moves())
            game.apply(move)
            moves.append(str(move))
            done += 1
        k += 1
    dt = time.perf_counter() - t0
    return {"value": done / dt, "seconds": dt, "count": done, "games": k, "digest": _digest(moves)}


def tournament(size: int, seed: int, sims: int) -> dict[str, Any]:
    """Tournament deals per second, one worker (see the module docstring)."""
    config_mod = _module("carioca_experiments.evaluation.tournament.config", "experiments.evaluation.tournament.config")
    runner = _module("carioca_experiments.evaluation.tournament.runner", "experiments.evaluation.tournament.runner")
    config = config_mod.TournamentConfig(agents=("heuristic", "greedy"), players=2, decks=size, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        runner.run_tournament(config, out_dir=tmp, workers=1, progress=False, write_summary=False,
                              log=lambda _msg: None)
        dt = time.perf_counter() - t0
        with open(f"{tmp}/results.jsonl") as fh:
            lines = [json.loads(line) for line in fh if line.strip()]
    rows = [r for r in lines if isinstance(r, dict) and "task" in r]
    results = sorted(json.dumps([r.get(k) for k in ("task", "penalty", "turns", "closer")]) for r in rows)
    return {"value": len(rows) / dt, "seconds": dt, "count": len(rows), "digest": _digest(results)}


def wrapper(size: int, seed: int, sims: int) -> dict[str, Any]:
    """Single-agent wrapper steps per second with a heuristic opponent (see the module docstring)."""
    import numpy as np

    from carioca_env.wrappers import CariocaSingleAgentEnv

    agent_cls = _module("carioca_agents.heuristic", "agents.heuristic").HeuristicAgent
    env = CariocaSingleAgentEnv(num_players=2, max_turns=200, opponents=agent_cls(seed))
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = episodes = 0
    actions: list[str] = []
    t0 = time.perf_counter()
    while steps < size:
        legal = np.flatnonzero(env.action_masks())
        action = int(legal[rng.integers(len(legal))])
        _obs, _r, term, trunc, _info = env.step(action)
        actions.append(str(action))
        steps += 1
        if term or trunc:
            env.reset()
            episodes += 1
    dt = time.perf_counter() - t0
    return {"value": steps / dt, "seconds": dt, "count": steps, "episodes": episodes, "digest": _digest(actions)}


def search(size: int, seed: int, sims: int) -> dict[str, Any]:
    """Searched decisions per second at ``size`` states (see the module docstring)."""
    from carioca_env import Game, GameConfig

    agent_cls = _module("carioca_agents.heuristic", "agents.heuristic").HeuristicAgent
    search_cls = _module("carioca_agents.search", "agents.search").SearchAgent
    states: list[Any] = []
    k = 0
    while len(states) < size and k < 7 * size:
        contract = 1 + k % 7
        game = Game(GameConfig(2, (contract,)), seed=seed * 1000 + k)
        agents = [agent_cls(seed * 1000 + 2 * k + s) for s in range(2)]
        pick = random.Random(seed * 1000 + k)
        taken = 0
        while not game.game_over and game.turn < 200 and taken < 2:
            s = game.current
            legal = game.legal_moves()
            if len(legal) > 1 and pick.random() < 0.08:
                states.append(game.clone())
                taken += 1
            game.apply(agents[s].act(game.view(s), legal))
        k += 1
    states = states[:size]
    agent = search_cls(seed=seed, sims=sims)
    choices: list[str] = []
    spent = 0.0
    for g in states:
        view, legal = g.view(g.current), g.legal_moves()
        t0 = time.perf_counter()
        move = agent.act(view, legal)
        spent += time.perf_counter() - t0
        choices.append(str(move))
    return {"value": len(states) / spent, "seconds": spent, "count": len(states), "searched": agent.searched,
            "rollouts": agent.rollouts, "digest": _digest(choices)}


def main(argv: list[str] | None = None) -> None:
    """Run one workload and print its JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=WORKLOADS)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sims", type=int, default=16, help="the search workload's budget")
    parser.add_argument("--names", choices=("new", "old"), default="new",
                        help="the upper packages' import names in the checkout: carioca_agents... (new) or agents... (old)")
    args = parser.parse_args(argv)
    NAMES["names"] = args.names
    fn = {"heuristic": heuristic, "tournament": tournament, "wrapper": wrapper, "search": search}[args.workload]
    print(json.dumps(fn(args.size, args.seed, args.sims)))


if __name__ == "__main__":
    main()
