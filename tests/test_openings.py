"""enumerate_openings is exact: it lists every distinct opening of the contract, each once.

The reference here is an independent brute force: it tries every sub-multiset of the
remaining hand of each meld's size (3 for a trio, 4 for a run), reads each as every opening
meld it can be (its own trio/run rules, written from R4/R5), and collects the openings as
sorted tuples of melds, so that the order the melds were picked in does not matter.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from carioca_env import (
    CONTRACTS,
    JOKER,
    Meld,
    MeldKind,
    enumerate_openings,
    parse_cards,
)
from carioca_env.cards import counts_of, full_deck
from carioca_env.melds import check_opening_meld
from carioca_env.openings import can_open

# ------------------------------------------------------------ independent reference


def _rank(c: int) -> int:
    return c % 13 + 1


def _suit(c: int) -> int:
    return c // 13


def _positions(c: int) -> tuple[int, ...]:
    r = _rank(c)
    return (1, 14) if r == 1 else (r,)


def readings(group: tuple[int, ...]) -> list[tuple]:
    """Every opening meld the cards of ``group`` form, as keys (R4, R5)."""
    jokers = group.count(JOKER)
    naturals = [c for c in group if c != JOKER]
    if jokers > 1:
        return []
    if len(group) == 3:
        if len({_rank(c) for c in naturals}) == 1:
            return [("T", _rank(naturals[0]), tuple(sorted(group)))]
        return []
    if len({_suit(c) for c in naturals}) != 1 or len(set(naturals)) != len(naturals):
        return []
    suit = _suit(naturals[0])
    out = []
    for lo in range(1, 12):
        window = range(lo, lo + 4)
        placed = {}
        for c in naturals:
            ps = [p for p in _positions(c) if p in window]
            if len(ps) != 1 or ps[0] in placed:
                break
            placed[ps[0]] = c
        else:
            if len(placed) + jokers == 4:
                out.append(("R", suit, lo, tuple(placed.get(p, JOKER) for p in window)))
    return out


def brute_force(hand: list[int], trios: int, runs: int) -> set[tuple]:
    sizes = [3] * trios + [4] * runs
    found: set[tuple] = set()

    def rec(rest: list[int], i: int, chosen: list[tuple]) -> None:
        if i == len(sizes):
            if rest:  # R10: a card stays for the discard
                found.add(tuple(sorted(chosen)))
            return
        for group in set(combinations(rest, sizes[i])):
            for meld in readings(group):
                left = list((Counter(rest) - Counter(group)).elements())
                rec(sorted(left), i + 1, chosen + [meld])

    rec(sorted(hand), 0, [])
    return found


def key(meld: Meld) -> tuple:
    if meld.kind is MeldKind.TRIO:
        return ("T", meld.key, tuple(sorted(meld.cards)))
    return ("R", meld.key, meld.lo, meld.cards)


def engine(hand: list[int], deal: int) -> list[tuple]:
    return [tuple(sorted(key(m) for m in o)) for o in enumerate_openings(counts_of(hand), CONTRACTS[deal])]


def check_exact(hand: list[int], deal: int) -> int:
    contract = CONTRACTS[deal]
    openings = enumerate_openings(counts_of(hand), contract)
    keys = [tuple(sorted(key(m) for m in o)) for o in openings]
    assert len(keys) == len(set(keys)), f"duplicate openings for {sorted(hand)} deal {deal}"
    expected = brute_force(hand, contract.trios, contract.runs)
    assert set(keys) == expected, (
        f"deal {deal}, hand {sorted(hand)}: missing {expected - set(keys)}, extra {set(keys) - expected}"
    )
    have = Counter(hand)
    for o in openings:
        assert o == tuple(sorted(o))  # canonical order: trios first
        assert [m.kind for m in o].count(MeldKind.TRIO) == contract.trios
        assert len(o) == contract.trios + contract.runs
        for m in o:
            check_opening_meld(m)
        used = Counter(c for m in o for c in m.cards)
        assert not used - have and sum(used.values()) < len(hand)
    assert can_open(counts_of(hand), contract) == bool(openings)
    return len(openings)


# --------------------------------------------------------------------- random hands


def _limit(cards: list[int]) -> list[int]:
    """Drop cards beyond the deck's copies (2 per natural, 4 jokers)."""
    seen: Counter = Counter()
    out = []
    for c in cards:
        if seen[c] < (4 if c == JOKER else 2):
            seen[c] += 1
            out.append(c)
    return out


def planted(rng: random.Random, deal: int) -> list[int]:
    """Cards of a random opening of the contract (a joker sometimes), possibly spoilt later."""
    contract = CONTRACTS[deal]
    cards = []
    for _ in range(contract.trios):
        r = rng.randrange(13)
        cards += [rng.randrange(4) * 13 + r for _ in range(3)]
    for _ in range(contract.runs):
        s, lo = rng.randrange(4), rng.randrange(1, 12)
        cards += [s * 13 + (p if p < 14 else 1) - 1 for p in range(lo, lo + 4)]
    if rng.random() < 0.5:
        cards[rng.randrange(len(cards))] = JOKER
    return cards


