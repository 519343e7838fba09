"""The training settings (:data:`TRAIN_SETTINGS`): their defaults, what each accepts, and their checks.

``--set KEY=VALUE`` (:func:`parse_settings`) and :class:`~carioca_experiments.training.train.config.TrainConfig`
check every value here, once, before anything is written; an ``--init`` model's card
supplies ``net_arch``, ``features`` and ``card_head`` (:func:`init_settings`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from carioca_agents.advice import register_advice
from carioca_env.game_config import MAX_TURNS
from carioca_env.observation import feature_sets
from carioca_experiments.training.train.errors import TrainError, _excerpt

ALL_CONTRACTS = (1, 2, 3, 4, 5, 6, 7)

#: MaskablePPO settings for a 2-core CPU (one constant; the ``ppo`` section of ``carioca bench``, ``experiments/evaluation/bench/config.py``, measures these).
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
    "max_turns": MAX_TURNS,     # turns per deal before truncation (R17)
    "features": "base",         # observation variant: base, planning or discards (carioca_env.planning)
    "card_head": 0,             # 1: the policy also scores every card type with one shared small
                                # net (carioca_agents.ppo_policy.CardScores), an input of the action layer
    "action_prior": 0,          # 1: the heuristic's advice scored against every action id is added
                                # to the logits, one learned weight per kind (carioca_agents.action_prior;
                                # needs features advice_play)
    # fine-tuning from an imitation model (--init); all off for a fresh model
    "kl_coef": 0.0,             # weight of KL(pi || pi_init) in the policy loss at step 0
    "kl_decay_steps": 0,        # ... decaying linearly to 0 over this many steps (0: constant)
    "value_warmup_updates": 0,  # first PPO updates train the value net only (policy frozen)
}

_FINE_TUNE_SETTINGS = ("features", "card_head", "action_prior", "kl_coef", "kl_decay_steps", "value_warmup_updates")


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
register_advice()  # the settings offer the heuristic's advice feature sets as choices
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
    "features": SettingSpec("choice", choices=feature_sets()),
    "card_head": SettingSpec("int", 0, 1),
    "action_prior": SettingSpec("int", 0, 1),
    "kl_coef": SettingSpec("float", 0, None),
    "kl_decay_steps": SettingSpec("int", 0, None),
    "value_warmup_updates": SettingSpec("int", 0, 10_000),
}


def init_settings(init: str) -> dict[str, Any]:
    """``net_arch``, ``features``, ``card_head`` and ``action_prior`` of an ``--init`` model's card: a run from it uses them
    unless ``--set`` says otherwise (a missing card is reported when the model loads)."""
    from carioca_agents.ppo_agent import ModelLoadError, card_features, read_card, resolve_model_path

    try:
        card = read_card(resolve_model_path(init))
    except ModelLoadError:
        return {}
    out: dict[str, Any] = {"features": card_features(card)}
    arch = (card.get("settings") or {}).get("net_arch")
    if arch:
        out["net_arch"] = list(arch)
    for flag in ("card_head", "action_prior"):
        if (card.get("settings") or {}).get(flag):
            out[flag] = 1
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
