"""The filtered belief (carioca_experiments.studies.belief.filtered): a function of the view and its seed, the
incremental path equal to a cold start, samples consistent with the view and following the
weights, resampling that follows the weights, particles that stay physically possible,
the fallback, and search playing with it."""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_agents.belief import UniformBelief, make_belief
from carioca_agents.belief.inferred import OpponentTurn, replay_states, turn_likelihood
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.registry import make_agent
from carioca_agents.search import SearchAgent
from carioca_env import Game, GameConfig, PlayerView
from carioca_env.cards import NUM_CARD_TYPES, deck_counts
from carioca_env.determinize import hidden_slots, unseen_pool
from carioca_env.view import PublicEvent
from carioca_experiments.studies.belief.filtered import (
    FilteredBelief,
    Particle,
    known_after_draw,
    opponent_turns,
    related_weights,
    systematic,
)

from random_play import against_heuristic

DECK = deck_counts()


def _seat_views(n: int, deal: int, seed: int, seat: int = 0, moves: int = 400) -> list[tuple[PlayerView, Game]]:
    """``seat``'s view at each of its draw decisions of a heuristic one-deal game, with a copy of the game."""
    game = Game(GameConfig(n, (deal,)), seed=seed)
    agents = [HeuristicAgent(seed + i) for i in range(n)]
    out = []
    for _ in range(moves):
        if game.game_over or game.deal_results:
            break
        s = game.current
        view = game.view(s)
        if s == seat and view.phase.name == "DRAW":
            out.append((view, game.clone()))
        game.apply(agents[s].act(view, game.legal_moves()))
    return out


def _same_state(a: object, b: object) -> bool:
    return a is not None and b is not None and a.particles == b.particles and a.log_weights == b.log_weights \
        and a.length == b.length  # type: ignore[attr-defined]


