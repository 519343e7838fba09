"""OpenSpiel's bots at our table (``openspiel:ismcts,...``, ``openspiel:mcts,...``): from
the seat's view only, reproducible per seed (whatever the workers), capped for the server,
and a clear error without the extra."""

from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.allowlist import Allowlist, SpecRefused
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.openspiel_bots import HeuristicRollouts, OpenSpielAgent
from carioca_agents.registry import describe, make_agent, parse_spec
from carioca_agents.specs import SpecError
from carioca_env import Game, GameConfig, MoveKind
from carioca_env.extras import MissingExtraError
from carioca_experiments.apps import play
from carioca_experiments.apps.serve.safepath import SafeRoot
from carioca_experiments.apps.serve.sessions import GameStore
from carioca_experiments.evaluation.tournament import RESULTS_FILE, TournamentConfig, run_tournament

from random_play import decision_points

#: Small budgets: the tests check behaviour, not strength.
SPECS = ["openspiel:ismcts,sims=6,horizon=3", "openspiel:mcts,sims=6,horizon=3",
         "openspiel:ismcts,sims=4,horizon=2,rollout=heuristic"]




def test_the_spec_names_the_bot_and_its_typed_keys() -> None:
    parsed = parse_spec("openspiel:mcts,sims=9,uct_c=3.5,rollout=heuristic")
    assert parsed.args["algo"] == "mcts" and parsed.args["sims"] == 9 and parsed.args["uct_c"] == 3.5
    assert parse_spec("openspiel").args["algo"] == "ismcts"
    assert all(k in describe("openspiel") for k in ("algo", "sims", "rollouts", "uct_c", "horizon", "rollout"))
    agent = make_agent("openspiel:mcts,sims=3", seed=1)
    assert isinstance(agent, OpenSpielAgent) and agent.algo == "mcts" and agent.name == "openspiel:mcts,sims=3"
    for bad in ("openspiel:alphazero", "openspiel:ismcts,sims=0", "openspiel:rollout=ppo", "openspiel:depth=3"):
        with pytest.raises(SpecError, match="allowed keys of openspiel|not one of|below the minimum"):
            parse_spec(bad)


@pytest.mark.parametrize("spec", SPECS)
def test_the_bot_decides_from_the_view_only(spec: str) -> None:
    """Two real games that the seat cannot tell apart (the opponents' hidden cards and the
    stock dealt anew) get the same move from the same seed: the bot never reads them."""
    differing = 0
    for game in decision_points(2, 2, 7, 4) + decision_points(3, 1, 8, 2):
        seat = game.current
        other = game.determinize(seat, np.random.default_rng(len(game.moves)))
        assert other.view(seat) == game.view(seat)
        differing += (other.hands, other.stock) != (game.hands, game.stock)
        a = make_agent(spec, seed=11).act(game.view(seat), game.legal_moves())
        b = make_agent(spec, seed=11).act(other.view(seat), other.legal_moves())
        assert a == b
    assert differing >= 4  # the hidden cards really were different


def _deal(spec: str, seed: int, turns: int = 12) -> list[str]:
    game = Game(GameConfig(2, (1,)), seed=4)
    agents = [make_agent(spec, seed=seed), HeuristicAgent(1)]
    while not game.game_over and game.turn < turns:
        s = game.current
        game.apply(agents[s].act(game.view(s), game.legal_moves()))  # apply() raises on an illegal move
    return [str(m) for m in game.moves]


@pytest.mark.parametrize("spec", SPECS)
def test_moves_are_reproducible_per_seed(spec: str) -> None:
    """The same seed plays the same moves (IS-MCTS's resamples come from the agent's seed,
    not OpenSpiel's default sampler, which the system seeds anew at every call)."""
    assert _deal(spec, 3) == _deal(spec, 3)


def test_different_seeds_search_differently() -> None:
    """The seed is used: at a tiny budget, some decision of a deal differs between seeds."""
    spec = "openspiel:ismcts,sims=3,horizon=2"
    assert len({tuple(_deal(spec, seed)) for seed in range(4)}) > 1


