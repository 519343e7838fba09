"""MaskablePPO training, the ppo agent, resuming, the experiment report and the results notebook.

The slow test (a real learning run, ~30 s on an idle 2-core machine) trains contract 1
against random for 32k steps with a fixed seed and checks, on a fixed duplicate sample
(40 decks, both seatings), that the learner scores significantly less than random.  At
this budget every seed tried passed (0, 1, 2, 3, 6, 7; seed 1, used here, by the widest
margin: 2.6 against 45.8, paired CI upper end -33.8); at 24k steps one seed in six did not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.ppo_agent import (
    ModelLoadError,
    ModelMismatchError,
    PPOAgent,
    load_model,
    masked_action,
    model_card,
    play_view,
)
from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_env.actions import action_table
from carioca_env.observation import encode_observation
from carioca_experiments.training.train import (
    TrainConfig,
    TrainError,
    latest_checkpoint,
    make_env,
    make_model,
    read_eval_csv,
    save_model,
    train,
)

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "agents" / "models" / "contract1"
FIXTURE = ROOT / "tests" / "data" / "rl_results"

#: Small, fast-learning settings for tests (many small updates).
FAST = {"rollout_steps": 1024, "batch_size": 256, "n_epochs": 4, "learning_rate": 1e-3, "net_arch": [64]}
#: Tiny settings for plumbing tests (no learning expected).
TINY = {"rollout_steps": 256, "batch_size": 128, "n_epochs": 1, "net_arch": [16]}


def _tiny_config(**kw) -> TrainConfig:
    base = dict(contract=1, steps=512, n_envs=2, vec="dummy", settings=TINY, eval_every=0, eval_decks=1,
                eval_opponents=("random",), checkpoint_every=256, tensorboard=False)
    base.update(kw)
    return TrainConfig(**base)


def _untrained_model(tmp_path: Path, players: int = 2, contract: int = 1) -> Path:
    """A freshly initialised model saved with its card (no training)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    cfg = _tiny_config(players=players, contract=contract)
    venv = DummyVecEnv([lambda: make_env(cfg)])
    model = make_model(venv, cfg)
    path = tmp_path / f"p{players}" / "model.zip"
    save_model(model, path, model_card(players, contract=contract, steps=0), slim=True)
    venv.close()
    return path


def _random_states(players: int, count: int, seed: int = 0):
    """(view, legal) pairs from random play on contract 1."""
    rng = np.random.default_rng(seed)
    game = Game(GameConfig(num_players=players, deals=(1,)), seed=seed)
    out = []
    while len(out) < count:
        if game.game_over:
            game = Game(GameConfig(num_players=players, deals=(1,)), seed=int(rng.integers(1 << 30)))
        seat = game.current_player
        legal = game.legal_moves()
        out.append((game.view(seat), legal))
        game.apply(legal[int(rng.integers(len(legal)))])
    return out


# --------------------------------------------------------------------------- learning


def test_short_training_beats_random_on_a_fixed_duplicate_sample(tmp_path: Path) -> None:
    cfg = TrainConfig(contract=1, players=2, steps=32_768, seed=1, settings=FAST, eval_every=0, eval_decks=40,
                      eval_opponents=("random",), eval_seed=1, checkpoint_every=10**9, tensorboard=False)
    result = train(cfg, tmp_path / "run", progress=False)
    row = result.eval_rows[-1]
    assert row["steps"] == result.num_timesteps >= 32_768
    assert row["deals"] == 80  # 40 decks x 2 seatings
    # the learner scores less than random on the same cards, significantly
    assert row["learner_mean"] < row["opponent_mean"]
    assert row["diff_ci_high"] < 0, row
    assert (tmp_path / "run" / "model.zip").exists() and (tmp_path / "run" / "eval.csv").exists()
    card = json.loads((tmp_path / "run" / "model.json").read_text())
    assert card["steps"] == result.num_timesteps and card["contract"] == 1 and card["num_players"] == 2
    assert card["evaluation"]["results"][0]["opponent"] == "random"


# --------------------------------------------------------------------------- the agent


def test_save_load_round_trip_gives_the_same_actions(tmp_path: Path) -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    cfg = _tiny_config()
    venv = DummyVecEnv([lambda: make_env(cfg)])
    model = make_model(venv, cfg)
    model.learn(512)
    path = tmp_path / "m" / "model.zip"
    save_model(model, path, model_card(2, steps=model.num_timesteps), slim=True)
    agent = PPOAgent(path)
    table = action_table(2)
    for view, legal in _random_states(2, 150):
        obs = encode_observation(view)
        mask = table.legal_mask(legal, view.seat)
        expected, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
        assert masked_action(agent.model, obs, mask) == int(expected)
        # the agent's move is legal and is the move of the model's action ids
        chosen = []
        move = play_view(model, view, legal, on_step=lambda o, m, a: chosen.append(a))
        assert agent.act(view, legal) == move
        assert move in legal
        assert table.move_actions(move, view.seat) == chosen
    venv.close()


