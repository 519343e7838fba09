"""``carioca bench``: how fast the engine, the environment and training run.

Usage::

    carioca bench                    # the full run (a few minutes)
    carioca bench --quick            # small sizes, under a minute
    carioca bench --only engine env --repeats 5 --out results/b.json
    carioca bench --profile          # also profile random play and env steps (cProfile)

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
                   again with ``observation_tensor``) and RLCard ``gin-rummy``
                   (``env.step``, which encodes the state), when importable.
    ``clone``      ``Game.clone()`` against ``copy.deepcopy`` and OpenSpiel's gin_rummy
                   ``state.clone()``, pickling, determinization, heuristic rollouts and
                   the search agent's time per decision (:mod:`experiments.bench_clone`).
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
"""

from __future__ import annotations

import argparse
import copy
import datetime as _dt
import importlib
import importlib.metadata
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from carioca_env.records import write_atomic
from experiments.argtypes import check_writable_file
from experiments.train import DEFAULT_N_ENVS, DEFAULT_VEC
from experiments.train import TRAIN_SETTINGS as _TRAIN

SECTIONS = ("engine", "env", "masks", "reference", "clone", "ppo")
FORMAT = "carioca-bench"
VERSION = 1

#: Training settings of the ``ppo`` section (compared with MaskablePPO's defaults): the
#: project's own, :data:`experiments.train.TRAIN_SETTINGS` with the way ``carioca train``
#: runs them, so the figure is the speed of real training.  Chosen for throughput on a
#: 2-core CPU machine (measured with this bench):
#: - ``torch_threads`` 1: torch's default of one thread per core makes every small
#:   matrix product wait for a second thread that other processes keep busy (5-40x
#:   slower under load here);
#: - ``n_envs`` 8 in one process (DummyVecEnv): the policy's forward pass, which costs
#:   more than an env step, runs once per 8 steps (SubprocVecEnv pays pickling and
#:   two pipe round trips per step, one for the masks, and loses on 2 cores);
#: - a 1,024-step rollout over all environments, ``batch_size`` 256, ``n_epochs`` 4,
#:   one hidden layer of 64: few gradient steps on a small network;
#: - ``policy`` "carioca": sb3-contrib's policy sampling by inverse CDF instead of
#:   ``torch.multinomial`` (0.6 ms per batch of 8 x 2,191 actions, more than the env);
#: - ``validate_args`` False: no torch distribution argument checks (they re-validate
#:   the 2,191 masked logits at every step; they also catch NaN logits, so turn them
#:   back on when debugging a diverging run).
TRAIN_SETTINGS: dict[str, Any] = {
    "n_steps": _TRAIN["rollout_steps"],
    **{k: _TRAIN[k] for k in ("batch_size", "n_epochs", "learning_rate", "net_arch", "gamma", "gae_lambda",
                              "clip_range", "ent_coef", "vf_coef", "max_grad_norm")},
    "policy": "carioca",  # agents.ppo_policy.CariocaMaskablePolicy: no torch.multinomial
    "torch_threads": 1,
    "validate_args": False,
    "n_envs": DEFAULT_N_ENVS,
    "vec_env": DEFAULT_VEC,
}

#: The single-agent configuration trained in the ``ppo`` section.
PPO_ENV = {"num_players": 2, "deals": (1,), "reward_scale": 0.01, "max_turns": 200}

MASK_KINDS = (
    ("draw", "draw phase"),
    ("play_no_opening", "play phase, no opening available"),
    ("play_opening", "play phase, an opening available"),
    ("choosing_opening", "choosing an opening (pending melds)"),
    ("after_opening", "after opening, lay-offs/swaps available"),
    ("discard_only", "discard only (opened this turn)"),
)


# ---------------------------------------------------------------------------- sizes


@dataclass(frozen=True)
class Sizes:
    """How much work each measurement does (``FULL``, ``QUICK``, or a test's own)."""

    engine_decisions: int = 25_000  # per contract, player count and repetition
    engine_players: tuple[int, ...] = (2, 4)
    engine_contracts: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    full_game_seconds: float = 45.0  # per player count, measured once; 0 skips
    full_game_max_games: int = 3
    env_steps: int = 15_000  # per player count and repetition
    env_players: tuple[int, ...] = (2, 4)
    env_max_turns: int = 200
    wrapper_steps: int = 4_000
    mask_players: tuple[int, ...] = (2, 4)
    mask_states: int = 40  # states per kind
    mask_calls: int = 5  # timed calls per state and repetition
    mask_collect_games: int = 400  # cap on the games played to collect states
    ref_decisions: int = 30_000
    ref_steps: int = 15_000
    ppo_rollouts: int = 1  # learn() runs at least this many rollouts per repetition
    ppo_min_steps: int = 8192  # ... and at least this many steps (but ``real.defaults``: one rollout)
    ppo_n_steps: int | None = None  # overrides n_steps of every PPO configuration
    ppo_configs: tuple[str, ...] = (
        "real.defaults",
        "real.defaults_1thread",
        "synthetic.defaults_1thread",
        "real.settings",
        "synthetic.settings",
        "real.settings.1env",
        "real.settings.dummy2",
        "real.settings.subproc2",
    )  # names of PPO_CONFIGS to measure
    ppo_repeats: int | None = 2  # cap on the repetitions of PPO measurements
    ppo_defaults_repeats: int | None = 1  # cap for ``real.defaults`` (torch's threads: the slowest)
    clone_states_per_contract: int = 6  # mid-deal 2p states per contract (clone section)
    clone_calls: int = 20  # timed calls per state and repetition
    clone_search_decisions: int = 14  # states the search agent decides at (measured once)
    clone_search_sims: int | None = None  # its budget (None: the agent's default)


