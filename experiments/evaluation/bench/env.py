"""The ``env`` section of ``carioca bench``: AEC environment and Gymnasium wrapper steps.

``carioca_v0`` steps per second (observation and mask built every step) per player
count, and the single-agent wrapper's learner steps on the configuration that the
``ppo`` section trains (:data:`carioca_experiments.evaluation.bench.config.PPO_ENV`).
"""

from __future__ import annotations

import time

from carioca_experiments.common.seeds import BENCH, derive_seed
from carioca_experiments.evaluation.bench.config import PPO_ENV, Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit


def _env_unit(n: int, sizes: Sizes, seed: int, floor: bool = False) -> Unit:
    import numpy as np

    from carioca_env import carioca_v0
    from carioca_experiments.evaluation.bench.floor import floor_env

    def fn(rep: int) -> Sample:
        env = floor_env(n) if floor else carioca_v0.env(num_players=n, max_turns=sizes.env_max_turns)
        rng = np.random.default_rng(derive_seed(BENCH, seed, "env", n, rep))
        env.reset(seed=derive_seed(BENCH, seed, "env-reset", n, rep))
        steps = resets = 0
        t0 = time.perf_counter()
        while steps < sizes.env_steps:
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.reset()
                resets += 1
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        dt = time.perf_counter() - t0
        env.close()
        return Sample(steps / dt, {"steps": steps, "seconds": dt, "resets": resets})

    if floor:
        return Unit("env", f"env.floor.p{n}", f"AEC steps/s {n}p, floor env (no game work)", "/s", fn,
                    note="the same loop over carioca_experiments.evaluation.bench.floor.FloorEnv: same spaces, constant obs and mask")
    return Unit(
        "env",
        f"env.aec.p{n}",
        f"AEC steps/s {n}p (last+step, obs+mask)",
        "/s",
        fn,
        note=f"full game, max_turns={sizes.env_max_turns}, reset on truncation",
    )


def _wrapper_unit(sizes: Sizes, seed: int) -> Unit:
    import numpy as np

    from carioca_env.wrappers import CariocaSingleAgentEnv

    def fn(rep: int) -> Sample:
        env = CariocaSingleAgentEnv(**PPO_ENV)
        rng = np.random.default_rng(derive_seed(BENCH, seed, "wrapper", rep))
        env.reset(seed=derive_seed(BENCH, seed, "wrapper-reset", rep))
        steps = episodes = 0
        t0 = time.perf_counter()
        while steps < sizes.wrapper_steps:
            legal = np.flatnonzero(env.action_masks())
            _obs, _r, term, trunc, _info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if term or trunc:
                env.reset()
                episodes += 1
        dt = time.perf_counter() - t0
        return Sample(steps / dt, {"steps": steps, "seconds": dt, "episodes": episodes})

    return Unit(
        "env",
        "env.wrapper.p2",
        "gym wrapper learner steps/s (PPO config)",
        "/s",
        fn,
        note="CariocaSingleAgentEnv " + ", ".join(f"{k}={v}" for k, v in PPO_ENV.items()) + "; random opponent",
    )


def env_units(sizes: Sizes, seed: int) -> list[Unit]:
    """AEC steps/s per player count in ``sizes.env_players``, the floor env at 2 players
    (:mod:`carioca_experiments.evaluation.bench.floor`), then the single-agent wrapper."""
    units = [_env_unit(n, sizes, seed) for n in sizes.env_players]
    if 2 in sizes.env_players:
        units.append(_env_unit(2, sizes, seed, floor=True))
    return units + [_wrapper_unit(sizes, seed)]
