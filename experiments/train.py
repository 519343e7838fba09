"""``carioca train``: MaskablePPO on one learning seat, with a learning curve from duplicate deals.

Usage::

    carioca train --contract 1 --steps 200000 --out models/contract1
    carioca train --contract full --opponents random greedy --out runs/full
    carioca train --contract 3 --self-play --steps 500000 --out runs/c3-self
    carioca train --contract 1 --steps 400000 --out models/contract1   # resume / extend
    carioca train --contract 1 --n-envs 2 --vec subproc                # one process per env

or from Python::

    from experiments.train import TrainConfig, train
    config = TrainConfig(contract=1, steps=2_048, eval_decks=2, eval_opponents=("random",))
    result = train(config, "runs/c1", progress=False)     # a smoke run of a few seconds
    result.model_path, result.eval_rows[-1]

What is trained
    sb3-contrib ``MaskablePPO`` (an MLP policy) on :class:`~carioca_env.wrappers.CariocaSingleAgentEnv`
    with penalty rewards (minus the deal penalty, times ``reward_scale``), the learner's
    seat drawn per episode, and the other seats played by opponents: every episode each
    opponent seat draws one agent from ``--opponents`` (registry specs, default
    ``random``).  With ``--self-play`` an opponent seat plays, with probability
    ``--self-play-prob``, a frozen snapshot of the learner drawn from the last
    ``--pool-size`` snapshots (saved every ``--snapshot-every`` steps in
    ``OUT/snapshots``; the policy samples from its masked distribution), and otherwise one
    of ``--opponents``.  A deal cut off at ``max_turns`` (R17) is scored as the
    tournament scores it: the learner receives minus the penalty of the cards it still
    holds and the episode ends (so stalling never pays).

    The settings are :data:`TRAIN_SETTINGS` (fast ones for two CPU cores; ``--set
    KEY=VALUE`` overrides one).  ``--n-envs N`` environments (default 8) run in this
    process (``--vec dummy``, the default: on 2 cores one batched forward pass for 8
    steps beats worker processes, which pay pipe round trips per step), or one worker
    process each (``--vec subproc``; ``--vec auto``: subprocesses when N > 1, one
    in-process env when N = 1).  Every environment is the wrapper plus
    :class:`ScoreTruncation`, which also exposes ``action_masks`` for MaskablePPO.

What is written in ``--out``
    ``model.zip`` + ``model.json`` (the final model and its card: command line, seed,
    package versions, steps, wall time, layout fingerprint, players, contract, settings
    and the last evaluation; the zip holds no optimizer state, to stay small),
    ``eval.csv`` (the learning curve), ``run.json`` (what defines the run),
    ``checkpoints/ckpt_<steps>.zip`` (full state, every ``--checkpoint-every`` steps, the
    last three kept), ``tb/`` (TensorBoard, when ``tensorboard`` is installed),
    ``snapshots/`` (self-play).  ``--clean`` keeps only the model, its card,
    ``eval.csv`` and ``run.json`` at the end (a folder to ship, e.g. ``models/contract1``).

Evaluation (the learning curve)
    Every ``--eval-every`` steps (and at the end) the current model is saved to
    ``OUT/eval/current.zip`` and plays a duplicate tournament (:mod:`experiments.tournament`,
    one process) as ``ppo:OUT/eval/current.zip`` against each ``--eval-opponents`` agent
    on the trained contract (all seven for ``full``), ``--eval-decks`` decks per contract,
    fixed seed ``--eval-seed``: the same deals at every evaluation.  One row per opponent
    goes to ``eval.csv``: steps, the learner's and the opponent's mean penalty per deal
    with 95% intervals, their paired difference (learner - opponent, negative = learner
    better) with its interval, the learner's open and win rates, truncated deals and the
    wall time.  The same numbers go to TensorBoard (``eval/<opponent>/...``) and the
    progress bar.

Resuming
    Run the same command again: when ``OUT/checkpoints`` holds a checkpoint the run
    resumes from the latest one (model, optimizer and ``num_timesteps``) and continues to
    ``--steps`` (which may be raised to train further); learning-curve rows after the
    checkpoint are dropped and evaluated again.  Ctrl-C saves a checkpoint first.  A
    folder without checkpoints (``--clean``) continues from ``model.zip`` with a fresh
    optimizer state.  The options that define the run must be the same (the error lists
    the differences); ``--overwrite`` starts afresh.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import io
import json
import math
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium

from carioca_env.observation import FEATURE_SETS

ALL_CONTRACTS = (1, 2, 3, 4, 5, 6, 7)

#: MaskablePPO settings for a 2-core CPU (one constant; ``experiments/bench.py`` may import it).
#: ``rollout_steps`` is the rollout over all environments (``n_steps`` per env is
#: ``rollout_steps // n_envs``).  Chosen for learning per wall-clock second on this
#: machine (contract 1 against random, seeds 0-4): many small updates on short rollouts
#: (1,024 steps, batch 256, 4 epochs, learning rate 1e-3) beat random significantly by
#: ~25k steps with every seed, where 2,048-4,096-step rollouts at 3e-4 to 5e-4 needed
#: 30-40k or more; one hidden layer of 64 (as in ``carioca bench``) learned as fast per
#: step as [128, 128] at 100k steps, runs twice as fast and makes a ~1 MB model.  The
#: environments run in one process (``DummyVecEnv``, 8 of them: one batched forward
#: pass per 8 steps), with one torch thread and no distribution argument checks.
TRAIN_SETTINGS: dict[str, Any] = {
    "net_arch": [64],           # separate policy and value MLPs of this shape
    "rollout_steps": 1024,      # n_steps * n_envs
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 1e-3,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
    "reward_scale": 0.01,       # rewards are minus penalty / 100
    "max_turns": 300,           # turns per deal before truncation (R17)
    "features": "base",         # observation variant: base, planning or discards (carioca_env.planning)
    "card_head": 0,             # 1: the policy also scores every card type with one shared small
                                # net (agents.ppo_policy.CardScores), an input of the action layer
    # fine-tuning from an imitation model (--init); all off for a fresh model
    "kl_coef": 0.0,             # weight of KL(pi || pi_init) in the policy loss at step 0
    "kl_decay_steps": 0,        # ... decaying linearly to 0 over this many steps (0: constant)
    "value_warmup_updates": 0,  # first PPO updates train the value net only (policy frozen)
}

_FINE_TUNE_SETTINGS = ("features", "card_head", "kl_coef", "kl_decay_steps", "value_warmup_updates")

#: Environments per run and how they are vectorized (``--n-envs``, ``--vec``).
DEFAULT_N_ENVS = 8
DEFAULT_VEC = "dummy"

#: Options that define a run (a resumed run must repeat them).
_DEFINING = ("contract", "players", "opponents", "self_play", "self_play_prob", "pool_size",
             "snapshot_every", "seed", "n_envs", "settings", "init")

EVAL_COLUMNS = (
    "steps", "opponent", "contracts", "decks", "deals",
    "learner_mean", "learner_ci_low", "learner_ci_high",
    "opponent_mean", "opponent_ci_low", "opponent_ci_high",
    "diff_mean", "diff_ci_low", "diff_ci_high",
    "learner_open_rate", "learner_win_rate", "truncated", "wall_time_s",
)


class TrainError(ValueError):
    """A training run that cannot start or resume: a bad option or setting (the message
    names it, what it got and what is allowed) or a folder that holds another run."""


@dataclass(frozen=True)
class SettingSpec:
    """What one entry of :data:`TRAIN_SETTINGS` accepts: a number type and a range.

    ``low``/``high`` are inclusive unless ``low_open``/``high_open`` (then strict);
    ``None`` means unbounded.  ``net_arch`` is a list of layer widths (``kind="layers"``).
    """

    kind: str  # "int", "float", "layers" or "choice"
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()

    def allowed(self) -> str:
        """The allowed values in words (for error messages)."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "layers":
            return "a comma-separated list of 1-8 layer widths, each an integer 1..4096 (e.g. 64,64)"
        def num(x: float) -> str:
            return str(int(x)) if float(x).is_integer() else f"{x:g}"

        lo = "" if self.low is None else f"{'>' if self.low_open else '>='} {num(self.low)}"
        hi = "" if self.high is None else f"{'<' if self.high_open else '<='} {num(self.high)}"
        what = "an integer" if self.kind == "int" else "a number"
        return f"{what} {' and '.join(x for x in (lo, hi) if x)}".strip()

    def check(self, key: str, value: Any) -> Any:
        """``value`` converted to this setting's type; raises :class:`TrainError` naming the
        setting, what it got and what is allowed."""
        def bad() -> TrainError:
            return TrainError(f"setting {key}: got {_excerpt(value)}; allowed: {self.allowed()}")

        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise bad()
            return value
        if self.kind == "layers":
            items = value.split(",") if isinstance(value, str) else value
            if not isinstance(items, (list, tuple)) or not 1 <= len(items) <= 8:
                raise bad()
            try:
                widths = [_as_int(x) for x in items]
            except (TypeError, ValueError):
                raise bad() from None
            if any(not 1 <= w <= 4096 for w in widths):
                raise bad()
            return widths
        try:
            x: float = _as_int(value) if self.kind == "int" else _as_float(value)
        except (TypeError, ValueError):
            raise bad() from None
        if not math.isfinite(x):
            raise bad()
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            raise bad()
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            raise bad()
        return x


