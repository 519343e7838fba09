"""The exact deficiency and outs of a hand for a contract (:func:`analyze`).

Everything here reads only what a seat may know: its own hand (as 53 counts), the
melds on the table and the public discard history of a :class:`~carioca_env.PlayerView`.

The main tool is :func:`analyze`: the exact *deficiency* of a hand for a contract (the
fewest cards that must still be drawn before the hand holds the whole contract, jokers
included) and its *outs* (every card type whose arrival lowers the deficiency by one).

How it is computed (exact):

* a contract is ``t`` trios and ``r`` runs; a plan picks ``r`` run windows (suit and 4
  consecutive positions; 4 suits x 11 windows, A low to A high, repeats allowed) and
  ``t`` trio ranks (13 ranks, repeats allowed: two trios of one rank are legal, R6);
  a plan's value is the number of contract slots the hand fills, at most one joker per
  meld (R5);
* runs are searched depth first over the windows, in decreasing order of how many of
  their cards the hand holds, with an upper bound.  A run slot takes one particular
  card, so a chosen window takes every card of it the hand still has (exchange
  argument).  An incomplete run takes a joker while one is left (a joker adds one
  anywhere it goes); a complete run may instead hold a joker and *release* one of its
  cards to a later meld (two runs of one window sharing cards, a trio of the released
  card's rank), which the one-joker-per-meld rule can make necessary.  When outs are
  wanted, an incomplete run's joker may also release a held card (a tie that leaves a
  different gap open, whose card is then an out);
* trios are then solved in closed form on the cards left: with ``m`` trios of a rank
  holding ``n`` naturals, they use ``min(3m, n)`` naturals and ``min(m, 3m - n)`` joker
  places; only the ``t`` ranks holding the most naturals need to be tried;
* with outs wanted, ties are kept: the outs are the union over all optimal plans of the
  cards that fill a slot no natural and no joker fills, or a joker's slot when some
  incomplete meld has no joker (the freed joker moves there); the joker is an out when
  an incomplete meld has none.  Card types no optimal plan uses are reported too
  (``used_types``' complement): discarding one changes neither deficiency nor outs.

Checked against brute force over the engine's :func:`~carioca_env.openings.enumerate_openings`
(deficiency 0 to 2 and the outs, thousands of hands near a contract, jokers included).

Results are cached per (hand, contract).  A hand's outs are exactly the cards that cover
one more, so a cached analysis with outs also gives the deficiency of the hand plus any
card (:func:`deficiency_with`) and the cover of a hand one card bigger; and a card no
optimal plan uses leaves the analysis as it is (:func:`analysis_without`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from operator import itemgetter

from carioca_env.cards import JOKER
from carioca_env.melds import HIGH_ACE, LOW_ACE, position_card
from carioca_env.openings import Contract

# ---------------------------------------------------------------------------- windows

#: Rank-index masks (bit k = rank k+1, the ace is bit 0) of the 11 four-card run windows
#: of one suit: A-2-3-4 ... 10-J-Q-K, and J-Q-K-A (the high ace is the ace's bit).
WINDOW_MASKS: tuple[int, ...] = tuple(
    [0b1111 << lo for lo in range(10)] + [(0b111 << 10) | 1]
)

_ALL_NATURALS = frozenset(range(JOKER))


def suit_masks(counts: Sequence[int]) -> tuple[list[int], list[int]]:
    """Per suit, the rank masks of types held at least once and at least twice."""
    c1 = [0, 0, 0, 0]
    c2 = [0, 0, 0, 0]
    for s in range(4):
        base = s * 13
        m1 = m2 = 0
        for k in range(13):
            n = counts[base + k]
            if n:
                m1 |= 1 << k
                if n > 1:
                    m2 |= 1 << k
        c1[s] = m1
        c2[s] = m2
    return c1, c2


class Analysis:
    """Deficiency (and outs) of one hand for one contract.

    Attributes:
        deficiency: fewest cards still missing to hold the whole contract.
        used: contract cards the hand already covers (``contract.cards - deficiency``).
        outs: card types that lower the deficiency by one when added (``JOKER``
            included when a joker would); only when ``complete``.
        used_types: card types of the hand that some optimal plan uses; removing a card
            of any other type leaves the deficiency and the outs unchanged (the optimal
            plans are the same); only when ``complete``.
        complete: whether outs and used types were computed (every optimal plan seen).
        plan_ranks: ranks (1..13) of the trios of the optimal plans (when complete).
        plan_windows: ``(suit, lowest position)`` of the runs of the optimal plans.
    """

    __slots__ = ("deficiency", "used", "outs", "used_types", "complete", "plan_ranks", "plan_windows")

    def __init__(
        self, deficiency: int, used: int, outs: frozenset[int], used_types: frozenset[int],
        complete: bool, plan_ranks: frozenset[int] = frozenset(),
        plan_windows: frozenset[tuple[int, int]] = frozenset(),
    ) -> None:
        self.deficiency = deficiency
        self.used = used
        self.outs = outs
        self.used_types = used_types
        self.complete = complete
        self.plan_ranks = plan_ranks
        self.plan_windows = plan_windows

    def extensions(self) -> frozenset[int]:
        """Card types that would fit the plan's melds once laid (another card of a
        trio's rank, the card below or above a run): sure lay-offs after opening."""
        out: set[int] = set()
        for r in self.plan_ranks:
            out.update((r - 1, 12 + r, 25 + r, 38 + r))
        for s, lo in self.plan_windows:
            if lo > LOW_ACE:
                out.add(position_card(s, lo - 1))
            if lo + 4 <= HIGH_ACE:
                out.add(position_card(s, lo + 4))
        return frozenset(out)

    def __repr__(self) -> str:
        return f"Analysis(deficiency={self.deficiency}, outs={len(self.outs)}, complete={self.complete})"