def test_the_incremental_path_equals_a_cold_start() -> None:
    """A belief asked at every decision of a deal (its filter carried forward) and a fresh
    belief asked only at the last, or at one in the middle, or out of order, end in the
    same particles and weights, expectation and samples."""
    checked = 0
    for n, deal, seed in ((2, 4, 3), (2, 1, 5), (3, 4, 7)):
        views = [v for v, _g in _seat_views(n, deal, seed)]
        carried = FilteredBelief(UniformBelief(), pool=12)
        for v in views:
            carried.expected_hidden(v)
        for v in (views[len(views) // 2], views[-1]):
            cold = FilteredBelief(UniformBelief(), pool=12)
            assert _same_state(carried.state(v), cold.state(v))
            assert np.array_equal(carried.expected_hidden(v), cold.expected_hidden(v))
            a, b = carried.sample(v, random.Random(4)), cold.sample(v, random.Random(4))
            assert (a.hands, a.stock) == (b.hands, b.stock)
            checked += 1
        # back to an earlier view, then forward again: the cache is cut at the common prefix
        late = carried.state(views[-1])
        carried.state(views[1])
        assert _same_state(carried.state(views[-1]), late)
        assert carried.state(views[-1]).resamples > 0  # the filter did resample on the way
    assert checked == 6


def test_same_view_and_seed_same_answer_and_the_seed_matters() -> None:
    view, _game = _seat_views(2, 4, 11)[6]
    a, b = FilteredBelief(UniformBelief(), pool=10), FilteredBelief(UniformBelief(), pool=10)
    assert np.array_equal(a.expected_hidden(view), b.expected_hidden(view))
    g1, g2 = a.sample(view, random.Random(3)), b.sample(view, random.Random(3))
    assert (g1.hands, g1.stock) == (g2.hands, g2.stock)
    others = {tuple(a.sample(view, random.Random(k)).stock) for k in range(6)}
    assert len(others) > 1


def test_particles_stay_possible_and_samples_keep_the_view() -> None:
    """At every decision of heuristic games (openings included): each live particle's
    hands hold no more copies than the deck, its hidden part is its hand minus the cards
    the opponent surely holds, with the view's hidden sizes; each sample's view is the
    seat's view, with exact hand sizes and the surely-held cards in place."""
    checked = 0
    opened = 0
    fallbacks = 0
    for n, deal, seed in ((2, 4, 3), (2, 4, 9), (3, 2, 4), (2, 7, 6)):
        belief = FilteredBelief(UniformBelief(), pool=10)
        for k, (view, game) in enumerate(_seat_views(n, deal, seed)):
            state = belief.state(view)
            assert state is not None
            opened += any(view.opened[s] for s in range(n) if s != view.seat)
            slots = hidden_slots(view)
            for p, lw in zip(state.particles, state.log_weights):
                if not math.isfinite(lw):
                    continue
                for s in range(n):
                    if s == view.seat:
                        continue
                    hidden = p.hidden(s)
                    assert all(h <= d for h, d in zip(p.hands[s], DECK))
                    assert [h - c for h, c in zip(p.hands[s], view.known_cards[s])] == hidden
                    assert sum(hidden) == slots[s]
            det = belief.sample(view, random.Random(k))
            assert det.view(view.seat) == view
            for s in range(n):
                assert det.hand_sizes[s] == view.hand_sizes[s]
                assert all(det.hands[s][c] >= m for c, m in enumerate(view.known_cards[s]))
            assert len(det.stock) == view.stock_size
            e = belief.expected_hidden(view)
            assert np.allclose(e.sum(axis=1), slots) and not e[view.seat].any()
            assert np.all(e.sum(axis=0) <= np.array(unseen_pool(view)) + 1e-9)
            checked += 1
        fallbacks += belief.fallbacks
    assert checked > 30 and opened > 0 and fallbacks < checked / 2  # the rest were answered by the filter


def test_a_particle_holding_the_true_hands_explains_every_turn() -> None:
    """The records' likelihoods are the turns' likelihoods: a heuristic opponent's true
    hand after each of its turns, with the card each stock draw truly brought, explains
    every turn with eps 0 (so the filter's model can hold the truth)."""
    game = Game(GameConfig(2, (4,)), seed=21)
    agents = [HeuristicAgent(21), HeuristicAgent(22)]
    after: dict[int, tuple[int, ...]] = {}
    drawn: dict[int, int] = {}
    view = None
    while not game.game_over and not game.deal_results:
        s = game.current
        before = list(game.hands[1])
        v = game.view(s)
        if s == 0:
            view = v
        move = agents[s].act(v, game.legal_moves())
        game.apply(move)
        if s == 1 and game.history[-1].kind == "DRAW_STOCK":
            drawn[len(game.history) - 1] = next(c for c in range(NUM_CARD_TYPES) if game.hands[1][c] > before[c])
        if s == 1 and game.history[-1].kind == "DISCARD":
            after[len(game.history) - 1] = tuple(game.hands[1])
    assert view is not None
    turns = opponent_turns(view, 0)
    states = replay_states(view, {i for _, a, b in turns for i in range(a, b + 1)})
    assert states is not None and len(turns) > 5
    policy = HeuristicAgent(0)
    for seat, a, b in turns:
        turn = OpponentTurn(seat, tuple(view.history[a:b + 1]), tuple(states[i] for i in range(a, b + 1)))
        assert turn_likelihood(view, turn, after[b], policy, 0.0, drawn.get(a)) > 0
        if turn.events[0].kind == "DRAW_DISCARD":  # the pile's card is surely held after the draw
            assert known_after_draw(turn)[turn.events[0].card] == turn.steps[0].known_cards[seat][turn.events[0].card] + 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-30, 0), min_size=1, max_size=20), st.integers(1, 60), st.integers(0, 10**6))
def test_systematic_resampling_keeps_each_count_within_one_of_its_share(logs: list[float], n: int, seed: int) -> None:
    """Systematic resampling draws index ``i`` ``floor(n w_i)`` or ``ceil(n w_i)`` times."""
    w = np.exp(np.array(logs) - max(logs))
    w /= w.sum()
    counts = Counter(systematic(np.array(logs), n, random.Random(seed)))
    assert sum(counts.values()) == n
    for i, wi in enumerate(w):
        assert math.floor(n * wi - 1e-9) <= counts[i] <= math.ceil(n * wi + 1e-9)


def test_resampling_follows_the_weights_in_distribution() -> None:
    """Chi-square, seeded: over 4,000 resamplings of one particle each, the index drawn
    follows the weights; the same counts fail against equal weights."""
    logs = np.log(np.array([0.4, 0.25, 0.15, 0.1, 0.06, 0.04]))
    rng = random.Random(9)
    draws = 4000
    seen = Counter(systematic(logs, 1, rng)[0] for _ in range(draws))
    w = np.exp(logs)
    chi2 = sum((seen[i] - w[i] * draws) ** 2 / (w[i] * draws) for i in range(len(w)))
    assert chi2 < 5 + 4.5 * 10 ** 0.5
    chi2_equal = sum((seen[i] - draws / len(w)) ** 2 / (draws / len(w)) for i in range(len(w)))
    assert chi2_equal > 5 + 4.5 * 10 ** 0.5


