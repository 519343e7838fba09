"""The legal openings, lay-offs and swaps of a seat, from its hand and the table alone.

:meth:`carioca_env.Game.meld_moves` and :func:`view_meld_moves` (the same moves from a
seat's :class:`~carioca_env.PlayerView`, for advice computed from what the seat sees)
both call :func:`meld_moves`, so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from carioca_env.melds import TableMeld
from carioca_env.moves import Move, MoveKind
from carioca_env.openings import Contract, enumerate_openings
from carioca_env.view import PlayerView


def meld_moves(counts: Sequence[int], hand_size: int, opened: bool,
               table: Sequence[Sequence[TableMeld]], contract: Contract) -> list[Move]:
    """The play-phase moves other than discards of a seat holding ``counts``: every
    opening of ``contract`` (R5) before it has opened; after, every lay-off (R9) and
    joker swap (R11) on ``table`` (per seat, its melds), none when it holds one card (R10)."""
    if not opened:
        # enumerate_openings gives canonical tuples (tested): skip Move.open's sorting
        return [Move(MoveKind.OPEN, melds=o) for o in enumerate_openings(counts, contract)]
    if hand_size < 2:  # R10: a lay-off or swap must leave a card
        return []
    return [move for card, move in table_moves(table) if counts[card]]


def table_moves(table: Sequence[Sequence[TableMeld]]) -> tuple[tuple[int, Move], ...]:
    """Every lay-off (R9) and joker swap (R11) that ``table`` takes from some hand, each
    with the card type it needs, in the order of :func:`meld_moves`: per seat, per meld,
    its lay-offs, then its swaps.

    It depends on the table alone, so :meth:`carioca_env.Game.meld_moves` keeps it until
    the table changes; a seat's moves are the ones whose card it holds.
    """
    moves: list[tuple[int, Move]] = []
    for owner, melds in enumerate(table):
        for index, meld in enumerate(melds):
            for card, ends in meld.layoff_cards().items():
                moves.extend((card, Move.lay_off(card, owner, index, e)) for e in ends)
            swaps = meld.joker_swaps()
            if swaps:
                ends = meld.open_ends()
                for card in dict.fromkeys(swaps):
                    moves.extend((card, Move.swap(card, owner, index, e)) for e in ends)
    return tuple(moves)


def view_meld_moves(view: PlayerView) -> list[Move]:
    """:func:`meld_moves` of ``view``'s seat, as if it were in its play phase."""
    seat = view.seat
    table = [[TableMeld(m, owner) for m in melds] for owner, melds in enumerate(view.table)]
    return meld_moves(view.hand_counts, view.hand_sizes[seat], view.opened[seat], table, view.contract)
