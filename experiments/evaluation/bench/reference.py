"""The ``reference`` section of ``carioca bench``: OpenSpiel's and RLCard's gin rummy.

OpenSpiel ``gin_rummy`` decisions per second (with and without the observation tensor)
and RLCard ``gin-rummy`` env steps, when they are installed (``pip install .[bench]``);
when not, a message says how to install them.  With OpenSpiel, Carioca's own OpenSpiel
game (``python_carioca``) is measured the same way beside gin_rummy
(:mod:`.openspiel_carioca`).
"""

from __future__ import annotations

import importlib
import random
import time
from typing import Any

from carioca_experiments.common.seeds import BENCH, derive_seed
from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.units import Sample, Unit


def _sample_chance(state: Any, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    x = rng.random()
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if x < acc:
            return action
    return outcomes[-1][0]


def random_play(game: Any, rng: random.Random, decisions_wanted: int, with_obs: bool) -> Sample:
    """Uniformly random play of the OpenSpiel ``game`` until ``decisions_wanted`` player
    decisions (``legal_actions`` + ``apply_action``, and the acting seat's
    ``observation_tensor`` at each when ``with_obs``), new games as games end; chance
    nodes sampled by their probabilities, counted apart (``all_actions_per_s``)."""
    state = game.new_initial_state()
    decisions = chance = games = 0
    t0 = time.perf_counter()
    while decisions < decisions_wanted:
        if state.is_terminal():
            games += 1
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.apply_action(_sample_chance(state, rng))
            chance += 1
        else:
            if with_obs:
                state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    dt = time.perf_counter() - t0
    return Sample(
        decisions / dt,
        {"decisions": decisions, "chance_actions": chance, "games_completed": games, "seconds": dt,
         "all_actions_per_s": (decisions + chance) / dt},
    )


def _openspiel_unit(sizes: Sizes, seed: int, with_obs: bool) -> Unit:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")

    def fn(rep: int) -> Sample:
        rng = random.Random(derive_seed(BENCH, seed, "openspiel", with_obs, rep))
        return random_play(game, rng, sizes.ref_decisions, with_obs)

    what = "legal_actions+apply+observation_tensor" if with_obs else "legal_actions+apply_action"
    return Unit(
        "reference",
        "ref.openspiel.decisions_obs" if with_obs else "ref.openspiel.decisions",
        f"OpenSpiel gin_rummy decisions/s ({'with obs tensor' if with_obs else 'legal+apply'})",
        "/s",
        fn,
        note=f"{what}; player decisions counted, chance nodes sampled but not counted",
    )


def _rlcard_unit(sizes: Sizes, seed: int) -> Unit:
    import rlcard

    def fn(rep: int) -> Sample:
        rng = random.Random(derive_seed(BENCH, seed, "rlcard", rep))
        env = rlcard.make("gin-rummy", config={"seed": derive_seed(BENCH, seed, "rlcard-env", rep)})
        state, _player = env.reset()
        steps = games = 0
        t0 = time.perf_counter()
        while steps < sizes.ref_steps:
            state, _player = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
            if env.is_over():
                games += 1
                state, _player = env.reset()
        dt = time.perf_counter() - t0
        return Sample(steps / dt, {"steps": steps, "games_completed": games, "seconds": dt})

    return Unit(
        "reference",
        "ref.rlcard.steps",
        "RLCard gin-rummy env steps/s (encodes state)",
        "/s",
        fn,
        note="env.reset/env.step with random legal actions; resets counted as time, not steps",
    )


def reference_units(sizes: Sizes, seed: int, messages: list[str]) -> list[Unit]:
    """The OpenSpiel and RLCard units that are importable; an install hint in ``messages`` for each that is not."""
    units = []
    try:
        importlib.import_module("pyspiel")
    except ImportError:
        messages.append("OpenSpiel is not installed (pip install .[bench], or pip install open_spiel): skipped")
    else:
        from carioca_experiments.evaluation.bench.openspiel_carioca import python_carioca_units

        units += [_openspiel_unit(sizes, seed, False), _openspiel_unit(sizes, seed, True)]
        units += python_carioca_units(sizes, seed)  # the same loop through Carioca's OpenSpiel game
    try:
        importlib.import_module("rlcard")
    except ImportError:
        messages.append("RLCard is not installed (pip install .[bench], or pip install rlcard): skipped")
    else:
        units.append(_rlcard_unit(sizes, seed))
    return units
