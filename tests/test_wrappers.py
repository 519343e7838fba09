"""The Gymnasium single-agent wrapper: checkers, MaskablePPO, opponents, learner's rewards."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from carioca_agents.random_agent import RandomAgent
from carioca_env.errors import InvalidConfigError
from carioca_env.wrappers import CariocaSingleAgentEnv


@pytest.mark.parametrize("n", [2, 4])
def test_gymnasium_and_sb3_check_env_pass(n: int) -> None:
    # the checkers step with unmasked random actions: the penalize option turns those
    # into a terminated episode instead of an exception
    env = CariocaSingleAgentEnv(num_players=n, deals=(1,), illegal_action="penalize", max_turns=100)
    gym_check_env(env, skip_render_check=True)
    sb3_check_env(env)


def test_maskable_ppo_runs_a_few_thousand_steps() -> None:
    env = CariocaSingleAgentEnv(num_players=2, deals=(1,), max_turns=200, reward_scale=0.01)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=1, seed=0, verbose=0)
    model.learn(2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def _episode(env: CariocaSingleAgentEnv, seed: int) -> tuple[float, list[int], dict]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, actions = 0.0, []
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        assert mask.any()
        a = int(rng.choice(np.flatnonzero(mask)))
        actions.append(a)
        obs, reward, term, trunc, info = env.step(a)
        total += reward
        if term or trunc:
            return total, actions, info


def test_rewards_are_the_learners_own_and_sum_to_minus_its_total() -> None:
    env = CariocaSingleAgentEnv(num_players=3, deals=(1,), max_turns=None, learner_seat=1)
    total, _, info = _episode(env, 0)
    game = env.aec.game
    assert game.game_over
    assert total == -game.totals[1]
    assert info["learner_seat"] == 1


def test_learner_seat_is_drawn_per_episode_when_not_fixed() -> None:
    env = CariocaSingleAgentEnv(num_players=4, deals=(1,), learner_seat=None, max_turns=20)
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(30)}
    assert seats == {0, 1, 2, 3}


def test_same_seed_same_episode() -> None:
    env = CariocaSingleAgentEnv(num_players=2, deals=(2,), max_turns=150)
    assert _episode(env, 5)[:2] == _episode(env, 5)[:2]


def test_engine_agents_play_as_opponents_including_openings() -> None:
    class OpenFirst(RandomAgent):
        """Random, but always opens when it can (so the queued meld steps are exercised)."""

        def act(self, view, legal):
            opens = [m for m in legal if m.kind.name == "OPEN"]
            return opens[0] if opens else super().act(view, legal)

    opponent = OpenFirst(1)
    env = CariocaSingleAgentEnv(num_players=2, deals=(1,), opponents=opponent, max_turns=None)
    opened = 0
    for seed in range(8):
        _episode(env, seed)
        opened += env.aec.game.deal_results[-1].closer == 1 or any(env.aec.game.table[1])
    assert opened > 0


def test_callable_opponents_receive_observation_and_mask() -> None:
    seen = []

    def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
        seen.append((obs.shape, mask.dtype))
        return int(np.flatnonzero(mask)[0])

    env = CariocaSingleAgentEnv(num_players=2, deals=(1,), opponents=first_legal, max_turns=30)
    _episode(env, 1)
    assert seen and seen[0][0] == env.observation_space.shape


def test_bad_wrapper_arguments_are_refused() -> None:
    with pytest.raises(InvalidConfigError, match="learner_seat"):
        CariocaSingleAgentEnv(num_players=2, learner_seat=2)
    with pytest.raises(InvalidConfigError, match="one opponent per other seat"):
        CariocaSingleAgentEnv(num_players=3, opponents=[None])
    with pytest.raises(InvalidConfigError, match="an opponent must be"):
        CariocaSingleAgentEnv(num_players=2, opponents=42)


def _first_turn_close_deck() -> list[int]:
    """Contract 6, two seats, seat 1 deals: seat 0 plays first holding the whole contract
    (a trio and two runs, 11 cards), so it can lay it all and discard its 12th card."""
    from carioca_env.cards import parse_card
    from carioca_env.decks import stack_deck

    closer = "8C 8D 8H 2S 3S 4S 5S 2H 3H 4H 5H".split()
    other = "9C 9D JH QS KS 7C 7D 10H 10S 6C 6D".split()
    return stack_deck([[parse_card(c) for c in closer], [parse_card(c) for c in other]],
                      parse_card("KD"), [parse_card("QC")], dealer=1)


class _OpensAtOnce(RandomAgent):
    def act(self, view, legal):
        opens = [m for m in legal if m.kind.name == "OPEN"]
        return opens[0] if opens else super().act(view, legal)


def test_reset_replaces_a_game_the_opponents_end_before_the_learner_acts() -> None:
    """Contracts 6 and 7 allow a close on the very first turn; a one-deal episode that ends
    before the learner's first turn gives it no decision, so reset deals a fresh game."""
    env = CariocaSingleAgentEnv(num_players=2, deals=(6,), opponents=_OpensAtOnce(3), learner_seat=1, max_turns=None)
    real_reset = env.aec.reset
    calls = []

    def first_game_stacked(seed=None, options=None):
        calls.append(seed)
        real_reset(seed=seed, options={"deck": _first_turn_close_deck(), "dealer": 1} if len(calls) == 1 else options)

    env.aec.reset = first_game_stacked
    obs, info = env.reset(seed=0)
    assert info["games_skipped"] == 1 and len(calls) == 2
    assert env.aec.agent_selection == "player_1" and env.action_masks().any()
    _obs, _r, terminated, truncated, _info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert not truncated


def test_reset_refuses_a_stacked_deck_that_never_lets_the_learner_act() -> None:
    env = CariocaSingleAgentEnv(num_players=2, deals=(6,), opponents=_OpensAtOnce(3), learner_seat=1, max_turns=None)
    with pytest.raises(RuntimeError, match="before the learner acts"):
        env.reset(seed=0, options={"deck": _first_turn_close_deck(), "dealer": 1})
    # seated first, the learner acts in the same stacked game
    env = CariocaSingleAgentEnv(num_players=2, deals=(6,), opponents=_OpensAtOnce(3), learner_seat=0, max_turns=None)
    _obs, info = env.reset(seed=0, options={"deck": _first_turn_close_deck(), "dealer": 1})
    assert info["games_skipped"] == 0