def parse_contract(value: Any, error: type[TrainError] = TrainError) -> int | str:
    """A contract option as the configs hold it: 1..7 (an int or its digits) or ``"full"``.

    Raises:
        error: anything else (``TrainError``, or the caller's subclass of it).
    """
    c = int(value) if isinstance(value, str) and value.isdigit() else value
    if c != "full" and c not in ALL_CONTRACTS:
        raise error(f"--contract must be 1..7 or full, got {value!r}")
    return c


def _excerpt(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"


def _as_int(value: Any) -> int:
    """An integer from an int or its text (``"256"``, ``"1e3"`` when whole); refuses bools and fractions."""
    if isinstance(value, bool):
        raise TypeError("a bool is not an integer")
    if isinstance(value, int):
        return value
    x = float(value) if isinstance(value, (str, float)) else float("nan")
    if not math.isfinite(x) or x != int(x):
        raise ValueError(f"{value!r} is not an integer")
    return int(x)


def _as_float(value: Any) -> float:
    if isinstance(value, bool):
        raise TypeError("a bool is not a number")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value)
    raise TypeError(f"{value!r} is not a number")


#: The type and range of every setting (checked before anything is written).
SETTING_SPECS: dict[str, SettingSpec] = {
    "net_arch": SettingSpec("layers"),
    "rollout_steps": SettingSpec("int", 8, 1 << 20),
    "batch_size": SettingSpec("int", 2, 1 << 20),  # 1 gives a NaN advantage normalization
    "n_epochs": SettingSpec("int", 1, 1000),
    "learning_rate": SettingSpec("float", 0, 1, low_open=True),
    "gamma": SettingSpec("float", 0, 1),
    "gae_lambda": SettingSpec("float", 0, 1),
    "clip_range": SettingSpec("float", 0, None, low_open=True),
    "ent_coef": SettingSpec("float", 0, None),
    "vf_coef": SettingSpec("float", 0, None),
    "max_grad_norm": SettingSpec("float", 0, None, low_open=True),
    "reward_scale": SettingSpec("float", 0, None, low_open=True),
    "max_turns": SettingSpec("int", 1, 100_000),
    "features": SettingSpec("choice", choices=FEATURE_SETS),
    "card_head": SettingSpec("int", 0, 1),
    "kl_coef": SettingSpec("float", 0, None),
    "kl_decay_steps": SettingSpec("int", 0, None),
    "value_warmup_updates": SettingSpec("int", 0, 10_000),
}


def init_settings(init: str) -> dict[str, Any]:
    """``net_arch``, ``features`` and ``card_head`` of an ``--init`` model's card: a run from it uses them
    unless ``--set`` says otherwise (a missing card is reported when the model loads)."""
    from agents.ppo_agent import ModelLoadError, card_features, read_card, resolve_model_path

    try:
        card = read_card(resolve_model_path(init))
    except ModelLoadError:
        return {}
    out: dict[str, Any] = {"features": card_features(card)}
    arch = (card.get("settings") or {}).get("net_arch")
    if arch:
        out["net_arch"] = list(arch)
    if (card.get("settings") or {}).get("card_head"):
        out["card_head"] = 1
    return out


