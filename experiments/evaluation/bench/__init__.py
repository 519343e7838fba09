"""``carioca bench``: how fast the engine, the environment and training run.

Usage::

    carioca bench                    # the full run (a few minutes)
    carioca bench --quick            # small sizes, under a minute
    carioca bench --only engine env --repeats 5 --out results/b.json
    carioca bench --profile          # also profile random play and env steps (cProfile)
    carioca bench --only env reference clone play --baseline /tmp/base   # against another checkout

or from Python: ``run_bench(sections=("engine",), sizes=QUICK, seed=0, repeats=2)``.

Sections (``--only``)
    ``engine``     random play through ``Game.legal_moves()`` + ``Game.apply()`` with a
                   seeded uniform choice: decisions per second over a fixed number of
                   decisions per contract (``GameConfig(n, (k,))``, a new game when one
                   ends) for 2 and 4 players, games per second from the same window, and
                   full seven-deal games under a time budget (measured once, not per
                   repetition: random play can take ~100k turns in deal 7).
    ``env``        ``carioca_v0`` AEC steps per second: ``env.last()`` (observation and
                   mask built every step) then ``env.step`` with a random legal action;
                   full game with ``max_turns`` so that deals truncate, reset at the end,
                   steps counted across resets.  Also the Gymnasium single-agent wrapper
                   (random learner) on the configuration that the PPO section trains.
    ``masks``      microseconds of one ``CariocaState.mask()`` with its cache invalidated
                   (fastest of ``mask_calls`` calls per state, mean over states),
                   per phase (draw; play without / with an opening available; choosing
                   an opening; after opening with lay-offs or swaps available;
                   discard-only), from states collected by biased random play on stacked
                   deals; and of the observation (``Game.view`` + encoding) separately.
                   While choosing an opening the mask filters the openings enumerated
                   at the first meld (kept by the state), as in the environment.
    ``reference``  OpenSpiel ``gin_rummy`` (``legal_actions`` + ``apply_action``, then
                   again with ``observation_tensor``), Carioca's own OpenSpiel game
                   ``python_carioca`` in the same loop (:mod:`.openspiel_carioca`), and
                   RLCard ``gin-rummy`` (``env.step``, which encodes the state), when
                   importable.
    ``clone``      ``Game.clone()`` against ``copy.deepcopy`` and OpenSpiel's gin_rummy
                   ``state.clone()``, pickling, determinization, heuristic rollouts and
                   the search agent's time per decision (:mod:`.clone`).
    ``play``       the heuristic (decisions/s), a tournament (deals/s, one worker),
                   the wrapper with a heuristic opponent (steps/s) and search
                   (decisions/s at a fixed budget), each repetition in a fresh
                   process; with ``--baseline CHECKOUT`` the same workloads under
                   another commit's code, interleaved, for the ratios
                   ``*/baseline`` and a check that both made the same moves
                   (:mod:`.play`, :mod:`.workloads`).
    ``ppo``        MaskablePPO training steps per second on ``CariocaSingleAgentEnv``
                   with the library defaults and with :data:`TRAIN_SETTINGS`, the same on a
                   synthetic environment of identical spaces that costs nothing, and with
                   2 parallel environments.

Every figure is the median over ``--repeats`` repetitions with the min and max;
repetitions run round-robin over all measurements, so that a ratio compares figures
taken under the same machine load.  Ratios to the references compare like with like
(engine with engine, environment with environment), but gin rummy is a different game
(one 52-card deck, two players, 10-card hands).

The JSON file (``--out``, default ``results/bench-<timestamp>.json``) holds every
repetition, the ratios, the sizes and the machine (Python, CPUs, load, package
versions, git commit) so that runs can be compared across commits; metric keys are
stable (``engine.decisions.p2.c3``, ``env.aec.p2`` ...).

Modules (each answers one question)
    :mod:`.config` what is measured and how much (sections, :class:`Sizes`, the PPO
    settings); :mod:`.units` what one measurement is (:class:`Unit`, :class:`Sample`);
    one module per section: :mod:`.engine`, :mod:`.env`, :mod:`.masks`,
    :mod:`.reference`, :mod:`.clone`, :mod:`.ppo`; :mod:`.summary` the statistics and
    ratios; :mod:`.machine` where the figures were taken; :mod:`.profiling` where the
    time goes (``--profile``); :mod:`.runner` running the units into the result
    document; :mod:`.presentation` the table and the report; :mod:`.cli` the command
    line.
"""

from carioca_experiments.evaluation.bench.cli import add_arguments, run
from carioca_experiments.evaluation.bench.clone import CLONE_RATIOS, clone_units
from carioca_experiments.evaluation.bench.config import (
    FULL,
    PPO_CONFIGS,
    PPO_ENV,
    PPO_TRAIN_CONFIG,
    QUICK,
    SECTIONS,
    TRAIN_SETTINGS,
    Sizes,
)
from carioca_experiments.evaluation.bench.engine import engine_units
from carioca_experiments.evaluation.bench.env import env_units
from carioca_experiments.evaluation.bench.machine import machine_info
from carioca_experiments.evaluation.bench.masks import MASK_KINDS, classify, collect_states, mask_units
from carioca_experiments.evaluation.bench.ppo import make_real_env, make_synthetic_env, ppo_units
from carioca_experiments.evaluation.bench.presentation import format_table, report
from carioca_experiments.evaluation.bench.profiling import print_profile, profile_hotspots
from carioca_experiments.evaluation.bench.reference import reference_units
from carioca_experiments.evaluation.bench.runner import FORMAT, VERSION, build_units, run_bench
from carioca_experiments.evaluation.bench.summary import compute_ratios, summarize
from carioca_experiments.evaluation.bench.units import Sample, Unit

__all__ = [
    "CLONE_RATIOS", "FORMAT", "FULL", "MASK_KINDS", "PPO_CONFIGS", "PPO_ENV", "PPO_TRAIN_CONFIG", "QUICK",
    "SECTIONS", "TRAIN_SETTINGS", "VERSION", "Sample", "Sizes", "Unit", "add_arguments", "build_units",
    "classify", "clone_units", "collect_states", "compute_ratios", "engine_units", "env_units", "format_table",
    "machine_info", "make_real_env", "make_synthetic_env", "mask_units", "ppo_units", "print_profile",
    "profile_hotspots", "reference_units", "report", "run", "run_bench", "summarize",
]