FULL = Sizes()
QUICK = Sizes(
    engine_decisions=3_000,
    full_game_seconds=0.0,
    env_steps=2_000,
    wrapper_steps=600,
    mask_states=10,
    mask_calls=3,
    mask_collect_games=120,
    ref_decisions=4_000,
    ref_steps=2_000,
    ppo_n_steps=512,
    ppo_min_steps=0,
    ppo_configs=("real.defaults_1thread", "real.settings", "synthetic.settings"),
    ppo_repeats=1,
    clone_states_per_contract=2,
    clone_calls=10,
    clone_search_decisions=4,
)


# ---------------------------------------------------------------------------- measurements


@dataclass
class Sample:
    """One repetition of a measurement: the headline value and what else was counted."""

    value: float | None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Unit:
    """One measurement: a function of the repetition index returning a :class:`Sample`."""

    section: str
    key: str
    label: str
    unit: str  # "/s", "us", "s"
    fn: Callable[[int], Sample]
    higher_is_better: bool = True
    once: bool = False  # measured once, not per repetition
    max_repeats: int | None = None
    note: str = ""
    cleanup: Callable[[], None] | None = None  # called once after its last repetition


def _seed(seed: int, *parts: Any) -> int:
    """A stable seed derived from the run seed and a purpose (no global random state)."""
    return random.Random(":".join(str(p) for p in (seed, *parts))).getrandbits(32)


