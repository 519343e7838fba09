"""The model of a run: its class, policy arguments, a fresh or ``--init`` model, saving, and the versions for its card."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

from carioca_experiments.common.files import write_file
from carioca_experiments.training.train.config import TrainConfig
from carioca_experiments.training.train.errors import TrainError


def model_class(config: TrainConfig) -> Any:
    """MaskablePPO, or its anchored subclass for a run from an ``--init`` model
    (:mod:`carioca_experiments.training.train.finetune`)."""
    if config.init is not None:
        from carioca_experiments.training.train.finetune import AnchoredMaskablePPO

        return AnchoredMaskablePPO
    from sb3_contrib import MaskablePPO

    return MaskablePPO


def policy_kwargs(players: int, settings: dict[str, Any]) -> dict[str, Any]:
    """The policy's constructor arguments for a run's settings (saved with the model)."""
    out: dict[str, Any] = {"net_arch": list(settings["net_arch"])}
    if settings.get("card_head"):
        from carioca_agents.ppo_policy import card_head_spec

        out["card_head"] = card_head_spec(players, settings["features"])
    if settings.get("action_prior"):
        from carioca_agents.action_prior import action_prior_spec

        out["action_prior"] = action_prior_spec(players, settings["features"])
    return out


def make_model(venv: Any, config: TrainConfig, tensorboard_log: str | None = None, init: Any = None) -> Any:
    """A fresh MaskablePPO for ``venv`` with the run's settings; with ``init`` (a loaded
    model of the same shape) it starts from those weights, anchored to them."""
    from carioca_agents.ppo_policy import CariocaMaskablePolicy

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


def load_init(config: TrainConfig) -> Any:
    """The ``--init`` model (``None`` without one), checked against the run's players and net_arch.

    Raises:
        TrainError: a missing or unusable model, or another network shape.
    """
    if config.init is None:
        return None
    from carioca_agents.ppo_agent import ModelLoadError, load_model

    try:
        model, card = load_model(config.init, config.players)
    except ModelLoadError as exc:
        raise TrainError(f"--init: {exc}") from None
    from carioca_agents.ppo_agent import card_features

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
        write_file(path.with_suffix(".json"), (json.dumps(card, indent=1) + "\n").encode())
    write_file(path, buf.getvalue())


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
