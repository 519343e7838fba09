"""Moves and their notation.

=================  ===========================  =========================================
move               notation                     meaning
=================  ===========================  =========================================
draw from stock    ``draw stock``               take the top stock card (R7)
take the discard   ``draw discard``             take the top discard (R7)
open               ``open 8C 8D 8H / 4S 5S 6S 7S``  lay the whole contract at once (R6, R8);
                                                melds separated by ``/``, trios first, a
                                                run's cards from low to high, ``JK`` for
                                                a joker (it stands for the card of its
                                                place in a run, for the rank in a trio)
lay off            ``lay 8S 1.0`` (trio),       put one card on meld ``seat.index`` of
                   ``lay 8S 0.1 high`` (run)    the table, at the low or high end of a
                                                run (R9)
swap a joker       ``swap 5S 0.1 low``          natural 5♠ replaces the joker that stands
                                                for 5♠ in run 0.1; the joker moves to the
                                                run's low (or high) end (R11)
discard            ``discard 8S``               end the turn (R7); closes the deal if it
                                                empties the hand (R10)
=================  ===========================  =========================================

Meld references use absolute seats: ``1.0`` is the first meld that seat 1 laid.
``parse_move(str(m)) == m`` for every move.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from carioca_env.cards import NUM_CARD_TYPES, card_str, parse_card
from carioca_env.errors import ArgumentTypeError, InvalidNotationError, MalformedMoveError, described, excerpt
from carioca_env.melds import End, Meld, MeldKind


class MoveKind(IntEnum):
    """The six kinds of move."""

    DRAW_STOCK = 0
    DRAW_DISCARD = 1
    OPEN = 2
    LAY_OFF = 3
    SWAP = 4
    DISCARD = 5


def canonical_melds(melds: tuple[Meld, ...] | list[Meld]) -> tuple[Meld, ...]:
    """Melds of an opening in canonical form: each meld :meth:`~Meld.canonical` (a trio's
    cards sorted), trios first, then runs, each sorted.

    Raises:
        MalformedMoveError: an item is not a :class:`Meld`.
    """
    if isinstance(melds, (str, bytes)) or not isinstance(melds, (list, tuple)):
        raise MalformedMoveError(f"an opening's melds must be a list or tuple of Meld, got {described(melds)}")
    for m in melds:
        if not isinstance(m, Meld) or not isinstance(m.kind, MeldKind):
            raise MalformedMoveError(f"an opening's melds must be Meld values, got {described(m)}")
    return tuple(sorted(m.canonical() for m in melds))


@dataclass(frozen=True, repr=False)
class Move:
    """One move of the player to act.

    Attributes:
        kind: which move.
        card: the card discarded, laid off or swapped in (-1 for draws and openings).
        owner: seat owning the target meld of a lay-off or swap (-1 otherwise).
        index: index of the target meld among its owner's melds (-1 otherwise).
        end: run end a laid-off card goes to, or a swapped joker moves to; ``None`` for
            trios and other moves.
        melds: an opening's melds in canonical order (see :func:`canonical_melds`).
    """

    kind: MoveKind
    card: int = -1
    owner: int = -1
    index: int = -1
    end: End | None = None
    melds: tuple[Meld, ...] = ()

    @staticmethod
    def draw_stock() -> Move:
        """Take the top card of the stock."""
        return _DRAW_STOCK

    @staticmethod
    def draw_discard() -> Move:
        """Take the top card of the discard pile."""
        return _DRAW_DISCARD

    @staticmethod
    def discard(card: int) -> Move:
        """Discard a card type from the hand."""
        return Move(MoveKind.DISCARD, card=card)

    @staticmethod
    def open(melds: tuple[Meld, ...] | list[Meld]) -> Move:
        """Lay down the whole contract (melds in any order; stored canonically)."""
        return Move(MoveKind.OPEN, melds=canonical_melds(melds))

    @staticmethod
    def lay_off(card: int, owner: int, index: int, end: End | None = None) -> Move:
        """Lay ``card`` off on meld ``owner.index`` (at ``end`` for a run)."""
        return Move(MoveKind.LAY_OFF, card=card, owner=owner, index=index, end=end)

    @staticmethod
    def swap(card: int, owner: int, index: int, end: End) -> Move:
        """Swap natural ``card`` for the joker of run ``owner.index``; the joker goes to ``end``."""
        return Move(MoveKind.SWAP, card=card, owner=owner, index=index, end=end)

    def __str__(self) -> str:
        return _FORMATTERS[self.kind](self)

    def __repr__(self) -> str:
        """``<Move discard 8S>``: the notation, which :func:`parse_move` reads back.

        A malformed move (built by hand, e.g. a discard of card -1) has no notation; its
        repr shows the fields instead, since error messages about it use the repr.
        """
        try:
            return f"<Move {self}>"
        except (ValueError, KeyError, IndexError, TypeError):
            return (f"<Move {self.kind!r} card={self.card} owner={self.owner} index={self.index} "
                    f"end={self.end} melds={self.melds!r} (no notation)>")

    @staticmethod
    def parse(text: str) -> Move:
        """Parse a move's notation (the inverse of ``str``).

        Raises:
            InvalidNotationError: the text is not a move; the message lists the forms.
        """
        return parse_move(text)


_DRAW_STOCK = Move(MoveKind.DRAW_STOCK)
_DRAW_DISCARD = Move(MoveKind.DRAW_DISCARD)


def _fmt_target(m: Move) -> str:
    base = f"{card_str(m.card)} {m.owner}.{m.index}"
    return base if m.end is None else f"{base} {m.end}"


_FORMATTERS = {
    MoveKind.DRAW_STOCK: lambda m: "draw stock",
    MoveKind.DRAW_DISCARD: lambda m: "draw discard",
    MoveKind.DISCARD: lambda m: f"discard {card_str(m.card)}",
    MoveKind.OPEN: lambda m: "open " + " / ".join(str(meld) for meld in m.melds),
    MoveKind.LAY_OFF: lambda m: "lay " + _fmt_target(m),
    MoveKind.SWAP: lambda m: "swap " + _fmt_target(m),
}

MOVE_FORMS = (
    "'draw stock', 'draw discard', 'discard 8S', 'open 8C 8D 8H / 4S 5S JK 7S', "
    "'lay 8S 1.0' (on a trio), 'lay 8S 0.1 high' (on a run), 'swap 5S 0.1 low'"
)


def _bad(text: str, why: str) -> InvalidNotationError:
    return InvalidNotationError(f"{excerpt(text)} is not a move ({why}); moves are written {MOVE_FORMS}")


def _is_small_number(s: str) -> bool:
    # ASCII digits only: str.isdigit() also takes '²' and other digits int() refuses or
    # reads into a move whose notation is another text; a seat or meld index has few digits
    return 0 < len(s) <= 6 and s.isascii() and s.isdigit()


def _parse_target(text: str, args: list[str]) -> tuple[int, int, int, End | None]:
    if len(args) not in (2, 3):
        raise _bad(text, "expected a card, a meld 'seat.index' and for a run an end")
    card = parse_card(args[0])
    seat_s, dot, index_s = args[1].partition(".")
    if not dot or not _is_small_number(seat_s) or not _is_small_number(index_s):
        raise _bad(text, f"meld reference {excerpt(args[1])} is not 'seat.index' like 0.1 (digits 0-9)")
    end: End | None = None
    if len(args) == 3:
        word = args[2].lower()
        if word not in ("low", "high"):
            raise _bad(text, f"end {excerpt(args[2])} is not 'low' or 'high'")
        end = End.LOW if word == "low" else End.HIGH
    return card, int(seat_s), int(index_s), end


def _parse_open(text: str, rest: str) -> Move:
    parts = [p for p in rest.split("/")]
    if not rest.strip() or any(not p.strip() for p in parts):
        raise _bad(text, "an opening lists its melds separated by '/'")
    return Move.open([Meld.parse(p) for p in parts])


def parse_move(text: str) -> Move:
    """Parse a move's notation; see the module docstring for the forms.

    Raises:
        ArgumentTypeError: ``text`` is not a string.
        InvalidNotationError: the text is not a move.
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"a move's notation must be a string like 'draw stock', got {described(text)}")
    words = text.split()
    if not words:
        raise _bad(text, "it is empty")
    verb, args = words[0].lower(), words[1:]
    if verb == "draw":
        if len(args) == 1 and args[0].lower() == "stock":
            return Move.draw_stock()
        if len(args) == 1 and args[0].lower() == "discard":
            return Move.draw_discard()
        raise _bad(text, "draw what? 'draw stock' or 'draw discard'")
    if verb == "discard":
        if len(args) != 1:
            raise _bad(text, "discard takes one card")
        return Move.discard(parse_card(args[0]))
    if verb == "open":
        return _parse_open(text, text.strip()[len(words[0]):])
    if verb in ("lay", "swap"):
        card, owner, index, end = _parse_target(text, args)
        if verb == "lay":
            return Move.lay_off(card, owner, index, end)
        if end is None:
            raise _bad(text, "a swap names the end the joker moves to: low or high")
        return Move.swap(card, owner, index, end)
    raise _bad(text, f"unknown verb {excerpt(words[0])}")