def summarize(values: Sequence[float | None]) -> dict[str, Any]:
    """Median, min and max of the defined values (``None`` where there are none)."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return {"median": None, "min": None, "max": None, "n": 0, "values": list(values)}
    return {
        "median": statistics.median(vals),
        "min": min(vals),
        "max": max(vals),
        "n": len(vals),
        "values": list(values),
    }


# ---------------------------------------------------------------------------- engine


def _engine_decisions_unit(n: int, k: int, sizes: Sizes, seed: int) -> Unit:
    from carioca_env import Game, GameConfig

    cfg = GameConfig(num_players=n, deals=(k,))

    def fn(rep: int) -> Sample:
        rng = random.Random(_seed(seed, "engine", n, k, rep))
        game_seed = _seed(seed, "engine-game", n, k, rep)
        games = 0
        done_decisions = 0
        decisions_in_game = 0
        game = Game(cfg, seed=game_seed)
        t0 = time.perf_counter()
        for _ in range(sizes.engine_decisions):
            if game.game_over:
                games += 1
                done_decisions += decisions_in_game
                decisions_in_game = 0
                game_seed += 1
                game = Game(cfg, seed=game_seed)
            game.apply(rng.choice(game.legal_moves()))
            decisions_in_game += 1
        dt = time.perf_counter() - t0
        if game.game_over:
            games += 1
            done_decisions += decisions_in_game
        return Sample(
            sizes.engine_decisions / dt,
            {
                "decisions": sizes.engine_decisions,
                "seconds": dt,
                "games_completed": games,
                "games_per_s": games / dt,
                "decisions_per_game": done_decisions / games if games else None,
            },
        )

    return Unit("engine", f"engine.decisions.p{n}.c{k}", f"decisions/s {n}p contract {k}", "/s", fn)


def _engine_full_game_unit(n: int, sizes: Sizes, seed: int) -> Unit:
    from carioca_env import Game, GameConfig

    cfg = GameConfig(num_players=n)
    budget = sizes.full_game_seconds

    def fn(rep: int) -> Sample:
        rng = random.Random(_seed(seed, "full", n))
        game_seed = _seed(seed, "full-game", n)
        games: list[dict[str, Any]] = []
        decisions = 0
        t0 = time.perf_counter()
        while len(games) < sizes.full_game_max_games:
            game = Game(cfg, seed=game_seed + len(games))
            g0, d0 = time.perf_counter(), decisions
            while not game.game_over:
                game.apply(rng.choice(game.legal_moves()))
                decisions += 1
                if not decisions & 1023 and time.perf_counter() - t0 > budget:
                    break
            if not game.game_over:
                partial = {
                    "seconds": time.perf_counter() - g0,
                    "decisions": decisions - d0,
                    "deals_completed": sum(1 for r in game.deal_results if not r.cancelled),
                    "deal_in_progress": game.deal_number,
                    "turn_in_progress": game.turn,
                }
                break
            partial = None
            games.append(
                {
                    "seconds": time.perf_counter() - g0,
                    "decisions": decisions - d0,
                    "turns_per_deal": [r.turns for r in game.deal_results if not r.cancelled],
                }
            )
            if time.perf_counter() - t0 > budget:
                break
        dt = time.perf_counter() - t0
        # elapsed time per completed game, the unfinished game's time included: the
        # inverse of games per second (a mean over finished games alone would favour
        # the short games that fit in the budget)
        return Sample(
            dt / len(games) if games else None,
            {
                "elapsed_s": dt,
                "mean_finished_game_s": statistics.mean(g["seconds"] for g in games) if games else None,
                "lower_bound_s": None if games else dt,
                "budget_s": budget,
                "games_completed": len(games),
                "games": games,
                "unfinished": partial,
                "decisions": decisions,
                "decisions_per_s": decisions / dt if dt else None,
                "games_per_s": len(games) / dt if dt else None,
            },
        )

    return Unit(
        "engine",
        f"engine.full_game.p{n}",
        f"seconds per full game {n}p (1-7)",
        "s",
        fn,
        higher_is_better=False,
        once=True,
        note=(f"measured once: up to {sizes.full_game_max_games} games within {budget:g} s; value = elapsed "
              f"time / games completed (unfinished game included); raise --full-game-seconds for more games"),
    )


def engine_units(sizes: Sizes, seed: int) -> list[Unit]:
    units = [
        _engine_decisions_unit(n, k, sizes, seed)
        for n in sizes.engine_players
        for k in sizes.engine_contracts
    ]
    if sizes.full_game_seconds > 0:
        units += [_engine_full_game_unit(n, sizes, seed) for n in sizes.engine_players]
    return units


# ---------------------------------------------------------------------------- env


def _env_unit(n: int, sizes: Sizes, seed: int) -> Unit:
    import numpy as np

    from carioca_env import carioca_v0

    def fn(rep: int) -> Sample:
        env = carioca_v0.env(num_players=n, max_turns=sizes.env_max_turns)
        rng = np.random.default_rng(_seed(seed, "env", n, rep))
        env.reset(seed=_seed(seed, "env-reset", n, rep))
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
        rng = np.random.default_rng(_seed(seed, "wrapper", rep))
        env.reset(seed=_seed(seed, "wrapper-reset", rep))
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
    return [_env_unit(n, sizes, seed) for n in sizes.env_players] + [_wrapper_unit(sizes, seed)]


# ---------------------------------------------------------------------------- masks


def _contract_hand(k: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """A hand of contract ``k`` that holds an opening (no jokers), and the rest of the deck."""
    from carioca_env import CONTRACTS, Meld
    from carioca_env.cards import deck_counts

    contract = CONTRACTS[k]
    while True:
        remaining = deck_counts()
        hand: list[int] = []
        melds = [Meld.trio(rng.randrange(1, 14), rng.sample(range(4), 3)) for _ in range(contract.trios)]
        melds += [Meld.run(rng.randrange(4), rng.randrange(1, 12)) for _ in range(contract.runs)]
        ok = True
        for meld in melds:
            for c in meld.cards:
                if remaining[c] == 0:
                    ok = False
                remaining[c] -= 1
                hand.append(c)
        if not ok:
            continue
        rest = [c for c in range(len(remaining)) for _ in range(remaining[c])]
        rng.shuffle(rest)
        fill = contract.hand_size - len(hand)
        hand += rest[:fill]
        return hand, rest[fill:]


def classify(state: Any) -> str | None:
    """The mask kind of a :class:`~carioca_env.env.CariocaState` (``None`` when over)."""
    from carioca_env import MoveKind, Phase, enumerate_openings

    game = state.game
    if game.phase is Phase.GAME_OVER:
        return None
    if state.pending:
        return "choosing_opening"
    if game.phase is Phase.DRAW:
        return "draw"
    if game.phase is Phase.DISCARD:
        return "discard_only"
    seat = game.current_player
    if not game.opened[seat]:
        return "play_opening" if enumerate_openings(game.hands[seat], game.contract) else "play_no_opening"
    if any(m.kind in (MoveKind.LAY_OFF, MoveKind.SWAP) for m in game.legal_moves()):
        return "after_opening"
    return None


def collect_states(n: int, per_kind: int, max_games: int, seed: int) -> dict[str, list[Any]]:
    """States of every mask kind from biased random play on stacked deals.

    Seat 0 is dealt a hand holding an opening of the game's contract (contracts cycle
    1..7); every seat opens whenever it can, lays off or swaps most of the time, and
    otherwise plays uniformly at random.  At most 3 states of a kind are taken from one
    game (common kinds are also thinned) so the samples spread over games and contracts.
    """
    import numpy as np

    from carioca_env import Game, GameConfig, stack_deck
    from carioca_env.actions import ActionKind
    from carioca_env.env import CariocaState

    rng = random.Random(_seed(seed, "collect", n))
    out: dict[str, list[Any]] = {kind: [] for kind, _ in MASK_KINDS}
    thin = {"draw": 0.05, "play_no_opening": 0.1, "discard_only": 0.5}
    table = None
    for g in range(max_games):
        if all(len(v) >= per_kind for v in out.values()):
            break
        k = g % 7 + 1
        hand, rest = _contract_hand(k, rng)
        size = len(hand)
        hands = [hand] + [rest[i * size:(i + 1) * size] for i in range(n - 1)]
        upcard = rest[(n - 1) * size]
        deck = stack_deck(hands, upcard, dealer=n - 1)
        game = Game.from_deck(deck, n - 1, GameConfig(num_players=n, deals=(k,)), seed=rng.getrandbits(32))
        state = CariocaState(game)
        table = table or state.table
        r = table.ranges
        open_ids = r[ActionKind.OPEN_MELD]
        meld_ids = (r[ActionKind.LAY_OFF].start, r[ActionKind.SWAP].stop)
        taken: dict[str, int] = {}
        for _ in range(600):
            kind = classify(state)
            if kind is None:
                break
            if (
                len(out[kind]) < per_kind
                and taken.get(kind, 0) < 3
                and rng.random() < thin.get(kind, 1.0)
            ):
                out[kind].append(copy.deepcopy(state, {id(state.table): state.table}))
                taken[kind] = taken.get(kind, 0) + 1
            legal = np.flatnonzero(state.mask())
            opens = [a for a in legal if a in open_ids]
            melds = [a for a in legal if meld_ids[0] <= a < meld_ids[1]]
            if opens:
                action = rng.choice(opens)
            elif melds and rng.random() < 0.7:
                action = rng.choice(melds)
            else:
                action = rng.choice(list(legal))
            state.step(int(action))
    return out


def mask_units(sizes: Sizes, seed: int) -> list[Unit]:
    units = []
    for n in sizes.mask_players:
        cache: dict[str, Any] = {}

        def states(n: int = n, cache: dict[str, Any] = cache) -> dict[str, list[Any]]:
            if "states" not in cache:
                cache["states"] = collect_states(n, sizes.mask_states, sizes.mask_collect_games, seed)
            return cache["states"]

        for kind, label in MASK_KINDS:

            def fn(rep: int, kind: str = kind, states: Callable[[], dict] = states) -> Sample:
                sample = states()[kind]
                if not sample:
                    return Sample(None, {"states": 0})
                per_state = []
                legal = []
                for st in sample:
                    best = math.inf
                    for _ in range(sizes.mask_calls):
                        st.forget()  # from scratch: melding moves generated, mask built
                        t0 = time.perf_counter()
                        m = st.mask()
                        best = min(best, time.perf_counter() - t0)
                    per_state.append(best * 1e6)  # the fastest call: least disturbed by load
                    legal.append(int(m.sum()))
                return Sample(
                    statistics.mean(per_state),
                    {
                        "states": len(sample),
                        "worst_state_us": max(per_state),
                        "median_state_us": statistics.median(per_state),
                        "mean_legal_actions": statistics.mean(legal),
                    },
                )

            units.append(
                Unit("masks", f"masks.p{n}.{kind}", f"mask {n}p: {label}", "us", fn, higher_is_better=False,
                     note="built from scratch, melding moves generated (until 2026-11 the moves were reused)")
            )

        def obs_fn(rep: int, states: Callable[[], dict] = states) -> Sample:
            from carioca_env.observation import GameEncoder, encode_observation

            sample = [st for v in states().values() for st in v]
            t_view = t_enc = t_fast = 0.0
            for st in sample:
                seat = st.game.current_player
                pending = st.pending
                best_view = best_enc = best_fast = math.inf
                for _ in range(sizes.mask_calls):
                    encoder = GameEncoder(st.game.num_players)  # cold: nothing cached yet
                    t0 = time.perf_counter()
                    view = st.game.view(seat)
                    t1 = time.perf_counter()
                    encode_observation(view, pending)
                    t2 = time.perf_counter()
                    encoder.encode(st.game, seat, pending)
                    t3 = time.perf_counter()
                    best_view = min(best_view, t1 - t0)
                    best_enc = min(best_enc, t2 - t1)
                    best_fast = min(best_fast, t3 - t2)
                t_view += best_view
                t_enc += best_enc
                t_fast += best_fast
            if not sample:
                return Sample(None)
            n_states = len(sample)
            return Sample(
                (t_view + t_enc) / n_states * 1e6,
                {"states": n_states, "view_us": t_view / n_states * 1e6, "encode_us": t_enc / n_states * 1e6,
                 "game_encoder_cold_us": t_fast / n_states * 1e6},
            )

        units.append(
            Unit("masks", f"masks.p{n}.observation", f"observation {n}p: view + encode (reference path)", "us",
                 obs_fn, higher_is_better=False,
                 note="game_encoder_cold_us: the env's GameEncoder with nothing cached (its worst case)")
        )
    return units


# ---------------------------------------------------------------------------- reference


def _sample_chance(state: Any, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    x = rng.random()
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if x < acc:
            return action
    return outcomes[-1][0]


def _openspiel_unit(sizes: Sizes, seed: int, with_obs: bool) -> Unit:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")

    def fn(rep: int) -> Sample:
        rng = random.Random(_seed(seed, "openspiel", with_obs, rep))
        state = game.new_initial_state()
        decisions = chance = games = 0
        t0 = time.perf_counter()
        while decisions < sizes.ref_decisions:
            if state.is_terminal():
                games += 1
                state = game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(_sample_chance(state, rng))
                chance += 1
            else:
                if with_obs:
                    state.observation_tensor()
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        dt = time.perf_counter() - t0
        return Sample(
            decisions / dt,
            {"decisions": decisions, "chance_actions": chance, "games_completed": games, "seconds": dt,
             "all_actions_per_s": (decisions + chance) / dt},
        )

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
        rng = random.Random(_seed(seed, "rlcard", rep))
        env = rlcard.make("gin-rummy", config={"seed": _seed(seed, "rlcard-env", rep)})
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
    units = []
    try:
        importlib.import_module("pyspiel")
    except ImportError:
        messages.append("OpenSpiel is not installed (pip install .[bench], or pip install open_spiel): skipped")
    else:
        units += [_openspiel_unit(sizes, seed, False), _openspiel_unit(sizes, seed, True)]
    try:
        importlib.import_module("rlcard")
    except ImportError:
        messages.append("RLCard is not installed (pip install .[bench], or pip install rlcard): skipped")
    else:
        units.append(_rlcard_unit(sizes, seed))
    return units


# ---------------------------------------------------------------------------- ppo


def _synthetic_env_class() -> type:
    import gymnasium
    import numpy as np
    from gymnasium import spaces

    class _Synthetic(gymnasium.Env):
        """Spaces of the real env, costing nothing: pooled random observations and masks
        with a few legal actions, fixed episode length, reward at the end."""

        metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

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


#: The run whose environment the ``ppo`` section trains: ``carioca train``'s defaults
#: (contract 1, 2 players, a random opponent).
PPO_TRAIN_CONFIG = {"contract": 1, "players": 2, "opponents": ("random",)}


def make_real_env() -> Any:
    """The environment ``carioca train`` builds (the wrapper with scored truncation and no
    mask in the info), for the run :data:`PPO_TRAIN_CONFIG` (picklable factory)."""
    from experiments.train import TrainConfig, make_env

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
    knobs = {k: settings[k] for k in ("torch_threads", "validate_args", "policy") if k in settings}
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
        factory = functools.partial(make_synthetic_env, _seed(seed, "synthetic")) if synthetic else make_real_env
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
            from agents.ppo_policy import CariocaMaskablePolicy

            policy = CariocaMaskablePolicy
        return MaskablePPO(policy, env, seed=_seed(seed, "ppo", name), verbose=0, device="cpu", **kwargs)

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


#: PPO measurements: name -> (label, settings or None for the library defaults, synthetic
#: env).  ``defaults_1thread`` is the library defaults with ``torch.set_num_threads(1)``,
#: to separate the effect of threads from that of the hyperparameters.
PPO_CONFIGS: dict[str, tuple[str, dict[str, Any] | None, bool]] = {
    "real.defaults": ("PPO defaults, real env", None, False),
    "real.defaults_1thread": ("PPO defaults + 1 thread, real env", {"torch_threads": 1}, False),
    "synthetic.defaults_1thread": ("PPO defaults + 1 thread, synthetic env", {"torch_threads": 1}, True),
    "real.settings": ("PPO TRAIN_SETTINGS, real env", TRAIN_SETTINGS, False),
    "synthetic.settings": ("PPO TRAIN_SETTINGS, synthetic env", TRAIN_SETTINGS, True),
    "real.settings.1env": ("PPO TRAIN_SETTINGS, 1 env", {**TRAIN_SETTINGS, "n_envs": 1}, False),
    "real.settings.dummy2": ("PPO TRAIN_SETTINGS, 2 envs DummyVecEnv",
                             {**TRAIN_SETTINGS, "n_envs": 2, "vec_env": "dummy"}, False),
    "real.settings.subproc2": ("PPO TRAIN_SETTINGS, 2 envs SubprocVecEnv",
                               {**TRAIN_SETTINGS, "n_envs": 2, "vec_env": "subproc"}, False),
}


def ppo_units(sizes: Sizes, seed: int) -> list[Unit]:
    units = []
    for name in sizes.ppo_configs:
        label, settings, synthetic = PPO_CONFIGS[name]
        units.append(_ppo_unit(name, f"{label} steps/s", settings, synthetic, sizes, seed))
    return units


# ---------------------------------------------------------------------------- ratios

#: (ratio key, our metric, reference metric, what the ratio column says)
def _ratio_specs(sizes: Sizes) -> list[tuple[str, str, str, str]]:
    specs = []
    if 2 in sizes.engine_players:
        for k in sizes.engine_contracts:
            specs.append((f"engine.p2.c{k}/openspiel", f"engine.decisions.p2.c{k}", "ref.openspiel.decisions",
                          "OpenSpiel legal+apply"))
    if 2 in sizes.env_players:
        specs += [
            ("env.p2/rlcard", "env.aec.p2", "ref.rlcard.steps", "RLCard env.step"),
            ("env.p2/openspiel_obs", "env.aec.p2", "ref.openspiel.decisions_obs", "OpenSpiel +obs tensor"),
        ]
    from experiments.bench_clone import CLONE_RATIOS

    specs += CLONE_RATIOS
    specs += [
        ("ppo.settings/defaults", "ppo.real.settings", "ppo.real.defaults", "defaults"),
        ("ppo.settings/defaults_1thread", "ppo.real.settings", "ppo.real.defaults_1thread", "defaults+1 thread"),
        ("ppo.defaults_1thread/defaults", "ppo.real.defaults_1thread", "ppo.real.defaults", "defaults"),
        ("ppo.real/synthetic", "ppo.real.settings", "ppo.synthetic.settings", "synthetic env"),
        ("ppo.defaults_1thread.real/synthetic", "ppo.real.defaults_1thread", "ppo.synthetic.defaults_1thread",
         "synthetic env"),
        ("ppo.settings/1env", "ppo.real.settings", "ppo.real.settings.1env", "1 env"),
        ("ppo.dummy2/1env", "ppo.real.settings.dummy2", "ppo.real.settings.1env", "1 env"),
        ("ppo.subproc2/1env", "ppo.real.settings.subproc2", "ppo.real.settings.1env", "1 env"),
    ]
    return specs


def compute_ratios(metrics: dict[str, dict[str, Any]], sizes: Sizes) -> list[dict[str, Any]]:
    """Ratio of our median to the reference's, and the per-repetition (paired) ratios."""
    out = []
    for key, ours, ref, against in _ratio_specs(sizes):
        a, b = metrics.get(ours), metrics.get(ref)
        if not a or not b or not a["median"] or not b["median"]:
            continue
        paired = [
            x / y for x, y in zip(a["values"], b["values"])
            if x is not None and y is not None and y > 0
        ]
        out.append(
            {
                "key": key,
                "ours": ours,
                "reference": ref,
                "against": against,
                "ratio": a["median"] / b["median"],
                "paired_median": statistics.median(paired) if paired else None,
                "paired_min": min(paired) if paired else None,
                "paired_max": max(paired) if paired else None,
            }
        )
    return out


