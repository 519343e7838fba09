"""An independent, deliberately simple legality checker for Carioca moves.

It reads raw state data out of a :class:`~carioca_env.Game` (:func:`snapshot`) and
validates a proposed :class:`~carioca_env.Move` straight from the guide and RULINGS.md
(:func:`check_move`).  It never calls the engine's move generation or validation
(``legal_moves``, ``is_legal``, ``_check_*``, ``enumerate_openings``,
``TableMeld.layoff_cards/joker_swaps/open_ends``, ``check_opening_meld`` ...): card
arithmetic, contracts, meld shapes, positions and penalties are all written out here.

Card types follow the documented encoding: ``suit * 13 + rank - 1`` (rank 1 = ace,
suits S H D C), joker ``52``.  Run positions: 1 = low ace, 2..13 = ranks, 14 = high ace.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

JOKER = 52
NUM_TYPES = 53
LOW, HIGH = 0, 1  # values of carioca_env.End (an IntEnum), compared by value

# deal number -> (trios, runs) (guide §03, R6)
CONTRACT_SHAPE = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}
# deal number -> cards dealt to each player (guide §04, R3)
DEALT = {k: (12 if k == 7 else 11) for k in range(1, 8)}

# MoveKind values (an IntEnum in carioca_env.moves), compared by value
DRAW_STOCK, DRAW_DISCARD, OPEN, LAY_OFF, SWAP, DISCARD = range(6)
# MeldKind values
TRIO, RUN = 0, 1


# ---------------------------------------------------------------- card arithmetic


def card(rank: int, suit: int) -> int:
    return suit * 13 + rank - 1


def rank(c: int) -> int:
    return c % 13 + 1


def suit(c: int) -> int:
    return c // 13


def card_at(run_suit: int, pos: int) -> int:
    """The natural card that fills run position ``pos`` (1..14) of ``run_suit``."""
    return card(1 if pos == 14 else pos, run_suit)


def penalty(c: int) -> int:
    """R14 / guide §07: 2-10 face value, J Q K 10, A 20, joker 50."""
    if c == JOKER:
        return 50
    r = rank(c)
    if r == 1:
        return 20
    if r >= 11:
        return 10
    return r


def deck_multiset() -> Counter:
    """R1: two of every natural card and four jokers."""
    d = Counter({c: 2 for c in range(52)})
    d[JOKER] = 4
    return d


# ---------------------------------------------------------------- raw state


@dataclass(frozen=True)
class MeldData:
    kind: int  # TRIO or RUN
    key: int  # trio rank 1..13, run suit 0..3
    lo: int  # run: position of the lowest card; trio: 0
    cards: tuple[int, ...]

    @property
    def hi(self) -> int:
        return self.lo + len(self.cards) - 1


@dataclass(frozen=True)
class State:
    num_players: int
    current: int
    deal: int  # contract number 1..7
    game_over: bool
    drawn: bool  # the player to act has drawn this turn
    opened_this_turn: bool  # ... and has laid the contract this turn
    hands: tuple[tuple[int, ...], ...]  # card types, sorted, per seat
    table: tuple[tuple[MeldData, ...], ...]  # per owner seat, in laying order
    opened: tuple[bool, ...]
    stock_size: int
    discard: tuple[int, ...]  # bottom to top

    @property
    def hand(self) -> tuple[int, ...]:
        return self.hands[self.current]


def snapshot(game) -> State:
    """Raw state data of ``game``; the turn's progress comes from the move list itself."""
    hands = tuple(
        tuple(c for c in range(NUM_TYPES) for _ in range(game.hands[s][c]))
        for s in range(game.num_players)
    )
    table = tuple(
        tuple(MeldData(int(m.kind), m.key, m.lo, tuple(m.cards)) for m in melds)
        for melds in game.table
    )
    # The turn so far: the moves after the last discard (a discard ends every turn,
    # and every deal ends with a discard, so this never crosses a deal).
    this_turn = []
    for m in reversed(game.moves):
        if int(m.kind) == DISCARD:
            break
        this_turn.append(int(m.kind))
    return State(
        num_players=game.num_players,
        current=game.current,
        deal=game.deal_number,
        game_over=game.phase.value == "game_over",
        drawn=DRAW_STOCK in this_turn or DRAW_DISCARD in this_turn,
        opened_this_turn=OPEN in this_turn,
        hands=hands,
        table=table,
        opened=tuple(bool(o) for o in game.opened),
        stock_size=len(game.stock),
        discard=tuple(game.discard),
    )


# ---------------------------------------------------------------- meld checks


def opening_meld_error(m) -> str | None:
    """Why ``m`` (anything with kind/key/lo/cards) is not an opening meld (R4, R5), or None."""
    cards = tuple(m.cards)
    if any(not isinstance(c, int) or not 0 <= c < NUM_TYPES for c in cards):
        return "R1: not a card type"
    jokers = cards.count(JOKER)
    if jokers > 1:
        return "R5: more than one joker in an opening meld"
    if int(m.kind) == TRIO:
        if len(cards) != 3:
            return "R5: an opening trio has exactly 3 cards"
        if not 1 <= m.key <= 13 or m.lo != 0:
            return "R5: malformed trio (rank 1..13, no position)"
        if any(c != JOKER and rank(c) != m.key for c in cards):
            return "R5: a trio is one rank"
        if list(cards) != sorted(cards):  # canonical: naturals sorted, then the joker
            return "R6: trio cards not in canonical order"
        return None
    if int(m.kind) == RUN:
        if len(cards) != 4:
            return "R5: an opening run has exactly 4 cards"
        if not 0 <= m.key <= 3:
            return "R5: malformed run (suit 0..3)"
        if m.lo < 1 or m.lo + 3 > 14:
            return "R4: a run lies within A(1)..A(14), no wrap"
        for i, c in enumerate(cards):
            if c != JOKER and c != card_at(m.key, m.lo + i):
                return "R5: not consecutive cards of one suit"
        return None
    return "R5: unknown meld kind"


