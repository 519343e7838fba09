"""carioca_experiments.evaluation.ratings: batch Bradley-Terry ratings that do not depend on the order of the deals."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from carioca_experiments.evaluation.ratings import (
    ELO_SCALE,
    RatingError,
    bootstrap_strengths,
    deck_comparisons,
    fit_ratings,
    fit_strengths,
    rating_table,
)

LABELS = ["weak", "mid", "strong"]


def _records(n_decks: int, seed: int, players: int = 3) -> list[dict]:
    """Deal records of three agents of different strength, every lineup on every deck."""
    rng = random.Random(seed)
    skill = {"weak": 40.0, "mid": 20.0, "strong": 10.0}
    out = []
    for contract in (1, 2):
        for deck in range(n_decks):
            for rot in range(players):
                seats = [LABELS[(s + rot) % 3] for s in range(players)]
                penalty = [int(rng.expovariate(1 / skill[a])) for a in seats]
                out.append({"task": f"c{contract}-d{deck}-l{rot}", "contract": contract, "deck": deck,
                            "seats": seats, "penalty": penalty})
    return out


def test_permuting_the_deals_does_not_change_the_ratings() -> None:
    records = _records(20, seed=1)
    base = fit_ratings(LABELS, records)
    for k in range(5):
        shuffled = list(records)
        random.Random(k).shuffle(shuffled)
        assert fit_ratings(LABELS, shuffled) == base  # the fit and the bootstrap interval, exactly


@settings(max_examples=15, deadline=None)
@given(st.permutations(list(range(24))))
def test_any_order_of_the_deals_gives_the_same_ratings(order: list[int]) -> None:
    records = _records(4, seed=7)
    assert fit_ratings(LABELS, [records[i] for i in order], resamples=20) == fit_ratings(LABELS, records, resamples=20)


def test_stronger_agents_rate_higher_with_intervals_around_the_fit() -> None:
    ratings = fit_ratings(LABELS, _records(30, seed=2))
    assert [r.agent for r in ratings] == ["strong", "mid", "weak"]
    assert sum(r.rating for r in ratings) / 3 == pytest.approx(1500)
    assert sum(r.strength for r in ratings) == pytest.approx(0, abs=1e-9)
    for r in ratings:
        assert r.low <= r.rating <= r.high
        assert r.matches == 2 * 30 * 3 and r.pairs == 2 * r.matches


def test_two_agents_match_the_closed_form_maximum_likelihood() -> None:
    # 30 wins to 10: the Bradley-Terry MLE of the strength gap is ln(30/10).
    wins = np.array([[0.0, 30.0], [10.0, 0.0]])
    t = fit_strengths(wins, alpha=0.0)
    assert t[0] - t[1] == pytest.approx(math.log(3.0), rel=1e-6)


def test_three_agents_match_a_direct_likelihood_maximization() -> None:
    records = _records(15, seed=3)
    wins, _ = deck_comparisons(LABELS, records)
    total = sum(wins.values())
    t = fit_strengths(total, alpha=0.0)

    def nll(theta: np.ndarray) -> float:
        d = theta[:, None] - theta[None, :]
        return float(np.sum(total * np.logaddexp(0.0, -d)))

    ref = minimize(nll, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    ref -= ref.mean()
    assert t == pytest.approx(ref, abs=1e-4)


def test_ties_split_and_an_agent_seated_twice_counts_once_with_its_mean() -> None:
    recs = [
        {"contract": 1, "deck": 0, "seats": ["a", "b"], "penalty": [5, 5]},  # a tie
        {"contract": 1, "deck": 1, "seats": ["a", "b", "a"], "penalty": [0, 10, 30]},  # a's mean 15 > 10
        {"contract": 1, "deck": 2, "seats": ["a", "a"], "penalty": [0, 9]},  # one agent: no comparison
    ]
    wins, matches = deck_comparisons(["a", "b"], recs)
    assert set(wins) == {(1, 0), (1, 1)}
    assert wins[(1, 0)].tolist() == [[0, 0.5], [0.5, 0]]
    assert wins[(1, 1)].tolist() == [[0, 0], [1, 0]]
    assert matches == {"a": 2, "b": 2}


def test_an_agent_that_never_loses_gets_a_finite_rating() -> None:
    recs = [{"contract": 1, "deck": d, "seats": ["a", "b"], "penalty": [0, 20]} for d in range(10)]
    ratings = fit_ratings(["a", "b"], recs)
    assert ratings[0].agent == "a" and all(math.isfinite(r.rating) for r in ratings)
    assert ratings[0].rating - ratings[1].rating > 2 * ELO_SCALE  # far apart, but finite


def test_no_ratings_without_two_agents_or_a_comparison() -> None:
    assert fit_ratings(["a"], [{"contract": 1, "deck": 0, "seats": ["a", "a"], "penalty": [1, 2]}]) == []
    assert fit_ratings(["a", "b"], [{"contract": 1, "deck": 0, "seats": ["a", "a"], "penalty": [1, 2]}]) == []


def test_bad_records_are_refused_with_the_reason() -> None:
    with pytest.raises(RatingError, match="lacks"):
        fit_ratings(["a", "b"], [{"seats": ["a", "b"]}])
    with pytest.raises(RatingError, match="2 seats but 3 penalties"):
        fit_ratings(["a", "b"], [{"seats": ["a", "b"], "penalty": [1, 2, 3]}])
    with pytest.raises(RatingError, match="not among the agents"):
        fit_ratings(["a", "b"], [{"seats": ["a", "z"], "penalty": [1, 2]}])


def test_rating_table_rows() -> None:
    head, rows = rating_table(fit_ratings(LABELS, _records(5, seed=4)))
    assert head == ["agent", "rating", "95% CI", "matches", "pairs"]
    assert [r[0] for r in rows][0] == "strong" and all(r[2].startswith("[") for r in rows)


@settings(max_examples=10, deadline=None)
@given(n_decks=st.integers(1, 6), seed=st.integers(0, 2**16), players=st.integers(2, 3))
def test_the_bootstrap_fits_a_repeated_total_once_with_the_same_result(n_decks: int, seed: int, players: int) -> None:
    """The resampled totals that repeat are fit once: the bootstrap's rows are those of
    fitting every resample, for the same generator."""
    wins, _ = deck_comparisons(LABELS, _records(n_decks, seed, players))
    stack = np.stack([wins[k] for k in sorted(wins, key=repr)])
    memo = bootstrap_strengths(stack, np.random.default_rng(seed), 120)
    every = bootstrap_strengths(stack, np.random.default_rng(seed), 120, memo=False)
    assert memo.tobytes() == every.tobytes()

