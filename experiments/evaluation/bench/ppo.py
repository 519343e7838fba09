"""The ``ppo`` section of ``carioca bench``: MaskablePPO training steps per second.

On the environment ``carioca train`` builds (:func:`make_real_env`) and on a synthetic
one of identical spaces that costs nothing (:func:`make_synthetic_env`), for each of
:data:`carioca_experiments.evaluation.bench.config.PPO_CONFIGS` named in ``Sizes.ppo_configs``.  The two
factories are module-level functions so that ``SubprocVecEnv`` can pickle them.
"""

from __future__ import annotations

import json
import time
from typing import Any

from carioca_experiments.common.seeds import BENCH, derive_seed
from carioca_experiments.evaluation.bench.config import PPO_CONFIGS, PPO_ENV, PPO_TRAIN_CONFIG, Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit


def _synthetic_env_class() -> type:
    import gymnasium
    import numpy as np
    from gymnasium import spaces

    class _Synthetic(gymnasium.Env):
        """Spaces of the real env, costing nothing: pooled random observations and masks
        with a few legal actions, fixed episode length, reward at the end."""

        metadata: dict[str, Any] = {"render_modes": []}  # gymnasium.Env declares it an attribute

        def __init__(self, obs_size: int, num_actions: int, obs_high: float, episode_length: int = 100,
                     pool: int = 64, seed: int = 0) -> None:
            super().__init__()
            self.observation_space = spaces.Box(0.0, obs_high, (obs_size,), np.float32)
            self.action_space = spaces.Discrete(num_actions)
            rng = np.random.default_rng(seed)
            self._obs = rng.random((pool, obs_size), dtype=np.float32)
            self._masks = np.zeros((pool, num_actions), dtype=bool)
            for i in range(pool):
                self._masks[i, rng.choice(num_actions, size=int(rng.integers(2, 12)), replace=False)] = True
            self._i = 0
            self._t = 0
            self.episode_length = episode_length

        def action_masks(self) -> np.ndarray:
            return self._masks[self._i]

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
            super().reset(seed=seed)
            self._t = 0
            return self._obs[self._i], {}

        def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
            self._t += 1
            self._i = (self._i + 1) % len(self._obs)
            done = self._t >= self.episode_length
            return self._obs[self._i], (-0.5 if done else 0.0), done, False, {}

    return _Synthetic


def make_real_env() -> Any:
    """The environment ``carioca train`` builds (the wrapper with scored truncation and no
    mask in the info), for the run :data:`PPO_TRAIN_CONFIG` (picklable factory)."""
    from carioca_experiments.training.train import TrainConfig, make_env

    return make_env(TrainConfig(**PPO_TRAIN_CONFIG))


def make_synthetic_env(seed: int = 0) -> Any:
    """A free env with the spaces of :func:`make_real_env` (picklable factory)."""
    from carioca_env.actions import action_table
    from carioca_env.observation import OBS_HIGH, obs_layout

    n = PPO_ENV["num_players"]
    return _synthetic_env_class()(obs_layout(n).size, action_table(n).size, OBS_HIGH, seed=seed)


