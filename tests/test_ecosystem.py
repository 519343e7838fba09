"""How the package fits Gymnasium, PettingZoo and SB3: registration, checkers with default
arguments, reprs, the version, rgb_array frames, a light import and missing extras."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import carioca_env
from carioca_env import Game, GameConfig, Move, parse_move
from carioca_env.env import EnvConfig, IllegalActionError
from carioca_env.extras import MissingExtraError
from carioca_env.rendering import frame_shape
from carioca_env.wrappers import CariocaSingleAgentEnv, worst_return

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> str:
    """Run ``code`` in a fresh interpreter (nothing imported beforehand); its stdout."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _random_game(seed: int, moves: int) -> Game:
    import random

    game = Game(GameConfig(num_players=3), seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        game.apply(rng.choice(game.legal_moves()))
    return game


# ----------------------------------------------------------------- reprs and version


def test_move_repr_is_its_notation():
    game = _random_game(4, 30)
    for move in game.legal_moves() + game.moves:
        text = repr(move)
        assert text == f"<Move {move}>"
        assert parse_move(text[len("<Move "):-1]) == move


def test_a_malformed_move_still_has_a_repr():
    from carioca_env import MoveKind

    text = repr(Move(MoveKind.DISCARD, card=-1))
    assert "card=-1" in text and "no notation" in text


def test_game_repr_shows_deal_turn_and_phase():
    game = _random_game(2, 61)
    text = repr(game)
    assert f"deal {game.deal_index + 1} of 7" in text
    assert f"contract {game.deal_number}: {game.contract.melds}" in text
    assert f"turn {game.turn}," in text
    assert f"player {game.current_player} to play: {game.phase.value}" in text
    assert "object at 0x" not in text


def test_game_repr_after_the_game():
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=3)
    from carioca_agents.registry import make_agent

    players = [make_agent("heuristic", seed=s) for s in range(2)]
    while not game.game_over:
        seat = game.current_player
        game.apply(players[seat].act(game.view(seat), game.legal_moves()))
    assert repr(game) == f"<Game over after 1 deals: totals {game.totals}, winners {list(game.winners)}>"


def test_version_has_one_source():
    assert carioca_env.__version__ == importlib.metadata.version("carioca-env")
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^version: (\S+)$", citation, re.M).group(1) == carioca_env.__version__
    from carioca_experiments.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0


def test_cli_version_prints_the_version(capsys):
    from carioca_experiments.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"carioca {carioca_env.__version__}"


# ----------------------------------------------------------------- a light import


