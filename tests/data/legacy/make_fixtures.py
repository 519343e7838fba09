"""How the files in this folder were made: with the code of commit dbb015d, the last one
before the packages were renamed (``agents`` -> ``carioca_agents``, ``experiments`` ->
``carioca_experiments``).  Kept to say where the fixtures come from; it imports the old
names, so it runs only in a checkout of that commit:

    git worktree add /tmp/old dbb015d
    cd /tmp/old && PYTHONPATH=. python /path/to/this/make_fixtures.py OUT

It writes ``OUT/choices.json`` (each shipped model's move at fixed positions) and
``OUT/values.json`` (each shipped luck value file's fingerprint and values at fixed
states, each shipped belief's expected hidden counts at fixed views).  The tournament,
record and training folders were written by the ``carioca`` commands listed in
``README.md`` beside this file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from agents.heuristic import HeuristicAgent
from agents.ppo_agent import shipped_models
from agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_env.moves import MoveKind


def positions(players: int, contract: int, count: int) -> list[tuple[int, int]]:
    """(deck seed, heuristic moves before) pairs of decisions with more than one legal move."""
    out = []
    seed = 0
    while len(out) < count:
        game = Game(GameConfig(players, (contract,)), seed=1000 + seed)
        bots = [HeuristicAgent(seed * 10 + s) for s in range(players)]
        moves = 0
        while not game.game_over and len(out) < count:
            legal = game.legal_moves()
            if len(legal) > 1 and moves % 7 == 3:
                out.append((1000 + seed, moves))
            s = game.current
            game.apply(bots[s].act(game.view(s), legal))
            moves += 1
            if moves > 120:
                break
        seed += 1
    return out


def replay(players: int, contract: int, seed: int, moves: int) -> Game:
    """The game at ``moves`` heuristic moves into the deal of ``seed``."""
    game = Game(GameConfig(players, (contract,)), seed=seed)
    bots = [HeuristicAgent((seed - 1000) * 10 + s) for s in range(players)]
    for _ in range(moves):
        s = game.current
        game.apply(bots[s].act(game.view(s), game.legal_moves()))
    return game


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    choices = []
    names = shipped_models()
    for name in names:
        agent = make_agent(f"ppo:{name}", seed=0)
        players = int(agent.card["num_players"])
        contract = agent.card.get("contract")
        contract = 4 if contract in (None, "full") else int(contract)
        for seed, moves in positions(players, contract, 6):
            game = replay(players, contract, seed, moves)
            agent.reset(0)
            move = agent.act(game.view(game.current), game.legal_moves())
            choices.append({"model": name, "players": players, "contract": contract, "seed": seed, "moves": moves,
                            "move": str(move)})
    (out / "choices.json").write_text(json.dumps(choices, indent=1) + "\n")

    from experiments.evaluation.luck.value import SHIPPED_BY_VERSION, load_value
    from agents.belief import make_belief
    values = {"luck": [], "belief": []}
    for version, path in sorted(SHIPPED_BY_VERSION.items()):
        if version in (1, 4):
            continue  # the study versions
        vf = load_value(path)
        rows = []
        for players, contract in ((2, 1), (2, 4), (4, 2), (4, 7)):
            game = Game(GameConfig(players, (contract,)), seed=77)
            bots = [HeuristicAgent(s) for s in range(players)]
            drawn = 0
            while not game.game_over and drawn < 3:
                legal = game.legal_moves()
                s = game.current
                move = next((m for m in legal if m.kind is MoveKind.DRAW_STOCK), None) or bots[s].act(game.view(s), legal)
                game.apply(move)
                if move.kind is MoveKind.DRAW_STOCK:
                    drawn += 1
                    rows.append({"players": players, "contract": contract, "value": [float(x) for x in vf.evaluate(game)]})
        values["luck"].append({"version": version, "fingerprint": vf.fingerprint, "rows": rows})
    for name in ("belief-v1", "belief-v2"):
        belief = make_belief(name)
        rows = []
        for players, contract in ((2, 3), (3, 5)):
            game = replay(players, contract, 1000, 20)
            rows.append({"players": players, "contract": contract,
                         "expected": np.round(belief.expected_hidden(game.view(game.current)), 12).tolist()})
        values["belief"].append({"name": name, "rows": rows})
    (out / "values.json").write_text(json.dumps(values) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
