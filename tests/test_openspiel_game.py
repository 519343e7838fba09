"""The OpenSpiel game ``python_carioca`` (:mod:`carioca_env.openspiel_game`).

OpenSpiel's own test of a game (``pyspiel.random_sim_test``: clones, serialization, legal
actions, chance outcomes, observation tensors, returns) for 2, 3 and 4 players and several
contract sets; the game and ``carioca_v0`` step by step on the same cards (legal actions
equal the env's mask, observations equal, same totals and returns); what a seat knows
does not move with the cards it cannot see; serialization with chance outcomes; and
OpenSpiel's IS-MCTS searching the game, from a seat's view only.
"""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import ismcts, mcts

from carioca_env import Game, GameConfig, carioca_v0, parse_move
from carioca_env.action_state import ActionRangeError, IllegalActionError
from carioca_env.actions import ActionKind, action_table
from carioca_env.cards import hand_penalty
from carioca_env.env import EnvConfig, worst_return
from carioca_env.errors import InvalidArgumentError, InvalidConfigError
from carioca_env.moves import MoveKind
from carioca_env.observation import encode_observation, obs_layout
from carioca_env.openspiel_game import DEFAULT_PARAMS, GAME_NAME, bot_move, state_from_view

from random_play import BiasedPolicy

ROOT = Path(__file__).resolve().parent.parent
CHANCE = int(pyspiel.PlayerId.CHANCE)


def load(players: int = 2, deals: int = 1234567, max_turns: int = 1000, score_truncated: bool = False) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, {"players": players, "deals": deals, "max_turns": max_turns,
                                         "score_truncated": score_truncated})


def sample_chance(state: pyspiel.State, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def check_chance(state: pyspiel.State) -> None:
    """Chance outcomes: distinct, in range, positive, summing to 1, and the legal actions."""
    if not state.is_chance_node():
        return
    outcomes = state.chance_outcomes()
    actions = [a for a, _ in outcomes]
    assert actions == sorted(set(actions)) and all(0 <= a < 53 for a in actions)
    assert all(p > 0 for _, p in outcomes) and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    assert state.legal_actions() == actions


def relative(totals: list[int] | tuple[int, ...]) -> list[float]:
    """The game's utility: the others' mean total minus one's own."""
    n, whole = len(totals), sum(totals)
    return [(whole - t) / (n - 1) - t for t in totals]


def biased_state(game: pyspiel.Game, seed: int, stop: Callable[[pyspiel.State], bool], limit: int = 20000) -> pyspiel.State:
    """Play chance at random and decisions with the biased driver (openings, lay-offs,
    closes) until ``stop(state)``; the driver reads the engine game, as drivers may."""
    rng = random.Random(seed)
    policy = BiasedPolicy(rng)
    state = game.new_initial_state()
    table = action_table(game.num_players())
    queue: list[int] = []
    for _ in range(limit):
        if stop(state) or state.is_terminal():
            return state
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        if not queue:
            engine = state.carioca_state.game
            queue = table.move_actions(policy.choose(engine), engine.current_player)
        state.apply_action(queue.pop(0))
    raise AssertionError("the stop condition was never met")


# ------------------------------------------------------------------ the game and its parameters


def test_defaults_sizes_and_game_type() -> None:
    game = pyspiel.load_game(GAME_NAME)
    assert game.get_parameters() == DEFAULT_PARAMS
    assert pyspiel.load_game(str(game)).get_parameters() == DEFAULT_PARAMS  # the game string round-trips
    kind = game.get_type()
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    for n in (2, 3, 4):
        g = load(n)
        env = carioca_v0.env(num_players=n)
        assert g.num_players() == n
        assert g.num_distinct_actions() == env.action_space("player_0").n
        size = env.observation_space("player_0")["observation"].shape[0]
        assert g.observation_tensor_shape() == [size] == g.information_state_tensor_shape()
        assert g.max_chance_outcomes() == 53
        assert g.max_utility() == -worst_return(EnvConfig(num_players=n)) == -g.min_utility()
    one = load(3, deals=36, max_turns=50)
    assert str(pyspiel.load_game(str(one))) == str(one)
    assert one.max_game_length() == 2 * 50 * 13  # per turn at most a draw, 11 melding steps and a discard


@pytest.mark.parametrize("params, words", [
    ({"players": 5}, "2, 3 or 4"), ({"players": 1}, "2, 3 or 4"), ({"deals": 8}, "one digit each"),
    ({"deals": 1230}, "one digit each"), ({"deals": 0}, "one digit each"), ({"max_turns": 0}, "at least 1"),
])
def test_bad_parameters_are_refused_with_a_typed_error(params: dict, words: str) -> None:
    with pytest.raises(InvalidConfigError, match=words):
        pyspiel.load_game(GAME_NAME, params)


# ------------------------------------------------------------------ OpenSpiel's own test of a game


@pytest.mark.parametrize("players, deals, max_turns, sims", [
    (2, 1234567, 40, 3), (2, 3, 200, 2), (3, 25, 60, 2), (3, 1, 100, 2), (4, 7, 60, 2), (4, 46, 40, 2),
])
def test_random_sim_test(players: int, deals: int, max_turns: int, sims: int) -> None:
    game = load(players, deals, max_turns)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False, state_checker_fn=check_chance)


