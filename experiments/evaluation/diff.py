"""``carioca diff``: where two agents part on one duplicate deck, and what each weighed there.

A duplicate tournament deals deck ``d`` of contract ``k`` once per lineup, seat by seat
the same cards, so the game where agent A holds seat ``s`` and the game where agent B
holds it start from the same position.  Their moves are the same until one side decides
otherwise; that first differing move is where they part (every earlier move, a stock draw
included, is the same in both games, so the positions are too).  This command reads the
two kept records (``carioca tournament --records 1``, with ``--explain`` for the
explanations), finds that move, prints both explanations there, and the deck's penalty
difference.

Usage::

    carioca diff results/tour --contract 1 --deck 3 --agents heuristic search --seat 0

The pair of games: among the deck's kept records, one with A in seat ``s`` and one with B
there, preferably the lineup that swaps A and B (head to head); without ``--seat`` the
first seat with such a pair.  The deck's difference is A's mean penalty minus B's over
the deck's kept records where both sat (negative: A did better).

Arguments go to a :class:`DiffConfig` (checked when built) and :func:`run_diff` does the
work; :func:`duplicate_diff` is the same on records already read (``carioca serve``'s
diff page), :func:`first_departure` the comparison itself.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from carioca_env import Game, RecordError
from carioca_env.cards import hand_penalty
from carioca_env.explanations import ExplanationError, check_explanations
from carioca_env.records import read_json_file

#: A kept record's file name: the task id ``c{contract}-d{deck}-l{lineup}``.
TASK_FILE = re.compile(r"^c(\d+)-d(\d+)-l(\d+)\.json$")
#: The largest record file read (a record with explanations is tens of kB).
MAX_RECORD_BYTES = 4 * 1024 * 1024


class DiffError(ValueError):
    """The diff cannot be made: no such records, agents or seat (the message says which)."""


@dataclass(frozen=True)
class DiffConfig:
    """What ``carioca diff`` compares.

    Attributes:
        folder: the tournament folder (its kept records are in ``folder/records``).
        contract: the contract of the deck.
        deck: the deck index.
        agents: the two agents' labels, A and B.
        seat: the seat both hold in their game (None: the first seat with a pair).
        as_json: print the diff as JSON instead of text.

    Raises:
        DiffError: a value that cannot name a deck, two agents or a seat.
    """

    folder: Path
    contract: int
    deck: int
    agents: tuple[str, str]
    seat: int | None = None
    as_json: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.contract <= 7:
            raise DiffError(f"--contract must be 1..7, got {self.contract}")
        if self.deck < 0:
            raise DiffError(f"--deck must be 0 or more, got {self.deck}")
        if len(self.agents) != 2 or self.agents[0] == self.agents[1]:
            raise DiffError(f"--agents names two different agents' labels, got {list(self.agents)}")
        if self.seat is not None and not 0 <= self.seat <= 3:
            raise DiffError(f"--seat must be 0..3, got {self.seat}")


@dataclass
class Diff:
    """Two games of one deck with agents A and B in the same seat, and where they part.

    Attributes:
        contract, deck, seat: the deck and the seat compared.
        agents: the labels of A and B.
        tasks: the task ids of A's game and B's game.
        moves: each game's moves in notation.
        actors: the seat that made each move, in A's game and in B's (the same up to ``first``).
        first: the index (0-based) of the first move that differs, ``None`` if the games
            are the same throughout.
        explanations: each game's explanation of its move at ``first`` (a dict, or None
            when the record keeps none there).
        penalties: the seat's penalty in A's game and in B's.
        deck_diff: A's mean penalty minus B's over the deck's kept records where both sat.
        deck_games: how many records that mean is over.
    """

    contract: int
    deck: int
    seat: int
    agents: tuple[str, str]
    tasks: tuple[str, str]
    moves: tuple[list[str], list[str]]
    actors: tuple[list[int], list[int]]
    first: int | None
    explanations: tuple[dict[str, Any] | None, dict[str, Any] | None]
    penalties: tuple[int, int]
    deck_diff: float
    deck_games: int
    names: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))

    @property
    def seat_diff(self) -> int:
        """The seat's penalty with A minus with B (negative: A did better)."""
        return self.penalties[0] - self.penalties[1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``carioca diff --json``, the diff page)."""
        return {"contract": self.contract, "deck": self.deck, "seat": self.seat, "agents": list(self.agents),
                "tasks": list(self.tasks), "first": self.first,
                "actor": self.actors[0][self.first] if self.first is not None and self.first < len(self.actors[0])
                else None,
                "moves": [list(m) for m in self.moves], "actors": [list(a) for a in self.actors],
                "explanations": list(self.explanations), "penalties": list(self.penalties),
                "seat_diff": self.seat_diff, "deck_diff": self.deck_diff, "deck_games": self.deck_games,
                "names": [list(n) for n in self.names]}

    def to_text(self) -> str:
        """The diff as the command prints it."""
        a, b = self.agents
        lines = [f"contract {self.contract}, deck {self.deck}, seat {self.seat}: {a} ({self.tasks[0]}) "
                 f"vs {b} ({self.tasks[1]})"]
        if self.first is None:
            lines.append(f"the two games are the same move for move ({len(self.moves[0])} moves)")
        else:
            k = self.first
            actor = self.actors[0][k] if k < len(self.actors[0]) else self.actors[1][k]
            who = [self.names[0][actor] if self.names[0] else f"seat {actor}",
                   self.names[1][actor] if self.names[1] else f"seat {actor}"]
            lines.append(f"the same for {k} moves; they part at move {k + 1}, seat {actor}'s decision:")
            for side in (0, 1):
                mv = self.moves[side][k] if k < len(self.moves[side]) else "(the game had ended)"
                lines.append(f"  {self.agents[side]}'s game: {who[side]} plays {mv}")
                lines += ["    " + row for row in explanation_lines(self.explanations[side])]
        lines.append(f"seat {self.seat}'s penalty: {a} {self.penalties[0]}, {b} {self.penalties[1]} "
                     f"(difference {self.seat_diff:+d})")
        lines.append(f"deck {self.deck}: {a}'s mean penalty minus {b}'s over {self.deck_games} games where both sat: "
                     f"{self.deck_diff:+.1f}")
        return "\n".join(lines)


def explanation_lines(exp: Mapping[str, Any] | None) -> list[str]:
    """An explanation as indented text rows (candidates with scores, the move played marked)."""
    if exp is None:
        return ["(no explanation kept: run the tournament with --records 1 --explain)"]
    rows = [f"{exp['agent']} weighed ({exp['meaning']}; {exp['better']} is better):"]
    for i, c in enumerate(exp["candidates"]):
        mark = "->" if i == exp.get("chosen") else "  "
        extra = f" \u00b1 {c['se']:g} (n={c['n']})" if "se" in c else ""
        note = f"  {c['note']}" if c.get("note") else ""
        rows.append(f"{mark} {c['move']:<28} {c['score']:>9.3f}{extra}{note}")
    if exp.get("omitted"):
        rows.append(f"   ... {exp['omitted']} more")
    if exp.get("note"):
        rows.append(f"   {exp['note']}")
    return rows


def first_departure(a: Sequence[str], b: Sequence[str]) -> int | None:
    """The index of the first move that differs between two move lists, ``None`` if they
    are the same (a list that ends early parts where it ends)."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def seat_labels(record: Mapping[str, Any]) -> list[str]:
    """The agents' labels by seat of a tournament record (``agents``: ``label (spec)``).

    Raises:
        DiffError: the record names no agents.
    """
    agents = record.get("agents")
    if not isinstance(agents, list) or not all(isinstance(x, str) for x in agents):
        raise DiffError("a record without its agents' names cannot be compared (a tournament record names them)")
    return [x.partition(" (")[0] for x in agents]