def test_samples_follow_the_posterior_weights() -> None:
    """Chi-square, seeded: 4,000 samples' opponent hidden hands, counted per distinct
    particle hand, against the posterior weights (seat's cards included)."""
    for view, _game in _seat_views(2, 4, 13)[4:]:
        belief = FilteredBelief(UniformBelief(), pool=16)
        post = belief.posterior(view)
        assert post is not None
        weights, particles = post
        if 3 < 1 / float(np.square(weights).sum()) < 12:
            break
    else:
        raise AssertionError("no view with spread weights")
    opp = 1 - view.seat
    prob: Counter[tuple[int, ...]] = Counter()
    for w, p in zip(weights, particles):
        prob[tuple(p.hidden(opp))] += float(w)
    draws = 4000
    rng = random.Random(2)
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(draws):
        game = belief.sample(view, rng)
        seen[tuple(h - k for h, k in zip(game.hands[opp], view.known_cards[opp]))] += 1
    assert set(seen) <= {h for h, w in prob.items() if w > 0}
    live = [h for h in prob if prob[h] * draws >= 5]
    chi2 = sum((seen[h] - prob[h] * draws) ** 2 / (prob[h] * draws) for h in live)
    dof = len(live) - 1
    assert dof >= 2 and chi2 < dof + 4.5 * (2 * dof) ** 0.5, (chi2, dof)
    assert np.allclose(belief.expected_hidden(view)[opp],
                       sum(w * np.array(p.hidden(opp)) for w, p in zip(weights, particles)))


def test_the_seats_own_cards_rule_out_particles() -> None:
    """A particle whose opponent holds copies the seat holds (more than the unseen
    copies) gets weight 0 at the end, though the filter kept it."""
    belief = FilteredBelief(UniformBelief(), pool=40)
    ruled_out = 0
    for view, _game in _seat_views(2, 4, 17)[1:]:
        state = belief.state(view)
        post = belief.posterior(view)
        assert state is not None and post is not None
        unseen = unseen_pool(view)
        for w, p, lw in zip(post[0], post[1], state.log_weights):
            fits = all(h <= u for h, u in zip(p.hidden(1), unseen))
            assert fits or w == 0
            ruled_out += math.isfinite(lw) and not fits
    assert ruled_out > 0


def test_a_recycle_or_a_history_that_does_not_replay_falls_back_to_the_base() -> None:
    view, _game = _seat_views(2, 4, 3)[8]
    base = make_belief("uniform")
    belief = FilteredBelief(base, pool=8)
    cut = dataclasses.replace(view, history=tuple(view.history)[2:])
    assert belief.state(cut) is None
    assert np.array_equal(belief.expected_hidden(cut), base.expected_hidden(cut))
    assert belief.fallbacks == 1
    recycled = dataclasses.replace(view, history=(*view.history, PublicEvent(1, "recycle", -1, 3)))
    assert belief.state(recycled) is None


def test_related_weights_favour_meld_partners_of_the_pile_takes() -> None:
    from carioca_env.cards import JOKER, make_card

    w = related_weights([make_card(5, 0)])
    assert w[make_card(5, 1)] > 1 and w[make_card(6, 0)] > 1 and w[JOKER] > 1
    assert w[make_card(9, 1)] == 1 and w[make_card(5, 0)] == 1
    assert related_weights([]) == [1.0] * NUM_CARD_TYPES


def test_particle_hidden_counts_its_arrivals() -> None:
    p = Particle(((), (0,) * NUM_CARD_TYPES), ((), ((3, 0), (3, 2), (7, 1))), ((), ()))
    hidden = p.hidden(1)
    assert hidden[3] == 2 and hidden[7] == 1 and sum(hidden) == 3


def test_search_with_the_filtered_belief_plays_legally_and_reproducibly() -> None:
    def play(seed: int) -> list:
        # not a spec: the filtered belief is a study's, which search takes as a built Belief
        search = SearchAgent(seed, sims=4, belief=FilteredBelief(UniformBelief(), 8))
        assert isinstance(search.belief, FilteredBelief) and search.belief.pool == 8
        return against_heuristic(search, 4, seed, 60)  # each move checked legal

    assert play(8) == play(8)


@pytest.mark.parametrize("kwargs", [{"pool": 0}, {"eps": 0.0}, {"eps": 1.5}, {"window": 0}, {"moves": -1}])
def test_arguments_are_checked(kwargs: dict) -> None:
    with pytest.raises(ValueError, match="pool must be"):
        FilteredBelief(UniformBelief(), **kwargs)


def test_the_product_does_not_offer_it() -> None:
    """A study's belief: neither make_belief nor search's spec know the name."""
    with pytest.raises(ValueError, match="unknown belief 'filtered'"):
        make_belief("filtered", base="uniform", pool=5)
    with pytest.raises(ValueError, match="bad value for belief"):
        make_agent("search:belief=filtered")
