"""The game state of Argentine Carioca: deals, turns, legal moves, and their effects.

:class:`Game` plays a whole game of the deals in :class:`GameConfig` (the seven
contracts by default).  The player to act calls :meth:`Game.legal_moves` and
:meth:`Game.apply`; an illegal move raises :class:`IllegalMoveError` naming the ruling.
Deals follow one another by themselves: the discard that closes a deal scores it (R14)
and deals the next one; a deal cancelled for an empty stock (R13) is dealt again.

Dealing (R2, R3): the deck is dealt one card at a time starting with the seat after the
dealer, ``hand_size`` rounds; the next card is turned up as the first discard; the rest,
in deck order, is the stock (the next card of the deck is the stock's top).

The values the game is made of live in their own modules:
:mod:`carioca_env.view` (:class:`~carioca_env.view.PlayerView`, :class:`~carioca_env.view.Phase`,
:class:`~carioca_env.view.DealResult`, :class:`~carioca_env.view.PublicEvent`),
:mod:`carioca_env.game_config` (:class:`~carioca_env.game_config.GameConfig`),
:mod:`carioca_env.decks` (:func:`~carioca_env.decks.validate_deck`,
:func:`~carioca_env.decks.stack_deck`) and :mod:`carioca_env.records` (the record
methods, which ``Game`` inherits); import them from there or from :mod:`carioca_env`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

from carioca_env.cards import (
    JOKER,
    NUM_CARD_TYPES,
    card_str,
    cards_of,
    counts_of,
    full_deck,
    hand_penalty,
)
from carioca_env.decks import validate_deck
from carioca_env.errors import (
    IllegalMoveError,
    InvalidConfigError,
    MalformedMoveError,
    as_int,
    described,
)
from carioca_env.game_config import GameConfig, check_game_config
from carioca_env.meld_moves import meld_moves, table_moves
from carioca_env.melds import Meld, MeldKind, TableMeld, check_opening_meld
from carioca_env.moves import Move, MoveKind, check_well_formed, parse_move
from carioca_env.openings import CONTRACTS, Contract, meld_kinds_match
from carioca_env.records import GameRecords
from carioca_env.view import DealResult, FrozenPrefix, Phase, PlayerView, PublicEvent, make_view

__all__ = ["Game"]

#: the 53 discard moves, built once (the move generator lists them on every play turn)
_DISCARDS = tuple(Move.discard(c) for c in range(NUM_CARD_TYPES))
#: the two draws, built once likewise (moves are immutable values)
_DRAW_STOCK, _DRAW_DISCARD = Move.draw_stock(), Move.draw_discard()
#: the phases of the hot paths, read as module globals
_DRAW, _PLAY = Phase.DRAW, Phase.PLAY


@dataclass(frozen=True)
class _DealStart:
    """How the first deal is made: from the game's generator, a given deck and dealer, or
    an explicit position (:mod:`carioca_env.position`).  Never mutated, so clones share it."""

    deck: tuple[int, ...] | None = None
    dealer: int | None = None
    position: Any = None


class Game(GameRecords):
    """A game of Carioca: state, legal moves and their application.

    Create one with ``Game(config, seed)`` (dealer by lot and every shuffle from the
    game's own ``random.Random(seed)``) or :meth:`from_deck` for a stacked first deal.
    """

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        self._setup(check_game_config(config), seed, _DealStart())

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
        cfg = check_game_config(config)
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
        """An independent copy of the game that shares nothing either side mutates.

        The state is flat lists of ints plus immutable values (moves, events, results,
        melds' snapshots), so a clone is a handful of list copies: a tenth or less of
        ``copy.deepcopy`` (``carioca bench --only clone``).  The generator is shared
        copy-on-use (:attr:`rng`): copying its 625-word state cost most of a clone, and
        a clone rarely shuffles (a new deal or a recycled stock), so neither side copies
        it until it draws from it, and then each draws from its own copy.  The clone's
        generator continues from the same state, so both play on identically.
        """
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        # the generator: frozen while shared (whoever draws first copies it, see rng)
        self.__dict__["_rng_shared"] = True
        d["_rng_shared"] = True
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

    @property
    def rng(self) -> random.Random:
        """The game's own generator (the first dealer, every shuffle).

        After :meth:`clone` the original and the clone hold one generator object, which
        neither has drawn from since: the first to read it here gets a copy of its state
        (the same numbers the shared one would give), so a game never advances a
        generator another game holds.
        """
        d = self.__dict__
        rng: random.Random = d["rng"]
        if d.get("_rng_shared"):
            own = random.Random.__new__(random.Random)  # no seeding from the OS: the state is set next
            own.setstate(rng.getstate())
            d["rng"] = rng = own
            d["_rng_shared"] = False
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self.__dict__["rng"] = value
        self.__dict__["_rng_shared"] = False

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
        #: (table_version, table_moves(table)) for :meth:`meld_moves`; replaced, never mutated,
        #: so a clone may share it
        self._table_moves_cache: tuple[int, tuple[tuple[int, Move], ...]] = (-1, ())
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
        self.picked: list[list[int]] = [[] for _ in range(n)]
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
        # the two phases of nearly every call by identity: a dict lookup would hash the
        # Phase (Enum.__hash__ is Python code)
        phase = self.phase
        if phase is _PLAY:
            return self._legal_play()
        if phase is _DRAW:
            return self._legal_draw()
        return self._LEGAL[phase](self)

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
        return make_view({
            "seat": seat,
            "num_players": self.num_players,
            "hand_counts": tuple(self.hands[seat]),
            "hand_sizes": tuple(self.hand_sizes),
            "table": self._table_snapshot(),
            "opened": tuple(self.opened),
            "discard_pile": tuple(self.discard),
            "stock_size": len(self.stock),
            "picked_from_discard": tuple(map(tuple, self.picked)),
            "known_cards": tuple(map(tuple, self.known)),
            "discarded": tuple(map(tuple, self.discarded)),
            "history": FrozenPrefix(self.history),
            "current_player": self.current,
            "phase": self.phase,
            "dealer": self.dealer,
            "deal": self.deal_number,
            "contract": self.contract,
            "deal_index": self.deal_index,
            "turn": self.turn,
            "deal_results": tuple(self.deal_results),
            "totals": tuple(self.totals),
            "game_over": self.game_over,
        })

    # ------------------------------------------------------------------ legal moves

    def _legal_draw(self) -> list[Move]:
        moves = []
        if self.stock:
            moves.append(_DRAW_STOCK)
        if self.discard:
            moves.append(_DRAW_DISCARD)
        return moves

    def _legal_discard(self) -> list[Move]:
        # compress: the discards whose card is held, in card order, without a Python loop
        return list(compress(_DISCARDS, self.hands[self.current]))

    def _legal_play(self) -> list[Move]:
        moves = self.meld_moves()
        moves.extend(self._legal_discard())
        return moves

    def meld_moves(self) -> list[Move]:
        """The legal moves of the play phase other than discards: openings, lay-offs, swaps.

        Empty outside the play phase.  ``legal_moves()`` in the play phase is this list
        followed by the discards.
        """
        if self.phase is not _PLAY:
            return []
        seat = self.current
        if not self.opened[seat]:
            return meld_moves(self.hands[seat], self.hand_sizes[seat], False, self.table,
                              CONTRACTS[self.config.deals[self.deal_index]])
        if self.hand_sizes[seat] < 2:  # R10: a lay-off or swap must leave a card
            return []
        counts = self.hands[seat]
        return [move for card, move in self._table_moves() if counts[card]]

    def _table_moves(self) -> tuple[tuple[int, Move], ...]:
        """:func:`~carioca_env.meld_moves.table_moves` of the table, rebuilt only when
        ``table_version`` moved (the lay-offs and swaps of an opened seat are the ones
        whose card it holds: a filter, not a walk over every meld, on each play phase)."""
        version, moves = self._table_moves_cache
        if version != self.table_version:
            moves = table_moves(self.table)
            self._table_moves_cache = (self.table_version, moves)
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

    def apply_unchecked(self, move: Move) -> None:
        """Play ``move``, known to be legal, without checking it again.

        The fast path (python-chess's ``push`` beside ``push_san``, OpenSpiel's
        ``ApplyAction`` beside ``ApplyActionWithLegalityCheck``) for callers that already
        hold a legal move: the environment after its mask check, search rollouts over
        :meth:`legal_moves`, replays of records verified once.  It has the same effects
        as :meth:`apply` for every legal move (a test compares the two on every move of
        many games).  An illegal or malformed move corrupts the game, so anything from
        outside (a person, an agent, a file) goes through :meth:`apply`.
        """
        self._EFFECTS[move.kind](self, move)
        self.moves.append(move)

    def apply_choice(self, move: Move, legal: Sequence[Move]) -> None:
        """Play ``move``, chosen from ``legal`` (:meth:`legal_moves` of this very position).

        The fast path of loops that hand ``legal`` to a policy and play its answer (search
        rollouts): a :class:`Move` equal to one of ``legal`` plays that element of
        ``legal`` unchecked (:meth:`apply_unchecked`), so what is applied and recorded is
        always the engine's own move; anything else goes through :meth:`apply` and is
        refused as it would be there.

        Raises:
            ArgumentTypeError, MalformedMoveError, IllegalMoveError: as :meth:`apply`, for
                a ``move`` that is not one of ``legal``.
        """
        # type() is Move: a subclass could answer == for anything
        if type(move) is Move:
            for m in legal:
                if m == move:
                    self.apply_unchecked(m)
                    return
        self.apply(move)

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
        self._draw(move)

    def _draw(self, move: Move) -> None:
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
        self.phase = _PLAY

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
        self._open(move)

    def _open(self, move: Move) -> None:
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
        self._lay_off(move)

    def _lay_off(self, move: Move) -> None:
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
        self._swap(move)

    def _swap(self, move: Move) -> None:
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
        self._discard(move)

    def _discard(self, move: Move) -> None:
        seat = self.current
        card = move.card
        # _remove, inline: every other move of random play is a discard
        self.hands[seat][card] -= 1
        self.hand_sizes[seat] -= 1
        known = self.known[seat]
        if known[card]:
            known[card] -= 1
        self.discard.append(card)
        self.discarded[seat][card] += 1
        self.history.append(PublicEvent(seat, "DISCARD", card, move))
        self.turn += 1
        if self.hand_sizes[seat] == 0:  # R10: the discard that empties the hand closes
            self._close_deal(seat)
        else:
            self.current = (seat + 1) % self.num_players
            self.phase = _DRAW
            if not self.stock:
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
    #: the effects of each kind of move, unchecked (:meth:`apply_unchecked`)
    _EFFECTS: dict[MoveKind, Callable[[Game, Move], None]] = {
        MoveKind.DRAW_STOCK: _draw,
        MoveKind.DRAW_DISCARD: _draw,
        MoveKind.OPEN: _open,
        MoveKind.LAY_OFF: _lay_off,
        MoveKind.SWAP: _swap,
        MoveKind.DISCARD: _discard,
    }
    _PLAY_MOVES: dict[MoveKind, Callable[[Game, Move], None]] = {
        MoveKind.OPEN: _do_open,
        MoveKind.LAY_OFF: _do_lay_off,
        MoveKind.SWAP: _do_swap,
        MoveKind.DISCARD: _do_discard,
    }

