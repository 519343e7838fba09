"""The version-2 luck value function (carioca_experiments.evaluation.luck.race_features, MlpValue): its values
of every possible draw are the values of the states they stand for, its corrections have
expectation 0, the file is frozen and checked, version 1 stays usable, and the fitting
decks are never a tournament's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_env.moves import MoveKind
from carioca_experiments.evaluation.luck import (
    SHIPPED_BY_VERSION,
    MlpValue,
    ValueFileError,
    load_value,
    shipped_value,
)
from carioca_experiments.evaluation.luck import race_features as features2
from carioca_experiments.evaluation.luck.value import mlp_forward
from carioca_experiments.evaluation.tournament import RESULTS_FILE, TournamentConfig, run_tournament
from tests.test_luck import check_exact, outcomes, small_position


def random_mlp(seed: int, hidden: int = 12) -> MlpValue:
    """A network with random parameters for every model (a poor but non-trivial value
    function; positive biases keep its units alive)."""
    rng = np.random.default_rng(seed)
    models = {}
    for n in (2, 3, 4):
        f = features2.num_inputs(n)
        for k in range(1, 8):
            models[f"p{n}-c{k}"] = {
                "mu": np.zeros(f), "sd": rng.uniform(0.5, 2.0, size=f), "w1": rng.normal(size=(f, hidden)),
                "b1": rng.uniform(1.0, 3.0, size=hidden), "w2": rng.normal(size=(hidden, hidden)) / 3,
                "b2": rng.uniform(1.0, 3.0, size=hidden),
                "w3": rng.normal(size=hidden), "b3": np.asarray(rng.normal()), "y_scale": np.asarray(10.0),
                "y_shift": np.asarray(30.0),
            }
    return MlpValue(models)


def test_the_drawer_is_read_from_its_hand_before_the_draw() -> None:
    """Right after a stock draw the drawer's deficiency is its hand's (drawing an out
    lowers it by exactly one), and every seat's live cards are counted in the stock left."""
    from carioca_env.analysis import analyze

    game = small_position(False)
    for card, _, after in outcomes(game):
        assert features2.just_drew(after) and not features2.just_drew(game)
        stats = features2.state_stats(after)
        seat = game.current
        assert stats[seat, features2.DEF] == analyze(after.hands[seat], after.contract, want_outs=False).deficiency
        stock = np.bincount(after.stock, minlength=len(after.hands[seat]))
        for s in range(2):
            hand = list(game.hands[s])  # before the draw: the good types are those of this hand
            good = np.zeros(len(hand))
            good[list(analyze(hand, game.contract).outs)] = 1.0
            assert stats[s, features2.LIVE] == stock @ good, (card, s)


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize("which", ["shipped", "random"])
def test_each_v2_correction_has_exact_expectation_zero(opened: bool, which: str) -> None:
    value = load_value(SHIPPED_BY_VERSION[2]) if which == "shipped" else random_mlp(1)
    assert isinstance(value, MlpValue)
    game = small_position(opened)
    check_exact(value, game)


def test_v2_vectorised_draw_values_are_the_values_of_the_states() -> None:
    """Over real deals at 2, 3 and 4 players, with seats opened and not: the value of each
    possible draw from one analysis equals the value of the state after that draw."""
    value = random_mlp(3)
    seen_opened = False
    for seed, (n, k) in enumerate([(2, 1), (3, 5), (4, 2), (2, 3), (4, 1)]):
        game = Game(GameConfig(num_players=n, deals=(k,)), seed=seed)
        agents = [make_agent("heuristic", seed * 10 + s) for s in range(n)]
        draws = moves = 0
        while not game.deal_results and draws < 40 and moves < 600:
            moves += 1
            seat = game.current
            move = agents[seat].act(game.view(seat), game.legal_moves())
            if move.kind is MoveKind.DRAW_STOCK and draws % 3 == 0:
                cards, counts, values = value.draw_values(game)
                outs = outcomes(game)
                assert [c for c, _, _ in outs] == list(cards)
                for (_, _, after), v in zip(outs, values):
                    np.testing.assert_allclose(v, value.evaluate(after), rtol=1e-9, atol=1e-9)
                seen_opened |= any(game.opened)
            draws += move.kind is MoveKind.DRAW_STOCK
            game.apply(move)
    assert seen_opened  # the opened branch was exercised too


def test_v2_stats_read_the_stock_contents_not_its_order() -> None:
    game = small_position(False)
    _, _, after = outcomes(game)[0]
    before = features2.state_stats(after)
    after.stock.reverse()
    np.testing.assert_array_equal(features2.state_stats(after), before)


