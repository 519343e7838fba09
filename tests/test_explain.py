"""Explanations: agents say what they weighed, from their view only, without changing a move;
records carry them (checked on load); ``carioca diff`` finds where two agents part."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_agents.explain import act_and_explain, explain, explains
from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig, RecordError
from carioca_env.explanations import (
    EXPLANATION_VERSION,
    MAX_CANDIDATES,
    MAX_EXPLANATION_BYTES,
    Candidate,
    Explanation,
    ExplanationError,
    attach_explanations,
    check_explanations,
)
from carioca_experiments.cli import main
from carioca_experiments.evaluation.diff import duplicate_diff, first_departure
from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

#: every agent that explains, with a small search budget
SPECS = ("random", "greedy", "heuristic", "search:sims=4", "ppo:contract1")


def _decision_points(contract: int, seed: int, every: int = 3) -> list[Game]:
    """Copies of a heuristic-vs-greedy deal at some of its decisions with a real choice."""
    game = Game(GameConfig(2, (contract,)), seed=seed)
    drivers = [make_agent("heuristic", seed), make_agent("greedy", seed + 1)]
    out = []
    k = 0
    while not game.game_over and len(out) < 12:
        legal = game.legal_moves()
        if len(legal) > 1:
            k += 1
            if k % every == 0:
                out.append(copy.deepcopy(game))
        s = game.current_player
        game.apply(drivers[s].act(game.view(s), legal))
    return out


# --------------------------------------------------------------------------- the view only


@pytest.mark.parametrize("spec", SPECS)
def test_the_same_view_gives_the_same_explanation_whatever_the_hidden_cards(spec: str) -> None:
    """Reshuffling the hidden cards (the opponent's hidden hand and the stock), consistently
    with the seat's view (``Game.determinize``), changes no explanation."""
    differing = 0
    for contract, seed in ((1, 2), (4, 5)):
        for game in _decision_points(contract, seed, every=4 if spec.startswith("search") else 2):
            seat = game.current_player
            other = game.determinize(seat, np.random.default_rng(len(game.moves)))
            assert other.view(seat) == game.view(seat)
            differing += (other.hands, other.stock) != (game.hands, game.stock)
            a = explain(make_agent(spec, 7), game.view(seat), game.legal_moves())
            b = explain(make_agent(spec, 7), other.view(seat), other.legal_moves())
            assert a is not None and a.to_dict() == b.to_dict(), (spec, len(game.moves))
    assert differing >= 5  # the hidden cards really were different


@pytest.mark.parametrize("spec", SPECS)
def test_explaining_never_changes_a_move(spec: str) -> None:
    """The same seeds give the same moves with ``act``, with ``act_explained``, and with
    ``explain`` asked before every move (which must leave the agent as it was)."""
    def deal(mode: str) -> list[str]:
        game = Game(GameConfig(2, (2,)), seed=9)
        agents = [make_agent(spec, 3), make_agent("heuristic", 4)]
        while not game.game_over and game.turn < 60:
            s = game.current_player
            view, legal = game.view(s), game.legal_moves()
            if mode == "act":
                move = agents[s].act(view, legal)
            else:
                if mode == "ask-first":
                    asked = explain(agents[s], view, legal)
                    assert asked is not None
                move, why = act_and_explain(agents[s], view, legal)
                assert why is not None and why.move == str(move)
                if mode == "ask-first":
                    assert asked.to_dict() == why.to_dict()  # what it said it would do, it did
            game.apply(move)
        return [str(m) for m in game.moves]

    plain = deal("act")
    assert deal("explained") == plain
    assert deal("ask-first") == plain


def test_every_built_in_agent_explains_and_the_cheat_does_not() -> None:
    for spec in SPECS:
        assert explains(make_agent(spec, 0)), spec
    cheat = make_agent("cheat-search:sims=4", 0)
    assert not explains(cheat)
    game = _decision_points(1, 3)[0]
    cheat.show(game)  # as carioca tournament does; its reasons would come from the true hands
    move, why = act_and_explain(cheat, game.view(game.current_player), game.legal_moves())
    assert why is None and move in game.legal_moves()


def test_search_explains_rollout_means_standard_errors_and_counts() -> None:
    searched = 0
    agent = make_agent("search:sims=6", 1)
    for game in _decision_points(1, 4, every=1):
        seat = game.current_player
        move, why = act_and_explain(agent, game.view(seat), game.legal_moves())
        assert why is not None and why.candidates[why.chosen or 0].move == str(move)
        if why.kind == "rollout":
            searched += 1
            assert sum(c.n or 0 for c in why.candidates) == 6
            assert all(c.se is None or c.se >= 0 for c in why.candidates)
            assert [c.score for c in why.candidates] == sorted((c.score for c in why.candidates), reverse=True)
    assert searched >= 3


# --------------------------------------------------------------------------- the type


def _sample() -> Explanation:
    cands = [Candidate(f"discard {c}", float(i), "note" * 3) for i, c in enumerate(["2S", "3S", "4S", "5S", "6S",
                                                                                    "7S", "8S", "9S"])]
    return Explanation.build("heuristic", "cost", "cost", "lower", cands, "discard 9S", "a plan")


def test_build_keeps_the_move_played_and_bounds_the_size() -> None:
    exp = _sample()
    assert len(exp.candidates) == MAX_CANDIDATES and exp.omitted == 8 - MAX_CANDIDATES
    assert exp.chosen == MAX_CANDIDATES - 1 and exp.candidates[exp.chosen].move == "discard 9S"
    long = Explanation.build("x" * 999, "rule", "m" * 999, "higher",
                             [Candidate("discard 2S", 1.0, "n" * 160, 1.5, 3)] * 40, "discard 2S", "z" * 999)
    assert long.size() <= MAX_EXPLANATION_BYTES and len(long.agent) <= 160
    assert Explanation.from_dict(json.loads(json.dumps(exp.to_dict()))) == exp


@pytest.mark.parametrize("change, message", [
    ({"kind": "vibes"}, "'kind' must be one of"),
    ({"candidates": []}, "1 to 6 candidates"),
    ({"chosen": 9}, "'chosen' must index"),
    ({"chosen": 0}, "not the move played"),
    ({"better": "up"}, "'better'"),
    ({"extra": 1}, "unknown keys"),
    ({"candidates": [{"move": "discard 2S", "score": float("nan")}]}, "finite number"),
    ({"candidates": [{"move": "discard 2S", "score": 1, "n": -1}]}, "'n' must be a count"),
])
def test_from_dict_names_what_is_wrong(change: dict, message: str) -> None:
    bad = {**_sample().to_dict(), **change}
    with pytest.raises(ExplanationError, match=message):
        Explanation.from_dict(bad)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
                        st.sampled_from(["agent", "kind", "meaning", "better", "move", "chosen", "candidates",
                                         "omitted", "note", "score", "se", "n"]), kids, max_size=9), max_leaves=30))