def check_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with every value converted and range-checked.

    Raises:
        TrainError: an unknown key, or a value of the wrong type or out of range.
    """
    unknown = sorted(set(settings) - set(TRAIN_SETTINGS))
    if unknown:
        raise TrainError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(TRAIN_SETTINGS)}")
    return {k: SETTING_SPECS[k].check(k, v) for k, v in settings.items()}


def _check_count(name: str, value: Any, low: int, what: str = "") -> None:
    """Refuse an option that is not an integer >= ``low`` (bools are not integers)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise TrainError(f"{name} must be an integer >= {low}{what}, got {_excerpt(value)}")


# =========================================================================== config


@dataclass(frozen=True)
class TrainConfig:
    """One training run (see the module docstring).

    Attributes:
        contract: 1..7, or ``"full"`` for the whole game (deals 1..7).
        players: seats at the table, 2-4.
        opponents: agent specs; each episode every opponent seat draws one.
        self_play: add the learner's own snapshots to the opponents.
        steps: total environment steps (of the learner) to train to.
        seed: seed of the model, the environments and the opponents.
        n_envs: parallel environments.
        vec: ``"auto"`` (subprocesses when n_envs > 1), ``"dummy"`` or ``"subproc"``.
        settings: overrides of :data:`TRAIN_SETTINGS`.
        eval_every: steps between evaluations (0: only at the end).
        eval_decks: decks per contract of each evaluation.
        eval_opponents: agent specs the learner is evaluated against.
        eval_seed: tournament seed of the evaluations (the same deals each time).
        eval_max_turns: truncation of evaluation deals (default: the training max_turns).
        checkpoint_every: steps between checkpoints.
        snapshot_every: steps between self-play snapshots.
        pool_size: self-play snapshots kept in the pool.
        self_play_prob: chance an opponent seat plays a snapshot (when one exists).
        tensorboard: write TensorBoard logs when tensorboard is installed.
        clean: at the end keep only the model, its card, eval.csv and run.json (no
            checkpoints, snapshots or TensorBoard logs): a folder to ship.
        command: the command line recorded in the model card.
        init: a model (``ppo`` spec argument: a path or a shipped name) whose weights
            start the run (``carioca train --init``, e.g. an imitation model); its
            network shape must be the run's ``net_arch``.
    """

    contract: int | str = 1
    players: int = 2
    opponents: tuple[str, ...] = ("random",)
    self_play: bool = False
    steps: int = 100_000
    seed: int = 0
    n_envs: int = DEFAULT_N_ENVS
    vec: str = DEFAULT_VEC
    settings: dict[str, Any] = field(default_factory=dict)
    eval_every: int = 25_000
    eval_decks: int = 20
    eval_opponents: tuple[str, ...] = ("random", "greedy")
    eval_seed: int = 1
    eval_max_turns: int | None = None
    checkpoint_every: int = 20_000
    snapshot_every: int = 20_000
    pool_size: int = 8
    self_play_prob: float = 0.8
    tensorboard: bool = True
    clean: bool = False
    command: str = ""
    init: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "contract", parse_contract(self.contract))
        object.__setattr__(self, "opponents", tuple(self.opponents))
        object.__setattr__(self, "eval_opponents", tuple(self.eval_opponents))
        if self.players not in (2, 3, 4):
            raise TrainError(f"--players must be 2, 3 or 4, got {self.players!r}")
        if not self.opponents:
            raise TrainError("--opponents needs at least one agent spec")
        _check_count("--steps", self.steps, 1)
        _check_count("--n-envs", self.n_envs, 1)
        _check_count("--seed", self.seed, 0)
        _check_count("--eval-every", self.eval_every, 0, " (0: only at the end)")
        _check_count("--eval-decks", self.eval_decks, 1)
        _check_count("--eval-seed", self.eval_seed, 0)
        if self.eval_max_turns is not None:
            _check_count("--eval-max-turns", self.eval_max_turns, 1)
        _check_count("--checkpoint-every", self.checkpoint_every, 1)
        _check_count("--snapshot-every", self.snapshot_every, 1)
        _check_count("--pool-size", self.pool_size, 1)
        p = self.self_play_prob
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise TrainError(f"--self-play-prob must be a number in [0, 1], got {_excerpt(p)}")
        if self.vec not in ("auto", "dummy", "subproc"):
            raise TrainError(f"--vec must be auto, dummy or subproc, got {self.vec!r}")
        if not self.eval_opponents:
            raise TrainError("--eval-opponents needs at least one agent spec")
        for name, specs in (("--opponents", self.opponents), ("--eval-opponents", self.eval_opponents)):
            bad = [x for x in specs if not isinstance(x, str) or not x]
            if bad:
                raise TrainError(f"{name}: every entry must be an agent spec string, got {_excerpt(bad[0])}")
        if self.init is not None and not isinstance(self.init, str):
            raise TrainError(f"--init must be a model path or ppo name, got {_excerpt(self.init)}")
        settings = dict(self.settings)
        if self.init is not None:
            settings = {**init_settings(self.init), **settings}
        object.__setattr__(self, "settings", check_settings(settings))

    @property
    def deals(self) -> tuple[int, ...]:
        """The deals of a training episode."""
        return ALL_CONTRACTS if self.contract == "full" else (int(self.contract),)

    @property
    def eval_contracts(self) -> tuple[int, ...]:
        """The contracts of an evaluation."""
        return self.deals

    @property
    def merged_settings(self) -> dict[str, Any]:
        """:data:`TRAIN_SETTINGS` with the overrides."""
        s = dict(TRAIN_SETTINGS)
        s.update(self.settings)
        s["net_arch"] = [int(x) for x in s["net_arch"]]
        return s

    def defining(self) -> dict[str, Any]:
        """What defines the run (``run.json``; a resume must match it)."""
        d = {k: getattr(self, k) for k in _DEFINING}
        d["opponents"] = list(self.opponents)
        # fine-tuning settings left at their defaults are not recorded, so runs made
        # before they existed still resume
        d["settings"] = {k: v for k, v in self.merged_settings.items()
                         if not (k in _FINE_TUNE_SETTINGS and v == TRAIN_SETTINGS[k])}
        if self.init is None:
            del d["init"]
        return json.loads(json.dumps(d))


