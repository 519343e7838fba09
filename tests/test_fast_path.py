"""The engine's unchecked fast path against its checked reference.

``Game.apply_unchecked`` skips the rule checks of ``Game.apply`` for callers that hold a
legal move; ``CariocaState.play_legal`` skips the mask check of ``CariocaState.step``.
Both must leave exactly the state the checked path leaves, on every move of many games.
"""

from __future__ import annotations

import random
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from carioca_env import Game, GameConfig, Phase  # noqa: E402
from carioca_env.action_state import CariocaState  # noqa: E402

from random_play import BiasedPolicy  # noqa: E402


def _state(game: Game) -> dict:
    """Everything a game holds, comparable with ==."""
    d = {k: v for k, v in game.__dict__.items() if k not in ("rng", "_rng_shared", "table", "_snapshot", "_snapshot_version", "_table_moves_cache")}
    d["rng"] = game.rng.getstate()
    d["table"] = [[(m.kind, m.key, m.lo, list(m.cards), m.owner) for m in melds] for melds in game.table]
    return d


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), biased=st.booleans(), joker_runs=st.booleans())
def test_unchecked_apply_agrees_with_apply_on_every_move(seed: int, n: int, biased: bool, joker_runs: bool) -> None:
    """Two games from one seed, one played with ``apply`` and one with
    ``apply_unchecked``, stay equal after every move (openings, lay-offs, swaps, deal
    closes, stock recycling and cancelled deals included)."""
    deals = (1, 2, 3, 4, 5, 6, 7) if biased else (1,)
    checked, fast = Game(GameConfig(n, deals), seed=seed), Game(GameConfig(n, deals), seed=seed)
    rng = random.Random(seed)
    policy = BiasedPolicy(random.Random(seed + 1), joker_runs=joker_runs)
    for _ in range(1500):
        if checked.game_over:
            break
        moves = checked.legal_moves()
        assert fast.legal_moves() == moves
        move = policy.choose(checked, moves) if biased else rng.choice(moves)
        checked.apply(move)
        fast.apply_unchecked(move)
        assert _state(fast) == _state(checked), f"after {move}"


def test_unchecked_apply_covers_every_kind_of_move() -> None:
    """The games above reach every kind of move: the comparison is not vacuous."""
    kinds = set()
    for seed in range(6):
        game = Game(GameConfig(3), seed=seed)
        policy = BiasedPolicy(random.Random(seed), joker_runs=True)
        while not game.game_over and game.turn < 400:
            move = policy.choose(game)
            kinds.add(move.kind)
            game.apply_unchecked(move)
    assert len(kinds) == 6, kinds


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4))
def test_play_legal_agrees_with_the_checked_step(seed: int, n: int) -> None:
    """``CariocaState.play_legal`` (the env after its mask check) and ``step`` (which
    checks the id and the mask, then plays) leave the same game, pending opening and
    observations after every action id the mask offers."""
    cfg = GameConfig(n, (1, 2, 3))
    a, b = CariocaState(Game(cfg, seed=seed)), CariocaState(Game(cfg, seed=seed))
    rng = np.random.default_rng(seed)
    policy = BiasedPolicy(random.Random(seed), joker_runs=True)
    for _ in range(600):
        if a.game.game_over:
            break
        mask = a.mask()
        assert np.array_equal(mask, b.mask())
        legal = np.flatnonzero(mask)
        if a.pending or rng.random() < 0.5:
            action = int(rng.choice(legal))
        else:  # steer towards openings and lay-offs through the engine's own move
            move = policy.choose(a.game)
            ids = [x for x in a.table.move_actions(move, a.game.current_player) if mask[x]]
            action = ids[0] if ids else int(rng.choice(legal))
        a.step(action)
        b.play_legal(action)
        assert _state(b.game) == _state(a.game)
        assert b.pending == a.pending
        seat = a.game.current_player
        assert np.array_equal(b.observe(seat), a.observe(seat))