def test_from_dict_raises_only_its_own_error_on_any_json(value: object) -> None:
    try:
        Explanation.from_dict(value)
    except ExplanationError:
        pass


# --------------------------------------------------------------------------- records


def _explained_record() -> dict:
    game = Game(GameConfig(2, (1,)), seed=1)
    agents = [make_agent("heuristic", 1), make_agent("greedy", 2)]
    exps = []
    while not game.game_over:
        s = game.current_player
        move, why = act_and_explain(agents[s], game.view(s), game.legal_moves())
        exps.append(why)
        game.apply(move)
    return attach_explanations(game.to_record(agents=["heuristic", "greedy"]), exps)


def test_a_record_with_explanations_loads_and_one_without_still_does() -> None:
    record = _explained_record()
    assert record["explanation_version"] == EXPLANATION_VERSION
    game = Game.from_record(record)
    plain = {k: v for k, v in record.items() if k not in ("explanations", "explanation_version")}
    assert Game.from_record(plain).moves == game.moves
    assert check_explanations(plain, plain["moves"]) is None


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.update(explanation_version=2), "explanation version 2 is not supported"),
    (lambda r: r["explanations"].pop(), "one entry per move"),
    (lambda r: r.update(explanations="no"), "one entry per move"),
    (lambda r: r["explanations"].__setitem__(0, {**r["explanations"][0], "move": "discard 2S", "chosen": None}),
     "explanation of move 1 .* but the move is"),
    (lambda r: r["explanations"].__setitem__(3, {"agent": 1}), "explanation of move 4"),
    (lambda r: r.pop("explanations"), "'explanation_version' but no 'explanations'"),
])
def test_bad_explanations_in_a_record_are_refused_with_the_reason(edit, message: str) -> None:
    record = _explained_record()
    edit(record)
    with pytest.raises(RecordError, match=message):
        Game.from_record(record)


def test_explain_keeps_the_tournament_the_same_and_the_records_hold_explanations(tmp_path: Path) -> None:
    config = TournamentConfig(agents=("heuristic", "greedy", "r=random"), players=2, contracts=(1, 4), decks=1, seed=2)
    run_tournament(config, tmp_path / "a", workers=1, progress=False, log=lambda m: None, record_every=1, explain=True)
    run_tournament(config, tmp_path / "b", workers=1, progress=False, log=lambda m: None, record_every=1)
    lines = [(tmp_path / x / "results.jsonl").read_text().splitlines()[1:] for x in "ab"]
    assert lines[0] == lines[1]
    sizes = []
    for path in sorted((tmp_path / "a" / "records").glob("*.json")):
        with_exp = json.loads(path.read_text())
        without = json.loads((tmp_path / "b" / "records" / path.name).read_text())
        assert with_exp["moves"] == without["moves"]
        exps = check_explanations(with_exp, with_exp["moves"])
        assert exps is not None and sum(e is not None for e in exps) >= len(exps) // 2
        Game.from_record(with_exp)
        sizes.append(path.stat().st_size - len(json.dumps(without)))
    # the size added per deal, measured: bounded by the decisions times the per-explanation bound
    assert 0 < max(sizes) < 80_000


