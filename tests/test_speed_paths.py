"""Issue 42's fast paths against their slow references, on every step of many games.

- the env's observation (``GameEncoder``, written through an ``array.array``) and mask:
  byte for byte those of ``encode_observation`` of the seat's view and of
  ``ActionTable.legal_mask(game.legal_moves())``, at every step of hypothesis games
  driven through action ids (openings chosen meld by meld included);
- the mask ``CariocaState`` keeps from step to step (a bytearray whose ids set last time
  are cleared at each refresh): the reference's bytes before every step of env games,
  across resets, refused ids, ``forget()``, pending melds taken back, deep copies and
  pickles;
- the hand analysis: ``_prepare`` (per-suit tables) equals ``_prepare_reference`` (a
  walk over the cards), ``analyze`` (cached) equals an uncached analysis through the
  reference, ``deficiency_without`` / ``deficiency_with`` (bounded searches, or read from
  the outs of a cached analysis) equal the deficiency of the hand less / plus the card,
  and ``analysis_without`` (the hand's own analysis when no optimal plan uses the card)
  equals the analysis of the hand less the card, on every hand the heuristic meets;
- the analysis with outs (``_analyze``: leaves worked out in the node, outs and used
  types kept as bit masks; a plain search first or the cover read from a cached hand one
  card smaller; the search's pruning-only bounds) equals ``_analyze_reference(...,
  tight=False)`` from nothing;
- the heuristic's closed discard: ``_closed_best`` (candidates bounded before any
  search) ties the same candidates at the same costs, in the same order, as
  ``_closed_costs`` (every candidate searched);
- the heuristic: the same seeds give the same moves with the fast paths and with every
  one of them replaced by its reference (no cache, no tables, no bounds);
- ``Game.clone`` (the generator shared copy-on-use): a clone and a ``copy.deepcopy``
  taken at the same moment stay equal under the same play, and so does the original;
- ``Game.view`` (built without the dataclass's ``__init__``) equals the view built
  through it; ``groups_of`` (on rank masks) equals its rank-by-rank reference.

How each test was seen to fail with its fast path broken on purpose is in
``docs/results/2026-12-07-speed.md`` and ``docs/results/2026-12-07-speed-third-pass.md``.
"""

from __future__ import annotations

import copy
import io
import pickle
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from carioca_env import Game, GameConfig  # noqa: E402
from carioca_env.action_state import CariocaState  # noqa: E402
from carioca_env.analysis import counts_minus, counts_plus  # noqa: E402
from carioca_env.observation import encode_observation  # noqa: E402

from random_play import BiasedPolicy  # noqa: E402

_deficiency_module = sys.modules["carioca_env.analysis.deficiency"]


def _game_state(game: Game, rng: bool = True) -> dict:
    """Everything a game holds, comparable with == (the generator by its state, unless
    ``rng`` is false: reading it ends its sharing, see ``Game.rng``)."""
    d = {k: v for k, v in game.__dict__.items()
         if k not in ("rng", "_rng_shared", "table", "_snapshot", "_snapshot_version", "_table_moves_cache")}
    if rng:
        d["rng"] = game.rng.getstate()
    d["table"] = [[(m.kind, m.key, m.lo, list(m.cards), m.owner) for m in melds] for melds in game.table]
    return d


# ---------------------------------------------------------------- observation and mask


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), p_look=st.sampled_from([0.2, 1.0]),
       deals=st.sampled_from([(1, 2, 3, 4, 5, 6, 7), (3, 7), (1, 4)]))
