"""Files written before the packages were renamed still load, play and resume.

Every kind of file the project writes or ships was written by commit ``dbb015d`` (the
last that installed ``agents`` and ``experiments`` as top-level names) and is kept under
``tests/data/legacy/`` (its ``README.md`` says how each was made): shipped models, whose
zips name their policy class ``agents.ppo_policy...``; model cards; luck value and belief
files; game records; a tournament results folder; a training run folder.  Today's code
must read each, make the same choices and reach the same values, and resume the folders.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.belief import make_belief
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.model_file import legacy_objects, renamed_module
from carioca_agents.ppo_agent import shipped_models
from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_env.moves import MoveKind
from carioca_env.records import read_record
from carioca_experiments import cli
from carioca_experiments.evaluation.luck.value import load_value, shipped_version

LEGACY = Path(__file__).resolve().parent / "data" / "legacy"
CHOICES = json.loads((LEGACY / "choices.json").read_text())
VALUES = json.loads((LEGACY / "values.json").read_text())


def _replay(players: int, contract: int, seed: int, moves: int) -> Game:
    """The position of ``make_fixtures.replay``: heuristic moves into a seeded deal."""
    game = Game(GameConfig(players, (contract,)), seed=seed)
    bots = [HeuristicAgent((seed - 1000) * 10 + s) for s in range(players)]
    for _ in range(moves):
        s = game.current
        game.apply(bots[s].act(game.view(s), game.legal_moves()))
    return game


def test_the_fixture_covers_every_shipped_model() -> None:
    assert sorted({c["model"] for c in CHOICES}) == shipped_models() and len(shipped_models()) == 16


@pytest.mark.parametrize("model", sorted({c["model"] for c in CHOICES}))
def test_a_shipped_model_makes_the_same_choices_as_before(model: str) -> None:
    """The zips name ``agents.ppo_policy``: loaded under today's names, each model plays
    the move it played before at each fixed position."""
    agent = make_agent(f"ppo:{model}", seed=0)
    assert type(agent.model.policy).__module__.startswith("carioca_agents.")
    for c in (c for c in CHOICES if c["model"] == model):
        game = _replay(c["players"], c["contract"], c["seed"], c["moves"])
        agent.reset(0)
        assert str(agent.act(game.view(game.current), game.legal_moves())) == c["move"], c


def test_the_old_module_names_are_read_as_todays_and_nothing_else() -> None:
    assert renamed_module("agents.ppo_policy") == "carioca_agents.ppo_policy"
    assert renamed_module("experiments.training.train") == "carioca_experiments.training.train"
    for other in ("agentsx.y", "my_agents.ppo", "carioca_agents.ppo_policy", "numpy"):
        assert renamed_module(other) == other
    # a shipped zip needs the renaming; one the fixture's run wrote too
    objects = legacy_objects(LEGACY / "train" / "model.zip")
    assert objects["policy_class"].__module__ == "carioca_agents.ppo_policy"
    assert legacy_objects(LEGACY / "README.md") == {}  # not a zip: the load reports it as before


def _after_draws(players: int, contract: int, count: int) -> list[Game]:
    """The states right after the first stock draws of ``make_fixtures``' deal."""
    game = Game(GameConfig(players, (contract,)), seed=77)
    bots = [HeuristicAgent(s) for s in range(players)]
    out = []
    while not game.game_over and len(out) < count:
        legal = game.legal_moves()
        s = game.current
        move = next((m for m in legal if m.kind is MoveKind.DRAW_STOCK), None) or bots[s].act(game.view(s), legal)
        game.apply(move)
        if move.kind is MoveKind.DRAW_STOCK:
            out.append(game.clone())
    return out


