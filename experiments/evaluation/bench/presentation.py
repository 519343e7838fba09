"""How ``carioca bench`` shows its result: the text table and the printed report."""

from __future__ import annotations

import statistics
import sys
import textwrap
from typing import Any

from carioca_experiments.evaluation.bench.profiling import print_profile


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "us":
        return f"{value:,.1f} us"
    if unit == "s":
        return f"{value:,.2f} s"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2f}"


def _extra_text(key: str, m: dict[str, Any]) -> str:
    extras = [e for e in m["extra"] if e]
    if not extras:
        return ""
    e0 = extras[0]
    if key.startswith("engine.decisions"):
        games = [e["games_per_s"] for e in extras]
        done = sum(e["games_completed"] for e in extras)
        dpg = [e["decisions_per_game"] for e in extras if e["decisions_per_game"]]
        if not done:
            return f"no game finished in {e0['decisions']:,} decisions"
        return (f"games/s {statistics.median(games):.3g} ({done} games; "
                f"{statistics.mean(dpg):,.0f} decisions/game)")
    if key.startswith("engine.full_game"):
        text = f"{e0['games_completed']} games, {e0['decisions_per_s']:,.0f} decisions/s"
        if e0["lower_bound_s"]:
            text = f"no game finished: >= {e0['lower_bound_s']:.0f} s per game; " + text
        if e0["unfinished"]:
            u = e0["unfinished"]
            text += (f"; unfinished game: {u['seconds']:.0f} s, deal {u['deal_in_progress']} "
                     f"at turn {u['turn_in_progress']:,}")
        return text
    if key.startswith("masks.") and key.endswith("observation"):
        med = {k: statistics.median(e[k] for e in extras) for k in ("view_us", "encode_us", "game_encoder_cold_us")}
        return (f"view {med['view_us']:.1f} + encode {med['encode_us']:.1f} us; env's GameEncoder cold "
                f"{med['game_encoder_cold_us']:.1f} us; {e0['states']} states")
    if key.startswith("masks."):
        return f"{e0['states']} states, worst {max(e['worst_state_us'] for e in extras):,.0f} us, {e0['mean_legal_actions']:.1f} legal"
    if key.startswith("ppo."):
        share = statistics.median(e["rollout_share"] for e in extras)
        return f"rollout {100 * share:.0f}% of time, update {statistics.median(e['update_s'] for e in extras):.2f} s"
    if key.startswith("env.aec"):
        return f"{sum(e['resets'] for e in extras)} resets"
    if key.startswith("ref.") and "all_actions_per_s" in e0:  # OpenSpiel's loop: chance nodes are states too
        return f"states/s {statistics.median(e['all_actions_per_s'] for e in extras):,.0f} (chance nodes too)"
    return ""


def format_table(doc: dict[str, Any]) -> str:
    """The result as a text table: section, metric (with its notes below it), median, min, max, ratio.

    Notes wrap under the metric's label, and the ratios wrap in the room the other columns
    leave in :data:`TABLE_WIDTH` columns (at least :data:`MIN_RATIO_WIDTH`), so the table
    is at most that wide unless labels and figures alone fill it; sections are separated
    by a rule.
    """
    from carioca_experiments.common.tables import text_table, wrap_cell

    ratios: dict[str, list[dict[str, Any]]] = {}
    for r in doc["ratios"]:
        ratios.setdefault(r["ours"], []).append(r)
    label_width = max((len(m["label"]) for m in doc["metrics"].values()), default=20)
    rows = []
    for key, m in doc["metrics"].items():
        ratio_text = "\n".join(f"{r['ratio']:.2f}x {r['against']}" for r in ratios.get(key, []))
        notes = _extra_text(key, m)
        metric = m["label"] + ("\n" + "\n".join("  " + line for line in wrap_cell(notes, label_width - 2).splitlines())
                               if notes else "")
        rows.append([m["section"], metric, _fmt(m["median"], m["unit"]), _fmt(m["min"], m["unit"]),
                     _fmt(m["max"], m["unit"]), ratio_text])
    head = ["section", "metric (notes below)", "median", "min", "max", "ratio"]
    # the figures' width varies from run to run (and with the reference systems installed
    # the labels are longer), so the ratios get what is left rather than a fixed width
    fixed = [max([len(title) + _HEAD_PADDING] + [len(line) for cell in column for line in cell.split("\n")])
             for title, *column in zip(head[:5], *[row[:5] for row in rows])]
    room = max(MIN_RATIO_WIDTH, TABLE_WIDTH - sum(fixed) - _GAP * len(fixed))
    for row in rows:
        row[5] = "\n".join(wrap_cell(line, room) for line in row[5].split("\n")) if row[5] else ""
    return text_table(head, rows, align=["left", "left", "right", "right", "right", "left"])


