"""The tournament harness: lineups, duplicate fairness, determinism, resuming, refusals, stats, CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from carioca_experiments import cli
from carioca_experiments.common.seeds import TOURNAMENT, derive_seed
from carioca_experiments.evaluation.tournament import (
    FORMAT_VERSION,
    RESULTS_FILE,
    TournamentConfig,
    TournamentError,
    deal_deck,
    lineups,
    make_tasks,
    read_results,
    run_tournament,
    setup_deal,
    summarize,
)

REPO = Path(__file__).resolve().parents[1]

#: A tiny tournament: two copies of the random agent, contracts 1 and 2 (8 deals).
TINY = TournamentConfig(agents=("a=random", "b=random"), players=2, contracts=(1, 2), decks=2, seed=3, max_turns=150)


def _play(config: TournamentConfig, out: Path, workers: int = 1, **kw) -> object:
    kw.setdefault("write_summary", False)  # summary files and plots: see the CLI test
    return run_tournament(config, out, workers=workers, progress=False, log=lambda m: None, **kw)


def _result_lines(out: Path) -> list[str]:
    """The result lines of a folder (the header, which holds a creation time, left out)."""
    return (out / RESULTS_FILE).read_text(encoding="utf-8").splitlines()[1:]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# ------------------------------------------------------------------ lineups and seeds


def test_lineups_for_equal_fewer_and_more_agents_than_seats() -> None:
    assert lineups(3, 3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert lineups(3, 4) == [(0, 1, 2, 0), (1, 2, 0, 0), (2, 0, 0, 1), (0, 0, 1, 2)]
    assert lineups(2, 4) == [(0, 1, 0, 1), (1, 0, 1, 0)]  # identical rotations played once
    assert lineups(1, 3) == [(0, 0, 0)]
    more = lineups(3, 2)
    assert more == [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
    assert len(lineups(5, 4)) == 5 * 4


@pytest.mark.parametrize("agents, players", [(3, 3), (3, 4), (2, 4), (4, 2), (4, 3), (1, 2)])
def test_every_agent_plays_every_seat_equally_often(agents: int, players: int) -> None:
    sets = lineups(agents, players)
    for a in range(agents):
        per_seat = [sum(1 for lu in sets if lu[s] == a) for s in range(players)]
        assert min(per_seat) >= 1 and len(set(per_seat)) == 1, (a, per_seat)


def test_a_pairing_plays_the_same_deals_whatever_the_other_agents(tmp_path: Path) -> None:
    # a random agent plays nothing but its seed: with a seed by lineup number the a-b
    # deals of the three-agent tournament (lineups 2 and 3 there, 0 and 1 here) differed
    two = TournamentConfig(agents=("a=random", "b=greedy"), contracts=(1, 3), decks=3, seed=5, max_turns=150)
    three = TournamentConfig(agents=("a=random", "x=random", "b=greedy"), contracts=(1, 3), decks=3, seed=5,
                             max_turns=150)
    s2 = _play(two, tmp_path / "two")
    s3 = _play(three, tmp_path / "three")

    def deals(out: Path) -> dict[tuple, dict]:
        keep = {}
        for line in _result_lines(out):
            r = json.loads(line)
            if set(r["seats"]) == {"a", "b"}:
                keep[(r["contract"], r["deck"], tuple(r["seats"]))] = {
                    k: r[k] for k in ("penalty", "turns", "closer", "open_turn", "hands", "dealer")}
        return keep

    ab = deals(tmp_path / "two")
    assert len(ab) == 2 * 3 * 2 and deals(tmp_path / "three") == ab
    assert len({json.dumps(v["penalty"]) + str(v["turns"]) for v in ab.values()}) > 1  # real games

    # so the head-to-head difference of the larger tournament is the small one's match
    for g in ("1", "3", "all"):
        (p2,) = [p for p in s2.pairs if p.contract == g]
        (p3,) = [p for p in s3.pairs if p.contract == g and (p.agent_x, p.agent_y) == ("a", "b")]
        assert (p3.h2h_decks, p2.h2h_decks, p2.decks) == (6 if g == "all" else 3,) * 3
        assert p3.h2h_diff == pytest.approx(p2.mean_diff) and p2.h2h_diff == pytest.approx(p2.mean_diff)
        assert (p3.h2h_low, p3.h2h_high) == pytest.approx((p2.ci_low, p2.ci_high))
    # ... while the all-deals difference also counts each agent's deals against x
    diffs = [(p.mean_diff, p.h2h_diff) for p in s3.pairs if (p.agent_x, p.agent_y) == ("a", "b")]
    assert any(abs(m - h) > 1e-9 for m, h in diffs)


def test_two_copies_of_one_agent_play_identical_deals_in_each_seat(tmp_path: Path) -> None:
    # seeds go with the seat: an A/A comparison has no noise of its own, only the agents'
    summary = _play(TINY, tmp_path)
    lines = [json.loads(x) for x in _result_lines(tmp_path)]
    for r0, r1 in zip(lines[::2], lines[1::2]):  # a deck's two lineups: a b, then b a
        assert r0["seats"] == ["a", "b"] and r1["seats"] == ["b", "a"]
        assert r0["penalty"] == r1["penalty"] and r0["turns"] == r1["turns"]
    assert all(p.mean_diff == 0 and p.ci_half == 0 for p in summary.pairs)


def test_derived_seeds_are_deterministic_and_distinct() -> None:
    assert derive_seed(TOURNAMENT, 0, "deck", 1, 0) == derive_seed(TOURNAMENT, 0, "deck", 1, 0)
    seeds = {derive_seed(TOURNAMENT, s, p, c, d) for s in (0, 1) for p in ("deck", "game") for c in (1, 2) for d in range(5)}
    assert len(seeds) == 2 * 2 * 2 * 5
    assert all(0 <= x < 2**63 for x in seeds)


def test_tasks_cover_contracts_decks_and_lineups_in_order() -> None:
    cfg = TournamentConfig(agents=("x=random", "y=random", "z=random"), players=2, contracts=(3, 1), decks=2)
    tasks = make_tasks(cfg)
    assert len(tasks) == 2 * 2 * 6
    assert [t.index for t in tasks] == list(range(len(tasks)))
    assert tasks[0].id == "c3-d0-l0" and tasks[-1].id == "c1-d1-l5"
    rnd = make_tasks(TournamentConfig(agents=cfg.agents, players=2, contracts=(3, 1), decks=5, format="random"))
    assert len(rnd) == 2 * 5 and len({t.lineup for t in rnd}) > 1


# ------------------------------------------------------------------ duplicate fairness


@pytest.mark.parametrize(
    "agents, players",
    [(("a=random", "b=random", "c=random"), 3), (("a=random", "b=random", "c=random"), 2), (("a=random", "b=random"), 3)],
)
def test_duplicate_rotations_change_agents_not_cards(agents: tuple[str, ...], players: int) -> None:
    cfg = TournamentConfig(agents=agents, players=players, contracts=(2, 7), decks=2, seed=11)
    tasks = make_tasks(cfg)
    hands_by_seat_of_agent: dict[tuple[int, int, str], set[tuple[int, ...]]] = {}
    for contract in cfg.contracts:
        for deck in range(cfg.decks):
            mine = [t for t in tasks if (t.contract, t.deck) == (contract, deck)]
            assert len(mine) == len(lineups(len(agents), players))
            games = [setup_deal(cfg, t)[0] for t in mine]
            # the same dealer and, seat by seat, the same hand, upcard and stock in every lineup
            assert len({g.dealer for g in games}) == 1
            for seat in range(players):
                assert len({tuple(g.hand(seat)) for g in games}) == 1
            assert len({(g.top_discard, tuple(g.stock)) for g in games}) == 1
            # each agent receives every seat's hand across the lineups of the deck
            for t, g in zip(mine, games):
                for seat, a in enumerate(t.seating):
                    key = (contract, deck, cfg.labels[a])
                    hands_by_seat_of_agent.setdefault(key, set()).add(tuple(g.hand(seat)))
            for label in cfg.labels:
                got = hands_by_seat_of_agent[(contract, deck, label)]
                assert got == {tuple(games[0].hand(s)) for s in range(players)}
    # different decks are different deals
    assert deal_deck(cfg, 2, 0)[0] != deal_deck(cfg, 2, 1)[0]


def test_results_record_the_same_hands_for_every_lineup_of_a_deck(tmp_path: Path) -> None:
    _play(TINY, tmp_path)
    recs = [json.loads(line) for line in _result_lines(tmp_path)]
    by_deck: dict[tuple[int, int], list[dict]] = {}
    for r in recs:
        by_deck.setdefault((r["contract"], r["deck"]), []).append(r)
    for group in by_deck.values():
        assert len(group) == 2
        assert group[0]["hands"] == group[1]["hands"] and group[0]["dealer"] == group[1]["dealer"]
        assert group[0]["seats"] == list(reversed(group[1]["seats"]))


# ------------------------------------------------------------------ results and determinism


def test_result_lines_are_consistent(tmp_path: Path) -> None:
    summary = _play(TINY, tmp_path)
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "carioca-tournament-results" and header["version"] == FORMAT_VERSION == 2
    assert header["config"] == TINY.to_dict() and header["tasks"] == 8
    recs = [json.loads(line) for line in lines[1:]]
    assert [r["index"] for r in recs] == list(range(8))
    for r in recs:
        assert r["opened"] == [t is not None for t in r["open_turn"]]
        assert r["truncated"] == (r["closer"] is None)
        if r["closer"] is not None:
            assert r["penalty"][r["closer"]] == 0 and r["opened"][r["closer"]]
        assert all(p >= 0 for p in r["penalty"]) and r["turns"] <= TINY.max_turns
    assert summary.deals_played == 8 and summary.complete
    assert summary.truncated == sum(r["truncated"] for r in recs)


def test_truncated_deals_are_scored_by_cards_in_hand_and_counted(tmp_path: Path) -> None:
    cfg = TournamentConfig(agents=("a=random", "b=random"), players=2, contracts=(5,), decks=2, max_turns=4)
    summary = _play(cfg, tmp_path)
    recs = [json.loads(line) for line in _result_lines(tmp_path)]
    assert all(r["truncated"] and r["closer"] is None and r["turns"] == 4 for r in recs)
    assert all(sum(r["penalty"]) > 0 for r in recs)
    assert summary.truncated == len(recs) == 4
    assert summary.agent("a", 5).truncated == 4
    assert "Truncated deals: 4 (100.0%)" in summary.to_text()


def test_results_identical_for_one_and_two_workers(tmp_path: Path) -> None:
    cfg = TournamentConfig(agents=("a=random", "b=random", "c=random"), players=2, contracts=(1, 2), decks=2,
                           seed=5, max_turns=150)
    s1 = _play(cfg, tmp_path / "w1", workers=1)
    s2 = _play(cfg, tmp_path / "w2", workers=2)
    assert _result_lines(tmp_path / "w1") == _result_lines(tmp_path / "w2")
    assert s1.to_dict() == s2.to_dict()


def test_rerunning_a_finished_tournament_plays_nothing(tmp_path: Path) -> None:
    first = _play(TINY, tmp_path)
    before = (tmp_path / RESULTS_FILE).read_bytes()
    again = _play(TINY, tmp_path)
    assert (tmp_path / RESULTS_FILE).read_bytes() == before
    assert again.to_dict() == first.to_dict()


# ------------------------------------------------------------------ resuming


def test_resume_after_a_cut_off_file_gives_the_same_results(tmp_path: Path) -> None:
    full = _play(TINY, tmp_path / "full")
    lines = (tmp_path / "full" / RESULTS_FILE).read_text().splitlines(keepends=True)
    cut = tmp_path / "cut"
    cut.mkdir()
    # the header, three deals, and half of the fourth line without its newline (a kill mid-write)
    (cut / RESULTS_FILE).write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
    notes: list[str] = []
    resumed = run_tournament(TINY, cut, workers=1, progress=False, log=notes.append, write_summary=False)
    assert any("incomplete last line" in n for n in notes)
    assert any("3 of 8 deals already played" in n for n in notes)
    assert _result_lines(cut) == _result_lines(tmp_path / "full")
    assert resumed.to_dict() == full.to_dict()


def test_resume_after_sigkill_gives_the_same_summary(tmp_path: Path) -> None:
    # Big enough that the kill lands mid-way (random play of contracts 3-4 runs long).
    args = ["--agents", "a=random", "b=random", "--players", "2", "--contracts", "3", "4",
            "--deals", "4", "--max-turns", "1200", "--seed", "1"]
    cfg = TournamentConfig(agents=("a=random", "b=random"), players=2, contracts=(3, 4), decks=4, seed=1, max_turns=1200)
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "carioca_experiments.cli", "tournament", *args, "--out", str(killed), "--workers", "1",
         "--no-progress"],
        cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    results = killed / RESULTS_FILE
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if results.exists() and results.read_text().count("\n") >= 4:  # header + 3 deals
                break
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    played = results.read_text().count("\n") - 1
    assert 3 <= played < len(make_tasks(cfg)), "the kill should land mid-tournament"
    resumed = _play(cfg, killed, workers=2)
    full = _play(cfg, tmp_path / "full", workers=1)
    assert resumed.to_dict() == full.to_dict()
    assert _result_lines(killed) == _result_lines(tmp_path / "full")


def test_an_interrupted_header_is_written_again(tmp_path: Path) -> None:
    (tmp_path / RESULTS_FILE).write_text('{"format": "carioca-tourn')
    summary = _play(TINY, tmp_path)
    assert summary.complete and len(_result_lines(tmp_path)) == 8


# ------------------------------------------------------------------ refusals


def test_a_different_config_is_refused_with_the_differences(tmp_path: Path) -> None:
    _play(TINY, tmp_path)
    other = TournamentConfig(agents=TINY.agents, players=2, contracts=(1, 2), decks=2, seed=4, max_turns=150)
    with pytest.raises(TournamentError, match=r"seed: the file has 3, this command has 4") as err:
        _play(other, tmp_path)
    assert "--out" in str(err.value) and "--overwrite" in str(err.value)
    # --overwrite starts afresh
    fresh = _play(other, tmp_path, overwrite=True)
    assert fresh.config == other and fresh.complete


def test_corrupt_and_foreign_files_are_refused(tmp_path: Path) -> None:
    _play(TINY, tmp_path / "ok")
    lines = (tmp_path / "ok" / RESULTS_FILE).read_text().splitlines(keepends=True)

    bad_json = tmp_path / "bad-json"
    bad_json.mkdir()
    (bad_json / RESULTS_FILE).write_text(lines[0] + lines[1] + "{not json\n" + "".join(lines[2:]))
    with pytest.raises(TournamentError, match=r"line 3 is not valid JSON.*corrupt(.|\n)*another --out"):
        _play(TINY, bad_json)

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / RESULTS_FILE).write_text('{"format": "carioca-game-record", "version": 1}\n')
    with pytest.raises(TournamentError, match=r"not a 'carioca-tournament-results' header"):
        _play(TINY, foreign)

    text = tmp_path / "text"
    text.mkdir()
    (text / RESULTS_FILE).write_text("hello world")  # no newline, not our header: never overwritten
    with pytest.raises(TournamentError):
        _play(TINY, text)
    assert (text / RESULTS_FILE).read_text() == "hello world"

    version = tmp_path / "version"
    version.mkdir()
    header = json.loads(lines[0])
    header["version"] = 99
    (version / RESULTS_FILE).write_text(json.dumps(header) + "\n")
    with pytest.raises(TournamentError, match="version 99"):
        _play(TINY, version)

    # a version-1 file (agents seeded by lineup number) is summarized but never continued
    old = tmp_path / "version1"
    old.mkdir()
    header["version"] = 1
    (old / RESULTS_FILE).write_text(json.dumps(header) + "\n" + lines[1])
    assert len(read_results(old / RESULTS_FILE).records) == 1
    before = (old / RESULTS_FILE).read_bytes()
    with pytest.raises(TournamentError, match=r"version 1, whose agents were seeded by lineup(.|\n)*--report"):
        _play(TINY, old)
    assert (old / RESULTS_FILE).read_bytes() == before

    wrong_task = tmp_path / "wrong-task"
    wrong_task.mkdir()
    rec = json.loads(lines[1])
    rec["task"] = "c6-d0-l0"
    (wrong_task / RESULTS_FILE).write_text(lines[0] + json.dumps(rec) + "\n")
    with pytest.raises(TournamentError, match="not a task of the tournament"):
        read_results(wrong_task / RESULTS_FILE)


def test_bad_configs_and_agents_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="distinct"):
        TournamentConfig(agents=("random", "random"))
    with pytest.raises(TournamentError, match="players"):
        TournamentConfig(agents=("random",), players=5)
    with pytest.raises(TournamentError, match="contracts"):
        TournamentConfig(agents=("random",), contracts=(8,))
    with pytest.raises(TournamentError, match="no-such-agent"):
        _play(TournamentConfig(agents=("no-such-agent",), decks=1), tmp_path)


class _FailsOnContract2:
    """An agent that plays randomly but raises on contract 2."""

    def __init__(self, seed: int) -> None:
        from carioca_agents.random_agent import RandomAgent

        self.inner = RandomAgent(seed)

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def act(self, view, legal):  # type: ignore[no-untyped-def]
        if view.deal == 2:
            raise RuntimeError("boom")
        return self.inner.act(view, legal)


def test_a_failing_agent_stops_the_tournament_and_keeps_the_results(tmp_path: Path) -> None:
    from carioca_agents.registry import register

    register("test-fails-on-2", lambda arg, seed: _FailsOnContract2(seed))
    cfg = TournamentConfig(agents=("a=random", "b=test-fails-on-2"), players=2, contracts=(1, 2), decks=2,
                           max_turns=150)
    with pytest.raises(TournamentError, match=r"(?s)task c2-d0-l0.*agent 'b'.*RuntimeError: boom.*4 deals played so far"):
        _play(cfg, tmp_path)
    assert [json.loads(line)["contract"] for line in _result_lines(tmp_path)] == [1, 1, 1, 1]


# ------------------------------------------------------------------ summary


def test_summary_definitions_on_the_results(tmp_path: Path) -> None:
    summary = _play(TINY, tmp_path)
    recs = [json.loads(line) for line in _result_lines(tmp_path)]
    for label in ("a", "b"):
        pens = [r["penalty"][s] for r in recs for s, a in enumerate(r["seats"]) if a == label]
        row = summary.agent(label)
        # duplicate format: every deck weighs the same, so the mean over decks is the mean per deal
        assert row.mean_penalty == pytest.approx(sum(pens) / len(pens))
        assert row.deals == 8 and row.decks == 4
        assert row.win_rate + summary.agent("b" if label == "a" else "a").win_rate == pytest.approx(1.0)
    pair = next(p for p in summary.pairs if p.contract == "all")
    assert pair.mean_diff == pytest.approx(summary.mean_penalty("a") - summary.mean_penalty("b"))
    assert pair.decks == 4
    assert {r.agent for r in summary.ratings} == {"a", "b"} and all(r.matches == 8 for r in summary.ratings)
    assert summarize(tmp_path).to_dict() == summary.to_dict()


# ------------------------------------------------------------------ CLI


def test_cli_help_works() -> None:
    out = subprocess.run([sys.executable, "-m", "carioca_experiments.cli", "tournament", "--help"], cwd=REPO, env=_env(),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for option in ("--agents", "--players", "--contracts", "--deals", "--workers", "--max-turns", "--out",
                   "--format", "--preset", "--quick"):
        assert option in out.stdout


def test_cli_tiny_tournament_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = cli.main(["tournament", "--agents", "a=random", "b=random", "--contracts", "1", "2", "--deals", "2",
                     "--max-turns", "150", "--workers", "1", "--no-progress", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Mean penalty per deal" in printed and "Paired differences" in printed and "Truncated deals" in printed
    for name in ("results.jsonl", "summary.csv", "summary.md", "pairs.csv", "summary.json", "penalty.png", "paired.png"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "penalty.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "summary.csv").read_text().splitlines()[0].startswith("contract,agent,deals")
    # a different config on the same folder: a clear error and exit code 2
    code = cli.main(["tournament", "--agents", "a=random", "b=random", "--contracts", "1", "--deals", "2",
                     "--workers", "1", "--no-progress", "--out", str(out)])
    assert code == 2
    assert "contracts: the file has [1, 2], this command has [1]" in capsys.readouterr().err
    # --report summarizes without playing
    assert cli.main(["tournament", "--report", str(out)]) == 0
    assert "Deals played: 8 of 8" in capsys.readouterr().out


def test_presets_and_default_out_dir() -> None:
    parser, _ = cli.build_parser()
    args = parser.parse_args(["tournament", "--quick", "--agents", "random", "--deals", "3"])
    from carioca_experiments.evaluation.tournament import config_from_args

    cfg = config_from_args(args, log=lambda m: None)
    assert cfg.contracts == (1, 2) and cfg.decks == 3 and cfg.players == 2 and cfg.agents == ("random",)
    demo = config_from_args(parser.parse_args(["tournament"]), log=lambda m: None)
    assert demo.contracts == (1, 2, 3, 4, 5, 6, 7) and "random" in demo.agents
    assert cfg.default_out_dir() == cfg.default_out_dir()
    assert cfg.default_out_dir() != TINY.default_out_dir()
    assert str(cfg.default_out_dir()).startswith("results/tournament-random-p2-")
