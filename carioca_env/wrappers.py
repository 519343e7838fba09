"""A Gymnasium single-agent view of ``carioca_v0`` for stable-baselines3 / sb3-contrib.

One learning seat acts; the other seats are played by given policies inside ``step``.
An opponent policy is any of:

- a callable ``policy(observation, action_mask) -> action id`` (numpy arrays in, int out);
- an agent with ``act(view, legal_moves) -> Move`` (the :mod:`agents` protocol), which
  plays from its own seat's :class:`~carioca_env.PlayerView` only;
- ``None``: uniformly random over the mask (the default).

Rewards, terminations and truncations are always the learner's own.  The mask is given
by :meth:`CariocaSingleAgentEnv.action_masks` (what MaskablePPO calls) and in
``info["action_mask"]`` (unless ``mask_in_info=False``: SB3's ``DummyVecEnv`` deep-copies
every info at every step, so training leaves the 2,191-entry mask out of it).

At the step that ends the episode (terminated or truncated) ``info["action_mask"]`` is all
ones: no action of this episode remains, and the one action that can follow it is the
one a Gymnasium vector env passes at its next step, where its next-step autoreset resets
this sub-environment and ignores the action.  Any action will do there, so a sampler
that draws from the mask (``rng.choice(np.flatnonzero(mask))``, or logits masked with
``-inf``) never meets an empty row and never makes a NaN.  :meth:`action_masks` stays
the game's own mask (all zeros once the episode is over); SB3's vector envs reset in the
same step, so MaskablePPO never asks for a finished episode's mask.

Errors: the learner's action is checked by the AEC env before anything changes, so a
refused action (:class:`~carioca_env.env.ActionTypeError` for a non-integer,
:class:`~carioca_env.env.ActionRangeError` for an id outside ``Discrete(N)``, whatever
``illegal_action`` says, :class:`~carioca_env.env.IllegalActionError` for one the mask
does not offer) leaves the
episode as it was and the learner may retry.  An error once the learner's action has
been played (an opponent policy that returns an illegal action or fails) is raised as
:class:`OpponentError`; the episode is then broken (an opponent's turn is half done), so
every later call but :meth:`~CariocaSingleAgentEnv.reset` raises
:class:`EpisodeBrokenError` naming the first error, instead of playing the learner's
next action for another seat.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from carioca_env.action_state import action_id
from carioca_env.env import CariocaState, EnvConfig, raw_env, worst_return  # noqa: F401 - worst_return re-exported
from carioca_env.errors import CariocaError, InvalidConfigError, excerpt
from carioca_env.observation import OBS_HIGH

ObsPolicy = Callable[[np.ndarray, np.ndarray], int]


class OpponentError(CariocaError, RuntimeError):
    """An opponent's policy failed or chose an action the env refused, inside ``step`` or
    ``reset``; the cause is chained (``__cause__``)."""


class EpisodeBrokenError(CariocaError, RuntimeError):
    """A call after an error left the episode half played: only ``reset()`` is allowed."""


class _Driver(ABC):
    """Turns an opponent policy into action ids for its seat."""

    def reset(self, seed: int) -> None:
        """Start a new episode."""

    @abstractmethod
    def __call__(self, state: CariocaState, seat: int, mask: np.ndarray) -> int:
        """The action id the policy plays for ``seat``."""


class _RandomDriver(_Driver):
    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, state: CariocaState, seat: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])


class _CallableDriver(_Driver):
    def __init__(self, fn: ObsPolicy) -> None:
        self.fn = fn

    def __call__(self, state: CariocaState, seat: int, mask: np.ndarray) -> int:
        return self.fn(state.observe(seat), mask)  # no int(): the env checks the type (0.7 is no action 0)


class _AgentDriver(_Driver):
    """Plays an engine-level agent; an opening it chooses is fed as its meld steps."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.queue: list[int] = []

    def reset(self, seed: int) -> None:
        self.queue = []
        self.agent.reset(seed)

    def __call__(self, state: CariocaState, seat: int, mask: np.ndarray) -> int:
        if self.queue:
            return self.queue.pop(0)
        game = state.game
        move = self.agent.act(game.view(seat), game.legal_moves())
        ids = state.table.move_actions(move, seat)
        self.queue = ids[1:]
        return ids[0]


