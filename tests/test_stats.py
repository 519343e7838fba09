"""carioca_experiments.common.stats: intervals agree with scipy.stats, bounded bootstrap, seeded, and n/a without data."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_experiments.common.stats import (
    bootstrap_mean_ci,
    format_interval,
    mean_ci,
    paired_difference,
    penalty_ci,
    t_quantile,
    win_shares,
)

#: Known samples: small, skewed, with ties, with a zero spread in part.
SAMPLES = [
    [1, 2, 3, 4, 5],
    [0, 0, 3, 9],
    [12.5, 40, 3, 0, 77, 21, 5, 5, 130, 2],
    [float(x) for x in range(30)],
]


def test_mean_ci_of_a_known_sample() -> None:
    ci = mean_ci([1, 2, 3, 4, 5])
    assert ci.n == 5 and ci.mean == pytest.approx(3.0)
    assert ci.sd == pytest.approx(math.sqrt(2.5))
    assert ci.half == pytest.approx(2.776445 * math.sqrt(2.5) / math.sqrt(5), rel=1e-6)
    assert (ci.low, ci.high) == pytest.approx((3 - 1.963243, 3 + 1.963243), rel=1e-6)
    assert mean_ci([1, 2, 3, 4, 5], confidence=0.99).half == pytest.approx(4.604095 * math.sqrt(0.5), rel=1e-6)


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_t_intervals_match_scipy(sample: list[float], confidence: float) -> None:
    ci = mean_ci(sample, confidence)
    low, high = sps.t.interval(confidence, len(sample) - 1, loc=np.mean(sample), scale=sps.sem(sample))
    assert (ci.low, ci.high) == pytest.approx((low, high), rel=1e-12, abs=1e-12)
    assert ci.method == "t" and ci.has_interval


@pytest.mark.parametrize(
    "df, q",
    [(1, 12.706205), (2, 4.302653), (4, 2.776445), (10, 2.228139), (30, 2.042272), (1000, 1.962339)],
)
def test_t_quantiles_match_the_table(df: int, q: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(q, rel=1e-6)
    assert t_quantile(0.025, df) == pytest.approx(-q, rel=1e-6)


@pytest.mark.parametrize("p, df", [(0.0, 3), (1.0, 3), (0.5, 0), (0.5, -1)])
def test_t_quantile_refuses_bad_arguments(p: float, df: float) -> None:
    with pytest.raises(ValueError, match="must be"):
        t_quantile(p, df)


def test_confidence_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="confidence must be in"):
        mean_ci([1, 2], confidence=95)
    with pytest.raises(ValueError, match="confidence must be in"):
        bootstrap_mean_ci([1, 2], confidence=0)


def test_degenerate_samples_have_no_interval_and_say_why() -> None:
    empty = mean_ci([])
    assert math.isnan(empty.mean) and not empty.has_interval and empty.reason == "no decks"
    one = mean_ci([7])
    assert one.mean == 7 and math.isnan(one.half) and one.reason == "1 deck"
    assert one.text() == "n/a (1 deck)" and "nan" not in one.text()
    assert penalty_ci([7]).text() == "n/a (1 deck)"
    same = mean_ci([4, 4, 4])
    assert same.mean == 4 and same.half == 0
    const = penalty_ci([4, 4, 4])
    assert (const.low, const.high, const.method) == (4, 4, "constant")


def test_format_interval() -> None:
    assert format_interval(1.25, 3.5, 10) == "[1.2, 3.5]"
    assert format_interval(math.nan, math.nan, 1) == "n/a (1 deck)"
    assert format_interval(None, None, 0) == "n/a (no decks)"
    assert format_interval(-1.0, 2.0, 4, signed=True) == "[-1.0, +2.0]"


@pytest.mark.parametrize("sample", SAMPLES)
def test_bootstrap_matches_scipy_with_the_same_seed(sample: list[float]) -> None:
    ci = bootstrap_mean_ci(sample, seed=11, n_resamples=2000)
    ref = sps.bootstrap((np.asarray(sample, dtype=float),), np.mean, method="BCa", n_resamples=2000,
                        rng=np.random.default_rng(11)).confidence_interval
    assert (ci.low, ci.high) == (pytest.approx(ref.low, rel=1e-12), pytest.approx(ref.high, rel=1e-12))
    assert ci.method == "bca" and ci.mean == pytest.approx(np.mean(sample))


def test_bootstrap_is_seeded_and_reproducible() -> None:
    rng = random.Random(5)
    sample = [rng.choice([0, 0, 2, 5, 12, 30, 120]) for _ in range(25)]
    a, b = bootstrap_mean_ci(sample, seed=3), bootstrap_mean_ci(sample, seed=3)
    assert a == b  # byte for byte
    c = bootstrap_mean_ci(sample, seed=4)
    assert (c.low, c.high) != (a.low, a.high)  # the seed is really used
    assert penalty_ci(sample) == penalty_ci(list(sample))


def test_penalty_interval_respects_the_bound_where_t_does_not() -> None:
    sample = [0, 0, 0, 3, 9, 0, 1]  # the t-interval reaches below 0
    t = mean_ci(sample)
    assert t.low < 0
    b = penalty_ci(sample)
    assert 0 <= b.low <= b.mean <= b.high <= max(sample)


def test_penalty_interval_refuses_negative_penalties() -> None:
    with pytest.raises(ValueError, match="never negative"):
        penalty_ci([3, -1, 4])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=300), min_size=2, max_size=30), st.integers(0, 2**32 - 1))
def test_penalty_intervals_stay_inside_the_data(values: list[int], seed: int) -> None:
    ci = penalty_ci(values, seed=seed)
    assert min(values) <= ci.low <= ci.high <= max(values)
    assert ci.has_interval


def test_paired_difference_uses_common_keys_only() -> None:
    x = {"d0": 10.0, "d1": 20.0, "d2": 30.0, "only-x": 99.0}
    y = {"d0": 8.0, "d1": 17.0, "d2": 26.0, "only-y": -5.0}
    d = paired_difference(x, y)
    assert d.n == 3 and d.mean == pytest.approx(3.0)
    assert d.half == pytest.approx(4.302653 * 1.0 / math.sqrt(3), rel=1e-6)
    ref = sps.ttest_rel([10, 20, 30], [8, 17, 26]).confidence_interval(0.95)
    assert (d.low, d.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    assert d.excludes_zero()


def test_win_shares_split_ties() -> None:
    assert win_shares([0, 12, 30]) == [1.0, 0.0, 0.0]
    assert win_shares([5, 5, 9, 40]) == [0.5, 0.5, 0.0, 0.0]
    assert win_shares([3, 3, 3]) == pytest.approx([1 / 3] * 3)
