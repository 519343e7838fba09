"""Statistics for tournaments: t-intervals, bounded bootstrap intervals, paired differences, win shares.

The distributions and the bootstrap come from :mod:`scipy.stats`; this module only
chooses which interval fits which quantity and says plainly when there is none.

Which interval for which quantity
    - **Paired differences** ``x - y`` (:func:`paired_difference`): Student t over the
      decks both agents played.  A difference can have either sign and, summed over
      decks, is close to symmetric, so the t-interval is the right tool and it is what
      the project's strength claims are stated in.
    - **Mean penalties** (:func:`penalty_ci`): a penalty is never negative and its
      distribution is right-skewed (most deals cost little, a deal where the seat never
      opens costs 100+).  A t-interval ignores both and, over a few decks, reaches below
      0 (``greedy 3.1 [-2.3, 8.5]``).  The BCa bootstrap (``scipy.stats.bootstrap``,
      bias-corrected and accelerated) takes its ends from resampled means, which lie
      inside the range of the data, so it never leaves ``[0, max]``, and it follows the
      skew.  It is seeded, so the same values give the same interval byte for byte.
      Its limit: with very few decks no bootstrap can be wider than the spread of the
      data, so it is too narrow there (it then under-covers); :data:`FEW_DECKS` marks
      that size, and plots draw no band below it.
    - **One deck** (or none) gives no interval: the result carries ``nan`` ends and a
      ``reason``, and :meth:`MeanCI.text` prints ``n/a (1 deck)`` instead of
      ``[nan, nan]``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy import stats as _sps

#: the key of a paired sample (a dealt deck, a deck and contract, ...)
K = TypeVar("K", bound=Hashable)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "FEW_DECKS",
    "MeanCI",
    "bootstrap_mean_ci",
    "format_interval",
    "mean_ci",
    "no_interval_reason",
    "paired_difference",
    "penalty_ci",
    "t_quantile",
    "win_shares",
]

#: Resamples of each bootstrap interval (a few milliseconds for a tournament's samples).
BOOTSTRAP_RESAMPLES = 4999

#: Below this many decks an interval is too unreliable to draw as a band (see the module docstring).
FEW_DECKS = 5


def no_interval_reason(n: int, unit: str = "deck") -> str:
    """Why a sample of ``n`` values has no interval (``""`` when it has one).

    >>> no_interval_reason(1)
    '1 deck'
    >>> no_interval_reason(0, "deal")
    'no deals'
    """
    if n <= 0:
        return f"no {unit}s"
    if n == 1:
        return f"1 {unit}"
    return ""


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with its two-sided confidence interval.

    Attributes:
        n: sample size.
        mean: sample mean (``nan`` when ``n == 0``).
        sd: sample standard deviation, ``n - 1`` in the denominator (``nan`` when ``n < 2``).
        low: lower end of the interval (``nan`` when there is none).
        high: upper end of the interval (``nan`` when there is none).
        confidence: the confidence level (0.95).
        method: ``"t"`` (Student t), ``"bca"`` (BCa bootstrap), ``"constant"`` (every
            value equal: the interval is that value) or ``"none"`` (no interval).
        reason: why there is no interval (``"1 deck"``), else ``""``.
    """

    n: int
    mean: float
    sd: float
    low: float
    high: float
    confidence: float = 0.95
    method: str = "t"
    reason: str = ""

    @property
    def half(self) -> float:
        """Half the width of the interval (``nan`` when there is none); for a t-interval
        exactly ``t(1 - (1-confidence)/2, n-1) * sd / sqrt(n)``."""
        return (self.high - self.low) / 2.0

    @property
    def has_interval(self) -> bool:
        """Whether the interval exists (at least two values)."""
        return not (math.isnan(self.low) or math.isnan(self.high))

    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely on one side of 0 (a significant difference)."""
        return self.has_interval and (self.low > 0 or self.high < 0)

    def text(self, digits: int = 1, signed: bool = False) -> str:
        """``"[low, high]"``, or ``"n/a (reason)"`` when there is no interval."""
        return format_interval(self.low, self.high, self.n, digits=digits, signed=signed)


def format_interval(low: float | None, high: float | None, n: int, digits: int = 1, signed: bool = False,
                    unit: str = "deck") -> str:
    """``"[low, high]"`` for an interval over ``n`` values, or ``"n/a (1 deck)"`` without one.

    >>> format_interval(1.25, 3.5, 10)
    '[1.2, 3.5]'
    >>> format_interval(float("nan"), float("nan"), 1)
    'n/a (1 deck)'
    >>> format_interval(-1.0, 2.0, 4, signed=True)
    '[-1.0, +2.0]'
    """
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return f"n/a ({no_interval_reason(n, unit) or 'no interval'})"
    f = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
    return f"[{f.format(low)}, {f.format(high)}]"


# --------------------------------------------------------------------------- t intervals


def t_quantile(p: float, df: float) -> float:
    """Quantile ``p`` of Student's t with ``df`` degrees of freedom (``scipy.stats.t.ppf``).

    Raises:
        ValueError: ``p`` is not in (0, 1) or ``df`` is not positive.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if not df > 0:
        raise ValueError(f"df must be positive, got {df}")
    return float(_sps.t.ppf(p, df))


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), for example 0.95; got {confidence}")


