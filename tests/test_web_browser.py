"""``carioca serve`` in a real browser: Playwright driving Debian's headless chromium.

A person plays a whole stacked deal against ``greedy`` by clicking (an opening, lay-offs,
an illegal attempt, discards), reloads mid-game and goes on; a replay is stepped forward
and back and checked against the engine's position; a path out of the folder is refused.
The server runs in a thread on a free loopback port; every wait is bounded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from carioca_env import PENALTY, Game, parse_card
from carioca_experiments.apps.serve.frames import card_list
from carioca_experiments.apps.serve.safepath import SafeRoot
from carioca_experiments.apps.serve.sessions import GameStore

from browser_helpers import WAIT_MS, browser, fits, page  # noqa: F401  (fixtures)
from web_helpers import live_server, play_person, stacked_deck, swap_deck, write_played_record

#: Debian's chromium where installed, else None: Playwright's own download (`make browser`)
#: a desktop window and a phone
WIDTHS = [1280, 390]
#: a tournament summary with long agent specs and the batch ratings
TOURNAMENT_SUMMARY = {
    "config": {"agents": [f"agent{k}=search:rollout=greedy,sims=64,seed={k}" for k in range(3)], "players": 2,
               "contracts": [1, 2, 3], "format": "duplicate"},
    "deals_played": 60, "deals_expected": 60, "truncated": 0, "cancelled": 0, "notes": [],
    "agents": [{"contract": "all", "agent": f"agent{k}", "mean_penalty": 30.0 + k, "ci_low": 25.0, "ci_high": 35.0,
                "decks": 10, "deals": 60, "win_rate": 0.5, "close_rate": 0.4, "open_rate": 0.9, "truncated": 0}
               for k in range(3)],
    "pairs": [{"contract": "all", "agent_x": "agent0", "agent_y": "agent1", "mean_diff": -1.0, "ci_low": -3.0,
               "ci_high": 1.0, "decks": 10}],
    "ratings": [{"agent": f"agent{k}", "rating": 1500.0 + k, "low": 1450.0, "high": 1550.0, "strength": 0.0,
                 "matches": 60, "pairs": 60} for k in range(3)],
}
#: a learning curve: two opponents, the long header of eval.csv
EVAL_CSV = ("steps,opponent,contracts,decks,deals,learner_mean,learner_ci_low,learner_ci_high,opponent_mean,"
            "opponent_ci_low,opponent_ci_high,diff_mean,diff_ci_low,diff_ci_high,learner_open_rate,"
            "learner_win_rate,truncated,wall_time_s\n" + "".join(
                f"{steps},{opp},1,50,100,{m},{m - 5},{m + 5},{o},{o - 4},{o + 4},{m - o},{m - o - 6},{m - o + 6},"
                f"0.5,0.4,0,{steps / 100}\n"
                for steps, m in ((10_000, 60.0), (20_000, 45.5), (40_000, 38.0))
                for opp, o in (("random", 55.0), ("greedy", 30.0))))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("served")
    write_played_record(folder / "records" / "three.json", players=3, deals=(1, 2), seed=5)
    (folder.parent / "outside.json").write_text((folder / "records" / "three.json").read_text())
    (folder / "run").mkdir()
    (folder / "run" / "eval.csv").write_text(EVAL_CSV)
    (folder / "run" / "experiment.json").write_text(json.dumps({"note": "x" * 400}))
    (folder / "pending").mkdir()
    (folder / "pending" / "results.jsonl").write_text("")
    (folder / "tour").mkdir()
    (folder / "tour" / "summary.json").write_text(json.dumps(TOURNAMENT_SUMMARY))
    return folder


@pytest.fixture(scope="module")
def base_url(served: Path) -> Iterator[str]:
    with live_server(served) as url:
        yield url






def _new_stacked_game(served: Path) -> str:
    return GameStore(SafeRoot.of(served)).create(2, ["greedy"], 0, [1], 0, deck=stacked_deck(), dealer=1).id


def _state(base_url: str, gid: str) -> dict:
    return httpx.get(f"{base_url}/api/games/{gid}", timeout=10).json()


def _after(page: Page, version: int) -> None:
    """Wait until the page shows a position later than ``version``."""
    page.wait_for_function(f"Number(document.getElementById('play').dataset.version) > {version}", timeout=WAIT_MS)


def _click_card(page: Page, code: str) -> None:
    page.locator(f"#hand-0 .card[data-code='{code}']:not(.selected):not(.grouped)").first.click()


def _hand_on_page(page: Page, seat: int) -> list[str]:
    return page.eval_on_selector_all(f"#hand-{seat} .card", "els => els.map(e => e.dataset.code || 'back')")


# --------------------------------------------------------------------------- play


def test_play_a_whole_deal_against_greedy_by_clicking(page: Page, base_url: str, served: Path) -> None:
    gid = _new_stacked_game(served)
    page.goto(f"{base_url}/play/{gid}")
    page.wait_for_selector("#play[data-your-turn='true']")
    illegal_seen = opened = lays = 0
    for _turn in range(40):
        s = _state(base_url, gid)
        if s["game_over"]:
            break
        assert s["your_turn"] and page.get_attribute("#play", "data-version") == str(s["version"])
        _check_controls(page, s)
        phase = s["frame"]["phase"]
        if phase == "draw":
            page.click("#stock")
            _after(page, s["version"])
            continue
        opens = [m for m in s["legal"] if m["kind"] == "open"]
        layable = [m for m in s["legal"] if m["kind"] == "lay_off"]
        if opens:
            target = next(m for m in opens if "8S" not in m["text"])
            for meld in target["melds"]:
                for code in meld.split():
                    _click_card(page, code)
                page.click("#group")
            page.click("#open")
            _after(page, s["version"])
            opened += 1
        elif layable and not illegal_seen:
            # 9C lays off nowhere: selecting it marks no meld, and a click on the trio of
            # eights sends nothing (only what is legal takes a click)
            _click_card(page, "9C")
            assert page.locator(".meld.target").count() == 0
            assert page.inner_text("#hint").startswith("9\u2663: discard it")
            posts: list[str] = []
            page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
            page.click("[data-ref='0.0']")
            page.wait_for_timeout(300)
            assert not posts and page.get_attribute("#play", "data-version") == str(s["version"])
            page.click("#clear")
            illegal_seen = 1
        elif layable:
            m = layable[0]
            _click_card(page, m["card"])
            targets = page.eval_on_selector_all(".meld.target", "els => els.map(e => e.dataset.ref)")
            assert sorted(targets) == sorted({x["ref"] for x in layable if x["card"] == m["card"]})
            page.click(f"[data-ref='{m['ref']}']")
            _after(page, s["version"])
            lays += 1
        else:
            hand = s["frame"]["seats"][0]["hand"]
            worst = max(hand, key=lambda c: PENALTY[parse_card(c)])
            _click_card(page, worst)
            page.click("#discard")
            _after(page, s["version"])
    s = _state(base_url, gid)
    assert s["game_over"], "the deal did not end within 40 of the person's actions"
    assert opened == 1 and lays >= 3 and illegal_seen
    page.wait_for_selector("#final h2")
    assert "Game over" in page.inner_text("#final h2") and page.locator("#controls").count() == 0
    game = Game.load(served / "web-games" / f"{gid}.json")
    mine = [str(m) for m, seat in zip(game.moves, _actors(game)) if seat == 0]
    assert "open 8H 8D 8C / KS KH KD" in mine and sum(m.startswith("lay ") for m in mine) == lays
    result = game.deal_results[-1]
    assert not result.cancelled and page.inner_text("#scores .totals") .split()[1:] == [str(t) for t in game.totals]


def _check_controls(page: Page, s: dict) -> None:
    """Only what the legal moves allow takes a click; the seat heads count cards in English."""
    legal = s["legal"]
    kinds = {m["kind"] for m in legal}
    assert page.is_enabled("#draw-stock") == ("draw_stock" in kinds)
    assert page.is_enabled("#draw-discard") == ("draw_discard" in kinds)
    for button in ("#discard", "#group", "#open"):  # nothing selected yet
        assert not page.is_enabled(button), button
    usable = {m["card"] for m in legal if "card" in m} | {c for m in legal if m["kind"] == "open" for c in m["cards"]}
    for code, clickable in page.eval_on_selector_all(
            "#hand-0 .card", "els => els.map(e => [e.dataset.code, e.classList.contains('clickable')])"):
        assert clickable == (code in usable), (code, s["frame"]["phase"])
    for seat in s["frame"]["seats"]:
        n = seat["hand_size"]
        assert f" {n} card{'' if n == 1 else 's'} \u00b7" in page.inner_text(f"#seat-{seat['seat']} .seathead")


def _actors(game: Game) -> list[int]:
    """Who made each move of ``game`` (replayed from its record)."""
    fresh, moves = Game.start_of_record(game.to_record())
    out = []
    for text in moves:
        out.append(fresh.current_player)
        fresh.push(text)
    return out


def test_reload_mid_game_resumes_and_two_tabs_do_not_clash(page: Page, browser: Browser, base_url: str, served: Path) -> None:
    gid = _new_stacked_game(served)
    page.goto(f"{base_url}/play/{gid}")
    page.wait_for_selector("#play[data-your-turn='true']")
    page.click("#stock")
    _after(page, 0)
    hand_before = _hand_on_page(page, 0)
    assert "KC" in hand_before and len(hand_before) == 12
    page.reload()
    page.wait_for_selector("#play[data-version='1']")
    assert _hand_on_page(page, 0) == hand_before and page.get_attribute("#play", "data-phase") == "play"
    # a second tab moves first; this tab's move from the old position is refused, then it catches up
    other = browser.new_page()
    other.goto(f"{base_url}/play/{gid}")
    other.wait_for_selector("#play[data-version='1']")
    _click_card(other, "QD")
    other.click("#discard")
    other.wait_for_function("Number(document.getElementById('play').dataset.version) > 1", timeout=WAIT_MS)
    other.close()
    _click_card(page, "JC")
    page.click("#discard")
    page.wait_for_selector("#message.error")
    assert "another tab" in page.inner_text("#message")
    page.wait_for_function("Number(document.getElementById('play').dataset.version) > 1", timeout=WAIT_MS)
    assert "QD" not in _hand_on_page(page, 0) and "JC" in _hand_on_page(page, 0)
    # and the game goes on from the reloaded position
    version = int(page.get_attribute("#play", "data-version"))
    page.click("#stock")
    _after(page, version)
    game = Game.load(served / "web-games" / f"{gid}.json")
    assert [str(m) for m in game.moves][:2] == ["draw stock", "discard QD"] and len(game.moves) == version + 1


# --------------------------------------------------------------------------- viewer


def _check_table(page: Page, game: Game) -> None:
    """The viewer's table (all hands) is the engine's position."""
    for s in range(game.num_players):
        assert _hand_on_page(page, s) == card_list(game.hand(s)), f"seat {s}"
        melds = page.eval_on_selector_all(f"#seat-{s} .meld", "els => els.map(e => e.dataset.text)")
        assert melds == [str(m) for m in game.table_melds()[s]]
    assert page.get_attribute("#stock", "data-size") == str(game.stock_size)
    assert page.get_attribute("#discard", "data-top") == (card_list([game.top_discard])[0] if game.discard else "")
    assert page.inner_text("#scores .totals").split()[1:] == [str(t) for t in game.totals]


def test_step_a_replay_forward_and_back(page: Page, base_url: str, served: Path) -> None:
    record = json.loads((served / "records" / "three.json").read_text())
    moves = record["moves"]
    page.goto(f"{base_url}/view?path=records/three.json")
    page.wait_for_selector("#viewer[data-shown='0']")

    def at(k: int) -> Game:
        game, _ = Game.start_of_record(record)
        for text in moves[:k]:
            game.push(text)
        return game

    _check_table(page, at(0))
    for k in range(1, 9):
        page.click("#forward")
        page.wait_for_selector(f"#viewer[data-shown='{k}']")
        assert page.inner_text("#last-move").endswith(moves[k - 1])
    _check_table(page, at(8))
    for k in (7, 6):
        page.click("#back")
        page.wait_for_selector(f"#viewer[data-shown='{k}']")
    _check_table(page, at(6))
    # jump to the second deal, then to a move by number
    second = page.eval_on_selector_all("#deal-jump option", "els => els.map(e => e.value)")[1]
    page.select_option("#deal-jump", second)
    page.wait_for_selector(f"#viewer[data-shown='{second}']")
    game = at(int(second))
    assert game.deal_number == 2 and game.turn == 0
    _check_table(page, game)
    page.fill("#move-number", "40")
    page.press("#move-number", "Enter")
    page.wait_for_selector("#viewer[data-shown='40']")
    _check_table(page, at(40))
    # one seat's view: its own cards, the others face down
    page.select_option("#seat-select", "2")
    page.wait_for_function("document.querySelector('#tablehead').textContent.includes(\"seat 2's view\")", timeout=WAIT_MS)
    game = at(40)
    assert _hand_on_page(page, 2) == card_list(game.hand(2))
    assert _hand_on_page(page, 0) == ["back"] * len(game.hand(0))
    # autoplay at the fastest speed runs on by itself
    page.select_option("#speed", "50")
    page.click("#autoplay")
    page.wait_for_function("Number(document.getElementById('viewer').dataset.shown) >= 45", timeout=WAIT_MS)
    page.click("#autoplay")


def test_a_path_outside_the_folder_is_refused(page: Page, base_url: str, served: Path) -> None:
    (served / "link-out.json").symlink_to(served.parent / "outside.json")
    for bad in ("../outside.json", "link-out.json", str(served.parent / "outside.json")):
        response = page.goto(f"{base_url}/view?path={bad}")
        assert response is not None and response.status == 403
        assert "served folder" in page.inner_text("#error")
    response = page.goto(f"{base_url}/view?path=records/three.json")
    assert response is not None and response.status == 200


def test_a_joker_swap_by_clicking_offers_the_ends(page: Page, base_url: str, served: Path) -> None:
    gid = GameStore(SafeRoot.of(served)).create(2, ["greedy"], 0, [2], 0, deck=swap_deck(), dealer=1).id
    page.goto(f"{base_url}/play/{gid}")
    page.wait_for_selector("#play[data-your-turn='true']")
    page.click("#draw-stock")
    _after(page, 0)
    for group in (["8C", "8D", "8H"], ["7S", "JK", "5S", "4S"]):  # click order does not matter
        for code in group:
            _click_card(page, code)
        page.click("#group")
    page.click("#open")
    _after(page, 1)
    run = page.locator("[data-ref='0.1']")
    assert run.get_attribute("data-text") == "4S 5S JK 7S"
    assert run.locator(".card[data-stands-for='6S']").count() == 1  # the joker stands for 6S
    _click_card(page, "QC")
    page.click("#discard")
    page.wait_for_selector("#play[data-your-turn='true'][data-phase='draw']")
    version = int(page.get_attribute("#play", "data-version"))
    page.click("#stock")
    _after(page, version)
    _click_card(page, "6S")
    page.click("[data-ref='0.1']")
    page.wait_for_selector("#choices button")
    offered = page.eval_on_selector_all("#choices button", "els => els.map(e => e.dataset.move)")
    assert offered == ["swap 6S 0.1 low", "swap 6S 0.1 high"]
    page.click("#choices button[data-move='swap 6S 0.1 low']")
    _after(page, version + 1)
    run = page.locator("[data-ref='0.1']")
    assert run.get_attribute("data-text") == "JK 4S 5S 6S 7S"
    assert run.locator(".card[data-stands-for='3S']").count() == 1
    game = Game.load(served / "web-games" / f"{gid}.json")
    assert str(game.moves[-1]) == "swap 6S 0.1 low"


# --------------------------------------------------------------------------- the table helps




def _enabled(page: Page) -> dict[str, bool]:
    return {b: page.is_enabled(f"#{b}") for b in ("draw-stock", "draw-discard", "discard", "group", "open")}


def _check_last(page: Page, state: dict) -> None:
    """The last public move is named above the table and outlined on it."""
    last = state["frame"]["last"]
    assert page.inner_text("#last-move").endswith(last["text"])
    assert page.locator(f"#seat-{last['seat']}.last-mover").count() == 1 and page.locator(".seat.last-mover").count() == 1
    assert sorted(page.eval_on_selector_all(".meld.last", "els => els.map(e => e.dataset.ref)")) == sorted(last["refs"])
    assert page.locator("#discard.last").count() == (last["kind"] == "discard")
    assert page.inner_text("#history li.last").endswith(last["text"])


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_only_legal_moves_take_a_click_and_the_last_move_is_highlighted(page: Page, base_url: str, served: Path) -> None:
    gid = _new_stacked_game(served)
    page.goto(f"{base_url}/play/{gid}")
    page.wait_for_selector("#play[data-your-turn='true']")
    fits(page)
    assert _enabled(page) == {"draw-stock": True, "draw-discard": True, "discard": False, "group": False, "open": False}
    assert page.locator("#hand-0 .card.clickable").count() == 0  # nothing to do with a card before drawing
    assert page.locator("#stock.clickable").count() == 1 and page.locator("#discard.clickable").count() == 1
    page.click("#draw-stock")
    _after(page, 0)
    s = _state(base_url, gid)
    _check_last(page, s)
    assert _enabled(page) == {"draw-stock": False, "draw-discard": False, "discard": False, "group": False, "open": False}
    # one card: discardable, but no meld alone; three eights are a meld of an opening
    _click_card(page, "8C")
    assert page.is_enabled("#discard") and not page.is_enabled("#group")
    assert "group it into a meld of an opening" in page.inner_text("#hint")
    for code in ("8D", "8H"):
        _click_card(page, code)
    assert page.is_enabled("#group") and not page.is_enabled("#discard") and not page.is_enabled("#open")
    _click_card(page, "9C")  # 8C 8D 8H 9C is no meld
    assert not page.is_enabled("#group") and "no meld of a legal opening" in page.inner_text("#hint")
    page.locator("#hand-0 .card.selected[data-code='9C']").click()
    page.click("#group")
    assert page.locator("#hand-0 .card.grouped").count() == 3 and not page.is_enabled("#open")
    for code in ("KS", "KH", "KD"):
        _click_card(page, code)
    assert page.is_enabled("#open") and page.is_enabled("#group")
    version = int(page.get_attribute("#play", "data-version"))
    page.click("#open")
    _after(page, version)
    s = _state(base_url, gid)
    _check_last(page, s)
    assert s["frame"]["last"]["kind"] == "open" and page.locator(".meld.last").count() == 2
    # no lay-off in the turn of the opening (R9: only on later turns): a meld is no target yet
    _click_card(page, "8S")
    assert not [m for m in s["legal"] if m["kind"] == "lay_off"] and page.locator(".meld.target").count() == 0
    page.locator("#hand-0 .card.selected").click()
    _click_card(page, "QD")
    version = int(page.get_attribute("#play", "data-version"))
    page.click("#discard")
    _after(page, version)
    s = _state(base_url, gid)
    assert s["frame"]["last"]["seat"] == 1  # greedy answered: its last move is the one outlined
    _check_last(page, s)
    bot_moves = s["version"] - version - 1  # after the person's discard
    assert bot_moves >= 2 and page.locator("#bots div").count() == 1 + bot_moves  # a heading, then each move
    # the next turn: 8S lays off on the eights only, and a meld takes a click only then
    version = s["version"]
    page.click("#stock")
    _after(page, version)
    _click_card(page, "8S")
    assert page.eval_on_selector_all(".meld.target", "els => els.map(e => e.dataset.ref)") == ["0.0"]
    page.locator("#hand-0 .card.selected").click()
    assert page.locator(".meld.target").count() == 0 and page.locator(".meld.clickable").count() == 0
    fits(page)


def _two_deal_game(served: Path, seed: int) -> tuple[str, GameStore]:
    store = GameStore(SafeRoot.of(served))
    return store.create(2, ["greedy"], 0, [1, 2], seed).id, store


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_a_deal_summary_before_the_next_deal_and_the_final_table(page: Page, base_url: str, served: Path) -> None:
    gid, store = _two_deal_game(served, 3)
    responses: list[dict] = []
    page.on("response", lambda r: responses.append(r.json()) if "/api/games/" in r.url else None)
    game = play_person(store, gid, lambda g: len(g.deal_results) >= 1)
    assert not game.game_over
    page.goto(f"{base_url}/play/{gid}")
    page.wait_for_selector("#deal-summary:not([hidden]) h2")
    fits(page)
    summary = _state(base_url, gid)["deals"][0]
    assert "is over" in page.inner_text("#deal-summary h2") and page.is_hidden("#table") and page.is_hidden("#controls")
    for s in range(2):
        row = page.locator(f".summary-seat[data-seat='{s}']")
        assert row.get_attribute("data-score") == str(summary["scores"][s])
        assert row.locator(".card").evaluate_all("els => els.map(e => e.dataset.code)") == summary["hands"][s]
        assert sum(PENALTY[parse_card(c)] for c in summary["hands"][s]) == summary["scores"][s]
        melds = summary["melds"][s]
        assert row.locator(".summary-melds").count() == (1 if melds else 0)
        if melds:
            assert row.locator(".summary-melds").inner_text().count("\u00b7") == len(melds) - 1
    assert summary["hands"][summary["closer"]] == []
    page.click("#next-deal")
    page.wait_for_selector("#deal-summary[hidden]", state="attached")
    assert page.is_visible("#table") and page.is_visible("#actions")
    page.reload()
    page.wait_for_selector("#play[data-your-turn='true']")
    assert page.is_hidden("#deal-summary")  # dismissed once, not shown again
    # during the deal no response carried another seat's hand
    assert responses and all(r["frame"]["seats"][1]["hand"] is None for r in responses if "frame" in r)
    # the game ends: the final table shows every hand and the standings, with no controls
    game = play_person(store, gid, lambda g: False)
    page.reload()
    page.wait_for_selector("#final:not([hidden]) h2")
    fits(page)
    assert page.locator("#controls").count() == 0 and page.locator("#actions button").count() == 0
    assert page.locator("#hand-0 .card.back, #hand-1 .card.back").count() == 0
    for s in range(2):
        assert _hand_on_page(page, s) == card_list(game.hand(s))
    totals = page.eval_on_selector_all("#standings tr.winner td:last-child", "els => els.map(e => Number(e.textContent))")
    assert totals == [min(game.totals)] * len(game.winners)
    assert "Game over" in page.inner_text("#final h2")


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_pages_fit_the_window_and_the_run_page_draws_its_curve(page: Page, base_url: str, served: Path) -> None:
    for path in ("/", "/run?path=run", "/tournament?path=tour", "/view?path=records/three.json&move=189"):
        page.goto(base_url + path)
        page.wait_for_load_state("load")
        if path.startswith("/view"):
            page.wait_for_selector("#viewer[data-shown='189']")
        fits(page)
    # history numbers of 100 and more stay inside the history box
    box = page.locator("#history").bounding_box()
    numbers = page.locator("#history .num")
    assert int(numbers.last.inner_text()) >= 100
    for k in range(numbers.count()):
        b = numbers.nth(k).bounding_box()
        assert box["x"] <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"]
    page.goto(f"{base_url}/")
    assert "None" not in page.inner_text("main") and "no summary yet" in page.inner_text("main")
    page.goto(f"{base_url}/run?path=run")
    svg = page.locator("#learning-curve svg")
    b = svg.bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert 200 < b["width"] <= width and b["height"] > 100
    assert page.locator("#learning-curve polyline.learner").count() == 2
    assert page.locator("#learning-curve circle").count() == 6