# ---------------------------------------------------------------------------- machine


def _git(*args: str) -> str | None:
    try:
        res = subprocess.run(["git", *args], check=False, capture_output=True, text=True, timeout=10,
                             cwd=Path(__file__).resolve().parent.parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def machine_info() -> dict[str, Any]:
    """Where the figures were taken: Python, CPUs, load, package versions, git commit."""
    versions = {}
    for pkg in ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "open_spiel",
                "rlcard", "tqdm", "carioca-env"):
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    try:
        import torch

        torch_threads = torch.get_num_threads()
    except ImportError:
        torch_threads = None
    status = _git("status", "--porcelain")
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_available": affinity,
        "torch_threads": torch_threads,
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "packages": versions,
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(status) if status is not None else None,
    }


# ---------------------------------------------------------------------------- profile


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
    file = file or sys.stdout
    for name, p in prof.items():
        print(f"\nProfile {name}: {p['profiled_s']:.2f} s profiled (wall {p['wall_s']:.2f} s)", file=file)
        for title, rows, share in (("own time", p["by_own_time"], "own_share"),
                                   ("cumulative", p["by_cumulative"], "cum_share")):
            print(f"  top by {title}:", file=file)
            for r in rows:
                print(f"    {100 * r[share]:5.1f}%  {r['calls']:>9,}  {r['function']}", file=file)