# =========================================================================== environments


class ScoreTruncation(gymnasium.Wrapper):
    """A deal cut off at ``max_turns`` ends the episode with minus the learner's hand penalty
    (times the reward scale), as tournaments score it (R17); exposes ``action_masks``."""

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated:
            from carioca_env.cards import hand_penalty

            base = self.env.unwrapped
            pen = hand_penalty(base.aec.game.hands[base.seat])
            reward -= pen * base.config.reward_scale
            info = {**info, "truncated_penalty": pen}
            terminated, truncated = True, False
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> Any:
        """The learner's mask (for MaskablePPO)."""
        return self.env.unwrapped.action_masks()


class OpponentPool:
    """An agent that, at every ``reset``, becomes one agent drawn from a pool.

    Members are registry specs; with ``snapshots`` (a folder) a frozen snapshot of the
    learner is drawn instead with probability ``self_play_prob`` when one exists.
    """

    name = "pool"

    def __init__(self, specs: Sequence[str], seed: int, snapshots: str | None = None,
                 pool_size: int = 8, self_play_prob: float = 0.8, num_players: int = 2) -> None:
        import random

        from agents.registry import make_agent

        self.specs = list(specs)
        self.members = [make_agent(s, seed + i) for i, s in enumerate(self.specs)]
        self.snapshots = Path(snapshots) if snapshots else None
        self.pool_size = pool_size
        self.self_play_prob = self_play_prob
        self.num_players = num_players
        self.rng = random.Random(seed)
        self.current: Any = self.members[0]

    def _snapshot_files(self) -> list[Path]:
        if self.snapshots is None or not self.snapshots.is_dir():
            return []
        files = [p for p in self.snapshots.glob("snap_*.zip") if p.with_suffix(".json").exists()]
        files.sort(key=lambda p: _steps_of(p.stem))
        return files[-self.pool_size:]

    def reset(self, seed: int) -> None:
        """Draw the agent of this episode."""
        self.rng.seed(seed)
        snaps = self._snapshot_files() if self.snapshots is not None else []
        if snaps and self.rng.random() < self.self_play_prob:
            from agents.ppo_agent import PPOAgent

            path = snaps[self.rng.randrange(len(snaps))]
            self.current = PPOAgent(path, seed, num_players=self.num_players, deterministic=False)
        else:
            self.current = self.members[self.rng.randrange(len(self.members))]
        self.current.reset(seed)

    def act(self, view: Any, legal: Sequence[Any]) -> Any:
        """The drawn agent's move."""
        return self.current.act(view, legal)


@dataclass(frozen=True)
class EnvFactory:
    """A picklable builder of one training environment (for ``SubprocVecEnv`` workers)."""

    config_json: str
    rank: int
    snapshots: str | None

    def __call__(self) -> Any:
        return make_env(TrainConfig(**_config_from_json(self.config_json)), self.rank, self.snapshots)


def make_env(config: TrainConfig, rank: int = 0, snapshots: str | None = None) -> Any:
    """One training environment: the single-agent wrapper, opponent pools, scored truncation."""
    import torch

    from carioca_env.env import EnvConfig
    from carioca_env.wrappers import CariocaSingleAgentEnv

    torch.set_num_threads(1)
    s = config.merged_settings
    n = config.players
    opponents = [
        OpponentPool(config.opponents, config.seed * 7919 + rank * 101 + k * 13, snapshots if config.self_play else None,
                     config.pool_size, config.self_play_prob, n)
        for k in range(n - 1)
    ]
    env = CariocaSingleAgentEnv(
        EnvConfig(num_players=n, deals=config.deals, reward="penalty", reward_scale=s["reward_scale"],
                  max_turns=s["max_turns"], features=s["features"]),
        opponents=opponents,
        learner_seat=None,
        mask_in_info=False,  # MaskablePPO asks action_masks(); DummyVecEnv deep-copies infos
    )
    return ScoreTruncation(env)


def make_vec_env(config: TrainConfig, snapshots: str | None = None) -> Any:
    """The vectorized environments of a run, wrapped in ``VecMonitor``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    blob = json.dumps(_config_to_json(config))
    fns = [EnvFactory(blob, r, snapshots) for r in range(config.n_envs)]
    use_subproc = config.vec == "subproc" or (config.vec == "auto" and config.n_envs > 1)
    venv = SubprocVecEnv(fns) if use_subproc else DummyVecEnv(fns)
    return VecMonitor(venv)


def model_class(config: TrainConfig) -> Any:
    """MaskablePPO, or its anchored subclass for a run from an ``--init`` model
    (:mod:`experiments.finetune`)."""
    if config.init is not None:
        from experiments.finetune import AnchoredMaskablePPO

        return AnchoredMaskablePPO
    from sb3_contrib import MaskablePPO

    return MaskablePPO


def policy_kwargs(players: int, settings: dict[str, Any]) -> dict[str, Any]:
    """The policy's constructor arguments for a run's settings (saved with the model)."""
    out: dict[str, Any] = {"net_arch": list(settings["net_arch"])}
    if settings.get("card_head"):
        from agents.ppo_policy import card_head_spec

        out["card_head"] = card_head_spec(players, settings["features"])
    return out


def make_model(venv: Any, config: TrainConfig, tensorboard_log: str | None = None, init: Any = None) -> Any:
    """A fresh MaskablePPO for ``venv`` with the run's settings; with ``init`` (a loaded
    model of the same shape) it starts from those weights, anchored to them."""
    from agents.ppo_policy import CariocaMaskablePolicy

    s = config.merged_settings
    n_steps = max(8, s["rollout_steps"] // config.n_envs)
    batch = min(s["batch_size"], n_steps * config.n_envs)
    model = model_class(config)(
        CariocaMaskablePolicy, venv,
        n_steps=n_steps, batch_size=batch, n_epochs=s["n_epochs"], learning_rate=s["learning_rate"],
        gamma=s["gamma"], gae_lambda=s["gae_lambda"], clip_range=s["clip_range"], ent_coef=s["ent_coef"],
        vf_coef=s["vf_coef"], max_grad_norm=s["max_grad_norm"],
        policy_kwargs=policy_kwargs(config.players, s),
        tensorboard_log=tensorboard_log, seed=config.seed, device="cpu", verbose=0,
    )
    if init is not None:
        model.policy.load_state_dict(init.policy.state_dict())
        attach_anchor(model, config, init)
    return model


def attach_anchor(model: Any, config: TrainConfig, init: Any) -> None:
    """Give an anchored model its reference policy and the run's anchor settings."""
    s = config.merged_settings
    model.set_anchor(init.policy, s["kl_coef"], s["kl_decay_steps"], s["value_warmup_updates"])