_CACHE: dict[tuple, Analysis] = {}
_CACHE_LIMIT = 20_000


def analyze(counts: Sequence[int], contract: Contract | tuple[int, int], want_outs: bool = True) -> Analysis:
    """Exact deficiency (and, with ``want_outs``, outs and used types) of a hand of 53
    counts for a contract.

    ``contract`` is a :class:`Contract` or a ``(trios, runs)`` pair.
    """
    if isinstance(contract, Contract):
        trios, runs = contract.trios, contract.runs
    else:
        trios, runs = contract
    key = (tuple(counts), trios, runs)
    hit = _CACHE.get(key)
    if hit is not None and (hit.complete or not want_outs):
        return hit
    if want_outs:
        # the outs search, told the exact cover first (cached, or found from a cached
        # hand one card smaller, or a plain search, which prunes ties): it visits the
        # same optimal plans as from nothing, but never works out the outs of a plan a
        # better one then replaces
        if hit is not None:
            cover = hit.used
        else:
            cover = _cover_from_smaller(key[0], trios, runs)
            if cover < 0:
                cover = _analyze(key[0], trios, runs, False).used
        res = _analyze(key[0], trios, runs, True, floor=cover)
    else:
        res = _analyze(key[0], trios, runs, False)
    _remember(key, res)
    return res


def _cover_from_smaller(counts: tuple[int, ...], trios: int, runs: int) -> int:
    """The cover of ``counts`` read from the complete cached analysis of the hand less
    one of its cards, or -1 when none is cached.

    A hand's outs are exactly the card types whose arrival covers one more contract
    card (a card it cannot get, a third copy of a natural or a fifth joker, is never
    one, and never needed here: the smaller hand holds fewer copies than ``counts``
    does).  So with ``x`` held, the cover of ``counts`` is that of ``counts`` less an
    ``x``, plus one if ``x`` is among its outs.  The hand a seat held before its draw
    is usually cached with its outs (the discard that led to it was analysed), so
    this saves the plain search before the outs search."""
    less = list(counts)
    get = _CACHE.get
    for x, n in enumerate(counts):
        if n:
            less[x] = n - 1
            hit = get((tuple(less), trios, runs))
            less[x] = n
            if hit is not None and hit.complete:
                return hit.used + (x in hit.outs)
    return -1


def deficiency(counts: Sequence[int], contract: Contract | tuple[int, int]) -> int:
    """Fewest cards missing from the hand to hold the whole contract (jokers count, R5)."""
    return analyze(counts, contract, want_outs=False).deficiency


def _trios_runs(contract: Contract | tuple[int, int]) -> tuple[int, int]:
    if isinstance(contract, Contract):
        return contract.trios, contract.runs
    return contract


