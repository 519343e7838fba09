"""The floor of the ``env`` section: the PettingZoo AEC loop over an env that does no game work.

:class:`FloorEnv` has ``carioca_v0``'s agents and spaces and answers ``observe`` with a
constant observation and mask (copies, as the real env returns), ``step`` by passing
the turn on; it is wrapped in the same order enforcing wrapper.  The bench's loop over
it (``env.floor.p2``) is what the API and the loop itself cost, so ``env.aec.p2`` /
``env.floor.p2`` says how close the real env is to that floor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

#: steps after which every episode of the floor env is truncated (the bench resets then)
FLOOR_EPISODE = 400


class FloorEnv(AECEnv):
    """``carioca_v0``'s spaces and agents, no game: see the module docstring."""

    metadata: dict[str, Any] = {"name": "carioca_floor", "is_parallelizable": False}

    def __init__(self, num_players: int = 2) -> None:
        from carioca_env import carioca_v0

        super().__init__()
        real = carioca_v0.raw_env(num_players=num_players)
        self.possible_agents = real.possible_agents[:]
        self.agents = self.possible_agents[:]
        self.observation_spaces: dict[str, spaces.Space] = dict(real.observation_spaces)
        self.action_spaces: dict[str, spaces.Space] = dict(real.action_spaces)
        self._obs = np.zeros(real.layout.size, dtype=np.float32)
        self._mask = np.zeros(real.table.size, dtype=np.int8)
        self._mask[[0, 1, 2, 3]] = 1  # a few legal ids, as in a draw or a short hand
        self._steps = 0

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (``carioca_v0``'s)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (``carioca_v0``'s)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new episode: the first agent to act, no rewards."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._steps = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The constant observation and mask (fresh copies, as ``carioca_v0`` returns)."""
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def step(self, action: int | None) -> None:
        """Pass the turn on (truncate every agent after :data:`FLOOR_EPISODE` steps)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._steps += 1
        if self._steps >= FLOOR_EPISODE:
            self.truncations = dict.fromkeys(self.agents, True)
        i = self.possible_agents.index(agent)
        self.agent_selection = self.possible_agents[(i + 1) % len(self.possible_agents)]
        self._accumulate_rewards()


def floor_env(num_players: int = 2) -> AECEnv:
    """:class:`FloorEnv` in ``carioca_v0``'s order enforcing wrapper."""
    from carioca_env.carioca_v0 import CariocaOrderEnforcingWrapper

    return CariocaOrderEnforcingWrapper(FloorEnv(num_players))
