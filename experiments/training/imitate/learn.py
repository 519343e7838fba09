"""Supervised training of a MaskablePPO policy from labelled states.

The network is sb3-contrib's (:class:`~carioca_agents.ppo_policy.CariocaMaskablePolicy`, separate
policy and value MLPs of ``net_arch``), built by :func:`carioca_experiments.training.train.make_model` for
the run's environment, so the result is an ordinary MaskablePPO file: ``ppo:PATH`` plays
it and ``carioca train --init PATH`` fine-tunes it.

Loss per batch: the masked cross-entropy of the teacher's action (the logits of illegal
actions are set to -1e8 before the log-softmax, exactly as the policy masks them when
it plays) plus ``vf_coef`` times the mean squared error of the value against the
observed discounted return.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from carioca_experiments.common.seeds import IMITATE, derive_seed
from carioca_experiments.training.imitate.config import ImitateConfig, ImitateError
from carioca_experiments.training.imitate.dataset import unpack_masks


def build_model(config: ImitateConfig) -> Any:
    """A fresh MaskablePPO (CariocaMaskablePolicy, ``net_arch``) for the run's env spaces."""
    from carioca_experiments.training.train import TrainConfig, make_env, make_model

    tc = TrainConfig(contract=config.contract, players=config.players, opponents=("random",), n_envs=1,
                     seed=derive_seed(IMITATE, config.seed, "network") % (2**31),
                     settings=config.network_settings(), tensorboard=False)
    return make_model(make_env(tc), tc)


def load_init(config: ImitateConfig) -> Any:
    """The loaded ``config.init`` model, checked to have the run's player count, layout
    and network settings, or ``None`` without one.

    Raises:
        ImitateError: the model cannot be loaded, or was made with other settings.
    """
    from carioca_agents.ppo_agent import ModelLoadError, load_model

    if config.init is None:
        return None
    try:
        model, card = load_model(config.init, config.players, strict_advisor=True)
    except ModelLoadError as exc:
        raise ImitateError(f"--init: {exc}") from None
    ours = config.network_settings()
    theirs = card.get("settings", {})
    # the shape-defining settings only: gamma, reward_scale or max_turns do not change the weights' meaning
    keys = ("net_arch", "features", "card_head", "action_prior")
    diff = [f"{k}: the model has {theirs.get(k)!r}, this run {ours.get(k)!r}" for k in keys if theirs.get(k) != ours.get(k)]
    if diff:
        raise ImitateError(f"--init {config.init}: the model's network is not this run's ({'; '.join(diff)})")
    return model


def masked_log_softmax(policy: Any, latent_pi: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """The policy's log-probabilities from its actor latent, over the legal actions (the
    logits of illegal ones set to -1e8 first, exactly as the policy masks them when it plays)."""
    logits = policy.action_net(latent_pi)
    logits = torch.where(masks, logits, torch.tensor(-1e8, dtype=logits.dtype))
    return torch.log_softmax(logits, dim=-1)


def _forward(policy: Any, obs: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked log-probabilities and values of a batch."""
    from carioca_agents.ppo_policy import policy_latents

    latent_pi, latent_vf = policy_latents(policy, obs)
    return masked_log_softmax(policy, latent_pi, masks), policy.value_net(latent_vf).flatten()


def fit(model: Any, data: dict[str, np.ndarray], config: ImitateConfig, num_actions: int, seed: int,
        progress: Callable[[int], None] | None = None) -> dict[str, float]:
    """``config.epochs`` passes of minibatch Adam over ``data``; returns the last epoch's mean losses.

    The optimizer is the policy's own (Adam), at ``config.learning_rate``; batches are
    drawn in an order from ``seed``.
    """
    policy = model.policy
    policy.set_training_mode(True)
    opt = policy.optimizer
    for g in opt.param_groups:
        g["lr"] = config.learning_rate
    n = len(data["action"])
    obs_all = torch.as_tensor(data["obs"])
    acts_all = torch.as_tensor(data["action"].astype(np.int64))
    ret_all = torch.as_tensor(data["ret"])
    rng = np.random.default_rng(seed)
    stats = {"policy_loss": float("nan"), "value_loss": float("nan")}
    for _ in range(config.epochs):
        order = rng.permutation(n)
        pl = vl = 0.0
        batches = 0
        for b in range(0, n, config.batch_size):
            idx = order[b:b + config.batch_size]
            if len(idx) < 2:
                continue
            masks = torch.as_tensor(unpack_masks(data["mask"][idx], num_actions))
            logp, values = _forward(policy, obs_all[idx], masks)
            policy_loss = -logp.gather(-1, acts_all[idx].unsqueeze(-1)).mean()
            value_loss = torch.nn.functional.mse_loss(values, ret_all[idx])
            loss = policy_loss + config.vf_coef * value_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            pl += policy_loss.item()
            vl += value_loss.item()
            batches += 1
            if progress is not None:
                progress(len(idx))
        stats = {"policy_loss": pl / max(batches, 1), "value_loss": vl / max(batches, 1)}
    policy.set_training_mode(False)
    return stats


def accuracy(model: Any, data: dict[str, np.ndarray], num_actions: int, batch: int = 2048) -> dict[str, float]:
    """How often the policy's most likely legal action is the teacher's, on ``data``.

    Also the accuracy a uniform choice among the legal actions would have (the mean of
    one over the number of legal actions), the accuracy on the states with more than one
    legal action (``choice_accuracy``), the mean masked cross-entropy, and the value
    net's explained variance of the returns.
    """
    policy = model.policy
    policy.set_training_mode(False)
    n = len(data["action"])
    hits = 0
    choice_hits = choices = 0
    ce = 0.0
    uniform = 0.0
    values = np.zeros(n, dtype=np.float64)
    with torch.no_grad():
        for b in range(0, n, batch):
            sl = slice(b, b + batch)
            m = unpack_masks(data["mask"][sl], num_actions)
            logp, v = _forward(policy, torch.as_tensor(data["obs"][sl]), torch.as_tensor(m))
            acts = torch.as_tensor(data["action"][sl].astype(np.int64))
            hit = (logp.argmax(-1) == acts).numpy()
            several = m.sum(1) > 1
            hits += int(hit.sum())
            choice_hits += int(hit[several].sum())
            choices += int(several.sum())
            ce -= float(logp.gather(-1, acts.unsqueeze(-1)).sum())
            uniform += float((1.0 / m.sum(1)).sum())
            values[sl] = v.numpy()
    ret = data["ret"].astype(np.float64)
    var = float(np.var(ret))
    ev = float(1.0 - np.var(ret - values) / var) if var > 0 else float("nan")
    return {"rows": n, "accuracy": hits / max(n, 1), "uniform_accuracy": uniform / max(n, 1),
            "choice_rows": choices, "choice_accuracy": choice_hits / max(choices, 1),
            "cross_entropy": ce / max(n, 1), "value_explained_variance": ev}


def learner_policy(model: Any, sample: bool) -> Callable[[np.ndarray, np.ndarray, np.random.Generator], int]:
    """The learner's roll-in policy: its most likely legal action, or a sample of its masked
    distribution drawn with the game's generator."""
    from carioca_agents.ppo_agent import masked_action

    def act(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return masked_action(model, obs, mask, deterministic=not sample, rng=rng)

    return act
