"""The inferred belief (carioca_agents.belief.inferred): the replayed past views are the engine's,
the true hand of a heuristic opponent always explains its play, the samples follow the
weights, and search plays with it."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import numpy as np
import pytest

from carioca_agents.belief import UniformBelief
from carioca_agents.belief.inferred import InferredBelief, last_turns, legal_at, turn_likelihood
from carioca_agents.greedy import GreedyAgent
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig

from random_play import against_heuristic

GAMES = ((2, 4, 1), (3, 1, 2), (4, 6, 3), (2, 7, 4), (2, 2, 5), (3, 3, 6), (4, 5, 8))


def _play(n: int, deal: int, seed: int, agents: list, moves: int = 300) -> list[tuple[int, Game]]:
    """The positions of a one-deal game (history length before the move, a copy), at most ``moves``."""
    game = Game(GameConfig(n, (deal,)), seed=seed)
    out = []
    while not game.game_over and len(out) < moves:
        out.append((len(game.history), game.clone()))
        s = game.current
        game.apply(agents[s].act(game.view(s), game.legal_moves()))
    return out


def test_replayed_views_and_legal_moves_are_the_engines() -> None:
    """At every decision of heuristic games (2-4 players, openings, lay-offs and swaps
    included), each opponent's last turn replayed from the view is, event by event, the
    view the engine gave that opponent then (with its true hand) and its legal moves."""
    kinds: Counter[str] = Counter()
    checked = 0
    for n, deal, seed in GAMES:
        positions = _play(n, deal, seed, [HeuristicAgent(seed + i) for i in range(n)])
        before = {(g.current, h): g for h, g in positions}
        for _h, game in positions[::3]:
            view = game.view(game.current)
            for turn in last_turns(view):
                for ev, state in zip(turn.events, turn.steps):
                    then = before[(turn.seat, state.index)]
                    true = then.view(turn.seat)
                    rebuilt = state.view_of(view, turn.seat, true.hand_counts)
                    assert dataclasses.replace(rebuilt, history=tuple(rebuilt.history)) == \
                        dataclasses.replace(true, history=tuple(true.history))
                    assert legal_at(rebuilt) == then.legal_moves()
                    kinds[ev.kind] += 1
                    checked += 1
    assert checked > 500
    assert {"DRAW_STOCK", "DRAW_DISCARD", "OPEN", "LAY_OFF", "DISCARD"} <= set(kinds), kinds


def _true_hand_likelihoods(opponent: type, eps: float) -> list[float]:
    out = []
    for n, deal, seed in GAMES[:5]:
        positions = _play(n, deal, seed, [opponent(seed + i) for i in range(n)])
        policy = HeuristicAgent(0)
        for _h, game in positions[::2]:
            view = game.view(game.current)
            for turn in last_turns(view):
                out.append(turn_likelihood(view, turn, game.hands[turn.seat], policy, eps))
    return out


def test_a_heuristic_opponents_true_hand_always_explains_its_turn() -> None:
    """With no uniform part (eps 0) a heuristic opponent's true hand has a positive
    likelihood at every position; a greedy opponent's true hand does not."""
    heuristic = _true_hand_likelihoods(HeuristicAgent, 0.0)
    assert len(heuristic) > 200 and min(heuristic) > 0
    greedy = _true_hand_likelihoods(GreedyAgent, 0.0)
    assert sum(x == 0 for x in greedy) > 10
    mixed = _true_hand_likelihoods(GreedyAgent, 0.05)
    assert min(mixed) > 0  # the uniform part: nothing is impossible


def _view_with_spread_weights() -> tuple[object, InferredBelief]:
    """A 2-player view whose pool of 24 uniform candidates has weights far from equal."""
    for _h, game in _play(2, 4, 31, [HeuristicAgent(31), HeuristicAgent(32)])[10::2]:
        view = game.view(game.current)
        belief = InferredBelief(UniformBelief(), pool=24)
        post = belief.posterior(view)
        if 3 < post.effective_size < 12:
            return view, belief
    raise AssertionError("no view with spread weights")


def test_samples_follow_the_weights() -> None:
    """Chi-square, seeded: 6,000 samples' opponent hands, counted per distinct candidate,
    against the weights; the same counts fail against equal weights."""
    view, belief = _view_with_spread_weights()
    post = belief.posterior(view)
    opp = 1 - view.seat
    prob: dict[tuple[int, ...], float] = Counter()
    for cand, w in zip(post.hidden, post.weights):
        prob[tuple(sorted(cand[opp]))] += float(w)
    draws = 6000
    rng = random.Random(5)
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(draws):
        game = belief.sample(view, rng)
        hidden = list(game.hands[opp])
        for c, k in enumerate(view.known_cards[opp]):
            hidden[c] -= k
        seen[tuple(c for c, k in enumerate(hidden) for _ in range(k))] += 1
    assert set(seen) <= set(prob)
    live = [h for h in prob if prob[h] * draws >= 5]
    chi2 = sum((seen[h] - prob[h] * draws) ** 2 / (prob[h] * draws) for h in live)
    dof = len(live) - 1
    assert chi2 < dof + 4.5 * (2 * dof) ** 0.5, (chi2, dof)
    equal = {h: sum(1 for c in post.hidden if tuple(sorted(c[opp])) == h) / len(post.hidden) for h in prob}
    chi2_equal = sum((seen[h] - equal[h] * draws) ** 2 / (equal[h] * draws) for h in live)
    assert chi2_equal > dof + 4.5 * (2 * dof) ** 0.5


def test_the_expectation_is_the_weighted_mean_of_the_pool() -> None:
    view, belief = _view_with_spread_weights()
    post = belief.posterior(view)
    counts = post.hidden_counts(view.num_players)
    e = belief.expected_hidden(view)
    assert np.allclose(e, (post.weights[:, None, None] * counts).sum(axis=0))
    assert not np.allclose(e, counts.mean(axis=0))  # the weights move it
    assert np.isclose(post.weights.sum(), 1.0) and post.turns


def test_a_view_whose_history_does_not_replay_explains_nothing() -> None:
    _h, game = _play(2, 4, 3, [HeuristicAgent(3), HeuristicAgent(4)])[30]
    view = game.view(game.current)
    assert last_turns(view)
    cut = dataclasses.replace(view, history=tuple(view.history)[2:])
    assert last_turns(cut) == []
    post = InferredBelief(UniformBelief(), pool=4).posterior(cut)
    assert np.allclose(post.weights, 0.25)


def test_search_with_the_inferred_belief_plays_legally_and_reproducibly() -> None:
    def play(seed: int) -> list:
        search = make_agent("search:sims=4,belief=inferred,base=uniform,pool=8", seed)
        assert isinstance(search.belief, InferredBelief)
        return against_heuristic(search, 4, seed, 50)  # each move checked legal

    assert play(8) == play(8)


@pytest.mark.parametrize("eps", [0.0, 1.5])
def test_eps_is_checked(eps: float) -> None:
    with pytest.raises(ValueError, match="eps"):
        InferredBelief(UniformBelief(), eps=eps)
