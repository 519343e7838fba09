"""Contracts and the exact enumeration of the openings a hand can lay.

An opening is a multiset of opening melds (R5) matching the deal's contract (R6) whose
cards the hand holds, leaving at least one card for the discard (R10).  Candidates are
built per rank (trios: a multiset of 3 suits, or 2 suits and a joker, each suit at most
as often as the hand holds it, two copies at most) and per suit and 4-card window of
positions 1..14 (runs: no joker, or the joker in one of the 4 places).  Openings are
then the combinations of candidates taken in non-decreasing candidate order, so each
distinct opening is produced exactly once, whatever order its melds were chosen in.
Cheap necessary conditions skip most of the work on the many hands that cannot open:
lower bounds on the jokers a contract's runs and trios would take from the hand, from its
counts as bytes, before any candidate is built (:func:`fewest_run_jokers`,
:func:`fewest_trio_jokers`); then a rank
with too few naturals, a suit with too few ranks, a kind of meld that does not fit on its
own.  Tests compare :func:`enumerate_openings` with :func:`search_openings` (the search
without the bounds) and both with the plain search over every meld held.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, product

from carioca_env.cards import JOKER, NUM_CARD_TYPES, NUM_RANKS, NUM_SUITS
from carioca_env.melds import HIGH_ACE, LOW_ACE, RUN_SIZE, Meld, MeldKind


@dataclass(frozen=True)
class Contract:
    """What one deal requires (R6, guide §03).

    Attributes:
        number: the deal number 1..7.
        trios: how many trios.
        runs: how many runs.
        hand_size: cards dealt to each player in this deal (R3).
    """

    number: int
    trios: int
    runs: int
    hand_size: int

    @property
    def cards(self) -> int:
        """Cards the contract lays: 3 per trio, 4 per run."""
        return 3 * self.trios + RUN_SIZE * self.runs

    @property
    def melds(self) -> str:
        """The melds it asks for in words: ``"2 trios + 1 run"``."""
        parts = []
        if self.trios:
            parts.append(f"{self.trios} trio" + ("s" if self.trios > 1 else ""))
        if self.runs:
            parts.append(f"{self.runs} run" + ("s" if self.runs > 1 else ""))
        return " + ".join(parts)

    def __str__(self) -> str:
        return f"deal {self.number}: {self.melds} ({self.cards} cards)"


#: The seven contracts in order (guide §03, R6); deals 1-6 deal 11 cards, deal 7 deals 12 (R3).
CONTRACTS: dict[int, Contract] = {
    1: Contract(1, 2, 0, 11),
    2: Contract(2, 1, 1, 11),
    3: Contract(3, 0, 2, 11),
    4: Contract(4, 3, 0, 11),
    5: Contract(5, 2, 1, 11),
    6: Contract(6, 1, 2, 11),
    7: Contract(7, 0, 3, 12),
}

def _trio_table() -> tuple[tuple[tuple[tuple[tuple[int, int], ...], Meld, bool], ...], ...]:
    """Per rank, every opening trio with the card counts it needs (built once)."""
    table = []
    for rank in range(1, NUM_RANKS + 1):
        entries = []
        for jokers, size in ((0, 3), (1, 2)):
            for suits in combinations_with_replacement(range(NUM_SUITS), size):
                if any(suits.count(s) > 2 for s in suits):
                    continue  # three naturals of one suit need three packs
                meld = Meld.trio(rank, suits, jokers)
                needs = tuple((c, meld.cards.count(c)) for c in dict.fromkeys(meld.cards) if c != JOKER)
                entries.append((needs, meld, bool(jokers)))
        table.append(tuple(entries))
    return tuple(table)


def _run_table() -> tuple[tuple[tuple[int, Meld, tuple[Meld, ...]], ...], ...]:
    """Per suit and window of positions lo..lo+3: the window's bits, the plain run, and
    the runs with a joker in each of its 4 places (built once)."""
    table = []
    for suit in range(NUM_SUITS):
        windows = []
        for lo in range(LOW_ACE, HIGH_ACE - RUN_SIZE + 2):
            with_joker = tuple(Meld.run(suit, lo, RUN_SIZE, (p,)) for p in range(lo, lo + RUN_SIZE))
            windows.append((lo, Meld.run(suit, lo), with_joker))
        table.append(tuple(windows))
    return tuple(table)


_TRIOS = _trio_table()
_RUNS = _run_table()
_FULL = 0b1111
#: a 4-bit window with exactly one position missing -> the index of that position
_ONE_MISSING = {_FULL ^ (1 << i): i for i in range(RUN_SIZE)}


def _trio_lookup() -> tuple[dict[tuple[int, ...], tuple[Meld, ...]], ...]:
    """Per rank: (copies held per suit, 0..2; holds a joker) -> the trios of
    :data:`_TRIOS` that hand can lay, in table order (built once, 162 keys a rank)."""
    lookup = []
    for rank in range(NUM_RANKS):
        by_key = {}
        for held in product(range(3), repeat=NUM_SUITS):
            for joker in (False, True):
                counts = [0] * NUM_CARD_TYPES
                for suit, k in enumerate(held):
                    counts[rank + 13 * suit] = k
                by_key[(*held, joker)] = tuple(
                    meld for needs, meld, uses_joker in _TRIOS[rank]
                    if (joker or not uses_joker) and all(counts[c] >= k for c, k in needs)
                )
        lookup.append(by_key)
    return tuple(lookup)


_TRIO_LOOKUP = _trio_lookup()


def trio_candidates(counts: Sequence[int]) -> list[Meld]:
    """Every opening trio the hand can lay on its own, in a fixed order (R5)."""
    joker = counts[JOKER] > 0
    need = 2 if joker else 3  # naturals of one rank a trio needs
    out: list[Meld] = []
    # one rank's four suits side by side (card = rank + 13 * suit): zip of slices, not
    # four indexings a rank; a rank with fewer naturals than a trio needs has none
    for rank, a, b, c, d in zip(range(NUM_RANKS), counts[0:13], counts[13:26], counts[26:39], counts[39:52]):
        if a + b + c + d >= need:
            # a natural held 3+ times is impossible (two packs), so the key needs no capping
            out.extend(_TRIO_LOOKUP[rank][(a, b, c, d, joker)])
    return out


def run_candidates(counts: Sequence[int]) -> list[Meld]:
    """Every opening run the hand can lay on its own, in a fixed order (R4, R5)."""
    if not isinstance(counts, (list, tuple)):
        counts = list(counts)  # the suits' slices need list.count (a numpy array has none)
    joker = counts[JOKER] > 0
    # a window of 4 positions holds at most one ace (positions 1 and 14 are 13 apart), so
    # a run needs 4 distinct ranks of its suit, or 3 with the joker: a suit with more
    # absent ranks than that allows has none (list.count, not a walk over the positions)
    most_absent = NUM_RANKS - (RUN_SIZE - 1 if joker else RUN_SIZE)
    out: list[Meld] = []
    for suit in range(NUM_SUITS):
        held = counts[suit * NUM_RANKS:(suit + 1) * NUM_RANKS]
        if held.count(0) <= most_absent:
            out.extend(_suit_runs(suit, tuple(held), joker))
    return out


@lru_cache(maxsize=1 << 16)
def _suit_runs(suit: int, held: tuple[int, ...], joker: bool) -> tuple[Meld, ...]:
    """The opening runs of one suit, given the copies held of its ranks A..K and whether a
    joker is held (a pure function, cached: hands repeat their suits very often)."""
    bits = 0
    for p in range(LOW_ACE, HIGH_ACE + 1):
        if held[(p - 1) % NUM_RANKS]:  # positions 1 and 14 are both the ace
            bits |= 1 << p
    out: list[Meld] = []
    if not bits:
        return ()
    for lo, plain, with_joker in _RUNS[suit]:
        window = (bits >> lo) & _FULL
        if window == _FULL:
            out.append(plain)
            if joker:
                out.extend(with_joker)
        elif joker and window in _ONE_MISSING:
            out.append(with_joker[_ONE_MISSING[window]])
    return tuple(out)


def _take(counts: list[int], meld: Meld) -> bool:
    """Remove the meld's cards from ``counts``; undo and return False if they are not there."""
    taken: list[int] = []
    for c in meld.cards:
        if counts[c] == 0:
            for t in taken:
                counts[t] += 1
            return False
        counts[c] -= 1
        taken.append(c)
    return True