_CARD_KINDS = (MoveKind.DISCARD, MoveKind.LAY_OFF, MoveKind.SWAP)
_TARGET_KINDS = (MoveKind.LAY_OFF, MoveKind.SWAP)


def _is_card(c: object) -> bool:
    return type(c) is int and 0 <= c < NUM_CARD_TYPES


def check_well_formed(move: Move) -> None:
    """Raise unless ``move`` is a well-formed move, the one representation of a move.

    A move names card types 0..52 only, sets only the fields its kind has (the others
    keep their defaults), and an opening holds :class:`Meld` values in canonical form
    (:func:`canonical_melds`).  Otherwise ``Game.apply`` would take moves that
    ``legal_moves()`` never lists and whose notation replays as another move.  These are
    representation errors, not rulings.  Cheap ``type``/``isinstance`` checks: it runs
    on every ``apply``.

    Raises:
        ArgumentTypeError: ``move`` is not a :class:`Move` (e.g. a string: see
            :func:`parse_move` and ``Game.push``).
        MalformedMoveError: a field that no move of its kind has.
    """
    if type(move) is not Move:
        hint = " (parse notation with parse_move, or use Game.push)" if isinstance(move, str) else ""
        raise ArgumentTypeError(f"move must be a Move, got {described(move)}{hint}")
    kind = move.kind
    if type(kind) is not MoveKind:
        raise MalformedMoveError(f"a move's kind must be a MoveKind ({', '.join(k.name for k in MoveKind)}), got {described(kind)}")
    if kind in _CARD_KINDS:
        if not _is_card(move.card):
            raise MalformedMoveError(f"a {kind.name} move names a card type 0..52, got {described(move.card)}")
    elif move.card != -1:
        raise MalformedMoveError(f"a {kind.name} move has no card (card=-1), got card={excerpt(move.card)}")
    if kind in _TARGET_KINDS:
        if type(move.owner) is not int or type(move.index) is not int:
            raise MalformedMoveError(
                f"a {kind.name} move names its meld by int owner and index, got {excerpt(move.owner)}.{excerpt(move.index)}"
            )
        if not (move.end is None or type(move.end) is End) or (kind is MoveKind.SWAP and move.end is None):
            raise MalformedMoveError(f"a {kind.name} move's end must be {'an End' if kind is MoveKind.SWAP else 'None or an End'}, got {described(move.end)}")
    elif (move.owner, move.index, move.end) != (-1, -1, None):
        raise MalformedMoveError(f"a {kind.name} move has no target meld or end, got {excerpt(move)}")
    if kind is MoveKind.OPEN:
        _check_opening_form(move)
    elif move.melds != ():
        raise MalformedMoveError(f"a {kind.name} move has no melds, got {excerpt(move.melds)}")


def _check_opening_form(move: Move) -> None:
    melds = move.melds
    if type(melds) is not tuple:
        raise MalformedMoveError(f"an opening's melds must be a tuple of Meld (use Move.open), got {described(melds)}")
    for m in melds:
        if type(m) is not Meld or type(m.kind) is not MeldKind or type(m.key) is not int or type(m.lo) is not int:
            raise MalformedMoveError(f"an opening holds Meld values of a MeldKind with int key and lo, got {described(m)}")
        if type(m.cards) is not tuple or not all(_is_card(c) for c in m.cards):
            raise MalformedMoveError(f"meld cards must be a tuple of card types 0..52, got {excerpt(m.cards)}")
    if canonical_melds(melds) != melds:
        raise MalformedMoveError(
            f"'{move}' is not in canonical form (a trio's naturals by suit then jokers, lo 0; "
            f"trios before runs, each sorted): build openings with Move.open, which sorts them"
        )


__all__ = ["Move", "MoveKind", "MeldKind", "parse_move", "canonical_melds", "check_well_formed", "MOVE_FORMS"]
