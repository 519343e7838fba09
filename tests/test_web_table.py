"""What the browser table receives: deal summaries, the final table, the last move, and no
hidden card of another seat during a deal; the pages' small fixes and the run page's plot."""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_env import PENALTY, Game, MoveKind
from carioca_experiments.apps.serve.app import WebState, create_app, game_state, play_state
from carioca_experiments.apps.serve.curves import HEIGHT, WIDTH, learning_curve, nice_ticks, read_points
from carioca_experiments.apps.serve.deals import DealLog
from carioca_experiments.apps.serve.frames import card_list, display_name, last_event
from carioca_experiments.apps.serve.replays import build_replay
from carioca_experiments.apps.serve.safepath import SafeRoot
from carioca_experiments.apps.serve.sessions import GameStore
from carioca_experiments.evaluation.ratings import Rating

from web_helpers import play_person, write_played_record


@pytest.fixture()
def served(tmp_path: Path) -> Path:
    folder = tmp_path / "served"
    folder.mkdir()
    return folder


def _web(folder: Path) -> WebState:
    """The shared state of the app serving ``folder`` (its game store, its deal log)."""
    return create_app(folder).state.web


def _hidden_cards_absent(state: dict, seat: int) -> None:
    for s in state["frame"]["seats"]:
        if s["seat"] != seat:
            assert s["hand"] is None, f"seat {s['seat']}'s hand sent to seat {seat}"


# --------------------------------------------------------------------------- deal summaries


def test_deal_summaries_show_each_scored_hand_as_the_deal_ended(served: Path) -> None:
    web = _web(served)
    gid = web.games.create(3, ["greedy", "heuristic"], 1, [1, 2, 3], 11).id
    game = play_person(web.games, gid, lambda g: False)
    summaries = web.deals.summaries(gid, game)
    assert [d["deal"] for d in summaries] == [r.deal for r in game.deal_results] == [1, 2, 3]
    replay = build_replay(game.to_record())
    ends = [d["move"] for d in replay.deal_starts[1:]] + [replay.length]  # the move after each deal's last
    totals = [0, 0, 0]
    for d, result, end in zip(summaries, game.deal_results, ends):
        before = replay.game_at(end - 1)  # an independent replay, just before the closing discard
        assert d["closer"] == result.closer == replay.actors[end - 1] and d["last_move"]["text"] == replay.moves[end - 1]
        assert d["scores"] == list(result.scores)
        totals = [t + x for t, x in zip(totals, result.scores)]
        assert d["totals"] == totals
        for s in range(3):
            hand = d["hands"][s]
            assert sum(PENALTY[c] for c in before.hand(s)) >= d["scores"][s]
            if s == result.closer:
                assert hand == [] and d["scores"][s] == 0
            else:
                assert hand == card_list(before.hand(s))
                assert sum(PENALTY[c] for c in before.hand(s)) == d["scores"][s]
        assert [[m["text"] for m in ms] for ms in d["melds"]] == [[str(m) for m in ms] for ms in before.table_melds()]
    assert summaries[-1]["totals"] == list(game.totals)


def test_a_deal_log_replays_incrementally_to_the_same_summaries(served: Path) -> None:
    web = _web(served)
    gid = web.games.create(2, ["greedy"], 0, [1, 2], 5).id
    log = DealLog()
    seen = []
    for stop in (0, 10, 60, 61, 200, 10**6):
        game = play_person(web.games, gid, lambda g, stop=stop: len(g.moves) >= stop)
        seen.append(log.summaries(gid, game))
        assert seen[-1] == DealLog().summaries(gid, game)  # a fresh replay of the whole game
    assert len(seen[-1]) == 2 and seen[0] == []
    # another game under the same id (a replaced file) is replayed afresh, not continued
    other = Game.from_record(write_played_record(served / "x.json", players=2, deals=(1,), seed=9).to_record())
    assert [d["scores"] for d in log.summaries(gid, other)] == [list(r.scores) for r in other.deal_results]


