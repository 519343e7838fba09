"""The version-5 fit (a network of a seat's context and a card's attributes): the recorded
draw events are the tracker's draws, a correction built from them has expectation 0 at
every draw whatever the network, and record + fit run end to end."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.evaluation.luck import LuckTracker
from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.evaluation.luck.value import mlp_forward
from carioca_experiments.studies.luck import fit5
from carioca_experiments.studies.luck.fit import fit_deck
from carioca_experiments.studies.luck.measure import play_deal
from tests.test_luck_v3 import random_draw_value


def _events_of(r: dict, mover_key: int = 4) -> dict[str, np.ndarray]:
    """One played game's events in the recorded layout (one game, index 0)."""
    ctx = np.stack([e[0] for e in r["events"]])
    counts = [e[2] for e in r["events"]]
    start = np.concatenate([[0], np.cumsum([len(c) for c in counts])])
    return {"ctx": ctx, "attrs": np.concatenate([e[1] for e in r["events"]]), "counts": np.concatenate(counts),
            "start": start, "drawn": start[:-1] + np.array([e[3] for e in r["events"]]),
            "mover": np.array([e[mover_key] for e in r["events"]]), "event_game": np.zeros(len(counts), dtype=int)}


def test_recorded_events_give_the_trackers_corrections() -> None:
    """For any version-3 weights, the correction rebuilt from the recorded events (values of
    every card in the centring set, weighted by the coefficients) is what a tracker with those
    weights adds up in the same game, and what the recorded basis sums give; the recorded
    version-3 corrections are a version-3 tracker's."""
    value = random_draw_value(3)
    for d, contract in ((0, 1), (1, 6)):
        deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, 99, "test5", d)), 2)
        specs, seeds = ("heuristic", "greedy"), [21 + d, 22 + d]
        r = fit5.play_game(deck, dealer, contract, specs, seeds, 5, 600, value)
        game = Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(contract,)), 5)
        agents = [make_agent(sp, sd) for sp, sd in zip(specs, seeds)]
        for a, sd in zip(agents, seeds):
            a.reset(sd)
        tracker = LuckTracker(value, 2)
        assert play_deal(game, agents, 600, [tracker]) == r["penalty"].tolist()
        assert tracker.draws == len(r["events"]) > 0
        np.testing.assert_allclose(r["v3"], tracker.corrections, atol=1e-9)
        w = value.model(2, contract)
        ev = _events_of(r)
        _, _, row_event = fit5.inputs(ev)
        coef = fit5.coefficients(ev, row_event)
        vals = np.concatenate([features3.values(w, int(ev["mover"][e]), ev["ctx"][e],
                                                ev["attrs"][ev["start"][e]:ev["start"][e + 1]])
                               for e in range(len(ev["mover"]))])
        np.testing.assert_allclose(coef @ vals, tracker.corrections, atol=1e-6)
        np.testing.assert_allclose(r["sums"] @ w.ravel(), tracker.corrections, atol=1e-6)


def test_a_network_correction_has_expectation_zero_at_every_draw() -> None:
    """At every recorded draw, each seat's correction by a random network, ``g(card) -
    sum_k p_k g(k)``, averaged over the card that could have come (weighted by its copies),
    is exactly 0."""
    rng = np.random.default_rng(4)
    deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, 99, "test5", 7)), 2)
    r = fit5.play_game(deck, dealer, 2, ("greedy", "heuristic"), [3, 4], 5, 600, random_draw_value(1))
    ev = _events_of(r)
    per_event, per_row, row_event = fit5.inputs(ev)
    x = np.concatenate([per_event[row_event], per_row], axis=-1)
    d, h = x.shape[-1], 8
    params = {"mu": rng.normal(size=d), "sd": rng.uniform(0.5, 2, size=d), "w1": rng.normal(size=(d, h)),
              "b1": rng.normal(size=h), "w2": rng.normal(size=(h, h)), "b2": rng.normal(size=h),
              "w3": rng.normal(size=h), "b3": np.array(0.3), "y_scale": np.array(20.0), "y_shift": np.array(1.0)}
    g = mlp_forward(params, x)  # [rows, seats]
    assert np.ptp(g) > 1.0
    for e in range(len(ev["mover"])):
        rows = slice(ev["start"][e], ev["start"][e + 1])
        p = ev["counts"][rows] / ev["counts"][rows].sum()
        corrections = g[rows] - p @ g[rows]  # the correction if card k came, per seat
        np.testing.assert_allclose(p @ corrections, 0.0, atol=1e-9)


def test_fit5_records_and_fits(tmp_path: Path) -> None:
    """record + fit on a few decks: the events are consistent with the games and every
    candidate gets held-out and validation ratios; the saved networks reproduce the fit's
    corrections with the numpy forward pass."""
    cfg = fit5.Fit5Config("record", (2,), (1,), 15, 5, 600, str(tmp_path))
    fit5.record(cfg, log=lambda m: None)
    data = fit5.load(fit5.events_path(tmp_path, 2, 1))
    assert len(data["deck"]) == 15 * 4 and data["start"][-1] == len(data["counts"]) == len(data["attrs"])
    assert np.all(data["event_game"][1:] >= data["event_game"][:-1])
    reports = fit5.fit(cfg, log=lambda m: None)
    rep = reports["p2-c1"]
    for k in ("v3", "v3-refit", *fit5.CANDIDATES):
        assert rep[f"ratio_heldout_{k}"] > 0 and rep[f"ratio_validation_{k}"] > 0
    assert rep["kind"] in ("v3", "v3-refit", *fit5.CANDIDATES)
    nets = np.load(tmp_path / "nets-p2-c1.npz")
    params = {p: nets[f"mlp-seat.{p}"] for p in ("mu", "sd", "w1", "b1", "w2", "b2", "w3", "b3", "y_scale", "y_shift")}
    corr = fit5.network_corrections(params, data)
    ratio = fit5._ratio(data, fit5.split(np.unique(data["deck"]))["heldout"], corr)
    assert ratio == rep["ratio_heldout_mlp-seat"]


def test_fit5_command_line_passes_the_first_deck_and_refuses_a_negative_one(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from carioca_experiments.studies.luck import fit3

    seen: list[fit5.Fit5Config] = []
    monkeypatch.setattr(fit5, "record", seen.append)
    monkeypatch.setattr(fit3, "run_script", lambda fn: fn() or 0)
    assert fit5.main(["record", "--contracts", "1", "6", "--decks", "20", "--first-deck", "600"]) == 0
    assert seen == [fit5.Fit5Config("record", (2,), (1, 6), 20, 5, 600, "runs/luck-v5", first_deck=600)]
    with pytest.raises(SystemExit) as exc:
        fit5.main(["record", "--first-deck", "-1"])
    assert exc.value.code == 2 and "--first-deck" in capsys.readouterr().err
    assert len(seen) == 1
