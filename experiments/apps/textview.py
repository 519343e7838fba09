"""Text rendering shared by ``carioca play`` and ``carioca replay``."""

from __future__ import annotations

from collections.abc import Sequence

from carioca_env import JOKER, PlayerView, card_symbol, rank_of, suit_of
from carioca_env.cards import SUIT_SYMBOLS
from carioca_env.melds import Meld


def grouped_hand(cards: Sequence[int]) -> str:
    """A hand sorted and grouped by suit, jokers last: ``♠ A 4 7 | ♥ 2 2 | 🃏``."""
    groups = []
    for suit, symbol in enumerate(SUIT_SYMBOLS):
        ranks = sorted(rank_of(c) for c in cards if c != JOKER and suit_of(c) == suit)
        if ranks:
            names = [card_symbol(suit * 13 + r - 1)[:-1] for r in ranks]
            groups.append(f"{symbol} " + " ".join(names))
    jokers = sum(1 for c in cards if c == JOKER)
    if jokers:
        groups.append(" ".join([card_symbol(JOKER)] * jokers))
    return " | ".join(groups) or "(empty)"


def table_lines(table: Sequence[Sequence[Meld]], names: Sequence[str], hand_sizes: Sequence[int], opened: Sequence[bool]) -> list[str]:
    """One line per seat: name, hand size, and its melds as ``seat.index: cards``."""
    lines = []
    for seat, melds in enumerate(table):
        shown = "   ".join(f"[{seat}.{i}] {m.render()}" for i, m in enumerate(melds))
        state = shown if opened[seat] else "(not opened)"
        lines.append(f"  seat {seat} {names[seat]:<12} {hand_sizes[seat]:>2} cards  {state}")
    return lines


def view_text(view: PlayerView, names: Sequence[str]) -> str:
    """What the seat of ``view`` sees: deal, scores, table, top discard and its own hand."""
    top = card_symbol(view.top_discard) if view.top_discard >= 0 else "-"
    lines = [
        f"{view.contract} | turn {view.turn} | dealer seat {view.dealer} | stock {view.stock_size} | "
        f"top discard {top}",
        "  totals: " + ", ".join(f"seat {s} {t}" for s, t in enumerate(view.totals)),
    ]
    lines += table_lines(view.table, names, view.hand_sizes, view.opened)
    lines.append(f"  your hand (seat {view.seat}): {grouped_hand(view.hand)}")
    return "\n".join(lines)