def _sparse_looks(seed: int, n: int, p_look: float, biased: bool, moves: int) -> int:
    """Play ``moves`` moves, encoding each seat with probability ``p_look`` before each
    one and comparing with the reference; returns how often the stock was recycled."""
    from carioca_env.observation import GameEncoder, encode_observation

    # random play hardly opens the longer contracts: their stock runs out and is rebuilt
    game = Game(GameConfig(n, (1, 2, 3) if biased else (1, 7)), seed=seed)
    encoder = GameEncoder(n)
    rng = random.Random(seed)
    policy = BiasedPolicy(random.Random(seed + 1), joker_runs=True)
    recycled = 0
    for _ in range(moves):
        if game.game_over:
            break
        for seat in range(n):
            if rng.random() < p_look:
                assert np.array_equal(encoder.encode(game, seat), encode_observation(game.view(seat))), len(game.moves)
        stock = len(game.stock)
        game.apply_unchecked(policy.choose(game) if biased else rng.choice(game.legal_moves()))
        recycled += len(game.stock) > stock
    return recycled


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), p_look=st.sampled_from([0.1, 0.4, 1.0]),
       biased=st.booleans())
def test_encoder_equals_the_reference_however_rarely_a_seat_looks(seed: int, n: int, p_look: float,
                                                                   biased: bool) -> None:
    """The encoder writes only what changed since a seat's last observation: whatever
    happened in between (several turns, a taken top discard, a new deal, table changes),
    it equals ``encode_observation`` of the seat's view."""
    _sparse_looks(seed, n, p_look, biased, 1200)


def test_encoder_equals_the_reference_across_recycled_stocks() -> None:
    """Random play of contract 7 runs the stock out: the pile is rebuilt (R13) between
    looks, and the encoder still equals the reference."""
    assert sum(_sparse_looks(seed, 2, 0.3, False, 4000) for seed in range(2)) >= 2


# --- the callers of the fast path: search rollouts and replays of checked records


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), spec=st.sampled_from(["heuristic", "greedy", "random"]))
def test_apply_choice_agrees_with_apply_on_every_move(seed: int, n: int, spec: str) -> None:
    """``Game.apply_choice`` (what search rollouts play) leaves the state ``apply`` leaves
    after every answer of the registered rollout policies (the heuristic builds some of its
    moves itself: an equal move plays the engine's own one)."""
    from carioca_agents.registry import make_agent

    cfg = GameConfig(n, (1, 4))
    checked, fast = Game(cfg, seed=seed), Game(cfg, seed=seed)
    policies = [make_agent(spec, seed + s) for s in range(n)]
    for _ in range(700):
        if checked.game_over:
            break
        legal = fast.legal_moves()
        move = policies[fast.current].act(fast.view(fast.current), legal)
        checked.apply(move)
        fast.apply_choice(move, legal)
        assert _state(fast) == _state(checked), f"after {move}"
        assert any(m is fast.moves[-1] for m in legal)  # the engine's own move is recorded


