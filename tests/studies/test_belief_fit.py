"""Fitting and measuring the learned belief (carioca_experiments.studies.belief): its decks are never an
evaluation's, held-out deals are never recorded, the fit is a correct convex fit, and
the commands refuse bad input with exit 2."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from carioca_experiments.common.seeds import BELIEF, TOURNAMENT, derive_seed
from carioca_experiments.evaluation.tournament import TournamentConfig, deal_deck
from carioca_experiments.studies.belief import fit as fit_mod
from carioca_experiments.studies.belief.fit import FitConfig, newton, softmax_loss
from carioca_experiments.studies.belief.records import HELDOUT_EVERY, deal_indices, is_heldout, play_positions

ROOT = Path(__file__).resolve().parents[2]


def test_belief_decks_are_never_a_tournaments() -> None:
    """The belief's deal seeds and decks against a tournament's, over seeds, contracts,
    player counts and deck numbers: no seed and no dealt deck in common."""
    ours, theirs = set(), set()
    our_decks, their_decks = set(), set()
    for seed in range(3):
        for contract in range(1, 8):
            for d in range(40):
                theirs.add(derive_seed(TOURNAMENT, seed, "deck", contract, d))
                cards, _dealer, _g = deal_deck(TournamentConfig(agents=("heuristic", "greedy"), seed=seed), contract, d)
                their_decks.add(tuple(cards))
                for players in (2, 3, 4):
                    s = derive_seed(BELIEF, seed, "deal", players, contract, d)
                    ours.add(s)
                    if players == 2:
                        rng = random.Random(s)
                        from carioca_env.cards import full_deck

                        deck = full_deck()
                        rng.shuffle(deck)
                        our_decks.add(tuple(deck))
    assert len(ours) == 3 * 7 * 40 * 3 and not ours & theirs
    assert len(our_decks) == 3 * 7 * 40 and not our_decks & their_decks


def test_heldout_deals_are_disjoint_and_never_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    train, held = deal_indices(20, heldout=False), deal_indices(20, heldout=True)
    assert set(train).isdisjoint(held) and sorted(train + held) == list(range(20))
    assert held == [d for d in range(20) if d % HELDOUT_EVERY == HELDOUT_EVERY - 1] and all(map(is_heldout, held))
    seen: list[int] = []
    real = fit_mod.collect

    def spy(players, contract, deals, visit, **kw):
        seen.extend(deals)
        return real(players, contract, deals, visit, **kw)

    monkeypatch.setattr(fit_mod, "collect", spy)
    cfg = FitConfig(players=(2,), contracts=(1, 4), deals=10, agents=("heuristic", "greedy"), out=str(tmp_path))
    model = fit_mod.run(cfg)
    assert seen and not any(is_heldout(d) for d in seen)
    with np.load(tmp_path / "examples-p2-c1.npz") as data:
        assert not any(is_heldout(int(d)) for d in data["deal"])
        assert data["x"].shape[1:] == (53, len(model.weights[1]))
        assert np.all(data["hidden"] <= data["pool"])  # a hidden card is always an unseen one
    from carioca_agents.belief.model import load_belief_model

    back = load_belief_model(tmp_path / f"{cfg.name}.json")
    assert back.fingerprint == model.fingerprint and set(back.weights) == {1, 4}
    assert back.meta["seed_namespace"] == "carioca-belief" and "held out" in back.meta["heldout_rule"]


def test_positions_are_seeded_and_their_truth_is_the_hidden_part() -> None:
    a = list(play_positions(2, 3, 7, agents=("heuristic", "greedy")))
    b = list(play_positions(2, 3, 7, agents=("heuristic", "greedy")))
    assert len(a) > 3 and [p.view for p in a] == [p.view for p in b]
    for pos in a:
        from carioca_env.determinize import hidden_slots

        assert list(pos.hidden.sum(axis=1).astype(int)) == hidden_slots(pos.view)
        assert np.all(pos.hidden >= 0)


def test_the_loss_gradient_and_hessian_are_right() -> None:
    rng = np.random.default_rng(0)
    n, c, f = 30, 53, 6
    x = rng.normal(size=(n, c, f))
    pool = rng.integers(0, 3, size=(n, c)).astype(float)
    pool[:, 0] = 2
    logpool = np.where(pool > 0, np.log(np.maximum(pool, 1)), -np.inf)
    hidden = np.zeros((n, c))
    for i in range(n):
        hidden[i, rng.choice(np.flatnonzero(pool[i]), size=4)] += 1
    target = hidden / hidden.sum(axis=1, keepdims=True)
    theta = rng.normal(size=f)
    loss, grad, hess = softmax_loss(theta, x, logpool, target, 0.1)
    eps = 1e-6
    for j in range(f):
        d = np.zeros(f)
        d[j] = eps
        lp, gp, _ = softmax_loss(theta + d, x, logpool, target, 0.1)
        lm, gm, _ = softmax_loss(theta - d, x, logpool, target, 0.1)
        assert abs((lp - lm) / (2 * eps) - grad[j]) < 1e-5
        assert np.allclose((gp - gm) / (2 * eps), hess[:, j], atol=1e-5)


def test_newton_recovers_the_weights_that_made_the_data() -> None:
    rng = np.random.default_rng(1)
    n, c, f = 3000, 53, 4
    x = rng.normal(size=(n, c, f))
    pool = np.full((n, c), 2.0)
    true = np.array([1.0, -0.5, 0.3, 0.0])
    z = x @ true
    q = np.exp(z - z.max(axis=1, keepdims=True))
    q /= q.sum(axis=1, keepdims=True)
    hidden = np.array([rng.multinomial(3, qi) for qi in q], dtype=float)
    theta, loss = newton(x, pool, hidden, l2=0.0)
    assert np.allclose(theta, true, atol=0.08), theta
    assert loss < softmax_loss(np.zeros(f), x, np.log(pool), hidden / 3, 0.0)[0]


@pytest.mark.parametrize("module,args,words", [
    ("fit", ["--deals", "2"], "--deals"),
    ("fit", ["--name", "mine"], "belief-vN"),
    ("fit", ["--record-prob", "2"], "--record-prob"),
    ("fit", ["--agents", "nosuch"], "unknown agent"),
    ("fit", ["--fit-only", "--contracts", "3"], "no records of contracts [3]"),
    ("measure", ["--model", "/nonexistent/m.json"], "--model"),
    ("measure", ["--record-prob", "0"], "--record-prob"),
    ("measure", ["--merge", "/nonexistent/part.json"], "--merge"),
    ("measure", ["--baseline", "belief-v99"], "--baseline"),
    ("calibrate", ["--seeds", "0"], "fitted on seed 0"),
    ("calibrate", ["--model", "/nonexistent/m.json"], "--model"),
    ("calibrate", ["--name", "mine"], "belief-vN"),
    ("calibrate", ["--record-prob", "1.5"], "--record-prob"),
    ("calibrate", ["--seeds", "1", "--agents", "nosuch"], "unknown agent"),
])
def test_commands_refuse_bad_input_with_exit_2(module: str, args: list[str], words: str, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", f"carioca_experiments.studies.belief.{module}", *args, "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_measure_scores_every_belief(tmp_path: Path) -> None:
    from carioca_agents.belief.features import NUM_FEATURES
    from carioca_agents.belief.model import BeliefModel
    from carioca_experiments.studies.belief.measure import MeasureConfig, run

    model = BeliefModel("belief-v0", {4: np.zeros(NUM_FEATURES)})
    path = model.save(tmp_path / "zero.json")
    cfg = MeasureConfig(contracts=(4,), deals=10, agents=("heuristic",), model=str(path), rule_samples=4,
                        out=str(tmp_path / "m"), plot=str(tmp_path / "m" / "cal.png"))
    result = run(cfg, log=lambda m: None)
    b = result["beliefs"]
    # zero weights are the uniform belief: the same log-loss, a zero paired difference
    assert b["learned"]["log_loss"] == pytest.approx(b["uniform"]["log_loss"], abs=1e-9)
    assert result["differences"]["learned - uniform"]["mean"] == pytest.approx(0.0, abs=1e-9)
    assert b["uniform"]["pairs"] > 0 and (tmp_path / "m" / "cal.png").stat().st_size > 1000
    assert json.loads((tmp_path / "m" / "belief-measure.json").read_text())["beliefs"].keys() == b.keys()
    table = (tmp_path / "m" / "belief-measure.md").read_text()
    assert "| learned - uniform | +0.000 [" in table and "| JK |" in table


def test_measure_scores_the_inferred_belief_beside_the_others_without_changing_them(tmp_path: Path) -> None:
    from carioca_agents.belief.features import NUM_FEATURES
    from carioca_agents.belief.model import BeliefModel
    from carioca_experiments.studies.belief.measure import MeasureConfig, run

    rng = np.random.default_rng(2)
    path = str(BeliefModel("belief-v0", {4: rng.normal(0, 0.3, NUM_FEATURES)}).save(tmp_path / "m.json"))
    base = dict(contracts=(4,), deals=10, agents=("heuristic", "greedy"), model=path, rule_samples=2)
    log = lambda m: None  # noqa: E731
    without = run(MeasureConfig(out=str(tmp_path / "a"), **base), log=log)
    with_inferred = run(MeasureConfig(out=str(tmp_path / "b"), inferred_pool=4, **base), log=log)
    b = with_inferred["beliefs"]
    for name, summary in without["beliefs"].items():
        assert b[name] == summary  # the other beliefs' rows do not move
    assert {"inferred shift", "inferred", "pool", "learned [heuristic]", "inferred shift [other]"} <= set(b)
    d = with_inferred["differences"]
    assert {"inferred shift - learned", "inferred - pool", "inferred shift [heuristic] - learned [heuristic]"} <= set(d)
    # each opponent is scored once overall and once in its group
    assert b["learned [heuristic]"]["pairs"] + b["learned [other]"]["pairs"] == b["learned"]["pairs"]
    assert "inferred posterior" in with_inferred["ms_per_call"]
    only_heuristic = run(MeasureConfig(out=str(tmp_path / "c"), inferred_pool=2, **dict(base, agents=("heuristic",))),
                         log=log)
    assert "learned [heuristic]" in only_heuristic["beliefs"] and "learned [other]" not in only_heuristic["beliefs"]


def test_measure_scores_the_noisy_oracle_from_the_true_hands_to_uniform(tmp_path: Path) -> None:
    from carioca_agents.belief.features import NUM_FEATURES
    from carioca_agents.belief.model import BeliefModel
    from carioca_experiments.studies.belief.measure import MeasureConfig, run

    path = str(BeliefModel("belief-v0", {4: np.zeros(NUM_FEATURES)}).save(tmp_path / "m.json"))
    cfg = MeasureConfig(contracts=(4,), deals=10, agents=("heuristic",), model=path, rule_samples=2,
                        out=str(tmp_path / "o"), oracle_noise=(0.0, 0.5, 1.0))
    result = run(cfg, log=lambda m: None)
    b = result["beliefs"]
    loss = [b[f"oracle noise={q:g}"]["log_loss"] for q in (0.0, 0.5, 1.0)]
    # noise 1 deals every hidden card again: the uniform belief exactly; less noise knows more
    assert loss[2] == pytest.approx(b["uniform"]["log_loss"], abs=1e-9)
    assert loss[0] < loss[1] < loss[2]
    assert {"learned - oracle noise=0", "learned - oracle noise=0.5"} <= set(result["differences"])


def test_measurements_in_parts_merge_into_the_whole(tmp_path: Path) -> None:
    from carioca_agents.belief.features import NUM_FEATURES
    from carioca_agents.belief.model import BeliefModel
    from carioca_experiments.studies.belief.measure import MeasureConfig, merge, run

    rng = np.random.default_rng(5)
    model = BeliefModel("belief-v0", {c: rng.normal(0, 0.3, NUM_FEATURES) for c in (1, 2)})
    path = str(model.save(tmp_path / "m.json"))
    base = dict(deals=10, agents=("heuristic", "greedy"), model=path, rule_samples=2)
    log = lambda m: None  # noqa: E731
    whole = run(MeasureConfig(contracts=(1, 2), out=str(tmp_path / "w"), **base), log=log)
    a = run(MeasureConfig(contracts=(1,), out=str(tmp_path / "a"), **base), log=log)
    b = run(MeasureConfig(contracts=(2,), out=str(tmp_path / "b"), **base), log=log)
    merged = merge([a, b], tmp_path / "m", log=log)
    assert merged["beliefs"] == whole["beliefs"] and merged["differences"] == whole["differences"]
    assert merged["per_contract"] == whole["per_contract"]
    assert merged["contract_weights"] == whole["contract_weights"]
    other = dict(a, contract_weights={"1": "something else"})
    with pytest.raises(ValueError, match="contract 1 with different learned weights"):
        merge([other, a], tmp_path / "x", log=log)


def test_calibration_recovers_the_temperature_that_made_the_data() -> None:
    """Hidden hands drawn with the logits times 0.5 (and no uniform part): the grid search
    finds a temperature near 0.5 and a small uniform weight, and beats the identity."""
    from carioca_agents.belief.sampling import inclusion, systematic_sample
    from carioca_experiments.studies.belief.calibrate import card_losses, deal_weights, fit_calibration, water_filled

    rng = np.random.default_rng(3)
    n, k = 400, 8
    logits = rng.normal(0, 2.0, (n, 53))
    pool = rng.integers(0, 3, (n, 53)).astype(float)
    pool[:, 0] = 2  # at least some cards everywhere
    hidden = np.zeros((n, 53))
    r = random.Random(4)
    for i in range(n):
        w = np.exp(0.5 * logits[i])
        probs = inclusion(w.tolist(), pool[i].astype(int).tolist(), k)
        units = [c for c in range(53) for _ in range(int(pool[i, c]))]
        chosen, _left = systematic_sample(units, probs, k, r)
        for c in chosen:
            hidden[i, c] += 1
    t, u, loss = fit_calibration(logits, pool, hidden)
    assert 0.35 <= t <= 0.65 and u <= 0.1, (t, u)
    identity = float(card_losses(water_filled(logits, pool, hidden, 1.0), pool, hidden).mean())
    assert loss < identity - 0.05
    # per-deal weights: each deal counts once, however many examples it has
    wts = deal_weights([(1, 0), (1, 0), (1, 0), (2, 5)])
    assert np.allclose(wts, [1 / 6, 1 / 6, 1 / 6, 1 / 2]) and wts.sum() == pytest.approx(1.0)


def test_calibrate_writes_a_model_with_the_base_weights(tmp_path: Path) -> None:
    """A calibration run on a few validation deals of another seed: the written model keeps
    the base weights, records the base fingerprint and the validation seed, and loads."""
    from carioca_agents.belief.features import NUM_FEATURES
    from carioca_agents.belief.model import BeliefModel, load_belief_model
    from carioca_experiments.studies.belief.calibrate import CalibrateConfig, run

    rng = np.random.default_rng(6)
    base = BeliefModel("belief-v0", {4: rng.normal(0, 0.5, NUM_FEATURES)}, {"fit": {"seed": 0}})
    path = base.save(tmp_path / "base.json")
    cfg = CalibrateConfig(model=str(path), seeds=(7,), contracts=(4,), deals=5, agents=("heuristic", "greedy"),
                          out=str(tmp_path / "cal"), name="belief-v8")
    model = run(cfg, log=lambda m: None)
    back = load_belief_model(tmp_path / "cal" / "belief-v8.json")
    assert back.fingerprint == model.fingerprint and np.allclose(back.weights[4], base.weights[4], atol=1e-11)
    assert back.calibration == model.calibration and set(back.calibration) == {4}
    cal = back.meta["calibration"]
    assert cal["base_fingerprint"] == base.fingerprint and cal["validation_seeds"] == [7]
    assert (tmp_path / "cal" / "seed-7" / "examples-p2-c4.npz").exists()
    assert cal["contracts"]["4"]["log_loss_calibrated"] <= cal["contracts"]["4"]["log_loss_uncalibrated"]
