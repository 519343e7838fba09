"""Gymnasium vector envs over ``Carioca-v0``, with next-step autoreset (Gymnasium 1.x's default).

A masked sampler reads ``info["action_mask"]`` at every step.  At the step where a
sub-environment finishes, its row is all ones (the next step resets that sub-environment
and ignores its action), so the plainest sampler never meets an empty row.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch

import carioca_env  # noqa: F401 - registers Carioca-v0


def naive_sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random allowed action per row, with no special case for an empty row."""
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_masked_sampler_survives_every_episode_end(mode: str):
    envs = gymnasium.make_vec("Carioca-v0", num_envs=2, vectorization_mode=mode, deals=(1,), max_turns=15)
    rng = np.random.default_rng(0)
    obs, info = envs.reset(seed=0)
    ends = 0
    done_before = np.zeros(2, dtype=bool)
    for _ in range(150):
        masks = info["action_mask"]
        actions = naive_sample(masks, rng)
        obs, reward, terminated, truncated, info = envs.step(actions)
        done = terminated | truncated
        ends += int(done.sum())
        # the row of a sub-env that just ended allows every action; the others are the game's
        assert all(info["action_mask"][i].all() for i in np.flatnonzero(done))
        assert all(0 < info["action_mask"][i].sum() < info["action_mask"].shape[1]
                   for i in np.flatnonzero(~done))
        # the autoreset step after an end ignored its action: a fresh episode, no reward
        assert all(reward[i] == 0.0 and not done[i] for i in np.flatnonzero(done_before))
        done_before = done
    envs.close()
    assert ends >= 4


def test_masked_logits_stay_finite_at_an_episode_end():
    envs = gymnasium.make_vec("Carioca-v0", num_envs=2, vectorization_mode="sync", deals=(1,), max_turns=10)
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(60):
        logits = torch.zeros(info["action_mask"].shape).masked_fill(
            ~torch.as_tensor(info["action_mask"], dtype=torch.bool), float("-inf"))
        dist = torch.distributions.Categorical(logits=logits)  # raises on a row of all -inf
        assert torch.isfinite(dist.entropy()).all()
        obs, reward, terminated, truncated, info = envs.step(naive_sample(info["action_mask"], rng))
        ends += int((terminated | truncated).sum())
    envs.close()
    assert ends >= 2


def test_the_single_env_still_refuses_a_step_after_the_end():
    env = gymnasium.make("Carioca-v0", deals=(1,), max_turns=5).unwrapped
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert info["action_mask"].all() and not env.action_masks().any()  # the game's own mask: nothing legal
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