# ---------------------------------------------------------------------------- runner


def build_units(sections: Sequence[str], sizes: Sizes, seed: int, messages: list[str]) -> list[Unit]:
    units: list[Unit] = []
    for section in sections:
        try:
            if section == "engine":
                units += engine_units(sizes, seed)
            elif section == "env":
                units += env_units(sizes, seed)
            elif section == "masks":
                units += mask_units(sizes, seed)
            elif section == "reference":
                units += reference_units(sizes, seed, messages)
            elif section == "clone":  # experiments/bench_clone.py: what search pays per simulation
                from experiments.bench_clone import clone_units

                units += clone_units(sizes, seed, messages, Unit)
            elif section == "ppo":
                units += ppo_units(sizes, seed)
            else:
                raise ValueError(f"unknown section {section!r} (choose from {', '.join(SECTIONS)})")
        except ImportError as exc:
            messages.append(f"section {section} skipped: {exc}")
    return units


def run_bench(
    sections: Sequence[str] = SECTIONS,
    sizes: Sizes = FULL,
    seed: int = 0,
    repeats: int = 3,
    progress: bool = True,
    profile: bool = False,
) -> dict[str, Any]:
    """Run the measurements and return the result document (see the module docstring)."""
    messages: list[str] = []
    started = time.time()
    machine = machine_info()
    units = build_units(sections, sizes, seed, messages)
    reps = {u.key: (1 if u.once else min(repeats, u.max_repeats or repeats)) for u in units}
    samples: dict[str, list[Sample]] = {u.key: [] for u in units}
    errors: list[dict[str, str]] = []
    failed: set[str] = set()
    bar = None
    if progress:
        try:
            from experiments.progress import progress_bar

            bar = progress_bar(total=sum(reps.values()), unit="run", file=sys.stderr)
        except ImportError:  # tqdm missing: no bar
            bar = None

    def measure(u: Unit, rep: int) -> None:
        if bar is not None:
            bar.set_description(f"{u.section} rep {rep + 1}/{reps[u.key]} {u.key}")
        if u.key not in failed:
            try:
                samples[u.key].append(u.fn(rep))
            except Exception as exc:  # noqa: BLE001 - one failing measurement must not stop the run
                failed.add(u.key)
                errors.append({"key": u.key, "error": f"{type(exc).__name__}: {exc}"})
        if bar is not None:
            bar.update(1)

    # round-robin: repetition r of every measurement before repetition r+1 of any
    for rep in range(max(reps.values(), default=0)):
        for u in units:
            if not u.once and rep < reps[u.key]:
                measure(u, rep)
    for u in units:
        if u.once:
            measure(u, 0)
    if bar is not None:
        bar.close()
    for u in units:
        if u.cleanup is not None:
            try:
                u.cleanup()
            except Exception as exc:  # noqa: BLE001
                errors.append({"key": u.key, "error": f"cleanup: {type(exc).__name__}: {exc}"})

    metrics: dict[str, dict[str, Any]] = {}
    for u in units:
        ss = samples[u.key]
        metrics[u.key] = {
            "section": u.section,
            "label": u.label,
            "unit": u.unit,
            "higher_is_better": u.higher_is_better,
            "note": u.note,
            **summarize([s.value for s in ss]),
            "extra": [s.extra for s in ss],
        }
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "created": _dt.datetime.fromtimestamp(started).isoformat(timespec="seconds"),
        "elapsed_s": None,
        "seed": seed,
        "repeats": repeats,
        "sections": list(sections),
        "sizes": asdict(sizes),
        "train_settings": TRAIN_SETTINGS,
        "ppo_env": {**PPO_ENV, "deals": list(PPO_ENV["deals"])},
        "ppo_train_config": {**PPO_TRAIN_CONFIG, "opponents": list(PPO_TRAIN_CONFIG["opponents"])},
        "machine": machine,
        "metrics": metrics,
        "ratios": compute_ratios(metrics, sizes),
        "messages": messages,
        "errors": errors,
    }
    if profile:
        doc["profile"] = profile_hotspots(seed)
    doc["elapsed_s"] = time.time() - started
    doc["machine"]["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return doc


# ---------------------------------------------------------------------------- output


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "us":
        return f"{value:,.1f} us"
    if unit == "s":
        return f"{value:,.2f} s"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2f}"