@pytest.mark.parametrize("players, deals", [(2, 1234567), (3, 2), (4, 5)])
def test_random_sim_test_through_deal_ends(players: int, deals: int) -> None:
    """Uniform random play hardly ever closes a deal, so the runs start from states the
    biased driver reached: a seat has opened (random play may close from there), and the
    next deal being dealt after a close."""
    game = load(players, deals, max_turns=150, score_truncated=True)
    opened = biased_state(game, players, lambda s: not s.is_chance_node() and any(s.carioca_state.game.opened))
    assert not opened.is_terminal()
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False, state_checker_fn=check_chance,
                            specific_initial_state=opened)
    if deals > 9:  # a state dealing the next deal after a closed one
        dealt = biased_state(game, players, lambda s: s.is_chance_node() and s.carioca_state is None and "closed by" in str(s))
        assert not dealt.is_terminal()
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False, state_checker_fn=check_chance,
                                specific_initial_state=dealt)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_random_sim_test_at_the_defaults(players: int) -> None:
    """The whole game at the env's turn cap (random play runs a deal to the cap: ~30 s)."""
    pyspiel.random_sim_test(load(players), num_sims=1, serialize=True, verbose=False, state_checker_fn=check_chance)


# ------------------------------------------------------------------ the game and the env agree