def test_v2_file_round_trip_and_refusals(tmp_path: Path) -> None:
    value = random_mlp(4)
    path = tmp_path / "v.json"
    value.save(path)
    back = load_value(path)
    assert isinstance(back, MlpValue) and back.fingerprint == value.fingerprint
    assert back.fingerprint.startswith("v2-") and back.fingerprint != random_mlp(5).fingerprint
    game = small_position(False)
    np.testing.assert_array_equal(back.draw_values(game)[2], value.draw_values(game)[2])
    d = json.loads(path.read_text())
    d["models"]["p2-c1"]["b3"] += 1.0
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="fingerprint"):
        load_value(path)
    d["models"]["p2-c1"]["w1"] = d["models"]["p2-c1"]["w1"][:-1]
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="w1 of shape"):
        load_value(path)
    d["models"]["p2-c1"] = {"mu": [0.0]}
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="with a network"):
        load_value(path)
    d["features"] = "seat-stats-1"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="fitted on features"):
        load_value(path)
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueFileError, match="not a carioca-luck-value file"):
        load_value(path)




def test_a_tournament_corrected_by_version_1_still_runs_and_resumes(tmp_path: Path) -> None:
    """Results corrected by the first value function stay readable and resumable: its
    fingerprint selects it, and the corrections are its own."""
    v1 = load_value(SHIPPED_BY_VERSION[1])
    cfg = TournamentConfig(agents=("heuristic", "greedy"), players=2, contracts=(1,), decks=2, seed=4,
                           max_turns=300, luck=v1.fingerprint)
    s1 = run_tournament(cfg, tmp_path / "v1", workers=1, progress=False, log=lambda m: None)
    v2 = TournamentConfig(agents=cfg.agents, players=2, contracts=(1,), decks=2, seed=4, max_turns=300,
                          luck=shipped_value().fingerprint)
    s2 = run_tournament(v2, tmp_path / "v2", workers=1, progress=False, log=lambda m: None)
    p1, p2 = s1.pairs[0], s2.pairs[0]
    assert p1.mean_diff == p2.mean_diff and p1.corrected_diff != p2.corrected_diff
    # a run killed after its first deal resumes with version 1 and ends as the whole run did
    results = tmp_path / "v1" / RESULTS_FILE
    whole = results.read_text(encoding="utf-8").splitlines(keepends=True)
    results.write_text("".join(whole[:2]), encoding="utf-8")
    again = run_tournament(cfg, tmp_path / "v1", workers=1, progress=False, log=lambda m: None)
    assert again.to_dict() == s1.to_dict()
    assert sorted(results.read_text(encoding="utf-8").splitlines()) == sorted(x.rstrip("\n") for x in whole)






def test_mlp_forward_matches_a_row_at_a_time() -> None:
    params = random_mlp(6).models["p4-c3"]
    x = np.random.default_rng(0).normal(size=(50, features2.num_inputs(4)))
    whole = mlp_forward(params, x)
    np.testing.assert_allclose(whole, [mlp_forward(params, row) for row in x], rtol=1e-12, atol=1e-12)




def test_imitation_strength_reports_the_luck_corrected_difference(tmp_path: Path) -> None:
    """The imitation and improvement stages' strength tournament with ``--luck-correction``:
    the raw fields are those of the uncorrected tournament on the same deals, and the
    corrected difference and interval come with the value function's fingerprint."""
    from carioca_experiments.training.imitate.pipeline import strength_against, strength_line

    model = Path(__file__).resolve().parents[1] / "agents" / "models" / "contract1" / "model.zip"
    args = (model, "heuristic", 2, (1,), 200, 2, 3)
    raw = strength_against(*args, tmp_path / "raw")
    cor = strength_against(*args, tmp_path / "cor", luck=True)
    assert {k: v for k, v in cor.items() if k in raw} == raw
    assert cor["luck"] == shipped_value().fingerprint and "corrected_diff_mean" not in raw
    assert cor["corrected_ci_low"] <= cor["corrected_diff_mean"] <= cor["corrected_ci_high"]
    assert "luck-corrected" in strength_line(cor) and "luck-corrected" not in strength_line(raw)


