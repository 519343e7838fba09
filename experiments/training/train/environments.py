"""The training environments: scored truncation, opponent pools (self-play snapshots), one env and the vectorized set."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import gymnasium

from carioca_env.wrappers import CariocaSingleAgentEnv
from carioca_experiments.training.train.config import TrainConfig, _config_from_json, _config_to_json
from carioca_experiments.training.train.files import _steps_of


class ScoreTruncation(gymnasium.Wrapper):
    """A deal cut off at ``max_turns`` ends the episode with minus the learner's hand penalty
    (times the reward scale), as tournaments score it (R17); exposes ``action_masks``."""

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The inner step; a truncation becomes a termination scored by the hand."""
        obs, step_reward, terminated, truncated, info = self.env.step(action)
        reward = float(step_reward)
        if truncated and not terminated:
            from carioca_env.cards import hand_penalty

            base = self._learner_env()
            pen = hand_penalty(base.aec.game.hands[base.seat])
            reward -= pen * base.config.reward_scale
            info = {**info, "truncated_penalty": pen}
            terminated, truncated = True, False
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> Any:
        """The learner's mask (for MaskablePPO)."""
        return self._learner_env().action_masks()

    def _learner_env(self) -> CariocaSingleAgentEnv:
        return cast(CariocaSingleAgentEnv, self.env.unwrapped)  # make_env wraps only that env


class OpponentPool:
    """An agent that, at every ``reset``, becomes one agent drawn from a pool.

    Members are registry specs; with ``snapshots`` (a folder) a frozen snapshot of the
    learner is drawn instead with probability ``self_play_prob`` when one exists.
    """

    name = "pool"

    def __init__(self, specs: Sequence[str], seed: int, snapshots: str | None = None,
                 pool_size: int = 8, self_play_prob: float = 0.8, num_players: int = 2) -> None:
        import random

        from carioca_agents.registry import make_agent

        self.specs = list(specs)
        self.members = [make_agent(s, seed + i) for i, s in enumerate(self.specs)]
        self.snapshots = Path(snapshots) if snapshots else None
        self.pool_size = pool_size
        self.self_play_prob = self_play_prob
        self.num_players = num_players
        self.rng = random.Random(seed)
        self.current: Any = self.members[0]

    def _snapshot_files(self) -> list[Path]:
        if self.snapshots is None or not self.snapshots.is_dir():
            return []
        files = [p for p in self.snapshots.glob("snap_*.zip") if p.with_suffix(".json").exists()]
        files.sort(key=lambda p: _steps_of(p.stem))
        return files[-self.pool_size:]

    def reset(self, seed: int) -> None:
        """Draw the agent of this episode."""
        self.rng.seed(seed)
        snaps = self._snapshot_files() if self.snapshots is not None else []
        if snaps and self.rng.random() < self.self_play_prob:
            from carioca_agents.ppo_agent import PPOAgent

            path = snaps[self.rng.randrange(len(snaps))]
            self.current = PPOAgent(path, seed, num_players=self.num_players, deterministic=False)
        else:
            self.current = self.members[self.rng.randrange(len(self.members))]
        self.current.reset(seed)

    def act(self, view: Any, legal: Sequence[Any]) -> Any:
        """The drawn agent's move."""
        return self.current.act(view, legal)


@dataclass(frozen=True)
class EnvFactory:
    """A picklable builder of one training environment (for ``SubprocVecEnv`` workers)."""

    config_json: str
    rank: int
    snapshots: str | None

    def __call__(self) -> Any:
        return make_env(TrainConfig(**_config_from_json(self.config_json)), self.rank, self.snapshots)


def make_env(config: TrainConfig, rank: int = 0, snapshots: str | None = None) -> Any:
    """One training environment: the single-agent wrapper, opponent pools, scored truncation."""
    from carioca_agents.threads import limit_torch_threads
    from carioca_env.env import EnvConfig
    from carioca_env.wrappers import CariocaSingleAgentEnv

    limit_torch_threads()  # each env worker process too
    s = config.merged_settings
    n = config.players
    opponents = [
        OpponentPool(config.opponents, config.seed * 7919 + rank * 101 + k * 13, snapshots if config.self_play else None,
                     config.pool_size, config.self_play_prob, n)
        for k in range(n - 1)
    ]
    env = CariocaSingleAgentEnv(
        EnvConfig(num_players=n, deals=config.deals, reward="penalty", reward_scale=s["reward_scale"],
                  max_turns=s["max_turns"], features=s["features"],
                  illegal_action="raise"),  # MaskablePPO masks: an illegal action is a bug, never learned around
        opponents=opponents,
        learner_seat=None,
        mask_in_info=False,  # MaskablePPO asks action_masks(); DummyVecEnv deep-copies infos
    )
    return ScoreTruncation(env)


def make_vec_env(config: TrainConfig, snapshots: str | None = None) -> Any:
    """The vectorized environments of a run, wrapped in ``VecMonitor``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    blob = json.dumps(_config_to_json(config))
    fns: list[Callable[[], gymnasium.Env]] = [EnvFactory(blob, r, snapshots) for r in range(config.n_envs)]
    use_subproc = config.vec == "subproc" or (config.vec == "auto" and config.n_envs > 1)
    venv = SubprocVecEnv(fns) if use_subproc else DummyVecEnv(fns)
    return VecMonitor(venv)
