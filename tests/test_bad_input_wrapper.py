"""Catalogue of bad input at the single-agent wrapper: the learner's actions, opponents
that fail, and calls after a failure (refused, naming the first error, until reset)."""

from __future__ import annotations

import numpy as np
import pytest
from test_bad_input_env import NOT_IDS

from carioca_env.env import ActionRangeError, ActionTypeError, IllegalActionError
from carioca_env.errors import InvalidArgumentError, InvalidConfigError
from carioca_env.wrappers import CariocaSingleAgentEnv, EpisodeBrokenError, OpponentError

from bad_input import fingerprint


def _always(action):
    return lambda obs, mask: action


def _raises(obs, mask):
    raise RuntimeError("the policy crashed")


#: opponents that fail: (policy, the cause's type, words of the message)
BAD_OPPONENTS = [
    (_always(0), IllegalActionError, ["player_1", "not legal"]),
    (_always(10**6), IllegalActionError, ["outside the action space"]),
    (_always(-1), IllegalActionError, ["outside the action space"]),
    (_always(0.7), ActionTypeError, ["float"]),
    (_always("0"), ActionTypeError, ["str"]),
    (_always(None), IllegalActionError, ["None"]),
    (_always(np.array([1, 2])), ActionTypeError, ["ndarray"]),
    (_raises, RuntimeError, ["the policy crashed"]),
]


def _state(env: CariocaSingleAgentEnv) -> tuple:
    aec = env.aec
    return (fingerprint(aec.game), aec.agent_selection, repr(aec._cumulative_rewards), repr(aec.rewards))


def _reach_opponent_turn(env: CariocaSingleAgentEnv) -> None:
    """Play the learner's first legal actions until its turn passes to the opponent."""
    for _ in range(200):
        env.step(int(np.flatnonzero(env.action_masks())[-1]))  # the last id: a discard in the play phase


@pytest.mark.parametrize("policy, cause, words", BAD_OPPONENTS, ids=[str(i) for i in range(len(BAD_OPPONENTS))])
def test_an_opponent_failure_breaks_the_episode_until_reset(policy, cause, words) -> None:
    env = CariocaSingleAgentEnv(opponents=policy, deals=(1,))
    env.reset(seed=0)
    with pytest.raises(OpponentError) as info:
        _reach_opponent_turn(env)
    assert isinstance(info.value.__cause__, cause)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    stuck = _state(env)
    # the bug: the learner's next action used to be played for the opponent's seat
    for call in (lambda: env.step(9), lambda: env.step(0), env.action_masks, env.render):
        with pytest.raises(EpisodeBrokenError, match="cannot go on.*player_1.*call reset"):
            call()
        assert _state(env) == stuck
    obs, info2 = env.reset(seed=1)  # reset() is the way out
    assert env.action_masks().any() and obs.shape == env.observation_space.shape


@pytest.mark.parametrize("action", NOT_IDS, ids=[repr(a)[:20] for a in NOT_IDS])
def test_a_non_integer_learner_action_is_refused_and_the_learner_may_retry(action) -> None:
    env = CariocaSingleAgentEnv(deals=(1,))
    env.reset(seed=2)
    before = _state(env)
    with pytest.raises(ActionTypeError):
        env.step(action)
    assert _state(env) == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # not broken: a refusal changed nothing
    assert env.aec.game.moves


def test_a_masked_out_learner_action_is_refused_and_changes_nothing() -> None:
    env = CariocaSingleAgentEnv(deals=(1,), illegal_action="raise")  # the default penalizes and ends the episode
    env.reset(seed=2)
    before = _state(env)
    for bad in (int(np.flatnonzero(~env.action_masks())[0]), -1, 10**9, np.int64(2191)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert _state(env) == before
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))


#: integer ids no Discrete(N) holds: a caller's bug, refused whatever illegal_action says
OUTSIDE = [10**6, -1, 2191, np.int64(-5), 2**70]


@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
@pytest.mark.parametrize("action", OUTSIDE, ids=[str(a) for a in OUTSIDE])
def test_an_id_outside_the_action_space_is_refused_by_the_wrapper_and_the_aec_env(action, illegal_action) -> None:
    env = CariocaSingleAgentEnv(deals=(1,), illegal_action=illegal_action)
    env.reset(seed=2)
    assert not 0 <= action < env.action_space.n
    before = _state(env)
    with pytest.raises(ActionRangeError, match="outside the action space 0..2190") as info:
        env.step(action)
    assert isinstance(info.value, IllegalActionError) and isinstance(info.value, InvalidArgumentError)
    assert _state(env) == before and not env.aec.terminations[env.agent]  # not an episode-ending penalty
    aec = env.aec  # the AEC env itself, same class, same state kept
    with pytest.raises(ActionRangeError):
        aec.step(action)
    assert _state(env) == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # the learner may go on


def test_a_masked_out_id_inside_the_space_is_still_penalized_by_default() -> None:
    env = CariocaSingleAgentEnv(deals=(1,))
    env.reset(seed=2)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and info["illegal_action"] == bad and reward < 0


def test_calls_before_reset_are_refused_with_the_reason() -> None:
    env = CariocaSingleAgentEnv(deals=(1,))
    for call in (lambda: env.step(0), env.action_masks):
        with pytest.raises(EpisodeBrokenError, match="reset"):
            call()


@pytest.mark.parametrize("seat", [True, 2, -1, "0", 0.0])
def test_a_bad_learner_seat_is_refused(seat) -> None:
    with pytest.raises(InvalidConfigError, match="learner_seat"):
        CariocaSingleAgentEnv(learner_seat=seat)


def test_catalogue_counts() -> None:
    assert len(BAD_OPPONENTS) >= 8
