"""carioca_experiments.common.plots and the plots that use it: legends beside the data, bands only where they mean something."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure
import matplotlib.pyplot as plt
import pytest
from matplotlib.collections import PolyCollection

from carioca_experiments.common.plots import MIN_BAND_DECKS, eval_units, learning_curves_figure

FIXTURE = Path(__file__).resolve().parent / "data" / "rl_results"


def _row(steps: int, opponent: str, mean: float, low: float, high: float, decks: int, contracts: str = "3") -> dict:
    return {"steps": steps, "opponent": opponent, "learner_mean": mean, "learner_ci_low": low,
            "learner_ci_high": high, "opponent_mean": mean + 10, "decks": decks, "contracts": contracts}


def _bands(ax: Any) -> list[PolyCollection]:
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def _overlaps(a: Any, b: Any) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _legends_clear_of_axes(fig: Any) -> int:
    """Checks that no legend overlaps a plotting area of ``fig``; returns how many legends it has."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    areas = [ax.get_window_extent(renderer) for ax in fig.axes if ax.axison]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert not any(_overlaps(box, area) for area in areas), "a legend covers a plotting area"
    return len(legends)


def test_no_band_with_few_decks_and_the_axis_follows_the_means() -> None:
    # two decks: a t-interval of +-700 around means in 0-150 (what train-all's plot used to draw)
    few = {"m": [_row(1000, "random", 80, -600, 760, decks=2), _row(2000, "random", 120, -500, 740, decks=2)]}
    fig = learning_curves_figure(few)
    ax = fig.axes[0]
    assert _bands(ax) == []
    low, high = ax.get_ylim()
    assert -10 < low and high < 160
    assert "no bands" in fig.get_suptitle()
    plt.close(fig)


def test_band_with_enough_decks_is_drawn_and_clipped_to_the_axis() -> None:
    assert eval_units({"decks": 2, "contracts": "1 2 3 4 5 6 7"}) == 14 >= MIN_BAND_DECKS
    rows = [_row(1000, "random", 80, 10, 400, decks=MIN_BAND_DECKS), _row(2000, "random", 60, 40, 80, decks=20)]
    fig = learning_curves_figure({"m": rows})
    ax = fig.axes[0]
    assert len(_bands(ax)) == 1
    assert ax.get_ylim()[1] < 150  # the 400 of one interval does not stretch the axis
    plt.close(fig)


def test_learning_curves_have_one_legend_below_the_panels() -> None:
    from carioca_experiments.training.train import read_eval_csv

    curves = {d.name: read_eval_csv(d / "eval.csv") for d in sorted((FIXTURE / "models").iterdir())}
    fig = learning_curves_figure(curves)
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert _legends_clear_of_axes(fig) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["learner vs random", "random (same deals)", "learner vs greedy", "greedy (same deals)"]
    assert all(t.get_fontsize() >= 9 for t in fig.legends[0].get_texts())
    plt.close(fig)


@pytest.mark.parametrize("models", [1, 3])
def test_learning_curve_step_ticks_never_overlap(models: int) -> None:
    # a fine-tuning run of 4M steps evaluated every 100k (a shipped eval.csv has such rows)
    rows = [_row(s, o, 50, 40, 60, decks=20) for s in range(0, 4_000_001, 100_000) for o in ("heuristic", "greedy")]
    fig = learning_curves_figure({f"m{i}": rows for i in range(models)})
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        left, right = ax.get_xlim()
        ticks = [t for t, v in zip(ax.get_xticklabels(), ax.get_xticks()) if t.get_text() and left <= v <= right]
        assert 3 <= len(ticks) <= 6
        assert all(t.get_text() == "0" or t.get_text()[-1] in "kM" for t in ticks)  # 400k, 1.2M: short labels
        boxes = [t.get_window_extent(renderer) for t in ticks]
        assert not any(_overlaps(a, b) for a, b in zip(boxes, boxes[1:])), [t.get_text() for t in ticks]
    plt.close(fig)


def test_eleven_series_get_eleven_styles() -> None:
    from carioca_experiments.common.plots import series_styles

    # the results notebook's penalty plot shows 11 agents for the shipped learned set
    for n in (1, 10, 11, 20, 24):
        styles = series_styles(n)
        assert len(styles) == n and len(set(styles)) == n
    assert len({colour for colour, _ in series_styles(20)}) == 20


def test_learning_curves_need_rows() -> None:
    with pytest.raises(ValueError, match="no learning-curve rows"):
        learning_curves_figure({"m": []})


@pytest.fixture
def saved_figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every figure saved while the test runs, checked before it is closed."""
    figures: list[Any] = []
    real = matplotlib.figure.Figure.savefig

    def savefig(self: Any, *args: Any, **kwargs: Any) -> Any:
        figures.append((self, _legends_clear_of_axes(self)))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return figures


def test_train_all_plots_keep_legends_off_the_data(tmp_path: Path, saved_figures: list[Any]) -> None:
    from carioca_experiments.training.train_all import report

    out = tmp_path / "rl"
    shutil.copytree(FIXTURE, out)
    paths = report(out, log=lambda m: None)
    assert {"penalty.png", "learning_curves.png"} <= {p.name for p in paths}
    assert len(saved_figures) == 2 and all(n == 1 for _, n in saved_figures)


def test_tournament_plots_keep_legends_off_the_data(tmp_path: Path, saved_figures: list[Any]) -> None:
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament

    config = TournamentConfig(agents=("random", "greedy", "heuristic"), players=3, contracts=(1, 2), decks=2,
                              seed=1, max_turns=200)
    run_tournament(config, tmp_path, workers=1, progress=False, log=lambda m: None)
    assert {p.name for p in tmp_path.iterdir()} >= {"penalty.png", "paired.png"}
    assert len(saved_figures) == 2 and all(n == 1 for _, n in saved_figures)