def random_hand(rng: random.Random, deal: int) -> list[int]:
    size = rng.choice((12, 13))
    style = min(rng.randrange(7), 4)  # planted openings (4) for 3 in 7 hands
    if style == 0:  # any 12-13 cards of the 108
        hand = rng.sample(full_deck(), size)
    else:  # dense hands, so that many openings exist
        if style == 1:  # runs: a few suits, a window of ranks (aces at either end)
            suits = rng.sample(range(4), rng.choice((1, 2, 3)))
            lo = rng.randrange(1, 10)
            pool = [s * 13 + (p if p < 14 else 1) - 1 for s in suits for p in range(lo, lo + 6)]
        elif style == 2:  # trios: a few ranks in every suit
            ranks = rng.sample(range(13), rng.choice((3, 4)))
            pool = [s * 13 + r for s in range(4) for r in ranks]
        elif style == 3:  # both
            ranks = rng.sample(range(13), 2)
            suit = rng.randrange(4)
            lo = rng.randrange(1, 10)
            pool = [s * 13 + r for s in range(4) for r in ranks]
            pool += [suit * 13 + (p if p < 14 else 1) - 1 for p in range(lo, lo + 7)]
        else:  # a planted opening of the contract, then random cards
            pool = []
        pool = pool * 2 + [JOKER] * 4
        rng.shuffle(pool)
        if style == 4:
            pool = planted(rng, deal) + pool
        hand = _limit(pool)[:size]
        if len(hand) < size:
            rest = Counter(full_deck()) - Counter(hand)
            hand += rng.sample(sorted(rest.elements()), size - len(hand))
    for _ in range(rng.choice((0, 0, 1, 2, 3))):  # extra jokers sometimes
        hand[rng.randrange(len(hand))] = JOKER
    hand = _limit(hand)
    assert not Counter(hand) - Counter(full_deck())
    return hand


@pytest.mark.parametrize("deal", [1, 2, 3, 4, 5, 6, 7])
def test_enumerate_openings_matches_brute_force_on_random_hands(deal):
    rng = random.Random(1000 + deal)
    hands = 120
    total = nonempty = 0
    for _ in range(hands):
        hand = random_hand(rng, deal)
        n = check_exact(hand, deal)
        total += n
        nonempty += n > 0
    assert nonempty >= hands // 8, "the sample should hold hands that can open"
    assert total > nonempty  # and hands with several openings


# ------------------------------------------------------------------ hand-built cases


def M(text: str) -> Meld:
    return Meld.parse(text)


def openings_of(text: str, deal: int) -> set[tuple[Meld, ...]]:
    hand = parse_cards(text)
    check_exact(hand, deal)
    return set(enumerate_openings(counts_of(hand), CONTRACTS[deal]))


def test_hand_with_two_jokers_uses_one_per_meld():
    got = openings_of("8S 8H JK JK 4S 5S 7S 9C 9D 2H 3D KC", 2)
    assert got == {
        (M("8S 8H JK"), M("4S 5S JK 7S")),
        (M("9C 9D JK"), M("4S 5S JK 7S")),
        (M("9C 9D JK"), M("5S JK 7S 8S")),  # 8S can serve the run or the trio, not both
    }


def test_two_jokers_never_in_one_meld():
    assert openings_of("8S JK JK 4S 5S 6S 7S 9C 10D 2H 3D KC", 2) == set()
    assert openings_of("9C 9D 9H 4S JK JK 7S 10D 2H 3D KC QC", 2) == set()


def test_ace_low_and_ace_high_runs():
    got = openings_of("AS 2S 3S 4S JS QS KS AS 9H 9D 5C 6C", 3)
    assert got == {(M("AS 2S 3S 4S"), M("JS QS KS AS")),}
    # one ace cannot serve both runs
    assert openings_of("AS 2S 3S 4S JS QS KS 7H 9H 9D 5C 6C", 3) == set()
    # a joker may be either ace; K-A-2 never wraps
    got = openings_of("JK 2S 3S 4S JS QS KS AS 9H 9D 5C 6C", 3)
    assert (M("JK 2S 3S 4S"), M("JS QS KS AS")) in got
    assert openings_of("QS KS AS 2S QH KH AH 2H 9D 9C 5C 6C", 3) == set()


def test_trio_with_copies_of_one_suit():
    got = openings_of("8S 8S 8H 9C 9D 9H 2S 4D 6C JC QH KH", 1)
    assert got == {(M("8S 8S 8H"), M("9C 9D 9H"))}
    assert M("8S 8S 8H").cards == tuple(parse_cards("8S 8S 8H"))


def test_many_copies_each_distinct_opening_once():
    hand = "8S 8S 8H 8H 8D 8D 8C JK 9S 9H 9D 9C"
    for deal in (1, 4):
        got = enumerate_openings(counts_of(parse_cards(hand)), CONTRACTS[deal])
        assert len(got) == len(set(got)) > 5
        check_exact(parse_cards(hand), deal)
    # two trios of the same rank (R6) are listed
    assert (M("8S 8S 8H"), M("8H 8D 8D")) in openings_of(hand, 1)


def test_two_runs_of_one_suit_and_the_keep_one_card_rule():
    got = openings_of("4S 5S 6S 7S 8S 9S 10S JS 2H 3D KC QC", 3)
    assert (M("4S 5S 6S 7S"), M("8S 9S 10S JS")) in got
    three_runs = "4S 5S 6S 7S 4H 5H 6H 7H 4D 5D 6D 7D"
    assert openings_of(three_runs, 7) == set()  # 12 cards: nothing would be left to discard
    assert openings_of(three_runs + " KC", 7) == {
        (M("4S 5S 6S 7S"), M("4H 5H 6H 7H"), M("4D 5D 6D 7D"))}