@pytest.mark.parametrize("entry", VALUES["luck"], ids=lambda e: f"v{e['version']}")
def test_a_shipped_luck_value_file_has_the_same_fingerprint_and_values(entry: dict) -> None:
    value = shipped_version(entry["version"])
    assert value.fingerprint == entry["fingerprint"]
    assert load_value(Path(__file__).resolve().parents[1] / "experiments" / "evaluation" / "luck"
                      / f"value-v{entry['version']}.json").fingerprint == entry["fingerprint"]
    rows = iter(entry["rows"])
    for players, contract in ((2, 1), (2, 4), (4, 2), (4, 7)):
        for game in _after_draws(players, contract, 3):
            row = next(rows)
            assert (row["players"], row["contract"]) == (players, contract)
            assert [float(x) for x in value.evaluate(game)] == row["value"]


@pytest.mark.parametrize("entry", VALUES["belief"], ids=lambda e: e["name"])
def test_a_shipped_belief_file_gives_the_same_expectations(entry: dict) -> None:
    belief = make_belief(entry["name"])
    for row, (players, contract) in zip(entry["rows"], ((2, 3), (3, 5)), strict=True):
        game = _replay(players, contract, 1000, 20)
        got = np.round(belief.expected_hidden(game.view(game.current)), 12)
        assert got.tolist() == row["expected"]


def test_old_game_records_load_and_replay() -> None:
    for path in sorted((LEGACY / "tournament" / "records").glob("*.json")):
        game = Game.from_record(read_record(path))
        assert game.game_over and len(game.history) > 0
        assert cli.main(["replay", "--quiet", str(path)]) == 0


TOURNAMENT = ["tournament", "--agents", "heuristic", "greedy", "--players", "2", "--contracts", "1", "--decks", "3",
              "--luck-correction", "--records", "2", "--workers", "1", "--no-progress", "--seed", "4101"]


def _deals(path: Path) -> list[dict]:
    return sorted((json.loads(line) for line in path.read_text().splitlines()[1:]), key=lambda d: d["index"])


def test_an_old_tournament_folder_is_summarized_and_resumed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The folder's config (agents, luck value v7's fingerprint) is today's: a folder cut
    after half its deals resumes to the same deals the old code played."""
    done = LEGACY / "tournament" / "results.jsonl"
    out = tmp_path / "resumed"
    out.mkdir()
    lines = done.read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:4]) + "\n")  # the header and 3 of 6 deals
    assert cli.main([*TOURNAMENT, "--out", str(out)]) == 0
    assert "resum" in capsys.readouterr().out.lower()
    assert _deals(out / "results.jsonl") == _deals(done)
    assert json.loads((out / "results.jsonl").read_text().splitlines()[0])["created"] == json.loads(lines[0])["created"]
    whole = tmp_path / "whole"
    shutil.copytree(LEGACY / "tournament", whole)
    assert cli.main([*TOURNAMENT, "--out", str(whole)]) == 0  # nothing left to play: summarized
    assert _deals(whole / "results.jsonl") == _deals(done)
    assert (whole / "summary.json").is_file()


TRAIN = ["train", "--contract", "1", "--n-envs", "1", "--set", "net_arch=8,8", "--set", "rollout_steps=64", "--set",
         "batch_size=32", "--checkpoint-every", "128", "--no-tensorboard", "--no-progress", "--eval-every", "0",
         "--seed", "3"]


def test_an_old_training_run_resumes_and_its_model_plays(tmp_path: Path) -> None:
    """The run's checkpoints name ``agents.ppo_policy``: today's code continues from the
    last one, and the old final model plays as an agent with its card."""
    out = tmp_path / "train"
    shutil.copytree(LEGACY / "train", out)
    assert cli.main([*TRAIN, "--steps", "320", "--out", str(out)]) == 0
    card = json.loads((out / "model.json").read_text())
    assert card["resumed_from"] == 256 and card["steps"] == 320
    old = make_agent(f"ppo:{LEGACY / 'train'}", seed=1)
    game = Game(GameConfig(2, (1,)), seed=5)
    for _ in range(12):
        s = game.current
        legal = game.legal_moves()
        move = old.act(game.view(s), legal) if s == 0 else HeuristicAgent(s).act(game.view(s), legal)
        assert move in legal
        game.apply(move)
