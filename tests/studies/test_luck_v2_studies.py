"""The studies' part of ``tests/test_luck_v2.py``: tests of modules in ``experiments/studies/``."""

from __future__ import annotations

import numpy as np
import pytest

from carioca_experiments.common.seeds import LUCK_FIT, TOURNAMENT
from carioca_experiments.evaluation.luck import (
    SHIPPED_BY_VERSION,
    DrawValue,
    MlpValue,
    ValueFileError,
    load_value,
    shipped_value,
    value_by_fingerprint,
)
from carioca_experiments.evaluation.luck import race_features as features2
from carioca_experiments.evaluation.luck.value import MLP_PARAMS
from carioca_experiments.evaluation.tournament import TournamentConfig
from carioca_experiments.evaluation.tournament.play import deal_deck
from carioca_experiments.studies.luck.fit import FitConfig, fit_deal_rng, fit_deck, play_states
from carioca_experiments.studies.luck.values import ActionValue, ValueFunction


def test_every_shipped_version_loads_and_is_found_by_fingerprint() -> None:
    v1, v2, v3, v4 = (load_value(SHIPPED_BY_VERSION[v]) for v in (1, 2, 3, 4))
    assert isinstance(v1, ValueFunction) and isinstance(v2, MlpValue) and isinstance(v3, DrawValue)
    assert isinstance(v4, ActionValue) and value_by_fingerprint(v4.fingerprint).fingerprint == v4.fingerprint
    assert [v.fingerprint[:3] for v in (v1, v2, v3, v4)] == ["v1-", "v2-", "v3-", "v4-"]
    assert shipped_value().fingerprint == load_value(SHIPPED_BY_VERSION[7]).fingerprint  # the default
    assert value_by_fingerprint(v1.fingerprint).fingerprint == v1.fingerprint
    assert value_by_fingerprint(v2.fingerprint).fingerprint == v2.fingerprint
    assert value_by_fingerprint(v3.fingerprint).fingerprint == v3.fingerprint
    with pytest.raises(ValueFileError, match="no luck value function shipped"):
        value_by_fingerprint("v2-000000000000")
    # v2 was chosen on its own validation deals; its held-out fit is recorded per model
    meta = v2.meta
    assert meta["seed_namespace"] == "carioca-luck-fit" and "validation" in meta["split_rule"]
    for key, fit in meta["heldout"].items():
        assert set(MLP_PARAMS) == set(v2.models[key]) and fit["heldout_rows"] > 0 and fit["epoch"] >= 1


def test_the_fitting_decks_are_never_a_tournaments() -> None:
    """The fit deals its decks from its own seed namespace: none of its first decks is
    a tournament deck of the seeds the project's evaluations use."""
    fit_decks = set()
    for players in (2, 4):
        for contract in (1, 4, 7):
            for deal in range(40):
                deck, _ = fit_deck(fit_deal_rng(2, players, contract, deal), players)
                fit_decks.add(tuple(deck))
    for seed in (0, 1, 2, 2026, 2027, 2028):
        for contract in (1, 4, 7):
            cfg = TournamentConfig(agents=("a=greedy", "b=greedy"), players=2, contracts=(contract,), decks=20,
                                   seed=seed)
            for deck in range(20):
                cards, _, _ = deal_deck(cfg, contract, deck)
                assert tuple(cards) not in fit_decks
    assert LUCK_FIT != TOURNAMENT


def test_play_states_records_v2_statistics_after_each_stock_draw() -> None:
    cfg = FitConfig(players=(2,), contracts=(3,), deals=1, agents=("heuristic", "greedy"), seed=9, max_turns=60)
    rec = play_states(cfg, 2, 3, 0)
    assert rec["stats"].shape[1:] == (2, len(features2.STATS)) and len(rec["stats"]) == len(rec["stock"]) > 0
    assert np.all(rec["stock"] >= 0) and np.all(rec["stats"][:, :, features2.SIZE] > 0)
    assert rec["penalty"].shape == (2,)


def test_ceiling_measures_the_deals_part_of_the_variance(capsys: pytest.CaptureFixture[str]) -> None:
    """The same agent in both seats gives a paired difference of exactly 0 on every
    shuffle (nothing to bound); two agents give a variance and a bound in [0, 1]."""
    from carioca_experiments.studies.luck.measure import MeasureConfig, ceiling

    same = ceiling(MeasureConfig("ceiling", ("heuristic", "heuristic"), contracts=(1,), decks=3, max_turns=200))
    assert same[0]["variance"] == 0 and same[0]["deal_part"] == 0
    rows = ceiling(MeasureConfig("ceiling", ("heuristic", "greedy"), contracts=(2,), decks=4, max_turns=200))
    assert rows[0]["variance"] > 0 and 0.0 <= rows[0]["ratio"] <= 1.0
    assert "| 2 | 4 |" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="2-player"):
        ceiling(MeasureConfig("ceiling", ("heuristic", "greedy"), players=4, contracts=(1,), decks=2))