def final_penalties(game: Game) -> list[int]:
    """Each seat's penalty of a one-deal game: its scores, or the cards in hand (cut off)."""
    closed = [r for r in game.deal_results if not r.cancelled]
    return list(closed[-1].scores) if closed else [hand_penalty(game.hands[s]) for s in range(game.num_players)]


def _actors(record: Mapping[str, Any]) -> tuple[list[int], list[int]]:
    """Who made each move of a record, and each seat's final penalty (the record replayed, checked)."""
    game, moves = Game.start_of_record(dict(record))
    actors = []
    for i, text in enumerate(moves):
        actors.append(game.current_player)
        try:
            game.push(text)
        except Exception as exc:  # a CariocaError or a bad notation: the record is corrupt
            raise RecordError(f"move {i + 1} {text!r} does not replay: {exc}") from None
    game.check_record_results(dict(record))
    return actors, final_penalties(game)


def duplicate_diff(records: Mapping[str, Mapping[str, Any]], contract: int, deck: int, agents: tuple[str, str],
                   seat: int | None = None) -> Diff:
    """The diff of agents A and B on deck ``deck`` of ``contract`` from kept records
    (task id -> record; records of other decks are ignored).

    Raises:
        DiffError: no pair of records with A and B in the seat (the message lists what is there).
        RecordError: a record that does not replay.
    """
    a, b = agents
    mine = {tid: rec for tid, rec in records.items() if _task_of(tid)[:2] == (contract, deck)}
    if not mine:
        raise DiffError(f"no kept record of contract {contract}, deck {deck} (the tournament keeps records with "
                        f"--records N; --records 1 keeps every deal)")
    labels = {tid: seat_labels(rec) for tid, rec in sorted(mine.items(), key=lambda x: _task_of(x[0]))}
    seen = sorted({x for ls in labels.values() for x in ls})
    for name in (a, b):
        if name not in seen:
            raise DiffError(f"no kept record of contract {contract}, deck {deck} seats {name!r}; its agents: "
                            f"{', '.join(seen)}")
    players = len(next(iter(labels.values())))
    seats = [seat] if seat is not None else list(range(players))
    if seat is not None and seat >= players:
        raise DiffError(f"--seat must be 0..{players - 1} at this {players}-player table, got {seat}")
    pair = None
    for s in seats:
        pair = _pair(labels, s, a, b)
        if pair is not None:
            seat = s
            break
    if pair is None or seat is None:
        where = f"seat {seats[0]}" if len(seats) == 1 else "any seat"
        raise DiffError(f"contract {contract}, deck {deck}: no two kept records with {a} and {b} in {where} "
                        f"(keep every deal with --records 1)")
    ta, tb = pair
    actors_a, pen_a = _actors(mine[ta])
    actors_b, pen_b = _actors(mine[tb])
    moves = (list(mine[ta]["moves"]), list(mine[tb]["moves"]))
    first = first_departure(*moves)
    exps = (_explanation_at(mine[ta], first), _explanation_at(mine[tb], first))
    # the deck's difference: A's mean minus B's over the records where both sat
    sums = {a: [0, 0], b: [0, 0]}
    games = 0
    for tid, ls in labels.items():
        if a in ls and b in ls:
            games += 1
            pens = pen_a if tid == ta else pen_b if tid == tb else _actors(mine[tid])[1]
            for name in (a, b):
                for s, x in enumerate(ls):
                    if x == name:
                        sums[name][0] += pens[s]
                        sums[name][1] += 1
    deck_diff = sums[a][0] / sums[a][1] - sums[b][0] / sums[b][1]
    names = ([str(x) for x in mine[ta]["agents"]], [str(x) for x in mine[tb]["agents"]])
    return Diff(contract, deck, seat, (a, b), (ta, tb), moves, (actors_a, actors_b), first, exps, (pen_a[seat], pen_b[seat]),
                deck_diff, games, names)


