"""Carioca through OpenSpiel's interface in ``carioca bench``: ``python_carioca`` random play.

Part of the ``reference`` section, so that one run puts it beside OpenSpiel's own C++
``gin_rummy`` (:mod:`.reference`) and, with ``--only env reference``, the AEC env
(:mod:`.env`): uniformly random play of :mod:`carioca_env.openspiel_game` at 2 players
(every parameter at its default), ``legal_actions`` + ``apply_action`` and again with the
acting seat's ``observation_tensor`` at every decision.  The headline is decisions per
second, as gin_rummy's; ``all_actions_per_s`` counts the chance nodes too (the deal card
by card and every stock draw), the states per second of OpenSpiel's loop.
"""

from __future__ import annotations

import random

from carioca_experiments.common.seeds import BENCH, derive_seed
from carioca_experiments.evaluation.bench.config import Sizes
from carioca_experiments.evaluation.bench.reference import random_play
from carioca_experiments.evaluation.bench.units import Sample, Unit


def _unit(sizes: Sizes, seed: int, with_obs: bool) -> Unit:
    import pyspiel

    import carioca_env.openspiel_game  # noqa: F401 - registers python_carioca

    game = pyspiel.load_game("python_carioca")

    def fn(rep: int) -> Sample:
        rng = random.Random(derive_seed(BENCH, seed, "python_carioca", with_obs, rep))
        return random_play(game, rng, sizes.ref_decisions, with_obs)

    what = "legal_actions+apply+observation_tensor" if with_obs else "legal_actions+apply_action"
    return Unit(
        "reference",
        "ref.python_carioca.decisions_obs" if with_obs else "ref.python_carioca.decisions",
        f"OpenSpiel python_carioca decisions/s ({'with obs tensor' if with_obs else 'legal+apply'})",
        "/s",
        fn,
        note=f"{what}, 2 players, defaults; chance nodes (deal, stock draws) sampled, counted in all_actions_per_s",
    )


def python_carioca_units(sizes: Sizes, seed: int) -> list[Unit]:
    """Random play of ``python_carioca`` through OpenSpiel, without and with observations
    (the caller has checked that OpenSpiel imports)."""
    return [_unit(sizes, seed, False), _unit(sizes, seed, True)]