def test_explain_without_records_is_refused_in_one_line(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    assert main(["tournament", "--agents", "heuristic", "greedy", "--decks", "1", "--explain",
                 "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--records" in err


# --------------------------------------------------------------------------- the diff


def _record_of(moves: list[str], agents: list[str], explanations: list | None = None) -> dict:
    """A record of a stacked contract-1 deal with these moves (replayed: they must be legal)."""
    from web_helpers import stacked_deck

    game = Game.from_deck(stacked_deck(), 1, GameConfig(2, (1,)), 0)
    for m in moves:
        game.push(m)
    rec = game.to_record(agents=agents)
    if explanations is not None:
        attach_explanations(rec, explanations)
    return rec


def test_first_departure_on_constructed_move_lists() -> None:
    assert first_departure(["a", "b", "c"], ["a", "b", "c"]) is None
    assert first_departure(["a", "b", "c"], ["a", "x", "c"]) == 1
    assert first_departure(["a", "b"], ["a", "b", "c"]) == 2
    assert first_departure([], ["a"]) == 0


def test_the_diff_finds_the_first_differing_decision_on_constructed_records() -> None:
    # seat 0 holds the stacked hand; seat 1 (greedy's) deals: seat 0 moves first
    from web_helpers import stacked_deck

    common = ["draw stock", "discard QD", "draw stock"]
    at = Game.from_deck(stacked_deck(), 1, GameConfig(2, (1,)), 0)
    for m in common:
        at.push(m)
    first, other = [str(m) for m in at.legal_moves() if str(m).startswith("discard")][:2]
    a = _record_of(common + [first], ["A (heuristic)", "B (greedy)"])
    why = Explanation.build("b", "rule", "m", "higher", [Candidate(other, 1.0), Candidate(first, 0.0)], other)
    b = _record_of(common + [other], ["B (greedy)", "A (heuristic)"], [None] * 3 + [why])
    diff = duplicate_diff({"c1-d0-l0": a, "c1-d0-l1": b}, 1, 0, ("A", "B"), 0)
    assert diff.first == 3 and diff.moves[0][3] == first and diff.moves[1][3] == other
    assert diff.explanations[0] is None and diff.explanations[1] == why.to_dict()
    assert diff.tasks == ("c1-d0-l0", "c1-d0-l1") and diff.actors[0][3] == 1
    same = duplicate_diff({"c1-d0-l0": a, "c1-d0-l1": _record_of(common + [first], ["B (x)", "A (y)"])},
                          1, 0, ("A", "B"), 0)
    assert same.first is None and same.deck_diff == 0.0


def test_carioca_diff_refuses_bad_input_in_one_line(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    for argv in (["diff", str(tmp_path), "--contract", "1", "--deck", "0", "--agents", "a", "b"],
                 ["diff", str(tmp_path / "none"), "--contract", "1", "--deck", "0", "--agents", "a", "b"],
                 ["diff", str(tmp_path), "--contract", "8", "--deck", "0", "--agents", "a", "b"],
                 ["diff", str(tmp_path), "--contract", "1", "--deck", "0", "--agents", "a", "a"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("carioca diff: error:") and err.count("\n") == 0, err


# --------------------------------------------------------------------------- the hint


def test_the_hint_is_checked_whole_before_anything_and_capped(tmp_path: Path) -> None:
    from carioca_experiments.apps.serve.app import create_app

    client = TestClient(create_app(tmp_path))
    game = client.post("/api/games", json={"players": 2, "bots": ["greedy"], "seat": 0, "deals": [1], "seed": 4}).json()
    url = f"/api/games/{game['id']}/hint"
    ok = client.post(url, json={"version": game["version"], "bot": "heuristic"})
    assert ok.status_code == 200 and ok.json()["explanation"]["agent"] == "heuristic"
    assert client.post(url, json={"version": game["version"], "bot": "search:sims=65"}).status_code == 403
    assert client.post(url, json={"version": game["version"], "bot": "search:rollout=py:os:system"}).status_code == 403
    assert client.post(url, json={"version": game["version"], "bot": "nope"}).status_code == 400
    assert client.post(url, json={"version": game["version"] + 1, "bot": "heuristic"}).status_code == 409
    # refused before the game is read: an unknown game with a refused spec is a 403, not a 404
    assert client.post("/api/games/nope/hint", json={"version": 0, "bot": "py:os:system"}).status_code == 403
    # asking plays nothing and the bots' explanations are never sent during the game
    after = client.get(f"/api/games/{game['id']}").json()
    assert after["version"] == game["version"] and "explanation" not in json.dumps(after)


def test_random_agent_explains_a_uniform_draw() -> None:
    game = _decision_points(1, 6, every=1)[0]
    why = explain(make_agent("random", 1), game.view(game.current_player), game.legal_moves())
    assert why is not None and why.kind == "uniform"
    n = len(game.legal_moves())
    assert all(abs(c.score - 1 / n) < 1e-3 for c in why.candidates) and len(why.candidates) + why.omitted == n
