"""What the learned belief reads of an opponent: features of (opponent, card type) from
the seat's :class:`~carioca_env.PlayerView` alone.

For every opponent ``s`` and card type ``c`` a row of :data:`FEATURES`: whether ``c`` is
the joker and its penalty, and how ``c`` relates to the cards ``s`` has shown: taken from
the discard pile, discarded, declined (the top discard it left when it drew from the
stock), still surely holds, and the cards the seat sees dead (its own hand, the pile, the
table): the same card (``exact``), the same rank (``rank``: trio material) and the same
suit within two run positions (``near``: run material).  Each row is given twice, once
for an unopened and once for an opened opponent (the other half zero), because an opened
player's hidden cards are its leftovers, not its plans.

Declines come from replaying the public history over the discard pile: the deal's first
upcard is not an event, so it is recovered from where it ends (taken, or still in the
pile); when it was recycled unseen into the stock, the declines of it are dropped.
"""

from __future__ import annotations

import numpy as np

from carioca_agents.opponent_model import stock_draws
from carioca_env import PlayerView
from carioca_env.cards import JOKER, NUM_CARD_TYPES, PENALTY, rank_of, suit_of
from carioca_env.melds import HIGH_ACE, LOW_ACE, MeldKind, card_positions

#: Bump when the features change: a model file records the version it was fitted on.
FEATURE_VERSION = 1

_SOURCES = ("picked", "discarded", "declined", "known", "dead")
_BASE = (
    ["joker", "penalty", "table_fit", "joker_x_draws", "penalty_x_draws"]
    + [f"{src}_{rel}" for src in _SOURCES for rel in ("exact", "rank", "near")]
)
#: Feature names, in column order: each base feature for an unopened, then an opened opponent.
FEATURES: tuple[str, ...] = tuple(f"{b}|unopened" for b in _BASE) + tuple(f"{b}|opened" for b in _BASE)
NUM_BASE = len(_BASE)
NUM_FEATURES = len(FEATURES)


def _relation_matrices() -> tuple[np.ndarray, np.ndarray]:
    """53x53 0/1 matrices: same rank (other natural of that rank, either copy's type
    included but not the type itself), and same suit within two run positions."""
    rank = np.zeros((NUM_CARD_TYPES, NUM_CARD_TYPES))
    near = np.zeros((NUM_CARD_TYPES, NUM_CARD_TYPES))
    for c in range(JOKER):
        for d in range(JOKER):
            if c == d:
                continue
            if rank_of(c) == rank_of(d):
                rank[c, d] = 1.0
            if suit_of(c) == suit_of(d):
                gap = min(abs(p - q) for p in card_positions(c) for q in card_positions(d))
                if gap <= 2:
                    near[c, d] = 1.0
    return rank, near


_RANK, _NEAR = _relation_matrices()
_JOKER = np.zeros(NUM_CARD_TYPES)
_JOKER[JOKER] = 1.0
_PENALTY = np.array([0.0 if c == JOKER else PENALTY[c] / 20.0 for c in range(NUM_CARD_TYPES)])


def declined_cards(view: PlayerView) -> list[list[int]]:
    """Per seat, counts of the top discards it left to draw from the stock this deal."""
    upcard = -2  # the deal's first upcard: not an event, resolved at the end
    pile: list[int] = [upcard]
    seen_up: int | None = None
    declines: list[tuple[int, int]] = []
    for ev in view.history:
        if ev.kind == "DRAW_STOCK":
            if pile:
                declines.append((ev.seat, pile[-1]))
        elif ev.kind == "DRAW_DISCARD":
            if pile:
                if pile[-1] == upcard:
                    seen_up = ev.card
                pile.pop()
        elif ev.kind == "DISCARD":
            pile.append(ev.card)
        elif ev.kind == "recycle":
            pile = pile[-1:]
    if seen_up is None and upcard in pile and len(pile) == len(view.discard_pile):
        seen_up = view.discard_pile[pile.index(upcard)]
    out = [[0] * NUM_CARD_TYPES for _ in range(view.num_players)]
    for seat, top in declines:
        card = seen_up if top == upcard else top
        if card is not None and card >= 0:
            out[seat][card] += 1
    return out


def table_fits(view: PlayerView) -> np.ndarray:
    """0/1 per card type: it could be laid off on some meld on the table (a trio's rank,
    a run's next position at either end; the joker fits any meld)."""
    fit = np.zeros(NUM_CARD_TYPES)
    any_meld = False
    for melds in view.table:
        for m in melds:
            any_meld = True
            if m.kind is MeldKind.TRIO:
                for c in range(JOKER):
                    if rank_of(c) == m.key:
                        fit[c] = 1.0
            else:
                hi = m.lo + len(m.cards) - 1
                for pos in (m.lo - 1, hi + 1):
                    if LOW_ACE <= pos <= HIGH_ACE:
                        rank = 1 if pos == HIGH_ACE else pos
                        fit[m.key * 13 + rank - 1] = 1.0
    if any_meld:
        fit[JOKER] = 1.0
    return fit


def view_features(view: PlayerView) -> np.ndarray:
    """Features of every (seat, card type) of ``view``: shape ``(num_players, 53,
    NUM_FEATURES)``, float64; the viewing seat's rows are zero."""
    n = view.num_players
    out = np.zeros((n, NUM_CARD_TYPES, NUM_FEATURES))
    declined = declined_cards(view)
    draws = stock_draws(view)
    fit = table_fits(view)
    dead = np.array(view.hand_counts, dtype=float)
    for c in view.discard_pile:
        dead[c] += 1
    for melds in view.table:
        for m in melds:
            for c in m.cards:
                dead[c] += 1
    for s in range(n):
        if s == view.seat:
            continue
        picked = np.zeros(NUM_CARD_TYPES)
        for c in view.picked_from_discard[s]:  # a list of cards, not counts
            picked[c] += 1
        sources = (picked, np.array(view.discarded[s], dtype=float),
                   np.array(declined[s], dtype=float), np.array(view.known_cards[s], dtype=float), dead)
        d = min(draws[s], 20) / 10.0
        cols = [_JOKER, _PENALTY, fit, _JOKER * d, _PENALTY * d]
        for v in sources:
            cols += [v, _RANK @ v, _NEAR @ v]
        base = np.stack(cols, axis=1)
        half = NUM_BASE if view.opened[s] else 0
        out[s, :, half:half + NUM_BASE] = base
    return out
