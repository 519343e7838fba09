"""``carioca_experiments.studies.departures``: search's decisions replayed from a tournament,
its predicted gains against the gains realized from the true game."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament
from carioca_experiments.studies.departures import DepartureError, DeparturesConfig, main, replay_deal, run


def _tournament(out: Path, agents: tuple[str, ...], seed: int = 5, decks: int = 2) -> Path:
    tc = TournamentConfig(agents=agents, players=2, contracts=(4,), decks=decks, seed=seed)
    run_tournament(tc, out, workers=1, progress=False, log=lambda m: None)
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # z=0: search leaves the heuristic's move whenever an alternative leads it on its rollouts
    return _tournament(tmp_path_factory.mktemp("dep") / "t", ("s=search:sims=8,z=0", "heuristic"))


def _rows(folder: Path, tmp_path: Path, name: str, agent: str = "s") -> list[dict]:
    out = tmp_path / f"{name}.jsonl"
    run(DeparturesConfig((folder,), agent, rollouts=2, out=out))
    return [json.loads(x) for x in out.read_text().splitlines()]


def test_each_decision_is_recorded_as_search_chose_it(played: Path, tmp_path: Path) -> None:
    rows = _rows(played, tmp_path, "a")
    assert rows, "search searched no decision"
    assert {r["task"] for r in rows} <= {f"c4-d{d}-l{x}" for d in range(2) for x in range(2)}
    assert {r["seed"] for r in rows} == {5}  # a task id repeats across tournaments; the seed tells them apart
    departures = 0
    for r in rows:
        assert len(r["candidates"]) >= 2 and len(r["predicted"]) == len(r["realized"]) == len(r["candidates"])
        assert r["predicted"][0] == 0.0 and r["realized"][0] == 0.0  # candidate 0 is the reference
        leads = [p for p in r["predicted"][1:] if not math.isnan(p)]
        if r["played"] == 0:
            assert all(p <= 0 for p in leads)  # z=0: no alternative led
        else:
            departures += 1
            assert r["predicted"][r["played"]] == max(leads) > 0  # the best leading alternative
    assert departures, "z=0 made no departure on these decks: the test needs another seed"


def test_the_same_folders_give_the_same_rows(played: Path, tmp_path: Path) -> None:
    assert _rows(played, tmp_path, "a") == _rows(played, tmp_path, "b")


def test_the_summary_counts_the_departures(played: Path, tmp_path: Path) -> None:
    s = run(DeparturesConfig((played,), "s", rollouts=1, out=tmp_path / "rows.jsonl"))
    rows = [json.loads(x) for x in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert s["decisions"] == len(rows)
    assert s["departures"] == s["predicted"].n == s["realized"].n == sum(r["played"] != 0 for r in rows)
    assert s["best_predicted"].n == len(rows)


def test_a_cheat_is_replayed_too(tmp_path: Path) -> None:
    folder = _tournament(tmp_path / "c", ("c=cheat-search:sims=4", "heuristic"), decks=1)
    assert _rows(folder, tmp_path, "c", agent="c")


def test_a_result_line_the_replay_does_not_reach_is_refused(played: Path, tmp_path: Path) -> None:
    lines = (played / "results.jsonl").read_text().splitlines()
    header, first = json.loads(lines[0]), json.loads(lines[1])
    tc = TournamentConfig.from_dict(header["config"])
    with pytest.raises(DepartureError, match=first["task"]):
        replay_deal(tc, {**first, "penalty": [p + 1 for p in first["penalty"]]}, "s", 1)
    with pytest.raises(DepartureError, match="other hands"):
        replay_deal(tc, {**first, "dealer": 1 - first["dealer"]}, "s", 1)


@pytest.mark.parametrize("agent, message", [("x", "no agent labelled 'x'"), ("heuristic", "not a search agent")])
def test_bad_input_is_refused_before_anything_is_played(played: Path, tmp_path: Path, agent: str,
                                                       message: str) -> None:
    out = tmp_path / "rows.jsonl"
    with pytest.raises(DepartureError, match=message):
        run(DeparturesConfig((played,), agent, out=out))
    assert not out.exists()
    with pytest.raises(DepartureError, match="no results.jsonl"):
        run(DeparturesConfig((tmp_path / "nothing",), "s"))
    with pytest.raises(DepartureError, match="at least 1"):
        run(DeparturesConfig((played,), "s", rollouts=0))
    out.write_text("kept\n")
    with pytest.raises(DepartureError, match="exists"):
        run(DeparturesConfig((played,), "s", out=out))
    assert out.read_text() == "kept\n"


def test_the_command_line_exits_2_with_one_line(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--agent", "nobody", str(played)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_the_command_line_prints_the_summary(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--agent", "s", "--rollouts", "1", str(played)]) == 0
    out = capsys.readouterr().out
    assert "decisions searched:" in out and "departures, realized gain:" in out