def _extra_text(key: str, m: dict[str, Any]) -> str:
    extras = [e for e in m["extra"] if e]
    if not extras:
        return ""
    e0 = extras[0]
    if key.startswith("engine.decisions"):
        games = [e["games_per_s"] for e in extras]
        done = sum(e["games_completed"] for e in extras)
        dpg = [e["decisions_per_game"] for e in extras if e["decisions_per_game"]]
        if not done:
            return f"no game finished in {e0['decisions']:,} decisions"
        return (f"games/s {statistics.median(games):.3g} ({done} games; "
                f"{statistics.mean(dpg):,.0f} decisions/game)")
    if key.startswith("engine.full_game"):
        text = f"{e0['games_completed']} games, {e0['decisions_per_s']:,.0f} decisions/s"
        if e0["lower_bound_s"]:
            text = f"no game finished: >= {e0['lower_bound_s']:.0f} s per game; " + text
        if e0["unfinished"]:
            u = e0["unfinished"]
            text += (f"; unfinished game: {u['seconds']:.0f} s, deal {u['deal_in_progress']} "
                     f"at turn {u['turn_in_progress']:,}")
        return text
    if key.startswith("masks.") and key.endswith("observation"):
        med = {k: statistics.median(e[k] for e in extras) for k in ("view_us", "encode_us", "game_encoder_cold_us")}
        return (f"view {med['view_us']:.1f} + encode {med['encode_us']:.1f} us; env's GameEncoder cold "
                f"{med['game_encoder_cold_us']:.1f} us; {e0['states']} states")
    if key.startswith("masks."):
        return f"{e0['states']} states, worst {max(e['worst_state_us'] for e in extras):,.0f} us, {e0['mean_legal_actions']:.1f} legal"
    if key.startswith("ppo."):
        share = statistics.median(e["rollout_share"] for e in extras)
        return f"rollout {100 * share:.0f}% of time, update {statistics.median(e['update_s'] for e in extras):.2f} s"
    if key.startswith("env.aec"):
        return f"{sum(e['resets'] for e in extras)} resets"
    return ""