def test_apply_choice_refuses_what_apply_refuses() -> None:
    """A move that is not one of ``legal`` goes through the checked ``apply``: the same
    error, nothing changed; a ``Move`` subclass that claims equality with everything is
    checked too."""
    from carioca_env import CariocaError, Move

    class EqualToAll(Move):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = Move.__hash__

    game = Game(GameConfig(2), seed=3)
    game.apply(Move.draw_stock())
    legal = game.legal_moves()
    absent = next(c for c in range(53) if game.hands[game.current][c] == 0)
    for bad in (Move.discard(absent), Move.draw_stock(), "discard 8S", EqualToAll.discard(absent)):
        before = _state(game)
        with pytest.raises(CariocaError) as checked:
            game.apply(bad)  # type: ignore[arg-type]
        with pytest.raises(type(checked.value)):
            game.apply_choice(bad, legal)  # type: ignore[arg-type]
        assert _state(game) == before


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), contract=st.integers(1, 7))
def test_search_rollout_equals_the_checked_rollout(seed: int, n: int, contract: int) -> None:
    """``carioca_agents.search.rollout_value`` (unchecked moves) ends a rollout in the very state,
    with the very value, of the same rollout played through ``apply``."""
    from carioca_agents.registry import make_agent
    from carioca_agents.search import rollout_value
    from carioca_env.cards import hand_penalty

    game = Game(GameConfig(n, (contract,)), seed=seed)
    policy = BiasedPolicy(random.Random(seed))
    for _ in range(random.Random(seed).randrange(0, 30)):  # somewhere in the deal
        if game.game_over:
            return
        game.apply(policy.choose(game))
    det = game.determinize(game.current, random.Random(seed))
    fast, checked = det.clone(), det.clone()
    seat, max_moves = game.current, 300
    value = rollout_value(fast, seat, [make_agent("heuristic", 7 + i) for i in range(4)], 11, max_moves)
    policies = [make_agent("heuristic", 7 + i) for i in range(4)]
    for s in range(n):
        policies[s].reset(11 + s)
    limit = len(checked.moves) + max_moves
    while not checked.game_over and len(checked.moves) < limit:
        legal = checked.legal_moves()
        s = checked.current
        checked.apply(legal[0] if len(legal) == 1 else policies[s].act(checked.view(s), legal))
    scores = checked.deal_results[-1].scores if checked.game_over else \
        tuple(hand_penalty(checked.hands[s]) for s in range(n))
    assert value == (sum(scores) - scores[seat]) / (n - 1) - scores[seat]
    assert _state(fast) == _state(checked)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_replayed_positions_equal_the_checked_replay_at_every_move(n: int) -> None:
    """``Replay.game_at`` (checkpoints plus unchecked moves of a record checked once)
    equals a checked replay of the record's first ``k`` moves, for every ``k``."""
    from carioca_experiments.apps.serve.replays import build_replay

    game = Game(GameConfig(n, (1, 2, 3)), seed=n)
    policy = BiasedPolicy(random.Random(n), joker_runs=True)
    while not game.game_over:
        game.apply(policy.choose(game))
    record = game.to_record()
    replay = build_replay(record)
    fresh, moves = Game.start_of_record(record)
    kinds = set()
    for k in range(replay.length + 1):
        assert _state(replay.game_at(k)) == _state(fresh), k
        if k < replay.length:
            kinds.add(fresh.push(moves[k]).kind)
    assert len(kinds) >= 5, kinds  # openings, lay-offs, discards and draws were replayed


# --- cached lay-offs and swaps


def _compare_table_moves(seed: int, n: int, contract: int, clone_at: int) -> int:
    """Play a biased game (and a clone of it from move ``clone_at`` that plays on
    differently), comparing ``Game.meld_moves`` with ``meld_moves`` walking the table
    afresh before every move; returns how many play phases of opened seats had moves."""
    from carioca_env.meld_moves import meld_moves

    game = Game(GameConfig(n, (contract, contract % 7 + 1)), seed=seed)
    games = [game]
    policy = BiasedPolicy(random.Random(seed), joker_runs=True)
    rng = random.Random(seed)
    laid = 0
    for t in range(900):
        if t == clone_at:
            games.append(game.clone())
        for g in games:
            if g.game_over:
                continue
            seat = g.current
            reference = meld_moves(g.hands[seat], g.hand_sizes[seat], g.opened[seat], g.table, g.contract) \
                if g.phase is Phase.PLAY else []
            assert g.meld_moves() == reference, (t, g is game)
            laid += bool(reference) and g.opened[seat]
            g.apply(policy.choose(g) if g is game or rng.random() < 0.5 else rng.choice(g.legal_moves()))
    return laid


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), contract=st.integers(1, 7), clone_at=st.integers(0, 200))
def test_cached_table_moves_equal_the_walk_over_the_table(seed: int, n: int, contract: int, clone_at: int) -> None:
    """``Game.meld_moves`` (lay-offs and swaps filtered from a list kept per table
    version) equals ``meld_moves`` walking the table afresh, in the same order, in every
    play phase of biased games at every contract; a clone taken midway plays on
    differently and must not reuse the original's list."""
    _compare_table_moves(seed, n, contract, clone_at)