def _task_of(task_id: str) -> tuple[int, int, int]:
    m = TASK_FILE.match(task_id + ".json")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else (-1, -1, -1)


def _pair(labels: Mapping[str, list[str]], seat: int, a: str, b: str) -> tuple[str, str] | None:
    """Task ids of a game with A in ``seat`` and one with B there: the lineup that swaps
    A and B if kept, else one with the same other seats, else any."""
    with_a = [t for t, ls in labels.items() if ls[seat] == a]
    with_b = [t for t, ls in labels.items() if ls[seat] == b]

    def swapped(ls: list[str]) -> list[str]:
        return [b if x == a else a if x == b else x for x in ls]

    for rule in (lambda x, y: labels[y] == swapped(labels[x]),
                 lambda x, y: [z for i, z in enumerate(labels[x]) if i != seat]
                 == [z for i, z in enumerate(labels[y]) if i != seat],
                 lambda x, y: True):
        for ta in with_a:
            for tb in with_b:
                if rule(ta, tb):
                    return ta, tb
    return None


def _explanation_at(record: Mapping[str, Any], index: int | None) -> dict[str, Any] | None:
    """The record's explanation of move ``index`` (checked), or None."""
    if index is None or index >= len(record["moves"]):
        return None
    try:
        exps = check_explanations(dict(record), record["moves"])
    except ExplanationError as exc:
        raise RecordError(str(exc)) from None
    found = exps[index] if exps is not None else None
    return None if found is None else found.to_dict()


