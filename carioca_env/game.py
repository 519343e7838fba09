"""The game state of Argentine Carioca: deals, turns, legal moves, and their effects.

:class:`Game` plays a whole game of the deals in :class:`GameConfig` (the seven
contracts by default).  The player to act calls :meth:`Game.legal_moves` and
:meth:`Game.apply`; an illegal move raises :class:`IllegalMoveError` naming the ruling.
Deals follow one another by themselves: the discard that closes a deal scores it (R14)
and deals the next one; a deal cancelled for an empty stock (R13) is dealt again.

Dealing (R2, R3): the deck is dealt one card at a time starting with the seat after the
dealer, ``hand_size`` rounds; the next card is turned up as the first discard; the rest,
in deck order, is the stock (the next card of the deck is the stock's top).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from carioca_env.cards import (
    DECK_SIZE,
    JOKER,
    NUM_CARD_TYPES,
    card_str,
    cards_of,
    counts_of,
    deck_counts,
    full_deck,
    hand_penalty,
    parse_card,
)
from carioca_env.errors import (
    ArgumentTypeError,
    CariocaError,
    IllegalMoveError,
    InvalidConfigError,
    MalformedMoveError,
    MisdealError,
    RecordError,
    as_int,
    described,
    excerpt,
)
from carioca_env.melds import Meld, MeldKind, TableMeld, check_opening_meld
from carioca_env.records import check_record_lists, read_record, write_atomic
from carioca_env.moves import Move, MoveKind, check_well_formed, parse_move
from carioca_env.openings import CONTRACTS, Contract, enumerate_openings, meld_kinds_match

#: the 53 discard moves, built once (the move generator lists them on every play turn)
_DISCARDS = tuple(Move.discard(c) for c in range(NUM_CARD_TYPES))

RECORD_FORMAT = "carioca-game-record"
RECORD_VERSION = 1


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
class GameConfig:
    """Rule options of a game (all defaults are the guide's full game).

    Attributes:
        num_players: 2, 3 or 4 individual players (guide §01).
        deals: the contracts to play, in order; default the seven deals 1..7 (guide §03).
            ``(3,)`` plays contract 3 alone, so agents can be compared per contract.
    """

    num_players: int = 2
    deals: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not _is_integer(n) or not 2 <= n <= 4:
            raise InvalidConfigError(
                f"num_players must be 2, 3 or 4 (Carioca is for 2-4 players), got {described(n)}"
            )
        deals = self.deals
        if isinstance(deals, (str, bytes, dict)) or not isinstance(deals, Sequence) and not hasattr(deals, "tolist"):
            raise InvalidConfigError(
                f"deals must be a non-empty sequence of contract numbers 1..7, got {described(deals)}"
            )
        deals = tuple(deals)
        # ints only: 1.0 or True == 1 would otherwise pass as contract 1 silently
        if not deals or any(isinstance(d, bool) or not _is_integer(d) or d not in CONTRACTS for d in deals):
            raise InvalidConfigError(
                f"deals must be a non-empty sequence of contract numbers 1..7 (ints), got {excerpt(self.deals)}"
            )
        object.__setattr__(self, "num_players", int(n))
        object.__setattr__(self, "deals", tuple(int(d) for d in deals))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (used in records)."""
        d = asdict(self)
        d["deals"] = list(self.deals)
        return d

    @staticmethod
    def from_dict(d: dict[str, Any]) -> GameConfig:
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidConfigError: not a dict of exactly ``num_players`` and ``deals``, or
                values that make no game.
        """
        if not isinstance(d, dict) or set(d) != {"num_players", "deals"}:
            raise InvalidConfigError(
                f"a game config is a dict with keys 'num_players' and 'deals', got {excerpt(d)}"
            )
        return GameConfig(num_players=d["num_players"], deals=d["deals"])


def _is_integer(value: Any) -> bool:
    """A Python or numpy integer (``operator.index`` takes it), bools included."""
    try:
        value.__index__()
    except (AttributeError, TypeError):
        return False
    return True


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

    def __getitem__(self, i):  # type: ignore[override]
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


def validate_deck(deck: Sequence[int]) -> None:
    """Raise :class:`MisdealError` unless ``deck`` is a permutation of the 108 cards (R1, R16).

    Raises:
        ArgumentTypeError: ``deck`` is not a list or tuple.
        MisdealError: a wrong size, a value that is no card type, or wrong copies.
    """
    if not isinstance(deck, (list, tuple)):
        raise ArgumentTypeError(
            f"deck must be a list of {DECK_SIZE} card types 0..52, got {described(deck)}"
        )
    if len(deck) != DECK_SIZE:
        raise MisdealError(
            f"a deck must hold {DECK_SIZE} cards (two 52-card packs and 4 jokers), got {len(deck)}"
        )
    for i, c in enumerate(deck):
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NUM_CARD_TYPES:
            raise MisdealError(f"a deck holds card types 0..52 (ints) only; position {i} holds {described(c)}")
    have, want = counts_of(deck), deck_counts()
    wrong = [f"{card_str(c)} x{have[c]} (want {want[c]})" for c in range(NUM_CARD_TYPES) if have[c] != want[c]]
    if wrong:
        raise MisdealError(
            "the deck is not a permutation of the 108 cards: " + ", ".join(wrong[:6])
            + (" ..." if len(wrong) > 6 else "")
        )


def stack_deck(
    hands: Sequence[Sequence[int]],
    upcard: int,
    stock_top: Sequence[int] = (),
    dealer: int = -1,
) -> list[int]:
    """Build a deck that deals the given hands, upcard and stock top (for tests and puzzles).

    ``hands[s]`` is seat ``s``'s hand (every hand of the deal's size); ``stock_top`` are the
    first stock cards in draw order; the remaining cards follow in a fixed order.
    ``dealer`` is the seat that deals (needed to map seats to dealing order; default the
    last seat, so seat 0 is dealt first).

    Raises:
        MisdealError: the cards asked for are not all in the 108-card deck.
    """
    n = len(hands)
    if dealer < 0:
        dealer = n - 1
    sizes = {len(h) for h in hands}
    if len(sizes) != 1:
        raise MisdealError(f"every hand must have the same size, got sizes {sorted(sizes)}")
    size = sizes.pop()
    remaining = deck_counts()
    for c in [c for h in hands for c in h] + [upcard] + list(stock_top):
        if remaining[c] == 0:
            raise MisdealError(f"too many copies of {card_str(c)} asked for the deck")
        remaining[c] -= 1
    deck: list[int] = []
    order = [(dealer + 1 + i) % n for i in range(n)]
    for r in range(size):
        for seat in order:
            deck.append(hands[seat][r])
    deck.append(upcard)
    deck.extend(stock_top)
    deck.extend(cards_of(remaining))
    return deck


def _config(config: Any) -> GameConfig:
    """``config`` if it is a :class:`GameConfig`, the default for ``None``; else a typed error."""
    if config is None:
        return GameConfig()
    if not isinstance(config, GameConfig):
        hint = " (build one with GameConfig(**d) or GameConfig.from_dict(d))" if isinstance(config, dict) else ""
        raise ArgumentTypeError(f"config must be a GameConfig or None, got {described(config)}{hint}")
    return config


@dataclass(frozen=True)
class _DealStart:
    """How the first deal is made: from the game's generator, a given deck and dealer, or
    an explicit position (:mod:`carioca_env.position`).  Never mutated, so clones share it."""

    deck: tuple[int, ...] | None = None
    dealer: int | None = None
    position: Any = None


class Game:
    """A game of Carioca: state, legal moves and their application.

    Create one with ``Game(config, seed)`` (dealer by lot and every shuffle from the
    game's own ``random.Random(seed)``) or :meth:`from_deck` for a stacked first deal.
    """

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        self._setup(_config(config), seed, _DealStart())

    def __repr__(self) -> str:
        """``<Game deal 1 of 7 (contract 1: 2 trios), turn 0, player 1 to play: draw>``: where it stands."""
        n_deals = len(self.config.deals)
        if self.game_over:
            return f"<Game over after {n_deals} deals: totals {self.totals}, winners {list(self.winners)}>"
        c = self.contract
        return (
            f"<Game deal {self.deal_index + 1} of {n_deals} (contract {c.number}: {c.melds}), "
            f"turn {self.turn}, player {self.current_player} to play: {self.phase.value}>"
        )

    # ------------------------------------------------------------------ creation

    @classmethod
    def from_deck(
        cls,
        deck: Sequence[int],
        dealer: int,
        config: GameConfig | None = None,
        seed: int = 0,
    ) -> Game:
        """A game whose first deal is dealt from ``deck`` by ``dealer`` (R16 checks the deck).

        Later deals (and any reshuffle) come from the game's generator seeded by ``seed``.

        Raises:
            MisdealError: the deck is not a permutation of the 108 cards.
            InvalidConfigError: the dealer is not a seat.
        """
        cfg = _config(config)
        validate_deck(deck)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < cfg.num_players:
            raise InvalidConfigError(f"dealer must be a seat 0..{cfg.num_players - 1}, got {described(dealer)}")
        game = cls.__new__(cls)
        game._setup(cfg, seed, _DealStart(tuple(deck), dealer))
        return game

    @classmethod
    def from_position(cls, position: Any, seed: int = 0) -> Game:
        """A game set up at an explicit position (a :class:`carioca_env.position.Position`).

        The position is validated first (see :func:`carioca_env.position.validate_position`);
        later shuffles come from the game's generator seeded by ``seed``.

        Raises:
            InvalidPositionError: the position is not one a game can reach; the message
                names what is wrong.
        """
        from carioca_env.position import game_from_position  # the position logic lives there

        return game_from_position(position, seed, cls)

    def clone(self) -> Game:
        """An independent copy of the game that shares nothing mutable with it.

        The state is flat lists of ints plus immutable values (moves, events, results,
        melds' snapshots), so a clone is a handful of list copies: a tenth or less of
        ``copy.deepcopy`` (``carioca bench --only clone``).  The clone's generator
        continues from the same state, so both play on identically.
        """
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        d["rng"] = rng
        d["moves"] = self.moves.copy()
        d["deal_results"] = self.deal_results.copy()
        d["totals"] = self.totals.copy()
        d["hands"] = [h.copy() for h in self.hands]
        d["hand_sizes"] = self.hand_sizes.copy()
        d["discard"] = self.discard.copy()
        d["stock"] = self.stock.copy()
        d["table"] = [[m.copy() for m in melds] for melds in self.table]
        d["opened"] = self.opened.copy()
        d["picked"] = [p.copy() for p in self.picked]
        d["known"] = [k.copy() for k in self.known]
        d["discarded"] = [x.copy() for x in self.discarded]
        d["history"] = self.history.copy()
        new.__dict__ = d
        return new

    def determinize(self, seat: int, rng: Any) -> Game:
        """A full game consistent with everything ``seat`` knows, the unseen cards dealt
        uniformly from ``rng`` (a ``random.Random`` or ``numpy.random.Generator``); see
        :mod:`carioca_env.determinize`."""
        from carioca_env.determinize import determinize

        return determinize(self, seat, rng)

    def _setup(self, config: GameConfig, seed: int, start: _DealStart) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidConfigError(f"seed must be an int, got {described(seed)}")
        self.config = config
        self.seed = seed
        self.num_players = config.num_players
        self.rng = random.Random(seed)
        self._start = start
        self.moves: list[Move] = []
        self.deal_results: list[DealResult] = []
        self.totals = [0] * self.num_players
        self.deal_index = 0
        self.winners: tuple[int, ...] = ()
        #: bumped whenever the table changes (a new deal, an opening, a lay-off, a swap),
        #: so observation encoders can reuse work done for the same table
        self.table_version = 0
        self._snapshot_version = -1
        self._snapshot: tuple[tuple[Meld, ...], ...] = ()
        if start.dealer is not None:
            self.dealer = start.dealer
        else:
            self.dealer = self.rng.randrange(self.num_players)  # R2: first dealer by lot
        self.first_dealer = self.dealer
        self._deal(None if start.deck is None else list(start.deck))

    # ------------------------------------------------------------------ dealing

    @property
    def contract(self) -> Contract:
        """The contract of the deal being played."""
        return CONTRACTS[self.config.deals[self.deal_index]]

    @property
    def deal_number(self) -> int:
        """The contract number (1..7) of the deal being played."""
        return self.config.deals[self.deal_index]

    def _deal(self, deck: list[int] | None) -> None:
        if deck is None:
            deck = full_deck()
            self.rng.shuffle(deck)
        n = self.num_players
        size = self.contract.hand_size  # R3
        hands = [[0] * NUM_CARD_TYPES for _ in range(n)]
        pos = 0
        for _ in range(size):
            for i in range(n):
                hands[(self.dealer + 1 + i) % n][deck[pos]] += 1
                pos += 1
        self.hands = hands
        self.hand_sizes = [size] * n
        self.discard = [deck[pos]]
        self.stock = deck[pos + 1:][::-1]  # top of the stock is the list's end
        self.table: list[list[TableMeld]] = [[] for _ in range(n)]
        self.table_version += 1
        self.opened = [False] * n
        self.picked = [[] for _ in range(n)]
        self.known = [[0] * NUM_CARD_TYPES for _ in range(n)]
        self.discarded = [[0] * NUM_CARD_TYPES for _ in range(n)]
        self.history: list[PublicEvent] = []
        self.turn = 0
        self.current = (self.dealer + 1) % n  # R2: the player after the dealer starts
        self.phase = Phase.DRAW
        self.drawn_card = -1

    # ------------------------------------------------------------------ queries

    @property
    def current_player(self) -> int:
        """The seat to act (meaningless once the game is over)."""
        return self.current

    @property
    def game_over(self) -> bool:
        """Whether the last deal has been scored (R15)."""
        return self.phase is Phase.GAME_OVER

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return len(self.stock)

    @property
    def top_discard(self) -> int:
        """The top discard, or -1 when the pile is empty (only after a discard draw)."""
        return self.discard[-1] if self.discard else -1

    def hand(self, seat: int) -> list[int]:
        """The cards of ``seat``'s hand, sorted (card types, repeats for copies).

        Raises:
            ArgumentTypeError / InvalidArgumentError: ``seat`` is not a seat 0..n-1
            (``-1`` is no seat: it is refused, not read as the last one).
        """
        return cards_of(self.hands[self._seat(seat)])

    def _seat(self, seat: Any) -> int:
        return as_int("seat", seat, 0, self.num_players - 1)

    def table_melds(self) -> list[list[Meld]]:
        """The melds on the table as immutable values, per owner seat."""
        return [[m.snapshot() for m in melds] for melds in self.table]

    @property
    def deal_scores(self) -> list[tuple[int, ...]]:
        """Scores of each completed (not cancelled) deal, in order (R14)."""
        return [r.scores for r in self.deal_results if not r.cancelled]

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to act, each distinct move once."""
        return self._LEGAL[self.phase](self)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal now (validated directly, like :meth:`apply`)."""
        try:
            self.check(move)
        except (IllegalMoveError, MalformedMoveError):
            return False
        return True

    def _table_snapshot(self) -> tuple[tuple[Meld, ...], ...]:
        """The table as immutable melds, rebuilt only when ``table_version`` moved."""
        if self._snapshot_version != self.table_version:
            self._snapshot = tuple(tuple(m.snapshot() for m in melds) for melds in self.table)
            self._snapshot_version = self.table_version
        return self._snapshot

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know: its own hand, the table and the public history only."""
        seat = self._seat(seat)
        return PlayerView(
            seat=seat,
            num_players=self.num_players,
            hand_counts=tuple(self.hands[seat]),
            hand_sizes=tuple(self.hand_sizes),
            table=self._table_snapshot(),
            opened=tuple(self.opened),
            discard_pile=tuple(self.discard),
            stock_size=len(self.stock),
            picked_from_discard=tuple(tuple(p) for p in self.picked),
            known_cards=tuple(tuple(k) for k in self.known),
            discarded=tuple(tuple(d) for d in self.discarded),
            history=FrozenPrefix(self.history),
            current_player=self.current,
            phase=self.phase,
            dealer=self.dealer,
            deal=self.deal_number,
            contract=self.contract,
            deal_index=self.deal_index,
            turn=self.turn,
            deal_results=tuple(self.deal_results),
            totals=tuple(self.totals),
            game_over=self.game_over,
        )

    # ------------------------------------------------------------------ legal moves

    def _legal_draw(self) -> list[Move]:
        moves = []
        if self.stock:
            moves.append(Move.draw_stock())
        if self.discard:
            moves.append(Move.draw_discard())
        return moves

    def _legal_discard(self) -> list[Move]:
        counts = self.hands[self.current]
        return [_DISCARDS[c] for c in range(NUM_CARD_TYPES) if counts[c]]

    def _legal_play(self) -> list[Move]:
        moves = self.meld_moves()
        moves.extend(self._legal_discard())
        return moves

    def meld_moves(self) -> list[Move]:
        """The legal moves of the play phase other than discards: openings, lay-offs, swaps.

        Empty outside the play phase.  ``legal_moves()`` in the play phase is this list
        followed by the discards.
        """
        if self.phase is not Phase.PLAY:
            return []
        seat = self.current
        counts = self.hands[seat]
        moves: list[Move] = []
        if not self.opened[seat]:
            # enumerate_openings gives canonical tuples (tested): skip Move.open's sorting
            moves.extend(Move(MoveKind.OPEN, melds=o) for o in enumerate_openings(counts, self.contract))
        elif self.hand_sizes[seat] >= 2:  # R10: a lay-off or swap must leave a card
            for owner, melds in enumerate(self.table):
                for index, meld in enumerate(melds):
                    for card, ends in meld.layoff_cards().items():
                        if counts[card]:
                            moves.extend(Move.lay_off(card, owner, index, e) for e in ends)
                    swaps = meld.joker_swaps()
                    if swaps:
                        ends = meld.open_ends()
                        for card in dict.fromkeys(swaps):
                            if counts[card]:
                                moves.extend(Move.swap(card, owner, index, e) for e in ends)
        return moves

    # ------------------------------------------------------------------ applying

    def apply(self, move: Move) -> None:
        """Play ``move`` for the player to act.

        Raises:
            ArgumentTypeError: ``move`` is not a :class:`Move` (parse notation with
                :func:`parse_move` or call :meth:`push`).
            MalformedMoveError: a :class:`Move` value that is no move (see
                :func:`~carioca_env.moves.check_well_formed`).
            IllegalMoveError: the move is not legal now; the message names the rule.
        """
        check_well_formed(move)
        self._APPLY[self.phase](self, move)
        self.moves.append(move)

    def push(self, text: str) -> Move:
        """Parse a move's notation and apply it; returns the move."""
        move = parse_move(text)
        self.apply(move)
        return move

    def check(self, move: Move) -> None:
        """Validate ``move`` without changing anything.

        Raises:
            ArgumentTypeError, MalformedMoveError: as :meth:`apply`.
            IllegalMoveError: the move is illegal now; the message names the ruling.
        """
        check_well_formed(move)
        probe = self._CHECKERS.get((self.phase, move.kind))
        if probe is None:
            raise self._wrong_phase(move)
        probe(self, move)

    def _wrong_phase(self, move: Move) -> IllegalMoveError:
        allowed = {
            Phase.DRAW: "draw from the stock or take the top discard",
            Phase.PLAY: "open, lay off or swap as allowed, or discard",
            Phase.DISCARD: "only discard: the opening turn allows nothing else",
            Phase.GAME_OVER: "nothing: the game is over",
        }[self.phase]
        rule = {Phase.DRAW: "R7", Phase.PLAY: "R7", Phase.DISCARD: "R8", Phase.GAME_OVER: "R15"}[self.phase]
        return IllegalMoveError(
            f"'{move}' is not allowed in phase {self.phase.value} of seat {self.current}; "
            f"the player may {allowed}",
            rule,
        )

    # draw phase
    def _check_draw(self, move: Move) -> None:
        if move.kind is MoveKind.DRAW_STOCK and not self.stock:
            raise IllegalMoveError("the stock is empty", "R13")
        if move.kind is MoveKind.DRAW_DISCARD and not self.discard:
            raise IllegalMoveError("the discard pile is empty", "R7")

    def _apply_draw(self, move: Move) -> None:
        if move.kind not in (MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD):
            raise self._wrong_phase(move)
        self._check_draw(move)
        seat = self.current
        if move.kind is MoveKind.DRAW_STOCK:
            card = self.stock.pop()
            self.history.append(PublicEvent(seat, "DRAW_STOCK", -1, move))
        else:
            card = self.discard.pop()
            self.picked[seat].append(card)
            self.known[seat][card] += 1
            self.history.append(PublicEvent(seat, "DRAW_DISCARD", card, move))
        self.hands[seat][card] += 1
        self.hand_sizes[seat] += 1
        self.drawn_card = card
        self.phase = Phase.PLAY

    # play phase
    def _apply_play(self, move: Move) -> None:
        handler = self._PLAY_MOVES.get(move.kind)
        if handler is None:
            raise self._wrong_phase(move)
        handler(self, move)

    def _apply_discard_phase(self, move: Move) -> None:
        if move.kind is not MoveKind.DISCARD:
            raise self._wrong_phase(move)
        self._do_discard(move)

    def _apply_game_over(self, move: Move) -> None:
        raise self._wrong_phase(move)

    def _need_cards(self, seat: int, cards: Sequence[int], what: str) -> None:
        counts = self.hands[seat]
        need = counts_of(cards)
        for c, k in enumerate(need):
            if k and counts[c] < k:
                raise IllegalMoveError(
                    f"{what} needs {k}x {card_str(c)} but seat {seat} holds {counts[c]}", "R7"
                )

    def _check_open(self, move: Move) -> None:
        seat = self.current
        if self.opened[seat]:
            raise IllegalMoveError(
                f"seat {seat} has already opened; no new melds may be laid after opening", "R9"
            )
        if not meld_kinds_match(move.melds, self.contract):
            raise IllegalMoveError(
                f"'{move}' does not match the contract {self.contract}; the whole contract "
                f"must be laid at once, no part alone and no extra meld",
                "R6",
            )
        for meld in move.melds:
            check_opening_meld(meld)
        cards = [c for m in move.melds for c in m.cards]
        self._need_cards(seat, cards, f"'{move}'")
        if self.hand_sizes[seat] - len(cards) < 1:
            raise IllegalMoveError("the opening must leave a card for the discard", "R10")

    def _do_open(self, move: Move) -> None:
        self._check_open(move)
        seat = self.current
        for meld in move.melds:
            for c in meld.cards:
                self._remove(seat, c)
            self.table[seat].append(TableMeld(meld, seat))
        self.table_version += 1
        self.opened[seat] = True
        self.history.append(PublicEvent(seat, "OPEN", -1, move))
        self.phase = Phase.DISCARD  # R8: nothing else on the opening turn

    def _target(self, move: Move) -> TableMeld:
        if not 0 <= move.owner < self.num_players or not 0 <= move.index < len(self.table[move.owner]):
            raise IllegalMoveError(
                f"there is no meld {move.owner}.{move.index} on the table "
                f"(melds per seat: {[len(t) for t in self.table]})",
                "R9",
            )
        return self.table[move.owner][move.index]

    def _check_after_opening(self, move: Move) -> TableMeld:
        seat = self.current
        if not self.opened[seat]:
            raise IllegalMoveError(
                f"seat {seat} has not opened and may not lay off or swap before laying the whole contract",
                "R9" if move.kind is MoveKind.LAY_OFF else "R11",
            )
        meld = self._target(move)
        if self.hands[seat][move.card] == 0:
            raise IllegalMoveError(f"seat {seat} holds no {card_str(move.card)}", "R7")
        if self.hand_sizes[seat] < 2:
            raise IllegalMoveError(
                "melding may never empty the hand: one card must remain for the discard", "R10"
            )
        return meld

    def _check_lay_off(self, move: Move) -> None:
        meld = self._check_after_opening(move)
        ends = meld.layoff_cards().get(move.card, ())
        if move.end not in ends:
            where = "" if move.end is None else f" at the {move.end} end"
            raise IllegalMoveError(
                f"{card_str(move.card)} cannot be laid off on '{meld.snapshot()}'{where}: "
                f"a trio takes its rank or a joker (no end), a run the next card or a joker at an open end",
                "R9" if meld.kind is MeldKind.TRIO or move.card == JOKER else "R4",
            )

    def _do_lay_off(self, move: Move) -> None:
        self._check_lay_off(move)
        seat = self.current
        self._remove(seat, move.card)
        self.table[move.owner][move.index].lay_off(move.card, move.end)
        self.table_version += 1
        self.history.append(PublicEvent(seat, "LAY_OFF", move.card, move))

    def _check_swap(self, move: Move) -> None:
        meld = self._check_after_opening(move)
        if meld.kind is MeldKind.TRIO:
            raise IllegalMoveError("jokers in trios are never moved", "R11")
        if move.card not in meld.joker_swaps():
            raise IllegalMoveError(
                f"no joker in '{meld.snapshot()}' stands for {card_str(move.card)}", "R11"
            )
        if move.end not in meld.open_ends():
            raise IllegalMoveError(
                f"the joker cannot move to the {move.end} end of '{meld.snapshot()}' "
                f"(open ends: {[str(e) for e in meld.open_ends()]})",
                "R11",
            )

    def _do_swap(self, move: Move) -> None:
        self._check_swap(move)
        seat = self.current
        self._remove(seat, move.card)
        self.table[move.owner][move.index].swap(move.card, move.end)  # type: ignore[arg-type]
        self.table_version += 1
        self.history.append(PublicEvent(seat, "SWAP", move.card, move))

    def _check_discard(self, move: Move) -> None:
        if not 0 <= move.card < NUM_CARD_TYPES or self.hands[self.current][move.card] == 0:
            raise IllegalMoveError(
                f"seat {self.current} holds no {card_str(move.card) if 0 <= move.card < NUM_CARD_TYPES else move.card} to discard",
                "R7",
            )

    def _do_discard(self, move: Move) -> None:
        self._check_discard(move)
        seat = self.current
        self._remove(seat, move.card)
        self.discard.append(move.card)
        self.discarded[seat][move.card] += 1
        self.history.append(PublicEvent(seat, "DISCARD", move.card, move))
        self.turn += 1
        if self.hand_sizes[seat] == 0:  # R10: the discard that empties the hand closes
            self._close_deal(seat)
        else:
            self.current = (seat + 1) % self.num_players
            self.phase = Phase.DRAW
            self._start_turn()

    def _remove(self, seat: int, card: int) -> None:
        self.hands[seat][card] -= 1
        self.hand_sizes[seat] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1

    # ------------------------------------------------------------------ deal flow

    def _start_turn(self) -> None:
        """R13: an empty stock is rebuilt from the discards under the top one, or the deal is cancelled."""
        if self.stock:
            return
        if len(self.discard) <= 1:
            self.deal_results.append(
                DealResult(self.deal_number, self.dealer, -1, (0,) * self.num_players, True, self.turn)
            )
            self._deal(None)  # same contract, same dealer, a full reshuffle
            return
        top = self.discard.pop()
        recycled = self.discard
        self.rng.shuffle(recycled)
        self.stock = recycled
        self.discard = [top]
        self.history.append(PublicEvent(self.current, "recycle", -1, len(recycled)))

    def _close_deal(self, closer: int) -> None:
        scores = tuple(0 if s == closer else hand_penalty(self.hands[s]) for s in range(self.num_players))
        self.deal_results.append(DealResult(self.deal_number, self.dealer, closer, scores, False, self.turn))
        for s, p in enumerate(scores):
            self.totals[s] += p
        if self.deal_index + 1 < len(self.config.deals):
            self.deal_index += 1
            self.dealer = (self.dealer + 1) % self.num_players  # R2: the deal passes on
            self._deal(None)
        else:
            best = min(self.totals)
            self.winners = tuple(s for s, t in enumerate(self.totals) if t == best)  # R15
            self.phase = Phase.GAME_OVER

    _CHECKERS: dict[tuple[Phase, MoveKind], Callable[[Game, Move], None]] = {
        (Phase.DRAW, MoveKind.DRAW_STOCK): _check_draw,
        (Phase.DRAW, MoveKind.DRAW_DISCARD): _check_draw,
        (Phase.PLAY, MoveKind.OPEN): _check_open,
        (Phase.PLAY, MoveKind.LAY_OFF): _check_lay_off,
        (Phase.PLAY, MoveKind.SWAP): _check_swap,
        (Phase.PLAY, MoveKind.DISCARD): _check_discard,
        (Phase.DISCARD, MoveKind.DISCARD): _check_discard,
    }

    # Dispatch tables live on the class (plain functions, called with the game), not on
    # each instance: an instance then holds only data, so clone(), pickle and deepcopy
    # need no bound methods or lambdas.
    def _legal_game_over(self) -> list[Move]:
        return []

    _LEGAL: dict[Phase, Callable[[Game], list[Move]]] = {
        Phase.DRAW: _legal_draw,
        Phase.PLAY: _legal_play,
        Phase.DISCARD: _legal_discard,
        Phase.GAME_OVER: _legal_game_over,
    }
    _APPLY: dict[Phase, Callable[[Game, Move], None]] = {
        Phase.DRAW: _apply_draw,
        Phase.PLAY: _apply_play,
        Phase.DISCARD: _apply_discard_phase,
        Phase.GAME_OVER: _apply_game_over,
    }
    _PLAY_MOVES: dict[MoveKind, Callable[[Game, Move], None]] = {
        MoveKind.OPEN: _do_open,
        MoveKind.LAY_OFF: _do_lay_off,
        MoveKind.SWAP: _do_swap,
        MoveKind.DISCARD: _do_discard,
    }

    # ------------------------------------------------------------------ records

    def to_record(self, agents: Sequence[str] | None = None) -> dict[str, Any]:
        """The game as a JSON-ready record (format ``carioca-game-record``, version 1).

        It holds the options, the seed (and a stacked first deal's deck and dealer), the
        moves in notation, each deal's result and the totals; ``agents`` (one name or spec
        per seat) is kept as information.
        """
        rec: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "config": self.config.to_dict(),
            "seed": self.seed,
        }
        if self._start.position is not None:
            raise RecordError(
                "a game set up from an explicit position has no replayable record "
                "(a record replays from a deck); save the Position instead"
            )
        if self._start.deck is not None:
            rec["deck"] = [card_str(c) for c in self._start.deck]
            rec["dealer"] = self._start.dealer
        if agents is not None:
            rec["agents"] = list(agents)
        rec["moves"] = [str(m) for m in self.moves]
        rec["deal_scores"] = [list(r.scores) for r in self.deal_results if not r.cancelled]
        rec["totals"] = list(self.totals)
        return rec

    @classmethod
    def start_of_record(cls, record: dict[str, Any]) -> tuple[Game, list[str]]:
        """The game a record starts from (no move played yet) and its moves' notations.

        Every header field is checked for its type and value before the game is built
        (see the README's record format), so a corrupt or foreign record gives one
        :class:`RecordError` that names the field, never another exception.

        Raises:
            RecordError: not a Carioca record, another version, or a corrupt header.
        """
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise RecordError(f"not a Carioca game record (expected a JSON object with format {RECORD_FORMAT!r})")
        version = record.get("version")
        if type(version) is not int or version != RECORD_VERSION:
            raise RecordError(
                f"record version {excerpt(version)} is not supported (this engine reads {RECORD_VERSION})"
            )
        for key in ("config", "seed", "moves"):
            if key not in record:
                raise RecordError(f"corrupt record header: it has no {key!r}")
        moves = record["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RecordError(f"corrupt record header: 'moves' must be a list of move notations, got {excerpt(moves)}")
        check_record_lists(record)
        try:
            config = GameConfig.from_dict(record["config"])
            seed = record["seed"]
            if "deck" in record or "dealer" in record:
                deck = record.get("deck")
                if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                    raise RecordError(
                        f"'deck' must be a list of {DECK_SIZE} card notations like '8S', got {excerpt(deck)}"
                    )
                game = cls.from_deck([parse_card(c) for c in deck], record.get("dealer"), config, seed)
            else:
                game = cls(config, seed)
        except CariocaError as exc:
            raise RecordError(f"corrupt record header: {exc}") from exc
        agents = record.get("agents")
        if "agents" in record and (
            not isinstance(agents, list) or len(agents) != game.num_players or not all(isinstance(a, str) for a in agents)
        ):
            raise RecordError(
                f"corrupt record header: 'agents' must be a list of {game.num_players} names, got {excerpt(agents)}"
            )
        return game, moves

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        """Replay a record into a game, checking every move, the deal scores and the totals.

        Raises:
            RecordError: the record is not a Carioca record, has another version, or does
                not replay (the message names the move and the reason).
        """
        game, moves = cls.start_of_record(record)
        for i, text in enumerate(moves):
            try:
                game.push(text)
            except CariocaError as exc:
                raise RecordError(f"move {i + 1} {excerpt(text)} does not replay: {exc}") from exc
        game.check_record_results(record)
        return game

    def check_record_results(self, record: dict[str, Any]) -> None:
        """Raise :class:`RecordError` if the record's stored scores differ from this game's."""
        check_record_lists(record)
        scores = [list(r.scores) for r in self.deal_results if not r.cancelled]
        if "deal_scores" in record and record["deal_scores"] != scores:
            raise RecordError(
                f"the record's deal scores {excerpt(record['deal_scores'])} differ from the replayed {excerpt(scores)}"
            )
        if "totals" in record and record["totals"] != self.totals:
            raise RecordError(
                f"the record's totals {excerpt(record['totals'])} differ from the replayed totals {self.totals}"
            )

    def save(self, path: str | Path, agents: Sequence[str] | None = None) -> None:
        """Write the record (see :meth:`to_record`) as JSON, atomically.

        The record goes to a temporary file beside ``path`` that then replaces it
        (``os.replace``), so an interrupted save leaves the previous file whole.

        Raises:
            OSError: the folder cannot be written.
        """
        write_atomic(Path(path), json.dumps(self.to_record(agents)) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Game:
        """Read and replay a JSON record written by :meth:`save`.

        Raises:
            RecordError: the file is not valid JSON or does not replay.
        """
        return cls.from_record(read_record(path))
