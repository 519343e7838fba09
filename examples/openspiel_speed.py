"""Random play through three interfaces in one run: OpenSpiel's ``python_carioca``, the
AEC env ``carioca_v0``, and OpenSpiel's own C++ ``gin_rummy``.

Each runs uniformly random legal play for ``--seconds`` (whole games, restarted when
one ends) and reports decisions per second and states per second (decisions plus
chance nodes; the env has no chance nodes: its deals and draws happen inside a step),
with and without asking for the acting seat's observation tensor at every decision::

    python examples/openspiel_speed.py --seconds 10

Needs OpenSpiel (``pip install "carioca-env[openspiel]"``).  The figures depend on what
else runs on the machine: say so when you report them.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np
import pyspiel

import carioca_env.openspiel_game  # noqa: F401 - registers python_carioca
from carioca_env import carioca_v0


def _chance(state: pyspiel.State, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def spiel_play(game: pyspiel.Game, seconds: float, with_obs: bool, seed: int = 0) -> dict[str, float]:
    """Random play of an OpenSpiel game for ``seconds``: decisions/s and states/s."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    decisions = chance = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(200):  # look at the clock every 200 states
            if state.is_terminal():
                games += 1
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(_chance(state, rng))
                chance += 1
            else:
                if with_obs:
                    state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    return {"decisions/s": decisions / elapsed, "states/s": (decisions + chance) / elapsed, "games": games}


def env_play(seconds: float, with_obs: bool, seed: int = 0) -> dict[str, float]:
    """Random play of ``carioca_v0`` (2 players, the defaults) for ``seconds``: steps/s."""
    rng = random.Random(seed)
    env = carioca_v0.env()
    env.reset(seed=seed)
    steps = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(200):
            if any(env.terminations.values()) or any(env.truncations.values()):
                games += 1
                env.reset()
                continue
            agent = env.agent_selection
            if with_obs:
                env.observe(agent)
            env.step(rng.choice(np.flatnonzero(env.action_mask(agent)).tolist()))
            steps += 1
    return {"decisions/s": steps / elapsed, "states/s": steps / elapsed, "games": games}


def measure(seconds: float) -> list[tuple[str, dict[str, float]]]:
    """Every row of the table, one after the other in this process."""
    carioca = pyspiel.load_game("python_carioca")
    gin = pyspiel.load_game("gin_rummy")
    runs: list[tuple[str, Callable[[], dict[str, float]]]] = [
        ("python_carioca (OpenSpiel, Python) legal+apply", lambda: spiel_play(carioca, seconds, False)),
        ("python_carioca + observation_tensor", lambda: spiel_play(carioca, seconds, True)),
        ("carioca_v0 (AEC env) mask+step", lambda: env_play(seconds, False)),
        ("carioca_v0 + observe", lambda: env_play(seconds, True)),
        ("gin_rummy (OpenSpiel, C++) legal+apply", lambda: spiel_play(gin, seconds, False)),
        ("gin_rummy + observation_tensor", lambda: spiel_play(gin, seconds, True)),
    ]
    return [(name, run()) for name, run in runs]


def main() -> None:
    """Run the measurement and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of play per row (default 10)")
    args = parser.parse_args()
    print(f"{'interface':50s} {'decisions/s':>12s} {'states/s':>12s} {'games':>6s}")
    for name, row in measure(args.seconds):
        print(f"{name:50s} {row['decisions/s']:12,.0f} {row['states/s']:12,.0f} {row['games']:6d}")


if __name__ == "__main__":
    main()
