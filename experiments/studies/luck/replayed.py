"""Tables of tournaments played with ``--luck-correction``: raw and corrected side by side.

Usage::

    python -m carioca_experiments.studies.luck.replayed mates --agent learned --baseline heuristic DIR [DIR ...]
    python -m carioca_experiments.studies.luck.replayed replace --agent s SEARCH_DIR:HEURISTIC_DIR [...]
    python -m carioca_experiments.studies.luck.replayed versus --agent cheat --other uniform --baseline heuristic \
        CHEAT_DIR:UNIFORM_DIR [...]
    python -m carioca_experiments.studies.luck.replayed reluck --luck FINGERPRINT DIR OUT

``mates``: the agent minus its table-mates of the baseline (``heuristic``, or the seats
``heuristic1``, ``heuristic2``, ... averaged), per deck over the deals where they sat
together, as the final tournament of the learned set reports it
(:func:`carioca_experiments.evaluation.tournament.summary.table_mate_rows`).  The folders are tournaments of
the same agents (several seeds pool their decks); one row per contract.

``replace``: what replacing one seat of a table by the agent changes.  Each pair of
folders is one tournament with the agent in one seat among others, rotated through every
seat (``--agents s=search heuristic1=heuristic ...``), and one of the same seed with the
other agent in every seat (``--agents heuristic``, one lineup): a tournament deals its
decks and seeds its agents by seat, deck and contract, so the two deal the same cards
(checked: same hands and dealer) and seat the same table-mates.  Per deck, the agent's
penalty in each seat minus the penalty of that seat at the all-baseline table, averaged
over the seats.

``versus``: two agents' differences against the same baseline, deck by deck.  Each pair
of folders is two tournaments of the same seed, ``--agent`` against the baseline in the
first and ``--other`` against it in the second (checked: same hands and dealer); per
deck, the first's ``mates`` difference minus the second's (negative: the first agent
pays less against the baseline than the other does).

``reluck``: the same tournament corrected by another shipped value function, without
playing it again.  A tournament run with ``--luck-correction --records 1`` keeps every
deal's game record; each is replayed move by move (checked against its result line: the
same hands, dealer and penalties) with a tracker of the value function asked for, and
``OUT/results.jsonl`` gets the same lines with that function's luck, so that tournaments
first corrected by different versions can be tabulated together.  Not to version 4 or
later: their action terms need the agents' declared random choices, which a record does
not hold.

Each row: decks, the raw difference and its 95% t-interval, the same with every penalty
minus its luck, and the ratio of the corrected to the raw interval half-width.  Decks
whose tournament is unfinished (some of their lineups missing) are left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from carioca_experiments.common.stats import paired_difference


class ReplayError(ValueError):
    """Results that cannot be compared as asked (other decks, other value functions, no luck)."""


def _read(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A tournament's header and its deals of complete decks (every lineup played)."""
    lines = [json.loads(x) for x in (Path(folder) / "results.jsonl").read_text().splitlines() if x.strip()]
    header, deals = lines[0], lines[1:]
    if header["config"].get("luck") is None or any("luck" not in d for d in deals):
        raise ReplayError(f"{folder}: not played with --luck-correction")
    per_deck: dict[tuple[int, int], int] = defaultdict(int)
    for d in deals:
        per_deck[(d["contract"], d["deck"])] += 1
    lineups = len(header["lineups"])
    return header, [d for d in deals if per_deck[(d["contract"], d["deck"])] == lineups]


def _row(contract: int, decks: int, raw: tuple[float, float, float], corrected: tuple[float, float, float],
         luck: str) -> dict[str, Any]:
    """One table row from the raw and the corrected (mean, low, high)."""
    half, chalf = (raw[2] - raw[1]) / 2, (corrected[2] - corrected[1]) / 2
    return {"contract": contract, "decks": decks, "diff": raw[0], "low": raw[1], "high": raw[2], "half": half,
            "corrected_diff": corrected[0], "corrected_low": corrected[1], "corrected_high": corrected[2],
            "corrected_half": chalf, "ratio": chalf / half if half else float("nan"), "luck": luck}