def _config_to_json(config: TrainConfig) -> dict[str, Any]:
    d = asdict(config)
    d["opponents"] = list(config.opponents)
    d["eval_opponents"] = list(config.eval_opponents)
    return d


def _config_from_json(d: dict[str, Any] | str) -> dict[str, Any]:
    d = json.loads(d) if isinstance(d, str) else dict(d)
    d["opponents"] = tuple(d["opponents"])
    d["eval_opponents"] = tuple(d["eval_opponents"])
    return d


# =========================================================================== saving


def _steps_of(stem: str) -> int:
    m = re.search(r"(\d+)$", stem)
    return int(m.group(1)) if m else -1


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def save_model(model: Any, path: Path, card: dict[str, Any] | None = None, slim: bool = False) -> None:
    """Save ``model`` (and its card) atomically; ``slim`` drops the optimizer state (smaller file)."""
    buf = io.BytesIO()
    if slim:
        opt = model.policy.optimizer
        model.policy.optimizer = type(opt)(model.policy.parameters(), **opt.defaults)
        try:
            model.save(buf)
        finally:
            model.policy.optimizer = opt
    else:
        model.save(buf)
    if card is not None:  # the card first: a reader that sees the zip finds its card
        _atomic_write(path.with_suffix(".json"), (json.dumps(card, indent=1) + "\n").encode())
    _atomic_write(path, buf.getvalue())


def package_versions() -> dict[str, str]:
    """Versions of the packages that matter for a model."""
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for name in ("carioca-env", "numpy", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    try:
        import subprocess

        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=5)
        if rev.returncode == 0:
            out["git"] = rev.stdout.strip()
    except Exception:  # noqa: BLE001 - no git is fine
        pass
    return out


# =========================================================================== evaluation


def _label(spec: str) -> str:
    lab = re.sub(r"[^A-Za-z0-9_.+-]+", "_", spec).strip("_") or "opponent"
    return "opp_" + lab if lab == "learner" else lab


def evaluate(model_path: str | Path, config: TrainConfig, steps: int, workdir: str | Path,
             wall_time: float = 0.0) -> list[dict[str, Any]]:
    """Duplicate tournaments of ``ppo:model_path`` against each evaluation opponent (one row each)."""
    from experiments.tournament import TournamentConfig, run_tournament

    rows = []
    max_turns = config.eval_max_turns or config.merged_settings["max_turns"]
    contracts = config.eval_contracts
    group = "all" if len(contracts) > 1 else str(contracts[0])
    for opp in config.eval_opponents:
        lab = _label(opp)
        tc = TournamentConfig(agents=(f"learner=ppo:{model_path}", f"{lab}={opp}"), players=config.players,
                              contracts=contracts, decks=config.eval_decks, seed=config.eval_seed,
                              max_turns=max_turns)
        summary = run_tournament(tc, Path(workdir) / f"vs-{lab}", workers=1, progress=False, overwrite=True,
                                 write_summary=False, log=lambda m: None)
        me, them = summary.agent("learner", group), summary.agent(lab, group)
        pair = next(p for p in summary.pairs if p.contract == group and {p.agent_x, p.agent_y} == {"learner", lab})
        sign = 1.0 if pair.agent_x == "learner" else -1.0
        lo, hi = sorted((sign * pair.ci_low, sign * pair.ci_high))
        rows.append({
            "steps": steps, "opponent": opp, "contracts": " ".join(map(str, contracts)),
            "decks": config.eval_decks, "deals": summary.deals_played,
            "learner_mean": me.mean_penalty, "learner_ci_low": me.ci_low, "learner_ci_high": me.ci_high,
            "opponent_mean": them.mean_penalty, "opponent_ci_low": them.ci_low, "opponent_ci_high": them.ci_high,
            "diff_mean": sign * pair.mean_diff, "diff_ci_low": lo, "diff_ci_high": hi,
            "learner_open_rate": me.open_rate, "learner_win_rate": me.win_rate,
            "truncated": summary.truncated, "wall_time_s": round(wall_time, 1),
        })
    return rows


def read_eval_csv(path: str | Path) -> list[dict[str, Any]]:
    """Rows of an ``eval.csv`` (numbers as floats/ints)."""
    p = Path(path)
    if not p.exists():
        return []
    rows = []
    with open(p, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            row: dict[str, Any] = {}
            for k, v in r.items():
                if k in ("opponent", "contracts"):
                    row[k] = v
                elif k in ("steps", "decks", "deals", "truncated"):
                    row[k] = int(float(v)) if v not in ("", None) else 0
                else:
                    row[k] = float(v) if v not in ("", None) else math.nan
            rows.append(row)
    return rows


def write_eval_csv(path: str | Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write the learning curve (atomically)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(EVAL_COLUMNS), lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if isinstance(v, float) and math.isnan(v) else
                        (round(v, 3) if isinstance(v, float) else v)) for k, v in r.items()})
    _atomic_write(Path(path), buf.getvalue().encode())


def _eval_text(rows: Sequence[dict[str, Any]]) -> str:
    return " ".join(f"{_label(r['opponent'])}:{r['learner_mean']:.1f}/{r['opponent_mean']:.1f}" for r in rows)


# =========================================================================== training


@dataclass
class TrainResult:
    """What a run produced."""

    out: Path
    model_path: Path
    card: dict[str, Any]
    eval_rows: list[dict[str, Any]]
    num_timesteps: int
    wall_time_s: float
    resumed_from: int | None


def latest_checkpoint(out: str | Path) -> Path | None:
    """The checkpoint with the most steps in ``OUT/checkpoints`` (``None`` if there is none)."""
    d = Path(out) / "checkpoints"
    if not d.is_dir():
        return None
    files = sorted(d.glob("ckpt_*.zip"), key=lambda p: _steps_of(p.stem))
    return files[-1] if files else None


