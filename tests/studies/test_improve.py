"""`carioca improve`: rollout advantages over the teacher, the pairwise fit, and a tiny run."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.ppo_agent import PPOAgent, read_card
from carioca_agents.search import candidate_moves
from carioca_env import Game, GameConfig, Move, MoveKind
from carioca_env.actions import action_table
from carioca_env.melds import Meld
from carioca_env.observation import encode_observation
from carioca_experiments.studies.improve import ImproveConfig, ImproveError, run_improvement
from carioca_experiments.studies.improve.data import AdvantageFolder
from carioca_experiments.studies.improve.labels import COLUMNS, AdvantageRows, advantages, label_game
from carioca_experiments.studies.improve.learn import choice_measures, losses
from carioca_experiments.training.imitate.dataset import read_shard, unpack_masks

TINY = dict(init="contract1", contract=1, games=4, heldout_games=2, reshuffles=1, top=3, epochs=2, shard_games=2,
            seed=5, learning_rate=1e-3)


def _mid_deal(contract: int = 1, seed: int = 3, moves: int = 21) -> Game:
    game = Game(GameConfig(num_players=2, deals=(contract,)), seed=seed)
    agents = [HeuristicAgent(1), HeuristicAgent(2)]
    for _ in range(moves):
        legal = game.legal_moves()
        s = game.current
        game.apply(legal[0] if len(legal) == 1 else agents[s].act(game.view(s), legal))
    return game


def _state(game: Game) -> str:
    return json.dumps(game.to_record(), sort_keys=True) + repr((game.stock, game.hands, game.discard))


def test_a_move_against_itself_has_exactly_zero_advantage_and_the_position_is_untouched() -> None:
    # common random numbers: every candidate is rolled out on the same shuffles and seeds,
    # so the same move twice differs by exactly nothing, whatever the deal's variance
    game = _mid_deal(moves=9)
    guide = HeuristicAgent(0)
    while True:  # the next discard decision
        legal = game.legal_moves()
        view = game.view(game.current)
        choice = guide.act(view, legal)
        if choice.kind is MoveKind.DISCARD and len(legal) > 3:
            break
        game.apply(choice)
    cands = candidate_moves(guide, view, legal, choice, 3)
    assert len(cands) == 3 and cands[0] == choice and len(set(map(str, cands))) == 3
    before = _state(game)
    policies = [HeuristicAgent(0) for _ in range(2)]
    adv = advantages(game, game.current, [cands[0], cands[1], cands[0], cands[2]], policies, 3, random.Random(1), 1200)
    assert adv[0] == 0.0 and adv[2] == 0.0
    assert _state(game) == before
    # same generator state, same values; another generator, other shuffles
    again = advantages(game, game.current, [cands[0], cands[1], cands[0], cands[2]], policies, 3, random.Random(1), 1200)
    assert again == adv


def test_labelled_rows_hold_the_seats_observation_and_legal_distinct_candidates() -> None:
    rows = AdvantageRows(top=3)
    teachers = [HeuristicAgent(11), HeuristicAgent(12)]
    policies = [HeuristicAgent(0), HeuristicAgent(0)]
    info = label_game(2, 1, 77, 0, "advice_play", teachers, policies, (0, 1), 1, 3, 300, random.Random(4), rows)
    z = rows.arrays()
    assert set(z) == set(COLUMNS) and len(z["action"]) == info["rows"] > 20
    n_actions = action_table(2).size
    masks = unpack_masks(z["mask"], n_actions)
    valued = (z["cand"] >= 0).sum(1) > 1
    assert valued.sum() == info["valued"] > 10
    for i in range(len(masks)):
        c = z["cand"][i][z["cand"][i] >= 0]
        assert masks[i, z["action"][i]] and masks[i, c].all()
        assert c[0] == z["action"][i] and len(set(c.tolist())) == len(c)  # the teacher's move first, no repeats
        assert z["adv"][i, 0] == 0.0 and (z["adv"][i, len(c):] == 0).all()
    # each row's observation is what that seat sees: replay the game and compare
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=77)
    table = action_table(2)
    i = 0
    while i < len(z["action"]) and not game.game_over:
        legal = game.legal_moves()
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        seat = int(z["seat"][i])
        assert seat == game.current
        move = table.to_move(int(z["action"][i]), seat)
        pending: list[Meld] = []
        while isinstance(move, Meld):  # an opening: one row per meld, each with the melds chosen before
            assert np.array_equal(z["obs"][i], encode_observation(game.view(seat), pending, "advice_play"))
            pending.append(move)
            i += 1
            move = table.to_move(int(z["action"][i]), seat) if len(pending) < game.contract.trios + game.contract.runs \
                else Move.open(pending)
        if not pending:
            assert np.array_equal(z["obs"][i], encode_observation(game.view(seat), [], "advice_play"))
            i += 1
        game.apply(move)
    assert i == len(z["action"])


def test_with_opponents_only_the_teachers_seat_is_labelled_and_every_seat_takes_its_turn() -> None:
    from carioca_agents.greedy import GreedyAgent
    from carioca_experiments.studies.improve.data import label_shard, seat_specs

    config = ImproveConfig(**{**TINY, "opponents": ("greedy", "random")})
    specs = [seat_specs(config, 3, "train", g) for g in range(6)]
    assert [s.index("heuristic") for s in specs] == [0, 1, 2, 0, 1, 2]
    assert all(s.count("heuristic") == 1 for s in specs) and {x for s in specs for x in s} <= {"heuristic", "greedy", "random"}
    assert seat_specs(ImproveConfig(**TINY), 3, "train", 4) == ["heuristic"] * 3
    rows = label_shard(ImproveConfig(**{**TINY, "opponents": ("greedy",)}), "advice_play", 2, "train", 0).arrays()
    for g in (0, 1):
        assert set(rows["seat"][rows["game"] == g].tolist()) == {g % 2}
    assert ((rows["cand"] >= 0).sum(1) > 1).sum() > 10
    # the game is played with greedy in the other seat: replaying game 0 with a greedy
    # opponent reproduces the teacher's observations row by row (up to its opening)
    from carioca_experiments.common.seeds import IMPROVE, derive_seed

    cfg = ImproveConfig(**{**TINY, "opponents": ("greedy",)})
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=derive_seed(IMPROVE, cfg.seed, "train", "game", 0))
    actors = [HeuristicAgent(0), GreedyAgent(0)]
    for s, a in enumerate(actors):
        a.reset(derive_seed(IMPROVE, cfg.seed, "train", "teacher", 0, s))
    obs = rows["obs"][rows["game"] == 0]
    checked = 0
    while checked < len(obs) and not game.game_over:
        legal = game.legal_moves()
        s = game.current
        move = legal[0] if len(legal) == 1 else actors[s].act(game.view(s), legal)
        if s == 0 and len(legal) > 1:
            if move.kind is MoveKind.OPEN:
                break
            assert np.array_equal(obs[checked], encode_observation(game.view(0), [], "advice_play"))
            checked += 1
        game.apply(move)
    assert checked >= 5


def test_the_pairwise_loss_orders_candidates_by_their_mean_advantage_despite_the_noise() -> None:
    # three candidates with true mean advantages 0, +1, -1 and noise ten times larger; free
    # logits fitted to many noisy rows end up ordered by the means (the teacher's first)
    gen = torch.Generator().manual_seed(0)
    n = 1500
    means = torch.tensor([0.0, 1.0, -1.0])
    noise = 10.0 * torch.randn(n, 3, generator=gen)
    adv = means + noise
    adv = adv - adv[:, :1]
    logits = torch.zeros(3, requires_grad=True)
    opt = torch.optim.Adam([logits], lr=0.1)
    cand = torch.tensor([[0, 1, 2]]).expand(n, 3)
    action = torch.zeros(n, dtype=torch.long)
    for _ in range(150):
        logp = torch.log_softmax(logits, 0).expand(n, 3)
        pair, _ = losses(logp, action, cand, adv, 10.0)
        opt.zero_grad()
        pair.backward()
        opt.step()
    order = torch.argsort(logits, descending=True).tolist()
    assert order == [1, 0, 2], logits
    # a single row's noise alone would often put them the other way
    assert (adv[:, 1] < adv[:, 0]).float().mean() > 0.4


def test_the_anchor_keeps_the_teacher_where_nothing_was_valued_and_the_policy_on_candidates() -> None:
    logp = torch.log_softmax(torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]]), 1)
    action = torch.tensor([0, 2])
    cand = torch.tensor([[0, -1, -1], [2, 3, -1]])
    adv = torch.tensor([[0.0, 0.0, 0.0], [0.0, -5.0, 0.0]])
    pair, anchor = losses(logp, action, cand, adv, 10.0)
    # row 0 is unvalued: cross-entropy of the teacher's action; row 1: -log P(candidates)
    ce0 = -logp[0, 0]
    keep1 = -torch.logsumexp(logp[1, [2, 3]], 0)
    assert anchor.item() == pytest.approx(float((ce0 + keep1) / 2))
    # row 1: the teacher's move (2) beats candidate 3 by 5 points: loss 5 * softplus(-(l2 - l3)) / 10
    assert pair.item() == pytest.approx(float(5 * torch.nn.functional.softplus(-(logp[1, 2] - logp[1, 3])) / 10 / 2))


def test_choice_measures_count_what_the_chosen_candidates_were_worth() -> None:
    data = {
        "cand": np.array([[4, 5, -1], [6, 7, 8], [9, -1, -1], [1, 2, -1]]),
        "adv": np.array([[0, 2.0, 0], [0, -1.0, 3.0], [0, 0, 0], [0, -4.0, 0]], dtype=np.float32),
        "action": np.array([4, 6, 9, 1]),
        "game": np.array([0, 0, 1, 1]), "seat": np.array([0, 1, 0, 0]),
    }
    teacher = choice_measures(np.array([4, 6, 9, 1]), data)
    assert teacher["rows"] == 3 and teacher["gain"] == 0 and teacher["deviations"] == 0
    assert teacher["agreement"] == 1.0 and teacher["best"] == pytest.approx((2 + 3 + 0) / 3)
    mixed = choice_measures(np.array([5, 8, 3, 0]), data)  # +2, +3, and a move outside the candidates
    assert mixed["gain"] == pytest.approx(5 / 3) and mixed["deviations"] == 1.0
    assert mixed["outside"] == pytest.approx(1 / 3) and mixed["agreement"] == 0.0
    assert mixed["gain_per_seat_deal"] == pytest.approx(5 / 3)  # three (game, seat) groups


@pytest.fixture(scope="module")
def improved(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("improve") / "run"
    run_improvement(ImproveConfig(**TINY), out, workers=1, progress=False, log=lambda m: None)
    return out


def test_a_tiny_run_writes_a_card_a_curve_and_a_model_that_plays_legal_moves(improved: Path) -> None:
    card = read_card(improved / "model.zip")
    imp = card["improvement"]
    assert card["trained_by"] == "rollout-advantage" and card["features"] == "advice_play"
    assert imp["init"] == "contract1" and imp["chosen_epoch"] in (0, 1, 2)
    curve = (improved / "improve.csv").read_text().splitlines()
    assert len(curve) == 1 + 3 and curve[1].startswith("0,")
    assert str(improved) not in json.dumps(card)
    agent = PPOAgent(improved / "model.zip", seed=1)
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=9)
    other = HeuristicAgent(2)
    while not game.game_over:
        legal = game.legal_moves()
        s = game.current
        move = (agent if s == 0 else other).act(game.view(s), legal)
        assert move in legal
        game.apply(move)


def test_the_advantage_table_averages_each_alternative_of_each_kind(improved: Path) -> None:
    import csv

    from carioca_experiments.studies.improve.report import advantage_table

    folder = AdvantageFolder(improved / "data", {})
    train = folder.load("train")
    rows = advantage_table(train, 2)
    with open(improved / "advantages.csv", newline="") as fh:
        written = list(csv.DictReader(fh))
    assert [(r["kind"], int(r["alternative"]), int(r["n"])) for r in written] == \
        [(r["kind"], r["alternative"], r["n"]) for r in rows]
    table = action_table(2)
    valued = np.flatnonzero((train["cand"] >= 0).sum(1) > 1)
    kinds = {k: [i for i in valued if table.to_move(int(train["cand"][i, 0]), int(train["seat"][i])).kind.name == k]
             for k in {r["kind"] for r in rows}}
    assert {"DISCARD", "DRAW_STOCK"} <= set(kinds)
    for r in rows:
        sel = [i for i in kinds[r["kind"]] if train["cand"][i, r["alternative"]] >= 0]
        assert r["n"] == len(sel)
        assert r["mean"] == pytest.approx(float(np.mean(train["adv"][sel, r["alternative"]])))
        assert r["half"] > 0 or r["n"] < 3


def test_data_is_the_same_byte_for_byte_with_two_workers_and_after_a_lost_shard(improved: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    run_improvement(ImproveConfig(**{**TINY, "epochs": 1}), again, workers=2, progress=False, log=lambda m: None)
    ours = json.loads((improved / "data" / "manifest.json").read_text())["shards"]
    theirs = json.loads((again / "data" / "manifest.json").read_text())["shards"]
    assert [(s["file"], s["sha256"]) for s in ours] == [(s["file"], s["sha256"]) for s in theirs]
    assert [s["file"] for s in ours] == ["heldout-0.npz", "train-0.npz", "train-1.npz"]
    held = {int(x) for x in read_shard(improved / "data" / "heldout-0.npz", columns=COLUMNS)["game_seed"]}
    train = {int(x) for s in ("train-0.npz", "train-1.npz")
             for x in read_shard(improved / "data" / s, columns=COLUMNS)["game_seed"]}
    assert held and train and not held & train
    # a shard lost before it was listed is labelled again, the same
    lost = theirs[-1]
    (again / "data" / lost["file"]).unlink()
    doc = json.loads((again / "data" / "manifest.json").read_text())
    doc["shards"] = doc["shards"][:-1]
    (again / "data" / "manifest.json").write_text(json.dumps(doc))
    folder = AdvantageFolder(again / "data", doc["meta"])
    assert not folder.has(lost["file"])
    run_improvement(ImproveConfig(**{**TINY, "epochs": 1}), again, workers=1, progress=False, log=lambda m: None)
    rebuilt = {s["file"]: s["sha256"] for s in json.loads((again / "data" / "manifest.json").read_text())["shards"]}
    assert rebuilt[lost["file"]] == lost["sha256"]


def test_a_resumed_fit_ends_with_the_same_weights(improved: Path, tmp_path: Path) -> None:
    import shutil

    from carioca_agents.ppo_agent import masked_logits
    from carioca_experiments.studies.improve.pipeline import load_model_file

    again = tmp_path / "resumed"
    shutil.copytree(improved / "data", again / "data")
    run_improvement(ImproveConfig(**{**TINY, "epochs": 1}), again, progress=False, log=lambda m: None)
    (again / "model.zip").unlink()
    (again / "model.json").unlink()
    run_improvement(ImproveConfig(**TINY), again, progress=False, log=lambda m: None)  # epoch 2 from epoch 1's file
    a, b = load_model_file(improved / "learner" / "epoch2.zip"), load_model_file(again / "learner" / "epoch2.zip")
    obs = read_shard(improved / "data" / "heldout-0.npz", columns=COLUMNS)["obs"][:5]
    for o in obs:
        assert np.array_equal(masked_logits(a, o), masked_logits(b, o))


@pytest.mark.parametrize("kw, words", [
    ({"contract": 0}, "--contract"), ({"contract": "full"}, "--contract"), ({"games": 0}, "--games"),
    ({"reshuffles": 0}, "--reshuffles"), ({"top": 1}, "--top"), ({"learning_rate": 0}, "--learning-rate"),
    ({"anchor": -1}, "--anchor"), ({"adv_scale": float("nan")}, "--adv-scale"), ({"init": ""}, "--init"),
])
def test_bad_options_are_refused_with_the_option_named(kw: dict, words: str) -> None:
    with pytest.raises(ImproveError, match=words):
        ImproveConfig(**{**TINY, **kw})


@pytest.mark.parametrize("teacher, words", [("greedy", "does not rank them"), ("bogus", "cannot build agent")])
def test_a_teacher_that_cannot_give_candidates_is_refused_before_anything_is_written(
        tmp_path: Path, teacher: str, words: str) -> None:
    with pytest.raises(ImproveError, match=words):
        run_improvement(ImproveConfig(**{**TINY, "teacher": teacher}), tmp_path / "x", progress=False)
    assert not (tmp_path / "x").exists()


def test_a_data_folder_of_another_run_is_refused(improved: Path, tmp_path: Path) -> None:
    with pytest.raises(ImproveError, match="another run"):
        run_improvement(ImproveConfig(**{**TINY, "reshuffles": 2}), improved, progress=False, log=lambda m: None)