def mates(folders: Sequence[Path], agent: str, baseline: str) -> list[dict[str, Any]]:
    """Per contract: ``agent`` minus its ``baseline`` table-mates, raw and corrected, over
    the complete decks of ``folders`` pooled (see the module docstring)."""
    from carioca_experiments.evaluation.tournament.summary import table_mate_rows

    rows = []
    for r in table_mate_rows([_read(f) for f in folders], [agent], (baseline,)):
        rows.append(_row(r["contract"], r["decks"], (r["diff"], r["low"], r["high"]),
                         (r["corrected_diff"], r["corrected_low"], r["corrected_high"]), r["luck"]))
    return sorted(rows, key=lambda r: r["contract"])


def versus(pairs: Sequence[tuple[Path, Path]], agent: str, other: str, baseline: str) -> list[dict[str, Any]]:
    """Per contract: ``agent``'s difference against its ``baseline`` table-mates minus
    ``other``'s, deck by deck, raw and corrected, over the complete decks of all ``pairs``
    (``(agent's tournament, other's tournament)``, each of the same seed; see the module
    docstring).

    Raises:
        ReplayError: a pair's tournaments have different seeds, decks or value functions.
    """
    from carioca_experiments.evaluation.tournament.summary import table_mate_decks

    lucks = set()
    first: dict[int, dict[tuple[int, int], tuple[float, float | None]]] = defaultdict(dict)
    second: dict[int, dict[tuple[int, int], tuple[float, float | None]]] = defaultdict(dict)
    for i, (a, b) in enumerate(pairs):
        ha, da = _read(a)
        hb, db = _read(b)
        for key in ("seed", "players", "luck", "max_turns"):
            if ha["config"].get(key) != hb["config"].get(key):
                raise ReplayError(f"{a} and {b} differ in {key}: {ha['config'].get(key)!r} and {hb['config'].get(key)!r}")
        lucks.add(ha["config"]["luck"])
        dealt = {(d["contract"], d["deck"]): (d["hands"], d["dealer"]) for d in da}
        for d in db:
            if dealt.get((d["contract"], d["deck"]), (d["hands"], d["dealer"])) != (d["hands"], d["dealer"]):
                raise ReplayError(f"{a} and {b} dealt contract {d['contract']} deck {d['deck']} differently")
        for k in sorted({d["contract"] for d in da} & {d["contract"] for d in db}):
            for deck, v in table_mate_decks(da, agent, baseline, k).items():
                first[k][(i, deck)] = v
            for deck, v in table_mate_decks(db, other, baseline, k).items():
                second[k][(i, deck)] = v
    (luck,) = lucks or {""}
    rows = []
    for k in sorted(first):
        def part(values: dict[tuple[int, int], tuple[float, float | None]], j: int) -> dict[tuple[int, int], float]:
            out = {}
            for u, v in values.items():
                x = v[j]
                if x is not None:
                    out[u] = x
            return out

        r = paired_difference(part(first[k], 0), part(second[k], 0))
        c = paired_difference(part(first[k], 1), part(second[k], 1))
        if r.n:
            rows.append(_row(k, r.n, (r.mean, r.low, r.high), (c.mean, c.low, c.high), luck))
    return rows