# --------------------------------------------------------------------------- what a seat may see


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), stop=st.integers(0, 300), seat=st.integers(0, 2))
def test_the_play_state_during_a_deal_holds_no_hidden_card(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                                           stop: int, seat: int) -> None:
    """Mid-game, the JSON the page receives is the same for every deal of the unseen cards
    consistent with what the person's seat knows: it carries no card the seat cannot see."""
    web = _web(tmp_path_factory.mktemp("served"))
    gid = web.games.create(3, ["greedy"], seat, [1, 2], seed).id
    game = play_person(web.games, gid, lambda g: len(g.moves) >= stop)
    if game.game_over:
        return
    session = web.games.get(gid)
    state = game_state(web, session)
    _hidden_cards_absent(state, seat)
    assert all(d["deal_index"] < game.deal_index for d in state["deals"])  # only finished deals
    hidden_differ = False
    for k in range(3):
        other = game.determinize(seat, random.Random(k))
        hidden_differ |= [other.hand(s) for s in range(3)] != [game.hand(s) for s in range(3)]
        session.game = other  # the past deals are the record's: the deal in play is what differs
        twin = play_state(session, state["deals"])
        twin["version"] = state["version"]  # a determinized game starts with no move list
        assert json.dumps(twin, sort_keys=True) == json.dumps(state, sort_keys=True)
    assert hidden_differ  # the test compared states of games whose hidden cards differ


def test_the_final_table_shows_every_hand_once_the_game_is_over(served: Path) -> None:
    client = TestClient(create_app(served))
    store = GameStore(SafeRoot.of(served))
    gid = store.create(2, ["greedy"], 0, [1], 3).id
    play_person(store, gid, lambda g: False)
    state = client.get(f"/api/games/{gid}").json()
    game = store.get(gid).game
    assert state["game_over"] and state["legal"] == [] and not state["your_turn"]
    assert [s["hand"] for s in state["frame"]["seats"]] == [card_list(game.hand(s)) for s in range(2)]
    assert state["deals"][-1]["hands"] == [card_list(game.hand(s)) for s in range(2)]


def test_an_unfinished_game_sends_only_the_persons_hand_over_http(served: Path) -> None:
    client = TestClient(create_app(served))
    gid = client.post("/api/games", json={"players": 4, "bots": ["greedy"], "seat": 2, "deals": [1], "seed": 4}).json()["id"]
    state = client.get(f"/api/games/{gid}").json()
    _hidden_cards_absent(state, 2)
    assert state["frame"]["seats"][2]["hand"] and state["deals"] == []


# --------------------------------------------------------------------------- the last move


def test_the_last_move_names_what_it_changed(served: Path) -> None:
    game = write_played_record(served / "g.json", players=2, deals=(1,), seed=3)
    replay = build_replay(game.to_record())
    kinds = set()
    for k in range(1, replay.length):
        g = replay.game_at(k)
        view = g.view(0)
        last = last_event(view)
        if not view.history:
            assert last is None
            continue
        event = view.history[-1]
        kinds.add(last["kind"])
        assert (last["seat"], last["text"]) == (event.seat, event.text)
        move = event.detail
        if move.kind is MoveKind.DISCARD:
            assert last["card"] == view_top(view) and last["refs"] == []
        elif move.kind in (MoveKind.LAY_OFF, MoveKind.SWAP):
            assert last["refs"] == [f"{move.owner}.{move.index}"]
        elif move.kind is MoveKind.OPEN:
            assert last["refs"] == [f"{event.seat}.{i}" for i in range(len(move.melds))]
        elif move.kind is MoveKind.DRAW_STOCK:
            assert last["card"] is None
    assert {"discard", "draw_stock", "open", "lay_off"} <= kinds


def view_top(view) -> str:  # noqa: ANN001 - a PlayerView
    return card_list([view.discard_pile[-1]])[0]


@pytest.mark.parametrize(("name", "shown"), [
    ("heuristic (heuristic)", "heuristic"), ("a (greedy)", "a (greedy)"), ("greedy", "greedy"),
    ("ppo (ppo:models/x)", "ppo (ppo:models/x)"), ("x (x) (x)", "x (x) (x)"), ("", ""),
])
def test_display_names_drop_a_spec_that_repeats_the_label(name: str, shown: str) -> None:
    assert display_name(name) == shown


# --------------------------------------------------------------------------- pages


def test_a_tournament_without_summary_shows_no_none_and_records_name_agents_once(served: Path) -> None:
    (served / "pending").mkdir()
    (served / "pending" / "results.jsonl").write_text("")
    game = write_played_record(served / "r.json", players=2, deals=(1,), seed=2)
    record = game.to_record(agents=["heuristic (heuristic)", "g (greedy)"])
    (served / "r.json").write_text(json.dumps(record))
    client = TestClient(create_app(served))
    page = client.get("/").text
    assert "None" not in page and "no summary yet" in page
    assert "heuristic (heuristic)" not in page and "heuristic, g (greedy)" in page
    assert "heuristic (heuristic)" not in client.get("/view?path=r.json").text
    names = client.get("/api/replay?path=r.json").json()["names"]
    assert names == ["heuristic", "g (greedy)"]


