"""Small statistics for tournaments: t-intervals, paired differences, win shares.

Everything here is plain Python over lists of floats so that it can be tested on known
samples.  The Student t quantile comes from :mod:`scipy.stats` when scipy is installed
and otherwise from :func:`t_quantile_fallback`, an exact inversion of the t distribution
function (regularized incomplete beta), so results do not depend on scipy being present.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "MeanCI",
    "mean_ci",
    "paired_difference",
    "t_quantile",
    "t_quantile_fallback",
    "win_shares",
]


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with its two-sided t confidence interval.

    Attributes:
        n: sample size.
        mean: sample mean (``nan`` when ``n == 0``).
        sd: sample standard deviation, ``n - 1`` in the denominator (``nan`` when ``n < 2``).
        half: half-width of the interval, ``t(1 - (1-confidence)/2, n-1) * sd / sqrt(n)``
            (``nan`` when ``n < 2``: one value gives no interval).
        confidence: the confidence level (0.95).
    """

    n: int
    mean: float
    sd: float
    half: float
    confidence: float = 0.95

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.mean - self.half

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.mean + self.half

    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely on one side of 0 (a significant difference)."""
        return not math.isnan(self.half) and (self.low > 0 or self.high < 0)


# --------------------------------------------------------------------------- t quantile


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: float) -> float:
    """Distribution function of Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile_fallback(p: float, df: float) -> float:
    """Quantile of Student's t without scipy (bisection on the exact CDF, ~1e-12)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"df must be positive, got {df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile_fallback(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def t_quantile(p: float, df: float) -> float:
    """Quantile ``p`` of Student's t with ``df`` degrees of freedom (scipy when available)."""
    try:
        from scipy.stats import t as student_t
    except ImportError:  # pragma: no cover - exercised where scipy is absent
        return t_quantile_fallback(p, df)
    return float(student_t.ppf(p, df))


# --------------------------------------------------------------------------- intervals


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> MeanCI:
    """Mean and two-sided t confidence interval of a sample.

    >>> ci = mean_ci([1, 2, 3, 4, 5])
    >>> round(ci.mean, 6), round(ci.half, 4)   # 2.776 * sqrt(2.5) / sqrt(5)
    (3.0, 1.9632)
    """
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return MeanCI(0, math.nan, math.nan, math.nan, confidence)
    mean = math.fsum(xs) / n
    if n == 1:
        return MeanCI(1, mean, math.nan, math.nan, confidence)
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    sd = math.sqrt(var)
    q = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1)
    return MeanCI(n, mean, sd, q * sd / math.sqrt(n), confidence)


def paired_difference(
    x: Mapping[Hashable, float], y: Mapping[Hashable, float], confidence: float = 0.95
) -> MeanCI:
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
