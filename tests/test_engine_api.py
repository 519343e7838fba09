"""The engine API for search and analysis: clone, pickle/deepcopy, determinization, positions."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

from carioca_env import Game, GameConfig, InvalidPositionError, Meld, Phase, Position, carioca_v0  # noqa: E402
from carioca_env.cards import JOKER, cards_of, deck_counts, make_card  # noqa: E402
from carioca_env.determinize import determinize, hidden_slots, unseen_pool  # noqa: E402
from carioca_env.melds import MeldKind  # noqa: E402
from carioca_env.position import position_of  # noqa: E402

from random_play import BiasedPolicy  # noqa: E402


def _played(seed: int, moves: int, n: int = 2, deals: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)) -> Game:
    """A game after ``moves`` biased random moves (openings, lay-offs and swaps happen)."""
    game = Game(GameConfig(n, deals), seed=seed)
    policy = BiasedPolicy(random.Random(seed + 1), joker_runs=True)
    for _ in range(moves):
        if game.game_over:
            break
        game.apply(policy.choose(game))
    return game


def _state(game: Game) -> dict:
    """Everything a game holds, comparable with ==."""
    d = {k: v for k, v in game.__dict__.items() if k not in ("rng", "_rng_shared", "table", "_snapshot", "_snapshot_version", "_table_moves_cache")}
    d["rng"] = game.rng.getstate()
    d["table"] = [[(m.kind, m.key, m.lo, list(m.cards), m.owner) for m in melds] for melds in game.table]
    return d


def _mutable_ids(obj, seen=None) -> set[int]:
    """ids of every list/dict/set (and object with state) reachable from ``obj``."""
    seen = set() if seen is None else seen
    stack = [obj]
    out = set()
    while stack:
        x = stack.pop()
        if id(x) in seen or isinstance(x, (int, str, float, bool, type(None), Phase, tuple, frozenset)):
            if isinstance(x, tuple):
                stack.extend(y for y in x if id(y) not in seen)
                seen.add(id(x))
            continue
        seen.add(id(x))
        if isinstance(x, (list, dict, set)) or hasattr(x, "__dict__") or hasattr(x, "__slots__"):
            if not dataclasses.is_dataclass(x) or not type(x).__dataclass_params__.frozen:
                out.add(id(x))
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, set)):
            stack.extend(x)
        elif hasattr(x, "__dict__"):
            stack.extend(vars(x).values())
        elif hasattr(x, "__slots__"):
            stack.extend(getattr(x, s) for s in x.__slots__ if hasattr(x, s))
    return out


def _play_random(game: Game, rng: random.Random, moves: int) -> list[str]:
    out = []
    for _ in range(moves):
        if game.game_over:
            break
        move = rng.choice(game.legal_moves())
        game.apply(move)
        out.append(str(move))
    return out


# ---------------------------------------------------------------------------- clone


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 400), n=st.integers(2, 4))
def test_clone_equals_original_and_shares_nothing_mutable(seed: int, moves: int, n: int) -> None:
    game = _played(seed, moves, n)
    clone = game.clone()
    assert all(clone.view(s) == game.view(s) for s in range(n))
    assert clone.legal_moves() == game.legal_moves()
    # the one object both hold is the generator, shared copy-on-use (Game.rng): frozen
    # while shared, as the test below checks; everything else is the clone's own
    rng = game.__dict__["rng"]
    assert clone.__dict__["rng"] is rng and game.__dict__["_rng_shared"] and clone.__dict__["_rng_shared"]
    shared = _mutable_ids(game.__dict__) & _mutable_ids(clone.__dict__)
    assert shared <= _mutable_ids(rng)
    # the first to draw copies it: afterwards not even the generator is shared
    frozen = rng.getstate()
    clone.rng.random()
    assert rng.getstate() == frozen and clone.rng is not rng
    game.rng.random()
    assert rng.getstate() == frozen and game.rng is not rng
    assert not _mutable_ids(game.__dict__) & _mutable_ids(clone.__dict__)
    assert _state(clone) == _state(game)  # both drew one number from the same state


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 300))
def test_clone_diverges_independently_and_plays_on_identically(seed: int, moves: int) -> None:
    game = _played(seed, moves, 3)
    before = _state(game)
    clone = game.clone()
    # the clone moves on; the original does not change
    _play_random(clone, random.Random(seed), 200)
    assert _state(game) == before
    # the same moves from the same state give the same game (the generator is copied too)
    twin = game.clone()
    a = _play_random(game, random.Random(seed + 7), 300)
    b = _play_random(twin, random.Random(seed + 7), 300)
    assert a == b and _state(game) == _state(twin)


def test_clone_cost_is_a_list_copy_not_a_deepcopy() -> None:
    # the state is flat: a clone rebuilds no meld snapshot and shares the immutable ones
    game = _played(3, 250)
    clone = game.clone()
    assert clone.table_melds() == game.table_melds()
    assert clone.history is not game.history and clone.history == game.history
    assert all(a is b for a, b in zip(clone.history, game.history))  # events are immutable


# ---------------------------------------------------------------------------- pickle / deepcopy


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("seed,moves", [(1, 0), (2, 150), (5, 600)])
def test_game_round_trip_plays_on_identically(how: str, seed: int, moves: int) -> None:
    game = _played(seed, moves, 3)
    other = pickle.loads(pickle.dumps(game)) if how == "pickle" else copy.deepcopy(game)
    assert _state(other) == _state(game)
    a = _play_random(game, random.Random(seed), 400)
    b = _play_random(other, random.Random(seed), 400)
    assert a == b and _state(game) == _state(other)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_env_round_trip_steps_identically(how: str) -> None:
    def run(env, rng: random.Random, steps: int) -> list:
        out = []
        for _ in range(steps):
            obs, reward, term, trunc, _info = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            out.append((env.agent_selection, action, reward, obs["observation"].tobytes()))
            env.step(action)
            if not env.agents:
                break
        return out

    env = carioca_v0.env(num_players=2, deals=(1,))
    env.reset(seed=4)
    run(env, random.Random(0), 60)
    other = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert run(env, random.Random(9), 200) == run(other, random.Random(9), 200)


# ---------------------------------------------------------------------------- determinization


def _seen(game: Game, seat: int) -> dict:
    v = game.view(seat)
    return {
        "hand": game.hands[seat],
        "table": game.table_melds(),
        "discard": game.discard,
        "sizes": game.hand_sizes,
        "stock_size": len(game.stock),
        "known": [game.known[s] for s in range(game.num_players)],
        "view": v,
    }


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 500), n=st.integers(2, 4), numpy_rng=st.booleans())
def test_determinization_never_moves_a_seen_card(seed: int, moves: int, n: int, numpy_rng: bool) -> None:
    game = _played(seed, moves, n)
    if game.game_over:
        return
    seat = seed % n
    rng = np.random.default_rng(seed) if numpy_rng else random.Random(seed)
    det = game.determinize(seat, rng)
    assert _seen(det, seat) == _seen(game, seat)
    for s in range(n):  # the cards an opponent surely holds stay in its hand
        assert all(det.hands[s][c] >= k for c, k in enumerate(game.known[s]))
    total = [sum(h[c] for h in det.hands) + det.stock.count(c) + det.discard.count(c)
             + sum(m.cards.count(c) for ms in det.table for m in ms) for c in range(53)]
    assert total == deck_counts()
    # it plays on: legal moves agree for the seat to act when that is the viewer
    if game.current == seat:
        assert det.legal_moves() == game.legal_moves()
    _play_random(det, random.Random(seed), 300)


def test_determinization_is_seeded() -> None:
    game = _played(11, 120, 3)
    a = determinize(game, 1, np.random.default_rng(5))
    b = determinize(game, 1, np.random.default_rng(5))
    c = determinize(game, 1, np.random.default_rng(6))
    assert _state(a) == _state(b)
    assert (a.hands, a.stock) != (c.hands, c.stock)


def test_each_unseen_card_lands_in_each_place_with_the_right_frequency() -> None:
    """Places: each opponent's hidden cards, the stock's top card, the rest of the stock.
    Over N samples the copies of each unseen card type fall in a place in proportion
    to its size (chi-square goodness of fit over all card types and places)."""
    game = _played(21, 150, 3)
    seat = 0
    view = game.view(seat)
    # the opponents surely hold cards taken from the pile, and a contract is on the table
    assert sum(view.known_cards[1]) and sum(view.known_cards[2]) and view.table[0]
    pool = unseen_pool(view)
    slots = hidden_slots(view)
    opps = [s for s in range(3) if s != seat]
    sizes = [slots[s] for s in opps] + [1, view.stock_size - 1]
    total = sum(sizes)
    assert total == sum(pool)
    n_samples = 1500
    rng = np.random.default_rng(2024)
    observed = np.zeros((53, len(sizes)))
    for _ in range(n_samples):
        det = game.determinize(seat, rng)
        for j, s in enumerate(opps):
            hidden = list(det.hands[s])
            for c, k in enumerate(view.known_cards[s]):
                hidden[c] -= k
            observed[:, j] += hidden
        stock_top = det.stock[-1]
        observed[stock_top, len(opps)] += 1
        rest = det.stock[:-1]
        for c in rest:
            observed[c, len(opps) + 1] += 1
    cards = [c for c in range(53) if pool[c]]
    assert observed[[c for c in range(53) if not pool[c]]].sum() == 0  # seen cards never move
    expected = np.array([[n_samples * pool[c] * sz / total for sz in sizes] for c in cards])
    stat = ((observed[cards] - expected) ** 2 / expected).sum()
    df = len(cards) * (len(sizes) - 1)
    p = chi2.sf(stat, df)
    assert p > 1e-3, f"chi-square {stat:.1f} on {df} df, p={p:.2g}"
    # and a biased sampler would be caught: put one card type always in the first hand
    biased = observed[cards].copy()
    biased[0] = 0
    biased[0, 0] = n_samples * pool[cards[0]]
    assert chi2.sf(((biased - expected) ** 2 / expected).sum(), df) < 1e-6


# ---------------------------------------------------------------------------- positions


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 500), n=st.integers(2, 4))
def test_position_round_trip(seed: int, moves: int, n: int) -> None:
    game = _played(seed, moves, n)
    if game.game_over:
        with pytest.raises(InvalidPositionError, match="game is over"):
            position_of(game)
        return
    pos = position_of(game)
    again = Game.from_position(pos, seed=game.seed)
    assert all(again.view(s) == game.view(s) for s in range(n))
    assert again.legal_moves() == game.legal_moves()
    assert position_of(again) == pos
    _play_random(again, random.Random(seed), 300)


def _simple_position(**changes) -> Position:
    """Deal 1 (2 trios), 2 players; seat 0 has opened with 8s and Ks; seat 1 to draw."""
    eights = Meld.trio(8, (0, 1, 2))
    kings = Meld.trio(13, (0, 1), 1)
    used = list(eights.cards + kings.cards)
    rest = deck_counts()
    for c in used:
        rest[c] -= 1
    pool = cards_of(rest)
    random.Random(0).shuffle(pool)
    h0, h1 = pool[:5], pool[5:16]
    discard = pool[16:18]
    stock = pool[18:]
    base = dict(
        hands=(tuple(h0), tuple(h1)), table=((eights, kings), ()), stock=tuple(stock), discard=tuple(discard),
        dealer=0, current=1, phase=Phase.DRAW, deals=(1, 2, 3, 4, 5, 6, 7), deal_index=0, totals=(0, 0),
    )
    base.update(changes)
    return Position(**base)


def test_a_valid_explicit_position_plays() -> None:
    pos = _simple_position()
    game = Game.from_position(pos, seed=3)
    assert game.opened == [True, False] and game.hand_sizes == [5, 11]
    assert game.view(1).stock_size == len(pos.stock)
    assert game.stock[-1] == pos.stock[0]  # stock[0] is the next card drawn
    game.push("draw stock")
    assert game.hands[1][pos.stock[0]] >= 1
    _play_random(game, random.Random(0), 500)


def _swap_cards(pos: Position, seat: int, out: int, into: int) -> tuple:
    hand = list(pos.hands[seat])
    hand[hand.index(out)] = into
    hands = list(pos.hands)
    hands[seat] = tuple(hand)
    return tuple(hands)


BAD_POSITIONS = {
    "too many cards": (lambda p: dataclasses.replace(p, stock=p.stock + (5,)), "cards", "not the 108"),
    "a card missing": (lambda p: dataclasses.replace(p, stock=p.stock[1:]), "cards", "want"),
    "not a card": (lambda p: dataclasses.replace(p, discard=(99,)), "discard", "not a card type"),
    "trio of two ranks": (
        lambda p: dataclasses.replace(p, table=((Meld(MeldKind.TRIO, 8, 0, (make_card(8, 0), make_card(8, 1), make_card(9, 2))), p.table[0][1]), ())),
        "table", "mixes ranks"),
    "trio of two jokers": (
        lambda p: dataclasses.replace(p, table=((Meld.trio(8, (0,), 2), p.table[0][1]), ())), "table", "at least 2 of them natural"),
    "run with a gap": (
        lambda p: dataclasses.replace(p, deals=(2,), table=((Meld.trio(8, (0, 1, 2)), Meld(MeldKind.RUN, 0, 4, (make_card(4, 0), make_card(5, 0), make_card(7, 0), make_card(8, 0)))), ())),
        "table", "not the card of its run position"),
    "run past the ace": (
        lambda p: dataclasses.replace(p, deals=(2,), table=((Meld.trio(8, (0, 1, 2)), Meld(MeldKind.RUN, 0, 12, (make_card(12, 0), make_card(13, 0), make_card(1, 0), make_card(2, 0)))), ())),
        "table", "never wraps"),
    "melds not the contract": (
        lambda p: dataclasses.replace(p, table=((p.table[0][0],), ())), "table", "not the contract"),
    "unopened hand size": (
        lambda p: dataclasses.replace(p, hands=(p.hands[0][:1], p.hands[1] + p.hands[0][1:])), "hands", "holds the deal's 11"),
    "opened empty hand": (
        lambda p: dataclasses.replace(p, hands=((), p.hands[1]), stock=p.stock + p.hands[0]), "hands", "holds no card"),
    "discard phase unopened": (
        lambda p: dataclasses.replace(p, phase=Phase.DISCARD), "phase", "follows an opening"),
    "game over phase": (lambda p: dataclasses.replace(p, phase=Phase.GAME_OVER), "phase", "DRAW, PLAY or DISCARD"),
    "empty stock at a draw": (
        lambda p: dataclasses.replace(p, stock=(), discard=p.discard + p.stock), "stock", "R13"),
    "dealer not a seat": (lambda p: dataclasses.replace(p, dealer=2), "dealer", "seat 0..1"),
    "current not a seat": (lambda p: dataclasses.replace(p, current=-1), "current", "seat 0..1"),
    "five players": (lambda p: dataclasses.replace(p, hands=p.hands * 2 + (p.hands[0],)), "num_players", "2, 3 or 4"),
    "deal index": (lambda p: dataclasses.replace(p, deal_index=7), "deal_index", "0..6"),
    "totals per seat": (lambda p: dataclasses.replace(p, totals=(0,)), "totals", "one entry per seat"),
    "known card not held": (
        lambda p: dataclasses.replace(p, known=((), (JOKER,) * 5)), "known", "surely holds 5x JK"),
}


@pytest.mark.parametrize("name", sorted(BAD_POSITIONS))
def test_bad_positions_are_refused_with_a_message_naming_the_problem(name: str) -> None:
    change, field, words = BAD_POSITIONS[name]
    bad = change(_simple_position())
    with pytest.raises(InvalidPositionError) as info:
        Game.from_position(bad)
    assert info.value.field == field
    assert words in str(info.value)


def test_a_position_game_has_no_replayable_record() -> None:
    from carioca_env import RecordError

    with pytest.raises(RecordError, match="explicit position"):
        Game.from_position(_simple_position()).to_record()