def format_table(doc: dict[str, Any]) -> str:
    """The result as a text table: section, metric (with its notes below it), median, min, max, ratio.

    Notes and ratios wrap inside their cells, so no line grows past the longest metric
    label plus the figures (about 120 columns); sections are separated by a rule.
    """
    from experiments.tables import text_table, wrap_cell

    ratios: dict[str, list[dict[str, Any]]] = {}
    for r in doc["ratios"]:
        ratios.setdefault(r["ours"], []).append(r)
    label_width = max((len(m["label"]) for m in doc["metrics"].values()), default=20)
    rows = []
    for key, m in doc["metrics"].items():
        ratio_text = "\n".join(f"{r['ratio']:.2f}x {r['against']}" for r in ratios.get(key, []))
        notes = _extra_text(key, m)
        metric = m["label"] + ("\n" + "\n".join("  " + line for line in wrap_cell(notes, label_width - 2).splitlines())
                               if notes else "")
        rows.append([m["section"], metric, _fmt(m["median"], m["unit"]), _fmt(m["min"], m["unit"]),
                     _fmt(m["max"], m["unit"]), ratio_text])
    return text_table(["section", "metric (notes below)", "median", "min", "max", "ratio"], rows,
                      align=["left", "left", "right", "right", "right", "left"])