def _make_callback(config: TrainConfig, out: Path, state: dict[str, Any], progress: bool,
                   say: Callable[[str], None]) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    from experiments.progress import progress_bar

    class TrainCallback(BaseCallback):
        """Checkpoints, self-play snapshots, evaluations and the progress bar."""

        def _on_training_start(self) -> None:
            n = self.model.num_timesteps
            self.bar = progress_bar(total=config.steps, initial=n, unit="step", desc=f"train c{config.contract}",
                                    enabled=progress, smoothing=0.1, file=sys.stderr)
            self.shown = n
            self.marks = {"ckpt": n, "snap": n, "eval": n}

        def _due(self, key: str, every: int) -> bool:
            n = self.model.num_timesteps
            if every > 0 and n // every > self.marks[key] // every:
                self.marks[key] = n
                return True
            return False

        def _on_step(self) -> bool:
            n = self.model.num_timesteps
            self.bar.update(n - self.shown)
            self.shown = n
            if self._due("ckpt", config.checkpoint_every):
                save_checkpoint(self.model, out, state)
            if config.self_play and self._due("snap", config.snapshot_every):
                save_model(self.model, out / "snapshots" / f"snap_{n}.zip", state["card"](n), slim=True)
            if self._due("eval", config.eval_every):
                self.run_eval()
            return True

        def _on_rollout_end(self) -> None:
            buf = self.model.ep_info_buffer
            if buf:
                self.bar.set_postfix_str(
                    f"ep_ret {sum(e['r'] for e in buf) / len(buf):+.3f} | eval {state.get('eval_text', '-')}",
                    refresh=False)

        def run_eval(self) -> None:
            rows = run_evaluation(self.model, config, out, state)
            for r in rows:
                lab = _label(r["opponent"])
                for k in ("learner_mean", "opponent_mean", "diff_mean", "learner_open_rate", "learner_win_rate"):
                    self.logger.record(f"eval/{lab}/{k}", r[k])
            self.bar.set_postfix_str(f"eval {state['eval_text']}", refresh=True)

        def _on_training_end(self) -> None:
            self.bar.close()

    return TrainCallback()


def run_evaluation(model: Any, config: TrainConfig, out: Path, state: dict[str, Any]) -> list[dict[str, Any]]:
    """Evaluate the current model, append the rows to ``eval.csv``; returns the rows."""
    n = model.num_timesteps
    path = out / "eval" / "current.zip"
    save_model(model, path, state["card"](n), slim=True)
    rows = evaluate(path, config, n, out / "eval", wall_time=state["wall"]())
    state["eval_rows"] = [r for r in state["eval_rows"] if r["steps"] != n] + rows
    write_eval_csv(out / "eval.csv", state["eval_rows"])
    state["eval_text"] = _eval_text(rows)
    return rows


def save_checkpoint(model: Any, out: Path, state: dict[str, Any]) -> Path:
    """Save a full checkpoint (and its sidecar with the wall time); keep the last three."""
    n = model.num_timesteps
    path = out / "checkpoints" / f"ckpt_{n}.zip"
    save_model(model, path, {"steps": n, "wall_time_s": state["wall"]()})
    old = sorted((out / "checkpoints").glob("ckpt_*.zip"), key=lambda p: _steps_of(p.stem))[:-3]
    for p in old:
        p.unlink(missing_ok=True)
        p.with_suffix(".json").unlink(missing_ok=True)
    return path


def _tensorboard_dir(config: TrainConfig, out: Path, say: Callable[[str], None]) -> str | None:
    if not config.tensorboard:
        return None
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        say("note: tensorboard is not installed: no TensorBoard logs (pip install tensorboard); "
            "the learning curve is in eval.csv")
        return None
    return str(out / "tb")


def check_agents(config: TrainConfig) -> None:
    """Build every opponent and evaluation agent once, so a bad spec is refused before training.

    Raises:
        TrainError: naming the option and the spec.
    """
    from agents.registry import make_agent

    for option, specs in (("--opponents", config.opponents), ("--eval-opponents", config.eval_opponents)):
        for spec in specs:
            try:
                agent = make_agent(spec, 0)
            except Exception as exc:  # noqa: BLE001 - any failure means the spec is unusable
                raise TrainError(f"{option}: cannot build agent {_excerpt(spec)}: {exc}") from None
            made_for = getattr(agent, "num_players", None)
            if isinstance(made_for, int) and made_for != config.players:
                raise TrainError(f"{option}: {spec} was made for {made_for} players; this run has {config.players}")


def load_init(config: TrainConfig) -> Any:
    """The ``--init`` model (``None`` without one), checked against the run's players and net_arch.

    Raises:
        TrainError: a missing or unusable model, or another network shape.
    """
    if config.init is None:
        return None
    from agents.ppo_agent import ModelLoadError, load_model

    try:
        model, card = load_model(config.init, config.players)
    except ModelLoadError as exc:
        raise TrainError(f"--init: {exc}") from None
    from agents.ppo_agent import card_features

    if card_features(card) != config.merged_settings["features"]:
        raise TrainError(f"--init: {config.init} was made for observation features {card_features(card)!r}; "
                         f"this run has {config.merged_settings['features']!r}")
    arch = config.merged_settings["net_arch"]
    has = model.policy.net_arch
    has_pi = list(has["pi"]) if isinstance(has, dict) else list(has)
    if has_pi != arch:
        raise TrainError(f"--init: {config.init} has layers {has_pi}; this run's net_arch is {arch} "
                         f"(pass --set net_arch={','.join(map(str, has_pi))})")
    return model


def check_writable(out: Path) -> None:
    """Refuse an output folder that cannot be created or written, before anything is written.

    Raises:
        TrainError: naming the folder and the reason.
    """
    probe = out
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise TrainError(f"--out {out}: {probe} is a file, not a folder; choose another --out")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise TrainError(f"--out {out}: {probe} is not writable; choose another --out")


