"""``carioca serve`` against hostile requests: a request names no code and loads no file
from outside the served folder (nested specs included); plugins only by the operator's
label; the allowlist itself, as a library."""

from __future__ import annotations

import html
import json
import shutil
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import carioca_agents.ppo_agent as ppo_agent
from carioca_agents.allowlist import Allowlist, SpecRefused, model_files, parse_plugin_option
from carioca_agents.registry import SpecError, build_agent, parse_spec
from carioca_experiments.apps.serve.app import create_app
from carioca_experiments.apps.serve.cli import _plugins

from web_helpers import write_played_record

ROOT = Path(__file__).resolve().parents[1]
SENTINEL = "carioca_sentinel_plugin"


@pytest.fixture()
def served(tmp_path: Path) -> Path:
    """A served folder with a record; beside it (outside) a model and a module that
    records being imported."""
    folder = tmp_path / "served"
    write_played_record(folder / "r.json", players=2, deals=(1,))
    shutil.copytree(ROOT / "agents" / "models" / "contract1", tmp_path / "outside-model")
    code = tmp_path / "code"
    code.mkdir()
    (code / f"{SENTINEL}.py").write_text(
        "from pathlib import Path\n"
        f"Path({str(tmp_path / 'imported.txt')!r}).write_text('imported')\n"
        "from carioca_agents.random_agent import RandomAgent\n"
        "def make(seed=0, **kw):\n    return RandomAgent(seed)\n"
    )
    return folder


