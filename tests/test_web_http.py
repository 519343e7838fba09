"""``carioca serve`` through FastAPI's TestClient: validation, paths, the play API, replays."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_env import Game, GameConfig, IllegalMoveError, InvalidNotationError, card_str, parse_move
from carioca_experiments.apps.serve.app import create_app
from carioca_experiments.apps.serve.clicks import meld_readings, resolve_opening
from carioca_experiments.apps.serve.frames import card_list
from carioca_experiments.apps.serve.replays import build_replay
from carioca_experiments.apps.serve.safepath import PathRefused, SafeRoot
from carioca_experiments.apps.serve.sessions import GameStore, StaleMove

from web_helpers import stacked_deck, write_played_record

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """A served folder with a played record, a stacked browser game and a file outside it."""
    served = tmp_path / "served"
    write_played_record(served / "games" / "g.json")
    (tmp_path / "secret.json").write_text(json.dumps({"format": "carioca-game-record", "secret": 1}))
    return served


@pytest.fixture()
def client(folder: Path) -> TestClient:
    return TestClient(create_app(folder))


def _stacked(folder: Path) -> str:
    """A browser game on the stacked deal (seat 0 is the person); returns its id."""
    return GameStore(SafeRoot.of(folder)).create(2, ["greedy"], 0, [1], 0, deck=stacked_deck(), dealer=1).id


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize("bad", ["../secret.json", "games/../../secret.json", "/etc/passwd", "~/x.json", "..\\secret.json"])
def test_paths_outside_the_folder_are_refused(client: TestClient, bad: str) -> None:
    for url in (f"/api/replay?path={bad}", f"/view?path={bad}", f"/file?path={bad}"):
        r = client.get(url)
        assert r.status_code == 403, (url, r.status_code)
        assert "served folder" in r.text or "absolute" in r.text


def test_a_symlink_out_of_the_folder_is_refused_and_one_inside_is_followed(client: TestClient, folder: Path) -> None:
    (folder / "out.json").symlink_to(folder.parent / "secret.json")
    (folder / "in.json").symlink_to(folder / "games" / "g.json")
    r = client.get("/api/replay?path=out.json")
    assert r.status_code == 403 and "outside the served folder" in r.json()["error"]
    assert client.get("/api/replay?path=in.json").status_code == 200
    listed = client.get("/").text
    assert "out.json" not in listed and "games/g.json" in listed


def test_only_result_files_are_served_raw(client: TestClient, folder: Path) -> None:
    (folder / "notes.txt").write_text("private")
    (folder / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    assert client.get("/file?path=notes.txt").status_code == 403
    r = client.get("/file?path=plot.png")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert client.get("/file?path=missing.png").status_code == 404


def test_safe_root_resolution(tmp_path: Path) -> None:
    root = SafeRoot.of(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.json").write_text("{}")
    assert root.resolve("a/b.json") == (tmp_path / "a" / "b.json").resolve()
    assert root.resolve("a", kind="dir") == (tmp_path / "a").resolve()
    for bad in ("a/../../x", "/a/b.json", "a/\x00"):
        with pytest.raises(PathRefused) as e:
            root.resolve(bad)
        assert e.value.status == 403
    with pytest.raises(PathRefused) as e:
        root.resolve("a", kind="file")
    assert e.value.status == 404


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("body, field", [
    ({"players": 5}, "players"),
    ({"players": 2, "seat": 7}, "seat"),
    ({"bots": []}, "bots"),
    ({"bots": ["gre edy!"]}, "bots"),
    ({"deals": [0, 8]}, "deals"),
    ({"seed": -1}, "seed"),
    ({"colour": "red"}, "colour"),
])
def test_a_bad_new_game_is_refused_before_anything_runs(client: TestClient, folder: Path, body: dict, field: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 422
    assert field in json.dumps(r.json()["detail"])
    assert not (folder / "web-games").exists()


def test_an_unknown_agent_and_a_seat_off_the_table_are_refused(client: TestClient, folder: Path) -> None:
    r = client.post("/api/games", json={"bots": ["nobody"]})
    assert r.status_code == 400 and "known agents" in r.json()["error"]
    r = client.post("/api/games", json={"players": 2, "seat": 3})
    assert r.status_code == 422 and "0..1" in r.json()["error"]
    r = client.post("/api/games", json={"bots": ["ppo:../elsewhere"]})
    assert r.status_code == 403
    assert not (folder / "web-games").exists()  # nothing was written for a refused game


def test_bad_moves_are_refused_with_their_message_and_change_nothing(client: TestClient, folder: Path) -> None:
    gid = _stacked(folder)
    path = folder / "web-games" / f"{gid}.json"
    before = path.read_bytes()
    cases = [
        ({"version": 0, "move": "fly away"}, 400, "is not a move"),
        ({"version": 0, "move": "discard 8S"}, 400, "[R7]"),                       # draw first
        ({"version": 0, "move": "x" * 300}, 422, "200"),
        ({"version": -1, "move": "draw stock"}, 422, "version"),
        ({"move": "draw stock"}, 422, "version"),
    ]
    for body, status, text in cases:
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == status, (body, r.text)
        assert text in r.text
    assert path.read_bytes() == before
    r = client.post(f"/api/games/{gid}/move", json={"version": 0, "move": "draw stock"})
    assert r.status_code == 200 and r.json()["version"] == 1
    r = client.post(f"/api/games/{gid}/move", json={"version": 1, "move": "lay 8S 0.0"})
    assert r.status_code == 400 and r.json()["rule"] == "R9"  # not opened: no lay-off (and no meld 0.0)
    assert client.get("/api/games/no..such").status_code == 404
    assert client.get("/api/games/nosuch").status_code == 404


# --------------------------------------------------------------------------- play API


def test_openings_from_groups_lay_offs_and_the_deal_to_its_end(client: TestClient, folder: Path) -> None:
    gid = _stacked(folder)
    s = client.post(f"/api/games/{gid}/move", json={"version": 0, "move": "draw stock"}).json()
    # a group that is no meld: the parser's message; the wrong contract: the engine's rule
    r = client.post(f"/api/games/{gid}/open", json={"version": s["version"], "groups": [["8C", "9C", "KD"]]})
    assert r.status_code == 400 and "is not a trio" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/open", json={"version": s["version"], "groups": [["8C", "8D", "8H"]]})
    assert r.status_code == 400 and r.json()["rule"] == "R6"
    r = client.post(f"/api/games/{gid}/open", json={"version": s["version"], "groups": [["8C", "8D", "8H"], ["KS", "KH", "KD"]]})
    assert r.status_code == 200
    s = r.json()
    assert s["frame"]["seats"][0]["opened"] and [m["text"] for m in s["frame"]["seats"][0]["melds"]] == ["8H 8D 8C", "KS KH KD"]
    assert [m["kind"] for m in s["legal"]] == ["discard"] * 6  # R8: only the discard after opening
    s = client.post(f"/api/games/{gid}/move", json={"version": s["version"], "move": "discard QD"}).json()
    assert [b["seat"] for b in s["bots"]] == [1, 1]  # greedy drew and discarded
    s = client.post(f"/api/games/{gid}/move", json={"version": s["version"], "move": "draw stock"}).json()
    lays = [m for m in s["legal"] if m["kind"] == "lay_off"]
    assert {(m["card"], m["ref"]) for m in lays} == {("8S", "0.0"), ("KC", "0.1")}
    s = client.post(f"/api/games/{gid}/move", json={"version": s["version"], "move": "lay 8S 0.0"}).json()
    assert s["frame"]["seats"][0]["melds"][0]["text"] == "8S 8H 8D 8C"
    game = Game.load(folder / "web-games" / f"{gid}.json")  # the file is a record the engine replays
    assert [str(m) for m in game.moves][-1] == "lay 8S 0.0"


def test_ambiguous_groups_offer_the_choices(folder: Path) -> None:
    game = Game.from_deck(stacked_deck(), 1, GameConfig(num_players=2, deals=(1,)))
    game.apply(parse_move("draw stock"))  # draws KC: four Ks in hand
    choices = resolve_opening(game, [["8C", "8D", "8H"], ["KS", "KH", "KD"]])
    assert [str(m) for m in choices] == ["open 8H 8D 8C / KS KH KD"]
    with pytest.raises(IllegalMoveError) as e:
        resolve_opening(game, [["8C", "8D", "8H"], ["KS", "KH", "JK"]])
    assert e.value.rule == "R7"  # holds no joker
    with pytest.raises(InvalidNotationError):
        resolve_opening(game, [["8C", "8D"], ["KS", "KH", "KD"]])


def test_meld_readings_are_exactly_the_melds_of_those_cards() -> None:
    from carioca_env import parse_cards

    assert [str(m) for m in meld_readings(parse_cards("6S JK 4S 5S"))] == ["JK 4S 5S 6S", "4S 5S 6S JK"]
    assert [str(m) for m in meld_readings(parse_cards("AS QS JK KS"))] == ["JK QS KS AS"]
    assert [str(m) for m in meld_readings(parse_cards("AS 2S 3S 4S"))] == ["AS 2S 3S 4S"]
    assert meld_readings(parse_cards("8C 9D 10H")) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 52), min_size=3, max_size=4))
def test_every_reading_holds_the_cards_and_parses_back(cards: list[int]) -> None:
    """Readings of any cards hold them; those a table can show parse back.

    ``meld_readings`` also reads groups the rules forbid (e.g. one natural and three
    jokers), so that a bad opening gets the ruling its plainest reading breaks.  Such a
    group's notation is ambiguous ("AS JK JK JK" is a trio of aces or a run from the ace),
    and no table meld has it: an opening trio has 2 naturals or more, a run 3 (R5), and
    lay-offs only add cards.
    """
    from carioca_env import Meld, MeldKind

    for meld in meld_readings(cards):
        assert sorted(meld.cards) == sorted(cards)
        naturals = len(meld.cards) - meld.num_jokers
        if naturals >= (2 if meld.kind is MeldKind.TRIO else 3):
            assert Meld.parse(str(meld)) == meld


def test_a_group_the_rules_forbid_still_gets_its_readings() -> None:
    from carioca_env import parse_cards

    # one natural and three jokers: no table meld, but the opening's error names a ruling
    assert [str(m) for m in meld_readings(parse_cards("AS JK JK JK"))] == ["AS JK JK JK", "JK JK JK AS"]


def test_two_tabs_cannot_both_move_from_one_position(client: TestClient, folder: Path) -> None:
    gid = _stacked(folder)
    a = client.post(f"/api/games/{gid}/move", json={"version": 0, "move": "draw stock"})
    b = client.post(f"/api/games/{gid}/move", json={"version": 0, "move": "draw discard"})
    assert a.status_code == 200 and b.status_code == 409
    assert "another tab" in b.json()["error"]
    game = Game.load(folder / "web-games" / f"{gid}.json")
    assert [str(m) for m in game.moves] == ["draw stock"]


def test_concurrent_moves_on_one_game_apply_once(folder: Path) -> None:
    store = GameStore(SafeRoot.of(folder))
    gid = store.create(2, ["greedy"], 0, [1], 0, deck=stacked_deck(), dealer=1).id
    outcomes: list[str] = []
    barrier = threading.Barrier(6)

    def tab() -> None:
        barrier.wait()
        try:
            store.play(gid, 0, parse_move("draw stock"))
            outcomes.append("ok")
        except StaleMove:
            outcomes.append("stale")

    threads = [threading.Thread(target=tab) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes) == ["ok"] + ["stale"] * 5
    assert [str(m) for m in Game.load(folder / "web-games" / f"{gid}.json").moves] == ["draw stock"]


def test_a_restarted_server_resumes_the_game(folder: Path) -> None:
    first = TestClient(create_app(folder))
    s = first.post("/api/games", json={"players": 3, "bots": ["heuristic", "random"], "seat": 1, "deals": [2], "seed": 9}).json()
    for _ in range(3):
        move = next(m["text"] for m in s["legal"] if m["kind"] in ("draw_stock", "discard"))
        s = first.post(f"/api/games/{s['id']}/move", json={"version": s["version"], "move": move}).json()
    again = TestClient(create_app(folder)).get(f"/api/games/{s['id']}").json()
    assert again["version"] == s["version"] and again["frame"] == s["frame"] and again["legal"] == s["legal"]
    assert again["names"] == ["heuristic", "you", "random"]


def test_saves_are_atomic_and_leave_no_temporary_files(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GameStore(SafeRoot.of(folder))
    session = store.create(2, ["greedy"], 0, [1], 0, deck=stacked_deck(), dealer=1)
    before = session.path.read_bytes()

    def broken(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        store.play(session.id, 0, parse_move("draw stock"))
    monkeypatch.undo()
    assert session.path.read_bytes() == before  # the old file is whole
    assert [p.name for p in session.path.parent.iterdir()] == [session.path.name]


def test_bots_reseeded_per_decision_play_the_same_after_a_resume(folder: Path) -> None:
    """The bots' moves depend on the position alone: a game kept in one store and the same
    game reloaded from its file before every move (a server restarted each time) agree."""
    root = SafeRoot.of(folder)
    kept = GameStore(root)
    one = kept.create(3, ["random", "greedy"], 0, [3], 4)
    two = GameStore(root).create(3, ["random", "greedy"], 0, [3], 4)
    while not one.game.game_over and one.version < 120:
        legal = one.game.legal_moves()
        move = legal[-1]  # the last listed: draws the discard, discards high cards
        one, _ = kept.play(one.id, one.version, move)
        two, _ = GameStore(root).play(two.id, two.version, move)
    assert one.version >= 40
    assert [str(m) for m in two.game.moves] == [str(m) for m in one.game.moves]


# --------------------------------------------------------------------------- replays


def test_the_replay_api_shows_the_engine_position_at_every_move(client: TestClient, folder: Path) -> None:
    record = json.loads((folder / "games" / "g.json").read_text())
    game, moves = Game.start_of_record(record)
    for k in range(len(moves) + 1):
        if k % 7 == 0 or k == len(moves):
            frame = client.get(f"/api/replay?path=games/g.json&move={k}").json()["frame"]
            assert [s["hand"] for s in frame["seats"]] == [card_list(game.hand(s)) for s in range(3)]
            assert frame["stock_size"] == game.stock_size
            assert frame["discard_pile"] == [card_str(c) for c in game.discard]
            assert [[m["text"] for m in s["melds"]] for s in frame["seats"]] == [[str(m) for m in ms] for ms in game.table_melds()]
            assert frame["totals"] == game.totals
            seat_view = client.get(f"/api/replay?path=games/g.json&move={k}&seat=1").json()["frame"]
            assert [s["hand"] is None for s in seat_view["seats"]] == [True, False, True]
            assert seat_view["seats"][1]["hand"] == card_list(game.hand(1))
        if k < len(moves):
            game.push(moves[k])
    assert client.get(f"/api/replay?path=games/g.json&move={len(moves) + 1}").status_code == 400
    assert client.get("/api/replay?path=games/g.json&seat=3").status_code == 400


def test_checkpointed_positions_equal_a_fresh_replay(folder: Path) -> None:
    record = json.loads((folder / "games" / "g.json").read_text())
    replay = build_replay(record)
    for k in (0, 1, 15, 16, 17, 40, replay.length):
        fresh, moves = Game.start_of_record(record)
        for text in moves[:k]:
            fresh.push(text)
        at = replay.game_at(k)
        assert at.to_record() == fresh.to_record()
        assert [at.hand(s) for s in range(3)] == [fresh.hand(s) for s in range(3)]
        assert at.legal_moves() == fresh.legal_moves()
    assert replay.deal_starts[0] == {"deal": 1, "move": 0} and replay.deal_starts[1]["deal"] == 2


def test_an_edited_record_is_refused_with_the_move(client: TestClient, folder: Path) -> None:
    record = json.loads((folder / "games" / "g.json").read_text())
    record["moves"][3] = "discard JK" if record["moves"][3] != "discard JK" else "discard 2S"
    (folder / "bad.json").write_text(json.dumps(record))
    r = client.get("/api/replay?path=bad.json")
    assert r.status_code == 422 and "move 4" in r.json()["error"]
    assert client.get("/view?path=bad.json").status_code == 422


def test_policy_probabilities_match_the_agent(tmp_path: Path) -> None:
    """The viewer's probabilities are the agent's: they sum to 1 over the legal moves and
    their most likely move is the one the ppo agent plays."""
    import shutil

    from carioca_agents.registry import make_agent

    served = tmp_path / "s"
    shutil.copytree(ROOT / "agents" / "models" / "contract1", served / "models" / "contract1")
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=3)
    agent = make_agent(f"ppo:{served / 'models' / 'contract1'}", 0)
    while not game.game_over and len(game.moves) < 30:
        game.apply(agent.act(game.view(game.current_player), game.legal_moves()))
    game.save(served / "ppo.json", agents=["ppo (ppo:models/contract1)", "ppo (ppo:models/contract1/model.zip)"])
    c = TestClient(create_app(served))
    assert 'data-model="models/contract1"' in c.get("/view?path=ppo.json").text  # the policy it played is preselected
    checked = 0
    for k in range(0, len(game.moves), 3):
        data = c.get(f"/api/replay?path=ppo.json&move={k}&model=models/contract1").json()
        step = data["policy"]["steps"][0]
        total = sum(r["p"] for r in step["rows"]) + step["others"]
        assert abs(total - 1) < 1e-6
        best = step["rows"][0]["move"]
        played = data["next"]["text"]
        if not played.startswith("open"):
            assert best == played and step["rows"][0]["played"]
            checked += 1
    assert checked >= 5
    r = c.get("/api/replay?path=ppo.json&move=0&model=../outside")
    assert r.status_code == 403
    write_played_record(served / "three.json", players=3, deals=(1,))
    mismatch = c.get("/api/replay?path=three.json&move=0&model=models/contract1").json()["policy"]
    assert "2 players" in mismatch["error"] and "3 players" in mismatch["error"]


# --------------------------------------------------------------------------- pages


def test_front_page_and_tournament_page(tmp_path: Path) -> None:
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    served = tmp_path / "s"
    run_tournament(TournamentConfig(agents=("random", "greedy"), players=2, contracts=(1,), decks=2),
                   served / "tourn", workers=1, progress=False, record_every=1)
    write_played_record(served / "rec.json", players=2, deals=(1,))
    c = TestClient(create_app(served))
    front = c.get("/").text
    assert 'href="/tournament?path=tourn"' in front and "rec.json" in front
    assert "tourn/records" not in front  # kept records are on the tournament's page
    page = c.get("/tournament?path=tourn").text
    summary = json.loads((served / "tourn" / "summary.json").read_text())
    row = next(r for r in summary["agents"] if r["agent"] == "greedy")
    assert f"{row['mean_penalty']:.1f}" in page
    assert page.count('href="/view?path=tourn/records/') == 4  # 2 decks x 2 seatings
    assert "/file?path=tourn/penalty.png" in page
    assert c.get("/file?path=tourn/penalty.png").content[:4] == b"\x89PNG"
    assert c.get("/tournament?path=rec.json").status_code == 404
    (served / "tourn" / "elsewhere.png").symlink_to(tmp_path / "outside.png")
    (tmp_path / "outside.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    page = c.get("/tournament?path=tourn").text
    assert "elsewhere.png" not in page and "penalty.png" in page


def test_serve_help_and_a_missing_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from carioca_experiments.cli import main

    with pytest.raises(SystemExit) as e:
        main(["serve", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--records" in out and "127.0.0.1" in out
    assert main(["serve", "--records", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_training_runs_are_listed_with_their_card_and_evaluations(tmp_path: Path) -> None:
    import shutil

    served = tmp_path / "s"
    shutil.copytree(ROOT / "tests" / "data" / "rl_results", served / "rl")
    c = TestClient(create_app(served))
    front = c.get("/").text
    assert 'href="/run?path=rl"' in front and 'href="/run?path=rl/models/contract3"' in front
    assert 'href="/tournament?path=rl/tournaments/contract3"' in front
    page = c.get("/run?path=rl/models/contract3").text
    head = (served / "rl" / "models" / "contract3" / "eval.csv").read_text().splitlines()[0].split(",")
    assert all(f"<th>{h}</th>" in page for h in head)
    assert "carioca-ppo-model" in page and "layout_fingerprint" in page
    assert c.get("/run?path=rl/models/contract3/eval.csv").status_code == 404  # a file is no run folder
    (tmp_path / "private.csv").write_text("secret_column\n1\n")
    (served / "rl" / "models" / "full" / "eval.csv").unlink()
    (served / "rl" / "models" / "full" / "eval.csv").symlink_to(tmp_path / "private.csv")
    assert "secret_column" not in c.get("/run?path=rl/models/full").text  # a fixed name linking out is not read
    assert "Mean penalty per deal" in c.get("/tournament?path=rl/tournaments/contract3").text


def test_a_browser_game_cannot_be_peeked_at_before_it_is_over(client: TestClient, folder: Path) -> None:
    """Its record holds the seed and so every hand: no replay and no raw file mid-game."""
    gid = _stacked(folder)
    path = f"web-games/{gid}.json"
    r = client.get(f"/api/replay?path={path}&move=0")
    assert r.status_code == 403 and "still being played" in r.json()["error"]
    assert client.get(f"/view?path={path}").status_code == 403
    assert client.get(f"/file?path={path}").status_code == 403
    store = GameStore(SafeRoot.of(folder))
    session = store.get(gid)
    for _ in range(1000):
        if session.game.game_over:
            break
        session, _ = store.play(gid, session.version, session.game.legal_moves()[0])
    assert session.game.game_over
    assert client.get(f"/api/replay?path={path}&move=0").status_code == 200


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "a", "b.json", "", "~", "/", "\\\\", "link", "x..y"]), min_size=1, max_size=6))
def test_a_resolved_path_is_always_inside_the_folder(tmp_path_factory: pytest.TempPathFactory, parts: list[str]) -> None:
    base = tmp_path_factory.getbasetemp() / "prop"
    if not base.exists():
        (base / "root" / "a").mkdir(parents=True)
        (base / "root" / "a" / "b.json").write_text("{}")
        (base / "root" / "b.json").write_text("{}")
        (base / "b.json").write_text("{}")
        (base / "root" / "link").symlink_to(base)
    root = SafeRoot.of(base / "root")
    try:
        real = root.resolve("/".join(parts), kind="any")
    except PathRefused:
        return
    assert real.is_relative_to(root.root) and real.exists()


def _listening_addresses(port: int) -> set[str]:
    """The IPv4/IPv6 addresses listening on ``port`` (Linux: /proc/net/tcp*, state 0A)."""
    import ipaddress

    out = set()
    for name in ("tcp", "tcp6"):
        table = Path("/proc/net") / name
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            addr, _, hex_port = fields[1].partition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:
                raw = bytes.fromhex(addr)
                # the kernel prints each 32-bit word in host (little-endian) order
                raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                out.add(str(ipaddress.ip_address(raw)))
    return out


def test_carioca_serve_binds_loopback_by_default(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    import httpx

    from web_helpers import free_port

    write_played_record(tmp_path / "r.json", players=2, deals=(1,))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "carioca_experiments.cli", "serve", "--records", str(tmp_path), "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError(f"carioca serve did not answer on port {port}")
                time.sleep(0.2)
        assert r.status_code == 200 and "r.json" in r.text
        assert _listening_addresses(port) == {"127.0.0.1"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert "serving" in proc.stderr.read()


def test_the_play_form_offers_the_shipped_models_and_one_plays(client: TestClient, folder: Path) -> None:
    """Every shipped model is a bot of the front page's form, labelled with its table size,
    and the one chosen plays at a table of that size (from its seat's view, as any bot)."""
    from carioca_agents.ppo_agent import shipped_models

    front = client.get("/").text
    for name in shipped_models():
        assert f'<option value="ppo:{name}" data-players="{4 if name.endswith("-p4") else 2}">' in front, name
    started = client.post("/api/games", json={"players": 2, "bots": ["ppo:contract1"], "seat": 0, "deals": [1], "seed": 3})
    assert started.status_code == 200, started.text
    state = started.json()
    game = client.get(f"/play/{state['id']}")
    assert game.status_code == 200
    refused = client.post("/api/games", json={"players": 3, "bots": ["ppo:contract1"], "seat": 0, "deals": [1], "seed": 3})
    assert refused.status_code in (400, 422) and "contract1" in refused.text
