"""The table of action ids of ``carioca_v0``: one ``Discrete(N)`` for every seat and phase.

Built once per player count (:func:`action_table`), in named ranges, in this order:

============  ================================  ==============================================
range         size                              meaning
============  ================================  ==============================================
draw_stock    1                                 take the top stock card
draw_discard  1                                 take the top discard
discard       53                                discard a card type (52 naturals, joker)
open_meld     558                               choose one meld of the opening: trios
                                                (13 ranks x 16 suit multisets of 3 naturals
                                                + 13 x 10 multisets of 2 naturals and a
                                                joker) then runs (4 suits x 11 windows of
                                                positions 1..14 x no joker or a joker in one
                                                of the 4 places)
lay_off       53 x (n x 3) x 3                  lay a card type off on a table meld: target
                                                = seat relative to the actor (0 = own) x the
                                                meld's index (0..2), then where: ``trio``
                                                (no end), ``low`` or ``high`` end of a run
swap          52 x (n x 3) x 2                  swap a natural card for the joker that stands
                                                for it in a run; the joker moves to the
                                                ``low`` or ``high`` end
============  ================================  ==============================================

n = 2: 2,191 ids; n = 3: 2,980; n = 4: 3,769.  A seat owns at most 3 melds (no contract
has more), so ``n x 3`` targets cover every meld on the table.

An opening is chosen one meld per step, in canonical (sorted) order, within the same
turn; the engine receives the whole contract when its last meld is chosen (R6).
Action strings use the engine's notation, with targets relative to the actor
(``lay 8S +1.0 high`` is meld 0 of the next seat) and ``meld 8C 8D JK`` for an opening
step: see :meth:`ActionTable.action_to_string`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

from carioca_env.cards import JOKER, NUM_CARD_TYPES, NUM_RANKS, NUM_SUITS, card_str, parse_card
from carioca_env.errors import InvalidNotationError, excerpt
from carioca_env.game import Game
from carioca_env.melds import HIGH_ACE, LOW_ACE, RUN_SIZE, End, Meld
from carioca_env.moves import Move, MoveKind
from carioca_env.view import Phase

MAX_MELDS_PER_SEAT = 3


class ActionKind(IntEnum):
    """The named ranges of the action table, in id order."""

    DRAW_STOCK = 0
    DRAW_DISCARD = 1
    DISCARD = 2
    OPEN_MELD = 3
    LAY_OFF = 4
    SWAP = 5


#: lay-off "where" slots: a trio has no end, a run has two
LAYOFF_SLOTS: tuple[End | None, ...] = (None, End.LOW, End.HIGH)
SWAP_SLOTS: tuple[End, ...] = (End.LOW, End.HIGH)


def opening_meld_vocabulary() -> tuple[Meld, ...]:
    """Every meld an opening can hold (R5), in action-id order."""
    trios = []
    for rank in range(1, NUM_RANKS + 1):
        for suits in combinations_with_replacement(range(NUM_SUITS), 3):
            if len(set(suits)) > 1:  # three naturals of one suit need three packs
                trios.append(Meld.trio(rank, suits))
        for pair in combinations_with_replacement(range(NUM_SUITS), 2):
            trios.append(Meld.trio(rank, pair, 1))
    runs = []
    for suit in range(NUM_SUITS):
        for lo in range(LOW_ACE, HIGH_ACE - RUN_SIZE + 2):
            runs.append(Meld.run(suit, lo))
            runs.extend(Meld.run(suit, lo, RUN_SIZE, (p,)) for p in range(lo, lo + RUN_SIZE))
    return tuple(trios + runs)


@dataclass(frozen=True)
class Action:
    """A decoded action id.

    ``rel_seat`` and ``index`` name a table meld relative to the actor; ``meld`` is the
    opening meld of an ``OPEN_MELD`` step.
    """

    kind: ActionKind
    card: int = -1
    rel_seat: int = -1
    index: int = -1
    end: End | None = None
    meld: Meld | None = None


class ActionTable:
    """The action ids for ``num_players`` seats (build it with :func:`action_table`)."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.targets = num_players * MAX_MELDS_PER_SEAT
        self.open_melds = opening_meld_vocabulary()
        self.meld_id = {m: i for i, m in enumerate(self.open_melds)}
        sizes = {
            ActionKind.DRAW_STOCK: 1,
            ActionKind.DRAW_DISCARD: 1,
            ActionKind.DISCARD: NUM_CARD_TYPES,
            ActionKind.OPEN_MELD: len(self.open_melds),
            ActionKind.LAY_OFF: NUM_CARD_TYPES * self.targets * len(LAYOFF_SLOTS),
            ActionKind.SWAP: JOKER * self.targets * len(SWAP_SLOTS),
        }
        self.ranges: dict[ActionKind, range] = {}
        start = 0
        for kind in ActionKind:
            self.ranges[kind] = range(start, start + sizes[kind])
            start += sizes[kind]
        self.size = start
        self._decoded = tuple(self._decode(a) for a in range(self.size))
        self._draw_stock = self.ranges[ActionKind.DRAW_STOCK].start
        self._draw_discard = self.ranges[ActionKind.DRAW_DISCARD].start
        self._open_base = self.ranges[ActionKind.OPEN_MELD].start
        d = self.ranges[ActionKind.DISCARD]
        self._discards = slice(d.start, d.stop)
        self._strings = tuple(self._to_string(d) for d in self._decoded)
        self._by_string = {s: a for a, s in enumerate(self._strings)}
        #: per actor, every id's engine move (:meth:`to_move`), built on first use
        self._moves: list[tuple[Move | Meld, ...] | None] = [None] * num_players

    # --- encoding

    def draw_stock(self) -> int:
        """Id of drawing from the stock."""
        return self.ranges[ActionKind.DRAW_STOCK].start

    def draw_discard(self) -> int:
        """Id of taking the top discard."""
        return self.ranges[ActionKind.DRAW_DISCARD].start

    def discard(self, card: int) -> int:
        """Id of discarding a card type."""
        return self.ranges[ActionKind.DISCARD].start + card

    def open_meld(self, meld: Meld) -> int:
        """Id of choosing ``meld`` as the next meld of an opening."""
        return self.ranges[ActionKind.OPEN_MELD].start + self.meld_id[meld]

    def lay_off(self, card: int, rel_seat: int, index: int, end: End | None) -> int:
        """Id of laying ``card`` off on meld ``index`` of the seat ``rel_seat`` after the actor."""
        target = rel_seat * MAX_MELDS_PER_SEAT + index
        slot = LAYOFF_SLOTS.index(end)
        return self.ranges[ActionKind.LAY_OFF].start + (card * self.targets + target) * 3 + slot

    def swap(self, card: int, rel_seat: int, index: int, end: End) -> int:
        """Id of swapping natural ``card`` for a joker of a run; the joker goes to ``end``."""
        target = rel_seat * MAX_MELDS_PER_SEAT + index
        return self.ranges[ActionKind.SWAP].start + (card * self.targets + target) * 2 + int(end)

    def move_actions(self, move: Move, actor: int) -> list[int]:
        """The action ids that play an engine ``move`` for seat ``actor``.

        One id for every move but an opening, which takes one id per meld, in order.
        """
        kind = move.kind
        if kind is MoveKind.DRAW_STOCK:
            return [self.draw_stock()]
        if kind is MoveKind.DRAW_DISCARD:
            return [self.draw_discard()]
        if kind is MoveKind.DISCARD:
            return [self.discard(move.card)]
        if kind is MoveKind.OPEN:
            return [self.open_meld(m) for m in move.melds]
        rel = (move.owner - actor) % self.num_players
        if kind is MoveKind.LAY_OFF:
            return [self.lay_off(move.card, rel, move.index, move.end)]
        return [self.swap(move.card, rel, move.index, move.end)]  # type: ignore[arg-type]

    def legal_mask(self, legal: Iterable[Move], actor: int, pending: Sequence[Meld] = ()) -> np.ndarray:
        """The int8 mask of the actions that play ``legal`` moves for seat ``actor``.

        With ``pending`` opening melds chosen, only the next melds of the openings that
        start with them are offered (in canonical order, so each opening has one path).
        """
        mask = np.zeros(self.size, dtype=np.int8)
        self._mark(mask, legal, actor, pending)
        return mask

    def _mark(self, mask: np.ndarray, moves: Iterable[Move], actor: int, pending: Sequence[Meld]) -> None:
        """Set the ids of ``moves`` in ``mask``: with ``pending`` melds, only the next meld
        of each opening that starts with them, and nothing else."""
        k = len(pending)
        prefix = tuple(pending)
        for move in moves:
            if move.kind is MoveKind.OPEN:
                if move.melds[:k] == prefix:
                    mask[self._open_base + self.meld_id[move.melds[k]]] = 1
            elif not k:
                mask[self.move_actions(move, actor)[0]] = 1

    def game_mask(self, game: Game, pending: Sequence[Meld] = (), meld_moves: Sequence[Move] | None = None) -> np.ndarray:
        """The mask of ``legal_mask(game.legal_moves(), game.current_player, pending)``, made faster.

        Draws and discards come straight from the stock, the pile and the hand counts,
        and only the play phase's melding moves are generated (or taken from
        ``meld_moves``, ``game.meld_moves()`` of this very position, which the env keeps
        while an opening is chosen meld by meld): the ids of :meth:`game_ids`.  The
        tests compare it with :meth:`legal_mask` on many random states.
        """
        mask = np.zeros(self.size, dtype=np.int8)
        ids, held = self.game_ids(game, pending, meld_moves)
        if ids:
            mask[ids] = 1
        if held:
            mask[self._discards] = np.array(game.hands[game.current_player], dtype=bool)
        return mask

    def game_ids(self, game: Game, pending: Sequence[Meld] = (),
                 meld_moves: Sequence[Move] | None = None) -> tuple[list[int], bool]:
        """What :meth:`game_mask` sets: the ids it sets one by one (draws, opening melds,
        lay-offs, swaps; an id may repeat), and whether it offers the discard of every
        card type the actor holds.

        :class:`~carioca_env.action_state.CariocaState` writes them into a mask it keeps
        from step to step (clearing only what it set the step before), rather than
        building an array of every id at every step.
        """
        phase = game.phase
        if phase is Phase.DRAW:
            ids = []
            if game.stock:
                ids.append(self._draw_stock)
            if game.discard:
                ids.append(self._draw_discard)
            return ids, False
        if phase is Phase.GAME_OVER:
            return [], False
        if phase is Phase.PLAY:
            moves = game.meld_moves() if meld_moves is None else meld_moves
            return self._meld_ids(moves, game.current_player, pending), not pending
        return [], not pending

    def _meld_ids(self, moves: Sequence[Move], actor: int, pending: Sequence[Meld]) -> list[int]:
        """The ids :meth:`_mark` sets for ``moves`` (the reference's loop, kept apart so
        that :meth:`legal_mask` stays the plain reference): with ``pending`` melds, only
        the next meld of each opening that starts with them."""
        base, meld_id = self._open_base, self.meld_id
        k = len(pending)
        if k:
            prefix = tuple(pending)
            return [base + meld_id[m.melds[k]] for m in moves if m.kind is MoveKind.OPEN and m.melds[:k] == prefix]
        return [base + meld_id[m.melds[0]] if m.kind is MoveKind.OPEN else self.move_actions(m, actor)[0]
                for m in moves]

    # --- decoding

    def decode(self, action: int) -> Action:
        """The decoded form of an action id.

        Raises:
            ValueError: the id is outside ``0..size-1``.
        """
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside the action space 0..{self.size - 1}")
        return self._decoded[action]

    def _decode(self, a: int) -> Action:
        for kind, r in self.ranges.items():
            if a in r:
                off = a - r.start
                break
        if kind is ActionKind.DISCARD:
            return Action(kind, card=off)
        if kind is ActionKind.OPEN_MELD:
            return Action(kind, meld=self.open_melds[off])
        if kind is ActionKind.LAY_OFF:
            rest, slot = divmod(off, 3)
            card, target = divmod(rest, self.targets)
            seat, index = divmod(target, MAX_MELDS_PER_SEAT)
            return Action(kind, card, seat, index, LAYOFF_SLOTS[slot])
        if kind is ActionKind.SWAP:
            rest, slot = divmod(off, 2)
            card, target = divmod(rest, self.targets)
            seat, index = divmod(target, MAX_MELDS_PER_SEAT)
            return Action(kind, card, seat, index, SWAP_SLOTS[slot])
        return Action(kind)

    def to_move(self, action: int, actor: int) -> Move | Meld:
        """The engine move of an action for seat ``actor``; an opening step gives its Meld.

        Raises:
            ValueError: the id is outside ``0..size-1``.
        """
        if not 0 <= action < self.size:
            self.decode(action)  # raises, naming the range
        seat = actor % self.num_players  # the seat decode_move's owners are relative to
        moves = self._moves[seat]
        if moves is None:
            # moves are immutable values: every id's, built once per seat, then shared
            moves = self._moves[seat] = tuple(self.decode_move(a, seat) for a in range(self.size))
        return moves[action]

    def decode_move(self, action: int, actor: int) -> Move | Meld:
        """:meth:`to_move` built afresh from :meth:`decode` (what its table holds)."""
        d = self.decode(action)
        if d.kind is ActionKind.OPEN_MELD:
            return d.meld  # type: ignore[return-value]
        if d.kind is ActionKind.DRAW_STOCK:
            return Move.draw_stock()
        if d.kind is ActionKind.DRAW_DISCARD:
            return Move.draw_discard()
        if d.kind is ActionKind.DISCARD:
            return Move.discard(d.card)
        owner = (actor + d.rel_seat) % self.num_players
        if d.kind is ActionKind.LAY_OFF:
            return Move.lay_off(d.card, owner, d.index, d.end)
        return Move.swap(d.card, owner, d.index, d.end)  # type: ignore[arg-type]

    # --- strings

    def action_to_string(self, action: int) -> str:
        """Notation of an action: ``draw stock``, ``discard 8S``, ``meld 8C 8D JK``,
        ``lay 8S +1.0`` (trio of the next seat), ``lay JK +0.2 high``, ``swap 5S +1.0 low``."""
        self.decode(action)
        return self._strings[action]

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string`.

        Raises:
            InvalidNotationError: the text names no action of this table.
        """
        norm = " ".join(text.split())
        if norm.startswith("meld "):
            try:
                return self.open_meld(Meld.parse(norm[5:]))
            except KeyError:
                pass
        else:
            words = norm.split(" ")
            if len(words) >= 2 and words[0] in ("discard", "lay", "swap"):
                try:
                    words[1] = card_str(parse_card(words[1]))
                except InvalidNotationError:
                    pass
                norm = " ".join(words)
            if norm in self._by_string:
                return self._by_string[norm]
        raise InvalidNotationError(
            f"{excerpt(text)} is no action of carioca_v0 with {self.num_players} players; actions are written "
            f"'draw stock', 'draw discard', 'discard 8S', 'meld 8C 8D JK', 'lay 8S +1.0', "
            f"'lay 8S +0.1 high', 'swap 5S +1.0 low' (targets: +seat-after-you.meld-index)"
        )

    @staticmethod
    def _to_string(d: Action) -> str:
        if d.kind is ActionKind.DRAW_STOCK:
            return "draw stock"
        if d.kind is ActionKind.DRAW_DISCARD:
            return "draw discard"
        if d.kind is ActionKind.DISCARD:
            return f"discard {card_str(d.card)}"
        if d.kind is ActionKind.OPEN_MELD:
            return f"meld {d.meld}"
        verb = "lay" if d.kind is ActionKind.LAY_OFF else "swap"
        end = "" if d.end is None else f" {d.end}"
        return f"{verb} {card_str(d.card)} +{d.rel_seat}.{d.index}{end}"


@cache
def action_table(num_players: int) -> ActionTable:
    """The action table for ``num_players`` seats, built once and shared (it is immutable)."""
    return ActionTable(num_players)