def train(config: TrainConfig, out: str | Path, progress: bool = True, overwrite: bool = False,
          log: Callable[[str], None] | None = None) -> TrainResult:
    """Train (or resume) a run into ``out``; see the module docstring.

    Raises:
        TrainError: a run folder of another run, or an unusable checkpoint.
    """
    import torch

    say = log or (lambda m: print(m, file=sys.stderr))
    threads, validate = torch.get_num_threads(), torch.distributions.Distribution._validate_args
    torch.set_num_threads(1)  # small matrices: a second thread only waits (see experiments/bench.py)
    torch.distributions.Distribution.set_default_validate_args(False)  # no re-check of 2,191 logits per step
    try:
        return _train(config, Path(out), progress, overwrite, say)
    finally:
        torch.set_num_threads(threads)
        torch.distributions.Distribution.set_default_validate_args(validate)


def _train(config: TrainConfig, out: Path, progress: bool, overwrite: bool, say: Callable[[str], None]) -> TrainResult:
    from agents.ppo_agent import model_card

    check_agents(config)  # everything is checked before anything is written
    init_model = load_init(config)
    check_writable(out)
    if overwrite and out.exists():
        for name in ("checkpoints", "snapshots", "eval", "tb", "eval.csv", "run.json", "model.zip", "model.json"):
            p = out / name
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TrainError(f"--out {out}: cannot create the folder ({exc.strerror or exc}); choose another --out") from None
    run_file = out / "run.json"
    defining = config.defining()
    if run_file.exists():
        try:
            old = json.loads(run_file.read_text())["config"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise TrainError(f"{run_file} is unreadable ({exc}); move it away or pass --overwrite") from None
        diffs = [f"{k}: the folder has {old.get(k)!r}, this command has {v!r}" for k, v in defining.items() if old.get(k) != v]
        if diffs:
            raise TrainError(
                f"{out} holds another training run:\n  " + "\n  ".join(diffs)
                + "\nRepeat its options to resume it, choose another --out, or pass --overwrite to start afresh."
            )
    else:
        _atomic_write(run_file, (json.dumps({"format": "carioca-train-run", "config": defining}, indent=1) + "\n").encode())

    ckpt = latest_checkpoint(out)
    resumed_from = None
    base_wall = 0.0
    eval_rows = read_eval_csv(out / "eval.csv")
    final = out / "model.zip"
    start_from = ckpt
    if ckpt is None and final.exists():
        start_from = final  # a cleaned folder (--clean): continue from the final model
    tb = _tensorboard_dir(config, out, say)
    snapshots = str(out / "snapshots") if config.self_play else None
    venv = make_vec_env(config, snapshots)
    try:
        if start_from is not None:
            try:
                side = json.loads(start_from.with_suffix(".json").read_text())
                from agents.ppo_agent import _rng_preserved

                with _rng_preserved():
                    model = model_class(config).load(str(start_from), env=venv, device="cpu", tensorboard_log=tb)
                if init_model is not None:
                    attach_anchor(model, config, init_model)
            except Exception as exc:  # noqa: BLE001
                raise TrainError(f"cannot resume from {start_from}: {type(exc).__name__}: {exc}; delete it to "
                                 f"resume from an earlier checkpoint, or pass --overwrite") from None
            resumed_from = int(model.num_timesteps)
            base_wall = float(side.get("wall_time_s", 0.0))
            eval_rows = [r for r in eval_rows if r["steps"] <= resumed_from]
            note = "" if start_from == ckpt else " (no checkpoint: from the final model, with a fresh optimizer state)"
            if resumed_from < config.steps:
                say(f"resuming {out} from {start_from.name}{note}: {resumed_from} steps done, training to {config.steps}")
        else:
            model = make_model(venv, config, tb, init_model)
        start = time.monotonic()
        state: dict[str, Any] = {"eval_rows": eval_rows}
        state["wall"] = lambda: base_wall + time.monotonic() - start

        def card(n: int) -> dict[str, Any]:
            return model_card(
                config.players, features=config.merged_settings["features"], contract=config.contract, deals=list(config.deals), steps=n,
                seed=config.seed, command=config.command or f"experiments.train.train({config.defining()})",
                opponents=list(config.opponents),
                self_play=config.self_play, n_envs=config.n_envs, settings=config.merged_settings,
                wall_time_s=round(state["wall"](), 1), versions=package_versions(),
                created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            )

        state["card"] = card
        if init_model is not None and resumed_from is None and config.eval_every > 0 and not state["eval_rows"]:
            run_evaluation(model, config, out, state)  # the learning curve starts at the imitation policy
        remaining = config.steps - model.num_timesteps
        if remaining > 0:
            callback = _make_callback(config, out, state, progress, say)
            try:
                model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=resumed_from is None,
                            tb_log_name="ppo", progress_bar=False)
            except KeyboardInterrupt:
                save_checkpoint(model, out, state)
                say(f"interrupted at {model.num_timesteps} steps: checkpoint saved; rerun the same command to resume")
                raise
        n = int(model.num_timesteps)
        if not any(r["steps"] == n for r in state["eval_rows"]):
            run_evaluation(model, config, out, state)
        save_checkpoint(model, out, state)
        wall = state["wall"]()
        last = [r for r in state["eval_rows"] if r["steps"] == n]
        final_card = card(n)
        final_card.update(
            wall_time_s=round(wall, 1),
            evaluation={"opponents": list(config.eval_opponents), "decks": config.eval_decks,
                        "seed": config.eval_seed, "contracts": list(config.eval_contracts),
                        "max_turns": config.eval_max_turns or config.merged_settings["max_turns"],
                        "results": last},
            learning_curve="eval.csv",
            resumed_from=resumed_from,
        )
        save_model(model, final, final_card, slim=True)
        if config.clean:
            for name in ("checkpoints", "snapshots", "eval", "tb"):
                shutil.rmtree(out / name, ignore_errors=True)
    finally:
        venv.close()
    return TrainResult(out, final, final_card, state["eval_rows"], n, wall, resumed_from)


