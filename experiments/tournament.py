"""``carioca tournament``: a duplicate tournament between agents, deal by deal.

Usage::

    carioca tournament --agents random greedy heuristic --players 3 --deals 20
    carioca tournament --preset demo          # the built-in agents, all seven contracts
    carioca tournament --quick --agents a=random b=random   # a smoke run
    carioca tournament --report results/tournament-...      # re-summarize a folder

or from Python::

    from experiments.tournament import TournamentConfig, run_tournament
    summary = run_tournament(TournamentConfig(agents=("random", "greedy"), decks=2),
                             "results/eval", workers=2)
    print(summary.to_text()); summary.mean_penalty("greedy", contract=3)

Agents
    Each agent is a spec for :func:`agents.registry.make_agent` (``random``,
    ``ppo:models/c3.zip``), optionally labelled ``LABEL=SPEC`` (``a=random b=random``
    plays two copies of one spec as two agents).  Labels must be distinct; a bare spec is
    its own label.

Unit of play
    One deal of one contract: ``Game.from_deck(deck, dealer, GameConfig(players, (k,)),
    game_seed)``.  Every seed comes from the tournament seed through :func:`derive_seed`
    (a hash of the seed, a purpose, the contract, the deck index ...), never from global
    random state: deck ``d`` of contract ``k`` is ``full_deck()`` shuffled by
    ``random.Random(derive_seed(seed, "deck", k, d))``, which also draws the dealer; the
    game's own generator (stock recycling, R13 redeals) is seeded by
    ``derive_seed(seed, "game", k, d)``; each seated agent is built and ``reset`` with
    ``derive_seed(seed, "agent", k, d, lineup, seat)``.  A task is therefore fully
    determined by the config and its id, and results do not depend on ``--workers``.

    Agents act through ``agent.act(game.view(seat), game.legal_moves())``.  A deal ends
    when the engine scores it (the closer scores 0, R14).  A deal cancelled for an empty
    stock (R13) is dealt again by the engine; it is only counted (``cancelled``).  A deal
    that reaches ``max_turns`` completed turns (all attempts counted) is **truncated**
    (R17): it is cut at a turn boundary and each seat scores the penalty of the cards in
    its hand at that point.  Truncated deals are included in every statistic, flagged in
    the results and counted prominently in the summary; raise ``--max-turns`` if many are.

Lineups (who sits where) for ``A`` agents at ``n`` seats, per dealt deck
    ``duplicate`` (default): the deck is replayed once per lineup, with the same dealer,
    so seat ``s`` receives the same cards in every lineup and only the agents move.

    - ``A == n``: the ``n`` cyclic rotations; in rotation ``r`` seat ``s`` holds agent
      ``(s + r) mod n``.
    - ``A < n``: the seats are filled cyclically from the agent list (seat ``s`` holds
      agent ``s mod A``, so some agents sit twice) and that seating is rotated as above;
      identical seatings are played once (``a b a b`` has 2 distinct rotations, not 4).
    - ``A > n``: every combination of ``n`` distinct agents (in list order), each with
      its ``n`` rotations.

    In every case each agent plays every seat of the deck (so every seat's hand)
    equally often within its lineups.  ``random``: one lineup per deck, drawn uniformly
    from the duplicate lineups with ``derive_seed(seed, "seating", k, d)``.

Tasks
    One per (contract, deck, lineup), ordered by contract (in ``--contracts`` order),
    deck, lineup; the task id is ``c{contract}-d{deck}-l{lineup}`` and ``index`` its
    position.  With ``--workers`` > 1 tasks run in a spawn-context process pool; results
    are written in task order whatever the number of workers.

Results file ``results.jsonl`` (in ``--out``)
    Line 1, the header: ``{"format": "carioca-tournament-results", "version": 1,
    "config": {agents, players, contracts, decks, seed, format, max_turns}, "lineups":
    [[agent labels per seat], ...], "tasks": N, "created": ISO time}``.  Then one line per
    played deal, appended and flushed as soon as it is known (no timing in it)::

        {"task": "c1-d0-l1", "index": 1, "contract": 1, "deck": 0, "lineup": 1,
         "rotation": 1, "seats": ["b", "a"], "dealer": 0, "closer": 1,
         "penalty": [57, 0], "turns": 38, "truncated": false, "cancelled": 0,
         "opened": [false, true], "open_turn": [null, 17],
         "hands": ["2S 5S ...", "AH 3H ..."]}

    ``seats[s]`` is the label of the agent in seat ``s``; ``closer`` is a seat or
    ``null`` (truncated); ``turns`` counts completed turns of all attempts of the deal;
    ``open_turn[s]`` is the seat's own turn number (1 = its first turn) on which it laid
    its contract, ``null`` if it did not; ``hands`` are the initial hands (card notation).

Resuming and safety
    Re-running the same command on the same folder plays only the tasks whose ids are not
    in the file yet, so an interrupted tournament loses nothing (``--report DIR``
    summarizes what is there without playing).  A results file is refused, with a message
    that says what is wrong and what to do, when its first line is not this format's
    header, its version differs, its config differs from the command's (the message lists
    the differences), a complete line is not valid JSON or not a result of this
    tournament, or two lines disagree about one task.  A last line without its newline is
    what a killed process leaves: it is dropped (the file is cut back to the last complete
    line, and a note is printed) and that deal is replayed - since every task is
    deterministic, nothing changes.  ``--overwrite`` deletes an old results file first.
    While a tournament writes, the file is locked, so two runs cannot mix their lines.

Summary (printed, and ``summary.md``, ``summary.csv``, ``pairs.csv``, ``summary.json``,
``penalty.png``, ``paired.png`` in the folder); see :func:`summarize` for the definitions.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import hashlib
import io
import itertools
import json
import math
import multiprocessing
import os
import random
import re
import sys
import time
import traceback
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from experiments.progress import progress_bar
from experiments.ratings import RATINGS_EXPLAINED, Rating, fit_ratings, rating_table
from experiments.stats import MeanCI, format_interval, paired_difference, penalty_ci, win_shares
from experiments.tables import markdown_table, text_table, wrap_cell

FORMAT_NAME = "carioca-tournament-results"
FORMAT_VERSION = 1
RESULTS_FILE = "results.jsonl"
ALL_CONTRACTS = (1, 2, 3, 4, 5, 6, 7)
FORMATS = ("duplicate", "random")

#: Agents of the demo preset, in this order, as far as they are registered.
BUILTIN_AGENTS = ("random", "greedy", "heuristic")

#: Named option sets; explicit options override them.
PRESETS: dict[str, dict[str, Any]] = {
    # The README's main command: the built-in agents over all seven contracts, a few
    # minutes on 2 cores.
    "demo": {"agents": None, "players": 3, "contracts": ALL_CONTRACTS, "decks": 40, "max_turns": 1000},
    # A smoke test in seconds.
    "quick": {"agents": None, "players": 2, "contracts": (1, 2), "decks": 2, "max_turns": 300},
}

_HEADER_START = ('{"format": "' + FORMAT_NAME + '"').encode()
_LABEL_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_RESULT_KEYS = (
    "task", "index", "contract", "deck", "lineup", "rotation", "seats", "dealer", "closer",
    "penalty", "turns", "truncated", "cancelled", "opened", "open_turn", "hands",
)


class TournamentError(Exception):
    """A tournament that cannot run, or a results folder it cannot use (the message says what to do)."""


# =========================================================================== config


def parse_agent(entry: str) -> tuple[str, str]:
    """``"LABEL=SPEC"`` or ``"SPEC"`` -> ``(label, spec)`` (a bare spec is its own label)."""
    label, sep, spec = entry.partition("=")
    if sep and _LABEL_RE.match(label) and spec:
        return label, spec
    return entry, entry


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that determines a tournament's results (not how fast it runs).

    Attributes:
        agents: agent entries, ``SPEC`` or ``LABEL=SPEC`` (see the module docstring).
        players: seats per table, 2-4.
        contracts: the contracts played, each as one-deal games.
        decks: distinct dealt decks per contract (``--deals``).
        seed: the tournament seed; every other seed derives from it.
        format: ``"duplicate"`` (every lineup on every deck) or ``"random"`` (one random
            lineup per deck).
        max_turns: completed turns after which a deal is truncated (R17).
    """

    agents: tuple[str, ...]
    players: int = 2
    contracts: tuple[int, ...] = ALL_CONTRACTS
    decks: int = 10
    seed: int = 0
    format: str = "duplicate"
    max_turns: int = 2000

    def __post_init__(self) -> None:
        if isinstance(self.agents, str):
            object.__setattr__(self, "agents", (self.agents,))
        object.__setattr__(self, "agents", tuple(str(a) for a in self.agents))
        object.__setattr__(self, "contracts", tuple(int(c) for c in self.contracts))
        if not self.agents:
            raise TournamentError("a tournament needs at least one agent (--agents SPEC [SPEC ...])")
        labels = self.labels
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise TournamentError(
                f"agent labels must be distinct, {', '.join(dupes)} appears twice; to play copies "
                f"of one spec as separate agents label them, e.g. --agents a=random b=random"
            )
        if not isinstance(self.players, int) or not 2 <= self.players <= 4:
            raise TournamentError(f"--players must be 2, 3 or 4, got {self.players!r}")
        if not self.contracts or any(c not in ALL_CONTRACTS for c in self.contracts):
            raise TournamentError(f"--contracts must be contract numbers 1..7, got {list(self.contracts)}")
        if len(set(self.contracts)) != len(self.contracts):
            raise TournamentError(f"--contracts lists a contract twice: {list(self.contracts)}")
        if not isinstance(self.decks, int) or self.decks < 1:
            raise TournamentError(f"--deals (decks per contract) must be at least 1, got {self.decks!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise TournamentError(f"--seed must be a non-negative integer, got {self.seed!r}")
        if self.format not in FORMATS:
            raise TournamentError(f"--format must be one of {', '.join(FORMATS)}, got {self.format!r}")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise TournamentError(f"--max-turns must be at least 1, got {self.max_turns!r}")

    @property
    def labels(self) -> tuple[str, ...]:
        """The agents' labels (their names in results and summaries)."""
        return tuple(parse_agent(a)[0] for a in self.agents)

    @property
    def specs(self) -> tuple[str, ...]:
        """The agents' specs for :func:`agents.registry.make_agent`."""
        return tuple(parse_agent(a)[1] for a in self.agents)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the results header's ``config``)."""
        d = asdict(self)
        d["agents"] = list(self.agents)
        d["contracts"] = list(self.contracts)
        return d

    @staticmethod
    def from_dict(d: dict[str, Any]) -> TournamentConfig:
        """Inverse of :meth:`to_dict`."""
        return TournamentConfig(
            agents=tuple(d["agents"]),
            players=d["players"],
            contracts=tuple(d["contracts"]),
            decks=d["decks"],
            seed=d["seed"],
            format=d["format"],
            max_turns=d["max_turns"],
        )

    def default_out_dir(self) -> Path:
        """``results/tournament-<agents>-p<players>-<hash of the config>`` (the same for the same config)."""
        digest = hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
        slug = "-".join(re.sub(r"[^A-Za-z0-9_.+]+", "_", x) for x in self.labels)[:40].strip("-_")
        return Path("results") / f"tournament-{slug}-p{self.players}-{digest}"


# =========================================================================== seeds, lineups, tasks


def derive_seed(seed: int, *parts: Any) -> int:
    """A 63-bit seed from the tournament seed and a path of parts (stable across runs and platforms)."""
    text = json.dumps(["carioca-tournament", seed, *parts], separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def lineups(num_agents: int, players: int) -> list[tuple[int, ...]]:
    """The duplicate lineups: tuples of agent indices, one per seat (see the module docstring)."""
    if num_agents >= players:
        combos = list(itertools.combinations(range(num_agents), players))
    else:
        combos = [tuple(s % num_agents for s in range(players))]
    out: list[tuple[int, ...]] = []
    for base in combos:
        for r in range(players):
            seating = tuple(base[(s + r) % players] for s in range(players))
            if seating not in out:
                out.append(seating)
    return out


@dataclass(frozen=True)
class Task:
    """One deal to play: a contract, a dealt deck and a lineup."""

    index: int
    contract: int
    deck: int
    lineup: int
    seating: tuple[int, ...]

    @property
    def id(self) -> str:
        """``c{contract}-d{deck}-l{lineup}``."""
        return f"c{self.contract}-d{self.deck}-l{self.lineup}"


def make_tasks(config: TournamentConfig) -> list[Task]:
    """All tasks of the tournament, in task order."""
    sets = lineups(len(config.agents), config.players)
    tasks: list[Task] = []
    for contract in config.contracts:
        for deck in range(config.decks):
            if config.format == "duplicate":
                chosen = range(len(sets))
            else:
                chosen = [derive_seed(config.seed, "seating", contract, deck) % len(sets)]
            for lineup in chosen:
                tasks.append(Task(len(tasks), contract, deck, lineup, sets[lineup]))
    return tasks


def deal_deck(config: TournamentConfig, contract: int, deck: int) -> tuple[list[int], int, int]:
    """The dealt deck ``deck`` of ``contract``: ``(cards, dealer, game_seed)``, the same for every lineup."""
    from carioca_env.cards import full_deck

    rng = random.Random(derive_seed(config.seed, "deck", contract, deck))
    cards = full_deck()
    rng.shuffle(cards)
    dealer = rng.randrange(config.players)
    return cards, dealer, derive_seed(config.seed, "game", contract, deck)


def setup_deal(config: TournamentConfig, task: Task) -> tuple[Any, list[Any], list[int]]:
    """The game and the seated agents of a task, before the first move: ``(game, agents, agent_seeds)``."""
    from agents.registry import make_agent
    from carioca_env import Game, GameConfig

    cards, dealer, game_seed = deal_deck(config, task.contract, task.deck)
    game = Game.from_deck(cards, dealer, GameConfig(num_players=config.players, deals=(task.contract,)), game_seed)
    specs = config.specs
    seeds = [derive_seed(config.seed, "agent", task.contract, task.deck, task.lineup, s) for s in range(config.players)]
    agents = [make_agent(specs[a], seeds[s]) for s, a in enumerate(task.seating)]
    return game, agents, seeds


def play_task(config: TournamentConfig, task: Task, records: tuple[Path, int] | None = None) -> dict[str, Any]:
    """Play one task and return its result line (a dict; see the module docstring).

    ``records = (folder, every)`` saves the game record (``Game.save``, readable by
    ``carioca replay``) of every ``every``-th task as ``folder/<task id>.json``; records
    never change the results.

    Raises:
        TournamentError: an agent failed or made an illegal move (the message names the
            task, the agent and the error, with the traceback).
    """
    from carioca_env import MoveKind, cards_str
    from carioca_env.cards import hand_penalty

    labels = config.labels
    seats = [labels[a] for a in task.seating]
    n = config.players
    try:
        game, agents, seeds = setup_deal(config, task)
        for agent, seed in zip(agents, seeds):
            agent.reset(seed)
    except Exception as exc:
        raise TournamentError(
            f"task {task.id}: cannot set up the deal with agents {seats}: {type(exc).__name__}: {exc}"
        ) from None
    hands = [cards_str(game.hand(s)) for s in range(n)]
    dealer = game.dealer
    turns = cancelled = 0
    own_turns = [0] * n
    open_turn: list[int | None] = [None] * n
    closer: int | None = None
    penalty: list[int] = []
    while True:
        if turns >= config.max_turns:  # R17, always at a turn boundary
            penalty = [hand_penalty(game.hands[s]) for s in range(n)]
            break
        seat = game.current_player
        legal = game.legal_moves()
        was_open = game.opened[seat]
        results_before = len(game.deal_results)
        try:
            move = agents[seat].act(game.view(seat), legal)
            game.apply(move)
        except Exception as exc:
            raise TournamentError(
                f"task {task.id} (contract {task.contract}, deck {task.deck}, seats {seats}): "
                f"agent {seats[seat]!r} in seat {seat} failed at turn {turns}: {type(exc).__name__}: {exc}\n"
                + traceback.format_exc()
            ) from None
        if move.kind is MoveKind.OPEN and not was_open:
            open_turn[seat] = own_turns[seat] + 1
        if move.kind is MoveKind.DISCARD:
            turns += 1
            own_turns[seat] += 1
        if len(game.deal_results) > results_before:
            result = game.deal_results[-1]
            if result.cancelled:  # R13: the engine deals the same contract again
                cancelled += 1
                own_turns = [0] * n
                open_turn = [None] * n
                continue
            closer = result.closer
            penalty = list(result.scores)
            break
    if records is not None and task.index % records[1] == 0:
        records[0].mkdir(parents=True, exist_ok=True)
        game.save(records[0] / f"{task.id}.json", agents=[f"{label} ({config.specs[a]})" for label, a in zip(seats, task.seating)])
    return {
        "task": task.id,
        "index": task.index,
        "contract": task.contract,
        "deck": task.deck,
        "lineup": task.lineup,
        "rotation": task.lineup % n,
        "seats": seats,
        "dealer": dealer,
        "closer": closer,
        "penalty": penalty,
        "turns": turns,
        "truncated": closer is None,
        "cancelled": cancelled,
        "opened": [t is not None for t in open_turn],
        "open_turn": open_turn,
        "hands": hands,
    }


def _play_chunk(
    config: TournamentConfig, chunk: Sequence[Task], records: tuple[Path, int] | None = None
) -> list[dict[str, Any]]:
    return [play_task(config, t, records) for t in chunk]


def _worker_init() -> None:
    """Worker setup: leave Ctrl-C to the parent, and exit if the parent dies (e.g. SIGKILL)."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:  # re-parented: the tournament process is gone
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


# =========================================================================== results file


def _header(config: TournamentConfig, tasks: Sequence[Task]) -> dict[str, Any]:
    labels = config.labels
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "config": config.to_dict(),
        "lineups": [[labels[a] for a in seating] for seating in lineups(len(labels), config.players)],
        "tasks": len(tasks),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


@dataclass
class ResultsFile:
    """What a results file holds: its header, its result lines by task id, and its state.

    Attributes:
        path: the file.
        header: the parsed first line.
        config: the tournament config of the header.
        records: result lines by task id (first occurrence).
        complete_bytes: length of the file up to its last complete line.
        partial_tail: whether the file ends with an incomplete line (an interrupted write).
    """

    path: Path
    header: dict[str, Any]
    config: TournamentConfig
    records: dict[str, dict[str, Any]]
    complete_bytes: int
    partial_tail: bool


def _refuse(path: Path, what: str) -> TournamentError:
    return TournamentError(
        f"{path}: {what}.\nThis file cannot be resumed or summarized. Move it away, choose another "
        f"--out folder, or pass --overwrite to delete it and start this tournament afresh."
    )


def read_results(path: str | Path) -> ResultsFile:
    """Read and check a results file (see the module docstring for what is refused).

    Raises:
        TournamentError: the file is missing, foreign or corrupt (the message says what to do).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TournamentError(
            f"cannot read tournament results {path}: {exc.strerror or exc} (give the folder of a "
            f"tournament, which holds {RESULTS_FILE}, or that file)"
        ) from None
    end = data.rfind(b"\n") + 1
    partial_tail = end < len(data)
    lines = data[:end].split(b"\n")[:-1] if end else []
    if not lines:
        raise _refuse(path, "the file holds no complete header line (it is empty or was cut off)")
    try:
        header = json.loads(lines[0])
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _refuse(path, f"line 1 is not JSON ({exc}), so this is not a tournament results file") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        fmt = header.get("format") if isinstance(header, dict) else type(header).__name__
        raise _refuse(path, f"line 1 is not a {FORMAT_NAME!r} header (format {fmt!r}), so this is not a tournament results file")
    if header.get("version") != FORMAT_VERSION:
        raise _refuse(path, f"it has format version {header.get('version')!r}, this program reads version {FORMAT_VERSION}")
    try:
        config = TournamentConfig.from_dict(header["config"])
    except (KeyError, TypeError, ValueError, TournamentError) as exc:
        raise _refuse(path, f"its header holds no valid tournament config ({type(exc).__name__}: {exc})") from None
    tasks = {t.id: t for t in make_tasks(config)}
    labels = config.labels
    records: dict[str, dict[str, Any]] = {}
    for number, raw in enumerate(lines[1:], start=2):
        try:
            rec = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _refuse(path, f"line {number} is not valid JSON ({exc}): the file is corrupt") from None
        if not isinstance(rec, dict) or any(k not in rec for k in _RESULT_KEYS):
            missing = [k for k in _RESULT_KEYS if not isinstance(rec, dict) or k not in rec]
            raise _refuse(path, f"line {number} is not a deal result (missing {', '.join(missing)})")
        task = tasks.get(rec["task"])
        if task is None:
            raise _refuse(path, f"line {number} is task {rec['task']!r}, which is not a task of the tournament in the header")
        seats = [labels[a] for a in task.seating]
        if rec["index"] != task.index or rec["seats"] != seats or len(rec["penalty"]) != config.players:
            raise _refuse(path, f"line {number} (task {task.id}) does not match the tournament in the header "
                                "(its index, seats or number of players differ)")
        old = records.get(task.id)
        if old is not None and old != rec:
            raise _refuse(path, f"line {number} repeats task {task.id} with a different result")
        records.setdefault(task.id, rec)
    return ResultsFile(path, header, config, records, end, partial_tail)


def _config_differences(file_cfg: TournamentConfig, cfg: TournamentConfig) -> list[str]:
    a, b = file_cfg.to_dict(), cfg.to_dict()
    return [f"{k}: the file has {a[k]!r}, this command has {b[k]!r}" for k in a if a[k] != b[k]]


@contextmanager
def _locked(fh: Any, path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise TournamentError(
            f"{path} is locked: another tournament is writing to it. Wait for it to finish, "
            f"or choose another --out folder."
        ) from None
    try:
        yield
    finally:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


# =========================================================================== running


def run_tournament(
    config: TournamentConfig,
    out_dir: str | Path | None = None,
    workers: int = 2,
    progress: bool = True,
    *,
    overwrite: bool = False,
    write_summary: bool = True,
    log: Callable[[str], None] | None = None,
    record_every: int = 0,
) -> Summary:
    """Play the tournament's remaining deals into ``out_dir`` and summarize the folder.

    Args:
        config: the tournament.
        out_dir: results folder (default :meth:`TournamentConfig.default_out_dir`).
            An existing ``results.jsonl`` of the same tournament is resumed.
        workers: processes playing deals (1 plays in this process).
        progress: show a tqdm progress bar with ETA (on stderr).
        overwrite: delete an existing results file first instead of resuming it.
        write_summary: write summary.md/.csv/.json, pairs.csv and the plots.
        log: where notes go (default: stderr).
        record_every: keep the game record of every n-th deal in ``out_dir/records``
            (0, the default: none; 1: all).

    Returns:
        The :class:`Summary` of every result in the file.

    Raises:
        TournamentError: bad agents, a foreign or corrupt results file, a config
            mismatch, or an agent that failed (results written so far are kept).
    """
    say = log or (lambda m: print(m, file=sys.stderr))
    out = Path(out_dir) if out_dir is not None else config.default_out_dir()
    _check_agents(config)
    out.mkdir(parents=True, exist_ok=True)
    path = out / RESULTS_FILE
    tasks = make_tasks(config)
    if overwrite and path.exists():
        say(f"--overwrite: deleting the old {path}")
        path.unlink()
    with open(path, "a+b") as fh, _locked(fh, path):
        fh.seek(0)
        data = fh.read()
        if b"\n" not in data:
            # A new file, or a header cut off by a kill before its newline: (re)write the
            # header - but never over something that is not the start of our header.
            if data and not _HEADER_START.startswith(data[: len(_HEADER_START)]):
                read_results(path)  # raises: a foreign file
            if data:
                say(f"note: {path} holds only an incomplete header (an interrupted start); writing it again")
            fh.truncate(0)
            fh.write((json.dumps(_header(config, tasks)) + "\n").encode("utf-8"))
            fh.flush()
        existing = read_results(path)
        diffs = _config_differences(existing.config, config)
        if diffs:
            raise TournamentError(
                f"{path} holds another tournament:\n  " + "\n  ".join(diffs)
                + "\nTo resume that tournament, repeat its options; to run this one, choose another "
                "--out folder (the default folder depends on the options) or pass --overwrite to "
                "delete the old results."
            )
        todo = [t for t in tasks if t.id not in existing.records]
        if existing.partial_tail:
            say(f"note: dropped an incomplete last line of {path} (an interrupted write); that deal is played again")
            fh.truncate(existing.complete_bytes)
        if existing.records:
            say(f"resuming {path}: {len(existing.records)} of {len(tasks)} deals already played, {len(todo)} to play")
        try:
            records = (out / "records", record_every) if record_every > 0 else None
            _play_into(config, todo, fh, workers, progress, len(tasks), len(existing.records), records)
        except TournamentError as exc:
            fh.flush()
            kept = len(read_results(path).records)
            raise TournamentError(
                f"{exc}\nThe {kept} deals played so far are kept in {path}; fix the problem and "
                f"rerun the same command to resume."
            ) from None
    summary = summarize(out)
    if write_summary:
        summary.write(out, log=say)
    return summary


def _check_agents(config: TournamentConfig) -> None:
    from agents.registry import make_agent

    for label, spec in zip(config.labels, config.specs):
        try:
            make_agent(spec, 0)
        except Exception as exc:
            raise TournamentError(f"agent {label!r}: cannot build {spec!r}: {exc}") from None


def _play_into(
    config: TournamentConfig,
    todo: list[Task],
    fh: Any,
    workers: int,
    progress: bool,
    total: int,
    done: int,
    records: tuple[Path, int] | None = None,
) -> None:
    bar = progress_bar(total=total, initial=done, unit="deal", desc="tournament", enabled=progress,
                       smoothing=0.05, file=sys.stderr)
    truncated = 0

    def write(rec: dict[str, Any]) -> None:
        nonlocal truncated
        fh.write((json.dumps(rec, separators=(", ", ": ")) + "\n").encode("utf-8"))
        fh.flush()
        truncated += rec["truncated"]
        bar.update(1)
        if truncated:
            bar.set_postfix(truncated=truncated, refresh=False)

    try:
        if workers <= 1 or len(todo) <= 1:
            for task in todo:
                write(play_task(config, task, records))
            return
        chunk = max(1, min(8, len(todo) // (workers * 16)))
        chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as pool:
            futures: list[Future[list[dict[str, Any]]]] = [pool.submit(_play_chunk, config, c, records) for c in chunks]
            try:
                for fut in futures:  # in task order, whatever finishes first
                    for rec in fut.result():
                        write(rec)
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    finally:
        bar.close()


# =========================================================================== summary


@dataclass(frozen=True)
class AgentStats:
    """One agent's results on one contract (or ``"all"``)."""

    contract: str
    agent: str
    deals: int  # deals (tables) the agent sat at
    seat_deals: int  # seats it played (more than deals when it sat twice at a table)
    decks: int  # dealt decks it played (the sample size of the interval)
    mean_penalty: float
    ci_low: float
    ci_high: float
    ci_half: float
    win_rate: float
    close_rate: float
    open_rate: float
    mean_open_turn: float
    truncated: int  # deals it sat at that were truncated
    cancelled: int  # R13 redeals in those deals


@dataclass(frozen=True)
class PairStats:
    """Paired difference ``agent_x - agent_y`` of mean penalty on the same decks (negative: x better)."""

    contract: str
    agent_x: str
    agent_y: str
    decks: int
    mean_diff: float
    ci_low: float
    ci_high: float
    ci_half: float

    @property
    def significant(self) -> bool:
        """Whether the 95% interval excludes 0."""
        return not math.isnan(self.ci_half) and (self.ci_low > 0 or self.ci_high < 0)


#: A rating row (the batch Bradley-Terry fit of :mod:`experiments.ratings`).
RatingStats = Rating


@dataclass
class Summary:
    """The statistics of a results file (see :func:`summarize` for definitions)."""

    config: TournamentConfig
    deals_played: int
    deals_expected: int
    truncated: int
    cancelled: int
    agents: list[AgentStats]
    pairs: list[PairStats]
    ratings: list[RatingStats]
    truncated_by_contract: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether every task of the tournament has been played."""
        return self.deals_played == self.deals_expected

    def agent(self, agent: str, contract: int | str = "all") -> AgentStats:
        """The row of one agent on one contract (``"all"``: all contracts played)."""
        if contract == "all" and len(self.config.contracts) == 1:
            contract = self.config.contracts[0]  # one contract: no separate "all" rows
        for row in self.agents:
            if row.agent == agent and row.contract == str(contract):
                return row
        raise KeyError(f"no row for agent {agent!r} on contract {contract!r}")

    def mean_penalty(self, agent: str, contract: int | str = "all") -> float:
        """Mean penalty per deal of ``agent`` (lower is better)."""
        return self.agent(agent, contract).mean_penalty

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``nan`` as ``null``); the same for the same results."""
        def clean(x: Any) -> Any:
            if isinstance(x, float) and math.isnan(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x

        return clean({
            "config": self.config.to_dict(),
            "deals_played": self.deals_played,
            "deals_expected": self.deals_expected,
            "truncated": self.truncated,
            "truncated_by_contract": dict(self.truncated_by_contract),
            "cancelled": self.cancelled,
            "agents": [asdict(r) for r in self.agents],
            "pairs": [asdict(p) for p in self.pairs],
            "ratings": [asdict(r) for r in self.ratings],
            "notes": list(self.notes),
        })

    # ---------------------------------------------------------------- rendering

    def _headline(self) -> list[str]:
        c = self.config
        contracts = ", ".join(str(k) for k in c.contracts)
        lines = [
            f"Tournament: {', '.join(c.agents)} | {c.players} players | contracts {contracts} | "
            f"{c.decks} decks per contract | {c.format} | seed {c.seed} | max {c.max_turns} turns",
            f"Deals played: {self.deals_played} of {self.deals_expected}"
            + ("" if self.complete else "  (INCOMPLETE: rerun the same command to finish)"),
        ]
        share = self.truncated / self.deals_played if self.deals_played else 0.0
        per = ", ".join(f"c{k}: {v}" for k, v in self.truncated_by_contract.items() if v)
        lines.append(
            f"Truncated deals: {self.truncated} ({share:.1%})" + (f" [{per}]" if per else "")
            + (" - scored by the cards in hand when cut off (R17); raise --max-turns to reduce"
               if self.truncated else "")
        )
        lines.append(f"Cancelled and redealt (R13): {self.cancelled}")
        return lines

    def _agent_table(self) -> tuple[list[str], list[list[str]]]:
        head = ["contract", "agent", "deals", "decks", "mean pen.", "95% CI", "win %", "close %",
                "open %", "open turn", "trunc."]
        rows = [[r.contract, r.agent, str(r.deals), str(r.decks), _f(r.mean_penalty, 1),
                 format_interval(r.ci_low, r.ci_high, r.decks), _pct(r.win_rate), _pct(r.close_rate),
                 _pct(r.open_rate), _f(r.mean_open_turn, 1), str(r.truncated)] for r in self.agents]
        return head, rows

    def _pair_table(self) -> tuple[list[str], list[list[str]]]:
        head = ["contract", "x - y", "decks", "mean diff", "95% CI", "sig."]
        rows = [[p.contract, f"{p.agent_x} - {p.agent_y}", str(p.decks), _f(p.mean_diff, 1, signed=True),
                 format_interval(p.ci_low, p.ci_high, p.decks, signed=True), "*" if p.significant else ""]
                for p in self.pairs]
        return head, rows

    def _rating_table(self) -> tuple[list[str], list[list[str]]]:
        return rating_table(self.ratings)

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
    _EXPLAIN_RATINGS = RATINGS_EXPLAINED

    def to_text(self) -> str:
        """Plain-text tables for the terminal."""
        out = self._headline() + ["", wrap_cell(self._EXPLAIN_AGENTS, 100), text_table(*self._agent_table())]
        if self.pairs:
            out += ["", wrap_cell(self._EXPLAIN_PAIRS, 100), text_table(*self._pair_table(), group=1)]
        if self.ratings:
            out += ["", wrap_cell(self._EXPLAIN_RATINGS, 100), text_table(*self._rating_table(), group=None, left=1)]
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """The same tables in Markdown."""
        out = ["# Tournament summary", ""] + [f"- {line}" for line in self._headline()]
        out += ["", "## Agents", "", self._EXPLAIN_AGENTS, "", markdown_table(*self._agent_table())]
        if self.pairs:
            out += ["", "## Paired differences", "", self._EXPLAIN_PAIRS, "", markdown_table(*self._pair_table())]
        if self.ratings:
            out += ["", "## Ratings", "", self._EXPLAIN_RATINGS, "", markdown_table(*self._rating_table())]
        if self.notes:
            out += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"

    def write(self, out_dir: str | Path, log: Callable[[str], None] | None = None) -> list[Path]:
        """Write summary.md, summary.csv, pairs.csv, summary.json and the PNG plots; returns the paths."""
        out = Path(out_dir)
        paths = [out / "summary.md", out / "summary.csv", out / "pairs.csv", out / "summary.json"]
        _write_text(paths[0], self.to_markdown())
        _write_text(paths[1], _csv([f.name for f in fields(AgentStats)], [asdict(r) for r in self.agents]))
        _write_text(paths[2], _csv([f.name for f in fields(PairStats)], [asdict(p) for p in self.pairs]))
        _write_text(paths[3], json.dumps(self.to_dict(), indent=1) + "\n")
        try:
            paths += plot_summary(self, out)
        except ImportError:
            msg = "matplotlib is not installed: no plots (pip install matplotlib)"
            if msg not in self.notes:
                self.notes.append(msg)
            if log:
                log(f"note: {msg}")
        return paths


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()})
    return buf.getvalue()


def _f(x: float, digits: int, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}"


def summarize(source: str | Path | ResultsFile) -> Summary:
    """Compute the summary of a results folder (or file, or :class:`ResultsFile`).

    Definitions (``contract`` is each contract played, then ``"all"``):

    - An *observation* is one seat at one deal.  A *unit* is a dealt deck (contract,
      deck); each agent's value on a unit is its mean penalty over the seats it played
      on that deck (over lineups and, if it sat twice, both seats).
    - ``mean_penalty`` is the mean of the agent's unit values (with the duplicate format
      every unit has the same weight, so this is also the mean per seat-deal); its 95%
      interval is a seeded BCa bootstrap over units (:func:`experiments.stats.penalty_ci`:
      never below 0), which are independent (the seats and lineups of one deck are not).
    - Paired difference ``x - y``: the mean over the units both played of
      ``value_x - value_y``, with its t-interval: the two agents on the same cards.
    - ``win_rate``: mean over observations of the win share (``1/k`` if the seat has the
      lowest penalty at its table with ``k`` seats tied there, else 0); truncated deals
      count with their hand penalties.  ``close_rate``: share of observations where the
      seat closed.  ``open_rate``: where it laid its contract.  ``mean_open_turn``: the
      mean over opened observations of the seat's own turn number of the opening.
    - ``truncated`` / ``cancelled``: over the deals (tables) the agent sat at.
    - Ratings: a batch Bradley-Terry fit of all deals (:mod:`experiments.ratings`): each
      deal ranks the distinct agents at the table by penalty (mean penalty if seated
      twice, lower is better, ties split); the order of the deals does not matter.
    """
    if isinstance(source, ResultsFile):
        rf = source
    else:
        p = Path(source)
        rf = read_results(p / RESULTS_FILE if p.is_dir() else p)
    config = rf.config
    labels = list(config.labels)
    records = sorted(rf.records.values(), key=lambda r: r["index"])
    expected = len(make_tasks(config))
    groups = [str(c) for c in config.contracts] + (["all"] if len(config.contracts) > 1 else [])

    # per (group, agent): observations and unit sums
    obs: dict[tuple[str, str], list[tuple[float, float, bool, int | None]]] = defaultdict(list)
    units: dict[tuple[str, str], dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    tables: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    truncated_by_contract = {str(c): 0 for c in config.contracts}
    for rec in records:
        shares = win_shares(rec["penalty"])
        gs = [str(rec["contract"])] + (["all"] if "all" in groups else [])
        truncated_by_contract[str(rec["contract"])] += bool(rec["truncated"])
        for g in gs:
            for agent in dict.fromkeys(rec["seats"]):
                tables[(g, agent)].append(rec)
            for s, agent in enumerate(rec["seats"]):
                obs[(g, agent)].append((rec["penalty"][s], shares[s], rec["closer"] == s, rec["open_turn"][s]))
                units[(g, agent)][(rec["contract"], rec["deck"])].append(rec["penalty"][s])

    agent_rows: list[AgentStats] = []
    unit_means: dict[tuple[str, str], dict[tuple[int, int], float]] = {}
    for g in groups:
        for agent in labels:
            o = obs.get((g, agent), [])
            um = {k: sum(v) / len(v) for k, v in units.get((g, agent), {}).items()}
            unit_means[(g, agent)] = um
            ci = penalty_ci(um.values())
            opened = [t for *_, t in o if t is not None]
            tb = tables.get((g, agent), [])
            n = len(o)
            agent_rows.append(AgentStats(
                contract=g, agent=agent, deals=len(tb), seat_deals=n, decks=len(um),
                mean_penalty=ci.mean, ci_low=ci.low, ci_high=ci.high, ci_half=ci.half,
                win_rate=sum(x[1] for x in o) / n if n else math.nan,
                close_rate=sum(x[2] for x in o) / n if n else math.nan,
                open_rate=len(opened) / n if n else math.nan,
                mean_open_turn=sum(opened) / len(opened) if opened else math.nan,
                truncated=sum(bool(r["truncated"]) for r in tb),
                cancelled=sum(int(r["cancelled"]) for r in tb),
            ))

    pair_rows: list[PairStats] = []
    for x, y in itertools.combinations(labels, 2):
        for g in groups:
            d: MeanCI = paired_difference(unit_means[(g, x)], unit_means[(g, y)])
            pair_rows.append(PairStats(g, x, y, d.n, d.mean, d.low, d.high, d.half))

    notes: list[str] = []
    ratings = fit_ratings(labels, records)
    return Summary(
        config=config,
        deals_played=len(records),
        deals_expected=expected,
        truncated=sum(bool(r["truncated"]) for r in records),
        cancelled=sum(int(r["cancelled"]) for r in records),
        agents=agent_rows,
        pairs=pair_rows,
        ratings=ratings,
        truncated_by_contract=truncated_by_contract,
        notes=notes,
    )


def plot_summary(summary: Summary, out_dir: str | Path) -> list[Path]:
    """``penalty.png`` (mean penalty per contract per agent, 95% CI bars) and ``paired.png``.

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from experiments.plots import legend_outside

    out = Path(out_dir)
    contracts = [str(c) for c in summary.config.contracts]
    labels = list(summary.config.labels)
    paths = []

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
    p = out / "penalty.png"
    fig.savefig(p, dpi=110, bbox_inches="tight")
    plt.close(fig)
    paths.append(p)

    if summary.pairs:
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(contracts) + 2), 4))
        pairs = list(dict.fromkeys((p.agent_x, p.agent_y) for p in summary.pairs))
        errorbars(ax, [(f"{x} - {y}", [p for p in summary.pairs if (p.agent_x, p.agent_y) == (x, y)]) for x, y in pairs],
                  lambda p: (p.mean_diff, p.ci_low, p.ci_high))
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_ylabel("paired difference of mean penalty\n(negative: first agent better)")
        ax.set_title("Paired differences on the same decks, 95% CI", fontsize=10)
        fig.tight_layout()
        p = out / "paired.png"
        fig.savefig(p, dpi=110, bbox_inches="tight")
        plt.close(fig)
        paths.append(p)
    return paths


# =========================================================================== CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``carioca tournament``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "Agents are make_agent specs (random, greedy, heuristic, NAME:ARG), optionally\n"
        "labelled LABEL=SPEC (a=random b=random). Lineups (duplicate format): with as many\n"
        "agents as seats, the cyclic rotations; fewer, seats filled cyclically then rotated;\n"
        "more, every combination of distinct agents with its rotations. Every lineup of a\n"
        "deck gets the same cards seat by seat.\n\n"
        "Results go to OUT/results.jsonl (a header line, then one JSON line per deal) and\n"
        "OUT/summary.{md,csv,json}, pairs.csv, penalty.png, paired.png. Re-running the same\n"
        "command resumes an interrupted tournament. Without --agents or --preset the demo\n"
        "preset runs: " + _preset_text("demo") + "."
    )
    g = parser.add_argument_group("tournament (what is played; these define the results)")
    g.add_argument("--agents", nargs="+", metavar="SPEC", help="agent specs, LABEL=SPEC to name one")
    g.add_argument("--players", type=int, metavar="N",
                   help="seats per table, 2-4 (default: the number of agents, within 2-4)")
    g.add_argument("--contracts", type=int, nargs="+", metavar="K", help="contracts to play (default: all seven)")
    g.add_argument("--deals", "--decks", dest="decks", type=int, metavar="N",
                   help="distinct dealt decks per contract (default 10); duplicate replays each for every lineup")
    g.add_argument("--seed", type=int, help="tournament seed; every deck and agent seed derives from it (default 0)")
    g.add_argument("--format", choices=FORMATS,
                   help="duplicate (default): every lineup on every deck; random: one random lineup per deck")
    g.add_argument("--max-turns", type=int, metavar="T",
                   help="completed turns after which a deal is truncated and scored by cards in hand (default 2000)")
    g.add_argument("--preset", choices=sorted(PRESETS), help="a named set of the options above; explicit options override it. "
                   + "; ".join(f"{k}: {_preset_text(k)}" for k in sorted(PRESETS)))
    g.add_argument("--quick", action="store_true", help="the same as --preset quick (a smoke run in seconds)")
    r = parser.add_argument_group("running (does not change the results)")
    r.add_argument("--workers", type=int, default=2, help="processes playing deals (default 2; 1 plays in this process)")
    r.add_argument("--out", type=Path, help="results folder (default results/tournament-<agents>-p<players>-<config hash>)")
    r.add_argument("--overwrite", action="store_true", help="delete an existing results file in --out instead of resuming it")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--records", type=int, default=0, metavar="N",
                   help="keep the game record of every N-th deal in OUT/records for carioca replay (default 0: none; 1: all)")
    r.add_argument("--report", type=Path, metavar="DIR",
                   help="only summarize the results already in DIR (no play); the other options are ignored")


def _preset_text(name: str) -> str:
    p = PRESETS[name]
    agents = "built-in agents " + "/".join(BUILTIN_AGENTS) if p["agents"] is None else " ".join(p["agents"])
    contracts = "all contracts" if tuple(p["contracts"]) == ALL_CONTRACTS else "contracts " + " ".join(map(str, p["contracts"]))
    return f"{agents}, {p['players']} players, {contracts}, {p['decks']} decks, max {p['max_turns']} turns"


def _builtin_agents() -> list[str]:
    from agents.registry import available

    known = set(available())
    return [a for a in BUILTIN_AGENTS if a in known]


def config_from_args(args: argparse.Namespace, log: Callable[[str], None] | None = None) -> TournamentConfig:
    """The tournament config of the command line (explicit options > preset > defaults)."""
    say = log or (lambda m: print(m, file=sys.stderr))
    preset_name = "quick" if getattr(args, "quick", False) else getattr(args, "preset", None)
    if preset_name is None and not args.agents:
        preset_name = "demo"
        say("no --agents given: running the demo preset (" + _preset_text("demo") + ")")
    preset = dict(PRESETS[preset_name]) if preset_name else {}
    agents = args.agents
    if not agents:
        agents = _builtin_agents()
        missing = [a for a in BUILTIN_AGENTS if a not in agents]
        if missing:
            say(f"note: built-in agent(s) {', '.join(missing)} not available yet; playing {', '.join(agents)}")
    if args.players is not None:
        players = args.players
    elif "players" in preset:
        players = preset["players"]
    else:
        players = min(max(len(agents), 2), 4)

    def pick(name: str, default: Any) -> Any:
        value = getattr(args, name, None)
        if value is not None:
            return value
        return preset.get(name, default)

    return TournamentConfig(
        agents=tuple(agents),
        players=players,
        contracts=tuple(pick("contracts", ALL_CONTRACTS)),
        decks=pick("decks", 10),
        seed=pick("seed", 0),
        format=pick("format", "duplicate"),
        max_turns=pick("max_turns", 2000),
    )


def run(args: argparse.Namespace) -> int:
    """Run (or resume, or report) a tournament and print its summary."""
    def err(msg: str) -> None:
        print(f"carioca tournament: error: {msg}", file=sys.stderr)

    try:
        if args.report is not None:
            summary = summarize(args.report)
            print(summary.to_text())
            for p in summary.write(args.report, log=lambda m: print(m, file=sys.stderr)):
                print(f"wrote {p}")
            return 0
        config = config_from_args(args)
        if args.workers < 1:
            raise TournamentError(f"--workers must be at least 1, got {args.workers}")
        out = args.out if args.out is not None else config.default_out_dir()
        n_tasks = len(make_tasks(config))
        per_deck = len(lineups(len(config.agents), config.players)) if config.format == "duplicate" else 1
        print(f"{n_tasks} deals ({config.format}: {per_deck} lineup(s) x {config.decks} decks x "
              f"{len(config.contracts)} contracts) -> {out / RESULTS_FILE}", file=sys.stderr)
        start = time.monotonic()
        summary = run_tournament(config, out, workers=args.workers, progress=not args.no_progress,
                                 overwrite=args.overwrite, record_every=args.records)
    except TournamentError as exc:
        err(str(exc))
        return 2
    except KeyboardInterrupt:
        err("interrupted; the deals played so far are saved: rerun the same command to resume")
        return 130
    print(summary.to_text())
    print(f"\nResults and summary in {out}/ (results.jsonl, summary.md, summary.csv, pairs.csv, "
          f"summary.json, penalty.png{', paired.png' if summary.pairs else ''}); "
          f"{time.monotonic() - start:.1f} s")
    return 0