def test_an_opening_is_chosen_meld_by_meld_and_played_whole() -> None:
    """The bot's seat opens contract 1 (two trios, chosen one meld per OpenSpiel action)
    with one whole engine move, which the checked ``apply`` accepts."""
    game = Game(GameConfig(2, (1,)), seed=2)
    agents = [make_agent("openspiel:ismcts,sims=4,horizon=2,rollout=heuristic", seed=0), HeuristicAgent(1)]
    while not game.game_over and not game.table[0] and game.turn < 200:
        s = game.current
        game.apply(agents[s].act(game.view(s), game.legal_moves()))
    assert len(game.table[0]) == 2 and not game.game_over  # seed 2: the bot opens before the heuristic closes
    assert game.moves[-1].kind is MoveKind.OPEN and len(game.moves[-1].melds) == 2


def test_heuristic_rollouts_end_the_searched_deal_with_zero_sum_returns() -> None:
    import pyspiel

    import carioca_env.openspiel_game  # noqa: F401
    from carioca_env.openspiel_game import state_from_view

    search = pyspiel.load_game("python_carioca", {"players": 3, "deals": 4, "score_truncated": True})
    game = decision_points(3, 4, 5, 1)[0]
    state = state_from_view(search, game.view(game.current), random.Random(0), horizon=4)
    evaluator = HeuristicRollouts(3, 3, np.random.RandomState(0))
    values = evaluator.evaluate(state)
    assert values.shape == (3,) and abs(values.sum()) < 1e-9 and np.any(values != 0)
    assert not state.is_terminal()  # the rollouts played clones
    assert sum(p for _, p in evaluator.prior(state)) == pytest.approx(1.0)


def test_tournament_results_are_the_same_whatever_the_workers(tmp_path: Path) -> None:
    cfg = TournamentConfig(agents=("os=openspiel:ismcts,sims=3,horizon=2", "greedy"), players=2, contracts=(1,),
                           decks=2, seed=43, max_turns=40)
    for workers in (1, 2):
        run_tournament(cfg, tmp_path / f"w{workers}", workers=workers, progress=False, log=lambda m: None,
                       write_summary=False)
    lines = [(tmp_path / f"w{w}" / RESULTS_FILE).read_text().splitlines()[1:] for w in (1, 2)]
    assert lines[0] == lines[1] and len(lines[0]) == 4


def test_carioca_play_seats_the_bot(tmp_path: Path) -> None:
    """``carioca play --bots openspiel:...``: the bot plays its seat until the person is asked."""
    import argparse
    import json

    screen = io.StringIO()
    args = argparse.Namespace(players=2, bots=["openspiel:ismcts,sims=3,horizon=2"], contracts=[1], seat=1, seed=5,
                              save=tmp_path / "game.json")
    code = play.run(args, stdin=io.StringIO("quit\n"), stdout=screen)
    record = json.loads((tmp_path / "game.json").read_text())
    game = Game.from_record(record)
    assert code == 0 and record["agents"] == ["openspiel:ismcts,sims=3,horizon=2", "you"]
    assert len(game.moves) == 2 and game.current_player == 1  # seed 5: the bot drew and discarded first


def test_the_browser_table_plays_the_bot_within_the_server_caps(tmp_path: Path) -> None:
    store = GameStore(SafeRoot.of(tmp_path))
    session = store.create(2, ["openspiel:mcts,sims=3,horizon=2"], 1, [1], 5)
    assert session.game.moves and session.game.current_player == 1  # the bot (seat 0) played first
    allow = Allowlist()
    assert "openspiel" in allow.choices()
    allow.check("openspiel:ismcts,sims=256,rollouts=2,horizon=20")
    for key, value in (("sims", 257), ("rollouts", 3), ("horizon", 21)):
        with pytest.raises(SpecRefused, match=f"{key} is at most"):
            allow.check(f"openspiel:ismcts,{key}={value}")
    with pytest.raises(SpecRefused, match="sims is at most"):
        store.create(2, ["openspiel:sims=1000"], 1, [1], 5)


def test_without_openspiel_building_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import carioca_env.extras as extras

    installed = extras._installed
    monkeypatch.setattr(extras, "_installed", lambda module: module != "pyspiel" and installed(module))
    with pytest.raises(MissingExtraError, match=r"carioca-env\[openspiel\]"):
        make_agent("openspiel:ismcts,sims=4")
    parse_spec("openspiel:ismcts,sims=4")  # the spec still parses: only building needs OpenSpiel
    allow = Allowlist()
    assert "openspiel" not in allow.choices() and "heuristic" in allow.choices()
    with pytest.raises(SpecError, match=r"carioca-env\[openspiel\]"):  # a 400 naming the extra, not a 500
        allow.check("openspiel")