def _sample(values: Iterable[float]) -> tuple[list[float], float, float]:
    """The values as floats, their mean and sd (``nan`` where undefined)."""
    xs = [float(v) for v in values]
    n = len(xs)
    mean = math.fsum(xs) / n if n else math.nan
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else math.nan
    return xs, mean, sd


def _no_interval(n: int, mean: float, sd: float, confidence: float) -> MeanCI:
    return MeanCI(n, mean, sd, math.nan, math.nan, confidence, "none", no_interval_reason(n))


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> MeanCI:
    """Mean and two-sided Student t confidence interval of a sample.

    >>> ci = mean_ci([1, 2, 3, 4, 5])
    >>> round(ci.mean, 6), round(ci.half, 4)   # 2.776 * sqrt(2.5) / sqrt(5)
    (3.0, 1.9632)
    >>> mean_ci([7]).text()
    'n/a (1 deck)'
    """
    _check_confidence(confidence)
    xs, mean, sd = _sample(values)
    n = len(xs)
    if n < 2:
        return _no_interval(n, mean, sd, confidence)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * sd / math.sqrt(n)
    return MeanCI(n, mean, sd, mean - half, mean + half, confidence, "t")


def bootstrap_mean_ci(values: Iterable[float], confidence: float = 0.95, *, seed: int = 0,
                      n_resamples: int = BOOTSTRAP_RESAMPLES) -> MeanCI:
    """Mean and BCa bootstrap interval (``scipy.stats.bootstrap``), seeded by ``seed``.

    The ends are means of resamples, so they lie within ``[min, max]`` of the values: a
    quantity that is never negative gets an interval that is never negative.  The same
    values and seed give the same interval.  Every value equal: the interval is that
    value (method ``"constant"``); fewer than two values: no interval.

    >>> ci = bootstrap_mean_ci([0, 0, 0, 2, 40])
    >>> ci.low >= 0, ci.high <= 40, ci.method
    (True, True, 'bca')
    """
    _check_confidence(confidence)
    xs, mean, sd = _sample(values)
    n = len(xs)
    if n < 2:
        return _no_interval(n, mean, sd, confidence)
    if sd == 0.0:
        return MeanCI(n, mean, sd, mean, mean, confidence, "constant")
    with warnings.catch_warnings():
        # BCa on tiny samples can warn that the bootstrap distribution is degenerate;
        # that case is caught below by the nan it returns.
        warnings.simplefilter("ignore")
        res = _sps.bootstrap((np.asarray(xs),), np.mean, confidence_level=confidence, method="BCa",
                             n_resamples=n_resamples, vectorized=True, rng=np.random.default_rng(seed))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if math.isnan(low) or math.isnan(high):  # pragma: no cover - only for pathological samples
        return MeanCI(n, mean, sd, min(xs), max(xs), confidence, "none", "degenerate bootstrap")
    return MeanCI(n, mean, sd, low, high, confidence, "bca")


def penalty_ci(values: Iterable[float], confidence: float = 0.95, *, seed: int = 0) -> MeanCI:
    """The interval of a mean penalty per deal: :func:`bootstrap_mean_ci` (never below 0).

    Raises:
        ValueError: a value is negative (a penalty never is).
    """
    xs = [float(v) for v in values]
    bad = [x for x in xs if x < 0]
    if bad:
        raise ValueError(f"penalties are never negative, got {bad[:3]}")
    return bootstrap_mean_ci(xs, confidence, seed=seed)


def paired_difference(x: Mapping[K, float], y: Mapping[K, float], confidence: float = 0.95) -> MeanCI:
    """Mean of ``x[k] - y[k]`` over the keys both have, with its t interval.

    In a tournament the keys are dealt decks and the values each agent's mean penalty on
    that deck, so the difference compares the two agents on the same cards.
    """
    keys = [k for k in x if k in y]
    return mean_ci([x[k] - y[k] for k in keys], confidence)


def win_shares(penalties: Sequence[float]) -> list[float]:
    """Share of the win of each seat: ``1/k`` for each of the ``k`` seats with the lowest penalty.

    >>> win_shares([0, 12, 30])
    [1.0, 0.0, 0.0]
    >>> win_shares([5, 5, 9, 40])
    [0.5, 0.5, 0.0, 0.0]
    """
    if not penalties:
        return []
    best = min(penalties)
    k = sum(1 for p in penalties if p == best)
    return [1.0 / k if p == best else 0.0 for p in penalties]