def test_agent_plays_an_opening_meld_by_meld(tmp_path: Path) -> None:
    agent = PPOAgent(_untrained_model(tmp_path))
    seen = 0
    for view, legal in _random_states(2, 3000, seed=3):
        if any(m.kind.name == "OPEN" for m in legal):
            steps = []
            move = play_view(agent.model, view, legal, on_step=lambda o, m, a: steps.append(a))
            assert move in legal
            if move.kind.name == "OPEN":
                assert len(steps) == len(move.melds) == view.contract.trios + view.contract.runs
                seen += 1
        if seen >= 3:
            break
    assert seen >= 1


def test_a_model_for_another_layout_is_refused_clearly(tmp_path: Path) -> None:
    path3 = _untrained_model(tmp_path, players=3)
    with pytest.raises(ModelMismatchError) as exc:
        load_model(path3, num_players=2)
    msg = str(exc.value)
    assert "made for 3 players, observation size 998, 2980 actions" in msg
    assert "this environment has 2 players, observation size 741, 2191 actions" in msg
    # without a player count it loads, and refuses at the first move of a 2-player game
    agent = PPOAgent(path3)
    view, legal = _random_states(2, 1)[0]
    with pytest.raises(ModelMismatchError, match="another number of players"):
        agent.act(view, legal)
    # a card whose layout fingerprint is not this code's (the encoding changed)
    card = json.loads(path3.with_suffix(".json").read_text())
    card["layout_fingerprint"] = "0123456789abcdef"
    path3.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(ModelMismatchError, match="layout of this code has changed"):
        load_model(path3)
    # a card that does not belong to its network
    path2 = _untrained_model(tmp_path, players=2)
    shutil.copy(path2, path3)
    card3 = model_card(3, steps=0)
    path3.with_suffix(".json").write_text(json.dumps(card3))
    with pytest.raises(ModelMismatchError, match="does not belong to this model"):
        load_model(path3)


