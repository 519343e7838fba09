"""A training run's learning curve (``eval.csv``) as the geometry of an inline SVG plot.

The run page draws, for each evaluation opponent, the learner's mean penalty per deal by
training steps (a solid line with its 95% interval as a band) and the opponent's mean on
the same decks (dashed): lower is better.  The page's template turns this geometry into
SVG elements, so the plot needs no plotting library and scales with the window.  Rows
that do not hold numbers where the curve needs them are left out, never an error: one
bad line of a CSV file does not break the page.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any

#: the SVG's own coordinate system (the page scales it to its width)
WIDTH, HEIGHT = 720, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 44
#: one colour per opponent, in the order they first appear
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
#: rows read at most (a curve is a few hundred evaluations)
MAX_ROWS = 5000
#: bytes of eval.csv read at most
MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Point:
    """One evaluation: steps, the learner's mean and interval, the opponent's mean."""

    steps: float
    mean: float
    low: float
    high: float
    opponent_mean: float


@dataclass
class Series:
    """One opponent's curve in SVG coordinates."""

    opponent: str
    colour: str
    line: str = ""
    band: str = ""
    opponent_line: str = ""
    dots: list[dict[str, Any]] = field(default_factory=list)


#: values beyond this are no steps or penalties the plot can scale (at 1e308 an axis has no width)
MAX_VALUE = 1e15


def _number(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) and abs(x) <= MAX_VALUE else math.nan


def read_points(text: str) -> dict[str, list[Point]]:
    """The evaluations of an ``eval.csv`` text by opponent, in steps order.

    A row without a number of steps or a learner mean is skipped; a missing interval or
    opponent mean is NaN (the band or the dashed line leaves that evaluation out).
    """
    out: dict[str, list[Point]] = {}
    for i, row in enumerate(csv.DictReader(io.StringIO(text))):
        if i >= MAX_ROWS:
            break
        if not isinstance(row, dict):
            continue
        steps, mean = _number(row.get("steps")), _number(row.get("learner_mean"))
        if math.isnan(steps) or math.isnan(mean):
            continue
        opponent = str(row.get("opponent") or "opponent")[:80]
        out.setdefault(opponent, []).append(Point(steps, mean, _number(row.get("learner_ci_low")),
                                                  _number(row.get("learner_ci_high")),
                                                  _number(row.get("opponent_mean"))))
    for points in out.values():
        points.sort(key=lambda p: p.steps)
    return out


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering ``low..high`` (steps of 1, 2 or 5 x 10^k)."""
    if high - low < 1e-6:  # one value (or nearly): a unit-wide axis around it
        low, high = low - 0.5, low + 0.5
    raw = (high - low) / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    if start > low:  # low / step underflowed to -0.0 (a denormal low)
        start -= step
    ticks = []
    k = 0
    while start + k * step <= high + step * 1e-9:
        ticks.append(round(start + k * step, 10))
        k += 1
    if ticks[-1] < high:
        ticks.append(round(start + k * step, 10))
    return ticks


def _label(x: float) -> str:
    if abs(x) >= 10_000 and x == int(x):
        return f"{x / 1000:g}k"
    return f"{x:g}"


def _dot_title(opponent: str, p: Point) -> str:
    text = f"{opponent}: {_label(p.steps)} steps, learner {p.mean:.1f}"
    if not (math.isnan(p.low) or math.isnan(p.high)):
        text += f" [{p.low:.1f}, {p.high:.1f}]"
    if not math.isnan(p.opponent_mean):
        text += f", opponent {p.opponent_mean:.1f}"
    return text


def learning_curve(points: dict[str, list[Point]]) -> dict[str, Any] | None:
    """The plot of :func:`read_points`' curves, or None when there is nothing to draw."""
    if not points:
        return None
    xs = [p.steps for ps in points.values() for p in ps]
    ys = [v for ps in points.values() for p in ps for v in (p.mean, p.low, p.high, p.opponent_mean)
          if not math.isnan(v)]
    x_ticks, y_ticks = nice_ticks(min(xs), max(xs)), nice_ticks(min(ys), max(ys))
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]

    def sx(x: float) -> float:
        return round(LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT), 1)

    def sy(y: float) -> float:
        return round(HEIGHT - BOTTOM - (y - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM), 1)

    series = []
    for k, (opponent, ps) in enumerate(points.items()):
        s = Series(opponent, COLOURS[k % len(COLOURS)])
        s.line = " ".join(f"{sx(p.steps)},{sy(p.mean)}" for p in ps)
        ci = [p for p in ps if not (math.isnan(p.low) or math.isnan(p.high))]
        if ci:
            s.band = " ".join([f"{sx(p.steps)},{sy(p.high)}" for p in ci] +
                              [f"{sx(p.steps)},{sy(p.low)}" for p in reversed(ci)])
        s.opponent_line = " ".join(f"{sx(p.steps)},{sy(p.opponent_mean)}" for p in ps
                                   if not math.isnan(p.opponent_mean))
        s.dots = [{"x": sx(p.steps), "y": sy(p.mean), "title": _dot_title(opponent, p)} for p in ps]
        series.append(s)
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "x_ticks": [{"at": sx(t), "label": _label(t)} for t in x_ticks],
        "y_ticks": [{"at": sy(t), "label": _label(t)} for t in y_ticks],
        "series": series,
        "evaluations": len(xs),
    }