def test_observations_and_masks_are_byte_identical_to_the_references(
        seed: int, n: int, p_look: float, deals: tuple[int, ...]) -> None:
    """Driven through action ids as the env is (biased towards openings, lay-offs and
    swaps, or random): before every step the actor's mask is the bytes of
    ``legal_mask(legal_moves())``, and each seat that looks sees the bytes of
    ``encode_observation`` of its view (the actor with the opening melds chosen so far)."""
    state = CariocaState(Game(GameConfig(n, deals), seed=seed))
    table = state.table
    rng = random.Random(seed)
    policy = BiasedPolicy(random.Random(seed + 1), joker_runs=True)
    biased = rng.random() < 0.7
    for _ in range(700):
        game = state.game
        if game.game_over:
            break
        actor = game.current_player
        mask = state.mask()
        reference = table.legal_mask(game.legal_moves(), actor, state.pending)
        assert mask.dtype == reference.dtype and mask.tobytes() == reference.tobytes(), len(game.moves)
        for seat in range(n):
            if seat == actor or rng.random() < p_look:
                pending = state.pending if seat == actor else ()
                fast = state.observe(seat)
                slow = encode_observation(game.view(seat), pending)
                assert fast.dtype == slow.dtype and fast.tobytes() == slow.tobytes(), (len(game.moves), seat)
        if state.pending:
            action = int(rng.choice(np.flatnonzero(mask)))
        else:
            move = policy.choose(game) if biased else rng.choice(game.legal_moves())
            action = table.move_actions(move, actor)[0]
        state.step(action)


# ---------------------------------------------------------------- the view


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4))
def test_game_view_equals_the_view_built_through_the_dataclass_init(seed: int, n: int) -> None:
    """``Game.view`` builds its :class:`PlayerView` without the frozen dataclass's
    ``__init__`` (:func:`carioca_env.view.make_view`): at every step of a game and for
    every seat it holds exactly the dataclass's fields, and equals (and hashes like) the
    view built through ``__init__`` from the same values."""
    from dataclasses import fields

    from carioca_env.view import PlayerView

    game = Game(GameConfig(n, (1, 2, 3, 4, 5, 6, 7)), seed=seed)
    policy = BiasedPolicy(random.Random(seed))
    names = [f.name for f in fields(PlayerView)]
    for _ in range(150):
        if game.game_over:
            break
        for seat in range(n):
            view = game.view(seat)
            assert list(vars(view)) == names
            built = PlayerView(**{name: getattr(view, name) for name in names})
            assert view == built and hash(view) == hash(built)
        game.apply(policy.choose(game, game.legal_moves()))


@settings(max_examples=300, deadline=None)
@given(cards=st.lists(st.integers(0, 52), max_size=20), trios=st.booleans(), runs=st.booleans())
def test_groups_of_equals_its_rank_by_rank_reference(cards: list[int], trios: bool, runs: bool) -> None:
    """The greedy player's groups (pairs, near-runs, jokers) found on the suits' rank
    masks equal those found rank by rank and position by position."""
    from carioca_env.analysis.hand_counts import groups_of, groups_of_reference

    counts = [0] * 53
    for c in cards:
        if counts[c] < (4 if c == 52 else 2):
            counts[c] += 1
    assert groups_of(counts, trios, runs) == groups_of_reference(counts, trios, runs)


# ---------------------------------------------------------------- the hand analysis


def _heuristic_hands(seed: int, n: int, deals: tuple[int, ...], decisions: int) -> Iterator[tuple[tuple[int, ...], object]]:
    """Every (hand counts, contract) a heuristic table holds at its decisions."""
    from carioca_agents.heuristic import HeuristicAgent

    game = Game(GameConfig(n, deals), seed=seed)
    agents = [HeuristicAgent(seed + s) for s in range(n)]
    for _ in range(decisions):
        if game.game_over:
            break
        s = game.current
        yield tuple(game.hands[s]), game.contract
        game.apply(agents[s].act(game.view(s), game.legal_moves()))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), deal=st.integers(1, 7))