def read_deck_records(folder: Path, contract: int, deck: int) -> dict[str, dict[str, Any]]:
    """The kept records of one deck in a tournament folder (task id -> record), read bounded.

    Raises:
        DiffError: the folder has no kept records.
        RecordError: a record file that cannot be read.
    """
    where = folder / "records"
    if not where.is_dir():
        raise DiffError(f"{folder} has no kept records ({where} is missing: run the tournament with --records 1 "
                        f"--explain)")
    out = {}
    for path in sorted(where.glob(f"c{contract}-d{deck}-l*.json")):
        if TASK_FILE.match(path.name):
            out[path.stem] = read_json_file(path, max_bytes=MAX_RECORD_BYTES, what="a game record")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca diff``."""
    parser.add_argument("folder", type=Path, help="a tournament folder with kept records (--records 1 --explain)")
    parser.add_argument("--contract", type=int, required=True, help="the contract of the deck")
    parser.add_argument("--deck", type=int, required=True, help="the deck index (0 is the first)")
    parser.add_argument("--agents", nargs=2, required=True, metavar=("A", "B"), help="the two agents' labels")
    parser.add_argument("--seat", type=int, default=None, help="the seat both hold (default: the first with a pair)")
    parser.add_argument("--json", action="store_true", help="print the diff as JSON")


def config_from_args(args: argparse.Namespace) -> DiffConfig:
    """The diff's config from the options (checked)."""
    return DiffConfig(args.folder, args.contract, args.deck, tuple(args.agents), args.seat, args.json)


def run_diff(config: DiffConfig) -> Diff:
    """Read the deck's kept records and make the diff.

    Raises:
        DiffError: no such folder, records, agents or seat.
        RecordError: a record that cannot be read or does not replay.
    """
    if not config.folder.is_dir():
        raise DiffError(f"{config.folder} is not a folder (give a tournament's --out folder)")
    records = read_deck_records(config.folder, config.contract, config.deck)
    return duplicate_diff(records, config.contract, config.deck, config.agents, config.seat)


def run(args: argparse.Namespace) -> int:
    """``carioca diff``: print where the two agents part on the deck."""
    config = config_from_args(args)
    diff = run_diff(config)
    print(json.dumps(diff.to_dict()) if config.as_json else diff.to_text())
    return 0
