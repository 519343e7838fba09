"""Plot helpers shared by the tournament, ``train-all`` and the results notebook.

Two rules hold for every figure made here:

- **Legends never cover data.**  :func:`legend_outside` puts an axes' legend beside it,
  and :func:`learning_curves_figure` draws one legend for all its panels below them.
- **Intervals never swamp the data.**  A learning-curve band (the learner's 95%
  interval) is drawn only for evaluations over at least :data:`MIN_BAND_DECKS` decks -
  over fewer, an interval says little and a t-interval spans hundreds of points when the
  data lie in 0-150 - and the y-axis follows the plotted means, with bands clipped to it.

matplotlib is imported inside the functions, so importing this module costs nothing
where it is not installed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from carioca_experiments.common.stats import FEW_DECKS

__all__ = ["MIN_BAND_DECKS", "eval_units", "learning_curves_figure", "legend_outside"]

#: Fewest decks (contract-deck units) of an evaluation whose interval is drawn as a band.
MIN_BAND_DECKS = FEW_DECKS


def legend_outside(ax: Any, fontsize: float = 9, **kwargs: Any) -> Any:
    """Put ``ax``'s legend to the right of it, outside the plotting area; returns the legend.

    Save the figure with ``bbox_inches="tight"`` (or lay it out with ``tight_layout``) so
    that the legend is inside the image.
    """
    kwargs.setdefault("loc", "upper left")
    kwargs.setdefault("bbox_to_anchor", (1.01, 1.0))
    kwargs.setdefault("borderaxespad", 0.0)
    return ax.legend(fontsize=fontsize, **kwargs)


#: markers cycled with the colours, so that series stay apart in grey or with many series
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


def series_styles(n: int) -> list[tuple[Any, str]]:
    """``(colour, marker)`` for ``n`` series, all distinct up to 20 series and more.

    matplotlib's default cycle has 10 colours, so an 11th series repeats the first; past
    10 the colours come from the 20 of ``tab20`` and each series also gets a marker.

    >>> len(set(series_styles(11)))
    11
    >>> series_styles(2)[0]
    ('C0', 'o')
    """
    if n <= 10:
        return [(f"C{i}", "o") for i in range(n)]
    import matplotlib

    tab20 = matplotlib.colormaps["tab20"]
    colours = [tab20(i) for i in range(20)]  # an int picks the i-th of its 20 colours exactly
    return [(colours[i % 20], MARKERS[(i + i // 20) % len(MARKERS)]) for i in range(n)]


def steps_label(x: float, _pos: Any = None) -> str:
    """A tick label for a count of training steps: ``0``, ``400k``, ``1.2M``.

    >>> [steps_label(v) for v in (0, 50_000, 400_000, 1_200_000, 2_000_000)]
    ['0', '50k', '400k', '1.2M', '2M']
    """
    if abs(x) >= 1e6:
        return f"{x / 1e6:.1f}".rstrip("0").rstrip(".") + "M"
    if abs(x) >= 1e3:
        return f"{x / 1e3:.0f}k"
    return f"{x:.0f}"


def _num(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def eval_units(row: Mapping[str, Any]) -> int:
    """Decks behind one evaluation row of ``eval.csv``: decks per contract times contracts.

    >>> eval_units({"decks": 2, "contracts": "1 2 3 4 5 6 7"})
    14
    >>> eval_units({"decks": "3", "contracts": 5})
    3
    """
    decks = int(_num(row.get("decks", 0)) or 0)
    contracts = str(row.get("contracts", "")).split()
    return decks * max(1, len(contracts))


def learning_curves_figure(curves: Mapping[str, Sequence[Mapping[str, Any]]], *,
                           min_band_decks: int = MIN_BAND_DECKS, cols: int = 3) -> Any:
    """One panel per model: the learner's and each opponent's mean penalty against steps.

    Args:
        curves: rows of each model's ``eval.csv`` (``steps``, ``opponent``,
            ``learner_mean``, ``learner_ci_low``, ``learner_ci_high``, ``opponent_mean``,
            ``decks``, ``contracts``), by model name.
        min_band_decks: the band of an evaluation is drawn only with at least this many
            decks (see the module docstring).
        cols: panels per row.

    Returns:
        The matplotlib figure (the caller saves or shows it).

    Raises:
        ValueError: no model has a row.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    names = [n for n, rs in curves.items() if rs]
    if not names:
        raise ValueError("no learning-curve rows to plot (every eval.csv is empty)")
    cols = max(1, min(cols, len(names)))
    nrows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.8 * cols, 3.6 * nrows + 0.9), squeeze=False,
                             layout="constrained")
    opponents = list(dict.fromkeys(r["opponent"] for n in names for r in curves[n]))
    colors = {o: c for o, (c, _) in zip(opponents, series_styles(len(opponents)))}
    handles: dict[str, Any] = {}
    banded = False
    for ax, name in zip(axes.ravel(), names):
        rows = curves[name]
        ys: list[float] = []
        for opp in opponents:
            sel = sorted((r for r in rows if r["opponent"] == opp), key=lambda r: _num(r["steps"]))
            if not sel:
                continue
            x = [_num(r["steps"]) for r in sel]
            learner = [_num(r["learner_mean"]) for r in sel]
            them = [_num(r["opponent_mean"]) for r in sel]
            ys += [v for v in learner + them if not math.isnan(v)]
            (h1,) = ax.plot(x, learner, marker="o", color=colors[opp], label=f"learner vs {opp}")
            (h2,) = ax.plot(x, them, linestyle="--", color=colors[opp], alpha=0.8, label=f"{opp} (same deals)")
            handles.setdefault(h1.get_label(), h1)
            handles.setdefault(h2.get_label(), h2)
            band = [(xi, _num(r["learner_ci_low"]), _num(r["learner_ci_high"]))
                    for xi, r in zip(x, sel) if eval_units(r) >= min_band_decks]
            band = [b for b in band if not (math.isnan(b[1]) or math.isnan(b[2]))]
            if band:
                banded = True
                ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                                color=colors[opp], alpha=0.15, linewidth=0)
        if ys:  # the axis follows the means; a band reaching past it is cut at the edge
            lo, hi = min(ys), max(ys)
            pad = max(5.0, 0.15 * (hi - lo))
            # a little room below 0, so that a mean of 0 is not drawn on the axis itself
            ax.set_ylim(max(lo - pad, -0.04 * (hi + pad)), hi + pad)
        ax.set_title(name, fontsize=11)
        ax.set_xlabel("training steps", fontsize=10)
        ax.set_ylabel("mean penalty per deal", fontsize=10)
        ax.tick_params(labelsize=9)
        # at most 5 step ticks, written 400k / 1.2M, so that the labels of a panel never overlap
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        ax.xaxis.set_major_formatter(FuncFormatter(steps_label))
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    band_note = (f"band: learner's 95% interval, drawn for evaluations over at least {min_band_decks} decks"
                 if banded else f"no bands: every evaluation used fewer than {min_band_decks} decks")
    fig.suptitle(f"Learning curves (lower is better); {band_note}", fontsize=11)
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=min(4, len(handles)),
               fontsize=10, frameon=False)
    return fig