def test_analysis_fast_paths_equal_their_references_on_every_hand(seed: int, n: int, deal: int) -> None:
    """On every hand of a heuristic game: the per-suit preparation equals the walk over
    the cards; the cached analysis equals an uncached one through the reference
    (deficiency, outs, used types, plans); the bounded searches equal the deficiency
    of the hand less and plus each card."""
    d = _deficiency_module
    for counts, contract in _heuristic_hands(seed, n, (deal,), 160):
        for runs in (0, contract.runs):
            assert d._prepare(counts, runs) == d._prepare_reference(counts, runs)
        fast = d.analyze(counts, contract)
        slow = d._analyze_reference(counts, contract.trios, contract.runs, True, prepare=d._prepare_reference, tight=False)
        assert (fast.deficiency, fast.used, fast.outs, fast.used_types, fast.plan_ranks, fast.plan_windows) == (
            slow.deficiency, slow.used, slow.outs, slow.used_types, slow.plan_ranks, slow.plan_windows)
        plain = d._analyze_reference(counts, contract.trios, contract.runs, False, prepare=d._prepare_reference,
                           tight=False).deficiency
        assert plain == fast.deficiency
        for card in range(53):
            if counts[card]:
                less = counts_minus(counts, card)
                expect = d._analyze_reference(less, contract.trios, contract.runs, True, prepare=d._prepare_reference,
                                    tight=False)
                assert d.deficiency_without(counts, card, contract) == expect.deficiency, (counts, card)
                # the whole analysis of the smaller hand, shared with the hand's when the
                # card is in no optimal plan
                assert _fields(d.analysis_without(counts, card, contract)) == _fields(expect), (counts, card)
                if expect.deficiency == slow.deficiency:
                    # the premise of HeuristicAgent._closed_best's bound
                    assert expect.outs <= slow.outs, (counts, card)
            if counts[card] < (4 if card == 52 else 2):
                more = counts_plus(counts, card)
                expect = d._analyze_reference(more, contract.trios, contract.runs, False, prepare=d._prepare_reference,
                                    tight=False)
                assert d.deficiency_with(counts, card, contract) == expect.deficiency, (counts, card)
        # every smaller hand is now cached with its outs: the cover read from them
        assert d._cover_from_smaller(counts, contract.trios, contract.runs) == slow.used, counts


def _reference(counts: tuple[int, ...], contract: tuple[int, int]):  # type: ignore[no-untyped-def]
    """The analysis with outs, uncached, through every reference (the walk over the
    cards, no plain search first, none of the search's pruning-only bounds)."""
    d = _deficiency_module
    return d._analyze_reference(counts, contract[0], contract[1], True, prepare=d._prepare_reference, tight=False)


def _fields(a) -> tuple:  # type: ignore[no-untyped-def]
    return a.deficiency, a.used, a.outs, a.used_types, a.plan_ranks, a.plan_windows


def _planted_hand(rng: random.Random) -> tuple[int, ...]:
    """A hand near a contract: a few trios and runs (some with gaps), maybe jokers."""
    counts = [0] * 53
    for _ in range(rng.randint(3, 6)):
        if rng.random() < 0.5:
            rank = rng.randrange(13)
            for s in rng.sample(range(4), 3):
                counts[s * 13 + rank] = min(2, counts[s * 13 + rank] + 1)
        else:
            s, lo = rng.randrange(4), rng.randrange(10)
            for k in range(lo, lo + rng.randint(3, 4)):
                counts[s * 13 + k] = min(2, counts[s * 13 + k] + 1)
    counts[52] = rng.choice((0, 0, 1, 2))
    return tuple(counts)


def test_bounded_deficiencies_agree_with_deficiency_on_planted_hands() -> None:
    """Hands planted near each contract (trios, runs with gaps, jokers), where the bounds
    matter most: one card less or more changes the deficiency or not.  The analysis
    with outs (a plain search first, then the outs search from its cover) equals the
    reference, and a card less at the same deficiency has no out the hand lacks (what
    the heuristic's bound stands on)."""
    d = _deficiency_module
    rng = random.Random(42)
    for _ in range(300):
        hand = _planted_hand(rng)
        for contract in ((2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)):
            fast = d.analyze(hand, contract)
            slow = _reference(hand, contract)
            assert _fields(fast) == _fields(slow), (hand, contract)
            for card in range(53):
                if hand[card]:
                    less = _reference(counts_minus(hand, card), contract)
                    assert d.deficiency_without(hand, card, contract) == less.deficiency
                    if less.deficiency == slow.deficiency:
                        assert less.outs <= slow.outs, (hand, card, contract)
                if hand[card] < (4 if card == 52 else 2):
                    more = d._analyze_reference(counts_plus(hand, card), *contract, False, prepare=d._prepare_reference, tight=False)
                    assert d.deficiency_with(hand, card, contract) == more.deficiency


