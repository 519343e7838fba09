"""The studies' part of ``tests/test_luck_v3.py``: tests of modules in ``experiments/studies/``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_luck_v3 import random_draw_value

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_experiments.evaluation.luck import (
    DrawValue,
    load_value,
)
from carioca_experiments.evaluation.luck import draw_features as features3


def test_recorded_sums_are_the_corrections_of_any_weights(tmp_path: Path) -> None:
    """The fit regresses on the recorded sums of centred basis rows: for any weights, ``w @
    sums`` is the correction a tracker with those weights adds up over the same game."""
    from carioca_experiments.evaluation.luck import LuckTracker
    from carioca_experiments.studies.luck.fit import fit_deal_rng, fit_deck
    from carioca_experiments.studies.luck.fit3 import play_game
    from carioca_experiments.studies.luck.measure import play_deal

    value = random_draw_value(8)
    for n, k in ((2, 2), (3, 1), (4, 3)):
        deck, dealer = fit_deck(fit_deal_rng(99, n, k, 0), n)
        specs = ["heuristic", "greedy"] * 2
        rec = play_game(deck, dealer, k, specs[:n], list(range(n)), 5, 200, None)
        game = Game.from_deck(deck, dealer, GameConfig(num_players=n, deals=(k,)), 5)
        agents = [make_agent(sp, sd) for sp, sd in zip(specs[:n], range(n))]
        for a, sd in zip(agents, range(n)):
            a.reset(sd)
        tracker = LuckTracker(value, n)
        penalty = play_deal(game, agents, 200, [tracker])
        assert rec["draws"] == tracker.draws > 0
        np.testing.assert_allclose(rec["penalty"], penalty)
        np.testing.assert_allclose(rec["sums"] @ value.model(n, k).ravel(), tracker.corrections, atol=1e-6)


def test_fit3_records_and_fits_a_value_file(tmp_path: Path) -> None:
    from carioca_experiments.studies.luck.fit3 import Fit3Config, fit, load, record, states_path

    cfg = Fit3Config("record", players=(2,), contracts=(1,), decks=10, seed=7, max_turns=200, out=str(tmp_path))
    record(cfg, log=lambda m: None)
    data = load(states_path(tmp_path, 2, 1))
    assert len(data["deck"]) == 10 * 4 and data["sums"].shape[1:] == (2, 2 * len(features3.CONTEXT) * len(features3.ATTRS))
    assert np.any(data["v2"] != 0)
    value = fit(cfg, log=lambda m: None)
    back = load_value(tmp_path / "value.json")
    assert isinstance(back, DrawValue) and back.fingerprint == value.fingerprint
    report = back.meta["fit_report"]["p2-c1"]
    assert report["objective"] in ("seat", "pair") and report["ratio_validation"] > 0


def test_widths_correct_the_tournaments_deals_as_the_tournament_does(tmp_path: Path) -> None:
    """measure widths plays each deal once and corrects it with several value functions; each
    corrected difference is the one a --luck-correction tournament reports."""
    from carioca_experiments.evaluation.luck import SHIPPED_BY_VERSION
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament
    from carioca_experiments.studies.luck.measure import corrected_pairs

    values = [load_value(p) for p in (SHIPPED_BY_VERSION[v] for v in (1, 2))]
    cfg = TournamentConfig(agents=("heuristic", "greedy"), players=2, contracts=(3,), decks=3, seed=11, max_turns=300)
    raw, corrected = corrected_pairs(cfg, values)
    for v, c in zip(values, corrected):
        tc = TournamentConfig(agents=cfg.agents, players=2, contracts=(3,), decks=3, seed=11, max_turns=300,
                              luck=v.fingerprint)
        p = run_tournament(tc, tmp_path / v.fingerprint, workers=1, progress=False, log=lambda m: None).pairs[0]
        assert (p.mean_diff, p.ci_half) == pytest.approx((raw.mean, raw.half), abs=1e-9)
        assert (p.corrected_diff, p.corrected_half) == pytest.approx((c.mean, c.half), abs=1e-9)
