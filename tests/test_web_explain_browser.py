"""Explanations in ``carioca serve``, in a real browser (Playwright driving chromium).

A tournament between the heuristic and search is played with ``--records 1 --explain``
into a served folder; the viewer shows the mover's ranked candidates with bars and the
move played marked, the tournament page's form opens the duplicate diff (two games side
by side, each move list scrolled to where they part, both explanations there), and the
play page asks a bot what it would play from the person's view.  Every page is checked
at 1,280 and 390 px, and a screenshot of each is saved under ``build/screenshots``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from carioca_agents.explain import explain
from carioca_agents.registry import make_agent
from carioca_env import Game, card_str
from carioca_experiments.apps.serve.safepath import SafeRoot
from carioca_experiments.apps.serve.sessions import GameStore
from carioca_experiments.common.seeds import SERVE_BOT, derive_seed
from carioca_experiments.evaluation.diff import duplicate_diff, read_deck_records
from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

from browser_helpers import WAIT_MS, browser, fits, page  # noqa: F401  (fixtures)
from web_helpers import live_server, stacked_deck

WIDTHS = [1280, 390]
SHOTS = Path(__file__).resolve().parents[1] / "build" / "screenshots"
AGENTS = ("heuristic", "s=search:sims=4")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("served-explain")
    config = TournamentConfig(agents=AGENTS, players=2, contracts=(1,), decks=2, seed=3)
    run_tournament(config, folder / "tour", workers=1, progress=False, log=lambda m: None, record_every=1,
                   explain=True)
    return folder


@pytest.fixture(scope="module")
def base_url(served: Path) -> Iterator[str]:
    with live_server(served) as url:
        yield url








def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)


def _record(served: Path, task: str) -> dict:
    return json.loads((served / "tour" / "records" / f"{task}.json").read_text())


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_the_viewer_shows_the_movers_ranked_candidates(page: Page, base_url: str, served: Path) -> None:
    record = _record(served, "c1-d0-l1")
    # a searched decision: seat 0 is search in lineup 1, with several candidates
    k = next(i for i, e in enumerate(record["explanations"]) if e and e["kind"] == "rollout"
             and len(e["candidates"]) >= 2)
    exp = record["explanations"][k]
    page.goto(f"{base_url}/view?path=tour/records/c1-d0-l1.json&move={k}")
    page.wait_for_selector(f"#viewer[data-shown='{k}']")
    page.wait_for_selector("#explanation .explanation")
    rows = page.eval_on_selector_all("#explanation tr", "els => els.map(e => [e.dataset.move, e.className])")
    assert [r[0] for r in rows] == [c["move"] for c in exp["candidates"]]
    assert [r[0] for r in rows if r[1] == "played"] == [record["moves"][k]]
    assert page.locator("#explanation .bar").count() == len(exp["candidates"])
    assert "\u00b1" in page.inner_text("#explanation")  # search's standard errors
    fits(page)
    _shot(page, "viewer-explanation")
    # the other seat's view hides the mover's reasons (they name cards of its hand)
    actor = int(page.inner_text("#next-move").split("seat ")[1].split()[0])
    page.select_option("#seat-select", str(1 - actor))
    page.wait_for_function("!document.querySelector('#explanation .explanation')", timeout=WAIT_MS)
    page.select_option("#seat-select", str(actor))
    page.wait_for_selector("#explanation .explanation")


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_the_diff_page_shows_both_games_from_where_they_part(page: Page, base_url: str, served: Path) -> None:
    expected = duplicate_diff(read_deck_records(served / "tour", 1, 1), 1, 1, ("heuristic", "s"), 0)
    assert expected.first is not None
    page.goto(f"{base_url}/tournament?path=tour")
    page.fill("#diff-deck", "1")
    page.select_option("#diff-a", "heuristic")
    page.select_option("#diff-b", "s")
    page.select_option("#diff-seat", "0")
    page.click("#diff-go")
    page.wait_for_selector("#diff[data-ready='true']")
    assert f"move {expected.first + 1}" in page.inner_text("#diff-summary")
    assert page.inner_text("#deck-diff") == f"{expected.deck_diff:+.1f}"
    for side in (0, 1):
        row = page.locator(f"#moves-{side} li.departure")
        assert row.count() == 1 and row.get_attribute("data-index") == str(expected.first)
        assert expected.moves[side][expected.first] in row.inner_text()
        # scrolled inside its own list: the departure row is within the list's visible box
        inside = page.evaluate(f"""() => {{
            const list = document.getElementById('moves-{side}');
            const row = list.querySelector('li.departure');
            const a = list.getBoundingClientRect(), b = row.getBoundingClientRect();
            return b.top >= a.top && b.bottom <= a.bottom; }}""")
        assert inside, f"side {side}: the departure is scrolled out of its list"
        exp = expected.explanations[side]
        if exp is not None:
            played = page.eval_on_selector_all(f"#explanation-{side} tr.played", "els => els.map(e => e.dataset.move)")
            assert played == [expected.moves[side][expected.first]]
    assert any(e is not None for e in expected.explanations)
    fits(page)
    _shot(page, "diff")


@pytest.mark.parametrize("page", WIDTHS, indirect=True)
def test_the_hint_explains_from_the_persons_view_only(page: Page, base_url: str, served: Path) -> None:
    store = GameStore(SafeRoot.of(served))
    gid = store.create(2, ["greedy"], 0, [1], 0, deck=stacked_deck(), dealer=1).id
    page.goto(f"{base_url}/play/{gid}")
    page.wait_for_selector("#play[data-your-turn='true']")
    page.click("#stock")
    page.wait_for_function("Number(document.getElementById('play').dataset.version) > 0", timeout=WAIT_MS)
    state = httpx.get(f"{base_url}/api/games/{gid}", timeout=10).json()
    page.select_option("#hint-bot", "heuristic")
    page.click("#hint-ask")
    page.wait_for_selector("#hint-panel .explanation")
    game = Game.load(served / "web-games" / f"{gid}.json")
    agent = make_agent("heuristic", derive_seed(SERVE_BOT, 0, "hint", len(game.moves)))
    want = explain(agent, game.view(0), game.legal_moves())
    assert want is not None
    rows = page.eval_on_selector_all("#hint-panel tr", "els => els.map(e => e.dataset.move)")
    assert rows == [c.move for c in want.candidates]
    assert page.eval_on_selector_all("#hint-panel tr.played", "els => els.map(e => e.dataset.move)") == [want.move]
    # every card the hint names is one of the person's: nothing of the other hand leaks
    mine = set(state["frame"]["seats"][0]["hand"])
    theirs = {card_str(c) for c in game.hand(1)} - mine
    named = {w for r in rows for w in r.split() if w in theirs}
    assert not named, f"the hint names cards only the other seat holds: {named}"
    assert page.get_attribute("#play", "data-version") == str(state["version"])  # asking plays nothing
    fits(page)
    _shot(page, "hint")
    # a spec beyond the hint budget is refused with the reason, nothing else happens
    page.evaluate("""() => { const o = document.createElement('option'); o.value = 'search:sims=100000';
                     o.textContent = o.value; document.getElementById('hint-bot').appendChild(o); }""")
    page.select_option("#hint-bot", "search:sims=100000")
    page.click("#hint-ask")
    page.wait_for_selector("#hint-panel .error")
    assert "at most" in page.inner_text("#hint-panel .error")
