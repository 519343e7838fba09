"""Observations of ``carioca_v0``: one flat float32 array of named pieces, seen from one seat.

:func:`encode_observation` computes everything from the seat's
:class:`~carioca_env.PlayerView` (and the melds of an opening it is choosing), so
nothing hidden from the seat can reach it; the environment's :class:`GameEncoder` reads
the game directly for speed and is tested equal to it on whole games.  Seats are
ordered relative to the observer: its own seat first, then the others in play order.
Card vectors have 53 entries in card-type order (``suit * 13 + rank - 1``, joker last).

The layout for ``n`` players (``ObsLayout(n).table()`` gives the offsets; a test checks
this table against the code):

===============  ===============  ==========================================================
piece            size             meaning
===============  ===============  ==========================================================
hand             53               own cards, count per type (0..2, jokers 0..4)
top_discard      53               one-hot of the top discard (zeros if the pile is empty)
discard_pile     53               count per type of the cards in the discard pile
unseen           53               copies of each type the seat has not seen (not in its
                                  hand, on the table or in the discard pile), 0..2 / 0..4
discarded_by     n x 53           per seat (self first), cards it discarded this deal
known_cards      (n-1) x 53       per opponent, cards it surely holds: taken from the
                                  discard pile and not shown since
melds            n x 3 x 49       per seat, per meld slot (in laying order): present,
                                  is_run, trio rank one-hot (13), run suit one-hot (4),
                                  run positions 1..14 held by naturals (14), run positions
                                  filled by jokers (14), trio naturals / 8, trio jokers / 4
opened           n                seat has laid its contract
hand_sizes       n                cards held / 13
totals           n                accumulated penalty / 100 (at most 100)
contract         7                one-hot of the deal's contract number
deal_index       1                position of the deal in the game / 7
dealer           n                one-hot of the dealer (relative seat)
stock_size       1                cards in the stock / 108
turn             1                turns played in this deal / 100 (at most 100)
phase            4                one-hot: draw, play, discard-only (after opening),
                                  choosing an opening
pending          53               cards of the opening melds chosen so far this turn
pending_melds    1                melds chosen so far / 3
===============  ===============  ==========================================================

Sizes: 2 players 741, 3 players 998, 4 players 1,255.

With ``features="planning"`` (an env option; the default ``"base"`` is the table above)
four pieces follow, computed from the same view by :mod:`carioca_env.planning`:

===============  ===============  ==========================================================
piece            size             meaning
===============  ===============  ==========================================================
plan_deficiency  1                exact deficiency of the hand / contract cards (0 once
                                  the seat has opened)
plan_used        53               card types some optimal plan of the hand uses (before
                                  opening)
plan_outs        53               card types whose draw lowers the deficiency (before
                                  opening)
plan_fits        53               card types a meld on the table takes now
===============  ===============  ==========================================================

Sizes with planning: 2 players 901, 3 players 1,158, 4 players 1,415.

With ``features="discards"`` the planning pieces and then three more follow:

===============  ===============  ==========================================================
piece            size             meaning
===============  ===============  ==========================================================
disc_deficiency  53               per card type held, the deficiency of the hand left by
                                  discarding one copy / contract cards (before opening)
disc_outs        53               per card type held, the live outs of that hand / 24, at
                                  most 1 (before opening)
top_gain         2                the top discard lowers the deficiency (before opening);
                                  it fits a table meld now
===============  ===============  ==========================================================

Sizes with discards: 2 players 1,009, 3 players 1,266, 4 players 1,523.

Upper layers may register more feature sets, each its parent's pieces plus its own
(:func:`register_feature_set`): the ``agents`` package registers ``"advice"`` and
``"advice_play"``, the heuristic's verdicts (their tables are in :mod:`carioca_agents.advice`).
The core never imports them; a model card records which advisor computed them.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata

import numpy as np

from carioca_env.cards import JOKER, NUM_CARD_TYPES, deck_counts
from carioca_env.game import Game
from carioca_env.melds import Meld, MeldKind
from carioca_env.planning import DISCARD_PIECES, PLANNING_PIECES, encode_discards, encode_planning
from carioca_env.view import Phase, PlayerView

MELD_SLOTS = 3
#: every observation value lies in [0, OBS_HIGH]
OBS_HIGH = 100.0
MELD_FEATURES = 49
NUM_CONTRACTS = 7

_PHASE_INDEX = {Phase.DRAW: 0, Phase.PLAY: 1, Phase.DISCARD: 2, Phase.GAME_OVER: 0}
_PLAY, _DISCARD = Phase.PLAY, Phase.DISCARD
_DECK = np.array(deck_counts(), dtype=np.float32)


#: the core's observation variants, each the one before it plus more pieces: the base
#: table; plus the planning piece; plus the discard piece (upper layers register more:
#: :func:`register_feature_set`, :func:`feature_sets`)
FEATURE_SETS = ("base", "planning", "discards")

#: ``(name, size, meaning)`` triples of a piece list
Pieces = tuple[tuple[str, int, str], ...]


@dataclass(frozen=True)
class ExtraPieces:
    """A feature set registered by an upper layer: the pieces of ``parent`` plus its own.

    Attributes:
        name: the feature set's name (``features=name``), a lowercase identifier.
        parent: the feature set it extends (a core one or one registered before).
        pieces: ``pieces(num_players)``: its own pieces, ``(name, size, meaning)`` in order.
        encode: ``encode(view, pending)``: its own values for the seat of ``view`` (with
            ``pending``, the opening melds chosen so far), a float32 array of the pieces'
            total size.  It must read the view only (the leak tests check every set).
        source: what computes the values, recorded on model cards so that a model
            trained on them can tell when they changed: for example ``{"advisor":
            "heuristic", "version": "1", "fingerprint": "..."}`` (strings only).
    """

    name: str
    parent: str
    pieces: Callable[[int], Pieces]
    encode: Callable[[PlayerView, Sequence[Meld]], np.ndarray]
    source: Mapping[str, str] = field(default_factory=dict)


_REGISTERED: dict[str, ExtraPieces] = {}


def register_feature_set(extra: ExtraPieces) -> None:
    """Make ``extra.name`` a feature set of the observation (for every env, encoder and
    layout built afterwards).  Registering the same name again replaces it only with the
    same parent and source (a module imported twice); anything else is refused.

    Raises:
        ValueError: a name that is not a lowercase identifier, a core name, a parent that
            is not a feature set, or another definition under a registered name.
    """
    name = extra.name
    if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
        raise ValueError(f"a feature set's name must be a lowercase identifier, got {name!r}")
    if name in FEATURE_SETS:
        raise ValueError(f"{name!r} is a core feature set; a registered one needs another name")
    if extra.parent not in FEATURE_SETS and extra.parent not in _REGISTERED:
        raise ValueError(f"feature set {name!r} extends {extra.parent!r}, which is not a feature set "
                         f"(known: {', '.join(feature_sets())})")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in extra.source.items()):
        raise ValueError(f"feature set {name!r}: its source must map strings to strings, got {dict(extra.source)!r}")
    old = _REGISTERED.get(name)
    if old == extra:
        return  # registered again, as it was: keep the layouts already built
    if old is not None and (old.parent, dict(old.source)) != (extra.parent, dict(extra.source)):
        raise ValueError(f"feature set {name!r} is already registered (parent {old.parent!r}, source "
                         f"{dict(old.source)!r}); refusing another definition under that name")
    _REGISTERED[name] = extra
    obs_layout.cache_clear()  # a replaced definition must not serve a stale layout


def feature_sets() -> tuple[str, ...]:
    """Every feature set known now: the core's (:data:`FEATURE_SETS`), then the registered
    ones in the order they were registered."""
    return FEATURE_SETS + tuple(_REGISTERED)


def registered_chain(features: str) -> list[ExtraPieces]:
    """The registered feature sets whose pieces ``features`` holds, outermost last
    (empty for a core feature set)."""
    chain = []
    name = check_features(features)
    while name in _REGISTERED:
        chain.append(_REGISTERED[name])
        name = _REGISTERED[name].parent
    return chain[::-1]


def core_features(features: str) -> str:
    """The core feature set under ``features`` (itself for a core one)."""
    chain = registered_chain(features)
    return chain[0].parent if chain else features


def has_pieces_of(features: str, variant: str) -> bool:
    """Whether the variant ``features`` holds the pieces of ``variant`` (each variant
    holds its parent's pieces; the core's are cumulative in the order of
    :data:`FEATURE_SETS`)."""
    if any(extra.name == variant for extra in registered_chain(features)):
        return True
    check_features(variant)
    return variant in FEATURE_SETS and FEATURE_SETS.index(core_features(features)) >= FEATURE_SETS.index(variant)


def feature_sources(features: str) -> dict[str, dict[str, str]]:
    """Per registered feature set in ``features``, what computes its values (its
    :attr:`ExtraPieces.source`); empty for a core feature set."""
    return {extra.name: dict(extra.source) for extra in registered_chain(features) if extra.source}


#: The entry-point group through which an installed package offers feature sets: an entry
#: point named like the feature set, whose object registers it when called (for example
#: ``advice = "carioca_agents.advice:register_advice"``).  The core reads the group, never
#: the package, so it still knows nothing of the layers above it.
FEATURE_SET_ENTRY_POINTS = "carioca_env.feature_sets"


def _register_from_entry_point(name: str) -> None:
    """Let the installed package that offers feature set ``name`` register it (nothing if
    none does, or if that package cannot be imported)."""
    for ep in metadata.entry_points(group=FEATURE_SET_ENTRY_POINTS):
        if ep.name == name:
            try:
                register = ep.load()
            except ImportError:
                return  # offered by a package that is not importable here: unknown, as before
            register()
            return


def check_features(features: object) -> str:
    """``features`` if it names an observation variant: a core one, a registered one, or
    one an installed package offers under :data:`FEATURE_SET_ENTRY_POINTS` (registered
    now, on first use).

    Raises:
        ValueError: naming what was given and the variants.
    """
    if isinstance(features, str) and features not in FEATURE_SETS and features not in _REGISTERED:
        _register_from_entry_point(features)
    if not isinstance(features, str) or (features not in FEATURE_SETS and features not in _REGISTERED):
        raise ValueError(f"features must be one of {', '.join(feature_sets())}, got {features!r} (feature sets "
                         f"beyond the core's exist once the package that defines them has registered them, "
                         f"through the entry-point group {FEATURE_SET_ENTRY_POINTS!r} or register_feature_set)")
    return features


class ObsLayout:
    """Named slices of the observation array for ``num_players`` seats (and a feature set)."""

    def __init__(self, num_players: int, features: str = "base") -> None:
        n = num_players
        self.num_players = n
        self.features = check_features(features)
        pieces: list[tuple[str, int, str]] = [
            ("hand", NUM_CARD_TYPES, "own cards, count per type"),
            ("top_discard", NUM_CARD_TYPES, "one-hot of the top discard"),
            ("discard_pile", NUM_CARD_TYPES, "count per type in the discard pile"),
            ("unseen", NUM_CARD_TYPES, "copies not seen by the seat"),
            ("discarded_by", n * NUM_CARD_TYPES, "per seat, cards discarded this deal"),
            ("known_cards", (n - 1) * NUM_CARD_TYPES, "per opponent, cards surely held"),
            ("melds", n * MELD_SLOTS * MELD_FEATURES, "per seat and meld slot, the meld"),
            ("opened", n, "seat has laid its contract"),
            ("hand_sizes", n, "cards held / 13"),
            ("totals", n, "accumulated penalty / 100"),
            ("contract", NUM_CONTRACTS, "one-hot contract number"),
            ("deal_index", 1, "deal position in the game / 7"),
            ("dealer", n, "one-hot relative dealer"),
            ("stock_size", 1, "stock / 108"),
            ("turn", 1, "turns this deal / 100"),
            ("phase", 4, "draw, play, discard-only, choosing an opening"),
            ("pending", NUM_CARD_TYPES, "cards of the opening melds chosen so far"),
            ("pending_melds", 1, "opening melds chosen so far / 3"),
        ]
        self.base_size = sum(size for _, size, _ in pieces)
        core = core_features(features)
        if core != "base":
            pieces += list(PLANNING_PIECES)
        if core == "discards":
            pieces += list(DISCARD_PIECES)
        for extra in registered_chain(features):
            pieces += list(extra.pieces(n))
        self.pieces = pieces
        self.slices: dict[str, slice] = {}
        start = 0
        for name, size, _ in pieces:
            self.slices[name] = slice(start, start + size)
            start += size
        self.size = start

    def table(self) -> list[tuple[str, int, int, str]]:
        """``(name, offset, size, meaning)`` for every piece, in order."""
        return [(name, self.slices[name].start, size, meaning) for name, size, meaning in self.pieces]


@cache
def obs_layout(num_players: int, features: str = "base") -> ObsLayout:
    """The (immutable, shared) layout for ``num_players`` seats and a feature set."""
    return ObsLayout(num_players, features)


def _encode_meld(out: np.ndarray | array[float], base: int, meld: Meld) -> None:
    out[base] = 1.0
    if meld.kind is MeldKind.TRIO:
        out[base + 2 + meld.key - 1] = 1.0
        jokers = meld.cards.count(JOKER)
        out[base + 47] = (len(meld.cards) - jokers) / 8.0
        out[base + 48] = jokers / 4.0
        return
    out[base + 1] = 1.0
    out[base + 15 + meld.key] = 1.0
    for i, c in enumerate(meld.cards):
        # positions 1..14 -> offsets 0..13 of the natural / joker blocks
        out[base + (33 if c == JOKER else 19) + meld.lo + i - 1] = 1.0


def encode_observation(view: PlayerView, pending: Sequence[Meld] = (), features: str = "base") -> np.ndarray:
    """The observation array of ``view``'s seat (``pending``: opening melds chosen so far;
    ``features`` other than ``"base"`` append the pieces of that feature set)."""
    features = check_features(features)
    if features != "base":
        core = core_features(features)
        parts = [encode_observation(view, pending)]
        if core != "base":
            parts.append(encode_planning(view))
        if core == "discards":
            parts.append(encode_discards(view))
        parts += [_extra_values(extra, view, pending) for extra in registered_chain(features)]
        return np.concatenate(parts)
    n = view.num_players
    layout = obs_layout(n)
    s = layout.slices
    out = np.zeros(layout.size, dtype=np.float32)
    seat = view.seat
    order = [(seat + k) % n for k in range(n)]

    hand = np.asarray(view.hand_counts, dtype=np.float32)
    out[s["hand"]] = hand
    if view.discard_pile:
        out[s["top_discard"].start + view.discard_pile[-1]] = 1.0
    pile = np.bincount(view.discard_pile, minlength=NUM_CARD_TYPES).astype(np.float32)
    out[s["discard_pile"]] = pile
    table_counts = np.zeros(NUM_CARD_TYPES, dtype=np.float32)
    for melds in view.table:
        for meld in melds:
            for c in meld.cards:
                table_counts[c] += 1.0
    out[s["unseen"]] = _DECK - hand - pile - table_counts
    out[s["discarded_by"]] = np.asarray([view.discarded[q] for q in order], dtype=np.float32).ravel()
    if n > 1:
        out[s["known_cards"]] = np.asarray(
            [view.known_cards[q] for q in order[1:]], dtype=np.float32
        ).ravel()
    mbase = s["melds"].start
    for k, q in enumerate(order):
        for j, meld in enumerate(view.table[q][:MELD_SLOTS]):
            _encode_meld(out, mbase + (k * MELD_SLOTS + j) * MELD_FEATURES, meld)
    for k, q in enumerate(order):
        out[s["opened"].start + k] = float(view.opened[q])
        out[s["hand_sizes"].start + k] = view.hand_sizes[q] / 13.0
        out[s["totals"].start + k] = min(view.totals[q] / 100.0, OBS_HIGH)
    out[s["contract"].start + view.deal - 1] = 1.0
    out[s["deal_index"].start] = view.deal_index / 7.0
    out[s["dealer"].start + (view.dealer - seat) % n] = 1.0
    out[s["stock_size"].start] = view.stock_size / 108.0
    out[s["turn"].start] = min(view.turn / 100.0, OBS_HIGH)
    phase = 3 if pending else _PHASE_INDEX[view.phase]
    out[s["phase"].start + phase] = 1.0
    if pending:
        p = s["pending"].start
        for meld in pending:
            for c in meld.cards:
                out[p + c] += 1.0
        out[s["pending_melds"].start] = len(pending) / 3.0
    return out


def _extra_values(extra: ExtraPieces, view: PlayerView, pending: Sequence[Meld]) -> np.ndarray:
    """``extra``'s values for ``view``, checked to be as long as its pieces say (a wrong
    length would shift every later piece without failing)."""
    values = np.asarray(extra.encode(view, pending), dtype=np.float32)
    size = sum(size for _, size, _ in extra.pieces(view.num_players))
    if values.shape != (size,):
        raise RuntimeError(f"feature set {extra.name!r} encoded shape {values.shape}; its pieces hold {size} values")
    return values


class _SeatCache:
    """What :class:`GameEncoder` last wrote for one observing seat, to rewrite only changes.

    The array lives in ``buf``, an ``array.array`` of float32, and ``out`` is a numpy view
    of the same memory: single values are written through ``buf`` (a Python float stored
    as float32, the cast numpy makes, at a fraction of the cost of a numpy scalar
    write), whole pieces through ``out``.
    """

    __slots__ = ("game", "buf", "out", "hand", "pile", "top", "discarded", "known", "table_version",
                 "table_counts", "base_buf", "base", "pending", "opened", "sizes", "totals", "deal_index",
                 "dealer", "phase", "history", "seen")

    def __init__(self, game: Game, size: int) -> None:
        n = game.num_players
        self.game = game  # the game itself, not its id: an id can be reused once collected
        self.buf = array("f", bytes(4 * size))
        self.out = np.frombuffer(self.buf, dtype=np.float32)  # a view of buf: one memory
        self.hand: list[int] | None = None
        self.pile: list[int] = []  # out's discard-pile counts are those of this list
        self.top = -1  # index of the top-discard one-hot set in out, if any
        self.pending = False  # whether out holds opening melds being chosen
        self.discarded: list[list[int] | None] = [None] * n
        self.known: list[list[int] | None] = [None] * n
        self.table_version = -1
        self.table_counts = np.zeros(NUM_CARD_TYPES, dtype=np.float32)
        #: the deck less the pile and the table: ``unseen`` is this less the hand (a
        #: float32 array.array and its numpy view, like buf and out)
        self.base_buf = array("f", _DECK.tobytes())
        self.base = np.frombuffer(self.base_buf, dtype=np.float32)
        # the tail pieces as last written (None / -1: not yet)
        self.opened: list[bool] | None = None
        self.sizes: list[int] | None = None
        self.totals: list[int] | None = None
        self.deal_index = -1
        self.dealer = -1
        self.phase = -1  # index of the phase one-hot set in out, if any
        # the deal's public history and how many of its events out reflects
        self.history: list | None = None
        self.seen = 0

    def __getstate__(self) -> dict[str, object]:
        """The state without the numpy views (a copy would part them from the buffers)."""
        return {name: getattr(self, name) for name in self.__slots__ if name not in ("out", "base")}

    def __setstate__(self, state: dict[str, object]) -> None:
        """Restore a pickled or deep-copied cache, the views made again over its own buffers."""
        for name, value in state.items():
            setattr(self, name, value)
        self.out = np.frombuffer(self.buf, dtype=np.float32)
        self.base = np.frombuffer(self.base_buf, dtype=np.float32)


#: pile changes beyond this many cards (a recycled stock, a new deal) are recounted
_PILE_STEPS = 4


class GameEncoder:
    """The environment's fast path: the same array as :func:`encode_observation`, read from a game.

    :func:`encode_observation` builds everything from a :class:`PlayerView` and stays the
    reference: the tests compare the two, byte for byte, on every step of many games of
    every deal, phase and player count, so this encoder cannot show a seat more than its
    view holds.  It skips building the view (copies of every public list) and keeps, per
    observing seat, the array it returned last time, rewriting only what changed:
    card-count pieces when their source list changed (a list comparison costs far less
    than a conversion), the hand, the discarded-by pieces and the discard pile card by
    card from the public events, the melds only when ``Game.table_version`` moved, and
    the scalar pieces one value at a time (through an ``array.array`` that shares the
    array's memory: a numpy scalar write costs several times more).
    """

    def __init__(self, num_players: int, features: str = "base") -> None:
        layout = obs_layout(num_players)
        self.features = check_features(features)
        self._core = core_features(features)
        self._extras = registered_chain(features)
        # per seat: (game, key, piece) of the last planning / discard piece computed
        self._planning: list[tuple[Game, tuple, np.ndarray] | None] = [None] * num_players
        self._discards: list[tuple[Game, tuple, np.ndarray] | None] = [None] * num_players
        self.num_players = num_players
        self.layout = layout
        s = layout.slices
        self._off = {name: sl.start for name, sl in s.items()}
        self._hand = s["hand"]
        self._top = s["top_discard"]
        self._pile = s["discard_pile"]
        self._unseen = s["unseen"]
        self._melds = s["melds"]
        self._opened = s["opened"]
        self._sizes = s["hand_sizes"]
        self._totals = s["totals"]
        self._pending = slice(s["pending"].start, s["pending_melds"].stop)
        if self._pending.stop != layout.size:
            raise RuntimeError("GameEncoder expects pending, pending_melds, to end the layout")
        self._caches: list[_SeatCache | None] = [None] * num_players
        self._orders = [[(seat + k) % num_players for k in range(num_players)] for seat in range(num_players)]
        self._plain = self._core == "base" and not self._extras
        # the offsets of every step's writes as plain ints (a slice's .start or a dict
        # lookup, at each of them, adds up on a path that runs at every step)
        off = self._off
        self._h0, self._top0, self._p0, self._u0 = off["hand"], off["top_discard"], off["discard_pile"], off["unseen"]
        self._stock0, self._turn0, self._phase0 = off["stock_size"], off["turn"], off["phase"]
        # per observing seat, per relative seat k: (seat q, offset of q's discarded-by
        # piece, offset of q's known-cards piece or -1 for the observer itself)
        d0, k0 = off["discarded_by"], off["known_cards"] - NUM_CARD_TYPES
        self._looks = [tuple((q, d0 + k * NUM_CARD_TYPES, k0 + k * NUM_CARD_TYPES if k else -1)
                             for k, q in enumerate(order)) for order in self._orders]

    def _write_melds(self, game: Game, seat: int, cache: _SeatCache) -> None:
        n = self.num_players
        out = cache.out
        out[self._melds] = 0.0
        counts = [0] * NUM_CARD_TYPES
        base = self._melds.start
        for k in range(n):
            for j, meld in enumerate(game.table[(seat + k) % n]):
                if j < MELD_SLOTS:
                    _encode_meld(cache.buf, base + (k * MELD_SLOTS + j) * MELD_FEATURES, meld)  # type: ignore[arg-type]
                for c in meld.cards:
                    counts[c] += 1
        cache.table_counts = np.array(counts, dtype=np.float32)
        cache.table_version = game.table_version

    def _write_pile(self, pile: list[int], cache: _SeatCache) -> bool:
        """Bring out's discard-pile counts (and ``cache.base`` and unseen) to ``pile``;
        whether the whole pile was recounted (``base`` and unseen then need recomputing)."""
        old = cache.pile
        buf, p = cache.buf, self._pile.start
        # piles change at the top: find where the two part, a few cards down at most
        k = min(len(old), len(pile))
        low = max(0, k - _PILE_STEPS)
        while k > low and old[k - 1] != pile[k - 1]:
            k -= 1
        if len(old) - k + len(pile) - k <= _PILE_STEPS and old[:k] == pile[:k]:
            base, u = cache.base_buf, self._unseen.start
            for c in old[k:]:
                buf[p + c] -= 1.0
                base[c] += 1.0
                buf[u + c] += 1.0
            for c in pile[k:]:
                buf[p + c] += 1.0
                base[c] -= 1.0
                buf[u + c] -= 1.0
            cache.pile = pile.copy()
            return False
        cache.out[self._pile] = np.bincount(pile, minlength=NUM_CARD_TYPES) if pile else 0.0
        cache.pile = pile.copy()
        return True

    def encode(self, game: Game, seat: int, pending: Sequence[Meld] = ()) -> np.ndarray:
        """The observation array of ``seat`` in ``game`` (``pending``: opening melds chosen so far)."""
        cache = self._caches[seat]
        if cache is None or cache.game is not game:
            cache = self._caches[seat] = _SeatCache(game, self.layout.size)
        buf, out = cache.buf, cache.out
        # unseen = deck - pile - table (cache.base) - hand: kept value by value as the
        # pile and the hand move card by card, recomputed when anything was recounted
        recount = False
        if game.table_version != cache.table_version:
            self._write_melds(game, seat, cache)
            recount = True
        if recount:
            self._recount_base(cache)
        self._follow_events(game, seat, cache, recount)
        pile = game.discard
        if pile != cache.pile:  # a change the events did not tell (a recycled stock, a new deal)
            if self._write_pile(pile, cache):
                self._recount_base(cache)
                recount = True
        top = self._top0 + pile[-1] if pile else -1
        if top != cache.top:
            if cache.top >= 0:
                buf[cache.top] = 0.0
            if top >= 0:
                buf[top] = 1.0
            cache.top = top
        hand = game.hands[seat]
        if hand != cache.hand:  # a change the events did not tell (a new deal, an opening)
            out[self._hand] = hand
            cache.hand = hand.copy()
            recount = True
        if recount:
            np.subtract(cache.base, out[self._hand], out=out[self._unseen])
        discarded, known = game.discarded, game.known
        seen_d, seen_k = cache.discarded, cache.known
        for q, d0, k0 in self._looks[seat]:
            d = discarded[q]
            if d != seen_d[q]:  # what the events did not tell (a new deal)
                out[d0:d0 + NUM_CARD_TYPES] = d
                seen_d[q] = d.copy()
            if k0 >= 0:  # an opponent: its known cards
                kn = known[q]
                if kn != seen_k[q]:
                    out[k0:k0 + NUM_CARD_TYPES] = kn
                    seen_k[q] = kn.copy()
        self._write_tail(game, seat, pending, cache)
        if pending or cache.pending:
            off = self._off
            out[self._pending] = 0.0
            p = off["pending"]
            for meld in pending:
                for c in meld.cards:
                    buf[p + c] += 1.0
            buf[off["pending_melds"]] = len(pending) / 3.0
            cache.pending = bool(pending)
        if self._plain:
            return out.copy()
        parts = [out.copy()]
        if self._core != "base":
            parts.append(self._plan(game, seat))
        if self._core == "discards":
            parts.append(self._disc(game, seat, out))
        if self._extras:
            # not cached: a registered piece may read anything in the view
            view = game.view(seat)
            parts += [_extra_values(extra, view, pending) for extra in self._extras]
        return np.concatenate(parts)

    def _recount_base(self, cache: _SeatCache) -> None:
        """``cache.base`` (the deck less the pile and the table, what unseen is the hand
        short of) recomputed from the pile counts in ``cache.out`` and the table's."""
        np.subtract(_DECK, cache.out[self._pile], out=cache.base)
        cache.base -= cache.table_counts

    def _follow_events(self, game: Game, seat: int, cache: _SeatCache, recount: bool) -> None:
        """Apply the public events since the seat's last look to its hand, the
        discarded-by pieces and the discard pile card by card, with ``cache.hand``,
        ``cache.discarded`` and ``cache.pile`` (the lists those pieces now show) moved
        alike, and ``cache.base``; unseen too unless ``recount`` (then it is
        recomputed).  The caller compares those lists with the game's and rewrites a
        piece whole where they differ, so an event read wrongly costs time, never
        correctness.  A seat's stock draw shows no card: the game's ``drawn_card`` is
        the card of the latest draw."""
        history = game.history
        seen, size = cache.seen, len(history)
        if seen == size and cache.history is history:  # nothing happened since
            return
        if cache.history is not history or seen > size:  # a new deal: rewritten whole
            cache.history, cache.seen = history, size
            return
        cache.seen = size
        buf, hand, pile, base = cache.buf, cache.hand, cache.pile, cache.base_buf
        h0, u0, p0 = self._h0, self._u0, self._p0
        d0, n = self._off["discarded_by"], self.num_players
        for i in range(seen, size):
            ev = history[i]
            kind, card = ev.kind, ev.card
            if kind == "DISCARD":
                q = ev.seat
                discarded = cache.discarded[q]
                if discarded is not None:
                    discarded[card] += 1
                    buf[d0 + ((q - seat) % n) * NUM_CARD_TYPES + card] += 1.0
                # onto the pile: out's pile counts, base and unseen follow cache.pile
                pile.append(card)
                buf[p0 + card] += 1.0
                base[card] -= 1.0
                if not recount:
                    buf[u0 + card] -= 1.0
                delta = -1
            elif kind == "LAY_OFF" or kind == "SWAP":
                delta = -1
            elif kind == "DRAW_DISCARD":
                if pile and pile[-1] == card:  # else the caller's pile check recounts
                    pile.pop()
                    buf[p0 + card] -= 1.0
                    base[card] += 1.0
                    if not recount:
                        buf[u0 + card] += 1.0
                delta = 1
            elif kind == "DRAW_STOCK":
                card, delta = game.drawn_card, 1
            else:  # an opening, a recycled stock: the hand check rewrites what changed
                continue
            if ev.seat != seat or hand is None or not 0 <= card < NUM_CARD_TYPES:
                continue
            hand[card] += delta
            buf[h0 + card] += delta
            if not recount:
                buf[u0 + card] -= delta

    def _write_tail(self, game: Game, seat: int, pending: Sequence[Meld], cache: _SeatCache) -> None:
        """The pieces ``opened`` .. ``phase``: each list piece when its source list
        changed, the scalars one value each (a few scalar writes cost less than
        building and converting the whole tail)."""
        buf, off, order = cache.buf, self._off, self._orders[seat]
        opened, sizes, totals = game.opened, game.hand_sizes, game.totals
        if opened != cache.opened:
            o0 = self._opened.start
            for k, q in enumerate(order):
                buf[o0 + k] = 1.0 if opened[q] else 0.0
            cache.opened = opened.copy()
        if sizes != cache.sizes:
            s0 = self._sizes.start
            for k, q in enumerate(order):
                buf[s0 + k] = sizes[q] / 13.0
            cache.sizes = sizes.copy()
        if totals != cache.totals:
            t0 = self._totals.start
            for k, q in enumerate(order):
                buf[t0 + k] = min(totals[q] / 100.0, OBS_HIGH)
            cache.totals = totals.copy()
        if game.deal_index != cache.deal_index or game.dealer != cache.dealer:
            # the contract follows from the deal's index (the game's deals are fixed)
            c0, r0, n = off["contract"], off["dealer"], self.num_players
            out = cache.out
            out[c0:c0 + NUM_CONTRACTS] = 0.0
            buf[c0 + game.deal_number - 1] = 1.0
            buf[off["deal_index"]] = game.deal_index / 7.0
            out[r0:r0 + n] = 0.0
            buf[r0 + (game.dealer - seat) % n] = 1.0
            cache.deal_index, cache.dealer = game.deal_index, game.dealer
        buf[self._stock0] = len(game.stock) / 108.0
        buf[self._turn0] = min(game.turn / 100.0, OBS_HIGH)
        ph = game.phase
        # _PHASE_INDEX by identity: a dict lookup would hash the Phase (Python code)
        phase = self._phase0 + (3 if pending else 1 if ph is _PLAY else 2 if ph is _DISCARD else 0)
        if phase != cache.phase:
            if cache.phase >= 0:
                buf[cache.phase] = 0.0
            buf[phase] = 1.0
            cache.phase = phase

    @staticmethod
    def _cached(store: list, game: Game, seat: int, key: tuple, encode: Callable[[PlayerView], np.ndarray]) -> np.ndarray:
        """``store[seat]``'s piece if it was computed for this game and ``key``, else
        ``encode(game.view(seat))``, kept there."""
        cached = store[seat]
        if cached is not None and cached[0] is game and cached[1] == key:
            return cached[2]
        piece = encode(game.view(seat))
        store[seat] = (game, key, piece)
        return piece

    def _plan(self, game: Game, seat: int) -> np.ndarray:
        """The planning piece, recomputed only when what it reads changed (the hand, the
        deal, whether the seat opened, the table)."""
        key = (game.deal_index, game.deal_number, game.opened[seat], game.table_version, tuple(game.hands[seat]))
        return self._cached(self._planning, game, seat, key, encode_planning)

    def _disc(self, game: Game, seat: int, out: np.ndarray) -> np.ndarray:
        """The discard piece, recomputed only when what it reads changed (the hand, the
        deal, whether the seat opened, the top discard, the table, and the unseen counts
        just encoded in ``out``)."""
        key = (game.deal_index, game.deal_number, game.opened[seat], tuple(game.hands[seat]),
               game.top_discard, game.table_version, out[self._unseen].tobytes())
        return self._cached(self._discards, game, seat, key, encode_discards)
