"""The policy's optional card head: one shared net scores every card type from that card's
entries only, it is saved and loaded with the model, and a model with it plays legal moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from carioca_agents.ppo_policy import CardScores, card_head_spec
from carioca_env.cards import NUM_CARD_TYPES
from carioca_env.observation import obs_layout
from carioca_experiments.training.imitate.config import ImitateConfig
from carioca_experiments.training.imitate.learn import _forward, build_model

from random_play import assert_plays_legally


def _model(features: str = "discards", players: int = 2):
    return build_model(ImitateConfig(contract=6, players=players, features=features, net_arch=(16,), card_head=True))


def test_spec_lists_the_pieces_of_the_layout() -> None:
    spec = card_head_spec(2, "discards")
    slices = obs_layout(2, "discards").slices
    assert [slices["hand"].start, slices["hand"].stop] in spec["card"]
    assert [slices["disc_outs"].start, slices["disc_outs"].stop] in spec["card"]
    assert len(card_head_spec(2, "base")["card"]) == 4  # hand, top discard, pile, unseen only


def test_a_card_score_reads_only_its_own_card_entries() -> None:
    policy = _model().policy
    head = policy.mlp_extractor.policy_net
    assert isinstance(head, CardScores)
    layout = obs_layout(2, "discards")
    rng = np.random.default_rng(0)
    x = torch.as_tensor(rng.random((1, layout.size), dtype=np.float32))
    base = head(x)[0, -NUM_CARD_TYPES:].detach()
    hand = layout.slices["hand"].start
    y = x.clone()
    y[0, hand + 7] += 1.0  # one more copy of card type 7
    changed = head(y)[0, -NUM_CARD_TYPES:].detach()
    assert changed[7] != base[7]
    others = [c for c in range(NUM_CARD_TYPES) if c != 7]
    assert torch.equal(changed[others], base[others])
    z = x.clone()
    z[0, layout.slices["phase"].start] += 1.0  # the context reaches every score
    assert not torch.equal(head(z)[0, -NUM_CARD_TYPES:].detach(), base)


def test_the_head_is_saved_and_loaded_with_the_model(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = _model()
    obs = torch.rand(4, obs_layout(2, "discards").size)
    masks = torch.ones(4, model.policy.action_net.out_features, dtype=torch.bool)
    before, _ = _forward(model.policy, obs, masks)
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(loaded.policy.mlp_extractor.policy_net, CardScores)
    after, _ = _forward(loaded.policy, obs, masks)
    assert torch.allclose(before, after)


@pytest.mark.parametrize("players", [2, 4])
def test_a_card_head_model_plays_only_legal_moves(tmp_path: Path, players: int) -> None:
    import json

    from carioca_agents.ppo_agent import PPOAgent, card_path, model_card
    from carioca_experiments.training.train import save_model

    model = _model(players=players)
    save_model(model, tmp_path / "model.zip")
    card = model_card(players, features="discards", settings={"net_arch": [16], "features": "discards", "card_head": 1})
    card_path(tmp_path / "model.zip").write_text(json.dumps(card))
    assert_plays_legally(PPOAgent(tmp_path / "model.zip", seed=3), players, (1, 6), 60)