@pytest.fixture()
def no_model_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every model card read and model load, recorded (a refused request must do neither)."""
    seen: list[str] = []
    real_read, real_load = ppo_agent.read_card, ppo_agent.load_model
    monkeypatch.setattr(ppo_agent, "read_card", lambda p: seen.append(f"card {p}") or real_read(p))
    monkeypatch.setattr(ppo_agent, "load_model", lambda p, n=None: seen.append(f"load {p}") or real_load(p, n))
    return seen


def _no_game_files(folder: Path) -> bool:
    games = folder / "web-games"
    return not games.exists() or not any(games.iterdir())


# --------------------------------------------------------------------------- code named by a request


def test_a_logging_basicconfig_request_creates_no_file_and_calls_nothing(served: Path, tmp_path: Path) -> None:
    target = tmp_path / "written-by-logging.log"
    c = TestClient(create_app(served))
    for spec in (f"py:logging:basicConfig:force=true,filename={target}",
                 f"search:rollout=py:logging:basicConfig:filename={target}",
                 f"greedy,py:logging:basicConfig:filename={target}"):
        r = c.post("/api/games", json={"bots": [spec], "seed": 1})
        assert r.status_code in (403, 422), (spec, r.status_code, r.text)
        assert not target.exists()
    assert _no_game_files(served)


@pytest.mark.parametrize("spec", [
    f"py:{SENTINEL}:make",
    f"py:{SENTINEL}:make:x=1",
    f"search:rollout=py:{SENTINEL}:make,sims=1",
    f"search:rollout=search:rollout=py:{SENTINEL}:make",
])
def test_a_module_named_by_a_request_is_never_imported(served: Path, tmp_path: Path, spec: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    sys.modules.pop(SENTINEL, None)
    c = TestClient(create_app(served))
    r = c.post("/api/games", json={"bots": ["greedy", spec]})
    assert r.status_code == 403 and "py:" in r.json()["error"]
    assert SENTINEL not in sys.modules and not (tmp_path / "imported.txt").exists()
    assert _no_game_files(served)


@pytest.mark.parametrize("spec", [
    "ppo:../outside-model",
    "search:rollout=ppo:../outside-model,sims=1",
    "search:sims=1,rollout=ppo:../outside-model/model.zip",
    "search:rollout=search:rollout=ppo:../outside-model",
    "ppo:{abs}",
    "search:rollout=ppo:{abs},sims=1",
    "ppo:path={abs}/model.zip",
])
def test_a_model_outside_the_folder_is_refused_at_any_depth_before_it_is_read(
        served: Path, tmp_path: Path, no_model_loads: list[str], spec: str) -> None:
    c = TestClient(create_app(served))
    r = c.post("/api/games", json={"bots": [spec.format(abs=tmp_path / "outside-model")]})
    assert r.status_code == 403, r.text
    assert "outside" in r.json()["error"] or "absolute" in r.json()["error"]
    assert no_model_loads == [] and _no_game_files(served)


def test_a_symlinked_model_or_card_leading_out_is_refused(served: Path, tmp_path: Path, no_model_loads: list[str]) -> None:
    (served / "linked").symlink_to(tmp_path / "outside-model")
    inside = served / "m"
    inside.mkdir()
    (inside / "model.zip").symlink_to(tmp_path / "outside-model" / "model.zip")
    shutil.copy(tmp_path / "outside-model" / "model.json", inside / "model.json")
    card_only = served / "c"
    shutil.copytree(tmp_path / "outside-model", card_only)
    (card_only / "model.json").unlink()
    (card_only / "model.json").symlink_to(tmp_path / "outside-model" / "model.json")
    c = TestClient(create_app(served))
    for spec in ("ppo:linked", "search:rollout=ppo:m,sims=1", "ppo:c", "ppo:c/model.zip"):
        r = c.post("/api/games", json={"bots": [spec]})
        assert r.status_code == 403 and "outside the served folder" in r.json()["error"], (spec, r.text)
    for model in ("linked", "m", "c"):
        r = c.get(f"/api/replay?path=r.json&model={model}")
        assert r.status_code == 403, model
    assert no_model_loads == [] and _no_game_files(served)


def test_models_inside_the_folder_and_shipped_ones_are_allowed(served: Path, tmp_path: Path) -> None:
    shutil.copytree(tmp_path / "outside-model", served / "runs" / "c1")
    c = TestClient(create_app(served))
    for spec in ("ppo:runs/c1", "ppo:runs/c1/model.zip", "ppo:runs/c1/model", "ppo:contract1",
                 "search:rollout=ppo:runs/c1,sims=1,horizon=2"):
        r = c.post("/api/games", json={"bots": [spec], "deals": [1]})
        assert r.status_code == 200, (spec, r.text)
        assert r.json()["names"][1] == spec  # the game names the bot as the request did
    assert c.post("/api/games", json={"bots": ["ppo:runs/none"]}).status_code == 404


def test_budgets_above_the_servers_limits_are_refused(served: Path) -> None:
    c = TestClient(create_app(served))
    for spec in ("search:sims=100000", "search:ms=1e9", "search:horizon=100000",
                 "search:rollout=search:sims=100000"):
        r = c.post("/api/games", json={"bots": [spec]})
        assert r.status_code == 403 and "at most" in r.json()["error"], spec
    for spec in ("heuristic:w_def=nan", "heuristic:w_def=inf", "search:z=-inf"):
        r = c.post("/api/games", json={"bots": [spec]})
        assert r.status_code == 400 and "finite" in r.json()["error"], spec
    assert _no_game_files(served)


def test_an_entry_point_plugin_is_played_only_by_the_operators_label(served: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "carioca_test_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: carioca-test-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[carioca_env.agents]\nsentinel = {SENTINEL}:make\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    sys.modules.pop(SENTINEL, None)
    plain = TestClient(create_app(served))
    for spec in ("sentinel", "sentinel:x=1", "search:rollout=sentinel"):
        r = plain.post("/api/games", json={"bots": [spec]})
        assert r.status_code == 403 and "may not be named" in r.json()["error"], spec
    assert SENTINEL not in sys.modules
    assert "sentinel" not in plain.get("/").text  # not offered either

    allowed = TestClient(create_app(served, _plugins(("bot=sentinel:x=1",))))  # built once at start
    assert SENTINEL in sys.modules
    assert allowed.post("/api/games", json={"bots": ["bot"]}).status_code == 200
    r = allowed.post("/api/games", json={"bots": ["bot:x=2"]})
    assert r.status_code == 403 and "without arguments" in r.json()["error"]
    assert allowed.post("/api/games", json={"bots": ["sentinel"]}).status_code == 403
    assert '<option value="bot"' in allowed.get("/").text


def test_a_py_plugin_label_plays_and_survives_a_restart_only_with_its_flag(served: Path) -> None:
    plugins = _plugins(("mine=py:carioca_agents.examples.my_agent:make_agent:patience=2",))
    c = TestClient(create_app(served, plugins))
    game = c.post("/api/games", json={"bots": ["mine"], "seat": 1, "deals": [1]}).json()
    assert game["names"] == ["mine", "you"]
    assert TestClient(create_app(served, plugins)).get(f"/api/games/{game['id']}").status_code == 200
    # served again without the flag: the game is refused with its reason, the rest works
    plain = TestClient(create_app(served))
    r = plain.get(f"/api/games/{game['id']}")
    assert r.status_code == 422 and "'mine'" in r.json()["error"]
    front = plain.get("/")
    assert front.status_code == 200 and f"web-games/{game['id']}.json" in front.text


@pytest.mark.parametrize(("option", "words"), [
    ("ppo=greedy", "built-in agent"),
    ("bad label=greedy", "plugin label"),
    ("x=py:no_such_module_q:f", "cannot be built"),
    ("x=nosuch", "unknown agent"),
    ("x=py:carioca_agents.examples.my_agent", "py:MODULE:FACTORY"),
])
def test_carioca_serve_refuses_a_bad_plugin_option_with_exit_2(option: str, words: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from carioca_experiments.cli import main

    assert main(["serve", "--records", str(tmp_path), "--allow-plugin", option]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_game_file_naming_code_is_refused_without_importing_it(served: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    sys.modules.pop(SENTINEL, None)
    c = TestClient(create_app(served))
    game = c.post("/api/games", json={"bots": ["greedy"], "deals": [1]}).json()
    path = served / "web-games" / f"{game['id']}.json"
    record = json.loads(path.read_text())
    record["session"]["bots"]["1"] = f"py:{SENTINEL}:make"
    record["agents"][1] = f"py:{SENTINEL}:make"
    path.write_text(json.dumps(record))
    for r in (c.get(f"/api/games/{game['id']}"), c.get(f"/play/{game['id']}"),
              c.post(f"/api/games/{game['id']}/move", json={"version": game["version"], "move": "draw stock"})):
        assert r.status_code == 422 and "names code" in r.text
    assert c.get("/").status_code == 200
    assert SENTINEL not in sys.modules and not (tmp_path / "imported.txt").exists()


# --------------------------------------------------------------------------- the allowlist as a library


def test_parse_spec_imports_nothing_and_reads_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      no_model_loads: list[str]) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / f"{SENTINEL}_b.py").write_text("raise SystemExit('imported')\n")
    parsed = parse_spec(f"search:rollout=py:{SENTINEL}_b:make:depth=2,sims=3")
    child = parsed.args["rollout"]
    assert (parsed.kind, parsed.args["sims"], child.kind, child.target, dict(child.args)) == \
        ("typed", 3, "py", f"{SENTINEL}_b:make", {"depth": 2})
    assert [n.text for n in parsed.walk()] == [parsed.text, child.text]
    assert f"{SENTINEL}_b" not in sys.modules
    ppo = parse_spec("search:rollout=ppo:/nowhere/x.zip")
    assert model_files(ppo) == [Path("/nowhere/x.zip")] and no_model_loads == []


def test_allowlist_resolves_models_and_builds_exactly_what_it_checked(tmp_path: Path) -> None:
    seen = []

    def resolve(arg: str) -> Path:
        seen.append(arg)
        if arg != "mine":
            raise SpecRefused(f"{arg} refused")
        return ROOT / "agents" / "models" / "contract1" / "model.zip"

    allow = Allowlist(resolve_model=resolve)
    checked = allow.check("search:rollout=ppo:mine,sims=2")
    assert model_files(checked) == [ROOT / "agents" / "models" / "contract1" / "model.zip"]
    assert checked.text == "search:rollout=ppo:mine,sims=2" and seen == ["mine"]
    assert model_files(allow.check("ppo:contract1-p4")) == [ROOT / "agents" / "models" / "contract1-p4" / "model.zip"]
    with pytest.raises(SpecRefused, match="theirs refused"):
        allow.check("search:rollout=ppo:theirs")
    with pytest.raises(SpecRefused, match="only shipped models"):
        Allowlist().check("ppo:runs/x")
    with pytest.raises(SpecError, match="no shipped model"):
        allow.check("ppo:full-p3")
    with pytest.raises(SpecError, match="nest at most"):
        allow.check("search:rollout=" * 6 + "greedy")
    with pytest.raises(SpecError, match="is a string"):
        allow.check(["greedy"])
    agent = build_agent(allow.check("search:rollout=greedy,sims=2"), 3)
    assert agent.name == "search:rollout=greedy,sims=2" and agent.sims == 2 and agent.rollout_spec == "greedy"
    label, spec = parse_plugin_option("calm=heuristic:preset=v1")
    assert (label, spec.text, spec.args["preset"]) == ("calm", "heuristic:preset=v1", "v1")


# --------------------------------------------------------------------------- one bad file breaks no page

DEEP = "[" * 100_000 + "]" * 100_000


def _game(c: TestClient, **body: object) -> dict:
    r = c.post("/api/games", json={"bots": ["greedy"], "deals": [1], **body})
    assert r.status_code == 200, r.text
    return r.json()


def _edit_game(folder: Path, game_id: str, edit) -> None:  # type: ignore[no-untyped-def]
    path = folder / "web-games" / f"{game_id}.json"
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))


def _front_lists(c: TestClient, path: str) -> str:
    """The reason the front page gives for an unreadable file (asserting the page works)."""
    page = c.get("/")
    assert page.status_code == 200
    table = html.unescape(page.text).split('id="unreadable"', 1)
    assert len(table) == 2 and path in table[1], path
    return table[1].split(path, 1)[1].split("</tr>", 1)[0]


def test_json_nested_100000_deep_is_unreadable_on_its_routes_and_listed(served: Path) -> None:
    c = TestClient(create_app(served))
    good = _game(c)["id"]
    bad = _game(c)["id"]
    (served / "deep.json").write_text(DEEP)
    (served / "web-games" / f"{bad}.json").write_text(DEEP)
    (served / "t").mkdir()
    (served / "t" / "summary.json").write_text(DEEP)
    (served / "run").mkdir()
    (served / "run" / "experiment.json").write_text('{"a":' * 1000 + "1" + "}" * 1000)  # parses, too deep to show
    for path in ("deep.json", f"web-games/{bad}.json", "t/summary.json", "run/experiment.json"):
        assert "deep" in _front_lists(c, path)
    for url in ("/api/replay?path=deep.json", "/view?path=deep.json", f"/api/games/{bad}", f"/play/{bad}",
                "/tournament?path=t", "/run?path=run"):
        r = c.get(url)
        assert r.status_code == 422 and "deep" in r.text, url
    assert c.post(f"/api/games/{bad}/move", json={"version": 0, "move": "draw stock"}).status_code == 422
    assert c.get(f"/api/games/{good}").status_code == 200 and c.get("/view?path=r.json").status_code == 200


@pytest.mark.parametrize(("field", "value"), [
    ("moves", 5), ("moves", [1, 2]), ("moves", {"a": 1}),
    ("totals", "12"), ("totals", [1, "2"]), ("totals", {"x": 1}),
    ("agents", {"a": 1}), ("agents", 3), ("agents", [1, 2]), ("agents", ["one"]),
    ("config", []), ("config", {"num_players": "2"}), ("deal_scores", [[1, None]]), ("version", "1"),
])
def test_a_record_field_of_the_wrong_type_is_listed_with_its_reason(served: Path, field: str, value: object) -> None:
    record = json.loads((served / "r.json").read_text())
    record[field] = value
    (served / "bad.json").write_text(json.dumps(record))
    c = TestClient(create_app(served))
    reason = _front_lists(c, "bad.json")
    assert field in reason or "config" in reason or "version" in reason, reason
    assert c.get("/api/replay?path=bad.json").status_code == 422
    assert c.get("/view?path=bad.json").status_code == 422
    assert c.get("/view?path=r.json").status_code == 200


def _summary(served: Path) -> dict:
    return {"config": {"agents": ["a", "b"], "players": 2, "contracts": [1], "format": "duplicate"},
            "deals_played": 2, "deals_expected": 2, "truncated": 0, "cancelled": 0,
            "agents": [{"contract": "1", "agent": "a", "decks": 1, "deals": 2, "truncated": 0, "mean_penalty": 3.5,
                        "ci_low": None, "ci_high": None, "win_rate": None, "close_rate": 0.5, "open_rate": 1.0}],
            "pairs": [], "ratings": [{"agent": "a", "rating": 1500.0}], "notes": ["n"]}


@pytest.mark.parametrize(("edit", "words"), [
    (lambda s: s.update(config=[1, 2]), "'config' must be an object"),
    (lambda s: s.update(agents="a,b"), "'agents' must be a list of rows"),
    (lambda s: s.update(agents=["a", "b"]), "'agents' must be a list of rows"),
    (lambda s: s["agents"][0].update(mean_penalty="low"), "agents[0].mean_penalty"),
    (lambda s: s["agents"][0].pop("decks"), "agents[0].decks"),
    (lambda s: s["config"].update(agents="ab"), "config.agents"),
    (lambda s: s.update(ratings=[[1]]), "'ratings'"),
    (lambda s: s.update(notes="x"), "'notes'"),
    (lambda s: s.update(deals_played="2"), "'deals_played'"),
    (lambda s: s.update(pairs=[{"contract": "1"}]), "pairs[0]"),
])
def test_a_summary_of_the_wrong_shape_is_unreadable_and_the_rest_works(served: Path, edit, words: str) -> None:  # type: ignore[no-untyped-def]
    (served / "good").mkdir()
    (served / "good" / "summary.json").write_text(json.dumps(_summary(served)))
    bad = _summary(served)
    edit(bad)
    (served / "t").mkdir()
    (served / "t" / "summary.json").write_text(json.dumps(bad))
    c = TestClient(create_app(served))
    assert words in _front_lists(c, "t/summary.json")
    r = c.get("/tournament?path=t")
    assert r.status_code == 422 and words in html.unescape(r.text)
    good = c.get("/tournament?path=good")
    assert good.status_code == 200 and "3.5" in good.text and "nan%" in good.text  # a null rate shows as nan


@pytest.mark.parametrize(("edit", "words"), [
    (lambda r: r["session"]["bots"].update({"1": "bogus"}), "unknown agent 'bogus'"),
    (lambda r: r["session"]["bots"].update({"1": "greedy:colour=red"}), "greedy takes no arguments"),
    (lambda r: r["session"]["bots"].update({"1": "search:simz=3"}), "unknown key 'simz'"),
    (lambda r: r["session"]["bots"].update({"1": "uninstalled_plugin:x=1"}), "unknown agent"),
    (lambda r: r["session"]["bots"].update({"1": "ppo:gone"}), "no 'gone'"),
    (lambda r: r["session"]["bots"].update({"1": 7}), "corrupt session"),
    (lambda r: r["session"].update(bots=["greedy"]), "corrupt session"),
    (lambda r: r["session"].update(human_seat="0"), "corrupt session"),
    (lambda r: r["session"].update(seed=None), "corrupt session"),
    (lambda r: r.update(session=[]), "not a browser game"),
])
def test_a_game_file_with_a_bad_bot_or_session_is_refused_on_its_routes_only(served: Path, edit, words: str) -> None:  # type: ignore[no-untyped-def]
    c = TestClient(create_app(served))
    good = _game(c)
    bad = _game(c)
    _edit_game(served, bad["id"], edit)
    c = TestClient(create_app(served))  # a restarted server: nothing cached
    for r in (c.get(f"/api/games/{bad['id']}"), c.get(f"/play/{bad['id']}"),
              c.post(f"/api/games/{bad['id']}/move", json={"version": bad["version"], "move": "draw stock"}),
              c.post(f"/api/games/{bad['id']}/open", json={"version": bad["version"], "groups": [["8S"]]})):
        assert r.status_code == 422 and words in html.unescape(r.text), (r.status_code, r.text[:300])
    front = c.get("/")
    assert front.status_code == 200
    if words != "not a browser game":  # a record without a session is a plain record, not a game
        assert f"web-games/{bad['id']}.json" in front.text.split('id="unreadable"', 1)[1]
    assert c.get(f"/api/games/{good['id']}").status_code == 200


def test_other_bad_files_a_fifo_a_huge_file_bad_utf8_and_a_bad_csv(served: Path) -> None:
    import os

    os.mkfifo(served / "pipe.json")
    (served / "huge.json").write_text('{"format": "carioca-game-record", "x": "' + "a" * (5 * 1024 * 1024) + '"}')
    (served / "latin.json").write_bytes(b'{"format": "\xe9"}')
    (served / "run").mkdir()
    (served / "run" / "experiment.json").write_text("{}")
    (served / "run" / "eval.csv").write_text("a,b\n" + '"' + "x" * 200_000 + '",1\n')
    (served / "m").mkdir()
    (served / "m" / "model.json").write_text("{not json")
    c = TestClient(create_app(served))
    assert "larger than" in _front_lists(c, "huge.json")
    assert "utf-8" in _front_lists(c, "latin.json")
    assert "Expecting" in _front_lists(c, "m/model.json")
    assert "not a regular file" in _front_lists(c, "pipe.json")  # listed, never opened (it would block)
    r = c.get("/run?path=run")
    assert r.status_code == 422 and "CSV" in r.text
    assert c.get("/run?path=m").status_code == 422
    assert c.get("/view?path=r.json").status_code == 200


# --------------------------------------------------------------------------- refuse before acting


@pytest.mark.parametrize("spec", ["ppo:contract1-p4", "search:rollout=ppo:contract1-p4,sims=1", "ppo:models/p4"])
def test_a_model_for_another_table_size_is_refused_before_the_game_exists(served: Path, spec: str,
                                                                         no_model_loads: list[str]) -> None:
    shutil.copytree(ROOT / "agents" / "models" / "contract1-p4", served / "models" / "p4")
    c = TestClient(create_app(served))
    r = c.post("/api/games", json={"bots": ["greedy", spec], "players": 3})
    assert r.status_code == 400 and "4 players" in r.json()["error"] and "3 players" in r.json()["error"], r.text
    assert _no_game_files(served)
    assert not any(x.startswith("load") for x in no_model_loads)  # the card was read, the model never loaded


def test_a_game_whose_bot_fails_at_the_start_leaves_no_file(served: Path) -> None:
    plugins = _plugins(("fails=py:plugin_agents:failing:contract=1",))
    c = TestClient(create_app(served, plugins))
    r = c.post("/api/games", json={"bots": ["fails"], "seat": 1, "deals": [1]})
    assert r.status_code == 502 and "bot (fails) failed" in r.json()["error"]
    assert _no_game_files(served)
    assert c.post("/api/games", json={"bots": ["greedy"], "deals": [1]}).status_code == 200


# --------------------------------------------------------------------------- found by probing the other routes


def test_a_name_too_long_for_the_file_system_is_a_404_on_every_route(served: Path) -> None:
    c = TestClient(create_app(served))
    long = "a" * 260  # under the 1,000-character limit of a request, over the file system's 255
    for url in (f"/view?path={long}", f"/api/replay?path={long}", f"/file?path={long}", f"/tournament?path={long}",
                f"/run?path={long}", f"/api/replay?path=r.json&model={long}"):
        r = c.get(url)
        assert r.status_code == 404 and "cannot be opened" in html.unescape(r.text), url
    r = c.post("/api/games", json={"bots": [f"ppo:path={long}"]})
    assert r.status_code == 404 and _no_game_files(served)


def test_only_a_zip_is_taken_for_a_model(served: Path, no_model_loads: list[str]) -> None:
    c = TestClient(create_app(served))
    game = _game(c)["id"]
    for model in ("r.json", f"web-games/{game}.json"):
        r = c.get(f"/api/replay?path=r.json&model={model}")
        assert r.status_code == 404 and "is not a model" in r.json()["error"], model
        assert c.post("/api/games", json={"bots": [f"ppo:{model}"]}).status_code == 404
    assert no_model_loads == []


def test_a_learning_curve_of_huge_numbers_leaves_them_out(served: Path) -> None:
    (served / "run").mkdir()
    (served / "run" / "eval.csv").write_text("steps,learner_mean\n" + "1e308,1e308\n" * 3 + "100,5\n200,4\n")
    r = TestClient(create_app(served)).get("/run?path=run")
    assert r.status_code == 200 and "<svg" in r.text and "1e308" in r.text  # the table shows it, the plot skips it


def test_a_model_card_nested_100000_deep_is_refused_with_its_reason(served: Path, tmp_path: Path) -> None:
    shutil.copytree(tmp_path / "outside-model", served / "m")
    (served / "m" / "model.json").write_text(DEEP)
    c = TestClient(create_app(served))
    r = c.post("/api/games", json={"bots": ["ppo:m"]})
    assert r.status_code == 400 and "nests too deeply" in r.json()["error"], r.text
    policy = c.get("/api/replay?path=r.json&model=m").json()["policy"]
    assert "nests too deeply" in policy["error"]
    assert "deep" in _front_lists(c, "m/model.json") and _no_game_files(served)


# --------------------------------------------------------------------------- a plugin that fails


@pytest.mark.parametrize("bot_first", [True, False])
def test_a_plugin_that_raises_in_act_is_a_502_naming_it_and_breaks_no_page(served: Path, bot_first: bool) -> None:
    """The operator's plugin raises inside ``act()``: the request answers 502 with the seat and
    the bot, no half-made game is left (at creation) or the person's move is kept (later), and
    every other page keeps working."""
    from carioca_env import Game, GameConfig

    first = Game(GameConfig(num_players=2, deals=(1,)), 5).current_player
    seat = 1 - first if bot_first else first
    c = TestClient(create_app(served, _plugins(("boom=py:plugin_agents:failing:contract=1",))))
    r = c.post("/api/games", json={"bots": ["boom"], "seat": seat, "deals": [1], "seed": 5})
    if bot_first:
        assert r.status_code == 502, r.text
        assert f"seat {first}'s bot (boom) failed" in r.json()["error"] and "boom in contract 1" in r.json()["error"]
        assert _no_game_files(served)
    else:
        assert r.status_code == 200, r.text
        gid = r.json()["id"]
        r = c.post(f"/api/games/{gid}/move", json={"version": 0, "move": "draw stock"})
        assert r.status_code == 200, r.text  # drawing leaves the person to act: no bot ran yet
        discard = next(m["text"] for m in r.json()["legal"] if m["kind"] == "discard")
        r = c.post(f"/api/games/{gid}/move", json={"version": r.json()["version"], "move": discard})
        assert r.status_code == 502 and f"seat {1 - seat}'s bot (boom) failed at move 2" in r.json()["error"]
        saved = json.loads((served / "web-games" / f"{gid}.json").read_text())
        assert saved["moves"][-1] == discard and len(saved["moves"]) == 2  # the person's moves are kept
        assert c.get(f"/api/games/{gid}").status_code == 502  # the bot tries again, and fails again
    assert c.get("/").status_code == 200
    assert c.get("/view", params={"path": "r.json"}).status_code == 200
