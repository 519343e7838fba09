"""Carioca as an OpenSpiel game: ``pyspiel.load_game("python_carioca", {...})``.

Importing this module registers the game with OpenSpiel (``pip install
"carioca-env[openspiel]"``); it is built on the engine (:class:`~carioca_env.Game`,
through :class:`~carioca_env.action_state.CariocaState`), so the rules are the engine's
and the actions are ``carioca_v0``'s.  Everything OpenSpiel offers a game written in
Python then reaches Carioca: ``pyspiel.random_sim_test``, the Python bots (IS-MCTS,
MCTS), ``rl_environment`` and its RL agents, observations.

Parameters (OpenSpiel parameters are ints, floats, bools and strings):

================  ===========  ==========================================================
parameter         default      meaning
================  ===========  ==========================================================
players           2            2, 3 or 4 seats
deals             1234567      the contracts played, one digit each, in order: ``3``
                               plays contract 3 alone, ``147`` contracts 1, 4 and 7 (an
                               int: OpenSpiel's game strings split a value at commas and
                               read a string of digits back as an int, so ``"1,2"`` or
                               ``"3"`` would not survive ``str(game)``)
max_turns         1000         turns a deal may last before it is cut off (R17; the env's
                               :data:`~carioca_env.game_config.MAX_TURNS`); a cut ends the
                               game
score_truncated   False        a cut deal is scored by the cards in every hand (what
                               tournaments and search rollouts do); by default it is not
                               scored, as the env reports a truncation (R17)
================  ===========  ==========================================================

The states:

- **Chance nodes.**  The first dealer by lot (R2: outcome ``s`` is seat ``s``, each
  ``1/n``); every deal card by card, in the engine's dealing order (round the table from
  the seat after the dealer, then the upcard), each outcome a card type with its
  remaining count over the cards left; and every stock draw: the player's ``draw stock``
  action is followed by a chance node whose outcomes are the card types in the stock,
  each with its count over the stock's size.  The stock's order is therefore never
  used: it is a multiset, recycled from the discards as R13 says (the engine does it),
  and a deal cancelled for an empty stock (R13) is dealt again by chance nodes, as is
  each next deal.
- **Decisions.**  Action ids are ``carioca_v0``'s (:func:`carioca_env.actions.action_table`):
  ``legal_actions()`` is the env's mask, an opening is chosen one meld per action, and
  ``action_to_string`` writes the engine's notation (``draw stock``, ``discard 8S``,
  ``lay 8S 1.0 high`` with absolute seats, ``meld 8C 8D JK`` for an opening step).
- **Utility.**  Zero-sum, terminal: the game's return to seat ``i`` is the mean of the
  other seats' totals minus its own (with two players, the opponent's total minus one's
  own).  The lowest total wins (R15), so what a seat plays for is its total relative to
  the others, not its total alone: a deal in which everyone scores 100 changes nothing.
  Relative totals make the game zero-sum, which OpenSpiel's two-player algorithms
  (exploitability, CFR, NFSP, PSRO) assume, and the scale stays in points.  The rewards
  are terminal because OpenSpiel's RL loop (``rl_environment`` and its agents) hands a
  seat only the rewards of the steps at which it acts; the env keeps the per-deal
  signal (``reward="penalty"``).  A cut deal (``max_turns``) ends the game with the
  totals so far (or scored by the hands with ``score_truncated``).
- **What a seat knows.**  The information state of seat ``p`` is its
  :class:`~carioca_env.PlayerView` (its hand, the table, the discard pile, hand sizes,
  the cards others surely hold, the public history of the deal, earlier deals'
  results and the totals) plus the opening melds it is choosing; the observation is the
  same without the history.  Both tensors are the env's observation
  (:mod:`carioca_env.observation`).  The information state forgets two things a
  perfect-recall one keeps: which of the seat's stock draws brought which card (the
  cards themselves are in its hand or, once shown, in the public history) and the
  course of earlier deals beyond their results; neither changes where the unseen cards
  can be.  Other seats' opening melds being chosen are not shown (nothing reaches the
  table until the opening is complete, R6).
- ``resample_from_infostate(p, sampler)`` deals the cards ``p`` has not seen anew
  (:func:`carioca_env.determinize.determinize`, seeded from ``sampler``), so
  ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` searches from ``p``'s view only.
- ``clone()`` copies the engine game (:meth:`Game.clone`); serialization pickles the
  state (OpenSpiel's way for Python games), so a deserialized state, chance outcomes
  and all, plays on exactly as the original.

An agent that holds only a seat's view (never the true game) builds a state with
:func:`state_from_view` and asks a bot for a whole engine move with :func:`bot_move`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from carioca_env.action_state import CariocaState
from carioca_env.actions import action_table
from carioca_env.cards import (
    DECK_SIZE,
    NUM_CARD_TYPES,
    PENALTY,
    card_str,
    cards_of,
    cards_str,
    deck_counts,
    full_deck,
    hand_penalty,
)
from carioca_env.determinize import determinize, determinize_view
from carioca_env.errors import InvalidArgumentError, InvalidConfigError, described
from carioca_env.extras import MissingExtraError, install_hint
from carioca_env.game import Game
from carioca_env.game_config import MAX_TURNS, GameConfig
from carioca_env.melds import Meld
from carioca_env.moves import Move
from carioca_env.observation import NUM_CONTRACTS, obs_layout
from carioca_env.openings import CONTRACTS
from carioca_env.position import Position, game_from_position
from carioca_env.view import DealResult, Phase, PlayerView

try:
    import pyspiel
except ModuleNotFoundError as exc:  # an optional extra: say what installs it
    raise MissingExtraError(
        f"carioca_env.openspiel_game needs OpenSpiel (pyspiel is not installed): {install_hint('openspiel')}"
    ) from exc

__all__ = ["GAME_NAME", "DEFAULT_PARAMS", "Settings", "CariocaGame", "CariocaSpielState", "CariocaObserver",
           "settings_from_params", "state_from_view", "bot_move"]

#: the name ``pyspiel.load_game`` knows the game by
GAME_NAME = "python_carioca"
#: every parameter at its default (the env's defaults)
DEFAULT_PARAMS: dict[str, int | bool] = {"players": 2, "deals": 1234567, "max_turns": MAX_TURNS, "score_truncated": False}

# the stages of a state; the engine game exists from the end of the first deal's chance nodes
_LOT, _DEAL, _STOCK, _PLAY, _OVER = range(5)


@dataclass(frozen=True)
class Settings:
    """The checked parameters of a game.

    Attributes:
        config: the engine's rule options (players, deals).
        max_turns: turns a deal may last before it is cut off (R17).
        score_truncated: whether a cut deal is scored by the cards in hand.
    """

    config: GameConfig
    max_turns: int
    score_truncated: bool

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.config.num_players

    @property
    def worst_total(self) -> int:
        """The largest total a seat can end with: per deal, the ``hand_size`` costliest
        cards of the deck (a non-closer never holds more than it was dealt after its
        discard, and a cut comes after a discard)."""
        costs = sorted((PENALTY[c] for c in full_deck()), reverse=True)
        return sum(sum(costs[:CONTRACTS[d].hand_size]) for d in self.config.deals)

    @property
    def max_game_length(self) -> int:
        """Most decisions a game can take: per turn a draw, at most ``hand_size`` melding
        steps (each lays a card, one card stays) and a discard; ``max_turns`` turns per deal.
        A deal cancelled for an empty stock (R13) starts its turns again; no bound covers
        an unlimited run of those, which random play does not meet."""
        return sum(self.max_turns * (CONTRACTS[d].hand_size + 2) for d in self.config.deals)


def settings_from_params(params: dict[str, Any]) -> Settings:
    """The :class:`Settings` of OpenSpiel parameters (missing ones at their defaults).

    Raises:
        InvalidConfigError: an unknown parameter, a value of the wrong type, or values
            that make no game (naming the parameter and what is allowed).
    """
    unknown = sorted(set(params) - set(DEFAULT_PARAMS))
    if unknown:
        raise InvalidConfigError(f"{GAME_NAME} has no parameter {', '.join(unknown)}; its parameters: "
                                 f"{', '.join(DEFAULT_PARAMS)}")
    p = {**DEFAULT_PARAMS, **params}
    for name in ("players", "deals", "max_turns"):
        if isinstance(p[name], bool) or not isinstance(p[name], int):
            raise InvalidConfigError(f"{GAME_NAME} parameter {name} must be an int, got {described(p[name])}")
    if not isinstance(p["score_truncated"], bool):
        raise InvalidConfigError(f"{GAME_NAME} parameter score_truncated must be a bool, got {described(p['score_truncated'])}")
    digits = str(p["deals"])
    if p["deals"] <= 0 or any(d not in "1234567" for d in digits):
        raise InvalidConfigError(f"{GAME_NAME} parameter deals lists the contracts one digit each (1..7), "
                                 f"e.g. 1234567 or 3, got {p['deals']!r}")
    if p["max_turns"] < 1:
        raise InvalidConfigError(f"{GAME_NAME} parameter max_turns must be at least 1 (OpenSpiel needs a finite "
                                 f"game), got {p['max_turns']!r}")
    config = GameConfig(num_players=p["players"], deals=tuple(int(d) for d in digits))
    return Settings(config, p["max_turns"], p["score_truncated"])


GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Argentine Carioca",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(DEFAULT_PARAMS),
)


def _game_info(settings: Settings) -> pyspiel.GameInfo:
    worst = float(settings.worst_total)
    return pyspiel.GameInfo(
        num_distinct_actions=action_table(settings.num_players).size,
        max_chance_outcomes=NUM_CARD_TYPES,  # a card type (the dealer lot uses seats 0..n-1)
        num_players=settings.num_players,
        min_utility=-worst,
        max_utility=worst,
        utility_sum=0.0,
        max_game_length=settings.max_game_length,
    )


class CariocaGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring); ``pyspiel.load_game(GAME_NAME, params)`` builds it."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        settings = settings_from_params(dict(params or {}))
        super().__init__(GAME_TYPE, _game_info(settings), {**DEFAULT_PARAMS, **(params or {})})
        self.settings = settings

    def new_initial_state(self) -> CariocaSpielState:
        """The state before the first dealer is drawn."""
        return CariocaSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> CariocaObserver:
        """An observer of one seat's view (information state with ``perfect_recall=True``)."""
        return CariocaObserver(self.settings, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Core:
    """Everything a state holds, in one object: OpenSpiel clones a Python state by
    deep-copying its attributes and serializes it by pickling them, so this one object
    copies itself with :meth:`Game.clone` and pickles without the (rebuilt) encoder."""

    def __init__(self, settings: Settings) -> None:
        n = settings.num_players
        self.settings = settings
        self.table = action_table(n)
        self.stage = _LOT
        self.cs: CariocaState | None = None  # the engine game and the opening being chosen
        # the public frame of the deal being dealt (the engine game keeps it once dealt)
        self.dealer = -1
        self.deal_index = 0
        self.totals: tuple[int, ...] = (0,) * n
        self.results: tuple[DealResult, ...] = ()
        self.dealt: list[int] = []  # this deal's cards so far, in dealing order
        self.pool: list[int] = deck_counts()  # card types not dealt yet
        self.deals_seen = 0  # the engine's deal results already turned into chance nodes
        self.cut_at = settings.max_turns  # the deal is cut once this many turns are played
        self.truncated = False

    # ------------------------------------------------------------------ copies

    def copy(self) -> _Core:
        """An independent copy (the engine game cloned, the rest flat copies)."""
        new = object.__new__(_Core)
        d = self.__dict__.copy()
        d["dealt"] = self.dealt.copy()
        d["pool"] = self.pool.copy()
        if self.cs is not None:
            d["cs"] = _carioca_state(self.cs.game.clone(), self.cs.pending)
        new.__dict__ = d
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        # OpenSpiel's Clone of a Python state deep-copies each attribute: the fast copy
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        del d["table"]  # shared per player count: rebuilt, not pickled
        cs = d.pop("cs")
        d["game"], d["pending"] = (None, []) if cs is None else (cs.game, list(cs.pending))
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = dict(d)
        game, pending = d.pop("game"), d.pop("pending")
        self.__dict__.update(d)
        self.table = action_table(self.settings.num_players)
        self.cs = None if game is None else _carioca_state(game, pending)

    # ------------------------------------------------------------------ flow

    def live(self) -> CariocaState:
        """The engine game and the opening being chosen (only once a deal is dealt)."""
        if self.cs is None:
            raise InvalidArgumentError("no deal is on the table yet: the state is drawing the dealer or dealing")
        return self.cs

    @property
    def game(self) -> Game:
        """The engine game (only once a deal is dealt)."""
        return self.live().game

    def hand_size(self) -> int:
        """Cards each seat receives in the deal being dealt."""
        return CONTRACTS[self.settings.config.deals[self.deal_index]].hand_size

    def deal_slots(self) -> int:
        """Chance nodes of a deal: every seat's cards and the upcard."""
        return self.settings.num_players * self.hand_size() + 1

    def slot_seat(self, slot: int) -> int:
        """The seat a deal slot goes to (R2: round the table from the seat after the
        dealer, as the engine deals), or -1 for the upcard."""
        n = self.settings.num_players
        if slot >= n * self.hand_size():
            return -1
        return (self.dealer + 1 + slot % n) % n

    def start_deal(self) -> None:
        """Begin the chance nodes of a deal (the dealer, deal index and totals are set)."""
        self.stage = _DEAL
        self.cs = None
        self.dealt = []
        self.pool = deck_counts()

    def finish_deal(self) -> None:
        """Set the engine game up with the dealt cards (the stock is the rest, in no
        order that matters: each stock draw is a chance node)."""
        n = self.settings.num_players
        hands: list[list[int]] = [[] for _ in range(n)]
        for slot, card in enumerate(self.dealt[:-1]):
            hands[self.slot_seat(slot)].append(card)
        position = Position(
            hands=tuple(tuple(h) for h in hands),
            table=((),) * n,
            stock=tuple(cards_of(self.pool)),
            discard=(self.dealt[-1],),
            dealer=self.dealer,
            current=(self.dealer + 1) % n,
            phase=Phase.DRAW,
            deals=self.settings.config.deals,
            deal_index=self.deal_index,
            totals=self.totals,
            deal_results=self.results,
        )
        # the engine's generator only shuffles recycled stocks, whose order is never used
        game = game_from_position(position, seed=0)
        self.cs = _carioca_state(game, [])
        self.deals_seen = len(game.deal_results)
        self.cut_at = self.settings.max_turns
        self.stage = _PLAY

    def after_move(self) -> None:
        """Follow the engine after a move: a deal that ended (closed, or cancelled for an
        empty stock, R13) is followed by the chance nodes of the next deal (the engine has
        dealt it from its own generator: that deal is replaced); a deal that reached its
        turn cap ends the game (R17)."""
        game = self.game
        if len(game.deal_results) > self.deals_seen:
            self.deals_seen = len(game.deal_results)
            if game.game_over:
                self.stage = _OVER
                return
            self.dealer, self.deal_index = game.dealer, game.deal_index
            self.totals, self.results = tuple(game.totals), tuple(game.deal_results)
            self.start_deal()
        elif game.turn >= self.cut_at:
            self.truncated = True
            self.stage = _OVER

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the chance node and their probabilities, by outcome."""
        if self.stage == _LOT:
            n = self.settings.num_players
            return [(s, 1.0 / n) for s in range(n)]
        if self.stage == _DEAL:
            left = DECK_SIZE - len(self.dealt)
            return [(c, k / left) for c, k in enumerate(self.pool) if k]
        if self.stage == _STOCK:
            stock = self.game.stock
            counts = Counter(stock)
            return [(c, counts[c] / len(stock)) for c in sorted(counts)]
        raise InvalidArgumentError("chance outcomes asked of a state that is not a chance node")

    def apply_chance(self, outcome: int) -> None:
        """Play a chance outcome (checked: an impossible one raises InvalidArgumentError)."""
        if self.stage == _LOT:
            if not 0 <= outcome < self.settings.num_players:
                raise InvalidArgumentError(f"the dealer lot's outcomes are seats 0..{self.settings.num_players - 1}, got {outcome}")
            self.dealer = outcome
            self.start_deal()
        elif self.stage == _DEAL:
            if not 0 <= outcome < NUM_CARD_TYPES or not self.pool[outcome]:
                raise InvalidArgumentError(f"chance outcome {outcome} is no card left to deal")
            self.dealt.append(outcome)
            self.pool[outcome] -= 1
            if len(self.dealt) == self.deal_slots():
                self.finish_deal()
        else:  # a stock draw: put a copy of the drawn card on top, then the engine draws it
            stock = self.game.stock
            if outcome not in stock:
                raise InvalidArgumentError(f"chance outcome {outcome} is no card of the stock")
            i = len(stock) - 1 - stock[::-1].index(outcome)
            stock[i], stock[-1] = stock[-1], stock[i]
            self.stage = _PLAY
            self.live().step(self.table.draw_stock())

    def apply_decision(self, action: int) -> None:
        """Play an action id of the seat to act (checked against the mask)."""
        cs = self.cs
        if cs is None or self.stage != _PLAY:
            raise InvalidArgumentError(f"action {action} played where no seat is to act")
        if action == self.table.draw_stock() and cs.is_legal(action):
            self.stage = _STOCK  # the card is chance's to choose
            return
        cs.step(action)  # IllegalActionError / ActionRangeError for what the mask does not offer
        self.after_move()

    def returns(self) -> list[float]:
        """Per seat, the others' mean total minus its own once the game is over; zeros before."""
        n = self.settings.num_players
        if self.stage != _OVER:
            return [0.0] * n
        game = self.game
        totals = list(game.totals)
        if self.truncated and self.settings.score_truncated:
            totals = [t + hand_penalty(game.hands[s]) for s, t in enumerate(totals)]
        whole = sum(totals)
        return [float((whole - t) / (n - 1) - t) for t in totals]

    # ------------------------------------------------------------------ what a seat sees

    def tensor(self, seat: int) -> np.ndarray:
        """The env's observation of ``seat`` (before a deal is complete: its cards so far,
        the unseen count, totals, contract, deal position and dealer; zeros before the lot)."""
        if self.cs is not None:
            return self.cs.observe(seat)
        n = self.settings.num_players
        layout = obs_layout(n)
        out = np.zeros(layout.size, dtype=np.float32)
        if self.stage == _DEAL:
            s = layout.slices
            hand = np.zeros(NUM_CARD_TYPES, dtype=np.float32)
            for slot, card in enumerate(self.dealt):
                if self.slot_seat(slot) == seat:
                    hand[card] += 1.0
            out[s["hand"]] = hand
            out[s["unseen"]] = np.asarray(deck_counts(), dtype=np.float32) - hand
            out[s["totals"]] = [min(self.totals[(seat + k) % n] / 100.0, 100.0) for k in range(n)]
            contract = self.settings.config.deals[self.deal_index]
            out[s["contract"].start + contract - 1] = 1.0
            out[s["deal_index"]] = self.deal_index / NUM_CONTRACTS
            out[s["dealer"].start + (self.dealer - seat) % n] = 1.0
        return out

    def text(self, seat: int, history: bool) -> str:
        """What ``seat`` knows, as text: with the deal's public history (the information
        state) or without (the observation)."""
        n = self.settings.num_players
        if self.stage == _LOT:
            return f"seat {seat} of {n}: the first dealer is being drawn"
        if self.stage == _DEAL:
            mine = [c for slot, c in enumerate(self.dealt) if self.slot_seat(slot) == seat]
            return (f"seat {seat} of {n}: dealing deal {self.deal_index + 1} of {len(self.settings.config.deals)} "
                    f"(contract {self.settings.config.deals[self.deal_index]}), dealer {self.dealer}, "
                    f"{len(self.dealt)} of {self.deal_slots()} cards dealt\nyour cards {cards_str(sorted(mine))}\n"
                    f"totals {list(self.totals)}\n{_results_text(self.results)}")
        cs = self.live()
        view = cs.game.view(seat)
        pending = cs.pending if seat == view.current_player else ()
        lines = [_view_text(view, len(self.settings.config.deals), pending, history)]
        if self.stage == _STOCK:
            lines.append(f"seat {view.current_player} is drawing from the stock")
        if self.stage == _OVER:
            cut = f" (deal cut at turn {view.turn})" if self.truncated else ""
            lines.append(f"over{cut}: returns {self.returns()}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ resampling

    def resampled(self, seat: int, rng: random.Random) -> _Core:
        """A copy in which the cards ``seat`` has not seen are dealt anew from ``rng``
        (:func:`carioca_env.determinize.determinize`); ``seat``'s information state is
        unchanged.  Another seat's opening melds being chosen are dropped (``seat`` does
        not see them, and they need not fit that seat's resampled hand): it chooses again."""
        new = self.copy()
        if self.stage == _DEAL:
            pool = deck_counts()
            for slot, card in enumerate(self.dealt):
                if self.slot_seat(slot) == seat:
                    pool[card] -= 1
            unseen = cards_of(pool)
            rng.shuffle(unseen)
            new.dealt = [card if self.slot_seat(slot) == seat else unseen.pop() for slot, card in enumerate(self.dealt)]
            new.pool = deck_counts()
            for card in new.dealt:
                new.pool[card] -= 1
        elif self.stage in (_PLAY, _STOCK):
            cs = self.live()
            pending = cs.pending if seat == cs.game.current_player else []
            game = determinize(cs.game, seat, rng)
            new.cs = _carioca_state(game, pending)
            new.deals_seen = len(game.deal_results)
        return new

    def __str__(self) -> str:
        """Everything, every hand included (for debugging and OpenSpiel's consistency checks)."""
        n = self.settings.num_players
        if self.stage in (_LOT, _DEAL):
            head = f"deal {self.deal_index + 1}, dealer {self.dealer}, totals {list(self.totals)}"
            if self.stage == _LOT:
                return "drawing the first dealer"
            per_seat = [[c for slot, c in enumerate(self.dealt) if self.slot_seat(slot) == s] for s in range(n)]
            return "\n".join([f"dealing {head}, {len(self.dealt)} cards dealt"]
                             + [f"seat {s}: {cards_str(sorted(h))}" for s, h in enumerate(per_seat)]
                             + [_results_text(self.results)])
        game = self.game
        stage = {_PLAY: "", _STOCK: " (drawing from the stock)", _OVER: " (over)"}[self.stage]
        lines = [f"{game!r}{stage}{' cut' if self.truncated else ''}"]
        for s in range(n):
            melds = " ".join(str(m.snapshot()) for m in game.table[s])
            lines.append(f"seat {s}: {cards_str(game.hand(s))} | melds {melds or '-'}")
        lines.append(f"pile {cards_str(game.discard)} | stock {cards_str(sorted(game.stock))}")
        if self.cs is not None and self.cs.pending:
            lines.append("choosing " + " / ".join(str(m) for m in self.cs.pending))
        lines.append("history " + "; ".join(f"{e.seat}:{e.text}" for e in game.history))
        lines.append(_results_text(tuple(game.deal_results)))
        return "\n".join(lines)


def _carioca_state(game: Game, pending: Sequence[Meld]) -> CariocaState:
    cs = CariocaState(game)
    cs.pending = list(pending)
    return cs


def _results_text(results: Sequence[Any]) -> str:
    return "results " + ("; ".join(
        f"deal {r.deal} cancelled" if r.cancelled else f"deal {r.deal} closed by {r.closer}: {list(r.scores)}"
        for r in results) or "-")


def _view_text(view: PlayerView, deals: int, pending: Sequence[Meld], history: bool) -> str:
    """A seat's view as text: every field of the view (the history only if asked)."""
    lines = [
        f"seat {view.seat} of {view.num_players} | deal {view.deal_index + 1} of {deals} (contract {view.deal}) | "
        f"dealer {view.dealer} | turn {view.turn} | phase {view.phase.value} | to act {view.current_player}",
        f"hand {cards_str(view.hand)}",
        f"hand sizes {list(view.hand_sizes)} | stock {view.stock_size} | pile {cards_str(view.discard_pile) or '-'}",
    ]
    for s in range(view.num_players):
        melds = " ".join(str(m) for m in view.table[s]) or "-"
        lines.append(
            f"seat {s}: melds {melds} | picked {cards_str(view.picked_from_discard[s]) or '-'} | "
            f"holds {cards_str(cards_of(view.known_cards[s])) or '-'} | "
            f"discarded {cards_str(cards_of(view.discarded[s])) or '-'}"
        )
    lines.append(f"totals {list(view.totals)} | {_results_text(view.deal_results)}")
    if pending:
        lines.append("choosing " + " / ".join(str(m) for m in pending))
    if history:
        lines.append("history " + ("; ".join(f"{e.seat}:{e.text}" for e in view.history) or "-"))
    return "\n".join(lines)


class CariocaSpielState(pyspiel.State):  # noqa: N801 - CariocaState is the env's decoding state
    """A state of :class:`CariocaGame` (see the module docstring)."""

    def __init__(self, game: CariocaGame) -> None:
        super().__init__(game)
        # one attribute: OpenSpiel's Clone deep-copies each attribute and its Serialize
        # pickles them, and _Core does both the fast way
        self._core = _Core(game.settings)

    def current_player(self) -> int:
        """The seat to act, ``pyspiel.PlayerId.CHANCE`` or ``pyspiel.PlayerId.TERMINAL``."""
        core = self._core
        if core.stage == _PLAY:
            return core.game.current_player
        if core.stage == _OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.CHANCE)

    def _legal_actions(self, player: int) -> list[int]:
        """The env's mask as a sorted list of ids (OpenSpiel asks only for the seat to act)."""
        core = self._core
        if core.stage != _PLAY or core.cs is None or player != core.game.current_player:
            return []
        return np.flatnonzero(core.cs.mask()).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the chance node: a seat (the dealer lot) or a card type."""
        return self._core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        """Play a decision (an env action id) or a chance outcome.

        Raises:
            IllegalActionError, ActionRangeError: a decision the mask does not offer.
            InvalidArgumentError: a chance outcome that is not possible here.
        """
        core = self._core
        if core.stage in (_LOT, _DEAL, _STOCK):
            core.apply_chance(int(action))
        else:
            core.apply_decision(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        """The engine's notation of a decision (absolute seats; ``meld ...`` for an opening
        step), or the chance outcome (``dealer 1``, ``deal 8S to seat 0``, ``upcard 8S``,
        ``stock 8S``)."""
        core = self._core
        if player < 0:
            if core.stage == _LOT:
                return f"dealer {action}"
            name = card_str(action) if 0 <= action < NUM_CARD_TYPES else str(action)
            if core.stage == _DEAL:
                seat = core.slot_seat(len(core.dealt))
                return f"upcard {name}" if seat < 0 else f"deal {name} to seat {seat}"
            return f"stock {name}"
        if not 0 <= action < core.table.size:
            return f"action {action} (outside 0..{core.table.size - 1})"
        decoded = core.table.to_move(action, player)
        return f"meld {decoded}" if isinstance(decoded, Meld) else str(decoded)

    def is_terminal(self) -> bool:
        """Whether the game is over (the last deal scored, or a deal cut at ``max_turns``)."""
        return self._core.stage == _OVER

    def returns(self) -> list[float]:
        """Per seat, the others' mean total minus its own at the end; zeros before."""
        return self._core.returns()

    def rewards(self) -> list[float]:
        """Terminal rewards: the returns at the end, zeros before."""
        return self._core.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> CariocaSpielState:
        """A state ``player_id`` cannot tell from this one, the cards it has not seen dealt
        anew; ``probability_sampler()`` (uniform in [0, 1), as
        ``pyspiel.UniformProbabilitySampler``) seeds the deal.  The new state has no
        action history: its past is not sampled, only its present."""
        seed = int(probability_sampler() * 2**53)
        state = self.get_game().new_initial_state()
        state._core = self._core.resampled(int(player_id), random.Random(seed))
        return state

    @property
    def carioca_state(self) -> CariocaState | None:
        """The engine game and the opening being chosen (``None`` before a deal is dealt).
        It holds every hand: never hand it to a seat's policy."""
        return self._core.cs

    def __str__(self) -> str:
        """Every hand and the table: the state, not anyone's view."""
        return str(self._core)


