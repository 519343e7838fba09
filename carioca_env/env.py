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
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from carioca_env.actions import action_table
from carioca_env.cards import card_symbol, cards_str
from carioca_env.errors import IllegalMoveError, InvalidConfigError
from carioca_env.game import Game, GameConfig, Phase
from carioca_env.melds import Meld
from carioca_env.moves import Move
from carioca_env.observation import FEATURE_SETS, OBS_HIGH, GameEncoder, obs_layout

REWARDS = ("penalty", "win")
ILLEGAL = ("raise", "penalize")


class IllegalActionError(IllegalMoveError):
    """An action id that the mask does not offer to the acting agent."""


@dataclass(frozen=True)
class EnvConfig:
    """Options of ``carioca_v0`` (defaults: 2 players, the full game, penalty rewards).

    Attributes:
        num_players: 2, 3 or 4.
        deals: contracts to play in order; ``(3,)`` plays only contract 3.
        reward: ``"penalty"`` (minus the deal penalty at each deal end) or ``"win"``.
        reward_scale: factor applied to penalty rewards (e.g. 0.01 for learning).
        max_turns: turns per deal before truncation (R17); ``None`` never truncates.
        illegal_action: ``"raise"`` an :class:`IllegalActionError` (default), or
            ``"penalize"``: PettingZoo's convention, the actor gets ``illegal_reward``
            and the episode terminates for everyone.
        illegal_reward: reward of an illegal action under ``"penalize"``.
        render_all_hands: render every hand (a god view) instead of the acting seat's.
        features: the observation variant: ``"base"`` (default) or ``"planning"``
            (appends the hand's plan, :mod:`carioca_env.planning`).
    """

    num_players: int = 2
    deals: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    reward: str = "penalty"
    reward_scale: float = 1.0
    max_turns: int | None = 1000
    illegal_action: str = "raise"
    illegal_reward: float = -1.0
    render_all_hands: bool = False
    features: str = "base"
    game: GameConfig = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "game", GameConfig(num_players=self.num_players, deals=tuple(self.deals)))
        object.__setattr__(self, "deals", self.game.deals)
        if self.reward not in REWARDS:
            raise InvalidConfigError(f"reward must be one of {REWARDS}, got {self.reward!r}")
        if self.illegal_action not in ILLEGAL:
            raise InvalidConfigError(f"illegal_action must be one of {ILLEGAL}, got {self.illegal_action!r}")
        if self.max_turns is not None and (not isinstance(self.max_turns, int) or self.max_turns < 1):
            raise InvalidConfigError(f"max_turns must be a positive int or None, got {self.max_turns!r}")
        if self.features not in FEATURE_SETS:
            raise InvalidConfigError(f"features must be one of {FEATURE_SETS}, got {self.features!r}")


class CariocaState:
    """The engine game plus an opening being chosen meld by meld: what the env decodes into.

    Used by the environment and by agents that act through action ids, so the mask and
    the decoding live in one place.
    """

    def __init__(self, game: Game, features: str = "base") -> None:
        self.game = game
        self.table = action_table(game.num_players)
        self.encoder = GameEncoder(game.num_players, features)
        self.pending: list[Meld] = []
        self._mask_key: tuple[int, int] | None = None
        self._mask = np.zeros(self.table.size, dtype=np.int8)
        self._melds_key = -1
        self._melds: list[Move] = []

    def _refresh(self) -> None:
        moves_played = len(self.game.moves)
        key = (moves_played, len(self.pending))
        if key != self._mask_key:
            self._mask_key = key
            melds = None
            if self.game.phase is Phase.PLAY:
                # every meld step of an opening is the same position: generate its moves once
                if self._melds_key != moves_played:
                    self._melds_key = moves_played
                    self._melds = self.game.meld_moves()
                melds = self._melds
            self._mask = self.table.game_mask(self.game, self.pending, melds)

    def forget(self) -> None:
        """Drop the cached mask and melding moves (after editing ``pending`` by hand, or to
        time a mask built from scratch)."""
        self._mask_key = None
        self._melds_key = -1

    def mask(self) -> np.ndarray:
        """The legal-action mask of the seat to act (a fresh copy)."""
        self._refresh()
        return self._mask.copy()

    def is_legal(self, action: int) -> bool:
        """Whether the mask offers ``action``."""
        self._refresh()
        return 0 <= action < self.table.size and bool(self._mask[action])

    def step(self, action: int) -> Move | None:
        """Play an action id for the seat to act; returns the engine move made, if any.

        Raises:
            IllegalActionError: the mask does not offer the action (names it and the phase).
        """
        if not isinstance(action, (int, np.integer)) or not self.is_legal(int(action)):
            phase = "choosing an opening" if self.pending else self.game.phase.value
            shown = self.table.action_to_string(int(action)) if isinstance(action, (int, np.integer)) and 0 <= action < self.table.size else "outside the action space"
            raise IllegalActionError(
                f"action {action!r} ({shown}) is not legal for seat {self.game.current_player} "
                f"in phase {phase}; legal: {self.legal_strings()[:12]}",
                "mask",
            )
        decoded = self.table.to_move(int(action), self.game.current_player)
        if isinstance(decoded, Meld):
            self.pending.append(decoded)
            if len(self.pending) < self.game.contract.trios + self.game.contract.runs:
                return None
            decoded = Move.open(self.pending)
            self.pending = []
        self.game.apply(decoded)
        return decoded

    def legal_strings(self) -> list[str]:
        """The legal actions in notation (for messages and people)."""
        self._refresh()
        return [self.table.action_to_string(int(a)) for a in np.flatnonzero(self._mask)]

    def observe(self, seat: int) -> np.ndarray:
        """The observation array of ``seat`` (the opening being chosen is the actor's only)."""
        pending = self.pending if seat == self.game.current_player else ()
        return self.encoder.encode(self.game, seat, pending)