def _agree(seed: int, players: int, deals: tuple[int, ...], max_turns: int, biased: bool) -> tuple[bool, bool]:
    """Drive carioca_v0 and the OpenSpiel game with the same actions, each OpenSpiel chance
    node resolved to the card the env's game dealt or drew; check every step.  Returns
    (some deal closed, the game was cut)."""
    env = carioca_v0.env(num_players=players, deals=deals, max_turns=max_turns)
    env.reset(seed=seed)
    engine = env.unwrapped.game
    agents = env.possible_agents
    game = load(players, int("".join(map(str, deals))), max_turns)
    state = game.new_initial_state()
    table = action_table(players)
    rng = random.Random(seed)
    policy = BiasedPolicy(rng)
    received: list[list[int]] = []

    def resolve() -> None:
        nonlocal received
        while state.is_chance_node():
            check_chance(state)
            outcomes = dict(state.chance_outcomes())
            words = state.action_to_string(CHANCE, next(iter(outcomes))).split()
            if words[0] == "dealer":
                action = engine.first_dealer
            elif words[0] == "deal":
                seat = int(words[-1])
                if not any(received):
                    received = [sorted(engine.hand(s)) for s in range(players)]
                action = received[seat].pop(0)
            elif words[0] == "upcard":
                action = engine.discard[0]
                received = []
            else:
                assert words[0] == "stock"
                action = engine.drawn_card
            assert action in outcomes
            state.apply_action(action)

    resolve()
    returns = np.zeros(players)
    queue: list[int] = []
    while True:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        seat = agents.index(agent)
        assert not state.is_terminal() and state.current_player() == seat
        legal = state.legal_actions()
        assert legal == np.flatnonzero(obs["action_mask"]).tolist()
        for s, a in enumerate(agents):
            assert np.array_equal(state.observation_tensor(s), env.observe(a)["observation"])
            assert np.array_equal(state.information_state_tensor(s), env.observe(a)["observation"])
        if biased:
            if not queue:
                queue = table.move_actions(policy.choose(engine), seat)
            action = queue.pop(0)
        else:
            action = rng.choice(legal)
        text = state.action_to_string(seat, action)
        if not text.startswith("meld "):
            assert parse_move(text) == table.to_move(action, seat)
        env.step(action)
        state.apply_action(action)
        returns += [env.rewards[a] for a in agents]
        resolve()
    assert state.is_terminal()
    os_engine = state.carioca_state.game
    assert os_engine.totals == engine.totals and os_engine.deal_results == engine.deal_results
    assert list(returns) == [-t for t in engine.totals]  # the env's penalty rewards sum to minus the totals
    assert state.returns() == pytest.approx(relative(engine.totals))
    assert sum(state.returns()) == pytest.approx(0.0)
    cut = any(env.truncations.values())
    assert cut == (not engine.game_over)
    return bool(engine.deal_scores), cut


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), players=st.sampled_from([2, 3, 4]),
       deals=st.lists(st.integers(1, 7), min_size=1, max_size=3).map(tuple), biased=st.booleans())
def test_the_game_and_the_env_agree_step_by_step(seed: int, players: int, deals: tuple[int, ...], biased: bool) -> None:
    _agree(seed, players, deals, 120, biased)


def test_the_agreement_covers_closed_deals_and_cuts() -> None:
    """The property above is not vacuous: whole games with closed deals, and a cut one."""
    outcomes = [_agree(seed, 2 + seed % 3, (1, 2, 3, 4, 5, 6, 7), 400, True) for seed in range(3)]
    assert all(closed for closed, _ in outcomes)
    assert _agree(5, 2, (3,), 15, False) == (False, True)


# ------------------------------------------------------------------ what a seat knows


def _views(state: pyspiel.State, seat: int) -> tuple[str, str, np.ndarray, np.ndarray]:
    return (state.information_state_string(seat), state.observation_string(seat),
            np.asarray(state.information_state_tensor(seat)), np.asarray(state.observation_tensor(seat)))


