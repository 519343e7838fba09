"""Catalogue of bad input at the environment boundary (``carioca_v0``): actions, options,
arguments; a refused call changes nothing observable; ``state()`` for centralized critics."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from carioca_env import CariocaError, InvalidConfigError, InvalidNotationError, MisdealError, carioca_v0
from carioca_env.cards import NUM_CARD_TYPES, deck_counts, full_deck
from carioca_env.env import ActionRangeError, ActionTypeError, IllegalActionError, state_size
from carioca_env.errors import ArgumentTypeError, InvalidArgumentError
from carioca_env.observation import obs_layout

from bad_input import fingerprint

#: actions that are not integer ids: every one is refused with ActionTypeError
NOT_IDS = [0.7, np.float32(0.5), 0.0, "0", b"0", [0], (0,), np.array([0, 1]), np.array([0]), np.array(0.0),
           float("nan"), float("inf"), 1j, True, False, np.bool_(True), {0: 1}, object()]
#: integers outside the space or masked out: IllegalActionError
BAD_IDS = [-1, 10**6, np.int64(-5), 2**70]
#: integer ids of every accepted type (converted to the first legal id)
ID_TYPES = [int, np.int64, np.int32, np.int8, np.uint16, lambda a: np.array(a), lambda a: np.array(a, dtype=np.int16)]

#: EnvConfig options that make no env: (options, words the message holds)
BAD_OPTIONS = [
    ({"reward_scale": "x"}, ["reward_scale", "str"]),
    ({"reward_scale": None}, ["reward_scale", "NoneType"]),
    ({"reward_scale": float("nan")}, ["reward_scale", "finite"]),
    ({"reward_scale": True}, ["reward_scale", "bool"]),
    ({"reward_scale": [1.0]}, ["reward_scale", "list"]),
    ({"illegal_reward": "x"}, ["illegal_reward", "str"]),
    ({"illegal_reward": float("-inf")}, ["illegal_reward", "finite"]),
    ({"illegal_reward": True}, ["illegal_reward", "bool"]),
    ({"illegal_reward": 5.0}, ["illegal_reward", "0 or negative", "5.0"]),
    ({"illegal_reward": 1}, ["illegal_reward", "0 or negative", "1.0"]),
    ({"illegal_reward": np.float32(0.25)}, ["illegal_reward", "0 or negative", "0.25"]),
    ({"max_turns": 0}, ["max_turns"]),
    ({"max_turns": -1}, ["max_turns"]),
    ({"max_turns": 1.5}, ["max_turns", "float"]),
    ({"max_turns": True}, ["max_turns", "bool"]),
    ({"max_turns": "100"}, ["max_turns", "str"]),
    ({"render_all_hands": "yes"}, ["render_all_hands"]),
    ({"reward": "score"}, ["reward", "penalty"]),
    ({"reward": ["win"]}, ["reward", "list"]),
    ({"illegal_action": "ignore"}, ["illegal_action", "raise"]),
    ({"illegal_action": None}, ["illegal_action"]),
    ({"num_players": 5}, ["num_players"]),
    ({"num_players": "2"}, ["num_players"]),
    ({"num_players": 2.0}, ["num_players"]),
    ({"deals": (1.0,)}, ["deals"]),
    ({"deals": (True,)}, ["deals"]),
    ({"deals": 3}, ["deals"]),
    ({"deals": (0,)}, ["deals"]),
]

#: reset arguments that are refused: (kwargs, error type, words)
BAD_RESETS = [
    ({"options": {"deck": None}}, ArgumentTypeError, ["deck", "NoneType"]),
    ({"options": {"deck": "8S 8H"}}, ArgumentTypeError, ["deck", "str"]),
    ({"options": {"deck": list(range(52))}}, MisdealError, ["108"]),
    ({"options": {"deck": [0.5] * 108}}, MisdealError, ["float"]),
    ({"options": {"deck": ["8X"] * 108}}, InvalidNotationError, ["8X"]),
    ({"options": {"deck": full_deck(), "dealer": 5}}, InvalidConfigError, ["dealer"]),
    ({"options": {"deck": full_deck(), "dealer": "0"}}, InvalidConfigError, ["dealer", "str"]),
    ({"options": {"dealer": 0}}, InvalidArgumentError, ["dealer", "deck"]),
    ({"options": "deck"}, ArgumentTypeError, ["options", "str"]),
    ({"options": [("deck", None)]}, ArgumentTypeError, ["options", "list"]),
    ({"seed": "7"}, ArgumentTypeError, ["seed", "str"]),
    ({"seed": 1.5}, ArgumentTypeError, ["seed", "float"]),
    ({"seed": True}, ArgumentTypeError, ["seed", "bool"]),
]

#: argument checks of the env's helpers: (call, error type, words)
BAD_ARGUMENTS = [
    (lambda e: e.observe(0), ArgumentTypeError, ["agent", "player_0", "int"]),
    (lambda e: e.observe("nobody"), InvalidArgumentError, ["agent", "player_0", "nobody"]),
    (lambda e: e.observe(None), ArgumentTypeError, ["agent"]),
    (lambda e: e.action_mask("nobody"), InvalidArgumentError, ["agent", "nobody"]),
    (lambda e: e.action_mask(1), ArgumentTypeError, ["agent", "int"]),
    (lambda e: e.action_to_string("x"), ActionTypeError, ["integer", "str"]),
    (lambda e: e.action_to_string(0.5), ActionTypeError, ["integer", "float"]),
    (lambda e: e.action_to_string(10**6), InvalidArgumentError, ["outside the action space"]),
    (lambda e: e.action_to_string(-1), InvalidArgumentError, ["outside the action space"]),
    (lambda e: e.string_to_action(None), ArgumentTypeError, ["string", "NoneType"]),
    (lambda e: e.string_to_action(5), ArgumentTypeError, ["string", "int"]),
    (lambda e: e.string_to_action("fly away"), InvalidNotationError, ["no action"]),
]


def _observable(env) -> tuple:
    raw = env.unwrapped
    return (
        raw.agent_selection,
        copy.deepcopy(raw.rewards),
        copy.deepcopy(raw._cumulative_rewards),
        copy.deepcopy(raw.terminations),
        copy.deepcopy(raw.truncations),
        repr(raw.infos),
        fingerprint(raw.game),
        raw._seeder.getstate(),
        [raw.observe(a)["observation"].tobytes() for a in raw.possible_agents],
        raw.action_mask().tobytes(),
    )


def _env(**options):
    env = carioca_v0.env(num_players=2, deals=(1, 2), **options)
    env.reset(seed=3)
    return env


def _first_legal(env) -> int:
    return int(np.flatnonzero(env.unwrapped.action_mask())[0])


@pytest.mark.parametrize("action", NOT_IDS, ids=[repr(a)[:20] for a in NOT_IDS])
def test_a_non_integer_action_is_refused_and_changes_nothing(action) -> None:
    for illegal_action in ("raise", "penalize"):  # never truncated to an id, never penalized as one
        env = _env(illegal_action=illegal_action)
        before = _observable(env)
        with pytest.raises(ActionTypeError, match="integer id 0..2190"):
            env.step(action)
        assert _observable(env) == before


@pytest.mark.parametrize("action", BAD_IDS, ids=[str(a) for a in BAD_IDS])
def test_an_integer_outside_the_space_is_illegal_and_changes_nothing(action) -> None:
    env = _env(illegal_action="raise")
    before = _observable(env)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(action)
    assert _observable(env) == before


@pytest.mark.parametrize("action", [-1, 10**6])
def test_by_default_an_integer_outside_the_space_is_refused_not_penalized(action) -> None:
    env = _env()
    before = _observable(env)
    with pytest.raises(ActionRangeError, match="outside the action space"):  # a caller's bug (issue 26)
        env.step(action)
    assert _observable(env) == before and not any(env.terminations.values())


def test_by_default_a_masked_out_integer_ends_the_episode_naming_it() -> None:
    env = _env()
    agent = env.agent_selection
    action = int(np.flatnonzero(env.unwrapped.action_mask() == 0)[0])
    env.step(action)
    assert all(env.terminations.values()) and env.infos[agent]["illegal_action"] == action
    assert env.rewards[agent] == env.unwrapped.config.illegal_reward < 0
    assert env.unwrapped.game.moves == []


@pytest.mark.parametrize("make", ID_TYPES)
def test_python_and_numpy_integers_are_accepted(make) -> None:
    env = _env()
    a = _first_legal(env)
    env.step(make(a))
    assert env.unwrapped.game.moves, "the action was not played"


def _env_at_a_deal_end() -> tuple:
    """A 2-deal env just after deal 1 ended, at the first turn of deal 2: a reward pending."""
    for seed in range(200):
        env = carioca_v0.env(num_players=2, deals=(1, 2), illegal_action="raise")
        env.reset(seed=seed)
        rng = random.Random(seed)
        raw = env.unwrapped
        while not raw.game.deal_results:
            mask = raw.action_mask()
            legal = np.flatnonzero(mask)
            melds = [a for a in legal if a > 54]
            env.step(int(rng.choice(melds) if melds else rng.choice(legal)))
        if raw._cumulative_rewards[raw.agent_selection] != 0 and not raw.terminations[raw.agent_selection]:
            return env, raw
    raise AssertionError("no deal ended with a penalty for the next agent")


def test_a_refused_step_after_a_deal_end_keeps_the_pending_reward_and_a_retry_sees_it() -> None:
    env, raw = _env_at_a_deal_end()
    agent = raw.agent_selection
    pending = raw._cumulative_rewards[agent]
    last_before = env.last()
    before = _observable(env)
    masked_out = int(np.flatnonzero(raw.action_mask() == 0)[0])
    for bad in (masked_out, 0.7, "0", None):
        with pytest.raises((IllegalActionError, ActionTypeError)):
            env.step(bad)
        assert _observable(env) == before
    obs, reward, term, trunc, info = env.last()
    assert reward == pending == last_before[1] and reward < 0
    assert np.array_equal(obs["observation"], last_before[0]["observation"])
    env.step(_first_legal(env))  # the retry plays, and only then clears the pending reward
    assert raw._cumulative_rewards[agent] == 0.0


def test_a_positive_illegal_reward_is_refused_where_the_config_is_built() -> None:
    """``EnvConfig`` itself refuses a reward for illegal actions (before any env exists),
    and so does the single-agent wrapper that builds one; 0 and negative rewards stay."""
    from carioca_env.env import EnvConfig
    from carioca_env.wrappers import CariocaSingleAgentEnv

    for bad in (0.5, 3, np.int64(2)):
        with pytest.raises(InvalidConfigError, match="illegal_reward must be 0 or negative"):
            EnvConfig(illegal_reward=bad)
        with pytest.raises(InvalidConfigError, match="illegal_reward must be 0 or negative"):
            CariocaSingleAgentEnv(deals=(1,), illegal_reward=bad)
    assert EnvConfig(illegal_reward=0).illegal_reward == 0.0
    assert EnvConfig(illegal_reward=-5).illegal_reward == -5.0
    assert EnvConfig(reward="win", illegal_reward=None).illegal_reward == -1.0


@pytest.mark.parametrize("options, words", BAD_OPTIONS, ids=[str(o) for o, _ in BAD_OPTIONS])
def test_bad_env_options_are_refused_naming_the_option(options, words) -> None:
    with pytest.raises(InvalidConfigError) as info:
        carioca_v0.env(**options)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


@pytest.mark.parametrize("kwargs, error, words", BAD_RESETS, ids=[str(k)[:40] for k, _, _ in BAD_RESETS])
def test_a_refused_reset_changes_nothing(kwargs, error, words) -> None:
    env = _env()
    env.step(_first_legal(env))
    before = _observable(env)
    with pytest.raises(error) as info:
        env.reset(**kwargs)
    assert isinstance(info.value, CariocaError)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    assert _observable(env) == before
    # and the next reset without a seed continues the same seed sequence as before
    twin = _env()
    twin.step(_first_legal(twin))
    env.reset()
    twin.reset()
    assert env.unwrapped.game.seed == twin.unwrapped.game.seed


def test_unknown_reset_options_warn_and_a_stacked_deck_of_numpy_ints_deals() -> None:
    env = _env()
    with pytest.warns(UserWarning, match="ignored"):
        env.reset(seed=1, options={"decks": full_deck()})
    env.reset(seed=1, options={"deck": np.array(full_deck()), "dealer": np.int64(1)})
    assert env.unwrapped.game.dealer == 1


@pytest.mark.parametrize("call, error, words", BAD_ARGUMENTS)
def test_bad_arguments_of_the_env_helpers(call, error, words) -> None:
    env = _env()
    before = _observable(env)
    with pytest.raises(error) as info:
        call(env.unwrapped)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    assert _observable(env) == before


def test_a_huge_action_string_gives_a_bounded_message() -> None:
    env = _env()
    with pytest.raises(InvalidNotationError) as info:
        env.unwrapped.string_to_action("discard " + "8" * 10**6)
    assert len(str(info.value)) < 1000


@pytest.mark.parametrize("n", [2, 3, 4])
def test_state_is_the_full_information_encoding(n: int) -> None:
    env = carioca_v0.env(num_players=n, deals=(1,))
    env.reset(seed=n)
    rng = random.Random(n)
    raw = env.unwrapped
    L = obs_layout(n).size
    hand = obs_layout(n).slices["hand"]
    assert raw.state_space.shape == (state_size(n),) == (n * L + NUM_CARD_TYPES + n,)
    for _ in range(60):
        state = env.state()  # through PettingZoo's order enforcing wrapper: it used to be shadowed
        assert raw.state_space.contains(state)
        game = raw.game
        for k in range(n):
            assert np.array_equal(state[k * L:(k + 1) * L], raw.observe(f"player_{k}")["observation"])
            assert state[k * L + hand.start:k * L + hand.stop].tolist() == game.hands[k]
        stock = state[n * L:n * L + NUM_CARD_TYPES]
        assert stock.tolist() == np.bincount(game.stock, minlength=NUM_CARD_TYPES).tolist()
        # every card is somewhere: hands, stock, discard pile, table
        table = np.bincount([c for t in game.table for m in t for c in m.cards], minlength=NUM_CARD_TYPES)
        hands = sum(np.asarray(h) for h in game.hands)
        assert (hands + stock + np.bincount(game.discard, minlength=NUM_CARD_TYPES) + table).tolist() == deck_counts()
        assert state[-n:].tolist() == [float(k == game.current_player) for k in range(n)]
        if raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))


def test_state_before_reset_is_refused() -> None:
    raw = carioca_v0.raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        raw.state()
    with pytest.raises(RuntimeError, match="reset"):
        raw.step(0)


def test_catalogue_counts() -> None:
    assert (len(NOT_IDS), len(BAD_IDS), len(BAD_OPTIONS), len(BAD_RESETS), len(BAD_ARGUMENTS)) >= (18, 4, 25, 13, 12)