@contextmanager
def _reference_analysis() -> Iterator[None]:
    """The heuristic with every fast path replaced by its reference: no cache (each call
    analyses afresh), the walk over the cards, no bounded search, no pruning-only bound
    in the search, no plain search before the outs, and the closed discard costed by
    :meth:`HeuristicAgent._closed_costs` (every candidate searched) instead of
    ``_closed_best``."""
    import carioca_agents.heuristic as heuristic

    d = _deficiency_module
    agent = heuristic.HeuristicAgent
    saved = (d.analyze, heuristic.analyze, heuristic.deficiency_with, heuristic.deficiency_without,
             heuristic.analysis_without)
    saved_best = agent._closed_best

    def analyze(counts, contract, want_outs=True):  # type: ignore[no-untyped-def]
        trios, runs = d._trios_runs(contract)
        return d._analyze_reference(tuple(counts), trios, runs, want_outs, prepare=d._prepare_reference, tight=False)

    heuristic.analyze = analyze
    heuristic.deficiency_with = lambda counts, card, contract: analyze(counts_plus(counts, card), contract, False).deficiency
    heuristic.deficiency_without = lambda counts, card, contract: analyze(counts_minus(counts, card), contract,
                                                                          False).deficiency
    heuristic.analysis_without = lambda counts, card, contract: analyze(counts_minus(counts, card), contract)
    agent._closed_best = agent._closed_costs  # type: ignore[method-assign]
    try:
        yield
    finally:
        (d.analyze, heuristic.analyze, heuristic.deficiency_with, heuristic.deficiency_without,
         heuristic.analysis_without) = saved
        agent._closed_best = saved_best  # type: ignore[method-assign]


def _heuristic_moves(seed: int, n: int, deals: tuple[int, ...], decisions: int) -> list:
    from carioca_agents.heuristic import HeuristicAgent

    game = Game(GameConfig(n, deals), seed=seed)
    agents = [HeuristicAgent(seed + s) for s in range(n)]
    moves = []
    for _ in range(decisions):
        if game.game_over:
            break
        s = game.current
        move = agents[s].act(game.view(s), game.legal_moves())
        moves.append(move)
        game.apply(move)
    return moves


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4),
       deals=st.sampled_from([(1, 2, 3, 4, 5, 6, 7), (1,), (3,), (5,), (7,)]))
def test_the_heuristic_makes_the_same_moves_with_the_reference_analysis(
        seed: int, n: int, deals: tuple[int, ...]) -> None:
    """Same seed, same moves, with the fast paths and with their references (the
    comparison is at every move: the lists are the whole games)."""
    fast = _heuristic_moves(seed, n, deals, 600)
    with _reference_analysis():
        slow = _heuristic_moves(seed, n, deals, 600)
    assert fast == slow


def _ties(scored: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """The ``(cost, card)`` that ``_pick_min`` ties (within 1e-9 of the lowest), in order."""
    low = min(c for c, _ in scored)
    return [(c, x) for c, x in scored if c <= low + 1e-9]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), deal=st.integers(1, 7),
       preset=st.sampled_from(["v1", "tuned"]))
def test_the_closed_discards_lowest_costs_equal_the_reference(seed: int, n: int, deal: int, preset: str) -> None:
    """At every discard of a seat that has not opened, in heuristic games of every
    contract: ``_closed_best`` (bounded before searching) gives exactly the costs, cards
    and order of ``_closed_costs`` (every candidate searched) among those tied for the
    lowest, which is all ``act`` reads of them."""
    from carioca_agents.heuristic import make_heuristic
    from carioca_env import MoveKind
    from carioca_env.analysis import unseen_counts

    game = Game(GameConfig(n, (deal,)), seed=seed)
    agents = [make_heuristic(seed + s, preset=preset) for s in range(n)]
    compared = 0
    for _ in range(400):
        if game.game_over:
            break
        s = game.current
        view, legal = game.view(s), game.legal_moves()
        if not view.opened[s] and sum(m.kind is MoveKind.DISCARD for m in legal) > 1:
            agent = agents[s]
            agent._use_weights(view)
            unseen = unseen_counts(view)
            fast = agent._closed_best(view, view.hand_counts, unseen)
            slow = agent._closed_costs(view, view.hand_counts, unseen)
            assert _ties(fast) == _ties(slow), (view.hand_counts, fast, slow)
            compared += 1
        game.apply(agents[s].act(view, legal))
    assert compared or game.game_over