#: Widest line of the bench table (see :func:`format_table`).
TABLE_WIDTH = 120
#: Narrowest the ratio column is wrapped to.
MIN_RATIO_WIDTH = 12
#: Spaces between two columns of a text table, and the least a column is wider than its
#: title (tabulate's "simple" format and its MIN_PADDING).
_GAP = 2
_HEAD_PADDING = 2


#: Width of the report's prose lines (the table stays about as wide).
_WIDTH = 110


def report(doc: dict[str, Any], file: Any = None) -> None:
    """Print the table, the ratios' reading guide, messages and errors."""
    file = file or sys.stdout
    mc = doc["machine"]
    print(f"carioca bench: seed {doc['seed']}, {doc['repeats']} repeats, sections {' '.join(doc['sections'])}", file=file)
    print(f"Python {mc['python']}, {mc['cpu_count']} CPUs, load {mc['loadavg'] and round(mc['loadavg'][0], 2)}, "
          f"commit {(mc['git_commit'] or '?')[:10]}{'+dirty' if mc['git_dirty'] else ''}", file=file)
    print("Figures are median, min and max over repetitions; ratios are ours / theirs, from the medians.\n",
          file=file)
    print(format_table(doc), file=file)
    if doc["ratios"] or "reference" in doc["sections"]:
        print("\n" + textwrap.fill(
            "References: gin rummy is a different game (one 52-card deck, two players, 10-card hands); "
            "comparisons are like with like: engine decisions/s vs OpenSpiel legal_actions+apply_action, "
            "environment steps/s (observation+mask every step) vs RLCard env.step and vs OpenSpiel with "
            "observation_tensor. OpenSpiel counts player decisions only (chance nodes sampled, not counted).",
            _WIDTH), file=file)
    if doc["ratios"]:
        print("\nRatios (ours / reference; paired per-repetition ratio median [min, max]):", file=file)
        for r in doc["ratios"]:
            paired = ""
            if r["paired_median"] is not None:
                paired = f"  [{r['paired_min']:.2f}, {r['paired_max']:.2f}] paired {r['paired_median']:.2f}"
            print(f"  {r['ours']:<28} / {r['reference']:<28} {r['ratio']:6.2f}x{paired}", file=file)
    notes = [(k, m["note"]) for k, m in doc["metrics"].items() if m["note"]]
    if notes:
        print("\nNotes:", file=file)
        for k, note in notes:
            print(textwrap.fill(f"{k}: {note}", _WIDTH, initial_indent="  ", subsequent_indent="    "), file=file)
    if "engine" in doc["sections"] and doc["sizes"]["full_game_seconds"] <= 0:
        print("  engine.full_game: skipped (quick mode); a random 7-deal game takes minutes "
              "(deal 7 alone can take ~100k+ turns)", file=file)
    for msg in doc["messages"]:
        print(textwrap.fill(f"note: {msg}", _WIDTH, initial_indent="  ", subsequent_indent="    "), file=file)
    for err in doc["errors"]:
        print(f"  ERROR {err['key']}: {err['error']}", file=file)
    if "profile" in doc:
        print_profile(doc["profile"], file=file)
    print(f"\nElapsed {doc['elapsed_s']:.0f} s.", file=file)