def _bounded(counts: tuple[int, ...], trios: int, runs: int, floor: int, goal: int) -> int:
    """Deficiency of ``counts``, known to cover at least ``floor`` and at most ``goal``
    contract cards: the search starts from ``floor`` (it prunes every branch that cannot
    beat it) and stops at ``goal``; cached like :func:`analyze`."""
    key = (counts, trios, runs)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit.deficiency
    res = _analyze(counts, trios, runs, False, floor=floor, goal=goal)
    _remember(key, res)
    return res.deficiency


def deficiency_without(counts: Sequence[int], card: int, contract: Contract | tuple[int, int]) -> int:
    """``deficiency`` of the hand less one ``card`` (which it holds), found faster.

    A card fewer covers at most the same contract cards and at least one fewer (the
    plan without it), so the search starts from the whole hand's cover less one and
    stops as soon as it finds the whole hand's cover.  Equal to
    ``deficiency(counts_minus(counts, card), contract)`` (the tests compare them).
    """
    trios, runs = _trios_runs(contract)
    used = analyze(counts, (trios, runs), want_outs=False).used
    less = list(counts)
    less[card] -= 1
    return _bounded(tuple(less), trios, runs, used - 1, used)


def analysis_without(counts: Sequence[int], card: int, contract: Contract | tuple[int, int]) -> Analysis:
    """``analyze(counts_minus(counts, card), contract)`` (with outs) of a held ``card``,
    found without a search when no optimal plan of the hand uses the card.

    Removing such a card leaves the hand's optimal plans as they were (every plan of the
    smaller hand is one of the hand's, and the optimal ones never needed the card), so
    its deficiency, outs, used types and plans are the hand's; the result is cached
    under the smaller hand.  A seat that discards it holds that hand at its next draw,
    whose analysis then costs nothing, and so do the deficiency with the card it draws
    (:func:`deficiency_with`) and the cover of the hand it then holds.  The tests
    compare it with ``analyze`` of the smaller hand."""
    if not counts[card]:
        raise ValueError(f"analysis_without: the hand holds no card {card}")
    trios, runs = _trios_runs(contract)
    whole = analyze(counts, (trios, runs))
    less = list(counts)
    less[card] -= 1
    if card in whole.used_types:
        return analyze(less, (trios, runs))
    key = (tuple(less), trios, runs)
    hit = _CACHE.get(key)
    if hit is not None and hit.complete:
        return hit
    _remember(key, whole)
    return whole


def deficiency_with(counts: Sequence[int], card: int, contract: Contract | tuple[int, int]) -> int:
    """``deficiency`` of the hand plus one ``card``, found faster: it covers at least
    what the hand covers and at most one more (the search's floor and goal).  Equal to
    ``deficiency(counts_plus(counts, card), contract)`` (the tests compare them)."""
    trios, runs = _trios_runs(contract)
    now = analyze(counts, (trios, runs), want_outs=False)
    used = now.used
    more = list(counts)
    more[card] += 1
    key = tuple(more)
    if now.complete and counts[card] < (4 if card == JOKER else 2):
        # the outs are exactly the cards that cover one more (see _cover_from_smaller);
        # the cover is kept for the outs search of the bigger hand
        hit = _CACHE.get((key, trios, runs))
        if hit is not None:
            return hit.deficiency
        cover = used + (card in now.outs)
        total = 3 * trios + 4 * runs
        _remember((key, trios, runs), Analysis(total - cover, cover, frozenset(), frozenset(), False))
        return total - cover
    return _bounded(key, trios, runs, used, min(used + 1, 3 * trios + 4 * runs))


