"""The ``planning``, ``discards`` and ``advice`` observation variants: layout, values, no
leak, fast path equal to the reference."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carioca_agents.advice import (
    ADVICE_SIZE,
    PLAY_TARGETS_PER_SEAT,
    advice_play_size,
    encode_advice,
    encode_advice_play,
)
from carioca_agents.heuristic import HeuristicAgent
from carioca_env import Game, GameConfig, carioca_v0
from carioca_env.analysis import analyze, counts_minus, sim_table, unseen_counts
from carioca_env.cards import JOKER, NUM_CARD_TYPES
from carioca_env.env import CariocaState
from carioca_env.errors import InvalidConfigError
from carioca_env.meld_moves import view_meld_moves
from carioca_env.observation import encode_observation, obs_layout
from carioca_env.planning import DISCARD_SIZE, PLANNING_SIZE, encode_discards, encode_planning
from carioca_env.view import Phase

from test_env import _shuffle_hidden  # the env tests' reshuffle of the cards a seat cannot see


def _walk(n: int, deals: tuple[int, ...], seed: int, steps: int, features: str = "planning"):
    """States along a game played by a random policy that likes to meld (copies every few steps)."""
    rng = random.Random(seed)
    state = CariocaState(Game(GameConfig(num_players=n, deals=deals), seed=seed), features)
    for k in range(steps):
        if state.game.game_over:
            return
        legal = [int(a) for a in np.flatnonzero(state.mask())]
        melding = [a for a in legal if state.table.decode(a).kind.name in ("OPEN_MELD", "LAY_OFF", "SWAP")]
        yield state
        state.step(rng.choice(melding) if melding and rng.random() < 0.9 else rng.choice(legal))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_layout_appends_the_planning_pieces(n: int) -> None:
    base, plan = obs_layout(n), obs_layout(n, "planning")
    assert plan.size == base.size + PLANNING_SIZE == base.size + 160
    assert [p for p in plan.table()[:len(base.table())]] == base.table()
    assert [name for name, *_ in plan.table()[-4:]] == ["plan_deficiency", "plan_used", "plan_outs", "plan_fits"]
    env = carioca_v0.env(num_players=n, features="planning")
    env.reset(seed=0)
    assert env.observation_space(env.agents[0])["observation"].shape == (plan.size,)


@pytest.mark.parametrize("n", [2, 4])
def test_layout_appends_the_discard_pieces_after_the_planning_ones(n: int) -> None:
    plan, disc = obs_layout(n, "planning"), obs_layout(n, "discards")
    assert disc.size == plan.size + DISCARD_SIZE == plan.size + 108
    assert disc.table()[:len(plan.table())] == plan.table()
    assert [name for name, *_ in disc.table()[-3:]] == ["disc_deficiency", "disc_outs", "top_gain"]
    env = carioca_v0.env(num_players=n, features="discards")
    env.reset(seed=0)
    assert env.observation_space(env.agents[0])["observation"].shape == (disc.size,)


@pytest.mark.parametrize("n", [2, 4])
def test_layout_appends_the_advice_pieces_after_the_discard_ones(n: int) -> None:
    disc, advice = obs_layout(n, "discards"), obs_layout(n, "advice")
    assert advice.size == disc.size + ADVICE_SIZE == disc.size + 108
    assert advice.table()[:len(disc.table())] == disc.table()
    assert [name for name, *_ in advice.table()[-4:]] == ["advice_discard", "advice_best", "advice_take", "advice_meld"]
    env = carioca_v0.env(num_players=n, features="advice")
    env.reset(seed=0)
    assert env.observation_space(env.agents[0])["observation"].shape == (advice.size,)


def test_advice_is_the_heuristics_own_choice() -> None:
    """Where the heuristic is to act, advice_meld says whether it melds, advice_best holds
    the card it discards (whatever its tie-break) and advice_take its draw; other seats
    read zeros."""
    draws = discards = opened = melds = opening = 0
    for state in _walk(2, (1, 3, 6), 12, 900, "advice"):
        game = state.game
        seat = game.current_player
        assert not encode_advice(game.view(1 - seat)).any()
        view = game.view(seat)
        piece = encode_advice(view, bool(state.pending))
        discard_part, take, meld = piece[:2 * NUM_CARD_TYPES], piece[-2], piece[-1]
        assert piece.min() >= 0 and piece.max() <= 1
        if state.pending:  # an opening is being chosen: the heuristic opens at once
            assert meld == 1 and not discard_part.any() and take == 0
            opening += 1
            continue
        legal = game.legal_moves()
        choice = HeuristicAgent(seed=len(game.moves)).act(view, legal)
        if view.phase is Phase.DRAW:
            assert not discard_part.any() and meld == 0
            if len(legal) == 2:  # both draws allowed
                assert take == (choice.kind.name == "DRAW_DISCARD")
                draws += 1
            continue
        assert take == 0
        assert meld == (choice.kind.name != "DISCARD")
        if meld:
            assert not discard_part.any()
            melds += 1
            continue
        held = {c for c, k in enumerate(view.hand_counts) if k}
        assert set(np.flatnonzero(piece[:NUM_CARD_TYPES])) <= held
        best = set(np.flatnonzero(piece[NUM_CARD_TYPES:2 * NUM_CARD_TYPES]))
        assert best and best <= held and all(piece[c] == 1.0 for c in best)
        assert choice.card in best
        discards += 1
        opened += view.opened[seat]
    assert draws > 50 and discards > 50 and opened > 5 and melds > 5 and opening > 0


@pytest.mark.parametrize("n", [2, 4])
def test_layout_appends_the_advice_play_pieces_after_the_advice_ones(n: int) -> None:
    advice, play = obs_layout(n, "advice"), obs_layout(n, "advice_play")
    assert play.size == advice.size + advice_play_size(n) == advice.size + NUM_CARD_TYPES + 3 * n + 3
    assert play.table()[:len(advice.table())] == advice.table()
    assert [name for name, *_ in play.table()[-3:]] == ["advice_play", "advice_target", "advice_slot"]
    env = carioca_v0.env(num_players=n, features="advice_play")
    env.reset(seed=0)
    assert env.observation_space(env.agents[0])["observation"].shape == (play.size,)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_meld_moves_from_a_view_are_the_games(n: int) -> None:
    """The heuristic's advice enumerates moves from the view: the same list as the engine's."""
    compared = opened = 0
    for state in _walk(n, (2, 5, 7), 40 + n, 700):
        game = state.game
        if game.phase is Phase.PLAY:
            assert view_meld_moves(game.view(game.current_player)) == game.meld_moves()
            compared += 1
            opened += game.opened[game.current_player]
    assert compared > 40 and opened > 10


def _slot(piece: np.ndarray, n: int) -> list[int]:
    return list(np.flatnonzero(piece[NUM_CARD_TYPES + PLAY_TARGETS_PER_SEAT * n:]))


@pytest.mark.parametrize("n", [2, 4])
def test_advice_play_is_the_heuristics_next_meld(n: int) -> None:
    """Lay-offs and swaps: the card, meld and slot of the heuristic's own move.  Openings:
    at every meld step, the heuristic's openings that begin with the melds chosen so far
    (whatever its tie-break) have their next meld within the advice.  Zeros where it
    discards, draws, or another seat acts."""
    layoffs = swaps = openings = discards = 0
    states = (state for seed in (12, 13, 14) for state in _walk(n, (1, 3, 6), seed + 10 * n, 1000, "advice_play"))
    for state in states:
        game = state.game
        seat = game.current_player
        assert not encode_advice_play(game.view((seat + 1) % n)).any()
        view = game.view(seat)
        piece = encode_advice_play(view, state.pending)
        assert piece.min() >= 0 and piece.max() <= 1
        legal = game.legal_moves()
        if view.phase is not Phase.PLAY:
            assert not piece.any()
            continue
        if state.pending:
            k = len(state.pending)
            legal = [m for m in legal if m.kind.name == "OPEN" and m.melds[:k] == tuple(state.pending)]
        for tie_seed in range(4):
            choice = HeuristicAgent(seed=tie_seed).act(view, legal)
            if choice.kind.name == "DISCARD":
                assert not piece.any()
                discards += 1
                break
            if choice.kind.name == "OPEN":
                meld = choice.melds[len(state.pending)]
                for c in set(meld.cards):
                    assert piece[c] >= meld.cards.count(c) / 2
                kind = 0 if meld.kind.name == "TRIO" else 1 if meld.cards[0] == JOKER else 2 if meld.cards[-1] == JOKER else None
                assert kind is None or piece[NUM_CARD_TYPES + PLAY_TARGETS_PER_SEAT * n + kind] == 1
                openings += 1
                continue
            # a lay-off or a swap: deterministic, one card, one meld, one slot
            rel = (choice.owner - seat) % n
            assert list(np.flatnonzero(piece[:NUM_CARD_TYPES])) == [choice.card]
            assert list(np.flatnonzero(piece[NUM_CARD_TYPES:NUM_CARD_TYPES + PLAY_TARGETS_PER_SEAT * n])) == [
                rel * PLAY_TARGETS_PER_SEAT + choice.index]
            assert _slot(piece, n) == [0 if choice.end is None else int(choice.end.name == "HIGH") + 1]
            layoffs += choice.kind.name == "LAY_OFF"
            swaps += choice.kind.name == "SWAP"
            break
    assert layoffs > 10 and openings > 10 and discards > 50, (layoffs, swaps, openings, discards)


def test_discard_values_are_the_analysis_of_each_hand_left() -> None:
    checked = tops = lowered = 0
    for state in _walk(2, (2, 5), 6, 300, "discards"):
        game = state.game
        seat = game.current_player
        view = game.view(seat)
        piece = encode_discards(view)
        top = view.top_discard
        fits = top >= 0 and any(m.fits(top) for m in sim_table(view))
        assert piece[-1] == fits
        tops += fits
        if view.opened[seat]:
            assert not piece[:-1].any()
            continue
        lowers = top >= 0 and top in analyze(view.hand_counts, view.contract).outs
        assert piece[-2] == lowers
        lowered += lowers
        unseen = unseen_counts(view)
        for c in range(NUM_CARD_TYPES):
            if not view.hand_counts[c]:
                assert piece[c] == 0 and piece[NUM_CARD_TYPES + c] == 0
                continue
            a = analyze(counts_minus(view.hand_counts, c), view.contract)
            assert piece[c] == pytest.approx(a.deficiency / view.contract.cards)
            assert piece[NUM_CARD_TYPES + c] == pytest.approx(min(1.0, sum(unseen[x] for x in a.outs) / 24))
        checked += 1
    assert checked > 20 and tops > 0 and lowered > 0


def test_planning_values_are_the_hand_analysis() -> None:
    checked = 0
    for state in _walk(2, (3,), 4, 200):
        game = state.game
        seat = game.current_player
        view = game.view(seat)
        piece = encode_planning(view)
        if view.opened[seat]:
            assert piece[0] == 0 and not piece[1:1 + 2 * NUM_CARD_TYPES].any()
            continue
        a = analyze(view.hand_counts, view.contract)
        assert piece[0] == pytest.approx(a.deficiency / view.contract.cards)
        assert set(np.flatnonzero(piece[1:54])) == set(a.used_types)
        assert set(np.flatnonzero(piece[54:107])) == set(a.outs)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("features", ["planning", "discards", "advice", "advice_play"])
@pytest.mark.parametrize("n", [2, 4])
def test_planning_observation_does_not_depend_on_hidden_cards(n: int, features: str) -> None:
    rng = random.Random(9)
    changed = 0
    for deal in (1, 4, 7):
        for k, state in enumerate(_walk(n, (deal,), 30 + deal, 160, features)):
            if k % 8:
                continue
            game = state.game
            for seat in range(n):
                twin = _shuffle_hidden(game, seat, rng)
                changed += any(twin.hands[s] != game.hands[s] for s in range(n))
                pending = state.pending if seat == game.current_player else ()
                assert np.array_equal(encode_observation(game.view(seat), pending, features),
                                      encode_observation(twin.view(seat), pending, features))
    assert changed > 10


@pytest.mark.parametrize("n,features", [(2, "planning"), (3, "planning"), (2, "discards"), (4, "discards"),
                                        (3, "advice"), (2, "advice_play"), (4, "advice_play")])
def test_fast_planning_encoder_equals_the_view_based_reference(n: int, features: str) -> None:
    """Every seat at every step of a whole game: the env's cached encoder and the reference."""
    fits = opened = 0
    tail = {"planning": 0, "discards": DISCARD_SIZE, "advice": DISCARD_SIZE + ADVICE_SIZE,
            "advice_play": DISCARD_SIZE + ADVICE_SIZE + advice_play_size(n)}[features]
    for state in _walk(n, (1, 2, 3, 4, 5, 6, 7), 3, 1200, features):
        game = state.game
        for seat in range(n):
            pending = state.pending if seat == game.current_player else ()
            fast = state.observe(seat)
            assert np.array_equal(fast, encode_observation(game.view(seat), pending, features))
            fits += bool(fast[len(fast) - tail - NUM_CARD_TYPES:len(fast) - tail].any())
            opened += game.opened[seat]
    assert fits > 0 and opened > 0  # the table part and the after-opening part were exercised


def test_unknown_feature_set_is_refused() -> None:
    with pytest.raises(InvalidConfigError, match="features"):
        carioca_v0.env(features="godview")
    with pytest.raises(ValueError, match="features"):
        encode_observation(Game(GameConfig(num_players=2), seed=0).view(0), (), "x")