def test_cached_table_moves_are_compared_where_lay_offs_exist() -> None:
    """The comparison above meets opened seats with lay-offs and swaps to make."""
    assert sum(_compare_table_moves(seed, 3, 1 + seed % 7, 50) for seed in range(4)) >= 20


# --- the env's fast paths (encoder, mask) against their references, all contracts


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), deals=st.permutations([1, 2, 3, 4, 5, 6, 7]),
       p_look=st.sampled_from([0.15, 0.5, 1.0]), bias=st.sampled_from([0.0, 0.6, 0.95]))
def test_env_encoder_and_mask_equal_their_references(seed: int, n: int, deals: list[int], p_look: float,
                                                    bias: float) -> None:
    """Along a game of every contract (in any order) at 2-4 players, driven through
    action ids (openings meld by meld, lay-offs, swaps, as often as ``bias`` says): the
    mask before every step equals ``legal_mask`` of the engine's ``legal_moves()``, and
    each seat that looks (with probability ``p_look``, so the encoder's caches are stale
    by any number of moves) sees exactly ``encode_observation`` of its view."""
    from carioca_env.actions import ActionKind, action_table
    from carioca_env.observation import encode_observation

    table = action_table(n)
    state = CariocaState(Game(GameConfig(n, tuple(deals[:3])), seed=seed))
    rng = random.Random(seed)
    melding = (ActionKind.OPEN_MELD, ActionKind.LAY_OFF, ActionKind.SWAP)
    for _ in range(700):
        game = state.game
        if game.game_over:
            break
        actor = game.current_player
        mask = state.mask()
        assert np.array_equal(mask, table.legal_mask(game.legal_moves(), actor, state.pending)), len(game.moves)
        for seat in range(n):
            if rng.random() < p_look:
                pending = state.pending if seat == actor else ()
                assert np.array_equal(state.observe(seat), encode_observation(game.view(seat), pending)), \
                    (len(game.moves), seat)
        legal = [int(a) for a in np.flatnonzero(mask)]
        meld = [a for a in legal if table.decode(a).kind in melding]
        state.play_legal(rng.choice(meld) if meld and rng.random() < bias else rng.choice(legal))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_cached_action_moves_equal_the_decoded_ones(n: int) -> None:
    """``ActionTable.to_move`` (a table of moves per seat, built once) gives, for every id
    and seat, the move ``decode_move`` builds from the decoded id; ids outside the space
    are refused as before."""
    from carioca_env.actions import action_table

    table = action_table(n)
    for seat in range(n):
        for a in range(table.size):
            assert table.to_move(a, seat) == table.decode_move(a, seat), (a, seat)
    for bad in (-1, table.size):
        with pytest.raises(ValueError, match="outside the action space"):
            table.to_move(bad, 0)


# ---------------------------------------------------- the opening enumeration's shortcuts

from collections import Counter  # noqa: E402
from itertools import combinations_with_replacement  # noqa: E402

from carioca_env import CONTRACTS, JOKER, enumerate_openings  # noqa: E402
from carioca_env.openings import (  # noqa: E402
    _RUNS,
    _TRIOS,
    NEVER,
    fewest_run_jokers,
    fewest_trio_jokers,
    run_candidates,
    search_openings,
    trio_candidates,
)


def _holds(counts, melds) -> bool:
    need = Counter(c for m in melds for c in m.cards)
    return all(counts[c] >= k for c, k in need.items())


def _reference_candidates(counts):
    """Every trio and run of the full tables whose cards the hand holds, in table order
    (no shortcut: each meld checked card by card)."""
    trios = [meld for rank in _TRIOS for _needs, meld, _joker in rank if _holds(counts, [meld])]
    runs = [m for suit in _RUNS for _lo, plain, with_joker in suit for m in (plain, *with_joker) if _holds(counts, [m])]
    return trios, runs


def _reference_openings(counts, contract):
    """Every multiset of the contract's trios and runs the hand holds, keeping a card
    (R10): all combinations of the reference candidates, in the enumeration's order."""
    if sum(counts) - contract.cards < 1:
        return []
    trios, runs = _reference_candidates(counts)
    return [tuple(sorted(t + r))
            for t in combinations_with_replacement(trios, contract.trios)
            for r in combinations_with_replacement(runs, contract.runs)
            if _holds(counts, t + r)]


