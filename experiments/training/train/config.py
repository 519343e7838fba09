"""What one training run is: :class:`TrainConfig`, its checks, what defines it, and its JSON form."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from carioca_env.observation import has_pieces_of
from carioca_experiments.training.train.errors import TrainError, _excerpt
from carioca_experiments.training.train.settings import (
    _FINE_TUNE_SETTINGS,
    ALL_CONTRACTS,
    TRAIN_SETTINGS,
    check_settings,
    init_settings,
    parse_contract,
)

#: Environments per run and how they are vectorized (``--n-envs``, ``--vec``).
DEFAULT_N_ENVS = 8
DEFAULT_VEC = "dummy"

#: Options that define a run (a resumed run must repeat them).
_DEFINING = ("contract", "players", "opponents", "self_play", "self_play_prob", "pool_size",
             "snapshot_every", "seed", "n_envs", "settings", "init")


def _check_count(name: str, value: Any, low: int, what: str = "") -> None:
    """Refuse an option that is not an integer >= ``low`` (bools are not integers)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise TrainError(f"{name} must be an integer >= {low}{what}, got {_excerpt(value)}")


@dataclass(frozen=True)
class TrainConfig:
    """One training run (see :mod:`carioca_experiments.training.train`).

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
        luck_correction: the evaluations also report the luck-corrected paired
            difference (``--luck-correction``, :mod:`carioca_experiments.evaluation.luck`): a new
            run uses the newest shipped value function and records its fingerprint in
            ``run.json``; a resumed run keeps the recorded one.
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
    luck_correction: bool = False

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
        if not isinstance(self.luck_correction, bool):
            raise TrainError(f"luck_correction must be True or False, got {_excerpt(self.luck_correction)}")
        if self.init is not None and not isinstance(self.init, str):
            raise TrainError(f"--init must be a model path or ppo name, got {_excerpt(self.init)}")
        settings = dict(self.settings)
        if self.init is not None:
            settings = {**init_settings(self.init), **settings}
        object.__setattr__(self, "settings", check_settings(settings))
        merged = self.merged_settings
        if merged["action_prior"] and not has_pieces_of(merged["features"], "advice_play"):
            raise TrainError(f"--set action_prior=1 reads the advice_play pieces; features={merged['features']!r} "
                             f"has none: add --set features=advice_play")

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