def test_the_tournament_page_names_the_ratings_it_shows(served: Path) -> None:
    folder = served / "t"
    folder.mkdir()
    summary = {"config": {"agents": ["a", "b"], "players": 2, "contracts": [1], "format": "duplicate"},
               "deals_played": 4, "deals_expected": 4, "truncated": 0, "cancelled": 0, "agents": [], "pairs": [],
               "ratings": [asdict(Rating("a", 1523.4, 1400.0, 1650.0, 0.13, 4, 4)),
                           asdict(Rating("b", 1476.6, 1350.0, 1600.0, -0.13, 4, 4))], "notes": []}
    (folder / "summary.json").write_text(json.dumps(summary))
    client = TestClient(create_app(served))
    page = client.get("/tournament?path=t").text
    assert "Bradley-Terry ratings" in page and "OpenSkill" not in page and "[1400, 1650]" in page
    summary["ratings"] = [{"agent": "a", "mu": 26.0, "sigma": 8.1, "ordinal": 1.7, "matches": 4}]
    (folder / "summary.json").write_text(json.dumps(summary))
    page = client.get("/tournament?path=t").text
    assert "OpenSkill ratings (an older summary)" in page and "Bradley-Terry" not in page


EVAL = """steps,opponent,contracts,decks,deals,learner_mean,learner_ci_low,learner_ci_high,opponent_mean
1024,random,1,2,4,57.5,40,75,24.0
1024,greedy,1,2,4,61.5,50,70,1.0
2048,random,1,2,4,28.25,20,36.5,1.0
bad,greedy,1,2,4,1,1,1,1
2048,greedy,1,2,4,34.0,,,0.0
"""


def test_the_run_page_draws_the_learning_curve(served: Path) -> None:
    run = served / "run"
    run.mkdir()
    (run / "eval.csv").write_text(EVAL)
    (run / "experiment.json").write_text("{}")
    page = TestClient(create_app(served)).get("/run?path=run").text
    assert page.count('<polyline class="learner"') == 2 and page.count('<polyline class="opponent"') == 2
    assert page.count("<circle") == 4 and "learner vs random" in page and 'data-opponent="greedy"' in page


def test_learning_curve_points_follow_the_csv() -> None:
    points = read_points(EVAL)
    assert {k: [(p.steps, p.mean) for p in v] for k, v in points.items()} == {
        "random": [(1024, 57.5), (2048, 28.25)], "greedy": [(1024, 61.5), (2048, 34.0)]}
    assert math.isnan(points["greedy"][1].low)
    plot = learning_curve(points)
    greedy = next(s for s in plot["series"] if s.opponent == "greedy")
    assert len(greedy.band.split()) == 2  # one evaluation has no interval: the band covers the other
    assert learning_curve(read_points("steps,learner_mean\nx,y\n")) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**7), st.floats(-500, 500), st.floats(0, 100)), min_size=1, max_size=20))
def test_learning_curve_geometry_stays_inside_the_plot(rows: list[tuple[int, float, float]]) -> None:
    text = "steps,opponent,learner_mean,learner_ci_low,learner_ci_high,opponent_mean\n" + "".join(
        f"{s},o{s % 3},{m},{m - w},{m + w},{-m}\n" for s, m, w in rows)
    plot = learning_curve(read_points(text))
    for s in plot["series"]:
        for pair in " ".join([s.line, s.band, s.opponent_line]).split():
            x, y = map(float, pair.split(","))
            assert plot["left"] <= x <= plot["right"] and plot["top"] <= y <= plot["bottom"], (x, y)
    assert 0 < plot["right"] <= WIDTH and 0 < plot["bottom"] <= HEIGHT


@given(st.floats(-1e6, 1e6), st.floats(0, 1e6))
def test_nice_ticks_cover_the_range_in_even_round_steps(low: float, width: float) -> None:
    ticks = nice_ticks(low, low + width)
    assert ticks[0] <= low and ticks[-1] >= low + width and 2 <= len(ticks) <= 12
    steps = {round(b - a, 6) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1
