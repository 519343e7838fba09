"""The engine's move generator against an independent checker and a brute-force candidate set.

For many states reached by (biased) random play, every move of a brute-force candidate
set -- every draw, every discard, every lay-off and swap onto every table meld at every
end, every opening built independently from the hand, and deliberately wrong openings --
is judged by :func:`checker.check_move` and by the engine:

- every move in ``legal_moves()`` passes the checker, and every candidate the checker
  accepts is in ``legal_moves()`` (so the generator is exactly the legal set);
- ``legal_moves()`` has no duplicates;
- ``is_legal`` agrees with the checker on every candidate;
- applying an illegal candidate raises ``IllegalMoveError`` and changes nothing.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections import Counter
from itertools import combinations_with_replacement

import pytest

from carioca_env import End, Game, GameConfig, IllegalMoveError, Meld, MeldKind, Move, MoveKind, Phase, stack_deck  # noqa: E402
from carioca_env.errors import MalformedMoveError  # noqa: E402
from carioca_env.melds import TableMeld  # noqa: E402

from checker import (  # noqa: E402
    CONTRACT_SHAPE,
    JOKER,
    State,
    card,
    card_at,
    check_move,
    snapshot,
)
from random_play import BiasedPolicy  # noqa: E402

ENDS = (None, End.LOW, End.HIGH)


# ---------------------------------------------------------------- deep state snapshot


def freeze(obj):
    """A comparable deep value of ``obj`` (game attributes, table melds, the generator)."""
    t = type(obj)
    if t in (int, str, bool, float, type(None)) or isinstance(obj, enum.Enum):
        return obj
    if t is list or t is tuple:
        if all(type(x) is int for x in obj):
            return tuple(obj)
        return tuple(freeze(x) for x in obj)
    if dataclasses.is_dataclass(obj) and t.__dataclass_params__.frozen:
        return obj  # immutable value (Move, Meld, PublicEvent, DealResult, GameConfig)
    if isinstance(obj, random.Random):
        return ("rng", obj.getstate())
    if isinstance(obj, TableMeld):
        return ("meld", int(obj.kind), obj.key, obj.lo, tuple(obj.cards), obj.owner)
    if isinstance(obj, dict):
        return tuple((repr(k), freeze(v)) for k, v in obj.items() if not callable(v))
    if hasattr(obj, "__dict__"):
        return (t.__name__, freeze(vars(obj)))
    return obj


def deep_state(game: Game):
    return freeze({k: v for k, v in vars(game).items() if not k.startswith("_legal") and k not in ("_apply", "_play_moves")})


# ---------------------------------------------------------------- candidates


def _fits(hand: Counter, need: dict[int, int]) -> bool:
    return all(hand[c] >= k for c, k in need.items())


def all_trios(with_joker: bool = True) -> list[Meld]:
    """Every opening-shaped trio in the deck (canonical card order)."""
    out = []
    for r in range(1, 14):
        for suits in combinations_with_replacement(range(4), 3):
            out.append(Meld(MeldKind.TRIO, r, 0, tuple(sorted(card(r, s) for s in suits))))
        if with_joker:
            for suits in combinations_with_replacement(range(4), 2):
                out.append(Meld(MeldKind.TRIO, r, 0, tuple(sorted(card(r, s) for s in suits)) + (JOKER,)))
    return out


def all_runs(with_joker: bool = True) -> list[Meld]:
    """Every opening-shaped run in the deck: suit x 4-window of 1..14 x joker slot."""
    out = []
    for s in range(4):
        for lo in range(1, 12):
            for slot in (None, 0, 1, 2, 3) if with_joker else (None,):
                cards = tuple(JOKER if i == slot else card_at(s, lo + i) for i in range(4))
                out.append(Meld(MeldKind.RUN, s, lo, cards))
    return out


ALL_TRIOS = all_trios()
ALL_RUNS = all_runs()
NEED = {m: dict(Counter(m.cards)) for m in ALL_TRIOS + ALL_RUNS}


def melds_in_hand(hand: Counter) -> tuple[list[Meld], list[Meld]]:
    """The opening-shaped trios and runs whose cards the hand holds."""
    return (
        [m for m in ALL_TRIOS if _fits(hand, NEED[m])],
        [m for m in ALL_RUNS if _fits(hand, NEED[m])],
    )


def hand_openings(hand: Counter, deal: int, trios: list[Meld], runs: list[Meld]) -> set[Move]:
    """Every contract-shaped opening whose cards the hand holds (R10 left to the checker)."""
    t, r = CONTRACT_SHAPE[deal]
    out: set[Move] = set()

    # melds chosen in non-decreasing index order; prune as soon as the cards run out
    def rec(chosen: list[Meld], stage: int, need: int, start: int, left: Counter) -> None:
        if need == 0:
            if stage == 0:
                rec(chosen, 1, r, 0, left)
            else:
                out.add(Move.open(chosen))
            return
        cands = trios if stage == 0 else runs
        for i in range(start, len(cands)):
            m = cands[i]
            if _fits(left, NEED[m]):
                rec(chosen + [m], stage, need - 1, i, left - Counter(m.cards))

    rec([], 0, t, 0, hand)
    return out


def wrong_openings(
    deal: int, rng: random.Random, good: list[Move], trios_in_hand: list[Meld], runs_in_hand: list[Meld]
) -> list[Move]:
    """Deliberately wrong openings (and some right-looking ones with foreign cards)."""
    t, r = CONTRACT_SHAPE[deal]
    out: list[Move] = [Move.open([])]
    src_t = trios_in_hand or ALL_TRIOS
    src_r = runs_in_hand or ALL_RUNS

    def shaped(a: int, b: int, from_hand: bool = True) -> list[Meld]:
        ts, rs = (src_t, src_r) if from_hand else (ALL_TRIOS, ALL_RUNS)
        return [rng.choice(ts) for _ in range(a)] + [rng.choice(rs) for _ in range(b)]

    # wrong contract shapes
    for a in range(4):
        for b in range(4 - a):
            if (a, b) != (t, r) and a + b:
                out.append(Move.open(shaped(a, b)))
    # a valid opening with one meld dropped, one added, a trio turned into a run
    for o in rng.sample(good, min(3, len(good))):
        melds = list(o.melds)
        out.append(Move.open(melds[:-1]))
        out.append(Move.open(melds + [rng.choice(src_t + src_r)]))
        if t:
            out.append(Move.open(melds[1:] + [rng.choice(src_r)]))
        # non-canonical representations of a right opening
        if len(melds) > 1:
            out.append(Move(MoveKind.OPEN, melds=tuple(reversed(melds))))
        for m in melds:
            if m.kind is MeldKind.TRIO and m.cards[-1] == JOKER:
                rest = tuple(x if x is not m else Meld(m.kind, m.key, 0, (JOKER,) + m.cards[:-1]) for x in melds)
                out.append(Move(MoveKind.OPEN, melds=rest))
            if m.kind is MeldKind.TRIO:
                rest = tuple(x if x is not m else Meld(m.kind, m.key, 3, m.cards) for x in melds)
                out.append(Move(MoveKind.OPEN, melds=rest))
    # near misses of right openings: one meld broken in one way, cards mostly in hand
    for o in good[:: max(1, len(good) // 4)][:4]:
        melds = list(o.melds)
        for k, m in enumerate(melds):
            for broken in _near_misses(m):
                out.append(Move(MoveKind.OPEN, melds=tuple(sorted(melds[:k] + [broken] + melds[k + 1:]))))
    # right shape, cards (most likely) not in hand
    for _ in range(4):
        out.append(Move.open(shaped(t, r, from_hand=False)))
    # bad melds inside a right-shaped opening
    s, rk, lo = rng.randrange(4), rng.randrange(1, 14), rng.randrange(2, 11)
    bad_trios = [
        Meld(MeldKind.TRIO, rk, 0, (card(rk, s), JOKER, JOKER)),  # two jokers
        Meld(MeldKind.TRIO, rk, 0, tuple(sorted(card(rk, x) for x in (0, 1, 2, 3)))),  # 4 cards
        Meld(MeldKind.TRIO, rk, 0, tuple(sorted(card(rk, x) for x in (0, 1)))),  # 2 cards
        Meld(MeldKind.TRIO, rk, 0, tuple(sorted((card(rk, 0), card(rk, 1), card(rk % 13 + 1, 2))))),  # mixed
        Meld(MeldKind.TRIO, rk, 0, (JOKER, JOKER, JOKER)),
    ]
    bad_runs = [
        Meld(MeldKind.RUN, s, lo, (card_at(s, lo), JOKER, JOKER, card_at(s, lo + 3))),  # two jokers
        Meld(MeldKind.RUN, s, lo, tuple(card_at(s, lo + i) for i in range(5))),  # 5 cards
        Meld(MeldKind.RUN, s, lo, tuple(card_at(s, lo + i) for i in range(3))),  # 3 cards
        Meld(MeldKind.RUN, s, 12, (card(12, s), card(13, s), card(1, s), card(2, s))),  # K-A-2 wrap
        Meld(MeldKind.RUN, s, 0, (JOKER, card(1, s), card(2, s), card(3, s))),  # below the low ace
        Meld(MeldKind.RUN, s, lo, (card_at(s, lo), card_at((s + 1) % 4, lo + 1), card_at(s, lo + 2), card_at(s, lo + 3))),
        Meld(MeldKind.RUN, s, lo, (card_at(s, lo), card_at(s, lo + 2), card_at(s, lo + 1), card_at(s, lo + 3))),
        Meld(MeldKind.RUN, 4, lo, (card_at(s, lo), card_at(s, lo + 1), card_at(s, lo + 2), JOKER)),  # no suit 4
    ]
    # values that are no card types (-6 and 59 have the rank of card 47 by arithmetic)
    bad_trios.append(Meld(MeldKind.TRIO, 9, 0, (-6, card(9, 0), card(9, 1))))
    bad_trios.append(Meld(MeldKind.TRIO, 9, 0, (card(9, 0), card(9, 1), 59)))
    for bad in bad_trios + bad_runs:
        if bad.kind is MeldKind.TRIO and t:
            melds = shaped(t - 1, r) + [bad]
        elif bad.kind is MeldKind.RUN and r:
            melds = shaped(t, r - 1) + [bad]
        else:
            melds = shaped(t, r) + [bad]
        out.append(Move.open(melds))
    return out


def _near_misses(m: Meld) -> list[Meld]:
    """A right opening meld broken one way: two jokers, one card more, one card fewer."""
    cards = m.cards
    naturals = [i for i, c in enumerate(cards) if c != JOKER]
    out = []
    if m.kind is MeldKind.TRIO:
        out.append(Meld(m.kind, m.key, 0, tuple(sorted(cards[:1] + (JOKER,) + cards[2:]))))
        out.append(Meld(m.kind, m.key, 0, tuple(sorted(cards + (card(m.key, 3 - cards[0] // 13 % 4),)))))
        out.append(Meld(m.kind, m.key, 0, cards[:2]))
    else:
        i = naturals[len(naturals) // 2]
        out.append(Meld(m.kind, m.key, m.lo, cards[:i] + (JOKER,) + cards[i + 1:]))
        if m.lo + 4 <= 14:
            out.append(Meld(m.kind, m.key, m.lo, cards + (card_at(m.key, m.lo + 4),)))
        if m.lo > 1:
            out.append(Meld(m.kind, m.key, m.lo - 1, (card_at(m.key, m.lo - 1),) + cards))
        out.append(Meld(m.kind, m.key, m.lo, cards[:3]))
        out.append(Meld(m.kind, m.key, m.lo + 1, cards[1:]))
    return [b for b in out if b != m]


def candidates(game: Game, state: State, rng: random.Random) -> list[Move]:
    n = state.num_players
    out = [Move.draw_stock(), Move.draw_discard()]
    out += [Move.discard(c) for c in range(53)]
    out += [Move.discard(-1), Move.discard(53)]  # no card types at all
    refs = [(o, i) for o in range(n) for i in range(len(state.table[o]))]
    for o, i in refs:
        for c in range(-1, 54):
            out += [Move.lay_off(c, o, i, e) for e in ENDS]
            out += [Move.swap(c, o, i, e) for e in (End.LOW, End.HIGH)]
    for o, i in ((n, 0), (0, len(state.table[0])), (1, -1)):  # no such meld: a sample of cards
        for c in rng.sample(range(53), 6) + list(state.hand[:3]):
            out += [Move.lay_off(c, o, i, e) for e in ENDS]
            out += [Move.swap(c, o, i, e) for e in (End.LOW, End.HIGH)]
    hand = Counter(state.hand)
    trios, runs = melds_in_hand(hand)
    good = sorted(hand_openings(hand, state.deal, trios, runs), key=str)
    out += good
    out += wrong_openings(state.deal, rng, good, trios, runs)
    # right moves carrying fields their kind does not have (another representation)
    some = rng.choice(state.hand) if state.hand else 0
    meld = trios[0] if trios else ALL_TRIOS[0]
    out += [
        Move(MoveKind.DRAW_STOCK, card=some),
        Move(MoveKind.DRAW_DISCARD, owner=0, index=0),
        Move(MoveKind.DISCARD, card=some, end=End.LOW),
        Move(MoveKind.DISCARD, card=some, melds=(meld,)),
        Move(MoveKind.LAY_OFF, card=some, owner=0, index=0, melds=(meld,)),
    ]
    out += [dataclasses.replace(o, card=some) for o in good[:2]]
    out += [dataclasses.replace(o, owner=0, index=0) for o in good[:2]]
    return out


# ---------------------------------------------------------------- the property


def check_well_formed_ok(m: Move) -> bool:
    """Whether ``m`` is the one representation of a move, judged independently of the
    engine: card types 0..52 where the kind has a card, defaults elsewhere, an opening's
    trios sorted with lo 0 and its melds sorted."""
    has_card = m.kind in (MoveKind.DISCARD, MoveKind.LAY_OFF, MoveKind.SWAP)
    has_target = m.kind in (MoveKind.LAY_OFF, MoveKind.SWAP)
    if has_card != (m.card != -1) or has_card and not 0 <= m.card <= JOKER:
        return False
    if not has_target and (m.owner, m.index, m.end) != (-1, -1, None):
        return False
    if m.kind is not MoveKind.OPEN:
        return not m.melds
    if any(not 0 <= c <= JOKER for x in m.melds for c in x.cards):
        return False
    trios_ok = all(x.kind is MeldKind.RUN or (x.lo == 0 and list(x.cards) == sorted(x.cards)) for x in m.melds)
    return trios_ok and list(m.melds) == sorted(m.melds)


class Tally(Counter):
    """Counts of what was checked."""


def check_state(game: Game, rng: random.Random, tally: Tally, apply_illegal: int, full: bool = True) -> None:
    """Check one state; ``full=False`` checks only the generated moves (cheap)."""
    state = snapshot(game)
    # the checker's view of the turn agrees with the engine's phase
    expected_phase = (
        Phase.GAME_OVER if state.game_over
        else Phase.DRAW if not state.drawn
        else Phase.DISCARD if state.opened_this_turn
        else Phase.PLAY
    )
    assert game.phase is expected_phase

    legal = game.legal_moves()
    legal_set = set(legal)
    assert len(legal) == len(legal_set), f"duplicates in legal_moves: {[str(m) for m, k in Counter(legal).items() if k > 1]}"
    for m in legal:
        why = check_move(state, m)
        assert why is None, f"engine offers '{m}' but the checker says {why}\nstate={state}"
        assert game.is_legal(m), f"is_legal refuses the generated '{m}'"
    kinds = Counter(m.kind for m in legal)
    tally["states"] += 1
    tally["legal_moves"] += len(legal)
    for k in (MoveKind.OPEN, MoveKind.LAY_OFF, MoveKind.SWAP):
        if kinds[k]:
            tally[f"states_with_{k.name}"] += 1
            tally[f"legal_{k.name}"] += kinds[k]
    if state.game_over:
        tally["game_over_states"] += 1
    if not full:
        return

    cands = candidates(game, state, rng)
    if game.phase is not Phase.PLAY:
        # outside the play phase everything but a draw / a discard is refused for the
        # phase alone: keep the draws and discards and a random sample of the rest
        cands = cands[:57] + rng.sample(cands[57:], min(80, len(cands) - 57))
    accepted = set()
    illegal = []
    for m in cands:
        why = check_move(state, m)
        ok = why is None
        assert game.is_legal(m) == ok, f"is_legal('{m}') = {not ok} but checker says {why!r}\nstate={state}"
        if ok:
            accepted.add(m)
            assert m in legal_set, f"checker accepts '{m}' but legal_moves() lacks it\nstate={state}"
        else:
            illegal.append(m)
    # the candidate set covers the generator: every legal opening was found independently
    assert legal_set <= accepted, f"legal moves outside the candidate set: {[str(m) for m in legal_set - accepted]}"

    before = deep_state(game)
    opening_like = [m for m in illegal if m.kind is MoveKind.OPEN]
    sample = rng.sample(illegal, min(apply_illegal, len(illegal))) + opening_like[:apply_illegal]
    for m in sample:
        # a ruling names its rule; a value that is no move at all is a representation error
        with pytest.raises((IllegalMoveError, MalformedMoveError)) as info:
            game.apply(m)
        if isinstance(info.value, IllegalMoveError):
            assert info.value.rule.startswith("R"), f"'{m}' refused without naming a ruling: {info.value}"
        else:
            assert not check_well_formed_ok(m), f"well-formed {m!r} refused as malformed: {info.value}"
        assert deep_state(game) == before, f"refused move '{m}' changed the state"

    tally["full_states"] += 1
    tally["candidates"] += len(cands)
    tally["illegal_applied"] += len(sample)
    tally["opening_candidates"] += len(opening_like) + sum(1 for m in accepted if m.kind is MoveKind.OPEN)
    for k in (MoveKind.OPEN, MoveKind.LAY_OFF, MoveKind.SWAP):
        tally[f"accepted_{k.name}"] += sum(1 for m in accepted if m.kind is k)


CONFIGS = [(n, deal) for n in (2, 3, 4) for deal in range(1, 8)]


def run_games(n: int, deal: int, seeds, enough, max_moves: int, apply_illegal: int,
              p_meld: float = 0.6, full_before_opening: bool = True) -> Tally:
    """Play seeded games of one deal, checking every state, until ``enough(tally)`` holds."""
    tally = Tally()
    for seed in seeds:
        game = Game(GameConfig(num_players=n, deals=(deal,)), seed=seed)
        rng = random.Random(1000 * seed + 10 * n + deal)
        policy = BiasedPolicy(random.Random(seed), p_meld=p_meld, joker_runs=True)
        tally["games"] += 1
        for _ in range(max_moves):
            full = full_before_opening or any(game.opened) or game.phase is Phase.PLAY and bool(
                [m for m in game.legal_moves() if m.kind is MoveKind.OPEN]
            )
            check_state(game, rng, tally, apply_illegal, full)
            if game.game_over:
                break
            game.apply(policy.choose(game))
        if enough(tally):
            break
    return tally


@pytest.mark.parametrize("n,deal", CONFIGS, ids=[f"{n}p-deal{d}" for n, d in CONFIGS])
def test_generator_matches_independent_checker(n: int, deal: int) -> None:
    def enough(t: Tally) -> bool:
        return t["games"] >= 2 and t["states_with_OPEN"] >= 2 and t["game_over_states"] >= 2 and (
            deal > 5 or t["states_with_LAY_OFF"] >= 4
        )

    tally = run_games(n, deal, range(8), enough, max_moves=300, apply_illegal=3)
    print(dict(tally))
    assert enough(tally), f"too little coverage: {tally}"
    if deal > 5:
        # R12: in deals 6 and 7 the opening leaves one card, discarded at once to close
        assert tally["states_with_LAY_OFF"] == tally["states_with_SWAP"] == 0, tally


def test_many_swaps_and_layoffs_were_checked() -> None:
    """Games of the contracts with runs, checked fully from the first opening on:
    joker swaps and lay-offs really occur, and are all judged alike."""
    tally = Tally()

    def enough(t: Tally) -> bool:
        return t["states_with_SWAP"] >= 12 and t["legal_SWAP"] >= 24 and t["states_with_LAY_OFF"] >= 100

    for seeds in ((11, 12), (13, 14), (15, 16), (17, 18)):
        for n in (2, 3, 4):
            for deal in (2, 3, 5):
                tally.update(run_games(n, deal, seeds, lambda t: False, max_moves=250, apply_illegal=1,
                                       p_meld=0.4, full_before_opening=False))
        if enough(tally):
            break
    print(dict(tally))
    assert enough(tally), tally
    assert tally["accepted_SWAP"] == tally["legal_SWAP"] and tally["accepted_LAY_OFF"] == tally["legal_LAY_OFF"]


def test_opening_that_would_empty_the_hand_is_refused() -> None:
    """R10: a hand holding exactly the contract cards may not open (forced by editing the state)."""
    game = Game.from_deck(_deck_with_hand0([8, 21, 34, 9, 22, 35]), dealer=1, config=GameConfig(2, (1,)))
    game.apply(Move.draw_stock())
    seat = game.current
    # keep only the six trio cards in the hand
    keep = Counter([8, 21, 34, 9, 22, 35])
    game.hands[seat] = [keep[c] for c in range(53)]
    game.hand_sizes[seat] = 6
    state = snapshot(game)
    o = Move.open([Meld(MeldKind.TRIO, 9, 0, (8, 21, 34)), Meld(MeldKind.TRIO, 10, 0, (9, 22, 35))])
    assert check_move(state, o) == "R10: the opening must leave a card"
    assert not game.is_legal(o)
    assert o not in game.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        game.apply(o)
    assert info.value.rule == "R10"


def _deck_with_hand0(cards: list[int]) -> list[int]:
    from carioca_env import stack_deck

    rest = Counter({c: 2 for c in range(52)})
    rest[JOKER] = 4
    for c in cards:
        rest[c] -= 1
    pool = [c for c in range(53) for _ in range(rest[c])]
    h0 = cards + pool[: 11 - len(cards)]
    pool = pool[11 - len(cards):]
    h1 = pool[:11]
    return stack_deck([h0, h1], pool[11], [pool[12]], dealer=1)


def test_checker_sanity_on_hand_built_melds() -> None:
    """A few fixed judgements of the checker itself, so it is not trivially permissive."""
    from checker import MeldData, opening_meld_error, table_meld_error

    S, H = 0, 1
    assert opening_meld_error(Meld(MeldKind.RUN, S, 11, (card(11, S), card(12, S), card(13, S), card(1, S)))) is None
    assert opening_meld_error(Meld(MeldKind.RUN, S, 1, (card(1, S), card(2, S), card(3, S), card(4, S)))) is None
    assert opening_meld_error(Meld(MeldKind.RUN, S, 12, (card(12, S), card(13, S), card(1, S), card(2, S))))
    assert opening_meld_error(Meld(MeldKind.TRIO, 8, 0, (card(8, S), card(8, S), JOKER))) is None
    assert opening_meld_error(Meld(MeldKind.TRIO, 8, 0, (card(8, S), JOKER, JOKER)))
    full = MeldData(1, H, 1, tuple(card_at(H, p) for p in range(1, 15)))
    assert table_meld_error(full) is None
    st = State(2, 0, 3, False, True, False, ((card(1, H), card(5, S)), ()), ((full,), ()), (True, True), 10, (0,))
    assert check_move(st, Move.lay_off(card(1, H), 0, 0, End.HIGH)).startswith("R4")
    assert check_move(st, Move.lay_off(JOKER, 0, 0, End.LOW)) == "R7: card not in hand"
    part = MeldData(1, H, 2, (card(2, H), JOKER, card(4, H), card(5, H)))
    st2 = State(2, 0, 3, False, True, False, ((card(1, H), card(3, H), JOKER), ()), ((part,), ()), (True, False), 10, (0,))
    assert check_move(st2, Move.lay_off(card(1, H), 0, 0, End.LOW)) is None
    assert check_move(st2, Move.lay_off(card(1, H), 0, 0, End.HIGH))
    assert check_move(st2, Move.swap(card(3, H), 0, 0, End.HIGH)) is None
    assert check_move(st2, Move.swap(card(3, H), 0, 0, End.LOW)) is None
    assert check_move(st2, Move.swap(card(1, H), 0, 0, End.LOW)).startswith("R11")
    assert check_move(st2, Move.lay_off(JOKER, 0, 0, None)).startswith("R9")
    st3 = State(2, 1, 3, False, True, False, ((), (card(3, H), JOKER)), ((part,), ()), (True, False), 10, (0,))
    assert check_move(st3, Move.swap(card(3, H), 0, 0, End.LOW)).startswith("R11: not opened")


def test_stacked_hand_with_two_jokers() -> None:
    """Openings with two jokers in one meld, 4-card trios and 5-card runs are refused (R5)."""
    C = card
    hand0 = [C(8, 0), C(8, 1), JOKER, JOKER, C(9, 0), C(9, 1), C(9, 2), C(2, 3), C(3, 3), C(4, 3), C(5, 3)]
    others = Counter(deck_cards()) - Counter(hand0)
    pool = [c for c in range(53) for _ in range(others[c])]
    deck = stack_deck([hand0, pool[:11]], pool[11], [C(9, 3)], dealer=1)
    for deal in (1, 2):
        game = Game.from_deck(deck, dealer=1, config=GameConfig(2, (deal,)))
        game.apply(Move.draw_stock())
        T = lambda *cs: Meld(MeldKind.TRIO, rank_of_first(cs), 0, tuple(sorted(cs)))  # noqa: E731
        R = lambda s, lo, *cs: Meld(MeldKind.RUN, s, lo, cs)  # noqa: E731
        state = snapshot(game)
        legal = set(game.legal_moves())
        if deal == 1:
            good = [
                [T(C(8, 0), C(8, 1), JOKER), T(C(9, 0), C(9, 1), C(9, 2))],
                [T(C(8, 0), C(8, 1), JOKER), T(C(9, 0), C(9, 1), JOKER)],
                [T(C(9, 0), C(9, 1), C(9, 3)), T(C(8, 0), C(8, 1), JOKER)],
            ]
            bad = [
                [T(C(8, 0), JOKER, JOKER), T(C(9, 0), C(9, 1), C(9, 2))],
                [T(C(8, 0), C(8, 1), JOKER), T(C(9, 0), C(9, 1), C(9, 2), C(9, 3))],
                [T(C(8, 0), C(8, 1)), T(C(9, 0), C(9, 1), C(9, 2))],
                [T(C(8, 0), C(8, 1), JOKER)],
            ]
        else:
            good = [
                [T(C(9, 0), C(9, 1), C(9, 2)), R(3, 2, C(2, 3), C(3, 3), C(4, 3), C(5, 3))],
                [T(C(8, 0), C(8, 1), JOKER), R(3, 1, JOKER, C(2, 3), C(3, 3), C(4, 3))],
                [T(C(8, 0), C(8, 1), JOKER), R(3, 3, C(3, 3), C(4, 3), C(5, 3), JOKER)],
            ]
            bad = [
                [T(C(9, 0), C(9, 1), C(9, 2)), R(3, 2, C(2, 3), JOKER, JOKER, C(5, 3))],
                [T(C(9, 0), C(9, 1), C(9, 2)), R(3, 2, C(2, 3), C(3, 3), C(4, 3), C(5, 3), JOKER)],
                [T(C(9, 0), C(9, 1), C(9, 2)), R(3, 2, C(2, 3), C(3, 3), C(4, 3))],
                [T(C(9, 0), C(9, 1), C(9, 2)), R(3, 1, C(2, 3), C(3, 3), C(4, 3), C(5, 3))],  # misplaced
                [R(3, 2, C(2, 3), C(3, 3), C(4, 3), C(5, 3)), R(3, 1, JOKER, C(2, 3), C(3, 3), C(4, 3))],
            ]
        for melds in good:
            m = Move.open(melds)
            assert check_move(state, m) is None and game.is_legal(m) and m in legal, str(m)
        for melds in bad:
            m = Move.open(melds)
            assert check_move(state, m) is not None and not game.is_legal(m) and m not in legal, str(m)
            with pytest.raises(IllegalMoveError):
                game.apply(m)
        check_state(game, random.Random(deal), Tally(), apply_illegal=20)


def rank_of_first(cs) -> int:
    return next(c % 13 + 1 for c in cs if c != JOKER)


def deck_cards() -> list[int]:
    return [c for c in range(52) for _ in range(2)] + [JOKER] * 4
