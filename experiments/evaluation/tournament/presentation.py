"""How a tournament summary is shown: terminal and Markdown tables, CSV/JSON files, plots."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from carioca_experiments.common.report import Report, pyplot
from carioca_experiments.common.stats import format_interval
from carioca_experiments.common.tables import markdown_table, text_table, wrap_cell
from carioca_experiments.evaluation.ratings import RATINGS_EXPLAINED, rating_table
from carioca_experiments.evaluation.tournament.summary import AgentStats, PairStats, Summary


def _headline(s: Summary) -> list[str]:
    c = s.config
    contracts = ", ".join(str(k) for k in c.contracts)
    lines = [
        f"Tournament: {', '.join(c.agents)} | {c.players} players | contracts {contracts} | "
        f"{c.decks} decks per contract | {c.format} | seed {c.seed} | max {c.max_turns} turns",
        f"Deals played: {s.deals_played} of {s.deals_expected}"
        + ("" if s.complete else "  (INCOMPLETE: rerun the same command to finish)"),
    ]
    share = s.truncated / s.deals_played if s.deals_played else 0.0
    per = ", ".join(f"c{k}: {v}" for k, v in s.truncated_by_contract.items() if v)
    lines.append(
        f"Truncated deals: {s.truncated} ({share:.1%})" + (f" [{per}]" if per else "")
        + (" - scored by the cards in hand when cut off (R17); raise --max-turns to reduce"
           if s.truncated else "")
    )
    lines.append(f"Cancelled and redealt (R13): {s.cancelled}")
    return lines


def _agent_table(s: Summary) -> tuple[list[str], list[list[str]]]:
    head = ["contract", "agent", "deals", "decks", "mean pen.", "95% CI", "win %", "close %",
            "open %", "open turn", "trunc."]
    rows = [[r.contract, r.agent, str(r.deals), str(r.decks), _f(r.mean_penalty, 1),
             format_interval(r.ci_low, r.ci_high, r.decks), _pct(r.win_rate), _pct(r.close_rate),
             _pct(r.open_rate), _f(r.mean_open_turn, 1), str(r.truncated)] for r in s.agents]
    return head, rows


def _head_to_head_differs(s: Summary) -> bool:
    """With more agents than seats, two agents meet on only some deals of a deck."""
    return len(s.config.labels) > s.config.players


def _pair_table(s: Summary) -> tuple[list[str], list[list[str]]]:
    head = ["contract", "x - y", "decks", "mean diff", "95% CI", "sig."]
    rows = [[p.contract, f"{p.agent_x} - {p.agent_y}", str(p.decks), _f(p.mean_diff, 1, signed=True),
             format_interval(p.ci_low, p.ci_high, p.decks, signed=True), "*" if p.significant else ""]
            for p in s.pairs]
    if s.config.luck is not None:
        head += ["luck-corrected", "95% CI", "sig.", "width"]
        for row, p in zip(rows, s.pairs):
            row += [_f(p.corrected_diff, 1, signed=True),
                    format_interval(p.corrected_low, p.corrected_high, p.decks, signed=True),
                    "*" if p.corrected_significant else "", _ratio(p.corrected_half, p.ci_half)]
    if _head_to_head_differs(s):
        head += ["head to head", "95% CI", "sig."]
        for row, p in zip(rows, s.pairs):
            row += [_f(p.h2h_diff, 1, signed=True), format_interval(p.h2h_low, p.h2h_high, p.h2h_decks, signed=True),
                    "*" if p.h2h_significant else ""]
    return head, rows


def _rating_table(s: Summary) -> tuple[list[str], list[list[str]]]:
    return rating_table(s.ratings)


_EXPLAIN_AGENTS = (
    "Mean penalty per deal (lower is better); 95% BCa bootstrap interval over decks (each "
    "deck: the agent's mean over the seats it played; never below 0; n/a: one deck). "
    "win = lowest penalty at the table (ties shared); close = emptied its hand; open = laid its contract; open turn = its own turn "
    "number when it opened (mean over deals it opened); trunc. = truncated deals it sat at."
)
_EXPLAIN_PAIRS = (
    "Paired differences x - y of mean penalty on the same decks (negative: x scores less, "
    "better); 95% t-interval over decks both played; * = interval excludes 0."
)
_EXPLAIN_HEAD_TO_HEAD = (
    " Mean diff takes every deal of a deck (each agent against the whole field); head to "
    "head only the deals where x and y sat at one table."
)
_EXPLAIN_RATINGS = RATINGS_EXPLAINED


_EXPLAIN_LUCK = (
    " Luck-corrected: the same difference with each penalty minus the luck of its stock draws "
    "(value function {luck}); width = corrected over raw interval half-width."
)


def _explain_pairs(s: Summary) -> str:
    luck = _EXPLAIN_LUCK.format(luck=s.config.luck) if s.config.luck is not None else ""
    return _EXPLAIN_PAIRS + luck + (_EXPLAIN_HEAD_TO_HEAD if _head_to_head_differs(s) else "")


def _ratio(a: float, b: float) -> str:
    """``a / b`` to two decimals, ``n/a`` when either is missing or ``b`` is 0."""
    if math.isnan(a) or math.isnan(b) or b == 0:
        return "n/a"
    return f"{a / b:.2f}"


def summary_text(s: Summary) -> str:
    """Plain-text tables for the terminal."""
    out = _headline(s) + ["", wrap_cell(_EXPLAIN_AGENTS, 100), text_table(*_agent_table(s))]
    if s.pairs:
        out += ["", wrap_cell(_explain_pairs(s), 100), text_table(*_pair_table(s), group=1)]
    if s.ratings:
        out += ["", wrap_cell(_EXPLAIN_RATINGS, 100), text_table(*_rating_table(s), group=None, left=1)]
    out += [f"note: {n}" for n in s.notes]
    return "\n".join(out)


def summary_markdown(s: Summary) -> str:
    """The same tables in Markdown."""
    out = ["# Tournament summary", ""] + [f"- {line}" for line in _headline(s)]
    out += ["", "## Agents", "", _EXPLAIN_AGENTS, "", markdown_table(*_agent_table(s))]
    if s.pairs:
        out += ["", "## Paired differences", "", _explain_pairs(s), "", markdown_table(*_pair_table(s))]
    if s.ratings:
        out += ["", "## Ratings", "", _EXPLAIN_RATINGS, "", markdown_table(*_rating_table(s))]
    if s.notes:
        out += ["", "## Notes", ""] + [f"- {n}" for n in s.notes]
    return "\n".join(out) + "\n"


def write_summary(s: Summary, out_dir: str | Path, log: Callable[[str], None] | None = None) -> list[Path]:
    """Write summary.md, summary.csv, pairs.csv, summary.json and the PNG plots; returns the paths."""
    report = Report(out_dir)
    report.text("summary.md", s.to_markdown())
    report.csv("summary.csv", [f.name for f in fields(AgentStats)], [asdict(r) for r in s.agents])
    report.csv("pairs.csv", [f.name for f in fields(PairStats)], [asdict(p) for p in s.pairs])
    report.json("summary.json", s.to_dict())
    paths = list(report.paths)
    try:
        paths += plot_summary(s, out_dir)
    except ImportError:
        msg = "matplotlib is not installed: no plots (pip install matplotlib)"
        if msg not in s.notes:
            s.notes.append(msg)
        if log:
            log(f"note: {msg}")
    return paths


def _f(x: float, digits: int, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}"


def plot_summary(summary: Summary, out_dir: str | Path) -> list[Path]:
    """``penalty.png`` (mean penalty per contract per agent, 95% CI bars) and ``paired.png``.

    Raises:
        ImportError: matplotlib is not installed.
    """
    plt = pyplot()
    from carioca_experiments.common.plots import legend_outside

    report = Report(out_dir)
    contracts = [str(c) for c in summary.config.contracts]
    labels = list(summary.config.labels)

    def errorbars(ax: Any, series: list[tuple[str, list[Any]]], getter: Callable[[Any], tuple[float, float, float]]) -> None:
        k = len(series)
        width = 0.7 / max(k, 1)
        for i, (name, rows) in enumerate(series):
            xs, ys, lo, hi = [], [], [], []
            for j, c in enumerate(contracts):
                row = next((r for r in rows if r.contract == c), None)
                if row is None:
                    continue
                m, a, b = getter(row)
                if math.isnan(m):
                    continue
                xs.append(j + (i - (k - 1) / 2) * width)
                ys.append(m)
                lo.append(0.0 if math.isnan(a) else m - a)
                hi.append(0.0 if math.isnan(b) else b - m)
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=name)
        ax.set_xticks(range(len(contracts)))
        ax.set_xticklabels([f"contract {c}" for c in contracts], rotation=0, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        legend_outside(ax)  # beside the axes: never over the data

    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(contracts) + 2), 4))
    errorbars(ax, [(a, [r for r in summary.agents if r.agent == a]) for a in labels],
              lambda r: (r.mean_penalty, r.ci_low, r.ci_high))
    ax.set_ylabel("mean penalty per deal (lower is better)")
    ax.set_title(f"Mean penalty per contract, 95% CI over decks ({summary.config.format}, "
                 f"{summary.config.players} players)", fontsize=10)
    fig.tight_layout()
    report.figure("penalty.png", fig, dpi=110, bbox_inches="tight")

    if summary.pairs:
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(contracts) + 2), 4))
        pairs = list(dict.fromkeys((p.agent_x, p.agent_y) for p in summary.pairs))
        errorbars(ax, [(f"{x} - {y}", [p for p in summary.pairs if (p.agent_x, p.agent_y) == (x, y)]) for x, y in pairs],
                  lambda p: (p.mean_diff, p.ci_low, p.ci_high))
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_ylabel("paired difference of mean penalty\n(negative: first agent better)")
        ax.set_title("Paired differences on the same decks, 95% CI", fontsize=10)
        fig.tight_layout()
        report.figure("paired.png", fig, dpi=110, bbox_inches="tight")
    return report.paths


