"""MaskablePPO fine-tuning from an imitation model without forgetting it in the first updates.

A policy cloned from a teacher starts far better than PPO's fresh network, and plain
PPO can throw that away in its first updates: the value net has never seen the
learner's own returns, so the first advantages are noise, and nothing pulls the policy
back towards the moves it imitated.  :class:`AnchoredMaskablePPO` is sb3-contrib's
``MaskablePPO`` with two additions to its update (``train``):

* **value warm-up**: the first ``value_warmup_updates`` updates train the value net only
  (every actor parameter has ``requires_grad`` off, so Adam leaves it exactly as it was);
* **anchor**: ``kl_coef(t) * KL(pi_init || pi)`` is added to the loss, over the legal
  actions of each state of the batch, where ``pi_init`` is a frozen copy of the initial
  policy and ``kl_coef(t)`` decays linearly from ``kl_coef`` at step 0 to 0 at
  ``kl_decay_steps`` (0: constant).  The forward direction (the imitation policy's
  expectation) keeps probability where the teacher put it, as the cross-entropy of the
  imitation did.

Everything else (the clipped surrogate, the value loss, the entropy bonus, masking and
gradient clipping) is MaskablePPO's ``train`` as of sb3-contrib 2.x, which the loop
below follows line by line; with ``kl_coef = 0`` and no warm-up it computes the same
update (a test compares the two).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

from carioca_agents.ppo_policy import policy_latents


def kl_weight(kl_coef: float, decay_steps: int, num_timesteps: int) -> float:
    """The anchor's weight after ``num_timesteps``: linear decay to 0 over ``decay_steps``
    (``decay_steps = 0``: constant)."""
    if decay_steps <= 0:
        return float(kl_coef)
    return float(kl_coef) * max(0.0, 1.0 - num_timesteps / decay_steps)


class AnchoredMaskablePPO(MaskablePPO):
    """MaskablePPO with a value warm-up and a decaying KL anchor (see the module docstring).

    Call :meth:`set_anchor` after building or loading: the reference policy is not saved
    with the model (it is the ``--init`` model, which the run's card names).
    """

    kl_coef: float = 0.0
    kl_decay_steps: int = 0
    value_warmup_updates: int = 0

    def set_anchor(self, reference: Any, kl_coef: float, kl_decay_steps: int, value_warmup_updates: int) -> None:
        """Use ``reference`` (a policy, copied and frozen) as the anchor with these weights."""
        ref = copy.deepcopy(reference)
        ref.set_training_mode(False)
        for p in ref.parameters():
            p.requires_grad_(False)
        self._anchor = ref
        self.kl_coef = float(kl_coef)
        self.kl_decay_steps = int(kl_decay_steps)
        self.value_warmup_updates = int(value_warmup_updates)

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_anchor"]

    def _actor_parameters(self) -> list[th.nn.Parameter]:
        pol = self.policy
        params = list(pol.action_net.parameters()) + list(pol.mlp_extractor.policy_net.parameters())
        if not pol.share_features_extractor:
            params += list(pol.pi_features_extractor.parameters())
        return params

    def train(self) -> None:  # noqa: C901 - follows MaskablePPO.train
        """One PPO update on the rollout buffer, with the warm-up and the anchor."""
        warmup = self._n_updates // max(self.n_epochs, 1) < self.value_warmup_updates
        actor = self._actor_parameters()
        for p in actor:
            p.requires_grad_(not warmup)
        try:
            self._train(warmup)
        finally:
            for p in actor:
                p.requires_grad_(True)

    def _train(self, warmup: bool) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        clip_range_vf = None
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]
        anchor = getattr(self, "_anchor", None)
        beta = 0.0 if anchor is None or warmup else kl_weight(self.kl_coef, self.kl_decay_steps, self.num_timesteps)

        entropy_losses, pg_losses, value_losses, clip_fractions, kls = [], [], [], [], []
        approx_kl_divs: list[Any] = []
        continue_training = True
        loss = th.zeros(())
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                actions = rollout_data.actions.long().flatten()
                obs, masks = rollout_data.observations, rollout_data.action_masks
                pol = self.policy
                latent_pi, latent_vf = policy_latents(pol, obs)
                dist = pol._get_action_dist_from_latent(latent_pi)
                dist.apply_masking(masks)
                values = pol.value_net(latent_vf).flatten()
                log_prob = dist.log_prob(actions)
                entropy = dist.entropy()

                advantages = rollout_data.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = th.exp(log_prob - rollout_data.old_log_prob)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                if clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = rollout_data.old_values + th.clamp(
                        values - rollout_data.old_values, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(rollout_data.returns, values_pred)
                value_losses.append(value_loss.item())
                # as sb3's PPO: a distribution without a closed-form entropy uses -log_prob
                entropy_loss = -th.mean(-log_prob) if entropy is None else -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                if beta > 0.0:
                    kl = anchored_kl(anchor, obs, masks, dist)
                    kls.append(kl.item())
                    loss = loss + beta * kl

                with th.no_grad():
                    log_ratio = log_prob - rollout_data.old_log_prob
                    approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    break

                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        self.logger.record("train/anchor_weight", beta)
        self.logger.record("train/value_warmup", float(warmup))
        if kls:
            self.logger.record("train/anchor_kl", np.mean(kls))
        if clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)


def anchored_kl(anchor: Any, obs: th.Tensor, masks: Any, dist: Any) -> th.Tensor:
    """Mean over the batch of ``KL(pi_anchor || pi)`` on the legal actions of each state."""
    with th.no_grad():
        ref = anchor.get_distribution(obs, action_masks=masks)
        ref_logp = ref.log_probs if hasattr(ref, "log_probs") else ref.distribution.logits
        ref_p = ref_logp.exp()
    logp = dist.log_probs if hasattr(dist, "log_probs") else dist.distribution.logits
    legal = th.as_tensor(masks, dtype=th.bool, device=logp.device).reshape(logp.shape)
    terms = th.where(legal, ref_p * (ref_logp - logp), th.zeros((), dtype=logp.dtype))
    return terms.sum(-1).mean()