def _ppo_kwargs(settings: dict[str, Any] | None, sizes: Sizes) -> tuple[dict[str, Any], dict[str, Any]]:
    """MaskablePPO keyword arguments and the other knobs (threads, validation, envs).

    ``n_steps`` in the settings is the rollout size over all environments; each of the
    ``n_envs`` environments collects ``n_steps // n_envs`` steps (SB3's ``n_steps``).
    """
    settings = settings or {}
    kwargs: dict[str, Any] = {k: settings[k] for k in ("n_steps", "batch_size", "n_epochs", "learning_rate", "gamma",
                                                       "gae_lambda", "clip_range", "ent_coef", "vf_coef",
                                                       "max_grad_norm") if k in settings}
    if "net_arch" in settings:
        kwargs["policy_kwargs"] = {"net_arch": list(settings["net_arch"])}
    knobs: dict[str, Any] = {k: settings[k] for k in ("torch_threads", "validate_args", "policy") if k in settings}
    knobs["n_envs"] = int(settings.get("n_envs", 1))
    knobs["vec_env"] = settings.get("vec_env", "dummy")
    if sizes.ppo_n_steps is not None:
        kwargs["n_steps"] = sizes.ppo_n_steps
        kwargs["batch_size"] = min(kwargs.get("batch_size", 64), sizes.ppo_n_steps)
    total = kwargs.get("n_steps", 2048)  # SB3's default n_steps
    knobs["rollout_steps"] = total
    if knobs["n_envs"] > 1:
        kwargs["n_steps"] = max(1, total // knobs["n_envs"])
    return kwargs, knobs


def _ppo_unit(name: str, label: str, settings: dict[str, Any] | None, synthetic: bool, sizes: Sizes,
              seed: int) -> Unit:
    import functools

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    kwargs, knobs = _ppo_kwargs(settings, sizes)
    n_envs, vec = knobs["n_envs"], knobs["vec_env"]
    rollout = kwargs.get("n_steps", 2048) * n_envs
    rollouts = sizes.ppo_rollouts if name == "real.defaults" else max(sizes.ppo_rollouts, -(-sizes.ppo_min_steps // rollout))
    timesteps = rollout * rollouts
    cache: dict[str, Any] = {}

    class _Timer(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.rollout_s = 0.0
            self._t = 0.0

        def _on_rollout_start(self) -> None:
            self._t = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.rollout_s += time.perf_counter() - self._t

        def _on_step(self) -> bool:
            return True

    def build() -> Any:
        factory = functools.partial(make_synthetic_env, derive_seed(BENCH, seed, "synthetic")) if synthetic else make_real_env
        if n_envs == 1:
            env = factory()
        elif vec == "subproc":
            from stable_baselines3.common.vec_env import SubprocVecEnv

            env = SubprocVecEnv([factory] * n_envs)
        else:
            from stable_baselines3.common.vec_env import DummyVecEnv

            env = DummyVecEnv([factory] * n_envs)
        policy: Any = "MlpPolicy"
        if knobs.get("policy") == "carioca":
            from carioca_agents.ppo_policy import CariocaMaskablePolicy

            policy = CariocaMaskablePolicy
        return MaskablePPO(policy, env, seed=derive_seed(BENCH, seed, "ppo", name), verbose=0, device="cpu", **kwargs)

    shown = {**kwargs, **{k: v for k, v in knobs.items() if k != "rollout_steps"}}
    if n_envs == 1:
        shown.pop("vec_env")

    def fn(rep: int) -> Sample:
        threads = torch.get_num_threads()
        validate = torch.distributions.Distribution._validate_args
        try:
            if "torch_threads" in knobs:
                torch.set_num_threads(int(knobs["torch_threads"]))
            if "validate_args" in knobs:
                torch.distributions.Distribution.set_default_validate_args(bool(knobs["validate_args"]))
            if "model" not in cache:
                cache["model"] = build()
            model = cache["model"]
            timer = _Timer()
            t0 = time.perf_counter()
            model.learn(timesteps, callback=timer, reset_num_timesteps=True)
            dt = time.perf_counter() - t0
        finally:
            torch.set_num_threads(threads)
            torch.distributions.Distribution.set_default_validate_args(validate)
        return Sample(
            timesteps / dt,
            {
                "timesteps": timesteps,
                "seconds": dt,
                "rollout_s": timer.rollout_s,
                "update_s": dt - timer.rollout_s,
                "rollout_share": timer.rollout_s / dt,
                "rollout_steps_per_s": timesteps / timer.rollout_s if timer.rollout_s else None,
            },
        )

    def cleanup() -> None:
        if "model" in cache:
            cache.pop("model").get_env().close()

    return Unit(
        "ppo",
        f"ppo.{name}",
        label,
        "/s",
        fn,
        max_repeats=(sizes.ppo_defaults_repeats or sizes.ppo_repeats) if name == "real.defaults" else sizes.ppo_repeats,
        note=json.dumps(shown),
        cleanup=cleanup,
    )


def ppo_units(sizes: Sizes, seed: int) -> list[Unit]:
    """One training unit per name in ``sizes.ppo_configs`` (see :data:`~carioca_experiments.evaluation.bench.config.PPO_CONFIGS`)."""
    units = []
    for name in sizes.ppo_configs:
        label, settings, synthetic = PPO_CONFIGS[name]
        units.append(_ppo_unit(name, f"{label} steps/s", settings, synthetic, sizes, seed))
    return units
