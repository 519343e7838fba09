"""Explicit positions: set a game up from its parts, validated, for puzzles, tests and search.

A :class:`Position` lists everything the engine holds for one moment of a deal: every
hand, the melds on the table with their owners, the stock in draw order, the discard
pile, the dealer, whose turn and which phase, the deal, the totals, and (optionally)
the public record of the deal so far (history, cards taken from the discard pile and
still surely held, discards).  :meth:`carioca_env.Game.from_position` (or
:func:`game_from_position`) validates it and returns a game that plays on from there;
:func:`position_of` reads a game's position back, so ``Game.from_position(position_of(g))``
is ``g`` again.

What each joker on the table stands for follows from the :class:`~carioca_env.Meld`: a
run's joker stands for the card of the position it fills (its suit, the rank of that
position), a trio's joker for a card of the trio's rank (R5).  A seat has opened exactly
when it owns melds on the table (R9: no meld is laid before or after the opening).

Validation (:func:`validate_position`) raises :class:`InvalidPositionError` whose
``.field`` names the part that is wrong (``"cards"``, ``"table"``, ``"hands"``, ...):

- the player count (2-4), the deals, the deal index, the dealer and the current seat;
- card values (types 0..52) everywhere;
- the 108 cards exactly: hands + table + stock + discard pile are the deck (R1);
- each table meld is a trio (one rank, at least 3 cards, at least 2 naturals, naturals
  by suit then jokers) or a run (one suit, at least 4 consecutive positions inside
  A..A, at least 3 naturals, each natural on its own position: R4, R5), and each owner's
  melds are exactly the contract (R6);
- sizes: an unopened seat holds the deal's hand size (one more while it is the player
  who has drawn), an opened seat holds at least one card (R10); in the
  draw phase the stock and the discard pile are not empty (R13 rebuilds the stock
  before a turn starts); the discard phase follows an opening (R8);
- the public record fits: the cards a seat surely holds are in its hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from carioca_env.cards import DECK_SIZE, JOKER, NUM_CARD_TYPES, NUM_RANKS, card_str, cards_of, counts_of, deck_counts
from carioca_env.errors import CariocaError, InvalidConfigError, described, excerpt
from carioca_env.game import Game, _DealStart
from carioca_env.game_config import GameConfig
from carioca_env.melds import HIGH_ACE, LOW_ACE, RUN_SIZE, TRIO_SIZE, Meld, MeldKind, TableMeld, position_card
from carioca_env.openings import CONTRACTS, meld_kinds_match
from carioca_env.view import DealResult, Phase, PublicEvent


class InvalidPositionError(CariocaError, ValueError):
    """A position no game can be in.

    Attributes:
        field: the part of the :class:`Position` that is wrong (``"cards"``, ``"table"``,
            ``"hands"``, ``"phase"``, ...).
    """

    def __init__(self, field_name: str, message: str) -> None:
        self.field = field_name
        super().__init__(f"invalid position ({field_name}): {message}")


@dataclass(frozen=True)
class Position:
    """One moment of a deal, every card placed (see the module docstring).

    Attributes:
        hands: each seat's cards (card types, in any order).
        table: per owner seat, the melds it has laid (its contract, grown by lay-offs).
        stock: the stock in draw order: ``stock[0]`` is the next card drawn.
        discard: the discard pile from bottom to top.
        dealer: this deal's dealer.
        current: the seat to act.
        phase: ``Phase.DRAW``, ``Phase.PLAY`` or ``Phase.DISCARD``.
        deals: the game's contracts in order (default the seven deals).
        deal_index: which of ``deals`` is being played.
        totals: accumulated penalty per seat (default zeros).
        deal_results: results of the earlier deals (information only).
        turn: turns completed in this deal.
        first_dealer: the game's first dealer (default: ``dealer`` moved back by the
            deals played).
        history: the public events of this deal so far.
        picked: per seat, the cards it took from the discard pile this deal.
        known: per seat, the cards (as a list) it surely holds from the discard pile.
        discarded: per seat, the cards (as a list) it discarded this deal.
    """

    hands: tuple[tuple[int, ...], ...]
    table: tuple[tuple[Meld, ...], ...]
    stock: tuple[int, ...]
    discard: tuple[int, ...]
    dealer: int
    current: int
    phase: Phase = Phase.DRAW
    deals: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    deal_index: int = 0
    totals: tuple[int, ...] | None = None
    deal_results: tuple[DealResult, ...] = ()
    turn: int = 0
    first_dealer: int | None = None
    history: tuple[PublicEvent, ...] = ()
    picked: tuple[tuple[int, ...], ...] | None = None
    known: tuple[tuple[int, ...], ...] | None = None
    discarded: tuple[tuple[int, ...], ...] | None = None

    @property
    def num_players(self) -> int:
        """Seats at the table (one hand each)."""
        return len(self.hands)


# ---------------------------------------------------------------------------- validation


def _seq(value: Any, name: str) -> Sequence[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidPositionError(name, f"expected a sequence, got {type(value).__name__}")
    return value


def _per_seat(value: Any, n: int, name: str) -> Sequence[Any]:
    value = _seq(value, name)
    if len(value) != n:
        raise InvalidPositionError(name, f"needs one entry per seat ({n}), got {len(value)}")
    return value


def _cards(value: Any, name: str) -> list[int]:
    out = []
    for i, c in enumerate(_seq(value, name)):
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NUM_CARD_TYPES:
            raise InvalidPositionError(name, f"entry {i} is {c!r}, not a card type 0..52")
        out.append(c)
    return out


def _seat(value: Any, n: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise InvalidPositionError(name, f"must be a seat 0..{n - 1}, got {value!r}")
    return value


def check_table_meld(meld: Any, where: str) -> None:
    """Raise :class:`InvalidPositionError` (field ``table``) unless ``meld`` can lie on a table.

    A trio: rank 1..13, at least 3 cards, at least 2 naturals all of that rank, naturals
    sorted then jokers.  A run: suit 0..3, at least 4 consecutive positions inside 1..14,
    at least 3 naturals, each on its own position (R4, R5: jokers only ever join an
    opening meld that had at most one, and naturals never leave a meld).
    """
    if not isinstance(meld, Meld):
        raise InvalidPositionError("table", f"{where} is {meld!r}, not a Meld")
    cards = _cards(meld.cards, "table")
    naturals = [c for c in cards if c != JOKER]
    if meld.kind is MeldKind.TRIO:
        if not 1 <= meld.key <= NUM_RANKS or meld.lo != 0:
            raise InvalidPositionError("table", f"{where} '{meld}' has no valid trio rank (key 1..13, lo 0)")
        if len(cards) < TRIO_SIZE or len(naturals) < TRIO_SIZE - 1:
            raise InvalidPositionError(
                "table", f"{where} '{meld}' is not a trio: at least 3 cards, at least 2 of them natural"
            )
        if any(c % NUM_RANKS + 1 != meld.key for c in naturals):
            raise InvalidPositionError("table", f"{where} '{meld}' mixes ranks; a trio is one rank")
        if list(cards) != sorted(naturals) + [JOKER] * (len(cards) - len(naturals)):
            raise InvalidPositionError("table", f"{where} '{meld}' is not in canonical order (naturals by suit, then jokers)")
        return
    if meld.kind is not MeldKind.RUN or not 0 <= meld.key < 4:
        raise InvalidPositionError("table", f"{where} '{meld}' is neither a trio nor a run of a suit 0..3")
    if len(cards) < RUN_SIZE or len(naturals) < RUN_SIZE - 1:
        raise InvalidPositionError(
            "table", f"{where} '{meld}' is not a run: at least 4 cards, at least 3 of them natural"
        )
    if not (LOW_ACE <= meld.lo and meld.lo + len(cards) - 1 <= HIGH_ACE):
        raise InvalidPositionError("table", f"{where} '{meld}' leaves the ranks A..A (K-A-2 never wraps)")
    for i, c in enumerate(cards):
        if c != JOKER and c != position_card(meld.key, meld.lo + i):
            raise InvalidPositionError(
                "table", f"{where} '{meld}': card {i} ({card_str(c)}) is not the card of its run position"
            )


def validate_position(pos: Position) -> GameConfig:
    """Check a position (see the module docstring) and return its :class:`GameConfig`.

    Raises:
        InvalidPositionError: the first problem found, named in ``.field`` and the message.
    """
    hands = [_cards(h, "hands") for h in _seq(pos.hands, "hands")]
    n = len(hands)
    try:
        config = GameConfig(num_players=n, deals=tuple(_seq(pos.deals, "deals")))
    except InvalidConfigError as exc:
        raise InvalidPositionError("num_players" if "num_players" in str(exc) else "deals", str(exc)) from exc
    if isinstance(pos.deal_index, bool) or not isinstance(pos.deal_index, int) or not 0 <= pos.deal_index < len(config.deals):
        raise InvalidPositionError("deal_index", f"must be 0..{len(config.deals) - 1}, got {pos.deal_index!r}")
    contract = CONTRACTS[config.deals[pos.deal_index]]
    _seat(pos.dealer, n, "dealer")
    current = _seat(pos.current, n, "current")
    if pos.first_dealer is not None:
        _seat(pos.first_dealer, n, "first_dealer")
    if pos.phase not in (Phase.DRAW, Phase.PLAY, Phase.DISCARD):
        raise InvalidPositionError("phase", f"must be Phase.DRAW, PLAY or DISCARD, got {pos.phase!r}")
    if isinstance(pos.turn, bool) or not isinstance(pos.turn, int) or pos.turn < 0:
        raise InvalidPositionError("turn", f"must be an int >= 0, got {pos.turn!r}")
    if pos.totals is not None:
        for t in _per_seat(pos.totals, n, "totals"):
            if isinstance(t, bool) or not isinstance(t, int) or t < 0:
                raise InvalidPositionError("totals", f"totals are penalties >= 0, got {t!r}")
    table = _per_seat(pos.table, n, "table")
    for owner, melds in enumerate(table):
        melds = _seq(melds, "table")
        for i, m in enumerate(melds):
            check_table_meld(m, f"meld {owner}.{i}")
        if melds and not meld_kinds_match(melds, contract):
            raise InvalidPositionError(
                "table", f"seat {owner}'s melds are not the contract of deal {contract.number} ({contract}): "
                f"a seat lays its whole contract and no other meld (R6, R9)"
            )
    stock = _cards(pos.stock, "stock")
    discard = _cards(pos.discard, "discard")
    # R1: every one of the 108 cards is in exactly one place
    have = counts_of([c for h in hands for c in h] + [c for ms in table for m in ms for c in m.cards] + stock + discard)
    want = deck_counts()
    wrong = [f"{card_str(c)} x{have[c]} (want {want[c]})" for c in range(NUM_CARD_TYPES) if have[c] != want[c]]
    if wrong:
        raise InvalidPositionError(
            "cards", f"hands, table, stock and discard pile hold {sum(have)} cards, not the {DECK_SIZE} of the deck "
            "exactly once: " + ", ".join(wrong[:6]) + (" ..." if len(wrong) > 6 else "")
        )
    for s, h in enumerate(hands):
        opened = bool(table[s])
        extra = 1 if s == current and pos.phase is Phase.PLAY else 0
        if not opened and len(h) != contract.hand_size + extra:
            raise InvalidPositionError(
                "hands", f"seat {s} has not opened, so it holds the deal's {contract.hand_size} cards"
                f"{' plus the one drawn' if extra else ''}, not {len(h)} (R3)"
            )
        if opened and not h:
            raise InvalidPositionError(
                "hands", f"seat {s} holds no card; a seat keeps one card until its closing discard (R10)"
            )
    if pos.phase is Phase.DISCARD and not table[current]:
        raise InvalidPositionError("phase", f"the discard phase follows an opening, but seat {current} has not opened (R8)")
    if pos.phase is Phase.DRAW and not stock:
        raise InvalidPositionError("stock", "the stock is empty at the start of a turn; R13 rebuilds it first")
    if pos.phase is Phase.DRAW and not discard:
        raise InvalidPositionError("discard", "the discard pile is empty at the start of a turn (every turn ends with a discard)")
    for name in ("picked", "known", "discarded"):
        value = getattr(pos, name)
        if value is not None:
            for x in _per_seat(value, n, name):
                _cards(x, name)
    if pos.known is not None:
        for s, k in enumerate(pos.known):
            hc = counts_of(hands[s])
            for c, m in enumerate(counts_of(k)):
                if m > hc[c]:
                    raise InvalidPositionError(
                        "known", f"seat {s} surely holds {m}x {card_str(c)} but its hand has {hc[c]}"
                    )
    for e in _seq(pos.history, "history"):
        if not isinstance(e, PublicEvent):
            raise InvalidPositionError("history", f"events are PublicEvent values, got {excerpt(e)}")
    for r in _seq(pos.deal_results, "deal_results"):
        if not isinstance(r, DealResult):
            raise InvalidPositionError("deal_results", f"entries are DealResult values, got {described(r)}")
    return config


# ---------------------------------------------------------------------------- building


def _count_lists(per_seat: Sequence[Sequence[int]] | None, n: int) -> list[list[int]]:
    if per_seat is None:
        return [[0] * NUM_CARD_TYPES for _ in range(n)]
    return [counts_of(x) for x in per_seat]


def game_from_position(pos: Position, seed: int = 0, cls: type[Game] = Game) -> Game:
    """Validate ``pos`` and build the game at that position (``Game.from_position`` calls this).

    Raises:
        InvalidPositionError: see :func:`validate_position`.
    """
    config = validate_position(pos)
    n = config.num_players
    game = cls.__new__(cls)
    game.config = config
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidConfigError(f"seed must be an int, got {seed!r}")
    game.seed = seed
    game.num_players = n
    game.rng = random.Random(seed)
    game._start = _DealStart(position=pos)
    game.moves = []
    game.deal_results = list(pos.deal_results)
    game.totals = list(pos.totals) if pos.totals is not None else [0] * n
    game.deal_index = pos.deal_index
    game.winners = ()
    game.table_version = 1
    game._snapshot_version = -1
    game._snapshot = ()
    game._table_moves_cache = (-1, ())
    game.dealer = pos.dealer
    game.first_dealer = pos.first_dealer if pos.first_dealer is not None else (pos.dealer - pos.deal_index) % n
    game.hands = [counts_of(h) for h in pos.hands]
    game.hand_sizes = [len(h) for h in pos.hands]
    game.discard = list(pos.discard)
    game.stock = list(pos.stock)[::-1]  # the engine keeps the stock's top at the list's end
    game.table = [[TableMeld(m, s) for m in melds] for s, melds in enumerate(pos.table)]
    game.opened = [bool(melds) for melds in pos.table]
    game.picked = [list(p) for p in pos.picked] if pos.picked is not None else [[] for _ in range(n)]
    game.known = _count_lists(pos.known, n)
    game.discarded = _count_lists(pos.discarded, n)
    game.history = list(pos.history)
    game.turn = pos.turn
    game.current = pos.current
    game.phase = pos.phase
    game.drawn_card = -1
    return game


def position_of(game: Game) -> Position:
    """The position of a game in play (the inverse of :func:`game_from_position`).

    Raises:
        InvalidPositionError: the game is over (a finished game has no position to play on).
    """
    if game.game_over:
        raise InvalidPositionError("phase", "the game is over; there is no position to play on")
    return Position(
        hands=tuple(tuple(game.hand(s)) for s in range(game.num_players)),
        table=tuple(tuple(m.snapshot() for m in melds) for melds in game.table),
        stock=tuple(reversed(game.stock)),
        discard=tuple(game.discard),
        dealer=game.dealer,
        current=game.current,
        phase=game.phase,
        deals=game.config.deals,
        deal_index=game.deal_index,
        totals=tuple(game.totals),
        deal_results=tuple(game.deal_results),
        turn=game.turn,
        first_dealer=game.first_dealer,
        history=tuple(game.history),
        picked=tuple(tuple(p) for p in game.picked),
        known=tuple(tuple(cards_of(k)) for k in game.known),
        discarded=tuple(tuple(cards_of(d)) for d in game.discarded),
    )
