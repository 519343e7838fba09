"""What cards grouped by clicks mean as an opening.

The person selects the cards of each meld and groups them; the order of the clicks does
not matter, so one group can mean several melds (``4S 5S 6S JK`` is 3-6 or 4-7 of
spades).  :func:`resolve_opening` returns the legal openings whose melds hold exactly the
grouped cards; when there is none it builds the opening the groups most plainly say and
lets the engine say why it is illegal (the ruling's message), or lets the notation parser
say why a group is no meld at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from carioca_env import Game, IllegalMoveError, Meld, Move, MoveKind, parse_card
from carioca_env.cards import JOKER, card_str, rank_of, sort_key, suit_of
from carioca_env.errors import InvalidNotationError
from carioca_env.melds import HIGH_ACE, LOW_ACE, RUN_SIZE, TRIO_SIZE, card_positions


def _key(groups: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(sorted(tuple(sorted(g)) for g in groups))


def meld_readings(cards: Sequence[int]) -> list[Meld]:
    """Every trio or run of 3 or 4 cards that holds exactly ``cards`` (jokers anywhere)."""
    jokers = sum(1 for c in cards if c == JOKER)
    naturals = [c for c in cards if c != JOKER]
    out: list[Meld] = []
    if len(cards) == TRIO_SIZE and naturals and len({rank_of(c) for c in naturals}) == 1:
        out.append(Meld.trio(rank_of(naturals[0]), [suit_of(c) for c in naturals], jokers))
    if len(cards) == RUN_SIZE and naturals and len({suit_of(c) for c in naturals}) == 1:
        suit = suit_of(naturals[0])
        for lo in range(LOW_ACE, HIGH_ACE - RUN_SIZE + 2):
            window = range(lo, lo + RUN_SIZE)
            taken: set[int] = set()
            ok = True
            for c in sorted(naturals, key=rank_of):
                free = [p for p in card_positions(c) if p in window and p not in taken]
                if not free:
                    ok = False
                    break
                taken.add(free[0])
            if ok:
                out.append(Meld.run(suit, lo, RUN_SIZE, tuple(p for p in window if p not in taken)))
    return out


def parse_groups(groups: Sequence[Sequence[str]]) -> list[list[int]]:
    """Card notations per group as card types.

    Raises:
        InvalidNotationError: a card that does not parse, or an empty group.
    """
    out = []
    for g in groups:
        if not g:
            raise InvalidNotationError("an empty group is no meld: select its cards first")
        out.append([parse_card(c) for c in g])
    return out


def resolve_opening(game: Game, groups: Sequence[Sequence[str]]) -> list[Move]:
    """The legal openings whose melds are exactly the grouped cards (one or more).

    Raises:
        InvalidNotationError: a group that is no trio or run whatever its order.
        IllegalMoveError: no legal opening holds these groups; the message is the
            engine's, with the ruling the plainest reading of the groups breaks.
    """
    cards = parse_groups(groups)
    want = _key(cards)
    legal = [m for m in game.meld_moves() if m.kind is MoveKind.OPEN]
    found = [m for m in legal if _key([list(meld.cards) for meld in m.melds]) == want]
    if found:
        return found
    melds = []
    for g in cards:
        readings = meld_readings(g)
        if not readings:
            shown = " ".join(card_str(c) for c in sorted(g, key=sort_key))
            Meld.parse(shown)  # raises InvalidNotationError: says what a trio and a run are
            raise InvalidNotationError(f"{shown!r} is no trio or run")
        melds.append(readings[0])
    move = Move.open(melds)
    game.check(move)  # raises the ruling this opening breaks
    raise IllegalMoveError(f"'{move}' is not a legal opening now", "R6")


def describe(move: Move) -> str:
    """A short human label of a lay-off or swap choice (for the chooser)."""
    if move.kind is MoveKind.LAY_OFF:
        where = "" if move.end is None else f" at the {move.end} end"
        return f"lay {card_str(move.card)} on {move.owner}.{move.index}{where}"
    if move.kind is MoveKind.SWAP:
        return f"swap {card_str(move.card)} for the joker of {move.owner}.{move.index}; the joker goes to the {move.end} end"
    return str(move)