def _position_card(suit: int, p: int) -> int:
    return suit * 13 + (p if p < 14 else 1) - 1


@st.composite
def _hands(draw):
    """Hands of 8-14 cards (2 copies of a natural, 4 jokers at most), often built around
    melds of some contract's shape so that near misses and openings are common."""
    cards: list[int] = []
    for _ in range(draw(st.integers(0, 3))):  # trios
        r = draw(st.integers(0, 12))
        cards += [draw(st.integers(0, 3)) * 13 + r for _ in range(draw(st.integers(2, 3)))]
    for _ in range(draw(st.integers(0, 3))):  # runs, some with a gap
        s, lo = draw(st.integers(0, 3)), draw(st.integers(1, 11))
        cards += [_position_card(s, p) for p in range(lo, lo + 4) if draw(st.integers(0, 5))]
    cards += [JOKER] * draw(st.integers(0, 2))
    cards += draw(st.lists(st.integers(0, JOKER), max_size=14))
    size = draw(st.integers(8, 14))
    counts = [0] * (JOKER + 1)
    for c in cards:
        if counts[c] < (4 if c == JOKER else 2) and sum(counts) < size:
            counts[c] += 1
    return counts


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=_hands(), deal=st.integers(1, 7))
def test_opening_enumeration_equals_the_plain_search(counts: list[int], deal: int) -> None:
    """The candidates' shortcuts (ranks with too few naturals, suits with too few ranks)
    and the enumeration's early exits (runs first, each kind alone must fit) drop no
    opening and change no order: the result equals the search over every combination of
    every meld the hand holds."""
    contract = CONTRACTS[deal]
    trios, runs = _reference_candidates(counts)
    for seq in (counts, tuple(counts), np.array(counts)):
        assert trio_candidates(seq) == trios
        assert run_candidates(seq) == runs
    reference = _reference_openings(counts, contract)
    assert search_openings(counts, contract) == reference
    for seq in (counts, tuple(counts), np.array(counts), np.array(counts, dtype=np.uint8), bytes(counts)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a uint8 hand's size must not wrap below 0
            assert enumerate_openings(seq, contract) == reference


def _fewest_jokers(counts, candidates, k: int) -> int | None:
    """The fewest jokers ``k`` of ``candidates`` (repeats allowed) that the hand holds
    together take, or None when no ``k`` fit: the plain search over every combination."""
    used = [sum(m.cards.count(JOKER) for m in combo)
            for combo in combinations_with_replacement(candidates, k) if _holds(counts, combo)]
    return min(used) if used else None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=_hands())
def test_opening_joker_bounds_never_exceed_what_the_hand_takes(counts: list[int]) -> None:
    """``fewest_run_jokers`` and ``fewest_trio_jokers`` (the byte-level bounds
    ``enumerate_openings`` turns hands away with) never exceed the fewest jokers that
    1, 2 or 3 runs, or trios, laid together from the hand take in the plain search."""
    trios, runs = _reference_candidates(counts)
    held = bytes(counts)
    for k in (1, 2, 3):
        fewest = _fewest_jokers(counts, runs, k)
        if fewest is not None:
            assert fewest_run_jokers(held, k) <= fewest, k
        fewest = _fewest_jokers(counts, trios, k)
        if fewest is not None:
            assert fewest_trio_jokers(held, k) <= fewest, k


