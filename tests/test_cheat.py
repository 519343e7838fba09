"""``cheat-search``: the labelled reference cheat plays only where a runner shows it the true
game (``carioca tournament``), searches with the opponents' true hands, and ``carioca serve``
never offers it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agents.allowlist import Allowlist, SpecRefused
from agents.cheat import CHEAT_NAME, CheatNotShown, CheatSearchAgent, show_true_game
from agents.heuristic import HeuristicAgent
from agents.registry import make_agent
from agents.search import SearchAgent
from carioca_env import Game, GameConfig
from experiments.apps.serve.app import create_app
from experiments.evaluation.tournament import RESULTS_FILE, TournamentConfig, run_tournament

from web_helpers import write_played_record


def _midgame(contract: int = 6, seed: int = 4, moves: int = 21) -> Game:
    game = Game(GameConfig(2, (contract,)), seed=seed)
    players = [HeuristicAgent(1), HeuristicAgent(2)]
    while len(game.moves) < moves and not game.game_over:
        s = game.current
        game.apply(players[s].act(game.view(s), game.legal_moves()))
    return game


def test_the_name_says_cheat_and_the_registry_builds_it() -> None:
    assert "cheat" in CHEAT_NAME
    agent = make_agent(f"{CHEAT_NAME}:sims=3", seed=1)
    assert isinstance(agent, CheatSearchAgent) and agent.sims == 3 and agent.cheat is True
    assert not getattr(SearchAgent(), "cheat", False)


def test_it_refuses_to_act_unless_shown_its_own_game() -> None:
    game = _midgame()
    seat = game.current
    agent = CheatSearchAgent(seed=0, sims=2)
    with pytest.raises(CheatNotShown, match="reference cheat"):
        agent.act(game.view(seat), game.legal_moves())
    other = _midgame(seed=5)
    agent.show(other)
    with pytest.raises(CheatNotShown, match="not the one of its view"):
        agent.act(game.view(seat), game.legal_moves())
    with pytest.raises(CheatNotShown):  # showing is for one decision only
        agent.act(game.view(seat), game.legal_moves())
    show_true_game(agent, game)
    assert agent.act(game.view(seat), game.legal_moves()) in game.legal_moves()


def test_its_determinizations_hold_the_true_hands_and_a_reshuffled_stock() -> None:
    game = _midgame()
    seat = game.current
    view = game.view(seat)
    agent = CheatSearchAgent(seed=3, sims=2)
    agent._true = game  # what act() sets for the decision it searches
    orders = set()
    for _ in range(4):
        det = agent.determinize(view)
        assert det.view(seat) == view
        assert [list(h) for h in det.hands] == [list(h) for h in game.hands]
        assert Counter(det.stock) == Counter(game.stock)
        orders.add(tuple(det.stock))
    assert len(orders) > 1  # the stock's order is not known to it
    honest = SearchAgent(seed=3, sims=2, infer=0).determinize(view)
    assert [list(h) for h in honest.hands] != [list(h) for h in game.hands]


def test_show_true_game_leaves_honest_agents_alone() -> None:
    game = _midgame()
    honest = SearchAgent(seed=0, sims=2)
    show_true_game(honest, game)
    assert not hasattr(honest, "_true") and not hasattr(honest, "_game")


def test_a_tournament_plays_it_and_labels_it(tmp_path: Path) -> None:
    cfg = TournamentConfig(agents=(f"cheat={CHEAT_NAME}:sims=4", "h=heuristic"), players=2, contracts=(6,),
                           decks=1, seed=2, max_turns=300)
    run_tournament(cfg, tmp_path, workers=1, progress=False, log=lambda m: None, write_summary=False)
    lines = (tmp_path / RESULTS_FILE).read_text(encoding="utf-8").splitlines()[1:]
    recs = [json.loads(line) for line in lines]
    assert len(recs) == 2 and all(sorted(r["seats"]) == ["cheat", "h"] for r in recs)


@pytest.mark.parametrize("spec", [CHEAT_NAME, f"{CHEAT_NAME}:sims=2", f"search:rollout={CHEAT_NAME}"])
def test_serve_never_offers_it(spec: str, tmp_path: Path) -> None:
    with pytest.raises(SpecRefused):
        Allowlist().check(spec)
    assert CHEAT_NAME not in Allowlist().choices()
    folder = tmp_path / "served"
    write_played_record(folder / "r.json", players=2, deals=(1,))
    r = TestClient(create_app(folder)).post("/api/games", json={"bots": [spec]})
    assert r.status_code in (403, 422) and CHEAT_NAME in r.text, r.text  # refused, naming it
    games = folder / "web-games"
    assert not games.exists() or not any(games.iterdir())  # and no game was started