def test_the_env_imports_no_training_or_plotting_library():
    heavy = ("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "tensorboard", "PIL", "pandas")
    out = _run(f"import sys; from carioca_env import carioca_v0; print([m for m in {heavy!r} if m in sys.modules])")
    assert out == "[]"


def test_the_engine_imports_no_rl_framework():
    out = _run("import sys, carioca_env; print([m for m in ('gymnasium', 'pettingzoo') if m in sys.modules])")
    assert out == "[]"


# ----------------------------------------------------------------- registration


def test_gymnasium_make_needs_no_import_of_ours():
    out = _run(
        "import gymnasium\n"
        "env = gymnasium.make('carioca_env:Carioca-v0', num_players=3, deals=(2,))\n"
        "obs, info = env.reset(seed=1)\n"
        "print(env.spec.id, obs.shape, env.unwrapped.config.num_players, env.unwrapped.metadata['name'])"
    )
    assert out == "Carioca-v0 (998,) 3 Carioca-v0"


def test_pettingzoo_make_after_importing_the_package():
    out = _run(
        "import pettingzoo, carioca_env\n"
        "env = pettingzoo.make('aec', 'carioca/carioca-v0', num_players=4, deals=(1,))\n"
        "env.reset(seed=0)\n"
        "print(env.unwrapped.metadata['name'], len(env.possible_agents), env.unwrapped.config.deals)"
    )
    assert out == "carioca_v0 4 (1,)"


def test_register_envs_works_in_any_import_order():
    out = _run(
        "import carioca_env, gymnasium, pettingzoo\n"
        "carioca_env.register_envs(); carioca_env.register_envs()  # twice: no override warning\n"
        "print('Carioca-v0' in gymnasium.registry, 'carioca/carioca-v0' in pettingzoo.aec_registry)"
    )
    assert out == "True True"


def test_gymnasium_make_builds_the_registered_wrapper():
    env = gymnasium.make("Carioca-v0", num_players=2, deals=(3,))
    assert isinstance(env.unwrapped, CariocaSingleAgentEnv)
    assert env.spec is not None and env.spec.max_episode_steps is None  # the env truncates itself (R17)
    assert env.unwrapped.config.deals == (3,)


# ----------------------------------------------------------------- checkers with defaults


def test_gymnasium_check_env_passes_with_default_arguments():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("Carioca-v0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    assert [str(w.message) for w in caught] == []


def test_sb3_check_env_passes_with_default_arguments():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(CariocaSingleAgentEnv(), warn=True)
    assert [str(w.message) for w in caught] == []


def _illegal_action(env: CariocaSingleAgentEnv) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_default_illegal_action_ends_the_episode_with_the_worst_return():
    env = CariocaSingleAgentEnv(deals=(2,))
    env.reset(seed=5)
    action = _illegal_action(env)
    obs, reward, terminated, truncated, info = env.step(action)
    assert terminated and not truncated
    assert reward == worst_return(env.config) == -340.0  # 4 jokers x 50 + 7 aces x 20 (R14)
    assert info["illegal_action"] == action
    assert obs.shape == env.observation_space.shape
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_an_illegal_action_is_never_better_than_legal_play():
    # the penalty bound: no deal costs more than the hand_size costliest cards (R14)
    assert worst_return(EnvConfig(deals=(7,))) == -(4 * 50 + 8 * 20)
    assert worst_return(EnvConfig()) == -(6 * 340 + 360)
    assert worst_return(EnvConfig(reward_scale=0.01, deals=(1, 2))) == pytest.approx(-6.8)
    assert worst_return(EnvConfig(reward="win")) == -1.0


def test_explicit_illegal_settings_are_kept():
    env = CariocaSingleAgentEnv(deals=(1,), illegal_action="raise")
    env.reset(seed=1)
    with pytest.raises(IllegalActionError):
        env.step(_illegal_action(env))
    env = CariocaSingleAgentEnv(deals=(1,), illegal_reward=-5.0)
    env.reset(seed=1)
    assert env.step(_illegal_action(env))[1] == -5.0
    env = CariocaSingleAgentEnv(config=EnvConfig(deals=(1,)))  # a config: the same default as options
    assert env.config.illegal_action == "penalize" and env.config.illegal_reward == -340.0


# ----------------------------------------------------------------- rgb_array frames


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rgb_frames_have_a_fixed_shape_and_follow_the_game(players):
    from carioca_env import carioca_v0

    env = carioca_v0.env(num_players=players, deals=(2,), render_mode="rgb_array", max_turns=60)
    env.reset(seed=players)
    rng = np.random.default_rng(players)
    frames = [env.render()]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    assert all(f.shape == frame_shape(players) and f.dtype == np.uint8 for f in frames)
    changed = sum(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))
    assert changed == len(frames) - 1  # every step changes the table, the turn or the hand


def test_the_wrapper_draws_the_learners_view():
    env = gymnasium.make("Carioca-v0", render_mode="rgb_array", learner_seat=1)
    env.reset(seed=0)
    frame = env.render()
    inner = env.unwrapped
    from carioca_env.rendering import draw_table

    assert np.array_equal(frame, draw_table(inner.aec.game.view(1)))
    assert not np.array_equal(frame, draw_table(inner.aec.game.view(0)))


def test_a_frame_of_a_seat_that_is_not_at_the_table_is_refused():
    from carioca_env import InvalidConfigError, carioca_v0

    env = carioca_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    for seat in (2, -1, "0", True):
        with pytest.raises(InvalidConfigError, match="seat 0..1"):
            env.unwrapped.render(seat=seat)


def test_gymnasium_render_wrappers_collect_the_frames():
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(gymnasium.make("Carioca-v0", render_mode="rgb_array", deals=(1,)))
    env.reset(seed=2)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    frames = env.render()
    assert len(frames) == 6 and {f.shape for f in frames} == {frame_shape(2)}


def test_a_god_view_differs_from_the_seat_view():
    from carioca_env import carioca_v0

    seat_env = carioca_v0.env(render_mode="rgb_array")
    god_env = carioca_v0.env(render_mode="rgb_array", render_all_hands=True)
    seat_env.reset(seed=3)
    god_env.reset(seed=3)
    assert not np.array_equal(seat_env.render(), god_env.render())


# ----------------------------------------------------------------- missing extras


def test_a_missing_extra_is_named(monkeypatch):
    import carioca_env.extras as extras

    monkeypatch.setattr(extras, "_installed", lambda module: module != "torch")
    from carioca_agents.registry import make_agent

    with pytest.raises(MissingExtraError, match=re.escape('pip install "carioca-env[train]"')):
        make_agent("ppo:contract1")
    monkeypatch.setattr(extras, "_installed", lambda module: module != "PIL")
    with pytest.raises(MissingExtraError, match=re.escape("carioca-env[render]")):
        CariocaSingleAgentEnv(render_mode="rgb_array")


def test_the_cli_reports_a_missing_module_with_its_extra(monkeypatch, tmp_path, capsys):
    from carioca_env.extras import explain
    from carioca_experiments.cli import main

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails as if not installed
    code = main(["train", "--steps", "64", "--out", str(tmp_path / "run"), "--no-progress", "--no-tensorboard"])
    assert code == 2
    assert capsys.readouterr().err.strip() == 'carioca train: error: torch is not installed: pip install "carioca-env[train]"'

    exc = ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib.pyplot")
    assert explain(exc) == 'matplotlib is not installed: pip install "carioca-env[plots]"'
    assert explain(ModuleNotFoundError("x", name="nonexistent_module")) is None