def table_meld_error(m: MeldData) -> str | None:
    """Why a meld on the table is not a valid (grown) trio or run, or None (R4, R5, R9)."""
    cards = m.cards
    naturals = [c for c in cards if c != JOKER]
    if m.kind == TRIO:
        if len(cards) < 3:
            return "trio of fewer than 3 cards"
        if len(naturals) < 2:
            return "trio with fewer than 2 naturals (naturals never leave the table)"
        if any(rank(c) != m.key for c in naturals):
            return "trio mixes ranks"
        return None
    if m.kind == RUN:
        if len(cards) < 4:
            return "run of fewer than 4 cards"
        if len(naturals) < 3:
            return "run with fewer than 3 naturals"
        if m.lo < 1 or m.hi > 14:
            return "run outside positions 1..14"
        for i, c in enumerate(cards):
            if c != JOKER and c != card_at(m.key, m.lo + i):
                return f"run card {c} does not fit position {m.lo + i}"
        return None
    return "unknown meld kind"


def _meld_key(m) -> tuple:
    return (int(m.kind), m.key, m.lo, tuple(m.cards))


# ---------------------------------------------------------------- the checker


def check_move(state: State, move) -> str | None:
    """None if ``move`` is legal for the player to act in ``state``, else a short reason."""
    kind = int(move.kind)
    if state.game_over:
        return "R15: the game is over"
    # one move, one representation: the fields a kind does not use keep their defaults
    if kind not in (DISCARD, LAY_OFF, SWAP) and move.card != -1:
        return "R7: this kind of move names no card"
    if kind not in (LAY_OFF, SWAP) and (move.owner, move.index, move.end) != (-1, -1, None):
        return "R7: this kind of move has no target meld"
    if kind != OPEN and move.melds:
        return "R7: only an opening lays melds"
    if not state.drawn:
        if kind == DRAW_STOCK:
            return None if state.stock_size > 0 else "R13: empty stock"
        if kind == DRAW_DISCARD:
            return None if state.discard else "R7: empty discard pile"
        return "R7: draw first"
    if kind in (DRAW_STOCK, DRAW_DISCARD):
        return "R7: one draw per turn"
    hand = Counter(state.hand)
    size = len(state.hand)
    if state.opened_this_turn and kind != DISCARD:
        return "R8: the opening turn allows only the discard"

    if kind == DISCARD:
        if not isinstance(move.card, int) or not 0 <= move.card < NUM_TYPES or hand[move.card] == 0:
            return "R7: card not in hand"
        return None

    me = state.current
    if kind == OPEN:
        if state.opened[me]:
            return "R9: already opened, no new melds"
        trios, runs = CONTRACT_SHAPE[state.deal]
        melds = list(move.melds)
        if sum(1 for m in melds if int(m.kind) == TRIO) != trios or sum(
            1 for m in melds if int(m.kind) == RUN
        ) != runs or len(melds) != trios + runs:
            return "R6: not the contract's melds"
        if [_meld_key(m) for m in melds] != sorted(_meld_key(m) for m in melds):
            return "R6: melds not in canonical order"
        for m in melds:
            why = opening_meld_error(m)
            if why:
                return why
        need = Counter(c for m in melds for c in m.cards)
        if any(hand[c] < k for c, k in need.items()):
            return "R7: cards not in hand"
        if size - sum(need.values()) < 1:
            return "R10: the opening must leave a card"
        return None

    if kind in (LAY_OFF, SWAP):
        rule = "R9" if kind == LAY_OFF else "R11"
        if not state.opened[me]:
            return f"{rule}: not opened"
        if not 0 <= move.owner < state.num_players or not 0 <= move.index < len(state.table[move.owner]):
            return f"{rule}: no such meld"
        if not isinstance(move.card, int) or not 0 <= move.card < NUM_TYPES or hand[move.card] == 0:
            return "R7: card not in hand"
        if size < 2:
            return "R10: melding may not empty the hand"
        m = state.table[move.owner][move.index]
        c = move.card
        if kind == LAY_OFF:
            if m.kind == TRIO:
                if move.end is not None:
                    return "R9: a trio has no ends"
                return None if c == JOKER or rank(c) == m.key else "R9: wrong rank for the trio"
            if move.end is None or int(move.end) not in (LOW, HIGH):
                return "R9: a run lay-off names an end"
            pos = m.lo - 1 if int(move.end) == LOW else m.hi + 1
            if not 1 <= pos <= 14:
                return "R4: that end is closed (A low / A high)"
            return None if c == JOKER or c == card_at(m.key, pos) else "R4: card does not extend the run there"
        # swap
        if m.kind != RUN:
            return "R11: jokers in trios are never moved"
        if c == JOKER:
            return "R11: only a natural card replaces a joker"
        if not any(x == JOKER and card_at(m.key, m.lo + i) == c for i, x in enumerate(m.cards)):
            return "R11: no joker stands for that card"
        if move.end is None or int(move.end) not in (LOW, HIGH):
            return "R11: the joker goes to an end"
        pos = m.lo - 1 if int(move.end) == LOW else m.hi + 1
        if not 1 <= pos <= 14:
            return "R11: that end is closed"
        return None

    return "unknown move kind"