# =========================================================================== CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca train``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "Writes OUT/model.zip + model.json, OUT/eval.csv (learning curve), OUT/checkpoints/,\n"
        "OUT/tb/ (TensorBoard). Rerunning the same command resumes from the last checkpoint;\n"
        "a larger --steps trains further. Settings: " + ", ".join(f"{k}={v}" for k, v in TRAIN_SETTINGS.items())
    )
    g = parser.add_argument_group("run (these define it; a resume must repeat them)")
    g.add_argument("--contract", default="1", help="contract 1..7, or full for the whole game (default 1)")
    g.add_argument("--players", type=int, default=2, help="seats, 2-4 (default 2)")
    g.add_argument("--opponents", nargs="+", default=["random"], metavar="SPEC",
                   help="opponent agent specs; each episode every opponent seat draws one (default random)")
    g.add_argument("--self-play", action="store_true",
                   help="opponents also play frozen snapshots of the learner (a pool of its last ones)")
    g.add_argument("--self-play-prob", type=float, default=0.8, help="chance a seat plays a snapshot (default 0.8)")
    g.add_argument("--pool-size", type=int, default=8, help="snapshots kept in the self-play pool (default 8)")
    g.add_argument("--snapshot-every", type=int, default=20_000, metavar="K", help="steps between snapshots (default 20000)")
    g.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    g.add_argument("--n-envs", type=int, default=DEFAULT_N_ENVS,
                   help=f"parallel environments (default {DEFAULT_N_ENVS})")
    g.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a training setting, e.g. --set net_arch=64,64 --set ent_coef=0.02")
    g.add_argument("--steps", type=int, default=100_000, help="environment steps to train to (default 100000)")
    g.add_argument("--init", metavar="MODEL",
                   help="start from this model's weights (a path or a shipped name, e.g. an imitation model from "
                        "`carioca imitate`); anchored to it by --set kl_coef=, kl_decay_steps=, value_warmup_updates=")
    e = parser.add_argument_group("evaluation")
    e.add_argument("--eval-every", type=int, default=25_000,
                   help="steps between evaluations (default 25000; 0 = only at the end)")
    e.add_argument("--eval-decks", type=int, default=20, help="decks per contract of an evaluation (default 20)")
    e.add_argument("--eval-opponents", nargs="+", default=["random", "greedy"], metavar="SPEC",
                   help="evaluation opponents (default random greedy)")
    e.add_argument("--eval-seed", type=int, default=1, help="tournament seed of the evaluations (default 1)")
    e.add_argument("--eval-max-turns", type=int, help="truncation of evaluation deals (default: max_turns)")
    r = parser.add_argument_group("running")
    r.add_argument("--out", type=Path, help="run folder (default runs/contract<K>-p<players>-s<seed>)")
    r.add_argument("--vec", choices=("auto", "dummy", "subproc"), default=DEFAULT_VEC,
                   help=f"dummy: all environments in this process; subproc: one process each; auto: "
                        f"subproc when --n-envs > 1 (default {DEFAULT_VEC}: fastest on 2 cores)")
    r.add_argument("--checkpoint-every", type=int, default=20_000, help="steps between checkpoints (default 20000)")
    r.add_argument("--overwrite", action="store_true", help="delete the run in --out and start afresh")
    r.add_argument("--clean", action="store_true",
                   help="at the end keep only model.zip, model.json, eval.csv and run.json (a folder to ship; "
                        "a later run continues from model.zip with a fresh optimizer state)")
    r.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard logs")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` overrides, converted and range-checked (``net_arch=64,64``).

    Raises:
        TrainError: not ``KEY=VALUE``, an unknown key, or a bad value (see :data:`SETTING_SPECS`).
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in TRAIN_SETTINGS:
            raise TrainError(f"--set {_excerpt(item)}: expected KEY=VALUE with KEY one of {', '.join(TRAIN_SETTINGS)}")
        out[key] = value
    return check_settings(out)


def command_line(args: argparse.Namespace, name: str = "train") -> str:
    """The command line of parsed options (every option spelled out; for model cards)."""
    import shlex

    parts = ["carioca", name]
    for key, value in vars(args).items():
        if key in ("command", "func", "players_list") or value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            parts.append(flag)
        elif key == "set":
            for item in value:
                parts += [flag, str(item)]
        elif isinstance(value, (list, tuple)):
            parts += [flag, *map(str, value)]
        else:
            parts += [flag, str(value)]
    return " ".join(shlex.quote(p) for p in parts)


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The run config of the command line."""
    return TrainConfig(
        contract=args.contract, players=args.players, opponents=tuple(args.opponents), self_play=args.self_play,
        steps=args.steps, seed=args.seed, n_envs=args.n_envs, vec=args.vec, settings=parse_settings(args.set),
        eval_every=args.eval_every, eval_decks=args.eval_decks, eval_opponents=tuple(args.eval_opponents),
        eval_seed=args.eval_seed, eval_max_turns=args.eval_max_turns, checkpoint_every=args.checkpoint_every,
        snapshot_every=args.snapshot_every, pool_size=args.pool_size, self_play_prob=args.self_play_prob,
        tensorboard=not args.no_tensorboard, clean=args.clean, command=command_line(args), init=args.init,
    )


def print_result(result: TrainResult) -> None:
    """The final evaluation and where things are."""
    from experiments.plots import eval_units
    from experiments.stats import format_interval

    print(f"trained to {result.num_timesteps} steps in {result.wall_time_s / 60:.1f} min "
          f"({result.num_timesteps / max(result.wall_time_s, 1e-9):.0f} steps/s incl. evaluation)")
    for r in [r for r in result.eval_rows if r["steps"] == result.num_timesteps]:
        n = eval_units(r)  # an interval needs two decks: "n/a (1 deck)", not "[nan, nan]"
        print(f"  vs {r['opponent']:<10} learner {r['learner_mean']:6.1f} "
              f"{format_interval(r['learner_ci_low'], r['learner_ci_high'], n)}"
              f"  opponent {r['opponent_mean']:6.1f}  diff {r['diff_mean']:+6.1f} "
              f"{format_interval(r['diff_ci_low'], r['diff_ci_high'], n, signed=True)}"
              f"  ({r['decks']} decks, contracts {r['contracts']})")
    print(f"model: {result.model_path} (+ {result.model_path.with_suffix('.json').name}); "
          f"learning curve: {result.out / 'eval.csv'}")


#: what `carioca train` says after Ctrl-C (experiments.cli prints it)
INTERRUPTED = "rerun the same command to resume from the last checkpoint"


def run(args: argparse.Namespace) -> int:
    """Train (or resume) and print the final evaluation."""
    config = config_from_args(args)
    out = args.out or Path("runs") / f"contract{config.contract}-p{config.players}-s{config.seed}"
    result = train(config, out, progress=not args.no_progress, overwrite=args.overwrite)
    print_result(result)
    return 0
