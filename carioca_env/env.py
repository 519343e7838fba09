"""``carioca_v0``: the PettingZoo AEC environment of Argentine Carioca.

A thin layer over :class:`~carioca_env.Game`: it encodes the acting seat's view into an
observation and a legal-action mask (:mod:`carioca_env.observation`,
:mod:`carioca_env.actions`) and decodes action ids into engine moves.

Agents are ``player_0 .. player_{n-1}`` in seat order (the order of play).  Each
observation is ``{"observation": Box(float32), "action_mask": Box(int8)}``; the mask is
all zeros for a seat that is not acting.  An opening is chosen one meld per step
(``open_meld`` actions) during the same turn; the mask offers only melds that the rest
of the hand can complete into the whole contract, in canonical order, and nothing reaches
the table (and nobody else acts) until the last meld is chosen (R6).

Rewards (``EnvConfig.reward``):

- ``"penalty"`` (default): when a deal ends, every seat receives minus its deal penalty
  (times ``reward_scale``), so a game's return is minus the seat's total.  It is the
  default because it is the game's own objective (the lowest total wins, R15) and it
  gives a signal at every deal rather than one per game.
- ``"win"``: at the end of the game +1 to each winner (shared wins count) and -1 to the
  others.

Truncation (R17): a deal that reaches ``max_turns`` turns ends the episode with
``truncations`` set for every agent; it is never scored.

Bad input (checked once, at this boundary, before anything changes):

- An action must be a Python or numpy integer (or a 0-d integer array, as
  ``Discrete.contains`` takes); anything else (``0.7``, ``"0"``, ``[0]``, ``True``,
  ``nan``) raises :class:`ActionTypeError`, whatever ``illegal_action`` says.
- An integer outside the action space (``-1``, ``10**6``) raises
  :class:`ActionRangeError` (an :class:`IllegalActionError`), whatever ``illegal_action``
  says: no mask can offer it, so it is the caller's bug, not a move to penalize.
- An integer of the space the mask does not offer ends the episode, as PettingZoo's
  classic games do (``illegal_action="penalize"``, the default): the actor gets
  ``illegal_reward`` (by default :func:`worst_return`, so it is never better than legal
  play), the others 0, every agent is terminated and the actor's
  ``info["illegal_action"]`` holds the action.  ``illegal_action="raise"`` raises
  :class:`IllegalActionError` instead, for debugging: a masking bug stops the run.
- A refused step changes nothing observable: the same agent is to act, ``last()``
  returns the same observation, the same pending cumulative reward (say the -95 of a
  deal that just ended), termination, truncation and info.  A retry is a fresh call: a
  legal action is played and the pending reward is cleared then, as PettingZoo does.
- Options (:class:`EnvConfig`, ``reset(options=...)``) and the arguments of
  ``observe``, ``action_mask``, ``action_to_string`` and ``string_to_action`` raise a
  :class:`~carioca_env.errors.CariocaError` (also a ``TypeError`` or ``ValueError``)
  that names the argument, what it got and what is allowed.

:meth:`raw_env.state` is the full-information state for centralized critics (QMIX,
MAPPO): every seat's observation plus the stock's contents; see its docstring.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from carioca_env.action_state import ActionRangeError, ActionTypeError, CariocaState, IllegalActionError, action_id
from carioca_env.actions import action_table
from carioca_env.cards import NUM_CARD_TYPES, PENALTY, card_symbol, cards_str, full_deck, parse_card
from carioca_env.errors import (
    ArgumentTypeError,
    InvalidArgumentError,
    InvalidConfigError,
    as_real,
    described,
    excerpt,
)
from carioca_env.game import Game
from carioca_env.game_config import MAX_TURNS, GameConfig
from carioca_env.observation import OBS_HIGH, check_features, obs_layout
from carioca_env.openings import CONTRACTS

__all__ = ["raw_env", "EnvConfig", "worst_return", "CariocaState", "IllegalActionError", "ActionRangeError",
           "ActionTypeError", "action_id", "state_size"]

REWARDS = ("penalty", "win")
ILLEGAL = ("raise", "penalize")


@dataclass(frozen=True)
class EnvConfig:
    """Options of ``carioca_v0`` (defaults: 2 players, the full game, penalty rewards).

    Attributes:
        num_players: 2, 3 or 4.
        deals: contracts to play in order; ``(3,)`` plays only contract 3.
        reward: ``"penalty"`` (minus the deal penalty at each deal end) or ``"win"``.
        reward_scale: factor applied to penalty rewards (e.g. 0.01 for learning).
        max_turns: turns per deal before truncation (R17; default :data:`MAX_TURNS`);
            ``None`` never truncates.
        illegal_action: ``"penalize"`` (default): PettingZoo's convention, the actor gets
            ``illegal_reward`` and the episode terminates for everyone; or ``"raise"`` an
            :class:`IllegalActionError` (nothing changes; for debugging a policy's masking).
        illegal_reward: reward of an illegal action under ``"penalize"``, 0 or negative
            (a positive one is refused); ``None`` (default) is :func:`worst_return` of the
            configuration, so an illegal action is never better than any legal play.
        render_all_hands: render every hand (a god view) instead of the acting seat's.
        features: the observation variant: ``"base"`` (default), ``"planning"``
            (appends the hand's plan, :mod:`carioca_env.planning`), ``"discards"``
            (the plan and what each discard would leave), or a feature set an upper
            layer registered (:func:`carioca_env.observation.register_feature_set`).
    """

    num_players: int = 2
    deals: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    reward: str = "penalty"
    reward_scale: float = 1.0
    max_turns: int | None = MAX_TURNS
    illegal_action: str = "penalize"
    illegal_reward: float | None = None
    render_all_hands: bool = False
    features: str = "base"
    game: GameConfig = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "game", GameConfig(num_players=self.num_players, deals=self.deals))
        object.__setattr__(self, "num_players", self.game.num_players)
        object.__setattr__(self, "deals", self.game.deals)
        if not isinstance(self.reward, str) or self.reward not in REWARDS:
            raise InvalidConfigError(f"reward must be one of {REWARDS}, got {described(self.reward)}")
        if not isinstance(self.illegal_action, str) or self.illegal_action not in ILLEGAL:
            raise InvalidConfigError(f"illegal_action must be one of {ILLEGAL}, got {described(self.illegal_action)}")
        turns = self.max_turns
        if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 1):
            raise InvalidConfigError(f"max_turns must be a positive int or None, got {described(turns)}")
        for name in ("reward_scale", "illegal_reward"):
            if name == "illegal_reward" and self.illegal_reward is None:
                object.__setattr__(self, name, worst_return(self))
                continue
            try:
                object.__setattr__(self, name, as_real(name, getattr(self, name)))
            except (TypeError, ValueError) as exc:
                raise InvalidConfigError(str(exc)) from None
        if cast(float, self.illegal_reward) > 0:  # a float after the loop above
            # a positive reward would pay a policy for illegal actions: every legal return
            # is at most 0 (penalties) or 1 (a win), so the ending could become the best move
            raise InvalidConfigError(
                f"illegal_reward must be 0 or negative (a positive reward pays for illegal actions), "
                f"got {self.illegal_reward}"
            )
        try:
            check_features(self.features)
        except ValueError as exc:
            raise InvalidConfigError(str(exc)) from None
        if not isinstance(self.render_all_hands, bool):
            raise InvalidConfigError(f"render_all_hands must be True or False, got {described(self.render_all_hands)}")


def worst_return(config: EnvConfig) -> float:
    """The lowest return a seat can get from a game under ``config``.

    ``"win"`` rewards: -1.  ``"penalty"`` rewards: minus the largest hand penalty of
    every deal (R14: the ``hand_size`` costliest cards of the deck, jokers and aces),
    times ``reward_scale``.
    """
    if config.reward == "win":
        return -1.0
    costs = sorted((PENALTY[c] for c in full_deck()), reverse=True)
    worst = sum(sum(costs[: CONTRACTS[d].hand_size]) for d in config.deals)
    return -float(worst) * config.reward_scale


def state_size(num_players: int) -> int:
    """Length of :meth:`raw_env.state`: every seat's observation, the stock (53), the actor (n)."""
    return num_players * obs_layout(num_players).size + NUM_CARD_TYPES + num_players


def _render_hand(cards: Sequence[int]) -> str:
    return cards_str(cards, symbols=True) or "-"


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """The AEC environment; see the module docstring.  Build it with :func:`env`."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "name": "carioca_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, config: EnvConfig | None = None, **options: Any) -> None:
        super().__init__()
        if config is None:
            config = EnvConfig(**options)
        elif options:
            raise InvalidConfigError(f"pass either config= or keyword options, not both (got {sorted(options)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidConfigError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if render_mode == "rgb_array":
            from carioca_env.rendering import require_pillow

            require_pillow()  # fail here, naming the extra, not at the first frame
        self.config = config
        self.render_mode = render_mode
        n = config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        self.table = action_table(n)
        self.layout = obs_layout(n, config.features)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0.0, high=OBS_HIGH, shape=(self.layout.size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.table.size,), dtype=np.int8),
            }
        )
        act_space: spaces.Discrete = spaces.Discrete(self.table.size)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        #: the space of :meth:`state`: every seat's observation, then the stock, then who acts
        self.state_space = spaces.Box(low=0.0, high=OBS_HIGH, shape=(state_size(n),), dtype=np.float32)
        self._seeder: random.Random | None = None
        #: the game being played and the opening being chosen (``None`` before reset);
        #: not named ``state``, which is PettingZoo's method
        self.carioca_state: CariocaState | None = None

    # --- spaces

    def observation_space(self, agent: str) -> spaces.Space:
        """The (cached) observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The (cached) action space of ``agent``."""
        return self.action_spaces[agent]

    # --- helpers

    @property
    def game(self) -> Game:
        """The engine game being played (call :meth:`reset` first)."""
        return self._live().game

    def _live(self) -> CariocaState:
        if self.carioca_state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.carioca_state

    def _agent(self, agent: Any) -> str:
        """``agent`` if it is one of ``possible_agents``; otherwise a typed error naming them."""
        if not isinstance(agent, str):
            raise ArgumentTypeError(f"agent must be one of {self.possible_agents} (a string), got {described(agent)}")
        if agent not in self.possible_agents:
            raise InvalidArgumentError(f"agent must be one of {self.possible_agents}, got {excerpt(agent)}")
        return agent

    def action_to_string(self, action: int) -> str:
        """Notation of an action id (targets relative to the actor).

        Raises:
            ActionTypeError: not an integer.  ActionRangeError (an InvalidArgumentError):
                outside the space.
        """
        return self.table.action_to_string(action_id(action, self.table.size))

    def string_to_action(self, text: str) -> int:
        """Action id of a notation (inverse of :meth:`action_to_string`).

        Raises:
            ArgumentTypeError: not a string.  InvalidNotationError: no action's notation.
        """
        if not isinstance(text, str):
            raise ArgumentTypeError(f"an action's notation must be a string like 'draw stock', got {described(text)}")
        return self.table.string_to_action(text)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal-action mask of ``agent`` (default: the agent to act); zeros for an
        agent that is not to act.

        Raises:
            ArgumentTypeError / InvalidArgumentError: ``agent`` is not one of ``possible_agents``.
        """
        state = self._live()
        agent = self.agent_selection if agent is None else self._agent(agent)
        return self._mask_of(state, agent)

    def _mask_of(self, state: CariocaState, agent: str) -> np.ndarray:
        """:meth:`action_mask` of a checked ``agent``."""
        if agent != self.agent_selection or self.terminations[agent] or self.truncations[agent]:
            return np.zeros(self.table.size, dtype=np.int8)
        return state.mask()

    def state(self) -> np.ndarray:
        """The full-information state, for centralized critics (QMIX, MAPPO ...).

        A float32 array in :attr:`state_space`, with ``L`` the observation size:

        - ``[k*L:(k+1)*L]`` for each seat ``k`` in seat order: seat ``k``'s observation
          (its own hand, and for the seat to act the opening melds chosen so far), so
          every hand is in it;
        - the next 53 values: the stock's cards, count per type (its order, the future
          chance, stays out);
        - the last ``n``: one-hot of the seat to act (zeros once the game is over).

        Never give it to a policy: it holds what no seat may see.
        """
        cs = self._live()
        game = cs.game
        n = game.num_players
        parts = [cs.observe(seat) for seat in range(n)]
        stock = np.bincount(game.stock, minlength=NUM_CARD_TYPES).astype(np.float32) if game.stock else np.zeros(NUM_CARD_TYPES, np.float32)
        actor = np.zeros(n, dtype=np.float32)
        if not game.game_over:
            actor[game.current_player] = 1.0
        return np.concatenate(parts + [stock, actor])

    # --- AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        ``seed`` (an int or ``None``) seeds the game (and the seeds of later resets
        without one).  ``options`` may hold ``{"deck": [card types or notations],
        "dealer": seat}`` to deal the first deal from a stacked deck (R16 refuses a bad
        one).  Everything is checked before anything changes: a refused reset leaves the
        env (and the seeds of later resets) as it was.

        Raises:
            ArgumentTypeError / InvalidArgumentError: a seed that is not an int, options
                that are not a dict of ``deck`` and ``dealer``.
            MisdealError: a deck that is not the 108 cards.
        """
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ArgumentTypeError(f"seed must be an int or None, got {described(seed)}")
        if seed is not None or self._seeder is None:
            seeder = random.Random(None if seed is None else int(seed))
        else:  # draw from a copy, kept only once the game is built
            seeder = random.Random()
            seeder.setstate(self._seeder.getstate())
        game = self._new_game(seeder.getrandbits(63), options)
        self._seeder = seeder
        self.carioca_state = CariocaState(game, self.config.features)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[game.current_player]
        self._deals_seen = 0
        self._set_infos(self.carioca_state)

    def _new_game(self, game_seed: int, options: Any) -> Game:
        """The game a reset starts, from checked ``options``."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ArgumentTypeError(f"options must be a dict or None, got {described(options)}")
        unknown = set(options) - {"deck", "dealer"}
        if unknown:
            # a warning, not an error: PettingZoo's api_test resets with options={"options": 1}
            warnings.warn(
                f"reset options other than 'deck' and 'dealer' are ignored: {excerpt(sorted(map(str, unknown)))}",
                stacklevel=3,
            )
        if "dealer" in options and "deck" not in options:
            raise InvalidArgumentError("reset option 'dealer' needs a 'deck' to deal from")
        if "deck" not in options:
            return Game(self.config.game, game_seed)
        deck = options["deck"]
        if isinstance(deck, np.ndarray):
            deck = deck.tolist()
        if not isinstance(deck, (list, tuple)):
            raise ArgumentTypeError(
                f"reset option 'deck' must be a list of 108 card types 0..52 or notations like '8S', got {described(deck)}"
            )
        cards = [parse_card(c) if isinstance(c, str) else int(c) if isinstance(c, np.integer) else c for c in deck]
        dealer = options.get("dealer", 0)
        return Game.from_deck(cards, int(dealer) if isinstance(dealer, np.integer) else dealer, self.config.game, game_seed)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Observation and mask of ``agent`` (the mask is zeros unless it is to act).

        Raises:
            ArgumentTypeError / InvalidArgumentError: ``agent`` is not one of ``possible_agents``.
        """
        state = self._live()
        # the seat of a plain string naming an agent in one lookup (every step's path);
        # anything else goes through _agent, which refuses it or lets a str subclass by
        seat = self._seats.get(agent) if type(agent) is str else None
        if seat is None:
            seat = self.possible_agents.index(self._agent(agent))
        return {"observation": state.observe(seat), "action_mask": self._mask_of(state, agent)}

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to act (``None`` for an agent that is done).

        Checked before anything changes (see the module docstring): a refused action
        leaves every attribute as it was, so ``last()`` and a retry see the same turn.

        Raises:
            ActionTypeError: ``action`` is not an integer id.
            ActionRangeError: an integer outside the action space (whatever ``illegal_action`` says).
            IllegalActionError: the mask does not offer it (with ``illegal_action="raise"``).
        """
        state = self._live()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = None if action is None else action_id(action, self.table.size)
        if a is None or not state.is_legal(a):
            if self.config.illegal_action != "penalize":
                raise state.illegal(a)  # before anything changed: a refusal changes nothing
            self._cumulative_rewards[agent] = 0.0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = cast(float, self.config.illegal_reward)  # never None after __post_init__
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos[agent] = {**self.infos[agent], "illegal_action": action}
            self._accumulate_rewards()
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        state.play_legal(a)  # the mask just offered it: no second check
        game = state.game
        if self._deals_seen < len(game.deal_results) or game.game_over:  # else nothing to score
            self._score_deals(game)
        if game.game_over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.config.max_turns is not None and game.turn >= self.config.max_turns:
            self.truncations = dict.fromkeys(self.agents, True)  # R17: cut off, never scored
        self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()
        self._set_infos(state)
        if self.render_mode == "human":
            self.render()

    def _score_deals(self, game: Game) -> None:
        results = game.deal_results
        while self._deals_seen < len(results):
            r = results[self._deals_seen]
            self._deals_seen += 1
            if self.config.reward == "penalty" and not r.cancelled:
                for i, a in enumerate(self.agents):
                    self.rewards[a] -= r.scores[i] * self.config.reward_scale
        if game.game_over and self.config.reward == "win":
            for i, a in enumerate(self.agents):
                self.rewards[a] += 1.0 if i in game.winners else -1.0

    def _set_infos(self, state: CariocaState) -> None:
        game = state.game
        # computed once for every agent: this runs on every step
        deal, totals = game.deal_number, tuple(game.totals)
        # _value_ (the enum's documented attribute) rather than the .value property, and
        # a plain loop rather than a comprehension's frame: a third of the cost
        phase = "choosing_opening" if state.pending else game.phase._value_
        infos: dict[str, dict[str, Any]] = {}
        for i, a in enumerate(self.agents):
            infos[a] = {"seat": i, "deal": deal, "phase": phase, "totals": totals}
        self.infos = infos

    def render(self, seat: int | None = None) -> str | np.ndarray | None:
        """The table: the acting seat's hand only, unless ``render_all_hands``.

        ``"ansi"`` returns text, ``"human"`` prints it, ``"rgb_array"`` returns an image
        (:func:`carioca_env.rendering.draw_table`) from the view of ``seat`` (default: the
        seat to act; the text modes always show the seat to act).

        Raises:
            InvalidConfigError: ``seat`` is not a seat of this table.
        """
        n = self.config.num_players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise InvalidConfigError(f"render seat must be None or a seat 0..{n - 1}, got {seat!r}")
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return self._render_rgb(self.game.current_player if seat is None else seat)
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _render_rgb(self, seat: int) -> np.ndarray:
        from carioca_env.rendering import draw_table

        game, state = self.game, self._live()
        pending = state.pending if seat == game.current_player else ()
        hands = {s: game.hand(s) for s in range(game.num_players)} if self.config.render_all_hands else None
        return draw_table(game.view(seat), pending, hands)

    def _render_text(self) -> str:
        game = self.game
        lines = [
            f"{game.contract} | turn {game.turn} | dealer {game.dealer} | stock {game.stock_size} | "
            f"top discard {card_symbol(game.top_discard) if game.top_discard >= 0 else '-'} | totals {game.totals}"
        ]
        for seat in range(game.num_players):
            melds = "  ".join(m.snapshot().render() for m in game.table[seat]) or "(not opened)"
            marker = "*" if seat == game.current_player and not game.game_over else " "
            lines.append(f"{marker}player_{seat} [{game.hand_sizes[seat]} cards] {melds}")
            if self.config.render_all_hands or (seat == game.current_player and not game.game_over):
                lines.append(f"   hand: {_render_hand(game.hand(seat))}")
        pending = self._live().pending
        if pending:
            lines.append("   choosing opening: " + " / ".join(m.render() for m in pending))
        if game.game_over:
            lines.append(f"game over: winners {list(game.winners)}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""