def _remember(key: tuple, res: Analysis) -> None:
    """Keep ``res`` in the cache; when full, the older half goes (a dict keeps insertion
    order), so a long search keeps the hands it met last rather than starting empty."""
    if len(_CACHE) >= _CACHE_LIMIT:
        for old in list(islice(_CACHE, _CACHE_LIMIT // 2)):
            del _CACHE[old]
    _CACHE[key] = res


#: what :func:`_analyze` reads of a hand before its search: per suit the rank masks held
#: at least once and at least twice, the naturals per rank (13 counts), and the run
#: windows that hold a natural as ``(naturals, suit, window mask)``, most naturals first
#: (ties in suit then window order)
Prepared = tuple[list[int], list[int], list[int], list[tuple[int, int, int]]]

#: per suit, its 13 counts -> (mask held once, mask held twice, the counts packed 4 bits
#: a rank, its windows holding a natural as (naturals, window mask)): a hand's four
#: suits are looked up here instead of walked card by card (suits repeat far more than
#: hands: across the candidates of a discard, turns, seats and rollouts)
_SUIT_TABLE: dict[tuple[int, ...], tuple[int, int, int, tuple[tuple[int, int], ...]]] = {}
#: the packed sum of four suits' counts -> the naturals per rank
_RANK_TABLE: dict[int, tuple[int, ...]] = {}
_TABLE_LIMIT = 50_000


def _suit_entry(part: tuple[int, ...]) -> tuple[int, int, int, tuple[tuple[int, int], ...]]:
    """:data:`_SUIT_TABLE`'s entry of one suit's 13 counts, computed on a miss."""
    m1 = m2 = packed = 0
    for k, n in enumerate(part):
        if n:
            m1 |= 1 << k
            if n > 1:
                m2 |= 1 << k
            packed |= n << (4 * k)
    wins = tuple(((m1 & w).bit_count(), w) for w in WINDOW_MASKS if m1 & w)
    if len(_SUIT_TABLE) >= _TABLE_LIMIT:
        _SUIT_TABLE.clear()
    entry = _SUIT_TABLE[part] = (m1, m2, packed, wins)
    return entry


def _prepare(counts: tuple[int, ...], runs: int) -> Prepared:
    """:data:`Prepared` of a hand from the per-suit table (the fast path of
    :func:`_prepare_reference`, which the tests compare it with)."""
    get = _SUIT_TABLE.get
    entries = []
    for base in (0, 13, 26, 39):
        part = counts[base:base + 13]
        e = get(part)
        entries.append(_suit_entry(part) if e is None else e)
    e0, e1, e2, e3 = entries
    packed = e0[2] + e1[2] + e2[2] + e3[2]  # at most 8 per rank: no carry between ranks
    ranks = _RANK_TABLE.get(packed)
    if ranks is None:
        if len(_RANK_TABLE) >= _TABLE_LIMIT:
            _RANK_TABLE.clear()
        ranks = _RANK_TABLE[packed] = tuple(packed >> (4 * k) & 15 for k in range(13))
    wins: list[tuple[int, int, int]] = []
    if runs:
        wins = [(nat, s, w) for s, e in enumerate(entries) for nat, w in e[3]]
        wins.sort(key=itemgetter(0), reverse=True)  # stable: ties keep suit then window order
    return [e0[0], e1[0], e2[0], e3[0]], [e0[1], e1[1], e2[1], e3[1]], list(ranks), wins


def _prepare_reference(counts: tuple[int, ...], runs: int) -> Prepared:
    """:data:`Prepared` of a hand, walked card by card: the slow reference of :func:`_prepare`."""
    c1, c2 = suit_masks(counts)
    rc = [0] * 13
    for s in range(4):
        base = s * 13
        for k in range(13):
            rc[k] += counts[base + k]
    wins = []
    if runs:
        for s in range(4):
            m = c1[s]
            if m:
                for w in WINDOW_MASKS:
                    nat = (m & w).bit_count()
                    if nat:
                        wins.append((nat, s, w))
        wins.sort(key=lambda x: -x[0])
    return c1, c2, rc, wins


def _analyze(counts: tuple[int, ...], trios: int, runs: int, want_outs: bool, floor: int = -1,
             goal: int | None = None) -> Analysis:
    """The analysis of a hand: :func:`_analyze_reference`'s search, made faster (the tests
    compare the two on every hand of many games).

    The same nodes in the same order, with two changes that only save time: a node's
    leaf (the rest of the runs empty) is worked out in the node itself rather than in a
    call, and the outs, the used types, the plan's ranks and windows are kept while
    searching as bit masks per suit (a run's gaps and cards are already masks: one OR
    each instead of a set insertion per card), turned into sets once at the end."""
    total = 3 * trios + 4 * runs
    jokers = counts[JOKER]
    c1, c2, rc, wins = _prepare(counts, runs)
    trio_ub = _trio_slots(rc, trios)[0] if trios else 0
    nwins = len(wins)
    best = floor
    goal = total if goal is None else goal
    acc = list(_ACC0)  # see _leaf_acc
    chosen: list[tuple[int, int, int, bool]] = []
    strict = want_outs

    def dfs(i: int, rem: int, nat_r: int, jl: int, hungry_r: bool) -> bool:
        nonlocal best
        base = nat_r + (jokers - jl) + trio_ub + (jl if jl < rem + trios else rem + trios)
        if base > best or (base == best and strict):
            # the leaf: the rest of the runs empty; empty runs and trio holes share the
            # jokers left, one per meld, +1 each
            je = jl if jl < rem else rem
            used = nat_r + (jokers - jl) + je
            vt = _trio_value(rc, trios, jl - je) if trios else 0
            used += vt
            if used >= best:
                if used > best:
                    best = used
                    if strict:
                        acc[:] = _ACC0
                if strict:
                    _leaf_acc(rc, c1, trios, jl, rem, hungry_r, vt, chosen, acc, used < total)
            if best >= goal and not strict:
                return True
        if rem == 0:
            return False
        for j in range(i, nwins):
            top, s, w = wins[j]
            ub = base + rem * top
            if ub > total:
                ub = total
            if ub < best or (ub == best and not strict):
                break
            m1 = c1[s]
            full = m1 & w
            if not full:
                continue
            ub = base + full.bit_count() + (rem - 1) * top
            if ub < best or (ub == best and not strict):
                continue
            m2 = c2[s]
            if full != w:
                opts: tuple[tuple[int, bool], ...] = ((full, jl > 0),)
                if strict and jl and (rem > 1 or trios) and full & (full - 1):
                    opts += tuple((full & ~(1 << k), True) for k in _BITS[full])
            elif jl and (rem > 1 or trios):
                opts = ((full, False),) + tuple((full & ~(1 << k), True) for k in _BITS[w])
            else:
                opts = ((full, False),)
            for take, joker in opts:
                c1[s] = (m1 & ~take) | (m2 & take)
                c2[s] = m2 & ~take
                if trios:
                    for k in _BITS[take]:
                        rc[k] -= 1
                chosen.append((s, w, w & ~take, joker))
                nat = take.bit_count()
                done = dfs(j, rem - 1, nat_r + nat, jl - joker, hungry_r or (nat < 4 and not joker))
                chosen.pop()
                if trios:
                    for k in _BITS[take]:
                        rc[k] += 1
                c1[s] = m1
                c2[s] = m2
                if done:
                    return True
        return False

    dfs(0, runs, 0, jokers, False)
    if not want_outs:
        return Analysis(total - best, best, _EMPTY, _EMPTY, False)
    flags = acc[12]
    outs: set[int] = set()
    usedt: set[int] = set()
    trio_outs = acc[14]
    for s in range(4):
        base = 13 * s
        m = acc[s] | trio_outs
        if m:
            outs.update([base + k for k in _BITS[m]])
        m = acc[4 + s]
        if m:
            usedt.update([base + k for k in _BITS[m]])
    if flags & 1:
        outs.add(JOKER)
    if flags & 2:
        usedt.add(JOKER)
    if flags & 4:
        outs.update(_ALL_NATURALS)
    # a third copy of a natural (or a fifth joker) cannot be drawn
    dead = [c for c in outs if counts[c] >= (4 if c == JOKER else 2)]
    for c in dead:
        outs.discard(c)
    pwins = frozenset((s, k + 1) for s in range(4) for k in _BITS[acc[8 + s]])
    return Analysis(total - best, best, frozenset(outs), frozenset(usedt), True,
                    frozenset([k + 1 for k in _BITS[acc[13]]]), pwins)


#: :func:`_analyze`'s accumulator, empty: per suit the outs (0-3), the used types (4-7)
#: and the plan's windows as bits of their index (8-11); flags (12): 1 the joker is an
#: out, 2 the joker is used, 4 every natural is an out; the plan's trio ranks as bits of
#: rank - 1 (13); ranks whose four suits are outs (14)
_ACC0 = (0,) * 15
_EMPTY: frozenset[int] = frozenset()
#: the bit of each run window's index (0..10) in :data:`WINDOW_MASKS`
_WINDOW_BIT = {w: 1 << i for i, w in enumerate(WINDOW_MASKS)}
_NO_TRIOS: tuple[tuple[tuple[int, ...], int], ...] = (((), 0),)


def _same_ranks(rc: list[int], n: int) -> int:
    """Bits of the ranks holding exactly ``n`` naturals."""
    m = 0
    for r in range(13):
        if rc[r] == n:
            m |= 1 << r
    return m


def _leaf_acc(
    rc: list[int], c1: list[int], trios: int, jl: int, empties: int, hungry_r: bool, vt: int,
    chosen: list[tuple[int, int, int, bool]], acc: list[int], short: bool,
) -> None:
    """:func:`_leaf_outs` into :func:`_analyze`'s bit masks (see :data:`_ACC0`): the outs,
    used types, plan ranks and windows of every optimal trio choice of one optimal plan."""
    flags = acc[12]
    for s, w, miss, joker in chosen:
        acc[4 + s] |= w & ~miss
        acc[8 + s] |= _WINDOW_BIT[w]
        if joker:
            flags |= 2
    jt = jl - empties if jl > empties else 0
    if jl < empties or (jl and empties):
        flags |= 2
    if empties and short:
        flags |= 4
    top: list[int] | tuple[()] = ()
    configs: list[tuple[tuple[int, ...], int]] | tuple[tuple[tuple[int, ...], int], ...] = _NO_TRIOS
    if trios:
        top = _top_ranks(rc, trios)
        configs = []
        for mv in _M_VECTORS[trios]:
            v, holes = _config_value(rc, top, mv, jt)
            if v == vt:
                configs.append((mv, holes))
    for mv, holes in configs:
        if holes and jt:
            flags |= 2
        for k, m in zip(top, mv, strict=True):
            if m:
                n = rc[k]
                if n:  # any rank holding as many naturals can stand in
                    same = _same_ranks(rc, n)
                    acc[13] |= same
                    for s in range(4):
                        acc[4 + s] |= c1[s] & same
        if not short:
            continue
        hungry = hungry_r or jl < empties + holes
        if hungry:
            flags |= 1
        for s, _, miss, joker in chosen:
            # a run whose only gap is its joker's gains from a card only if a joker is short
            if miss and (hungry or not joker or miss & (miss - 1)):
                acc[s] |= miss
        for k, m in zip(top, mv, strict=True):
            if m:
                n = rc[k]
                gap = 3 * m - n
                if gap > m or (gap > 0 and hungry):
                    acc[14] |= _same_ranks(rc, n)
    acc[12] = flags


def _analyze_reference(counts: tuple[int, ...], trios: int, runs: int, want_outs: bool,
                       prepare: Callable[[tuple[int, ...], int], Prepared] = _prepare, floor: int = -1,
                       goal: int | None = None, tight: bool = True) -> Analysis:
    """The analysis of a hand (see the module docstring), the slow reference of
    :func:`_analyze`: outs and used types added to sets card by card at every leaf.  ``floor`` and ``goal`` (for
    ``want_outs=False`` only) bound the cover from outside: the search prunes what cannot
    beat ``floor``, known to be reachable, and stops once it reaches ``goal``, known to
    be the most there is.  With ``want_outs``, ``floor`` may only be the hand's exact
    cover (the outs are those of the plans reaching it): the search then visits the
    same optimal plans as from ``-1``, and no plan that a better one replaces.
    ``tight=False`` leaves out the node and window bounds of :func:`dfs` that only
    prune (the tests' reference)."""
    total = 3 * trios + 4 * runs
    jokers = counts[JOKER]
    c1, c2, rc, wins = prepare(counts, runs)
    # trio naturals upper bound on the whole hand (runs only take cards away)
    trio_ub = _trio_slots(rc, trios)[0] if trios else 0
    nwins = len(wins)

    best = floor
    goal = total if goal is None else goal
    outs: set[int] = set()
    usedt: set[int] = set()
    pranks: set[int] = set()
    pwins: set[tuple[int, int]] = set()
    flags = [False]  # all naturals are outs (an empty meld is in an optimal plan)
    # chosen runs: (suit, window, positions without a natural, holds a joker)
    chosen: list[tuple[int, int, int, bool]] = []
    strict = want_outs

    def leaf(nat_r: int, jl: int, empties: int, hungry_r: bool) -> None:
        nonlocal best
        # empty runs and trio holes share the jokers left, one per meld, +1 each
        je = jl if jl < empties else empties
        used = nat_r + (jokers - jl) + je
        if trios:
            vt = _trio_value(rc, trios, jl - je)
            used += vt
        else:
            vt = 0
        if used < best:
            return
        if used > best:
            best = used
            if want_outs:
                outs.clear()
                usedt.clear()
                pranks.clear()
                pwins.clear()
                flags[0] = False
        if want_outs:
            _leaf_outs(rc, c1, trios, jl, empties, hungry_r, vt, chosen, outs, usedt, flags, used < total, pranks)
            for s, w, _, _ in chosen:
                pwins.add((s, _WINDOW_LO[w]))

    def dfs(i: int, rem: int, nat_r: int, jl: int, hungry_r: bool) -> bool:
        # what this node and below can cover at most: the runs' naturals so far, the
        # jokers placed, one joker a meld left, the trios' naturals on the whole hand
        base = nat_r + (jokers - jl) + trio_ub + (jl if jl < rem + trios else rem + trios)
        # the rest of the runs empty (it covers at most ``base``: skipped when that
        # cannot reach the best, or tie it when ties are wanted)
        if not tight or base > best or (base == best and strict):
            leaf(nat_r, jl, rem, hungry_r)
            if best >= goal and not strict:
                return True
        if rem == 0:
            return False
        for j in range(i, nwins):
            top, s, w = wins[j]
            ub = base + rem * top
            if ub > total:
                ub = total
            if ub < best or (ub == best and not strict):
                break
            m1 = c1[s]
            full = m1 & w
            if not full:
                continue
            # this window as it is now (earlier runs may have taken its cards), the
            # later runs at most ``top`` each (the windows are sorted)
            if tight:
                ub = base + full.bit_count() + (rem - 1) * top
                if ub < best or (ub == best and not strict):
                    continue
            m2 = c2[s]
            # an incomplete run takes a joker while one is left (never worse); a
            # complete one takes none, or holds a joker and releases one of its cards
            # to a later meld
            if full != w:
                opts: tuple[tuple[int, bool], ...] = ((full, jl > 0),)
                if strict and jl and (rem > 1 or trios) and full & (full - 1):
                    # ties only: the joker covers a held card released to a later meld,
                    # leaving a gap open (the gap's card is then an out)
                    opts += tuple((full & ~(1 << k), True) for k in _BITS[full])
            elif jl and (rem > 1 or trios):
                opts = ((full, False),) + tuple((full & ~(1 << k), True) for k in _BITS[w])
            else:
                opts = ((full, False),)
            for take, joker in opts:
                c1[s] = (m1 & ~take) | (m2 & take)
                c2[s] = m2 & ~take
                if trios:
                    for k in _BITS[take]:
                        rc[k] -= 1
                chosen.append((s, w, w & ~take, joker))
                nat = take.bit_count()
                done = dfs(j, rem - 1, nat_r + nat, jl - joker, hungry_r or (nat < 4 and not joker))
                chosen.pop()
                if trios:
                    for k in _BITS[take]:
                        rc[k] += 1
                c1[s] = m1
                c2[s] = m2
                if done:
                    return True
        return False

    dfs(0, runs, 0, jokers, False)
    if flags[0]:
        outs.update(_ALL_NATURALS)
    # a third copy of a natural (or a fifth joker) cannot be drawn
    dead = [c for c in outs if counts[c] >= (4 if c == JOKER else 2)]
    for c in dead:
        outs.discard(c)
    return Analysis(total - best, best, frozenset(outs), frozenset(usedt), want_outs,
                    frozenset(pranks), frozenset(pwins))


#: lowest run position (1..11) of each window mask
_WINDOW_LO = {w: i + 1 for i, w in enumerate(WINDOW_MASKS)}

#: the set bits of every 13-bit mask
_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(k for k in range(14) if m >> k & 1) for m in range(1 << 13)
)


def _trio_slots(rc: list[int], trios: int) -> tuple[int, int]:
    """Best natural coverage of ``trios`` trios from rank counts, without jokers:
    (naturals used, trios left incomplete)."""
    c3 = c2 = c1 = 0
    for n in rc:
        if n:
            if n >= 3:
                c3 += 1
                if n >= 6:
                    c3 += 1
                    if n == 8:
                        c2 += 1
                    elif n == 7:
                        c1 += 1
                elif n == 5:
                    c2 += 1
                elif n == 4:
                    c1 += 1
            elif n == 2:
                c2 += 1
            else:
                c1 += 1
    need = trios
    if c3 >= need:
        return 3 * need, 0
    nat = 3 * c3
    need -= c3
    if c2 >= need:
        return nat + 2 * need, need
    nat += 2 * c2
    inc = need
    need -= c2
    if c1 >= need:
        return nat + need, inc
    return nat + c1, inc


# m-vectors: how many trios each of the top ranks (by naturals held) gets
_M_VECTORS = {
    1: ((1,),),
    2: ((1, 1), (2, 0), (0, 2)),
    3: tuple(
        (a, b, 3 - a - b) for a in range(4) for b in range(4 - a)
    ),
}


def _top_ranks(rc: list[int], trios: int) -> list[int]:
    return sorted(range(13), key=rc.__getitem__, reverse=True)[:trios]


def _config_value(rc: list[int], top: list[int], mv: tuple[int, ...], jt: int) -> tuple[int, int]:
    """(value, joker holes) of trios ``mv`` over ranks ``top`` with ``jt`` jokers for them.

    ``m`` trios of a rank holding ``n`` naturals use ``min(3m, n)`` naturals and have
    ``min(m, 3m - n)`` places a joker can fill (one joker per trio, R5)."""
    nat = holes = 0
    for k, m in zip(top, mv, strict=True):
        if m:
            n = rc[k]
            cap = 3 * m
            if n >= cap:
                nat += cap
            else:
                nat += n
                h = cap - n
                holes += m if h > m else h
    return nat + (jt if jt < holes else holes), holes


def _trio_value(rc: list[int], trios: int, jt: int) -> int:
    """Most contract cards ``trios`` trios cover from rank counts with ``jt`` jokers."""
    if jt == 0:
        return _trio_slots(rc, trios)[0]
    top = _top_ranks(rc, trios)
    return max(_config_value(rc, top, mv, jt)[0] for mv in _M_VECTORS[trios])


def _leaf_outs(
    rc: list[int], c1: list[int], trios: int, jl: int, empties: int, hungry_r: bool, vt: int,
    chosen: list, outs: set[int], usedt: set[int], flags: list[bool], short: bool,
    pranks: set[int],
) -> None:
    """Add the outs and used card types of every optimal trio choice of one optimal plan.

    A card is an out when it fills a slot that neither a natural nor a joker fills, or a
    slot a joker fills while some incomplete meld has no joker ("hungry": the freed
    joker moves there).  The joker is an out when the plan is hungry.
    """
    for s, w, miss, joker in chosen:
        take = w & ~miss
        base = s * 13
        for k in _BITS[take]:
            usedt.add(base + k)
        if joker:
            usedt.add(JOKER)
    jt = jl - empties if jl > empties else 0
    if jl < empties or (jl and empties):
        usedt.add(JOKER)
    if empties and short:
        flags[0] = True
    configs: list[tuple[list[int], tuple[int, ...], int]] = []  # (top ranks, m-vector, holes)
    if trios:
        top = _top_ranks(rc, trios)
        for mv in _M_VECTORS[trios]:
            v, holes = _config_value(rc, top, mv, jt)
            if v == vt:
                configs.append((top, mv, holes))
    else:
        configs.append(([], (), 0))
    for top, mv, holes in configs:
        if holes and jt:
            usedt.add(JOKER)
        for k, m in zip(top, mv, strict=True):
            if not m:
                continue
            n = rc[k]
            for r in range(13):
                if rc[r] == n and n:  # any rank holding as many naturals can stand in
                    pranks.add(r + 1)
                    for s in range(4):
                        if c1[s] >> r & 1:
                            usedt.add(s * 13 + r)
        if not short:
            continue
        hungry = hungry_r or jl < empties + holes
        if hungry:
            outs.add(JOKER)
        for s, _, miss, joker in chosen:
            # a run whose only gap is its joker's gains from a card only if a joker is short
            if miss and (hungry or not joker or miss & (miss - 1)):
                base = s * 13
                for k in _BITS[miss]:
                    outs.add(base + k)
        for k, m in zip(top, mv, strict=True):
            if not m:
                continue
            n = rc[k]
            gap = 3 * m - n
            if gap > m or (gap > 0 and hungry):
                for r in range(13):
                    if rc[r] == n:
                        outs.update((r, 13 + r, 26 + r, 39 + r))
