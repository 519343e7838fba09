"""``carioca tune-heuristic``: seeded, starts from the current weights, decks of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carioca_agents.heuristic import PRESETS, V1_PARAMS, HeuristicAgent, make_heuristic
from carioca_experiments.cli import main
from carioca_experiments.training.tune_heuristic import SEARCH_SPACE, evaluate, tuning_deck


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["tune-heuristic", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for option in ("--trials", "--decks", "--seed", "--contracts", "--players", "--no-progress"):
        assert option in out


def test_a_tiny_run_is_seeded_and_starts_from_the_current_weights(tmp_path: Path, capsys) -> None:
    docs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.json"
        assert main(["tune-heuristic", "--contracts", "1", "--players", "2", "--trials", "2", "--decks", "1",
                     "--seed", "4", "--no-progress", "--out", str(out)]) == 0
        docs.append(json.loads(out.read_text()))
    a, b = docs
    assert [t["value"] for t in a["trials"]] == [t["value"] for t in b["trials"]]
    assert [t["params"] for t in a["trials"]] == [t["params"] for t in b["trials"]]
    assert a["trials"][0]["params"] == V1_PARAMS  # the first trial is the starting preset
    assert a["best"]["value"] == min(t["value"] for t in a["trials"])
    assert set(SEARCH_SPACE) <= set(a["trials"][1]["params"])


def test_the_objective_is_the_candidate_minus_greedy_and_changes_with_the_weights() -> None:
    base = evaluate(V1_PARAMS, [1], [2], 3, 0, 300)
    assert set(base["cells"]) == {"p2.c1"}
    worse = evaluate({**V1_PARAMS, "w_def": 0.0, "w_out": 0.0, "w_pen": 5.0}, [1], [2], 3, 0, 300)
    assert worse["value"] != base["value"]


def test_tuning_decks_are_their_own() -> None:
    from carioca_experiments.evaluation.tournament import TournamentConfig, deal_deck

    cards, dealer, _ = tuning_deck(0, 2, 1, 0)
    assert sorted(cards) == sorted(tuning_deck(0, 2, 1, 1)[0]) and 0 <= dealer < 2
    tune = {tuple(tuning_deck(s, 2, 1, d)[0]) for s in range(3) for d in range(5)}
    cfg = TournamentConfig(agents=("greedy", "heuristic"), players=2, contracts=(1,), decks=5, seed=1201)
    evaluation = {tuple(deal_deck(cfg, 1, d)[0]) for d in range(5)}
    assert not tune & evaluation


def test_presets_and_per_contract_weights() -> None:
    assert set(PRESETS) == {"v1", "tuned"}
    agent = HeuristicAgent(0, {"w_def": 5.0}, {4: {"w_def": 7.0}})
    from carioca_env import Game, GameConfig

    for deal, want in ((1, 5.0), (4, 7.0)):
        game = Game(GameConfig(2, (deal,)), seed=1)
        agent.act(game.view(game.current), game.legal_moves())
        assert agent.p["w_def"] == want
    spec = make_heuristic(0, "tuned", w_pot=3.0)
    assert spec._base["w_pot"] == 3.0 and all(v["w_pot"] == 3.0 for v in spec._by_deal.values())