class CariocaObserver:
    """One seat's view as OpenSpiel's Python observer: ``tensor`` (the env's observation,
    named pieces in ``dict``) and a string, the information state with the deal's public
    history (``perfect_recall=True``) or the observation without it.

    Only the observing seat's own view is offered (``private_info`` of one player, with
    the public information); other kinds are refused.
    """

    def __init__(self, settings: Settings, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise InvalidArgumentError(f"{GAME_NAME} observers take no parameters, got {params!r}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise InvalidArgumentError(
                f"{GAME_NAME} offers the observing seat's own view only (public_info=True, "
                f"private_info=SINGLE_PLAYER), got {iig_obs_type}"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        layout = obs_layout(settings.num_players)
        self.tensor = np.zeros(layout.size, dtype=np.float32)
        self.dict = {name: self.tensor[layout.slices[name]] for name, _, _ in layout.pieces}

    def set_from(self, state: CariocaSpielState, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        self.tensor[:] = state._core.tensor(player)

    def string_from(self, state: CariocaSpielState, player: int) -> str:
        """``player``'s view of ``state`` as text."""
        return state._core.text(player, self.perfect_recall)


def state_from_view(
    game: CariocaGame, view: PlayerView, rng: random.Random, pending: Sequence[Meld] = (), horizon: int | None = None
) -> CariocaSpielState:
    """An OpenSpiel state of ``game`` that ``view``'s seat cannot tell from the real one,
    built from the view alone (the unseen cards dealt from ``rng``): what an agent that
    holds only its seat's view searches from.  ``pending`` are the opening melds the seat
    has chosen so far this turn.

    ``game`` plays either the same deals as the real game (its deal ``view.deal_index``
    is ``view.deal``) or the current contract alone (``deals`` its one digit: the state
    then ends with this deal).  ``horizon`` cuts the deal after that many more turns
    (scored as ``game``'s ``score_truncated`` says) instead of at ``max_turns``.

    Raises:
        InvalidConfigError: ``game`` has another number of players, or deals that do not
            fit the view, or ``horizon`` is below 1.
        InvalidArgumentError: the view is of a finished game.
    """
    settings = game.settings
    deals = settings.config.deals
    if view.num_players != settings.num_players:
        raise InvalidConfigError(f"the view has {view.num_players} players, the game {settings.num_players}")
    if view.game_over:
        raise InvalidArgumentError("the view is of a finished game: there is nothing to search")
    if deals == (view.deal,):
        full = None
    elif len(deals) > view.deal_index and deals[view.deal_index] == view.deal:
        full = deals
    else:
        raise InvalidConfigError(f"the game's deals {deals} fit neither the view's deal {view.deal} alone nor its "
                                 f"place {view.deal_index} in the game")
    if horizon is not None and (isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1):
        raise InvalidConfigError(f"horizon must be a positive int or None, got {described(horizon)}")
    engine = determinize_view(view, rng, full)
    state = game.new_initial_state()
    core = state._core
    core.cs = _carioca_state(engine, pending)
    core.stage = _PLAY
    core.dealer, core.deal_index = engine.dealer, engine.deal_index
    core.totals, core.results = tuple(engine.totals), tuple(engine.deal_results)
    core.deals_seen = len(engine.deal_results)
    core.cut_at = settings.max_turns if horizon is None else view.turn + horizon
    return state


def bot_move(bot: Any, state: CariocaSpielState) -> Move:
    """The engine move an OpenSpiel bot (``bot.step(state)``, as ``ISMCTSBot``) makes for
    the seat to act: one action, or for an opening one action per meld, each meld but
    the last applied to ``state`` so the bot chooses the next from there.

    Raises:
        InvalidArgumentError: ``state`` has no seat to act.
        IllegalActionError: the bot chose an action the mask does not offer.
    """
    core = state._core
    if core.stage != _PLAY:
        raise InvalidArgumentError("the state has no seat to act (a chance node or the end of the game)")
    seat = state.current_player()
    cs = core.live()
    contract = cs.game.contract
    while True:
        action = int(bot.step(state))
        if not cs.is_legal(action):
            raise cs.illegal(action)
        decoded = core.table.to_move(action, seat)
        if not isinstance(decoded, Meld):
            return decoded
        chosen = [*cs.pending, decoded]
        if len(chosen) == contract.trios + contract.runs:
            return Move.open(chosen)
        state.apply_action(action)


if GAME_NAME not in pyspiel.registered_names():  # a module imported twice registers once
    pyspiel.register_game(GAME_TYPE, CariocaGame)
