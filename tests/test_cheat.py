"""``cheat-search``: the labelled reference cheat plays only where a runner shows it the true
game (``carioca tournament``), searches with the opponents' true hands, and ``carioca serve``
never offers it."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_agents.allowlist import Allowlist, SpecRefused
from carioca_agents.cheat import (
    CHEAT_NAME,
    CheatNotShown,
    CheatSearchAgent,
    redeal_expected,
    redeal_hidden,
    show_true_game,
)
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.registry import SpecError, make_agent
from carioca_agents.search import SearchAgent
from carioca_env import Game, GameConfig
from carioca_experiments.apps.serve.app import create_app
from carioca_experiments.evaluation.tournament import RESULTS_FILE, TournamentConfig, run_tournament

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


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 53), max_size=12), min_size=2, max_size=4),
       st.lists(st.integers(0, 53), max_size=40), st.floats(0, 1), st.integers(0, 2**32))
def test_redeal_keeps_every_card_and_every_hand_size(hidden: list[list[int]], stock: list[int], share: float,
                                                      seed: int) -> None:
    out, rest = redeal_hidden(hidden, stock, share, random.Random(seed))
    assert [len(h) for h in out] == [len(h) for h in hidden] and len(rest) == len(stock)
    assert Counter(c for h in out for c in h) + Counter(rest) == Counter(c for h in hidden for c in h) + Counter(stock)
    if share == 0:
        assert [list(h) for h in out] == hidden  # the stock comes back shuffled


def test_redeal_interpolates_from_the_true_hand_to_a_uniform_deal() -> None:
    # seat 0 hides cards 0-4, seat 1 cards 5-9, the stock holds 10-29: 30 distinct cards
    hidden, stock = [list(range(5)), list(range(5, 10))], list(range(10, 30))
    rng, trials = random.Random(7), 4000
    kept_share = {}
    for share in (0.25, 0.5, 1.0):
        held = Counter[int]()
        for _ in range(trials):
            out, _rest = redeal_hidden(hidden, stock, share, rng)
            held.update(out[0])
        kept_share[share] = sum(held[c] for c in range(5)) / (5 * trials)
        if share == 1.0:
            # every card lands in seat 0's 5 places with probability 5/30: binomial, 4.5 standard errors
            p = 5 / 30
            se = (p * (1 - p) / trials) ** 0.5
            assert all(abs(held[c] / trials - p) < 4.5 * se for c in range(30))
    # a card kept is held; one put back returns with a small chance: the share held falls with the noise
    assert kept_share[0.25] > kept_share[0.5] + 0.1 > kept_share[1.0] + 0.2
    for share in (0.25, 0.5):  # kept (1 - q), plus a put-back card's return: about 5q of the 10q + 20 pooled
        assert abs(kept_share[share] - (1 - share + share * 5 * share / (10 * share + 20))) < 0.02
    with pytest.raises(ValueError, match="between 0 and 1"):
        redeal_hidden(hidden, stock, 1.5, rng)


def test_redeal_expected_matches_the_sampled_mean() -> None:
    # card types 0-5; seat 0 hides nothing (the viewer), seats 1-2 hide some; the stock the rest
    hidden = np.array([[0, 0, 0, 0, 0, 0], [2, 1, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0]], dtype=float)
    stock = [0, 2, 3, 4, 5, 5, 5, 1, 4, 5]
    pool = hidden.sum(axis=0) + np.bincount(stock, minlength=6)
    cards = [[c for c, n in enumerate(row) for _ in range(int(n))] for row in hidden]
    assert np.allclose(redeal_expected(hidden, pool, 0.0), hidden)
    uniform = hidden.sum(axis=1, keepdims=True) * pool / pool.sum()
    assert np.allclose(redeal_expected(hidden, pool, 1.0), uniform)
    rng, trials = random.Random(3), 20000
    for share in (0.3, 0.7):
        mean = np.zeros_like(hidden)
        for _ in range(trials):
            out, _rest = redeal_hidden(cards, stock, share, rng)
            for s, h in enumerate(out):
                mean[s] += np.bincount(h, minlength=6) if h else 0
        mean /= trials
        # first order: within 0.05 of a card on this small table, where the ratio of the
        # expectations is at its worst (the sampling error alone is about 0.01)
        assert np.abs(mean - redeal_expected(hidden, pool, share)).max() < 0.05
    with pytest.raises(ValueError, match="fewer copies"):
        redeal_expected(hidden, hidden.sum(axis=0) - 1, 0.5)


def test_the_noisy_oracle_stays_consistent_with_the_view() -> None:
    game = _midgame(contract=4)
    seat = game.current
    view = game.view(seat)
    exact, noisy = CheatSearchAgent(seed=3, sims=2), make_agent(f"{CHEAT_NAME}:noise=0.5,sims=2", seed=3)
    zero = make_agent(f"{CHEAT_NAME}:noise=0,sims=2", seed=3)
    assert isinstance(noisy, CheatSearchAgent) and noisy.noise == 0.5
    assert isinstance(zero, CheatSearchAgent)
    wrong = 0
    for agent in (exact, noisy, zero):
        agent._true = game
    for _ in range(8):
        a, b, z = exact.determinize(view), noisy.determinize(view), zero.determinize(view)
        assert z.hands == a.hands and z.stock == a.stock  # noise=0 draws what the cheat always drew
        assert b.view(seat) == view  # every seen card in place, the sizes exact
        wrong += b.hands != game.hands
    assert wrong > 0
    with pytest.raises(SpecError, match="above the maximum"):
        make_agent(f"{CHEAT_NAME}:noise=1.5")
    with pytest.raises(ValueError, match="between 0 and 1"):
        CheatSearchAgent(noise=-0.1)


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
