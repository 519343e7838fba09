"""The training policy's sampler: same distribution as sb3-contrib's, never a masked action."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from carioca_agents.ppo_policy import CariocaMaskablePolicy, InverseCdfMaskableCategorical, inverse_cdf_sample
from carioca_env.wrappers import CariocaSingleAgentEnv


def test_inverse_cdf_sampling_matches_the_probabilities() -> None:
    """200k draws from rows with zeros, including a zero last entry: frequencies within
    5 standard errors of the probabilities, and no zero-weight index ever drawn."""
    g = torch.Generator().manual_seed(0)
    probs = torch.tensor([[0.0, 0.1, 0.0, 0.6, 0.3, 0.0], [0.5, 0.0, 0.0, 0.0, 0.5, 0.0]])
    draws = torch.stack([inverse_cdf_sample(probs, g) for _ in range(100_000)])  # (100000, 2)
    for row in range(2):
        freq = np.bincount(draws[:, row].numpy(), minlength=6) / len(draws)
        p = probs[row].numpy()
        se = np.sqrt(p * (1 - p) / len(draws)) + 1e-12
        assert np.all(np.abs(freq - p) <= 5 * se + 1e-9), (row, freq, p)
        assert np.all(freq[p == 0] == 0)


def test_a_uniform_at_the_top_of_the_row_still_lands_on_a_positive_weight(monkeypatch: pytest.MonkeyPatch) -> None:
    """The float rounding case: u * total rounding up to total must not pick a masked last index."""
    probs = torch.tensor([[0.25, 0.75, 0.0, 0.0]])
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.full(shape, 1.0 - 1e-9))
    assert int(inverse_cdf_sample(probs)[0]) == 1
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.zeros(shape))
    assert int(inverse_cdf_sample(probs)[0]) == 0


def test_masked_distribution_samples_only_legal_actions() -> None:
    torch.manual_seed(1)
    dist = InverseCdfMaskableCategorical(2191)
    logits = torch.randn(64, 2191) * 5
    mask = torch.rand(64, 2191) < 0.005
    mask[:, 7] = True
    dist.proba_distribution(logits)
    dist.apply_masking(mask)
    for _ in range(50):
        actions = dist.sample()
        assert bool(mask[torch.arange(64), actions].all())


def test_policy_trains_saves_and_loads_with_the_same_actions(tmp_path) -> None:
    env = CariocaSingleAgentEnv(num_players=2, deals=(1,), reward_scale=0.01, max_turns=100, mask_in_info=False)
    model = MaskablePPO(CariocaMaskablePolicy, env, n_steps=256, batch_size=64, n_epochs=1, seed=3, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(512)
    assert isinstance(model.policy.action_dist, InverseCdfMaskableCategorical)
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(loaded.policy, CariocaMaskablePolicy)
    obs, info = env.reset(seed=5)
    assert "action_mask" not in info
    a1, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    a2, _ = loaded.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert int(a1) == int(a2) and env.action_masks()[int(a1)]


@pytest.mark.parametrize("masked", [True, False])
def test_distribution_equals_sb3_contribs_values_and_gradients(masked: bool) -> None:
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

    torch.manual_seed(4)
    raw = torch.randn(32, 2191) * 3
    masks = torch.rand(32, 2191) < 0.01
    masks[:, 5] = True
    actions = torch.tensor([int(np.flatnonzero(m.numpy())[0]) for m in masks])
    outs = []
    for cls in (MaskableCategoricalDistribution, InverseCdfMaskableCategorical):
        logits = raw.clone().requires_grad_(True)
        d = cls(2191).proba_distribution(logits)
        d.apply_masking(masks if masked else None)
        lp, ent, mode = d.log_prob(actions), d.entropy(), d.mode()
        (lp.sum() + 0.1 * ent.sum()).backward()
        outs.append((lp.detach(), ent.detach(), mode, logits.grad))
    (lp0, e0, m0, g0), (lp1, e1, m1, g1) = outs
    assert torch.allclose(lp0, lp1, atol=1e-4) and torch.allclose(e0, e1, atol=1e-4)
    assert torch.equal(m0, m1)
    assert torch.allclose(g0, g1, atol=1e-5)


@pytest.mark.parametrize("name", ["contract3", "full-p4"])
def test_play_logits_are_the_training_forward_pass_on_a_shipped_model(name: str) -> None:
    # masked_logits (play) runs only the actor; it must give what policy_latents (training)
    # and sb3's own distribution give, on the observations of real play
    import numpy as np

    from carioca_agents.ppo_agent import load_model, masked_logits, resolve_model_path
    from carioca_agents.ppo_policy import policy_latents
    from carioca_env import carioca_v0

    model, card = load_model(resolve_model_path(name))
    env = carioca_v0.env(num_players=card["num_players"], features=card["features"])
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    obs_rows = []
    for _ in range(60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        obs_rows.append(obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(obs_rows) == 60
    for row in obs_rows:  # one observation at a time, as play computes it (a batch rounds differently)
        one = torch.as_tensor(row.astype(np.float32)[None])
        with torch.no_grad():
            training = model.policy.action_net(policy_latents(model.policy, one)[0])[0].numpy()
            sb3 = model.policy.get_distribution(one).log_probs[0].numpy()  # no mask: log-softmax of the logits
        play = masked_logits(model, row)
        assert np.array_equal(play, training)
        assert np.array_equal(torch.log_softmax(torch.as_tensor(play), -1).numpy(), sb3)