def test_missing_or_corrupt_model_files_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="no model file"):
        load_model(tmp_path / "nothing.zip")
    path = _untrained_model(tmp_path)
    card = path.with_suffix(".json").read_text()
    path.with_suffix(".json").unlink()
    with pytest.raises(ModelLoadError, match="card .* is missing"):
        load_model(path)
    path.with_suffix(".json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="unreadable or corrupt"):
        load_model(path)
    path.with_suffix(".json").write_text(card)
    path.write_bytes(b"this is not a zip file")
    with pytest.raises(ModelLoadError, match="corrupt or not a MaskablePPO file"):
        load_model(path)


def test_ppo_registry_spec_with_the_shipped_model(tmp_path: Path) -> None:
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    assert (SHIPPED / "model.zip").exists(), "the shipped model agents/models/contract1 is part of the repository"
    agent = make_agent(f"ppo:{SHIPPED}", seed=3)
    assert isinstance(agent, PPOAgent) and agent.name == f"ppo:{SHIPPED}"
    assert agent.card["contract"] == 1 and agent.num_players == 2
    with pytest.raises(ValueError, match="needs a model"):
        make_agent("ppo:")
    with pytest.raises(ModelLoadError):
        make_agent("ppo:/no/such/model.zip")
    summary = run_tournament(
        TournamentConfig(agents=(f"ppo=ppo:{SHIPPED}", "random"), players=2, contracts=(1,), decks=6, seed=5,
                         max_turns=300),
        tmp_path / "tournament", workers=1, progress=False, overwrite=True, write_summary=False, log=lambda m: None)
    assert summary.deals_played == 12
    assert summary.mean_penalty("ppo", 1) < summary.mean_penalty("random", 1)


def test_registry_builds_scripted_agents_without_torch() -> None:
    code = ("import sys; from carioca_agents.registry import make_agent; make_agent('random'); make_agent('greedy'); "
            "print('torch' in sys.modules, 'sb3_contrib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.split() == ["False", "False"]


# --------------------------------------------------------------------------- training runs


def test_resume_from_checkpoint_continues_num_timesteps(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = train(_tiny_config(steps=512), out, progress=False)
    assert first.num_timesteps == 512 and first.resumed_from is None
    assert latest_checkpoint(out).name == "ckpt_512.zip"
    # an interrupted run is one whose final model is older than --steps: rerunning continues
    logs: list[str] = []
    second = train(_tiny_config(steps=1024), out, progress=False, log=logs.append)
    assert second.resumed_from == 512
    assert second.num_timesteps == 1024
    assert any("resuming" in m and "512 steps done" in m for m in logs)
    assert [r["steps"] for r in read_eval_csv(out / "eval.csv")] == [512, 1024]
    assert json.loads((out / "model.json").read_text())["resumed_from"] == 512
    # the options that define a run must match
    with pytest.raises(TrainError, match="contract: the folder has 1, this command has 2"):
        train(_tiny_config(contract=2, steps=1024), out, progress=False)
    # --clean keeps a folder to ship; a later run continues from model.zip
    train(_tiny_config(steps=1024, clean=True), out, progress=False)
    assert not (out / "checkpoints").exists()
    third = train(_tiny_config(steps=1280), out, progress=False, log=logs.append)
    assert third.resumed_from == 1024 and third.num_timesteps == 1280


def test_an_interrupted_run_saves_a_checkpoint_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import carioca_experiments.training.train.loop as train_mod  # where train() looks run_evaluation up

    real = train_mod.run_evaluation

    def interrupt(model, *args, **kw):
        raise KeyboardInterrupt  # Ctrl-C during the first evaluation, at step 512

    out = tmp_path / "run"
    monkeypatch.setattr(train_mod, "run_evaluation", interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(_tiny_config(steps=1024, eval_every=512, checkpoint_every=10**9), out, progress=False, log=lambda m: None)
    assert latest_checkpoint(out).name == "ckpt_512.zip" and not (out / "model.zip").exists()
    monkeypatch.setattr(train_mod, "run_evaluation", real)
    result = train(_tiny_config(steps=1024, eval_every=512, checkpoint_every=10**9), out, progress=False,
                   log=lambda m: None)
    assert result.resumed_from == 512 and result.num_timesteps == 1024
    assert [r["steps"] for r in read_eval_csv(out / "eval.csv")] == [1024]


def test_self_play_pool_draws_snapshots(tmp_path: Path) -> None:
    out = tmp_path / "self"
    cfg = _tiny_config(steps=1024, self_play=True, snapshot_every=256, self_play_prob=1.0)
    result = train(cfg, out, progress=False)
    snaps = sorted((out / "snapshots").glob("snap_*.zip"))
    assert len(snaps) >= 3 and all(p.with_suffix(".json").exists() for p in snaps)
    assert result.num_timesteps == 1024
    # an opponent seat of a self-play env plays a frozen snapshot once one exists
    env = make_env(cfg, 0, str(out / "snapshots"))
    env.reset(seed=0)
    pool = env.unwrapped.drivers[0].agent
    assert isinstance(pool.current, PPOAgent) and not pool.current.deterministic


def test_train_command_line(tmp_path: Path) -> None:
    from carioca_experiments.cli import main

    out = tmp_path / "cli"
    code = main(["train", "--contract", "full", "--steps", "256", "--n-envs", "2", "--set", "rollout_steps=256",
                 "--set", "net_arch=16", "--eval-every", "0", "--eval-decks", "1", "--eval-opponents", "random",
                 "--eval-max-turns", "40", "--out", str(out), "--no-progress", "--no-tensorboard", "--clean"])
    assert code == 0
    card = json.loads((out / "model.json").read_text())
    assert card["contract"] == "full" and card["deals"] == [1, 2, 3, 4, 5, 6, 7]
    assert card["settings"]["net_arch"] == [16] and card["settings"]["rollout_steps"] == 256
    assert "--contract full" in card["command"]
    assert card["evaluation"]["contracts"] == [1, 2, 3, 4, 5, 6, 7]
    assert sorted(p.name for p in out.iterdir()) == ["eval.csv", "model.json", "model.zip", "run.json"]


# --------------------------------------------------------------------------- experiment and notebook


def test_experiment_report_on_the_fixture(tmp_path: Path) -> None:
    from carioca_experiments.training.train_all import report

    out = tmp_path / "rl"
    shutil.copytree(FIXTURE, out)
    paths = report(out, log=lambda m: None)
    names = {p.name for p in paths}
    assert {"results.csv", "pairs.csv", "results.md"} <= names
    text = (out / "results.md").read_text()
    assert "| ppo |" in text and "| ppo_full |" in text and "| heuristic |" in text
    rows = (out / "results.csv").read_text().splitlines()
    assert rows[0].startswith("contract,agent,decks,mean_penalty,ci_low,ci_high")
    assert any(r.startswith("all,ppo,") for r in rows)


def _run_notebook(results: str | None) -> str:
    """The outputs (as JSON text) of ``notebooks/results.ipynb`` run with ``CARIOCA_RESULTS=results``
    (unset when None)."""
    import nbclient
    import nbformat
    nb = nbformat.read(ROOT / "notebooks" / "results.ipynb", as_version=4)
    old = os.environ.get("CARIOCA_RESULTS")
    os.environ.pop("CARIOCA_RESULTS", None)
    if results is not None:
        os.environ["CARIOCA_RESULTS"] = results
    try:
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    finally:
        if old is None:
            os.environ.pop("CARIOCA_RESULTS", None)
        else:
            os.environ["CARIOCA_RESULTS"] = old
    return json.dumps([c.get("outputs", []) for c in nb.cells])


def test_results_notebook_shows_the_shipped_results_by_default() -> None:
    shipped = ROOT / "shipped-results"
    # by default: your own run if there is one, else the shipped results, else the fixture
    if not (ROOT / "results" / "rl-experiment").is_dir():
        text = _run_notebook(None)
        assert "data: shipped results" in text and "TOY FIXTURE" not in text
    text = _run_notebook("shipped-results")  # a path relative to the repository
    assert "Traceback" not in text
    final = (shipped / "final.md").read_text()
    row = next(line for line in final.splitlines() if line.startswith("| 2 | 1 |"))
    assert row in text  # the final table is shown
    assert "image/png" in text


def test_make_notebook_runs_the_notebook_with_jupyter(tmp_path: Path) -> None:
    """The Makefile's ``notebook`` recipe, run as written (into a scratch folder), renders the shipped results."""
    import re
    import shlex

    recipe = re.search(r"^notebook:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    words = [w.replace("$(VENV)/bin/", str(Path(sys.executable).parent) + "/") for w in shlex.split(recipe)]
    words[words.index("--output-dir") + 1] = str(tmp_path)
    env = {**os.environ, "CARIOCA_RESULTS": "shipped-results"}
    done = subprocess.run(words, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "MissingIDFieldWarning" not in done.stderr  # every cell has its id
    html = (tmp_path / "results.html").read_text()
    assert "data: shipped results" not in html and "CARIOCA_RESULTS" in html  # the folder asked for
    assert "Traceback" not in html and "image/png" in html
    assert "c1-im_c1-greedy" in html or "im_c1" in html


def test_results_notebook_executes_on_the_fixture() -> None:
    text = _run_notebook(str(FIXTURE))
    assert "Traceback" not in text
    assert "agent rows from 7 tournaments" in text
    assert "TOY FIXTURE (test data, not results)" in text  # the fixture says what it is
    assert "image/png" in text  # the plots were drawn


def test_train_all_quick_runs_every_stage(tmp_path: Path) -> None:
    import argparse

    from carioca_experiments.training import train_all

    parser = argparse.ArgumentParser()
    train_all.add_arguments(parser)
    out = tmp_path / "rl"
    args = parser.parse_args(["--quick", "--contracts", "2", "--steps", "256", "--full-steps", "256", "--decks", "1",
                              "--baselines", "random", "--workers", "1", "--no-progress", "--no-tensorboard",
                              "--max-turns", "60", "--out", str(out)])
    assert train_all.run(args) == 0
    for name in ("contract2", "full"):
        card = json.loads((out / "models" / name / "model.json").read_text())
        assert card["steps"] >= 256
    summary = json.loads((out / "tournaments" / "contract2" / "summary.json").read_text())
    assert summary["config"]["agents"][:2] == [f"ppo=ppo:{out / 'models' / 'contract2'}",
                                               f"ppo_full=ppo:{out / 'models' / 'full'}"]
    assert {"results.csv", "pairs.csv", "results.md", "penalty.png"} <= {p.name for p in out.iterdir()}
    # a rerun trains nothing again and replays no deal
    assert train_all.run(args) == 0


def test_run_clock_adds_the_saved_sessions_and_refuses_a_broken_state_file(tmp_path: Path) -> None:
    """A resumed run's clock starts from the seconds its state file recorded, saving keeps
    the file's other keys, and a state file that is not JSON, not an object, or whose time
    is not a number is refused with a TrainError naming it (not a traceback)."""
    from carioca_experiments.training.train.errors import TrainError
    from carioca_experiments.training.train.files import RunClock

    state = tmp_path / "state.json"
    fresh = RunClock(state)
    assert 0.0 <= fresh() < 60.0
    fresh.save()
    assert json.loads(state.read_text())["wall_time_s"] >= 0.0
    state.write_text(json.dumps({"wall_time_s": 1000.0, "other": 3}) + "\n")
    resumed = RunClock(state)
    assert 1000.0 <= resumed() < 1060.0
    resumed.save()
    saved = json.loads(state.read_text())
    assert saved["other"] == 3 and saved["wall_time_s"] >= 1000.0
    for bad in ("{not json", "[1, 2]", '{"wall_time_s": "soon"}'):
        state.write_text(bad)
        with pytest.raises(TrainError, match="state.json"):
            RunClock(state)
