"""The results file ``results.jsonl``: append-only, resumable, refusing what it cannot trust.

Line 1 is a header (format, version, config, lineups, number of tasks, creation time);
then one JSON line per played task, appended and flushed as soon as it is known, in task
order.  :func:`read_results` checks a file line by line; :func:`open_results` opens (or
starts) the file of a tournament for appending, locked, after checking that it belongs to
this tournament, and drops a last line cut off by a kill.  :class:`ResultsWriter` writes
result lines (and the game records kept with them).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from carioca_experiments.evaluation.tournament.config import TournamentConfig, lineups
from carioca_experiments.evaluation.tournament.errors import TournamentError
from carioca_experiments.evaluation.tournament.tasks import Task, make_tasks

FORMAT_NAME = "carioca-tournament-results"
#: Version 2 seeds each agent by its seat (:func:`.config.agent_seed`); version 1 seeded
#: it by lineup number too, so its deals cannot be continued by this program.
FORMAT_VERSION = 2
#: Versions whose files can still be read and summarized (``--report``), not resumed.
READABLE_VERSIONS = (1, 2)
RESULTS_FILE = "results.jsonl"
RECORDS_DIR = "records"

_HEADER_START = ('{"format": "' + FORMAT_NAME + '"').encode()
_RESULT_KEYS = (
    "task", "index", "contract", "deck", "lineup", "rotation", "seats", "dealer", "closer",
    "penalty", "turns", "truncated", "cancelled", "opened", "open_turn", "hands",
)


def _header(config: TournamentConfig, tasks: Sequence[Task]) -> dict[str, Any]:
    """The header line of a new results file."""
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
    if header.get("version") not in READABLE_VERSIONS:
        raise _refuse(path, f"it has format version {header.get('version')!r}, this program reads versions "
                            f"{', '.join(map(str, READABLE_VERSIONS))}")
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
    # a key may be in one only (luck is left out when off)
    keys = list(a) + [k for k in b if k not in a]
    return [f"{k}: the file has {a.get(k)!r}, this command has {b.get(k)!r}" for k in keys if a.get(k) != b.get(k)]


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


def result_line(rec: dict[str, Any]) -> bytes:
    """The bytes of one result line (the same for every backend: one JSON object and a newline)."""
    return (json.dumps(rec, separators=(", ", ": ")) + "\n").encode("utf-8")


def _os_problem(path: Path, exc: OSError, what: str) -> TournamentError:
    reason = exc.strerror or type(exc).__name__
    return TournamentError(
        f"cannot {what} {path}: {reason}. Give --out a folder that can be created and written "
        f"(the default is results/tournament-...)"
    )


def prepare_out_dir(out: Path, create: bool = True) -> Path:
    """Check (and with ``create``, create) the results folder ``out``; the path of its results file.

    Raises:
        TournamentError: ``out`` or one of its parents is a file, it cannot be created,
            or ``out/results.jsonl`` is a folder; nothing is created or changed then.
    """
    for parent in (out, *out.parents):
        if parent.exists() and not parent.is_dir():
            raise TournamentError(
                f"--out {out}: {parent} is a file, not a folder; give --out a folder (it is "
                f"created if missing), e.g. {out.parent if parent == out else parent.parent}/results"
            )
    path = out / RESULTS_FILE
    if path.exists() and not path.is_file():
        raise TournamentError(
            f"{path} is a folder, not a results file; move it away or choose another --out folder"
        )
    if create:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _os_problem(out, exc, "create the results folder") from None
    return path


@contextmanager
def open_results(
    path: Path, config: TournamentConfig, *, overwrite: bool = False, say: Callable[[str], None] = print
) -> Iterator[tuple[IO[bytes], ResultsFile]]:
    """Open the results file of ``config`` for appending, locked: ``(file, what it holds)``.

    A missing file is started with its header; a header cut off before its newline is
    written again; an incomplete last line (a killed write) is cut off, so the deal is
    played again.  ``overwrite`` deletes an old file first.

    Raises:
        TournamentError: the file is locked, foreign, corrupt, or holds another
            tournament (the message lists the differences); nothing is changed then.
    """
    tasks = make_tasks(config)
    if overwrite and path.exists():
        say(f"--overwrite: deleting the old {path}")
        path.unlink()
    try:
        fh = open(path, "a+b")
    except OSError as exc:
        raise _os_problem(path, exc, "open the results file") from None
    with fh, _locked(fh, path):
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
        if existing.header.get("version") != FORMAT_VERSION:
            raise TournamentError(
                f"{path} holds a tournament of results format version {existing.header.get('version')}, whose "
                f"agents were seeded by lineup number; this program seeds them by seat (version {FORMAT_VERSION}), "
                "so it cannot continue those deals. Summarize it with `carioca tournament --report`; to play "
                "it again, move that folder away (then the same command plays it afresh), or with `carioca "
                "tournament` choose another --out folder or pass --overwrite to delete the old results."
            )
        diffs = _config_differences(existing.config, config)
        if diffs:
            raise TournamentError(
                f"{path} holds another tournament:\n  " + "\n  ".join(diffs)
                + "\nTo resume that tournament, repeat its options; to run this one, choose another "
                "--out folder (the default folder depends on the options) or pass --overwrite to "
                "delete the old results."
            )
        if existing.partial_tail:
            say(f"note: dropped an incomplete last line of {path} (an interrupted write); that deal is played again")
            fh.truncate(existing.complete_bytes)
        yield fh, existing


class ResultsWriter:
    """Appends result lines to an open results file in task order, whatever order they arrive in.

    Results that arrive ahead of their turn wait in memory until the tasks before them
    are in; so the file is the same for any backend and any number of workers, and a
    killed driver leaves a prefix of the task order (plus at most a cut last line).
    Each line is flushed as it is written.  Game records kept with the results are
    written to ``records_dir/<task id>.json`` as they arrive.
    """

    def __init__(self, fh: IO[bytes], todo: Sequence[Task], records_dir: Path | None = None,
                 on_write: Callable[[dict[str, Any]], None] | None = None) -> None:
        """``todo``: the tasks still to be written, in task order."""
        self._fh = fh
        self._order = [t.id for t in todo]
        self._next = 0
        self._waiting: dict[str, dict[str, Any]] = {}
        self._records_dir = records_dir
        self._on_write = on_write
        self.written = 0

    def add(self, result: dict[str, Any], record: dict[str, Any] | None = None) -> None:
        """Take one task's result (and record); write every result whose turn has come."""
        if record is not None and self._records_dir is not None:
            self._records_dir.mkdir(parents=True, exist_ok=True)
            (self._records_dir / f"{result['task']}.json").write_text(json.dumps(record) + "\n", encoding="utf-8")
        self._waiting[result["task"]] = result
        while self._next < len(self._order) and self._order[self._next] in self._waiting:
            rec = self._waiting.pop(self._order[self._next])
            self._fh.write(result_line(rec))
            self._fh.flush()
            self._next += 1
            self.written += 1
            if self._on_write is not None:
                self._on_write(rec)

    @property
    def pending(self) -> int:
        """Results received but not written yet (waiting for an earlier task)."""
        return len(self._waiting)
