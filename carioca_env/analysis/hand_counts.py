"""Hand counts: the copies a seat has not seen (:func:`unseen_counts`), a hand with a card
added or removed, and which cards form groups (pairs, near-runs) with others."""

from __future__ import annotations

from collections.abc import Sequence

from carioca_env.analysis.deficiency import _BITS as _BITS13  # the set bits of every 13-bit mask
from carioca_env.analysis.deficiency import suit_masks
from carioca_env.cards import JOKER, rank_of, suit_of
from carioca_env.melds import HIGH_ACE, LOW_ACE, card_positions, position_card
from carioca_env.view import PlayerView


def unseen_counts(view: PlayerView) -> list[int]:
    """Copies of each card type this seat has not seen: not in its hand, not on the table,
    not in the discard pile, not known to be in another hand (picked from the discard)."""
    left = [2] * JOKER + [4]
    for c, n in enumerate(view.hand_counts):
        if n:
            left[c] -= n
    for melds in view.table:
        for m in melds:
            for c in m.cards:
                left[c] -= 1
    for c in view.discard_pile:
        left[c] -= 1
    for seat, known in enumerate(view.known_cards):
        if seat != view.seat:
            for c, n in enumerate(known):
                if n:
                    left[c] -= n
    return [n if n > 0 else 0 for n in left]


def counts_minus(counts: Sequence[int], card: int) -> tuple[int, ...]:
    """The hand counts with one ``card`` removed."""
    out = list(counts)
    out[card] -= 1
    return tuple(out)


def counts_plus(counts: Sequence[int], card: int) -> tuple[int, ...]:
    """The hand counts with one ``card`` added."""
    out = list(counts)
    out[card] += 1
    return tuple(out)


def groups_of(counts: Sequence[int], trios: bool = True, runs: bool = True) -> set[int]:
    """Card types that belong to a group of the hand: a pair (or more) of one rank (when
    ``trios``), two cards of one suit at most two positions apart, a near-run (when
    ``runs``), or a joker."""
    # on the suits' rank masks (bit k: rank k + 1 held once, or twice), every rank at once
    c1, c2 = suit_masks(counts)
    out: set[int] = {JOKER} if counts[JOKER] else set()
    if trios:
        a, b, c, d = c1
        # ranks held twice in one suit, or in two suits or more
        paired = c2[0] | c2[1] | c2[2] | c2[3] | (a & (b | c | d)) | (b & (c | d)) | (c & d)
        if paired:
            for s in range(4):
                base = 13 * s
                out.update([base + k for k in _BITS13[c1[s] & paired]])
    if runs:
        for s in range(4):
            m = c1[s]
            if not m:
                continue
            pos = (m << 1) | ((m & 1) << 14)  # bit p = position p, the ace on both ends
            near = ((pos << 1) | (pos << 2) | (pos >> 1) | (pos >> 2)) & pos
            # positions 1..14 back to ranks: the ace (positions 1 and 14) is rank bit 0
            ranks = ((near >> 1) & 0x1FFF) | ((near >> 14) & 1)
            base = 13 * s
            out.update([base + k for k in _BITS13[ranks]])
    return out


def groups_of_reference(counts: Sequence[int], trios: bool = True, runs: bool = True) -> set[int]:
    """:func:`groups_of` rank by rank and position by position (the slow reference the
    tests compare it with)."""
    out: set[int] = set()
    if counts[JOKER]:
        out.add(JOKER)
    if trios:
        for k in range(13):
            held = [s for s in range(4) if counts[s * 13 + k]]
            if len(held) >= 2 or any(counts[s * 13 + k] >= 2 for s in held):
                out.update(s * 13 + k for s in held)
    if runs:
        c1, _ = suit_masks(counts)
        for s in range(4):
            m = c1[s]
            pos = (m << 1) | ((m & 1) << 14)  # bit p = position p, the ace on both ends
            near = ((pos << 1) | (pos << 2) | (pos >> 1) | (pos >> 2)) & pos
            for p in range(1, 15):
                if near >> p & 1:
                    out.add(position_card(s, p))
    return out


def links_of(counts: Sequence[int], card: int, trios: bool = True, runs: bool = True) -> int:
    """How many other hand cards ``card`` forms a group with (as in :func:`groups_of`):
    cards of its rank (when ``trios``) and of its suit at most two positions away (when
    ``runs``).  Jokers link to everything (returns a large number)."""
    if card == JOKER:
        return 99
    r, s = rank_of(card), suit_of(card)
    n = 0
    if trios:
        n += sum(counts[t * 13 + r - 1] for t in range(4)) - 1
    if runs:
        base = s * 13
        near = set()
        for p in card_positions(card):
            for q in (p - 2, p - 1, p + 1, p + 2):
                if LOW_ACE <= q <= HIGH_ACE:
                    near.add(0 if q in (LOW_ACE, HIGH_ACE) else q - 1)
        near.discard(r - 1)
        n += sum(counts[base + k] for k in near)
    return n