def test_the_closed_discards_lowest_costs_equal_the_reference_on_planted_hands() -> None:
    """The same on hands planted near every contract (the seat to discard given one, the
    rest of the table as dealt), where many candidates tie on the deficiency."""
    from carioca_agents.heuristic import make_heuristic
    from carioca_env import Phase
    from carioca_env.analysis import unseen_counts

    rng = random.Random(7)
    compared = 0
    for i in range(140):
        deal = 1 + i % 7
        game = Game(GameConfig(2, (deal,)), seed=i)
        while game.phase is not Phase.PLAY:  # draw, so that the seat holds the discard's card
            game.apply(game.legal_moves()[0])
        hand = list(_planted_hand(rng))
        size = sum(game.hands[game.current])
        while sum(hand) != size:  # the seat's size: random cards added or taken away
            c = rng.randrange(53)
            if sum(hand) < size and hand[c] < (4 if c == 52 else 2):
                hand[c] += 1
            elif sum(hand) > size and hand[c]:
                hand[c] -= 1
        game.hands[game.current] = hand
        view = game.view(game.current)
        agent = make_heuristic(i, preset=("v1", "tuned")[i % 2])
        agent._use_weights(view)
        unseen = unseen_counts(view)
        fast = agent._closed_best(view, view.hand_counts, unseen)
        slow = agent._closed_costs(view, view.hand_counts, unseen)
        assert _ties(fast) == _ties(slow), (hand, deal, fast, slow)
        compared += 1
    assert compared == 140


# ---------------------------------------------------------------- clone


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4), before=st.integers(0, 500), short=st.booleans())
def test_clones_are_indistinguishable_from_deep_copies_under_play(seed: int, n: int, before: int, short: bool) -> None:
    """A clone and a deepcopy taken at the same moment, then the original too, play the
    same random moves: after every move the clone equals the deepcopy and the original
    equals a second deepcopy (the generator is shared copy-on-use: deals and recycled
    stocks, which draw from it, happen in these games)."""
    deals = (1, 7) if short else (1, 2, 3, 4, 5, 6, 7)
    game = Game(GameConfig(n, deals), seed=seed)
    rng = random.Random(seed)
    for _ in range(before):
        if game.game_over:
            break
        game.apply_unchecked(rng.choice(game.legal_moves()))
    clone, deep, twin = game.clone(), copy.deepcopy(game), copy.deepcopy(game)
    for a, b in ((clone, deep), (game, twin)):
        play = random.Random(seed + 1)
        for _ in range(900):
            if a.game_over:
                break
            moves = a.legal_moves()
            assert moves == b.legal_moves()
            move = play.choice(moves)
            a.apply_unchecked(move)
            b.apply_unchecked(move)
            # the generator unread: a shared one stays shared until a shuffle reads it
            assert _game_state(a, rng=False) == _game_state(b, rng=False)
        assert _game_state(a) == _game_state(b)


# ---------------------------------------------------------------- the env's kept mask