def test_opening_joker_bounds_on_hand_built_cases() -> None:
    """The bounds at their edges: a joker completes a run only where three of a window
    are held, one per run; a rank's fifth natural plus a joker makes its second trio."""
    from carioca_env import parse_cards
    from carioca_env.cards import counts_of

    def held(text: str) -> bytes:
        return bytes(counts_of(parse_cards(text)))

    assert fewest_run_jokers(held("4S 5S 8S 9H JH KH 2D 5D 7D JK JK"), 1) == NEVER  # no 3 of a window
    assert fewest_run_jokers(held("4S 5S 7S 9H JH KH 2D 5D 7D"), 1) == 1  # 4S 5S _ 7S
    assert fewest_run_jokers(held("4S 5S 7S 9H JH KH 2D 3D 4D"), 2) == 2  # and _ 2D 3D 4D
    assert fewest_run_jokers(held("4S 5S 7S 9H JH KH 2D 3D 4D"), 3) == NEVER
    assert fewest_run_jokers(held("QS KS AS 2H 3H 4H 5H"), 2) == 1  # Q K A high needs one
    assert fewest_run_jokers(held("JS QS KS AS 2H 3H 4H 5H"), 2) == 0  # J Q K A high is a run
    assert fewest_run_jokers(held("4S 5S 6S 7S 4S 5S 6S 7S"), 2) == 0  # two copies: two runs of a suit
    assert fewest_trio_jokers(held("8S 8H 9S 9H 9D KS"), 1) == 0
    assert fewest_trio_jokers(held("8S 8H 9S 9H 9D KS"), 2) == 1
    assert fewest_trio_jokers(held("8S 8H 8D 8C 8S 9S"), 2) == 1  # five 8s and a joker
    assert fewest_trio_jokers(held("8S 8H 8D 8C 9S"), 2) == 2  # four 8s and two jokers
    assert fewest_trio_jokers(held("8S 8H 9S 9H KS"), 3) == 4  # two pairs, a third rank from nothing


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), deals=st.permutations([1, 2, 3, 4, 5, 6, 7]),
       bias=st.sampled_from([0.0, 0.7, 1.0]))
def test_legal_moves_and_masks_equal_the_search_without_bounds(seed: int, n: int, deals: list[int],
                                                               bias: float) -> None:
    """In every play phase of a seat that has not opened, along games of every contract at
    2-4 players (random, biased towards openings, or mixed): ``legal_moves()`` equals the
    openings of ``search_openings`` (no bounds) followed by the discards, and the env's
    mask equals the mask of those moves, for the whole move and for every prefix of melds
    an opening can be chosen meld by meld with."""
    from carioca_env import Move, MoveKind
    from carioca_env.actions import action_table

    game = Game(GameConfig(n, tuple(deals[:3])), seed=seed)
    table = action_table(n)
    rng = random.Random(seed)
    policy = BiasedPolicy(random.Random(seed + 1), joker_runs=True)
    for _ in range(500):
        if game.game_over:
            break
        seat = game.current
        moves = game.legal_moves()
        if game.phase is Phase.PLAY and not game.opened[seat]:
            hand = game.hands[seat]
            reference = [Move(MoveKind.OPEN, melds=o) for o in search_openings(hand, game.contract)]
            reference += [Move.discard(c) for c in range(JOKER + 1) if hand[c]]
            assert moves == reference
            assert np.array_equal(table.game_mask(game), table.legal_mask(reference, seat))
            for prefix in {m.melds[:k] for m in reference if m.kind is MoveKind.OPEN for k in range(1, len(m.melds))}:
                assert np.array_equal(table.game_mask(game, prefix), table.legal_mask(reference, seat, prefix))
        game.apply_unchecked(policy.choose(game, moves) if rng.random() < bias else rng.choice(moves))


def test_the_bounds_turn_hands_away_and_let_openings_through() -> None:
    """The comparison above is not vacuous: along biased games of every contract the
    bounds turn most hands that cannot open away before the search, and the search still
    finds openings in the hands they let through."""
    turned_away = opened = 0
    for seed in range(7):
        game = Game(GameConfig(2, (seed + 1,)), seed=seed)
        policy = BiasedPolicy(random.Random(seed), joker_runs=True)
        while not game.game_over and game.turn < 300:
            seat = game.current
            if game.phase is Phase.PLAY and not game.opened[seat]:
                hand, contract = game.hands[seat], game.contract
                held = bytes(hand)
                runs = fewest_run_jokers(held, contract.runs) if contract.runs else 0
                trios = fewest_trio_jokers(held, contract.trios) if contract.trios else 0
                bounded = runs + trios > hand[JOKER]
                found = search_openings(hand, contract)
                assert not (bounded and found)
                turned_away += bounded
                opened += bool(found)
            game.apply(policy.choose(game))
    assert turned_away >= 100 and opened >= 7, (turned_away, opened)


