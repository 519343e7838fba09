"""The advice prior (agents/action_prior.py): its scores point at the heuristic's move in
every kind of decision, it reaches every path that computes logits, it is saved, loaded
and compacted with the model, and it is refused where the observation has no advice."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

from carioca_agents.action_prior import PRIOR_PIECES, PRIOR_WEIGHTS, AdvicePriorHead, action_prior_spec, prior_width
from carioca_agents.heuristic import HeuristicAgent
from carioca_env import Game, GameConfig
from carioca_env.actions import ActionKind, action_table
from carioca_env.melds import Meld
from carioca_env.observation import encode_observation, obs_layout
from carioca_experiments.training.imitate.config import ImitateConfig
from carioca_experiments.training.imitate.learn import build_model

from random_play import assert_plays_legally

#: The row of :func:`AdvicePriorHead.scores` that names each kind's advised action.
ROW = {ActionKind.DRAW_STOCK: "take", ActionKind.DRAW_DISCARD: "take", ActionKind.DISCARD: "best",
       ActionKind.OPEN_MELD: "open_slot", ActionKind.LAY_OFF: "lay_off", ActionKind.SWAP: "swap"}


def _model(players: int = 2, **kw):
    return build_model(ImitateConfig(contract=2, players=players, features="advice_play", net_arch=(16,),
                                     card_head=True, action_prior=True, **kw))


def _head(spec: dict) -> AdvicePriorHead:
    """A head for scoring only (its layer's input: one value, then the advice)."""
    return AdvicePriorHead(torch.nn.Linear(1 + prior_width(spec), action_table(spec["players"]).size), spec)


def _advice(obs: np.ndarray, spec: dict) -> torch.Tensor:
    return torch.as_tensor(np.concatenate([obs[a:b] for a, b in spec["pieces"]]))[None]


@pytest.mark.parametrize("players, contracts", [(2, (2, 3, 6)), (4, (1, 5))])
def test_the_prior_scores_the_heuristics_move_highest_in_every_kind_of_decision(players: int, contracts) -> None:
    """Heuristic self-play: at every state with a choice (each step of an opening
    included), the heuristic's action id has the highest score of its kind's row among
    the legal ids, and that score is positive."""
    spec = action_prior_spec(players, "advice_play")
    head = _head(spec)
    table = action_table(players)
    row = {k: PRIOR_WEIGHTS.index(v) for k, v in ROW.items()}
    seen: Counter = Counter()
    for contract in contracts:
        for seed in range(2):
            game = Game(GameConfig(num_players=players, deals=(contract,)), seed=100 * contract + seed)
            agents = [HeuristicAgent(seed + s) for s in range(players)]
            while not game.game_over:
                seat, legal = game.current_player, game.legal_moves()
                view = game.view(seat)
                move = agents[seat].act(view, legal)
                pending: list[Meld] = []
                for a in table.move_actions(move, seat):
                    mask = table.legal_mask(legal, seat, pending)
                    if mask.sum() > 1:
                        scores = head.scores(_advice(encode_observation(view, pending, "advice_play"), spec))[0]
                        kind = table.decode(a).kind
                        r = scores[row[kind]].numpy()
                        assert r[a] > 0, (contract, str(move), kind)
                        assert r[a] == r[np.flatnonzero(mask)].max(), (contract, str(move), kind)
                        seen[kind] += 1
                    decoded = table.to_move(a, seat)
                    if isinstance(decoded, Meld):
                        pending.append(decoded)
                game.apply(move)
    # every kind the heuristic plays with a choice was checked (swaps are rare)
    assert {ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD, ActionKind.DISCARD, ActionKind.OPEN_MELD,
            ActionKind.LAY_OFF} <= set(seen)


def test_an_opening_meld_is_scored_only_when_all_its_cards_are_advised() -> None:
    spec = action_prior_spec(2, "advice_play")
    head = _head(spec)
    table = action_table(2)
    sizes = dict(zip(PRIOR_PIECES, (b - a for a, b in spec["pieces"])))
    advice = torch.zeros(1, prior_width(spec))
    play0 = sum(sizes[p] for p in PRIOR_PIECES[:PRIOR_PIECES.index("advice_play")])
    slot0 = prior_width(spec) - 3
    trio = Meld.trio(8, (0, 1, 2))  # three eights of three suits
    for c in trio.cards:
        advice[0, play0 + c] = 0.5  # one copy each
    advice[0, slot0] = 1.0  # a trio
    scores = head.scores(advice)[0]
    o0 = table.ranges[ActionKind.OPEN_MELD].start
    cover = scores[PRIOR_WEIGHTS.index("open")]
    fitted = {table.open_melds[i - o0] for i in torch.nonzero(cover).flatten().tolist()}
    assert trio in fitted
    # every scored meld uses only advised cards, one copy each
    assert all(set(m.cards) <= set(trio.cards) and len(set(m.cards)) == len(m.cards) for m in fitted)
    # a meld with two copies of one card is not covered by one advised copy
    double = Meld.trio(8, (0, 0, 1))
    assert cover[o0 + table.meld_id[double]] == 0
    # the slot says trio: the trio's kind matches it, a run with an end joker would not
    slot_scores = scores[PRIOR_WEIGHTS.index("open_slot")]
    assert slot_scores[o0 + table.meld_id[trio]] == 1
    advice[0, slot0], advice[0, slot0 + 1] = 0.0, 1.0  # now: a run with its joker low
    assert head.scores(advice)[0, PRIOR_WEIGHTS.index("open_slot"), o0 + table.meld_id[trio]] == 0


def test_fresh_weights_and_every_logit_path_agree() -> None:
    """sb3's distribution (training), the fast ``masked_logits`` (play) and the imitation
    forward give the same logits; with the weights at 0 the layer is the plain one."""
    from carioca_agents.ppo_agent import masked_logits
    from carioca_experiments.training.imitate.learn import _forward

    model = _model()
    policy = model.policy
    n = obs_layout(2, "advice_play").size
    game = Game(GameConfig(num_players=2, deals=(2,)), seed=5)
    obs = encode_observation(game.view(game.current_player), (), "advice_play")
    t = torch.as_tensor(obs[None])
    with torch.no_grad():
        sb3 = policy.get_distribution(t)._raw[0]
        masks = torch.ones(1, sb3.shape[0], dtype=torch.bool)
        imit = _forward(policy, t, masks)[0][0]
    fast = torch.as_tensor(masked_logits(model, obs))
    assert torch.allclose(sb3, fast, atol=1e-6)
    assert torch.allclose(torch.log_softmax(sb3, -1), imit, atol=1e-5)
    assert obs.shape == (n,)
    head = policy.action_net
    with torch.no_grad():
        head.weights.zero_()
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(t, policy.pi_features_extractor))
        plain = head.base(latent[:, :-head.width])  # the layer does not read the advice itself
        assert torch.allclose(head(latent), plain)
        head.weights.fill_(3.0)
        assert not torch.allclose(head(latent), plain)