def replace(pairs: Sequence[tuple[Path, Path]], agent: str) -> list[dict[str, Any]]:
    """Per contract: ``agent`` in a seat minus that seat at the all-baseline table of the
    same deck, averaged over its seats, raw and corrected, over the complete decks of all
    ``pairs`` (``(agent's tournament, baseline-only tournament)``; see the module docstring).

    Raises:
        ReplayError: a pair's tournaments have different seeds, decks or value functions.
    """
    lucks = set()
    raw: dict[int, dict[tuple[int, int], float]] = defaultdict(dict)
    cor: dict[int, dict[tuple[int, int], float]] = defaultdict(dict)
    base_raw: dict[int, dict[tuple[int, int], float]] = defaultdict(dict)
    base_cor: dict[int, dict[tuple[int, int], float]] = defaultdict(dict)
    for i, (with_agent, alone) in enumerate(pairs):
        ha, da = _read(with_agent)
        hb, db = _read(alone)
        for key in ("seed", "players", "luck", "max_turns"):
            if ha["config"].get(key) != hb["config"].get(key):
                raise ReplayError(f"{with_agent} and {alone} differ in {key}: {ha['config'].get(key)!r} and "
                                  f"{hb['config'].get(key)!r}")
        lucks.add(ha["config"]["luck"])
        table = {(d["contract"], d["deck"]): d for d in db}
        seats: dict[tuple[int, int], list[tuple[float, float, float, float]]] = defaultdict(list)
        for d in da:
            b = table.get((d["contract"], d["deck"]))
            if b is None:
                continue  # that deck of the baseline table is not finished
            if b["hands"] != d["hands"] or b["dealer"] != d["dealer"]:
                raise ReplayError(f"{with_agent} and {alone} dealt contract {d['contract']} deck {d['deck']} "
                                  "differently")
            for s, who in enumerate(d["seats"]):
                if who == agent:
                    seats[(d["contract"], d["deck"])].append(
                        (d["penalty"][s], d["penalty"][s] - d["luck"][s], b["penalty"][s], b["penalty"][s] - b["luck"][s]))
        for (k, deck), vals in seats.items():
            n = len(vals)
            raw[k][(i, deck)] = sum(v[0] for v in vals) / n
            cor[k][(i, deck)] = sum(v[1] for v in vals) / n
            base_raw[k][(i, deck)] = sum(v[2] for v in vals) / n
            base_cor[k][(i, deck)] = sum(v[3] for v in vals) / n
    if len(lucks) > 1:
        raise ReplayError(f"the tournaments were corrected by different value functions: {sorted(lucks)}")
    (luck,) = lucks or {""}
    rows = []
    for k in sorted(raw):
        r, c = paired_difference(raw[k], base_raw[k]), paired_difference(cor[k], base_cor[k])
        rows.append(_row(k, r.n, (r.mean, r.low, r.high), (c.mean, c.low, c.high), luck))
    return rows


