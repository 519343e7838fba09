"""What ``carioca bench`` measures and how much: the sections, the sizes, the PPO settings.

:class:`Sizes` holds how much work each measurement does; :data:`FULL` is the default
run, :data:`QUICK` the ``--quick`` one.  :data:`TRAIN_SETTINGS`, :data:`PPO_ENV`,
:data:`PPO_TRAIN_CONFIG` and :data:`PPO_CONFIGS` say what the ``ppo`` section trains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from carioca_experiments.training.train import DEFAULT_N_ENVS, DEFAULT_VEC
from carioca_experiments.training.train import TRAIN_SETTINGS as _TRAIN

SECTIONS = ("engine", "env", "masks", "reference", "clone", "ppo", "play")

#: Training settings of the ``ppo`` section (compared with MaskablePPO's defaults): the
#: project's own, :data:`carioca_experiments.training.train.TRAIN_SETTINGS` with the way ``carioca train``
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
    "policy": "carioca",  # carioca_agents.ppo_policy.CariocaMaskablePolicy: no torch.multinomial
    "torch_threads": 1,
    "validate_args": False,
    "n_envs": DEFAULT_N_ENVS,
    "vec_env": DEFAULT_VEC,
}

#: The single-agent configuration trained in the ``ppo`` section.
PPO_ENV: dict[str, Any] = {"num_players": 2, "deals": (1,), "reward_scale": 0.01, "max_turns": 200}


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
    play_heuristic_decisions: int = 4_000  # play section: heuristic decisions per repetition
    play_tournament_decks: int = 3  # decks per contract of the tournament (2 lineups each)
    play_wrapper_steps: int = 3_000  # wrapper learner steps, heuristic opponent
    play_search_states: int = 8  # states the search agent decides at
    play_search_sims: int = 16  # its budget


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
    play_heuristic_decisions=1_000,
    play_tournament_decks=1,
    play_wrapper_steps=800,
    play_search_states=3,
    play_search_sims=8,
)


#: The run whose environment the ``ppo`` section trains: ``carioca train``'s defaults
#: (contract 1, 2 players, a random opponent).
PPO_TRAIN_CONFIG: dict[str, Any] = {"contract": 1, "players": 2, "opponents": ("random",)}

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
