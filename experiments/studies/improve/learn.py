"""Fitting a policy to rollout advantages, and measuring it on held-out rows.

The loss is the sum of two parts, per batch:

* **pairwise advantage** (rows with valued candidates): for each pair of candidates
  ``i, j`` with ``A_i > A_j`` in the row, ``(A_i - A_j) * softplus(-(l_i - l_j))``
  divided by ``adv_scale``, where ``l`` are the policy's masked log-probabilities.  It
  is linear in the advantages, so the noise of single rows averages out: for one
  observation its minimum puts ``l_i > l_j`` exactly when ``E[A_i - A_j] > 0``, which is
  the ordering of the true one-step advantages (the logistic loss weighted by the size
  of the difference is classification-calibrated for its sign);
* **anchor**: ``anchor`` times the cross-entropy of the teacher's action on rows without
  valued candidates (openings, lay-offs, swaps: the moves the rollouts do not judge),
  and minus the log of the probability the policy keeps on the candidates of the valued
  rows (the pairwise part orders the candidates, this keeps the policy among them).

:func:`captured` is the held-out measure: on each valued row the policy's most likely
legal action, and the advantage the rollouts gave that move (0 for the teacher's own).
Its mean over rows is an unbiased estimate of the one-step gain per decision of the
policy's choices over the teacher's, on the teacher's states.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from carioca_experiments.training.imitate.dataset import unpack_masks
from carioca_experiments.training.imitate.learn import masked_log_softmax


def masked_log_probs(policy: Any, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """The policy's log-probabilities over the legal actions (illegal ones at about -1e8);
    the value net is not run."""
    from carioca_agents.ppo_policy import policy_latents

    latent_pi, _ = policy_latents(policy, obs)
    return masked_log_softmax(policy, latent_pi, masks)


def losses(logp: torch.Tensor, action: torch.Tensor, cand: torch.Tensor, adv: torch.Tensor,
           adv_scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(pairwise advantage loss, anchor loss), each a batch mean (see the module docstring)."""
    valid = cand >= 0
    valued = valid.sum(1) > 1
    lc = logp.gather(1, cand.clamp(min=0))
    dl = lc[:, :, None] - lc[:, None, :]
    da = adv[:, :, None] - adv[:, None, :]
    pairs = valid[:, :, None] & valid[:, None, :] & (da > 0)
    pair = torch.where(pairs, da * F.softplus(-dl), torch.zeros_like(dl)).sum((1, 2)) / adv_scale
    ce = -logp.gather(1, action.unsqueeze(1)).squeeze(1)
    keep = -torch.logsumexp(torch.where(valid, lc, torch.full_like(lc, -1e9)), dim=1)
    anchor = torch.where(valued, keep, ce)
    return pair.mean(), anchor.mean()


def fit_epoch(policy: Any, data: dict[str, np.ndarray], num_actions: int, batch_size: int, learning_rate: float,
              anchor: float, adv_scale: float, rng: np.random.Generator,
              progress: Callable[[int], None] | None = None) -> dict[str, float]:
    """One pass of minibatch Adam over ``data`` in an order from ``rng``; the mean losses."""
    policy.set_training_mode(True)
    opt = policy.optimizer
    for g in opt.param_groups:
        g["lr"] = learning_rate
    n = len(data["action"])
    order = rng.permutation(n)
    tot_pair = tot_anchor = 0.0
    batches = 0
    for b in range(0, n, batch_size):
        idx = order[b:b + batch_size]
        if len(idx) < 2:
            continue
        masks = torch.as_tensor(unpack_masks(data["mask"][idx], num_actions))
        logp = masked_log_probs(policy, torch.as_tensor(data["obs"][idx]), masks)
        pair, anc = losses(logp, torch.as_tensor(data["action"][idx].astype(np.int64)),
                           torch.as_tensor(data["cand"][idx].astype(np.int64)), torch.as_tensor(data["adv"][idx]),
                           adv_scale)
        loss = pair + anchor * anc
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        opt.step()
        tot_pair += pair.item()
        tot_anchor += anc.item()
        batches += 1
        if progress is not None:
            progress(len(idx))
    policy.set_training_mode(False)
    return {"pair_loss": tot_pair / max(batches, 1), "anchor_loss": tot_anchor / max(batches, 1)}


def policy_choices(policy: Any, data: dict[str, np.ndarray], num_actions: int, batch: int = 4096) -> np.ndarray:
    """The policy's most likely legal action id on each row of ``data``."""
    policy.set_training_mode(False)
    n = len(data["action"])
    choice = np.zeros(n, dtype=np.int64)
    with torch.no_grad():
        for b in range(0, n, batch):
            sl = slice(b, b + batch)
            masks = torch.as_tensor(unpack_masks(data["mask"][sl], num_actions))
            choice[sl] = masked_log_probs(policy, torch.as_tensor(data["obs"][sl]), masks).argmax(-1).numpy()
    return choice


def captured(policy: Any, data: dict[str, np.ndarray], num_actions: int) -> dict[str, float]:
    """The held-out measures of the policy's choices: :func:`choice_measures` of
    :func:`policy_choices`."""
    return choice_measures(policy_choices(policy, data, num_actions), data)


def choice_measures(choice: np.ndarray, data: dict[str, np.ndarray]) -> dict[str, float]:
    """What the choices ``choice`` (one action id per row of ``data``) are worth.

    Returns the number of valued rows; ``gain``, the mean advantage of the choice per
    valued row, with a 95% interval over the (game, seat) groups (rows of one game are
    not independent); ``gain_per_seat_deal``, the gain summed over a seat's decisions in
    a deal; ``deviations``, the share of valued rows where the choice leaves the
    teacher; ``outside``, the share where it is no candidate (its advantage unknown,
    counted as 0); ``best``, the mean of the best candidate's advantage (what a perfect
    chooser would get on these noisy values: an upper bound, biased up by the noise);
    and ``agreement``, the share of unvalued rows (openings, lay-offs) where it is the
    teacher's action.
    """
    cand, adv = data["cand"], data["adv"]
    valued = (cand >= 0).sum(1) > 1
    hit = cand == choice[:, None]
    gain_row = np.where(hit, adv, 0.0).sum(1)
    v = np.flatnonzero(valued)
    out = {"rows": int(len(v)), "gain": 0.0, "gain_ci_low": 0.0, "gain_ci_high": 0.0, "gain_per_seat_deal": 0.0,
           "deviations": 0.0, "outside": 0.0, "best": 0.0, "agreement": float("nan")}
    unvalued = ~valued
    if unvalued.any():
        out["agreement"] = float((choice[unvalued] == data["action"][unvalued]).mean())
    if not len(v):
        return out
    groups = data["game"][v].astype(np.int64) * 8 + data["seat"][v]
    _, inverse = np.unique(groups, return_inverse=True)
    totals = np.bincount(inverse, weights=gain_row[v])
    rows_per_group = len(v) / len(totals)
    mean = float(gain_row[v].mean())
    half = 1.96 * float(totals.std(ddof=1)) / math.sqrt(len(totals)) / rows_per_group if len(totals) > 1 else math.nan
    out.update(gain=mean, gain_ci_low=mean - half, gain_ci_high=mean + half, gain_per_seat_deal=float(totals.mean()),
               deviations=float((choice[v] != cand[v, 0]).mean()), outside=float((~hit[v].any(1)).mean()),
               best=float(adv[v].max(1).mean()))
    return out