def _check_kept_mask(state: CariocaState, shown: np.ndarray | None = None) -> None:
    """``state``'s mask (and ``shown``, the env's copy of it) is the bytes of the reference
    ``legal_mask(legal_moves())``; ``is_legal`` agrees with it on every id; a caller
    writing into the mask it got changes nothing kept; and the actor's observation is
    ``encode_observation`` of its view."""
    game = state.game  # is_legal: on every legal id and on 60 others
    actor = game.current_player
    reference = state.table.legal_mask(game.legal_moves(), actor, state.pending)
    got = state.mask()
    assert got.dtype == reference.dtype and got.tobytes() == reference.tobytes(), (len(game.moves), state.pending)
    if shown is not None:
        assert shown.tobytes() == reference.tobytes(), len(game.moves)
    legal = np.flatnonzero(reference).tolist()
    others = random.Random(len(game.moves)).sample(range(state.table.size), 60)
    assert all(state.is_legal(a) for a in legal)
    assert [state.is_legal(a) for a in others] == [bool(reference[a]) for a in others]
    got[:] = 1  # a copy: the kept mask must not see it
    assert state.mask().tobytes() == reference.tobytes()
    if not game.game_over:
        fast = state.observe(actor)
        slow = encode_observation(game.view(actor), state.pending)
        assert fast.tobytes() == slow.tobytes(), len(game.moves)


def _repickled(state: CariocaState) -> CariocaState:
    """``state`` through pickle, its (immutable, shared) action table passed by reference."""
    table = state.table

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj: object) -> str | None:
            return "table" if obj is table else None

    class Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: object) -> object:
            return table

    data = io.BytesIO()
    Pickler(data).dump(state)
    data.seek(0)
    return Unpickler(data).load()


def _random_ids(state: CariocaState, rng: random.Random, steps: int) -> None:
    """Play up to ``steps`` random legal ids on ``state``, checking its mask before each."""
    for _ in range(steps):
        if state.game.game_over:
            return
        _check_kept_mask(state)
        state.step(int(rng.choice(np.flatnonzero(state.mask()))))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 4),
       deals=st.sampled_from([(1, 2, 3, 4, 5, 6, 7), (3, 7), (1, 4), (2,)]))
def test_the_envs_kept_mask_equals_the_reference_at_every_step(seed: int, n: int, deals: tuple[int, ...]) -> None:
    """The mask ``CariocaState`` keeps from step to step (clearing only the ids it set the
    step before) is the bytes of ``legal_mask(legal_moves())`` before every step of env
    games driven through action ids, and ``is_legal`` agrees with it on every id: across
    resets and truncations, openings chosen meld by meld, refused steps (ids the mask
    does not offer, which change nothing), ``forget()``, a pending meld taken back by
    hand, and deep copies and pickles of the state taken mid-game and played on (the
    original is checked again afterwards)."""
    from carioca_env import carioca_v0
    from carioca_env.action_state import IllegalActionError

    env = carioca_v0.env(num_players=n, deals=deals, illegal_action="raise", max_turns=60)
    raw = env.unwrapped
    rng = random.Random(seed)
    policy = BiasedPolicy(random.Random(seed + 1), joker_runs=True)
    env.reset(seed=seed)
    for _ in range(900):
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.reset(seed=rng.randrange(2**31) if rng.random() < 0.5 else None)
            continue
        state = raw.carioca_state
        assert state is not None
        _check_kept_mask(state, obs["action_mask"])
        mask = obs["action_mask"]
        roll = rng.random()
        if roll < 0.06:  # refused: nothing changes, the same mask is kept
            illegal = int(rng.choice(np.flatnonzero(mask == 0)))
            try:
                env.step(illegal)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"id {illegal} was not refused")
            _check_kept_mask(state, env.last()[0]["action_mask"])
        elif roll < 0.10:
            state.forget()
            _check_kept_mask(state)
        elif roll < 0.12 and state.pending:  # take a meld back by hand, as forget() allows
            state.pending.pop()
            state.forget()
            _check_kept_mask(state)
            continue
        elif roll < 0.14:
            # the shared, immutable action table is kept out of the copy (it is most of its cost)
            copied = copy.deepcopy(state, {id(state.table): state.table}) if rng.random() < 0.5 else _repickled(state)
            _check_kept_mask(copied)
            _random_ids(copied, random.Random(rng.random()), 12)
            _check_kept_mask(state)
        if state.pending:
            action = int(rng.choice(np.flatnonzero(state.mask())))
        else:
            game = state.game
            move = policy.choose(game) if rng.random() < 0.7 else rng.choice(game.legal_moves())
            action = state.table.move_actions(move, game.current_player)[0]
        env.step(action)
