"""``carioca bench --profile``: where the time of random play and of env steps goes (cProfile)."""

from __future__ import annotations

import random
import sys
import time
from typing import Any


def profile_hotspots(seed: int = 0, engine_decisions: int = 60_000, env_steps: int = 15_000,
                     top: int = 15) -> dict[str, Any]:
    """cProfile of engine random play (2 players, contracts 1..7) and of AEC env steps.

    Returns, per target, the functions with the most own time (``tottime``) and the most
    cumulative time, each with its share of the profiled total.
    """
    import cProfile
    import pstats

    import numpy as np

    from carioca_env import Game, GameConfig, carioca_v0

    def engine() -> None:
        rng = random.Random(seed)
        per = engine_decisions // 7
        for k in range(1, 8):
            game = Game(GameConfig(2, (k,)), seed=seed + k)
            for _ in range(per):
                if game.game_over:
                    game = Game(GameConfig(2, (k,)), seed=rng.getrandbits(32))
                game.apply(rng.choice(game.legal_moves()))

    def env_steps_fn() -> None:
        env = carioca_v0.env(num_players=2, max_turns=200)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while steps < env_steps:
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1

    out = {}
    for name, fn in (("engine_random_play", engine), ("env_step", env_steps_fn)):
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        fn()
        prof.disable()
        wall = time.perf_counter() - t0
        stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        total = max((v[3] for v in stats.values()), default=0.0) or 1.0  # the profiled function's cumulative time
        rows = []
        for (filename, line, func), (cc, nc, tt, ct, _callers) in stats.items():
            short = filename
            for marker in ("carioca_env/", "site-packages/", "lib/python"):
                if marker in filename:
                    short = filename[filename.index(marker):]
                    break
            rows.append({"function": f"{short}:{line}({func})", "calls": nc, "tottime": tt, "cumtime": ct,
                         "own_share": tt / total, "cum_share": ct / total})
        out[name] = {
            "wall_s": wall,
            "profiled_s": total,
            "by_own_time": sorted(rows, key=lambda r: -r["tottime"])[:top],
            "by_cumulative": sorted(rows, key=lambda r: -r["cumtime"])[:top],
        }
    return out


def print_profile(prof: dict[str, Any], file: Any = None) -> None:
    """Print a :func:`profile_hotspots` result: per target, the top functions by own and cumulative time."""
    file = file or sys.stdout
    for name, p in prof.items():
        print(f"\nProfile {name}: {p['profiled_s']:.2f} s profiled (wall {p['wall_s']:.2f} s)", file=file)
        for title, rows, share in (("own time", p["by_own_time"], "own_share"),
                                   ("cumulative", p["by_cumulative"], "cum_share")):
            print(f"  top by {title}:", file=file)
            for r in rows:
                print(f"    {100 * r[share]:5.1f}%  {r['calls']:>9,}  {r['function']}", file=file)