def test_the_first_prior_models_keep_their_wider_action_layer() -> None:
    """A spec without ``base_reads_advice`` (the first shipped prior models) keeps sb3's
    layer over the whole latent; a new spec's layer leaves the advice to the prior."""
    spec = action_prior_spec(2, "advice_play")
    wide = torch.nn.Linear(100 + prior_width(spec), 7)
    old = AdvicePriorHead(wide, {k: v for k, v in spec.items() if k != "base_reads_advice"})
    new = AdvicePriorHead(wide, spec)
    assert old.base is wide
    assert new.base.in_features == 100 and new.base.out_features == 7
    assert not new.reads_advice and old.reads_advice


def test_the_prior_is_trained_saved_loaded_and_compacted_with_the_model(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from carioca_agents.model_file import compact_model_file
    from carioca_agents.ppo_agent import masked_logits

    model = _model()
    assert any(p is model.policy.action_net.weights for g in model.policy.optimizer.param_groups for p in g["params"])
    with torch.no_grad():
        model.policy.action_net.weights.copy_(torch.tensor([1.5, 2.5, 0.5, 3.0, 1.0, 4.0, 2.0]))
    game = Game(GameConfig(num_players=2, deals=(2,)), seed=6)
    obs = encode_observation(game.view(game.current_player), (), "advice_play")
    before = masked_logits(model, obs)
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(loaded.policy.action_net, AdvicePriorHead)
    assert torch.equal(loaded.policy.action_net.weights.detach(), model.policy.action_net.weights.detach())
    assert np.array_equal(masked_logits(loaded, obs), before)
    compact_model_file(tmp_path / "m.zip", tmp_path / "c.zip")
    half = MaskablePPO.load(tmp_path / "c.zip", device="cpu")
    after = masked_logits(half, obs)
    assert np.allclose(after, before, atol=0.05)
    assert int(np.argmax(after)) == int(np.argmax(before))


@pytest.mark.parametrize("players", [2, 4])
def test_a_model_with_the_prior_plays_only_legal_moves(tmp_path: Path, players: int) -> None:
    from carioca_agents.ppo_agent import PPOAgent, card_path, model_card
    from carioca_experiments.training.train import save_model

    save_model(_model(players), tmp_path / "model.zip")
    card = model_card(players, features="advice_play",
                      settings={"net_arch": [16], "features": "advice_play", "card_head": 1, "action_prior": 1})
    card_path(tmp_path / "model.zip").write_text(json.dumps(card))
    assert_plays_legally(PPOAgent(tmp_path / "model.zip", seed=3), players, (1, 2, 6), 60)


def test_the_prior_is_refused_without_the_advice_play_pieces() -> None:
    from carioca_experiments.training.imitate.config import ImitateError
    from carioca_experiments.training.train import TrainConfig, TrainError

    with pytest.raises(ValueError, match="advice_play"):
        action_prior_spec(2, "advice")
    with pytest.raises(ImitateError, match="--features advice_play"):
        ImitateConfig(features="advice", action_prior=True)
    with pytest.raises(ImitateError, match="action_prior must be True or False"):
        ImitateConfig(features="advice_play", action_prior=1)
    with pytest.raises(TrainError, match="features=advice_play"):
        TrainConfig(settings={"features": "advice", "action_prior": 1})
    ok = TrainConfig(settings={"features": "advice_play", "action_prior": 1})
    assert ok.merged_settings["action_prior"] == 1