def _render_hand(cards: Sequence[int]) -> str:
    return cards_str(cards, symbols=True) or "-"


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """The AEC environment; see the module docstring.  Build it with :func:`env`."""

    metadata = {"render_modes": ["ansi", "human"], "name": "carioca_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, config: EnvConfig | None = None, **options: Any) -> None:
        super().__init__()
        if config is None:
            config = EnvConfig(**options)
        elif options:
            raise InvalidConfigError(f"pass either config= or keyword options, not both (got {sorted(options)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidConfigError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = config
        self.render_mode = render_mode
        n = config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self.table = action_table(n)
        self.layout = obs_layout(n, config.features)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0.0, high=OBS_HIGH, shape=(self.layout.size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.table.size,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self.table.size)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeder: random.Random | None = None
        self.state: CariocaState | None = None

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
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state.game

    def action_to_string(self, action: int) -> str:
        """Notation of an action id (targets relative to the actor)."""
        return self.table.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Action id of a notation (inverse of :meth:`action_to_string`)."""
        return self.table.string_to_action(text)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal-action mask of ``agent`` (default: the agent to act)."""
        agent = agent or self.agent_selection
        if agent != self.agent_selection or self.terminations[agent] or self.truncations[agent]:
            return np.zeros(self.table.size, dtype=np.int8)
        return self.state.mask()  # type: ignore[union-attr]

    # --- AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        ``seed`` seeds the game (and the seeds of later resets without one).  ``options``
        may hold ``{"deck": [card types or notations], "dealer": seat}`` to deal the first
        deal from a stacked deck (R16 refuses a bad one).
        """
        if seed is not None or self._seeder is None:
            self._seeder = random.Random(seed)
        game_seed = self._seeder.getrandbits(63)
        options = options or {}
        if "deck" in options:
            from carioca_env.cards import parse_card

            deck = [parse_card(c) if isinstance(c, str) else int(c) for c in options["deck"]]
            game = Game.from_deck(deck, options.get("dealer", 0), self.config.game, game_seed)
        else:
            game = Game(self.config.game, game_seed)
        self.state = CariocaState(game, self.config.features)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[game.current_player]
        self._deals_seen = 0
        self._set_infos()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Observation and mask of ``agent`` (the mask is zeros unless it is to act)."""
        seat = self.possible_agents.index(agent)
        return {"observation": self.state.observe(seat), "action_mask": self.action_mask(agent)}  # type: ignore[union-attr]

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to act (``None`` for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before step()")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if action is None or not state.is_legal(int(action)):
            if self.config.illegal_action == "penalize":
                self.rewards[agent] = float(self.config.illegal_reward)
                self.terminations = dict.fromkeys(self.agents, True)
                self.infos[agent] = {**self.infos[agent], "illegal_action": action}
                self._accumulate_rewards()
                return
            state.step(-1 if action is None else int(action))  # raises, naming action and phase
        state.step(int(action))
        game = state.game
        self._score_deals(game)
        if game.game_over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.config.max_turns is not None and game.turn >= self.config.max_turns:
            self.truncations = dict.fromkeys(self.agents, True)  # R17: cut off, never scored
        self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()
        self._set_infos()
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

    def _set_infos(self) -> None:
        game = self.game
        for i, a in enumerate(self.agents):
            self.infos[a] = {
                "seat": i,
                "deal": game.deal_number,
                "phase": "choosing_opening" if self.state.pending else game.phase.value,  # type: ignore[union-attr]
                "totals": tuple(game.totals),
            }

    def render(self) -> str | None:
        """Text of the table: the acting seat's hand only, unless ``render_all_hands``."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

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
        if self.state.pending:  # type: ignore[union-attr]
            lines.append("   choosing opening: " + " / ".join(m.render() for m in self.state.pending))  # type: ignore[union-attr]
        if game.game_over:
            lines.append(f"game over: winners {list(game.winners)}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""