def reluck(folder: Path, out: Path, fingerprint: str) -> int:
    """Write ``out/results.jsonl``: ``folder``'s results with every deal's luck recomputed
    by the shipped value function ``fingerprint``, from the deal's game record in
    ``folder/records`` (see the module docstring).  Returns the number of deals.

    Everything is read and checked before anything is written.

    Raises:
        ReplayError: no such value function, ``out`` already holds results, a deal without
            its record, or a record that does not replay to its result line.
        OSError: a file cannot be read or written.
    """
    from carioca_env import CariocaError, Game, RecordError, cards_str, parse_move
    from carioca_env.records import read_record
    from carioca_experiments.common.files import write_file
    from carioca_experiments.evaluation.luck import LuckTracker, ValueFileError, value_by_fingerprint
    from carioca_experiments.evaluation.tournament.play import deal_penalties

    try:
        value = value_by_fingerprint(fingerprint)
    except ValueFileError as exc:
        raise ReplayError(str(exc)) from None
    if hasattr(value, "action_values"):
        raise ReplayError(f"{fingerprint} values the agents' declared random choices (action terms), which game "
                          "records do not hold: play the tournament again with it")
    if (Path(out) / "results.jsonl").exists():
        raise ReplayError(f"{out} already holds results: give a new folder")
    lines = [json.loads(x) for x in (Path(folder) / "results.jsonl").read_text().splitlines() if x.strip()]
    header, deals = lines[0], lines[1:]
    if header["config"].get("luck") is None:
        raise ReplayError(f"{folder}: not played with --luck-correction")
    players = header["config"]["players"]
    redone = []
    for d in deals:
        path = Path(folder) / "records" / f"{d['task']}.json"
        if not path.is_file():
            raise ReplayError(f"{folder}: deal {d['task']} has no game record (play it with --records 1)")
        try:
            game, moves = Game.start_of_record(read_record(path))
            hands = [cards_str(game.hand(s)) for s in range(players)]
            if hands != d["hands"] or game.dealer != d["dealer"]:
                raise ReplayError(f"{path} is not the deal of its result line (other hands or dealer)")
            tracker = LuckTracker(value, players)
            for text in moves:
                move = parse_move(text)
                tracker.before(game, move)
                game.apply(move)
                tracker.after(game)
        except (CariocaError, RecordError) as exc:
            raise ReplayError(f"{path} does not replay: {exc}") from None
        penalty = deal_penalties(game)  # a deal cut off at --max-turns: the cards in hand (R17)
        if penalty != d["penalty"]:
            raise ReplayError(f"{path} replays to penalties {penalty}, its result line says {d['penalty']}")
        redone.append({**d, "luck": [float(c) for c in tracker.corrections], "luck_draws": tracker.draws})
    head = {**header, "config": {**header["config"], "luck": value.fingerprint},
            "luck_recomputed_from": header["config"]["luck"]}
    write_file(Path(out) / "results.jsonl", "".join(json.dumps(x) + "\n" for x in [head, *redone]))
    return len(redone)


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a markdown table (``*``: the 95% interval excludes 0)."""
    def cell(m: float, lo: float, hi: float) -> str:
        star = "*" if lo > 0 or hi < 0 else ""
        return f"{m:+.1f} [{lo:+.1f}, {hi:+.1f}]{star}"

    lines = ["| contract | decks | raw | luck-corrected | width ratio |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['contract']} | {r['decks']} | {cell(r['diff'], r['low'], r['high'])} | "
                     f"{cell(r['corrected_diff'], r['corrected_low'], r['corrected_high'])} | {r['ratio']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.luck.replayed",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    m = sub.add_parser("mates", help="an agent against the mean of its baseline table-mates")
    m.add_argument("--agent", required=True)
    m.add_argument("--baseline", required=True)
    m.add_argument("folders", nargs="+", type=Path)
    r = sub.add_parser("replace", help="an agent in one seat against the all-baseline table of the same decks")
    r.add_argument("--agent", required=True)
    r.add_argument("pairs", nargs="+", metavar="AGENT_DIR:BASELINE_DIR")
    v = sub.add_parser("versus", help="two agents' differences against the same baseline, on the same decks")
    v.add_argument("--agent", required=True)
    v.add_argument("--other", required=True)
    v.add_argument("--baseline", required=True)
    v.add_argument("pairs", nargs="+", metavar="AGENT_DIR:OTHER_DIR")
    x = sub.add_parser("reluck", help="a tournament's luck recomputed from its game records by another value function")
    x.add_argument("--luck", required=True, metavar="FINGERPRINT", help="a shipped value function's fingerprint")
    x.add_argument("folder", type=Path, help="a tournament played with --luck-correction --records 1")
    x.add_argument("out", type=Path, help="a new folder for the recomputed results.jsonl")
    args = parser.parse_args(argv)
    try:
        if args.what == "reluck":
            n = reluck(args.folder, args.out, args.luck)
            print(f"{n} deals of {args.folder} corrected by {args.luck}: {args.out / 'results.jsonl'}")
            return 0
        if args.what == "mates":
            rows = mates(args.folders, args.agent, args.baseline)
        else:
            pairs = []
            for p in args.pairs:
                a, sep, b = p.partition(":")
                if not sep or not a or not b:
                    parser.error(f"{p!r}: give {'AGENT_DIR:BASELINE_DIR' if args.what == 'replace' else 'AGENT_DIR:OTHER_DIR'}")
                pairs.append((Path(a), Path(b)))
            if args.what == "replace":
                rows = replace(pairs, args.agent)
            else:
                rows = versus(pairs, args.agent, args.other, args.baseline)
    except (OSError, ReplayError, KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table(rows), end="")
    if rows:
        print(f"\n(value function {rows[0]['luck']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