def _give(counts: list[int], meld: Meld) -> None:
    for c in meld.cards:
        counts[c] += 1


def _layable(work: list[int], cands: Sequence[Meld], need: int, start: int) -> bool:
    """Whether ``need`` of ``cands`` (from index ``start`` on, repeats allowed) fit in
    ``work`` together; ``work`` is left as it was."""
    if need == 0:
        return True
    for i in range(start, len(cands)):
        meld = cands[i]
        if _take(work, meld):
            fits = _layable(work, cands, need - 1, i)
            _give(work, meld)
            if fits:
                return True
    return False


#: byte translation tables of the bounds below, indexed by a count 0..255
_PRESENT = bytes(min(k, 1) for k in range(256))
_THIRD = bytes(k // 3 for k in range(256))
_TWO_LEFT = bytes(int(k % 3 == 2) for k in range(256))
#: the most copies of a card the bounds take (4 suits' counts of a rank summed in one
#: byte); a hand holds 2 of a natural at most (R1), so only a malformed one exceeds it
_MOST_COPIES = 63
_FEW_COPIES = bytes(range(_MOST_COPIES + 1))
#: what :func:`fewest_run_jokers` says when no number of jokers makes the runs
NEVER = 1 << 16
#: a suit's ranks held (13 bytes 0/1, ace first) -> 2 when 4 consecutive positions are
#: held, 1 when only 3 of some window are (each run there needs a joker), 0 when no run
#: is possible; at most 2**13 keys, filled as they come
_SUIT_SHAPE: dict[bytes, int] = {}


def _suit_shape(present: bytes) -> int:
    """The :data:`_SUIT_SHAPE` value of a suit's ranks held (13 bytes 0/1, ace first)."""
    bits = 0
    for p in range(LOW_ACE, HIGH_ACE + 1):
        if present[(p - 1) % NUM_RANKS]:  # positions 1 and 14 are both the ace
            bits |= 1 << p
    shape = 0
    for lo in range(LOW_ACE, HIGH_ACE - RUN_SIZE + 2):
        held = ((bits >> lo) & _FULL).bit_count()
        if held == RUN_SIZE:
            return 2
        if held == RUN_SIZE - 1:
            shape = 1
    return shape


def fewest_run_jokers(held: bytes, runs: int) -> int:
    """A lower bound on the jokers ``runs`` opening runs of a hand take together;
    :data:`NEVER` when no number of jokers would do.

    ``held`` is the hand's 53 counts as bytes.  A run takes 3 or 4 naturals of one suit
    on a window of 4 positions and at most one joker (R4, R5): a suit with no window
    holding 3 of its positions has none; one with no window holding all 4 has only runs
    with a joker; and no suit has more runs than a third of its naturals.
    """
    present = held.translate(_PRESENT)
    free = with_joker = 0
    for lo in (0, 13, 26, 39):
        key = present[lo:lo + NUM_RANKS]
        shape = _SUIT_SHAPE.get(key)
        if shape is None:
            shape = _SUIT_SHAPE[key] = _suit_shape(key)
        if shape:
            most = sum(held[lo:lo + NUM_RANKS]) // (RUN_SIZE - 1)
            if shape == 2:
                free += most
            else:
                with_joker += most
    if free >= runs:
        return 0
    short = runs - free  # runs only a suit that needs a joker can give, one joker each
    return short if short <= with_joker else NEVER


def fewest_trio_jokers(held: bytes, trios: int) -> int:
    """A lower bound on the jokers ``trios`` opening trios of a hand take together.

    ``held`` is the hand's 53 counts as bytes (naturals at most :data:`_MOST_COPIES`).
    ``t`` trios of one rank need ``2t`` naturals and ``3t`` cards with at most ``t``
    jokers (R5), so ``n`` naturals make ``n // 3`` alone; a joker adds one more to a
    rank holding ``n % 3 == 2`` naturals, and any further trio takes at least two jokers.
    """
    # the four suits' counts of each rank summed byte by byte in one integer addition
    # (no carry: a byte's sum is 4 * 63 at most)
    per_rank = (
        int.from_bytes(held[0:13], "little") + int.from_bytes(held[13:26], "little")
        + int.from_bytes(held[26:39], "little") + int.from_bytes(held[39:52], "little")
    ).to_bytes(NUM_RANKS, "little")
    short = trios - sum(per_rank.translate(_THIRD))
    if short <= 0:
        return 0
    cheap = sum(per_rank.translate(_TWO_LEFT))  # ranks where one joker makes one more trio
    return short if short <= cheap else 2 * short - cheap


def enumerate_openings(counts: Sequence[int], contract: Contract) -> list[tuple[Meld, ...]]:
    """All distinct openings of ``contract`` the hand can lay, each exactly once.

    Each opening is a tuple of melds, trios first, in canonical order (the order of
    :class:`~carioca_env.moves.Move`'s ``melds``).  An opening must leave at least one
    card in hand (R10).

    Most hands cannot open: lower bounds on the jokers the contract's runs and trios
    would take (:func:`fewest_run_jokers`, :func:`fewest_trio_jokers`, a few C-level byte
    operations) turn away those that hold too few, before the search
    (:func:`search_openings`), which is the same list otherwise.
    """
    # int(): a numpy uint8 hand would otherwise wrap below 0 in the subtraction
    if int(sum(counts)) - contract.cards < 1:
        return []
    if contract.runs or contract.trios:
        try:
            held = bytes(counts if isinstance(counts, (list, tuple)) else list(counts))
        except (TypeError, ValueError):  # not small non-negative ints (a float, -1): no bounds
            return search_openings(counts, contract)
        if len(held) != NUM_CARD_TYPES:  # no hand: no bounds
            return search_openings(counts, contract)
        if held.translate(None, _FEW_COPIES):  # a count above them: no hand; byte sums could carry
            return search_openings(counts, contract)
        # the runs and the trios of an opening take disjoint jokers
        jokers = held[JOKER]
        need = fewest_run_jokers(held, contract.runs) if contract.runs else 0
        if need > jokers:
            return []
        if contract.trios and need + fewest_trio_jokers(held, contract.trios) > jokers:
            return []
    return search_openings(counts, contract)


def search_openings(counts: Sequence[int], contract: Contract) -> list[tuple[Meld, ...]]:
    """:func:`enumerate_openings` without its bounds: the search over the candidates.

    The reference :func:`enumerate_openings` is compared with (the same list, in the same
    order, for every hand); itself compared with the plain search over every meld held.
    """
    hand_size = int(sum(counts))  # not a wrapping numpy scalar
    if hand_size - contract.cards < 1:
        return []
    # runs first: a hand holds a run less often than a trio, so most hands stop here
    runs = run_candidates(counts) if contract.runs else []
    if contract.runs and not runs:
        return []
    trios = trio_candidates(counts) if contract.trios else []
    if contract.trios and not trios:
        return []
    work = list(counts)
    if contract.trios and contract.runs:
        # necessary conditions, cheap beside the search over trios x runs: an opening's
        # trios alone fit in the hand, and so do its runs (each check stops at a first fit)
        if contract.trios > 1 and not _layable(work, trios, contract.trios, 0):
            return []
        if contract.runs > 1 and not _layable(work, runs, contract.runs, 0):
            return []
    out: list[tuple[Meld, ...]] = []
    chosen: list[Meld] = []
    plan = [(trios, contract.trios), (runs, contract.runs)]

    def pick(stage: int, need: int, start: int) -> None:
        if need == 0:
            if stage + 1 < len(plan):
                pick(stage + 1, plan[stage + 1][1], 0)
            else:
                out.append(tuple(sorted(chosen)))
            return
        cands = plan[stage][0]
        for i in range(start, len(cands)):
            meld = cands[i]
            if _take(work, meld):
                chosen.append(meld)
                pick(stage, need - 1, i)
                chosen.pop()
                _give(work, meld)

    pick(0, plan[0][1], 0)
    return out


def can_open(counts: Sequence[int], contract: Contract) -> bool:
    """Whether the hand holds at least one opening of ``contract``."""
    return bool(enumerate_openings(counts, contract))


def meld_kinds_match(melds: Sequence[Meld], contract: Contract) -> bool:
    """Whether the melds are exactly the contract's trios and runs (R6)."""
    trios = sum(1 for m in melds if m.kind is MeldKind.TRIO)
    return trios == contract.trios and len(melds) - trios == contract.runs
