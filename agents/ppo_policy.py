"""The MaskablePPO policy that ``carioca train`` uses: sb3-contrib's, with a faster sampler.

sb3-contrib samples a masked categorical with ``torch.multinomial``, which on the CPU
costs about 0.6 ms for 8 rows of 2,191 actions (measured here with one torch thread):
more than the environment step it serves; and it normalizes the 2,191 logits twice per
forward pass.  :class:`InverseCdfMaskableCategorical` computes the same distribution
with one ``log_softmax`` and samples it by inverse transform (a cumulative sum, one
uniform per row, a binary search: about 60 µs).  The network, the masking convention,
the loss and saving are sb3-contrib's own; a model trained with this policy loads with
``MaskablePPO.load`` wherever :mod:`agents` is importable.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy


def inverse_cdf_sample(probs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One index per row of ``probs`` (rows of non-negative weights), drawn with those weights.

    An index of weight 0 is never drawn: the uniform is scaled to the row's total and kept
    strictly below it, and ``searchsorted(..., right=True)`` returns the first index whose
    cumulative weight exceeds the uniform, which therefore adds a positive weight.
    """
    cdf = probs.cumsum(-1)
    total = cdf[..., -1:]
    u = torch.rand(total.shape, dtype=cdf.dtype, device=cdf.device, generator=generator) * total
    u = torch.minimum(u, torch.nextafter(total, torch.zeros_like(total)))
    return torch.searchsorted(cdf, u, right=True).squeeze(-1)


class InverseCdfMaskableCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution, computed once and sampled by inverse CDF.

    The stock class builds a torch ``Categorical`` twice per forward pass (normalizing
    2,191 logits with ``logsumexp`` each time, then again for the masked copy); this one
    masks the raw logits and takes one ``log_softmax``, from which log-probabilities,
    entropy (masked entries count 0, as in sb3-contrib), the mode and samples
    (:func:`inverse_cdf_sample`) all come.  The tests compare every output and gradient
    with sb3-contrib's class.
    """

    def proba_distribution(self, action_logits: torch.Tensor) -> InverseCdfMaskableCategorical:
        """Take the action net's logits (one row per state)."""
        self._raw = action_logits.view(-1, self.action_dim)
        self._masks: torch.Tensor | None = None
        self._logp: torch.Tensor | None = None
        return self

    def apply_masking(self, masks: Any) -> None:
        """Give legal actions (True) their logits and the others -1e8, as sb3-contrib does;
        ``None`` removes a mask."""
        if masks is None:
            self._masks = None
        else:
            self._masks = torch.as_tensor(masks, dtype=torch.bool, device=self._raw.device).reshape(self._raw.shape)
        self._logp = None

    @property
    def log_probs(self) -> torch.Tensor:
        """Normalized log-probabilities of every action (masked ones about -1e8)."""
        if self._logp is None:
            logits = self._raw
            if self._masks is not None:
                logits = torch.where(self._masks, logits, torch.tensor(-1e8, dtype=logits.dtype, device=logits.device))
            self._logp = torch.log_softmax(logits, dim=-1)
        return self._logp

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of each row's action."""
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """Entropy of each row over its legal actions."""
        logp = self.log_probs
        p_log_p = logp.exp() * logp
        if self._masks is not None:
            p_log_p = torch.where(self._masks, p_log_p, torch.zeros((), dtype=p_log_p.dtype, device=p_log_p.device))
        return -p_log_p.sum(-1)

    def sample(self) -> torch.Tensor:
        """A sample of the (masked) distribution, one action per row."""
        return inverse_cdf_sample(self.log_probs.exp())

    def mode(self) -> torch.Tensor:
        """The most probable action of each row."""
        return torch.argmax(self.log_probs, dim=-1)


def policy_latents(policy: MaskableActorCriticPolicy, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The actor's and the critic's latent features of a batch of observations (as
    ``evaluate_actions`` computes them, for shared or separate feature extractors)."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        return policy.mlp_extractor(features)
    return policy.mlp_extractor.forward_actor(features[0]), policy.mlp_extractor.forward_critic(features[1])


class CariocaMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (sb3-contrib's ``"MlpPolicy"``) with the faster sampler."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the action net was built by the stock distribution; this one has the same layer
        self.action_dist = InverseCdfMaskableCategorical(int(self.action_space.n))
