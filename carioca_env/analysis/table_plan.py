"""Lay-offs and joker swaps on the table: :class:`SimMeld` (a light mutable copy of a
table meld), :func:`sim_table` (a view's table as those) and :func:`plan_layoffs` (the
best order of lay-offs and swaps for a hand; the order matters on runs)."""

from __future__ import annotations

from collections.abc import Sequence

from carioca_env.cards import JOKER, PENALTY, rank_of, suit_of
from carioca_env.melds import HIGH_ACE, LOW_ACE, Meld, MeldKind, card_positions, position_card
from carioca_env.view import PlayerView


class SimMeld:
    """A light mutable copy of a table meld, for planning lay-offs and swaps."""

    __slots__ = ("kind", "key", "lo", "hi", "jokers", "owner", "index")

    def __init__(self, meld: Meld, owner: int = -1, index: int = -1) -> None:
        self.kind = meld.kind
        self.key = meld.key
        self.owner = owner
        self.index = index
        if meld.kind is MeldKind.RUN:
            self.lo = meld.lo
            self.hi = meld.hi
            self.jokers = {meld.lo + i for i, c in enumerate(meld.cards) if c == JOKER}
        else:
            self.lo = self.hi = 0
            self.jokers = set()

    def copy(self) -> SimMeld:
        """An independent copy (its joker set too)."""
        new = SimMeld.__new__(SimMeld)
        new.kind, new.key, new.lo, new.hi = self.kind, self.key, self.lo, self.hi
        new.jokers = set(self.jokers)
        new.owner, new.index = self.owner, self.index
        return new

    def fits(self, card: int) -> bool:
        """Whether ``card`` may be laid off here now (R9)."""
        if self.kind is MeldKind.TRIO:
            return card == JOKER or rank_of(card) == self.key
        if card == JOKER:
            return self.lo > LOW_ACE or self.hi < HIGH_ACE
        if suit_of(card) != self.key:
            return False
        r = rank_of(card)
        low = self.lo - 1
        high = self.hi + 1
        if r == 1:
            return low == LOW_ACE or high == HIGH_ACE
        return r == low or r == high

    def needs(self) -> list[int]:
        """Natural card types that fit here now."""
        if self.kind is MeldKind.TRIO:
            return [s * 13 + self.key - 1 for s in range(4)]
        out = []
        if self.lo > LOW_ACE:
            out.append(position_card(self.key, self.lo - 1))
        if self.hi < HIGH_ACE:
            out.append(position_card(self.key, self.hi + 1))
        return out


def sim_table(view: PlayerView) -> list[SimMeld]:
    """The table of a view as :class:`SimMeld` values (with owner and index)."""
    return [SimMeld(m, owner, i) for owner, melds in enumerate(view.table) for i, m in enumerate(melds)]


def plan_layoffs(hand: Sequence[int], melds: list[SimMeld], limit: int = 400) -> tuple[int, int, list[tuple]]:
    """Best sequence of lay-offs and joker swaps for the hand on the table.

    Returns (cards shed, penalty shed, steps) where each step is
    ``("lay", card, meld index in melds, end or None)`` or
    ``("swap", card, meld index, end)``; ends are 0 (low) / 1 (high).  At least one card
    is always kept for the discard (R10).  A depth-first search over the order of the
    steps, bounded by ``limit`` nodes (a greedy order is tried first).
    """
    cards = sorted(hand, key=lambda c: -PENALTY[c])
    best: list = [(0, 0), []]
    nodes = [0]

    def options(cards_left: list[int], ms: list[SimMeld]) -> list[tuple]:
        opts: list[tuple[str, int, int, int | None]] = []
        seen = set()
        for card in cards_left:
            if card in seen:
                continue
            seen.add(card)
            for mi, m in enumerate(ms):
                if m.kind is MeldKind.TRIO:
                    if card == JOKER or rank_of(card) == m.key:
                        opts.append(("lay", card, mi, None))
                    continue
                if card == JOKER:
                    if m.lo > LOW_ACE:
                        opts.append(("lay", card, mi, 0))
                    if m.hi < HIGH_ACE:
                        opts.append(("lay", card, mi, 1))
                    continue
                if suit_of(card) != m.key:
                    continue
                for p in card_positions(card):
                    if p == m.lo - 1:
                        opts.append(("lay", card, mi, 0))
                    elif p == m.hi + 1:
                        opts.append(("lay", card, mi, 1))
                    elif p in m.jokers:
                        if m.lo > LOW_ACE:
                            opts.append(("swap", card, mi, 0))
                        if m.hi < HIGH_ACE:
                            opts.append(("swap", card, mi, 1))
        return opts

    def apply(step: tuple, ms: list[SimMeld]) -> list[SimMeld]:
        kind, card, mi, end = step
        ms = list(ms)
        m = ms[mi].copy()
        ms[mi] = m
        if m.kind is MeldKind.TRIO:
            return ms
        if kind == "swap":
            p = [q for q in card_positions(card) if q in m.jokers][0]
            m.jokers.discard(p)
            card = JOKER
        if end == 0:
            m.lo -= 1
            if card == JOKER:
                m.jokers.add(m.lo)
        else:
            m.hi += 1
            if card == JOKER:
                m.jokers.add(m.hi)
        return ms

    def rec(cards_left: list[int], ms: list[SimMeld], shed: int, pen: int, steps: list) -> None:
        nodes[0] += 1
        if (shed, pen) > best[0]:
            best[0] = (shed, pen)
            best[1] = list(steps)
        if len(cards_left) <= 1 or nodes[0] > limit:
            return
        if shed + len(cards_left) - 1 <= best[0][0] and best[0][1] >= pen + sum(PENALTY[c] for c in cards_left):
            return
        # naturals first (they are what can get stuck), jokers and swaps after
        opts = options(cards_left, ms)
        opts.sort(key=lambda o: (o[1] == JOKER, o[0] == "swap", -PENALTY[o[1]]))
        tried = set()
        for opt in opts:
            # a natural laid on a trio leaves the table as it was: which trio of its
            # rank takes it does not matter for the rest of the search
            on_trio = ms[opt[2]].kind is MeldKind.TRIO and opt[1] != JOKER
            sig = (opt[0], opt[1], -1 if on_trio else opt[2], opt[3])
            if sig in tried:
                continue
            tried.add(sig)
            rest = list(cards_left)
            rest.remove(opt[1])
            steps.append(opt)
            rec(rest, apply(opt, ms), shed + 1, pen + PENALTY[opt[1]], steps)
            steps.pop()
            if best[0][0] >= len(cards) - 1:
                return

    rec(cards, melds, 0, 0, [])
    return best[0][0], best[0][1], best[1]
