"""Labelled states gathered in memory before they become a shard: the columns every
kind of shard shares.

An imitation shard (:mod:`carioca_experiments.training.imitate.dataset`) and a rollout-advantage
shard (:mod:`carioca_experiments.studies.improve.labels`) both hold, per labelled state, the
learner's observation and mask, the label's action id and where the state comes from
(seat, game seed, game index, step, contract).  :class:`StateRows` holds those columns;
each kind of shard subclasses it with its own columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class StateRows:
    """The shared columns of labelled states, one list per column, one item per row."""

    obs: list[np.ndarray] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    action: list[int] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    game_seed: list[int] = field(default_factory=list)
    game: list[int] = field(default_factory=list)
    step: list[int] = field(default_factory=list)
    deal: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.action)

    def add_state(self, obs: np.ndarray, mask: np.ndarray, action: int, *, seat: int, game_seed: int, game: int,
                  step: int, deal: int) -> None:
        """Append one row's shared columns (a subclass appends its own beside them)."""
        self.obs.append(obs)
        self.mask.append(mask)
        self.action.append(action)
        self.seat.append(seat)
        self.game_seed.append(game_seed)
        self.game.append(game)
        self.step.append(step)
        self.deal.append(deal)

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The shared columns as a shard's arrays: observations as float32 rows, masks
        packed with ``numpy.packbits`` (``unpack_masks`` of the imitation data restores
        them), the rest as the narrowest integer types that hold them."""
        n = len(self)
        return {
            "obs": np.asarray(self.obs, dtype=np.float32).reshape(n, -1),
            "mask": np.packbits(np.asarray(self.mask, dtype=bool).reshape(n, -1), axis=1),
            "action": np.asarray(self.action, dtype=np.int32),
            "seat": np.asarray(self.seat, dtype=np.int8),
            "game_seed": np.asarray(self.game_seed, dtype=np.int64),
            "game": np.asarray(self.game, dtype=np.int32),
            "step": np.asarray(self.step, dtype=np.int32),
            "deal": np.asarray(self.deal, dtype=np.int8),
        }
