"""A position as JSON for the browser: the table, the piles, the scores and the hands.

Everything public comes from a :class:`~carioca_env.PlayerView`: in a seat's view the
page shows exactly what that seat knew (its own hand, the others' hand sizes, the cards
each took from the discard pile); in the all-hands mode the other hands are added from
the game.  Cards travel in the engine's notation (``8S``, ``JK``) and are drawn as cards
by the front end; each joker of a meld carries what it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from carioca_env import JOKER, Game, Move, MoveKind, PlayerView, card_str, cards_str
from carioca_env.cards import RANK_NAMES, cards_of, sort_key
from carioca_env.melds import Meld, MeldKind

#: the last public events of the deal sent with a position
HISTORY_SHOWN = 16


def display_name(name: str) -> str:
    """A seat's name as a page shows it: a tournament record's ``label (spec)`` becomes
    ``label`` when both are the same (``heuristic (heuristic)`` is ``heuristic``)."""
    label, sep, rest = name.partition(" (")
    return label if sep and rest == label + ")" else name


def card_list(cards: Sequence[int]) -> list[str]:
    """Cards in notation, sorted as a hand is shown (suit, then rank, jokers last)."""
    return [card_str(c) for c in sorted(cards, key=sort_key)]


def meld_json(owner: int, index: int, meld: Meld) -> dict[str, Any]:
    """One table meld: its reference ``owner.index``, kind, cards and joker meanings."""
    meaning = dict(meld.stands_for())
    cards = []
    for i, c in enumerate(meld.cards):
        entry: dict[str, Any] = {"card": card_str(c)}
        if c == JOKER:
            m = meaning[i]
            entry["stands_for"] = card_str(m) if m >= 0 else f"any {RANK_NAMES[-m - 1]}"
        cards.append(entry)
    return {"ref": f"{owner}.{index}", "owner": owner, "index": index,
            "kind": "trio" if meld.kind is MeldKind.TRIO else "run", "cards": cards,
            "text": str(meld)}


def view_frame(view: PlayerView, names: Sequence[str], hands: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """The position as ``view``'s seat saw it; ``hands`` (every seat's cards) adds all hands."""
    seats = []
    for s in range(view.num_players):
        hand: list[str] | None = None
        if hands is not None:
            hand = card_list(hands[s])
        elif s == view.seat:
            hand = card_list(view.hand)
        seats.append({
            "seat": s,
            "name": names[s] if s < len(names) else f"seat {s}",
            "hand_size": view.hand_sizes[s],
            "hand": hand,
            "opened": view.opened[s],
            "melds": [meld_json(s, i, m) for i, m in enumerate(view.table[s])],
            "total": view.totals[s],
            "picked": card_list(view.picked_from_discard[s]),
            "known": card_list(cards_of(view.known_cards[s])),
        })
    results = [{"deal": r.deal, "closer": r.closer, "scores": list(r.scores), "cancelled": r.cancelled}
               for r in view.deal_results]
    return {
        "viewer": None if hands is not None else view.seat,
        "num_players": view.num_players,
        "deal": view.deal,
        "deal_index": view.deal_index,
        "contract": str(view.contract),
        "turn": view.turn,
        "dealer": view.dealer,
        "current_player": view.current_player,
        "phase": view.phase.value,
        "stock_size": view.stock_size,
        "discard_pile": [card_str(c) for c in view.discard_pile],
        "seats": seats,
        "totals": list(view.totals),
        "deal_results": results,
        "game_over": view.game_over,
        "history": [{"seat": e.seat, "text": e.text} for e in view.history[-HISTORY_SHOWN:]],
        "history_start": max(1, len(view.history) - HISTORY_SHOWN + 1),
        "last": last_event(view),
    }


def last_event(view: PlayerView) -> dict[str, Any] | None:
    """The deal's last public event, for the page to highlight, or None at a deal's start.

    ``card`` is the card it showed (discarded, taken from the pile, laid off, swapped in;
    None for a stock draw or a recycle) and ``refs`` the melds it made or changed.
    """
    if not view.history:
        return None
    event = view.history[-1]
    move = event.detail if isinstance(event.detail, Move) else None
    refs: list[str] = []
    if move is not None and move.kind is MoveKind.OPEN:
        refs = [f"{event.seat}.{i}" for i in range(len(view.table[event.seat]))]
    elif move is not None and move.kind in (MoveKind.LAY_OFF, MoveKind.SWAP):
        refs = [f"{move.owner}.{move.index}"]
    return {"seat": event.seat, "kind": event.kind.lower(), "text": event.text,
            "card": card_str(event.card) if event.card >= 0 else None, "refs": refs}


def game_frame(game: Game, names: Sequence[str], seat: int | None) -> dict[str, Any]:
    """The position of ``game``: seat ``seat``'s view, or every hand when ``seat`` is None."""
    if seat is None:
        return view_frame(game.view(0), names, [game.hand(s) for s in range(game.num_players)])
    return view_frame(game.view(seat), names)


def move_json(move: Move) -> dict[str, Any]:
    """A legal move as the front end matches it against clicks."""
    out: dict[str, Any] = {"text": str(move), "kind": move.kind.name.lower()}
    if move.kind in (MoveKind.DISCARD, MoveKind.LAY_OFF, MoveKind.SWAP):
        out["card"] = card_str(move.card)
    if move.kind in (MoveKind.LAY_OFF, MoveKind.SWAP):
        out["ref"] = f"{move.owner}.{move.index}"
        out["end"] = None if move.end is None else str(move.end)
    if move.kind is MoveKind.OPEN:
        out["melds"] = [str(m) for m in move.melds]
        out["cards"] = cards_str(sorted((c for m in move.melds for c in m.cards), key=sort_key)).split()
    return out
