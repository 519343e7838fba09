"""The MaskablePPO policy that ``carioca train`` uses: sb3-contrib's, with a faster sampler.

sb3-contrib samples a masked categorical with ``torch.multinomial``, which on the CPU
costs more than the environment step it serves for rows of thousands of actions; and it
normalizes the logits twice per forward pass.  :class:`InverseCdfMaskableCategorical` computes the same distribution
with one ``log_softmax`` and samples it by inverse transform (a cumulative sum, one
uniform per row, a binary search).  The network, the masking convention,
the loss and saving are sb3-contrib's own; a model trained with this policy loads with
``MaskablePPO.load`` wherever :mod:`carioca_agents` is importable (a file written under the
package's old name ``agents`` loads through :func:`carioca_agents.model_file.load_maskable`).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from carioca_env.cards import NUM_CARD_TYPES


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


def action_logits(policy: MaskableActorCriticPolicy, obs: torch.Tensor) -> torch.Tensor:
    """The action logits (before masking) of a batch of observations: the actor's half of
    :func:`policy_latents` through the action layer, without running the critic (what
    choosing a move needs)."""
    features = policy.extract_features(obs, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


class CariocaMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (sb3-contrib's ``"MlpPolicy"``) with the faster sampler,
    optionally the card head (``card_head``: :func:`card_head_spec`'s data) and the advice
    prior (``action_prior``: :func:`carioca_agents.action_prior.action_prior_spec`'s data).

    The action net is built by the stock distribution; the faster one has the same layer.
    """

    def __init__(self, *args: Any, card_head: dict[str, Any] | None = None,
                 action_prior: dict[str, Any] | None = None, **kwargs: Any) -> None:
        # set before the parent builds the networks: _build_mlp_extractor and _build read them
        self.card_head = card_head
        self.action_prior = action_prior
        super().__init__(*args, **kwargs)
        self.action_dist = InverseCdfMaskableCategorical(int(self.action_space.n))

    def _build_mlp_extractor(self) -> None:
        """sb3's actor and critic MLPs; with ``card_head``, the actor's latent also holds one
        score per card type (:class:`CardScores`), so the action layer can read the score of
        card ``c`` straight into the logit of discarding ``c``."""
        super()._build_mlp_extractor()
        if self.card_head:
            ext = self.mlp_extractor
            ext.policy_net = CardScores(ext.policy_net, self.card_head)
            ext.latent_dim_pi += NUM_CARD_TYPES
        if self.action_prior:
            from carioca_agents.action_prior import AdvicePassThrough, prior_width

            ext = self.mlp_extractor
            ext.policy_net = AdvicePassThrough(ext.policy_net, self.action_prior)
            ext.latent_dim_pi += prior_width(self.action_prior)

    def _build(self, lr_schedule: Any) -> None:
        """sb3's networks and optimizer; with ``action_prior``, the action layer is wrapped
        in :class:`carioca_agents.action_prior.AdvicePriorHead` (and the optimizer rebuilt to hold
        its weights)."""
        super()._build(lr_schedule)
        if self.action_prior:
            from carioca_agents.action_prior import AdvicePriorHead

            self.action_net = AdvicePriorHead(self.action_net, self.action_prior)
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["card_head"] = self.card_head
        if self.action_prior:  # older models' saved parameters stay as they were
            data["action_prior"] = self.action_prior
        return data


#: Per-card-type pieces of the observation the card head reads, where the layout has them.
CARD_PIECES = ("hand", "top_discard", "discard_pile", "unseen", "plan_used", "plan_outs", "plan_fits",
               "disc_deficiency", "disc_outs", "advice_discard", "advice_best", "advice_play")
#: Whole-state pieces every card's score also sees.
CONTEXT_PIECES = ("phase", "plan_deficiency", "contract", "opened", "hand_sizes", "top_gain", "advice_take", "advice_meld",
                  "advice_target", "advice_slot")


def card_head_spec(num_players: int, features: str, hidden: int = 32) -> dict[str, Any]:
    """The card head's constructor data for a layout: the ``[start, stop)`` of each piece it
    reads (plain lists, saved with the model) and its hidden width."""
    from carioca_env.observation import obs_layout

    slices = obs_layout(num_players, features).slices
    return {"card": [[slices[n].start, slices[n].stop] for n in CARD_PIECES if n in slices],
            "context": [[slices[n].start, slices[n].stop] for n in CONTEXT_PIECES if n in slices],
            "hidden": hidden}


class CardScores(nn.Module):
    """The actor's MLP, plus one score per card type from one small net shared by all 53.

    A flat MLP must learn a separate mapping for each card type's "discard it" logit from
    the features at that card's positions; imitating the heuristic it copied only about
    half of its discards on contract 6.  Here card ``c``'s score reads only card ``c``'s
    entries of the per-card pieces (:data:`CARD_PIECES`), its penalty and whether it is a
    joker, and the state's context (:data:`CONTEXT_PIECES`), with the same weights for
    every card; the 53 scores are appended to the MLP's output.
    """

    def __init__(self, base: nn.Module, spec: dict[str, Any]) -> None:
        super().__init__()
        from carioca_env.cards import JOKER, PENALTY

        self.base = base
        self.card = [slice(a, b) for a, b in spec["card"]]
        self.context = [slice(a, b) for a, b in spec["context"]]
        for s in self.card:
            if s.stop - s.start != NUM_CARD_TYPES:
                raise ValueError(f"card head: piece {s} is not {NUM_CARD_TYPES} card types")
        const = torch.tensor([[PENALTY[c] / 20.0, float(c == JOKER)] for c in range(NUM_CARD_TYPES)])
        self.register_buffer("const", const)
        width = len(self.card) + 2 + sum(s.stop - s.start for s in self.context)
        hidden = int(spec.get("hidden", 32))
        self.score = nn.Sequential(nn.Linear(width, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``[MLP(x), score_0(x) .. score_52(x)]`` for a batch of flat observations."""
        b = x.shape[0]
        per = torch.stack([x[:, s] for s in self.card], dim=-1)                    # B x 53 x pieces
        ctx = torch.cat([x[:, s] for s in self.context], dim=-1) if self.context else x[:, :0]
        inputs = torch.cat([per, self.const.expand(b, -1, -1), ctx.unsqueeze(1).expand(-1, NUM_CARD_TYPES, -1)], -1)
        return torch.cat([self.base(x), self.score(inputs).squeeze(-1)], dim=-1)