def _default_without_3_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the default value function one without 3-player models (version 2)."""
    from carioca_experiments.evaluation.luck import value as value_module

    v2 = load_value(SHIPPED_BY_VERSION[2])
    monkeypatch.setattr(value_module, "_LOADED", {value_module.SHIPPED_FILE: v2})


def test_a_luck_corrected_strength_without_a_model_is_refused_before_anything_runs(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    from carioca_experiments.training.imitate.config import ImitateConfig, ImitateError
    from carioca_experiments.training.imitate.pipeline import luck_problem, run_imitation

    _default_without_3_players(monkeypatch)

    assert luck_problem(2, (1, 7)) is None and luck_problem(4, (3,)) is None
    assert "no model for 3 players" in (luck_problem(3, (1,)) or "")
    out = tmp_path / "run"
    with pytest.raises(ImitateError, match="--luck-correction: .*no model for 3 players"):
        run_imitation(ImitateConfig(contract=1, players=3), out, progress=False, strength_decks=1, strength_luck=True)
    assert not out.exists()


def test_train_all_tournaments_report_the_luck_corrected_difference(tmp_path: Path, monkeypatch) -> None:
    """``carioca train-all --luck-correction``: each contract's tournament records the value
    function's fingerprint and its pairs the corrected difference beside the raw one,
    which is that of the same tournament uncorrected.  Training is replaced by copying
    the shipped contract-1 model (the tournament, not PPO, is under test)."""
    import argparse
    import shutil

    from carioca_experiments.training import train_all

    shipped = Path(__file__).resolve().parents[1] / "agents" / "models" / "contract1"

    def copy_model(cfg, out, **kwargs) -> None:
        shutil.copytree(shipped, out, dirs_exist_ok=True)

    monkeypatch.setattr(train_all, "train", copy_model)
    parser = argparse.ArgumentParser()
    train_all.add_arguments(parser)
    summaries = {}
    for name, extra in (("raw", []), ("cor", ["--luck-correction"])):
        out = tmp_path / name
        args = parser.parse_args(["--quick", "--contracts", "1", "--no-full", "--decks", "2", "--baselines", "random",
                                  "--workers", "1", "--no-progress", "--no-tensorboard", "--max-turns", "80",
                                  "--out", str(out), *extra])
        assert train_all.TrainAllConfig.from_args(args).luck_correction is bool(extra)
        assert train_all.run(args) == 0
        summaries[name] = json.loads((out / "tournaments" / "contract1" / "summary.json").read_text())
    raw, cor = summaries["raw"], summaries["cor"]
    assert cor["config"]["luck"] == shipped_value().fingerprint and "luck" not in raw["config"]
    (rp,), (cp,) = raw["pairs"], cor["pairs"]
    assert {k: v for k, v in cp.items() if not k.startswith("corrected_")} == \
           {k: v for k, v in rp.items() if not k.startswith("corrected_")}
    assert rp["corrected_diff"] is None and isinstance(cp["corrected_diff"], float)
    assert cp["corrected_low"] <= cp["corrected_diff"] <= cp["corrected_high"]


@pytest.mark.parametrize("argv", [
    ["--players", "3"],
    ["--pipeline", "imitate", "--final-tournament", "--players", "2", "3"],
])
def test_train_all_luck_correction_without_a_model_is_refused_before_anything_runs(tmp_path: Path, argv,
                                                                                   monkeypatch) -> None:
    import argparse
    import dataclasses

    from carioca_experiments.training import train_all
    from carioca_experiments.training.train import TrainError

    _default_without_3_players(monkeypatch)

    parser = argparse.ArgumentParser()
    train_all.add_arguments(parser)
    out = tmp_path / "run"
    config = train_all.TrainAllConfig.from_args(
        parser.parse_args(["--quick", "--contracts", "1", "--out", str(out), "--luck-correction", *argv]))
    with pytest.raises(TrainError, match="--luck-correction: .*no model for 3 players"):
        config.check()
    assert not out.exists()
    dataclasses.replace(config, luck_correction=False).check()  # the same options uncorrected pass


def test_the_learned_set_final_tournament_is_luck_corrected_on_request(tmp_path: Path) -> None:
    """``train-all --pipeline ... --final-tournament --luck-correction``: the final
    tournament of the finished models records the luck and reports corrected pairs."""
    import shutil

    from carioca_experiments.training import learned_set
    from carioca_experiments.training.train_all import TrainAllConfig

    out = tmp_path / "set"
    shipped = Path(__file__).resolve().parents[1] / "agents" / "models" / "contract1"
    shutil.copytree(shipped, out / "p2" / "contract1" / "imitate")  # a finished imitation model
    config = TrainAllConfig(out=out, players=(2,), contracts=(1,), decks=1, pipeline="imitate", final_tournament=True,
                            luck_correction=True, workers=1, progress=False, max_turns=80)
    (folder,) = learned_set.final_tournament(config, log=lambda m: None)
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["config"]["luck"] == shipped_value().fingerprint
    assert summary["config"]["agents"][0] == f"im_c1=ppo:{out / 'p2' / 'contract1' / 'imitate' / 'model.zip'}"
    assert len(summary["pairs"]) == 6 and all(isinstance(p["corrected_diff"], float) for p in summary["pairs"])