def test_opening_enumeration_equals_the_plain_search_on_planted_hands() -> None:
    """The same comparison on hands planted with each contract's melds (a card of them
    left out or a joker in sometimes), so that every contract is opened many times and
    missed narrowly many times (candidates of each kind it asks for, no opening)."""
    rng = random.Random(7)
    opened: Counter = Counter()
    near: Counter = Counter()
    for _ in range(3000):
        counts = [0] * (JOKER + 1)
        deal = rng.randint(1, 7)
        contract = CONTRACTS[deal]
        for _ in range(contract.trios):
            r = rng.randrange(13)
            for _ in range(3):
                c = rng.choice((rng.randrange(4) * 13 + r, JOKER))
                counts[c] = min(counts[c] + 1, 4 if c == JOKER else 2)
        for _ in range(contract.runs):
            s, lo = rng.randrange(4), rng.randrange(1, 12)
            for p in range(lo, lo + 4):
                if rng.random() < 0.9:
                    c = _position_card(s, p)
                    counts[c] = min(counts[c] + 1, 2)
        while sum(counts) < contract.hand_size + 1:
            c = rng.randrange(JOKER + 1)
            counts[c] = min(counts[c] + 1, 4 if c == JOKER else 2)
        got = enumerate_openings(counts, contract)
        assert got == _reference_openings(counts, contract)
        trios, runs = _reference_candidates(counts)
        opened[deal] += bool(got)
        near[deal] += not got and bool(trios or not contract.trios) and bool(runs or not contract.runs)
    assert all(opened[d] >= 20 for d in range(1, 8)), opened
    assert all(near[d] >= 5 for d in range(1, 8)), near


# ------------------------------------------------------- the order enforcing wrapper's step

import logging  # noqa: E402

from pettingzoo.utils.wrappers import OrderEnforcingWrapper  # noqa: E402

from carioca_env import carioca_v0  # noqa: E402
from carioca_env.env import raw_env  # noqa: E402


def _outcome(call, caplog):
    """What a call did: its error (type and message) and what it logged (PettingZoo's
    warnings go through its logger), in comparable form."""
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        try:
            call()
            error = None
        except Exception as exc:  # noqa: BLE001 - compared, not handled
            error = (type(exc), str(exc))
    return error, [(r.levelno, r.getMessage()) for r in caplog.records]


def test_wrapper_step_does_what_pettingzoos_order_enforcing_step_does(caplog) -> None:
    """carioca_v0's wrapper answers step() itself (no __getattr__ chain); before reset, in
    play and after every agent is done it raises, plays and warns as PettingZoo's does."""
    ours, theirs = carioca_v0.env(num_players=2, deals=(1,)), OrderEnforcingWrapper(raw_env(num_players=2, deals=(1,)))
    assert type(ours).step is not OrderEnforcingWrapper.step
    assert _outcome(lambda: ours.step(0), caplog) == _outcome(lambda: theirs.step(0), caplog)
    assert _outcome(lambda: ours.step(0), caplog)[0] is not None  # refused before reset
    rng = np.random.default_rng(3)
    for env in (ours, theirs):
        env.reset(seed=11)
    steps = 0
    while ours.agents:
        obs, _r, term, trunc, _info = ours.last()
        other = theirs.last()
        assert np.array_equal(obs["action_mask"], other[0]["action_mask"]) and (term, trunc) == other[2:4]
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        assert _outcome(lambda: ours.step(action), caplog) == _outcome(lambda: theirs.step(action), caplog)
        steps += 1
    assert not theirs.agents and steps > 10
    assert ours._has_updated and theirs._has_updated
    after = _outcome(lambda: ours.step(0), caplog)
    assert after == _outcome(lambda: theirs.step(0), caplog) and after[1]  # the warning after the end
