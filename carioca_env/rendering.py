"""``render_mode="rgb_array"``: the table drawn as an RGB image, from one seat's view.

:func:`draw_table` draws what a :class:`~carioca_env.PlayerView` holds (the seat's own
hand, every seat's melds and hand size, the discard pile, the stock size, the totals), so
a frame shows nothing the viewing seat cannot see; ``extra_hands`` adds other hands for
a god view (``EnvConfig.render_all_hands``).

The frame size depends only on the number of players (:func:`frame_shape`), as video
writers such as Gymnasium's ``RecordVideo`` need; rows with more cards than fit overlap
the cards instead of growing.  Drawing needs Pillow (``pip install carioca-env[render]``),
imported only when a frame is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from carioca_env.cards import JOKER, RANK_NAMES, rank_of, sort_key, suit_of
from carioca_env.extras import require
from carioca_env.melds import Meld
from carioca_env.view import PlayerView

WIDTH = 960
HEADER_H = 30
SEAT_H = 46
DISCARD_H = 56
HAND_H = 64
PENDING_H = 40
#: how many discards are drawn (the top ones; the pile's size is written beside them)
DISCARDS_SHOWN = 24

_FELT = (22, 96, 58)
_TEXT = (240, 240, 230)
_CARD = (250, 250, 245)
_RED = (200, 30, 40)
_BLACK = (20, 20, 20)
_JOKER = (120, 40, 160)
_HIGHLIGHT = (250, 210, 60)


def frame_shape(num_players: int) -> tuple[int, int, int]:
    """``(height, width, 3)`` of every frame of a table of ``num_players``."""
    return (HEADER_H + SEAT_H * num_players + DISCARD_H + HAND_H + PENDING_H, WIDTH, 3)


def require_pillow() -> None:
    """Raise :class:`~carioca_env.extras.MissingExtraError` (naming the extra) without Pillow."""
    require('render_mode="rgb_array"', "PIL")


def _pillow() -> Any:
    require_pillow()
    from PIL import Image, ImageDraw, ImageFont

    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=4)
def _font(size: int) -> Any:
    return _pillow()[2].load_default(size=size)


def _card_text(card: int) -> tuple[str, tuple[int, int, int]]:
    if card == JOKER:
        return "JK", _JOKER
    colour = _RED if suit_of(card) in (1, 2) else _BLACK  # hearts, diamonds
    return RANK_NAMES[rank_of(card) - 1], colour


def _suit(draw: Any, suit: int, x: float, y: float, r: float, fill: tuple[int, int, int]) -> None:
    """Draw suit ``suit`` (0 spades, 1 hearts, 2 diamonds, 3 clubs) centred at ``(x, y)``.

    Drawn as shapes: Pillow's bundled font has no suit symbols.
    """
    if suit == 2:
        draw.polygon([(x, y - r), (x + 0.75 * r, y), (x, y + r), (x - 0.75 * r, y)], fill=fill)
        return
    h = r / 2
    if suit == 3:
        for cx, cy in ((x, y - h), (x - h, y + 0.2 * h), (x + h, y + 0.2 * h)):
            draw.ellipse((cx - h, cy - h, cx + h, cy + h), fill=fill)
    else:
        sign = 1 if suit == 1 else -1  # hearts point down, spades up
        top = y - sign * 0.3 * r
        draw.ellipse((x - r, top - h, x, top + h), fill=fill)
        draw.ellipse((x, top - h, x + r, top + h), fill=fill)
        draw.polygon([(x - r, top + sign * 0.15 * r), (x + r, top + sign * 0.15 * r), (x, y + sign * r)], fill=fill)
    if suit in (0, 3):  # the stem
        draw.polygon([(x, y), (x - h, y + r), (x + h, y + r)], fill=fill)


class _Canvas:
    """A Pillow drawing with the table's few primitives."""

    def __init__(self, num_players: int) -> None:
        image_cls, draw_mod, _ = _pillow()
        h, w, _ = frame_shape(num_players)
        self.image = image_cls.new("RGB", (w, h), _FELT)
        self.draw = draw_mod.Draw(self.image)

    def text(self, x: int, y: int, text: str, size: int = 14, fill: tuple[int, int, int] = _TEXT) -> None:
        self.draw.text((x, y), text, font=_font(size), fill=fill)

    def cards(self, x: int, y: int, cards: Sequence[int], width: int, card_w: int, card_h: int,
              highlight_last: bool = False) -> int:
        """Draw a row of cards from ``x`` within ``width`` pixels; returns the x after it."""
        if not cards:
            return x
        step = card_w + 3
        if len(cards) > 1 and step * len(cards) > width:
            step = max(6, (width - card_w) // (len(cards) - 1))  # overlap rather than overflow
        size = 13 if card_h < 40 else 16
        for i, card in enumerate(cards):
            cx = x + i * step
            outline = _HIGHLIGHT if highlight_last and i == len(cards) - 1 else _BLACK
            self.draw.rounded_rectangle((cx, y, cx + card_w, y + card_h), radius=3, fill=_CARD,
                                        outline=outline, width=2 if outline is _HIGHLIGHT else 1)
            label, colour = _card_text(card)
            self.text(cx + 3, y + 3, label, size=size, fill=colour)
            if card != JOKER:
                r = min(card_w, card_h) / 5
                _suit(self.draw, suit_of(card), cx + card_w / 2, y + card_h - r - 4, r, colour)
        return x + (len(cards) - 1) * step + card_w


def _melds_row(canvas: _Canvas, x: int, y: int, melds: Sequence[Meld], width: int) -> None:
    if not melds:
        canvas.text(x, y + 12, "(not opened)")
        return
    gap = 14
    share = (width - gap * (len(melds) - 1)) // len(melds)
    for meld in melds:
        x = canvas.cards(x, y, meld.cards, share, card_w=30, card_h=38) + gap


def draw_table(view: PlayerView, pending: Sequence[Meld] = (),
               extra_hands: Mapping[int, Sequence[int]] | None = None) -> np.ndarray:
    """The table as seen by ``view.seat``: an ``(H, W, 3)`` uint8 array (see :func:`frame_shape`).

    Args:
        view: the viewing seat's view; its hand is drawn, no other.
        pending: melds of an opening being chosen step by step (the viewer's own).
        extra_hands: other seats' hands to draw as well (a god view), by seat.
    """
    canvas = _Canvas(view.num_players)
    c = view.contract
    if view.game_over:
        status = f"game over | totals {list(view.totals)}"
    else:
        status = (f"deal {view.deal_index + 1}: contract {c.number} ({c.melds}) | "
                  f"turn {view.turn} | player {view.current_player} to play: {view.phase.value} | "
                  f"totals {list(view.totals)}")
    canvas.text(10, 7, status, size=15)
    y = HEADER_H
    extra = extra_hands or {}
    for seat in range(view.num_players):
        marker = ">" if seat == view.current_player and not view.game_over else " "
        who = "you" if seat == view.seat else f"{view.hand_sizes[seat]} cards"
        canvas.text(10, y + 14, f"{marker} P{seat} ({who})", size=14)
        x = 130
        if seat in extra and seat != view.seat:  # god view: the hand, then the melds
            canvas.cards(x, y + 4, sorted(extra[seat], key=sort_key), 300, card_w=24, card_h=38)
            x += 320
        _melds_row(canvas, x, y + 4, view.table[seat], WIDTH - 10 - x)
        y += SEAT_H
    canvas.text(10, y + 18, f"discard ({len(view.discard_pile)})", size=14)
    canvas.text(10, y + 36, f"stock {view.stock_size}", size=14)
    canvas.cards(130, y + 6, view.discard_pile[-DISCARDS_SHOWN:], WIDTH - 140, card_w=30, card_h=42,
                 highlight_last=True)
    y += DISCARD_H
    canvas.text(10, y + 22, f"hand P{view.seat}", size=15)
    canvas.cards(130, y + 4, sorted(view.hand, key=sort_key), WIDTH - 140, card_w=40, card_h=54)
    y += HAND_H
    if pending:
        x = canvas.cards(130, y + 6, [card for m in pending for card in m.cards], WIDTH - 140, card_w=24, card_h=30)
        canvas.text(10, y + 12, "choosing", size=14)
        canvas.text(x + 10, y + 12, f"{len(pending)} of {c.trios + c.runs} melds", size=14)
    return np.asarray(canvas.image, dtype=np.uint8)