def make_driver(policy: Any) -> _Driver:
    """Wrap an opponent policy (see the module docstring)."""
    if policy is None:
        return _RandomDriver()
    if hasattr(policy, "act") and hasattr(policy, "reset"):
        return _AgentDriver(policy)
    if callable(policy):
        return _CallableDriver(policy)
    raise InvalidConfigError(
        f"an opponent must be None (random), a callable (obs, mask) -> action, or an agent with act(view, legal); got {policy!r}"
    )


class CariocaSingleAgentEnv(gymnasium.Env):
    """Gymnasium env for one learning seat of ``carioca_v0``.

    Args:
        config: environment options (:class:`~carioca_env.env.EnvConfig`), or keyword
            options of it.
        opponents: one policy for every other seat, or a sequence with one per other seat
            (in play order after the learner); ``None`` plays them uniformly at random.
        learner_seat: the learner's seat, or ``None`` to draw it per episode.
        render_mode: ``"ansi"``, ``"human"`` or ``"rgb_array"`` (the table from the
            learner's seat, :mod:`carioca_env.rendering`).
        mask_in_info: also put the mask in ``info["action_mask"]`` (default True).

    Illegal actions: the default is :class:`~carioca_env.env.EnvConfig`'s,
    ``illegal_action="penalize"``, as PettingZoo's classic games terminate on an illegal
    move, so checkers that step unmasked random actions (Gymnasium's and SB3's
    ``check_env``) pass: the episode ends, the learner gets ``illegal_reward`` and
    ``info["illegal_action"]`` holds the action.  Unless given, ``illegal_reward`` is
    :func:`worst_return` of the configuration, so an illegal action is never better
    than any legal play.  ``illegal_action="raise"`` raises
    :class:`~carioca_env.env.IllegalActionError` instead (a masking bug stops the run).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1, "name": "Carioca-v0"}

    def __init__(
        self,
        config: EnvConfig | None = None,
        opponents: Any = None,
        learner_seat: int | None = 0,
        render_mode: str | None = None,
        mask_in_info: bool = True,
        **options: Any,
    ) -> None:
        super().__init__()
        self.mask_in_info = mask_in_info
        self.aec = raw_env(render_mode=render_mode, config=config, **options)
        self.config = self.aec.config
        n = self.config.num_players
        if learner_seat is not None and not (
            isinstance(learner_seat, int) and not isinstance(learner_seat, bool) and 0 <= learner_seat < n
        ):
            raise InvalidConfigError(f"learner_seat must be None or a seat 0..{n - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n - 1:
                raise InvalidConfigError(f"give one opponent per other seat ({n - 1}), got {len(opponents)}")
            self.drivers = [make_driver(p) for p in opponents]
        else:
            self.drivers = [make_driver(opponents) for _ in range(n - 1)]
        self.render_mode = render_mode
        self.observation_space = spaces.Box(low=0.0, high=OBS_HIGH, shape=(self.aec.layout.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.aec.table.size)
        self.seat = 0 if learner_seat is None else learner_seat
        #: why the episode cannot go on (set by an error inside step or reset), or None
        self._broken: str | None = "reset() has not been called yet"

    def _usable(self) -> None:
        if self._broken is not None:
            raise EpisodeBrokenError(f"the episode cannot go on: {self._broken}; call reset()")

    @property
    def agent(self) -> str:
        """The learner's agent name in the AEC env."""
        return self.aec.possible_agents[self.seat]

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask (bool), as MaskablePPO expects.

        Raises:
            EpisodeBrokenError: before reset, or after an error inside step.
        """
        self._usable()
        return self.aec.action_mask(self.agent).astype(bool)

    #: fresh games tried by :meth:`reset` before giving up on the learner ever acting
    MAX_RESET_TRIES = 1000

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game; opponents play until the learner is to act.

        On contracts 6 and 7 a seat that holds the whole contract from the deal can close
        on its first turn (11 of 12 cards laid, the 12th discarded), so the opponents may
        end a one-deal episode before the learner acts.  Such a game gives the learner no
        decision and is replaced by a fresh one; ``info["games_skipped"]`` counts them.

        Raises:
            RuntimeError: a stacked deck (``options["deck"]``) whose game ends before the
                learner acts (replacing it would change what was asked for).
        """
        super().reset(seed=seed)
        rng = self.np_random
        self._broken = "the last reset() failed"
        for skipped in range(self.MAX_RESET_TRIES):
            if self.learner_seat is None:
                self.seat = int(rng.integers(self.config.num_players))
            self.aec.reset(seed=int(rng.integers(2**62)), options=options)
            for d in self.drivers:
                d.reset(int(rng.integers(2**62)))
            self._play_others_guarded()
            if not (self.aec.terminations[self.agent] or self.aec.truncations[self.agent]):
                self._broken = None
                obs, info = self._obs_info()
                info["games_skipped"] = skipped
                return obs, info
            if options and "deck" in options:
                raise RuntimeError(
                    "with this stacked deck the opponents end the episode before the learner acts "
                    f"(deal results {[r.scores for r in self.aec.game.deal_results]}); stack a deck that "
                    "gives the learner a turn, or seat the learner first"
                )
        raise RuntimeError(f"in {self.MAX_RESET_TRIES} fresh games the learner never got a turn")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents until the learner acts again.

        Raises:
            ActionTypeError, ActionRangeError, IllegalActionError: the learner's action is
                refused; nothing changed, the learner may retry (an id outside the action
                space is refused even with ``illegal_action="penalize"``).
            OpponentError: an opponent failed after the learner's action was played; the
                episode is broken until ``reset()``.
            EpisodeBrokenError: a step before ``reset()`` or after an error inside step.
        """
        self._usable()
        aec = self.aec
        if aec.terminations[self.agent] or aec.truncations[self.agent]:
            raise RuntimeError("the episode is over: call reset()")
        aec.step(action)  # checks the type and the mask before anything changes
        reward = aec.rewards[self.agent]
        reward += self._play_others_guarded()
        obs, info = self._obs_info()
        return obs, float(reward), bool(aec.terminations[self.agent]), bool(aec.truncations[self.agent]), info

    def _play_others_guarded(self) -> float:
        """:meth:`_play_others`; an error there breaks the episode (see the module docstring)."""
        try:
            return self._play_others()
        except BaseException as exc:
            seat = self.aec.agent_selection
            self._broken = f"{type(exc).__name__} while {seat} (an opponent) was playing: {excerpt(str(exc), 300)}"
            if isinstance(exc, Exception):
                raise OpponentError(
                    f"the opponent at {seat} failed: {type(exc).__name__}: {exc}; the episode cannot go on, call reset()"
                ) from exc
            raise

    def _play_others(self) -> float:
        aec, me = self.aec, self.agent
        reward = 0.0
        n = self.config.num_players
        while aec.agent_selection != me and not (aec.terminations[me] or aec.truncations[me]):
            seat = aec.possible_agents.index(aec.agent_selection)
            driver = self.drivers[(seat - self.seat - 1) % n]
            state = aec._live()
            mask = state.mask()
            chosen = driver(state, seat, mask)
            action = None if chosen is None else action_id(chosen, aec.table.size)
            # an opponent's illegal action is a bug of the opponent, whatever illegal_action
            # says (that option is the learner's): it must not end the episode as a penalty
            if action is None or not state.is_legal(action):
                raise state.illegal(action)
            aec.step(action)
            reward += aec.rewards[me]
        return reward

    def _obs_info(self) -> tuple[np.ndarray, dict[str, Any]]:
        obs = self.aec._live().observe(self.seat)
        info = dict(self.aec.infos[self.agent])
        if self.mask_in_info:
            info["action_mask"] = self.aec.action_mask(self.agent)
            if self.aec.terminations[self.agent] or self.aec.truncations[self.agent]:
                # what a vector env's next step ignores (see the module docstring)
                info["action_mask"][:] = 1
        info["learner_seat"] = self.seat
        return obs, info

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]  # gymnasium types it with an unbound TypeVar
        """Render the table as the AEC env does; an ``rgb_array`` frame is the learner's view.

        Refused, like every call but reset, once the episode is broken.
        """
        self._usable()
        if self.render_mode == "rgb_array":
            return self.aec.render(seat=self.seat)
        return self.aec.render()


from carioca_env.registration import register_envs  # noqa: E402 - after the class it names

register_envs()
