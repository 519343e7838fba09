"""The declared-randomness protocol of the agents (carioca_agents.base.DeclaredChoice): a scripted
agent declares exactly the options its generator chose from, and nothing else."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_agents.base import DeclaredChoice, SeededAgent, declared_choice
from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig, Move, PlayerView


class SpyRandom(random.Random):
    """A generator that records every ``randrange(n)`` and its result."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.calls: list[tuple[int, int]] = []

    def randrange(self, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        r = super().randrange(*args, **kwargs)
        self.calls.append((args[0], r))
        return r


class ForcedRandom(random.Random):
    """A generator whose ``randrange`` returns a fixed index (every other call fails)."""

    def __init__(self, index: int = 0) -> None:
        super().__init__(0)
        self.index = index

    def randrange(self, n, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        assert not args and not kwargs and self.index < n
        return self.index


def play_checked(spec: str, contract: int, seed: int, max_moves: int = 400) -> int:
    """Play a 2-player deal of ``spec`` against itself; at every move check the declaration
    against the generator's calls, and that forcing the generator to each declared index
    plays that option.  Returns the number of declared choices."""
    game = Game(GameConfig(num_players=2, deals=(contract,)), seed=seed)
    agents = [make_agent(spec, 7 * seed + s) for s in range(2)]
    spies = [SpyRandom(seed + s) for s in range(2)]
    for a, spy in zip(agents, spies):
        a.rng = spy
    declared = 0
    for _ in range(max_moves):
        if game.deal_results:
            break
        seat = game.current
        view, legal = game.view(seat), game.legal_moves()
        before = copy.deepcopy(agents[seat])
        spies[seat].calls.clear()
        move = agents[seat].act(view, legal)
        choice = declared_choice(agents[seat])
        calls = spies[seat].calls
        if not calls:
            assert choice is None
        else:
            assert len(calls) == 1  # the scripted agents make one pick per move at most
            assert choice is not None
            n, r = calls[0]
            assert len(choice.options) == n and choice.chosen == r and choice.move == move
            assert choice.probs is None and set(choice.options) <= set(legal)
            assert len(set(choice.options)) == n
            for j in range(n):
                clone = copy.deepcopy(before)
                clone.rng = ForcedRandom(j)
                assert clone.act(view, legal) == choice.options[j]
            declared += 1
        game.apply(move)
    return declared


@settings(max_examples=12, deadline=None)
@given(spec=st.sampled_from(["greedy", "heuristic"]), contract=st.integers(1, 7), seed=st.integers(0, 10_000))
def test_scripted_agents_declare_exactly_what_their_generator_chose_from(spec: str, contract: int, seed: int) -> None:
    play_checked(spec, contract, seed)


def test_ties_are_declared_often_enough_to_matter() -> None:
    """Over a few deals each scripted agent declares choices (the check above is not vacuous)."""
    for spec in ("greedy", "heuristic", "random"):
        assert sum(play_checked(spec, 1 + d % 7, 100 + d, 60) for d in range(4)) > 0


class TwoPicks(SeededAgent):
    """Makes two random picks in one move: declares nothing."""

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        self.choose(list(legal))
        return self.choose(list(legal))


class PicksThenIgnores(SeededAgent):
    """Picks at random but plays the first legal move: declares nothing."""

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        self.choose(list(legal)[::-1])
        return legal[0]


class Deterministic(SeededAgent):
    """Never picks: its last declaration is cleared at each move."""

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        return legal[0]


def _first_discard_state() -> tuple[PlayerView, list[Move]]:
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=3)
    game.apply(Move.draw_stock())
    return game.view(game.current), game.legal_moves()


def test_ambiguous_or_unused_picks_declare_nothing() -> None:
    view, legal = _first_discard_state()
    assert len(legal) > 2
    for cls in (TwoPicks, PicksThenIgnores):
        agent = cls(1)
        agent.act(view, legal)
        assert declared_choice(agent) is None


def test_a_declaration_lasts_one_move_only() -> None:
    view, legal = _first_discard_state()
    agent = make_agent("random", 4)
    agent.act(view, legal)
    first = declared_choice(agent)
    assert first is not None and first.options == tuple(legal)
    assert first.weights() == pytest.approx([1 / len(legal)] * len(legal))
    forced = [m for m in legal if m == legal[0]]
    agent.act(view, forced)  # one legal move: no pick
    assert declared_choice(agent) is None
    agent.act(view, legal)
    agent.reset(5)
    assert declared_choice(agent) is None
    det = Deterministic(0)
    det.last_choice = first  # a stale declaration from elsewhere is cleared by act
    det.act(view, legal)
    assert declared_choice(det) is None


def test_an_agent_that_declares_nothing_reads_as_none() -> None:
    class Plain:
        name = "plain"
        last_choice = "not a declared choice"

    assert declared_choice(Plain()) is None
    assert declared_choice(object()) is None


def test_declared_choice_refuses_malformed_declarations() -> None:
    a, b = Move.discard(0), Move.discard(1)
    with pytest.raises(ValueError, match="at least two"):
        DeclaredChoice((a,), 0)
    with pytest.raises(ValueError, match="chosen index"):
        DeclaredChoice((a, b), 2)
    with pytest.raises(ValueError, match="probabilities"):
        DeclaredChoice((a, b), 0, (0.7, 0.7))
    with pytest.raises(ValueError, match="probabilities"):
        DeclaredChoice((a, b), 0, (1.0,))
    assert DeclaredChoice((a, b), 1, (0.25, 0.75)).weights() == (0.25, 0.75)


class ForcedSampler:
    """Stands for the PPO agent's numpy generator: records the distribution it is asked to
    sample and returns a fixed index."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.asked: list[list[float]] = []

    def choice(self, n: int, p: Sequence[float]) -> int:
        self.asked.append(list(p))
        return min(self.index, n - 1)


def test_a_sampling_learned_agent_declares_its_exact_probabilities() -> None:
    """A PPO agent that samples declares each one-step move with exactly the distribution
    its generator was asked to sample, and forcing the generator to each index plays that
    option; the default, most-likely-action agent declares nothing."""
    pytest.importorskip("sb3_contrib")
    from carioca_agents.ppo_agent import PPOAgent

    sampling = PPOAgent("contract1", seed=3, deterministic=False)
    greedy = PPOAgent("contract1", seed=3)
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=21)
    declared = 0
    for _ in range(40):
        if game.deal_results:
            break
        view, legal = game.view(game.current), game.legal_moves()
        greedy.act(view, legal)
        assert declared_choice(greedy) is None
        move = sampling.act(view, legal)
        choice = declared_choice(sampling)
        if choice is not None:
            declared += 1
            assert choice.move == move and set(choice.options) <= set(legal)
            assert len(set(choice.options)) == len(choice.options)
            for j in range(len(choice.options)):
                sampling.rng = ForcedSampler(j)  # type: ignore[assignment]
                assert sampling.act(view, legal) == choice.options[j]
                assert sampling.rng.asked == [pytest.approx(list(choice.weights()))]  # type: ignore[attr-defined]
            sampling.rng = np.random.default_rng(declared)
        game.apply(move)
    assert declared > 0
