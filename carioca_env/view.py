"""What a seat sees: :class:`PlayerView` and the values it is made of.

:class:`Phase` (whose turn it is to do what), :class:`DealResult` (how a deal ended) and
:class:`PublicEvent` (what every seat saw happen) are the game's own state values too;
:class:`FrozenPrefix` lets a view share the deal's growing history instead of copying it.
A view holds only what its seat may know (the leak tests check it): its own hand, the
table, the public history, the hand sizes and the cards each opponent surely holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from carioca_env.cards import cards_of
from carioca_env.melds import Meld
from carioca_env.moves import Move
from carioca_env.openings import Contract


class Phase(Enum):
    """The phase of the turn of the player to act.

    DRAW: take the top stock card or the top discard (R7).
    PLAY: after drawing: open, lay off or swap (as the player may), or discard.
    DISCARD: after opening this turn only the discard remains (R8).
    GAME_OVER: the last deal has been scored; nobody acts.
    """

    DRAW = "draw"
    PLAY = "play"
    DISCARD = "discard"
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class DealResult:
    """How one deal ended.

    Attributes:
        deal: the contract number.
        dealer: the dealer's seat.
        closer: the seat whose discard emptied its hand, or -1 for a cancelled deal.
        scores: penalty of each seat in this deal (zeros when cancelled, R13).
        cancelled: the deal was cancelled for an empty stock and dealt again (R13).
        turns: turns played in the deal.
    """

    deal: int
    dealer: int
    closer: int
    scores: tuple[int, ...]
    cancelled: bool
    turns: int


@dataclass(frozen=True)
class PublicEvent:
    """Something every seat saw happen: ``kind`` is a move kind's name or ``"recycle"``.

    ``card`` is the card shown (discarded, taken from the discard pile, laid off,
    swapped in) or -1 when nothing was shown (a stock draw); ``detail`` is the move, or
    the number of cards recycled into the stock.
    """

    seat: int
    kind: str
    card: int
    detail: Move | int

    @property
    def text(self) -> str:
        """The event in notation (``discard 8S``, ``recycle 40``)."""
        return str(self.detail) if isinstance(self.detail, Move) else f"recycle {self.detail}"


class FrozenPrefix(Sequence[PublicEvent]):
    """The first ``n`` items of a list that only grows: an immutable snapshot in O(1).

    A deal's history only ever gets appended to (a new deal starts a new list), so a
    view can share it instead of copying it on every call.
    """

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[PublicEvent]) -> None:
        self._items = items
        self._n = len(items)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int | slice) -> PublicEvent | tuple[PublicEvent, ...]:  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self._items[: self._n][i])
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("history index out of range")
        return self._items[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(other) == self._n and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"FrozenPrefix({list(self)!r})"


@dataclass(frozen=True)
class PlayerView:
    """Exactly what one seat may know (its own hand, the table and the public history).

    Attributes:
        seat: the viewing seat.
        num_players: players at the table.
        hand_counts: the seat's own cards as 53 counts (``hand`` lists them).
        hand_sizes: how many cards each seat holds.
        table: the melds on the table, per owner seat, as immutable :class:`Meld` values.
        opened: which seats have laid their contract.
        discard_pile: the discard pile from bottom to top.
        stock_size: cards left in the stock.
        picked_from_discard: per seat, the cards it took from the discard pile this deal.
        known_cards: per seat, cards it surely holds because it took them from the
            discard pile and has not since shown a card of that type (counts).
        discarded: per seat, counts of the cards it discarded this deal.
        history: the public events of this deal, in order.
        current_player: the seat to act.
        phase: the phase of the turn.
        dealer: this deal's dealer.
        deal: the contract number being played.
        contract: what it requires.
        deal_index: position of this deal in the game's list of deals.
        turn: turns completed in this deal.
        deal_results: results of the deals played so far.
        totals: accumulated penalty per seat.
        game_over: whether the game is over.
    """

    seat: int
    num_players: int
    hand_counts: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    table: tuple[tuple[Meld, ...], ...]
    opened: tuple[bool, ...]
    discard_pile: tuple[int, ...]
    stock_size: int
    picked_from_discard: tuple[tuple[int, ...], ...]
    known_cards: tuple[tuple[int, ...], ...]
    discarded: tuple[tuple[int, ...], ...]
    history: Sequence[PublicEvent]
    current_player: int
    phase: Phase
    dealer: int
    deal: int
    contract: Contract
    deal_index: int
    turn: int
    deal_results: tuple[DealResult, ...]
    totals: tuple[int, ...]
    game_over: bool

    @property
    def hand(self) -> tuple[int, ...]:
        """The seat's own cards, sorted (card types, repeats for copies)."""
        return tuple(cards_of(self.hand_counts))

    @property
    def top_discard(self) -> int:
        """The top discard, or -1 if the pile is empty."""
        return self.discard_pile[-1] if self.discard_pile else -1


def make_view(values: dict[str, object]) -> PlayerView:
    """``PlayerView(**values)`` without the frozen dataclass's ``__init__``, which sets
    each of the 22 fields through ``object.__setattr__`` (a view is built at every
    decision of every agent: that was about 40% of ``Game.view``).  ``values`` must hold
    exactly :class:`PlayerView`'s fields (the tests compare the two constructions)."""
    view = object.__new__(PlayerView)
    view.__dict__.update(values)
    return view