def _same(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and a[1] == b[1] and np.array_equal(a[2], b[2]) and np.array_equal(a[3], b[3])


def test_cards_a_seat_cannot_see_do_not_change_what_it_knows() -> None:
    """Two states that differ only in one opponent card (swapped with a stock card):
    the seat's information state and observation (strings and tensors) are the same;
    the opponent's differ."""
    game = load(3, 25, 200)
    state = biased_state(game, 3, lambda s: not s.is_chance_node() and s.carioca_state.game.turn >= 9)
    other = state.clone()
    engine = other.carioca_state.game
    seat = engine.current_player
    opponent = (seat + 1) % 3
    hidden = [c for c in engine.hand(opponent) if engine.known[opponent][c] == 0]
    swap_in = next(c for c in engine.stock if c not in hidden)
    engine.hands[opponent][hidden[0]] -= 1
    engine.hands[opponent][swap_in] += 1
    engine.stock[engine.stock.index(swap_in)] = hidden[0]
    assert str(state) != str(other)
    for s in range(3):
        if s != opponent:
            assert _same(_views(state, s), _views(other, s))
    assert not _same(_views(state, opponent), _views(other, opponent))
    # the tensor is the env's reference encoding of the seat's view
    assert np.array_equal(_views(state, seat)[3], encode_observation(state.carioca_state.game.view(seat)))


class _Sampler:
    """A probability sampler as OpenSpiel passes one: uniform in [0, 1), seeded."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self) -> float:
        return self.rng.random()


def _stage_stops() -> list[Callable[[pyspiel.State], bool]]:
    """States of every kind: dealing, a stock draw, a decision, an opening being chosen
    meld by meld, and the end."""
    return [
        lambda s: s.is_chance_node() and s.carioca_state is None and len(s.history()) > 9,
        lambda s: s.is_chance_node() and s.carioca_state is not None,
        lambda s: not s.is_chance_node() and s.carioca_state.game.turn >= 5,
        lambda s: not s.is_chance_node() and bool(s.carioca_state.pending),
        lambda s: s.is_terminal(),
    ]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), players=st.sampled_from([2, 3, 4]), stage=st.integers(0, 4))
def test_a_resampled_state_is_the_same_to_the_seat_and_fresh_elsewhere(seed: int, players: int, stage: int) -> None:
    game = load(players, 12, 150)
    state = biased_state(game, seed, _stage_stops()[stage])
    for seat in range(players):
        resampled = state.resample_from_infostate(seat, _Sampler(seed + seat))
        assert _same(_views(state, seat), _views(resampled, seat))
        assert resampled.current_player() == state.current_player()
        if not state.is_chance_node() and not state.is_terminal() and state.current_player() == seat:
            assert resampled.legal_actions() == state.legal_actions()
        if state.carioca_state is not None and not state.is_terminal():
            engine, other = state.carioca_state.game, resampled.carioca_state.game
            assert engine.hand(seat) == other.hand(seat)
            hidden = sum(engine.hand_sizes) - len(engine.hand(seat)) - sum(map(sum, engine.known)) + sum(engine.known[seat])
            if hidden >= 5:  # another deal of the unseen cards, all but surely not the same
                assert [engine.hand(s) for s in range(players)] != [other.hand(s) for s in range(players)]


def test_resampling_is_reproducible_from_the_sampler() -> None:
    state = biased_state(load(2, 3, 100), 1, lambda s: not s.is_chance_node() and s.carioca_state.game.turn >= 4)
    a, b = (state.resample_from_infostate(0, _Sampler(9)) for _ in range(2))
    assert str(a) == str(b)
    assert str(state.resample_from_infostate(0, _Sampler(10))) != str(a)


# ------------------------------------------------------------------ clones and serialization


@pytest.mark.parametrize("stage", range(5))
def test_serialization_and_clones_play_on_exactly(stage: int) -> None:
    game = load(2, 14, 80, score_truncated=True)
    state = biased_state(game, stage, _stage_stops()[stage])
    text = pyspiel.serialize_game_and_state(game, state)
    game2, copy = pyspiel.deserialize_game_and_state(text)
    clone, unpickled = state.clone(), pickle.loads(pickle.dumps(state))
    for other in (copy, clone, unpickled):
        assert str(other) == str(state) and other.history() == state.history()
    rng = random.Random(stage)
    while not state.is_terminal():
        action = sample_chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions())
        for s in (state, copy, clone, unpickled):
            s.apply_action(action)
        assert str(copy) == str(clone) == str(unpickled) == str(state)
    assert copy.returns() == clone.returns() == state.returns()
    assert str(game2) == str(game)


def test_a_clone_is_independent() -> None:
    state = biased_state(load(2, 1, 50), 0, lambda s: not s.is_chance_node())
    before = str(state)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == before != str(clone)


def test_bad_actions_raise_typed_errors_and_change_nothing() -> None:
    state = load().new_initial_state()
    with pytest.raises(InvalidArgumentError, match="seats 0..1"):
        state.apply_action(7)
    state = biased_state(load(), 0, lambda s: not s.is_chance_node())
    before = str(state)
    table = action_table(2)
    with pytest.raises(IllegalActionError):
        state.apply_action(next(a for a in range(table.size) if a not in state.legal_actions()))
    with pytest.raises(ActionRangeError):
        state.apply_action(10**6)
    assert str(state) == before
    state.apply_action(table.draw_stock())
    assert state.is_chance_node()
    missing = next(c for c in range(53) if c not in dict(state.chance_outcomes()))
    with pytest.raises(InvalidArgumentError, match="no card of the stock"):
        state.apply_action(missing)


def test_a_cut_deal_scores_by_the_hands_only_when_asked() -> None:
    for scored in (False, True):
        state = biased_state(load(3, 1, 6, score_truncated=scored), 4, lambda s: False)
        engine = state.carioca_state.game
        assert state.is_terminal() and engine.turn == 6 and not engine.deal_scores
        totals = [hand_penalty(engine.hands[s]) if scored else 0 for s in range(3)]
        assert state.returns() == pytest.approx(relative(totals))


# ------------------------------------------------------------------ OpenSpiel's search on the game


def _ismcts(game: pyspiel.Game, sims: int, seed: int) -> ismcts.ISMCTSBot:
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=sims, random_state=np.random.RandomState(seed))


def test_ismcts_plays_moves() -> None:
    game = load(3, 1, 20, score_truncated=True)
    bots = [_ismcts(game, 12, seat) for seat in range(3)]
    rng = random.Random(0)
    state = game.new_initial_state()
    decisions = 0
    while decisions < 8:
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1


def test_a_search_from_a_view_never_sees_hidden_cards() -> None:
    """Two real games that one seat cannot tell apart give the same search state and the
    same move: the state is built from the seat's view alone."""
    real = Game(GameConfig(2, (2,)), seed=11)
    policy = BiasedPolicy(random.Random(3))
    for _ in range(14):
        real.apply(policy.choose(real))
    seat = real.current_player
    twin = real.determinize(seat, random.Random(5))  # the same view, other hidden cards
    assert twin.view(seat) == real.view(seat) and twin.hand(1 - seat) != real.hand(1 - seat)
    game = load(2, 2, 1000, score_truncated=True)
    states = [state_from_view(game, g.view(seat), random.Random(8), horizon=6) for g in (real, twin)]
    assert str(states[0]) == str(states[1])
    moves = [bot_move(_ismcts(game, 10, 4), s) for s in states]
    assert moves[0] == moves[1] and moves[0] in real.legal_moves()


def test_bot_move_makes_a_whole_opening() -> None:
    """An opening takes one action per meld; bot_move returns the whole engine move."""
    game = load(2, 1234567, 300)
    state = biased_state(game, 2, lambda s: not s.is_chance_node() and any(
        m.kind is MoveKind.OPEN for m in s.carioca_state.game.legal_moves()))
    engine = state.carioca_state.game
    opening = action_table(2).ranges[ActionKind.OPEN_MELD]

    class FirstMeld:
        def step(self, at: pyspiel.State) -> int:
            return next(a for a in at.legal_actions() if a in opening)

    move = bot_move(FirstMeld(), state.clone())
    assert move.kind is MoveKind.OPEN and move in engine.legal_moves()
    with pytest.raises(InvalidConfigError, match="players"):
        state_from_view(load(3), engine.view(0), random.Random(0))
    with pytest.raises(InvalidConfigError, match="fit neither"):
        state_from_view(load(2, engine.deal_number % 7 + 1), engine.view(0), random.Random(0))


def test_observers_of_other_kinds_are_refused() -> None:
    game = load()
    with pytest.raises(InvalidArgumentError, match="own view only"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                         private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    state = biased_state(game, 0, lambda s: not s.is_chance_node())
    observer.set_from(state, 1)
    assert np.array_equal(observer.dict["hand"], observer.tensor[obs_layout(2).slices["hand"]])
    assert sum(observer.dict["hand"]) == 11 and "history" in observer.string_from(state, 1)


def test_without_open_spiel_the_import_names_the_extra() -> None:
    code = textwrap.dedent('''
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pyspiel", "open_spiel"):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, Block())
        try:
            import carioca_env.openspiel_game
        except ImportError as exc:
            print(type(exc).__name__, exc)
    ''')
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("MissingExtraError") and 'pip install "carioca-env[openspiel]"' in done.stdout