#: Width of the report's prose lines (the table stays about as wide).
_WIDTH = 110


def report(doc: dict[str, Any], file: Any = None) -> None:
    """Print the table, the ratios' reading guide, messages and errors."""
    file = file or sys.stdout
    mc = doc["machine"]
    print(f"carioca bench: seed {doc['seed']}, {doc['repeats']} repeats, sections {' '.join(doc['sections'])}", file=file)
    print(f"Python {mc['python']}, {mc['cpu_count']} CPUs, load {mc['loadavg'] and round(mc['loadavg'][0], 2)}, "
          f"commit {(mc['git_commit'] or '?')[:10]}{'+dirty' if mc['git_dirty'] else ''}", file=file)
    print("Figures are median, min and max over repetitions; ratios are ours / theirs, from the medians.\n",
          file=file)
    print(format_table(doc), file=file)
    if doc["ratios"] or "reference" in doc["sections"]:
        print("\n" + textwrap.fill(
            "References: gin rummy is a different game (one 52-card deck, two players, 10-card hands); "
            "comparisons are like with like: engine decisions/s vs OpenSpiel legal_actions+apply_action, "
            "environment steps/s (observation+mask every step) vs RLCard env.step and vs OpenSpiel with "
            "observation_tensor. OpenSpiel counts player decisions only (chance nodes sampled, not counted).",
            _WIDTH), file=file)
    if doc["ratios"]:
        print("\nRatios (ours / reference; paired per-repetition ratio median [min, max]):", file=file)
        for r in doc["ratios"]:
            paired = ""
            if r["paired_median"] is not None:
                paired = f"  [{r['paired_min']:.2f}, {r['paired_max']:.2f}] paired {r['paired_median']:.2f}"
            print(f"  {r['ours']:<28} / {r['reference']:<28} {r['ratio']:6.2f}x{paired}", file=file)
    notes = [(k, m["note"]) for k, m in doc["metrics"].items() if m["note"]]
    if notes:
        print("\nNotes:", file=file)
        for k, note in notes:
            print(textwrap.fill(f"{k}: {note}", _WIDTH, initial_indent="  ", subsequent_indent="    "), file=file)
    if "engine" in doc["sections"] and doc["sizes"]["full_game_seconds"] <= 0:
        print("  engine.full_game: skipped (quick mode); a random 7-deal game takes minutes "
              "(deal 7 alone can take ~100k+ turns)", file=file)
    for msg in doc["messages"]:
        print(textwrap.fill(f"note: {msg}", _WIDTH, initial_indent="  ", subsequent_indent="    "), file=file)
    for err in doc["errors"]:
        print(f"  ERROR {err['key']}: {err['error']}", file=file)
    if "profile" in doc:
        print_profile(doc["profile"], file=file)
    print(f"\nElapsed {doc['elapsed_s']:.0f} s.", file=file)


# ---------------------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca bench``."""
    parser.add_argument("--seed", type=int, default=0, help="seed of every measurement (default 0)")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, skips full games and some PPO variants (under a minute)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="repetitions of each measurement (default 3; 2 with --quick)")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON result path (default results/bench-<timestamp>.json)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=None, metavar="SECTION",
                        help=f"sections to run, from: {', '.join(SECTIONS)} (default all)")
    parser.add_argument("--full-game-seconds", type=float, default=None,
                        help="time budget per player count for full random 7-deal games, measured once "
                             "(default 45; 0 skips; a random game takes ~10 s to several minutes)")
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile engine random play and env steps and print the top costs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark, print the table and write the JSON file."""
    sizes = QUICK if args.quick else FULL
    if args.full_game_seconds is not None:
        sizes = replace(sizes, full_game_seconds=args.full_game_seconds)
    repeats = args.repeats if args.repeats is not None else (2 if args.quick else 3)
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    sections = tuple(args.only) if args.only else SECTIONS
    sections = tuple(s for s in SECTIONS if s in sections)
    out = args.out or Path("results") / f"bench-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    check_writable_file(out, "--out")  # before minutes of measuring, not after
    doc = run_bench(sections, sizes, args.seed, repeats, progress=not args.no_progress, profile=args.profile)
    report(doc)
    write_atomic(out, json.dumps(doc, indent=1, default=str) + "\n")
    print(f"Results written to {out}")
    return 1 if doc["errors"] else 0
