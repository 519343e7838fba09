"""What the served folder holds: game records, tournaments, training runs and models.

One bounded walk of the folder (symlinked folders are not followed, so a link cannot
loop or lead out; hidden and tool folders are skipped).  A tournament is a folder with
``results.jsonl`` or ``summary.json`` (``carioca tournament``); its kept records
(``records/*.json``) are listed on its own page, not on the front page.  A model is a
folder with a ``model.json`` card of a ``ppo:`` model (``carioca train``); a training
run is a folder with ``experiment.json`` (``carioca train-all``) or a model card.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from carioca_env import Game, RecordError
from carioca_env.records import read_json_file
from carioca_experiments.apps.serve.safepath import PathRefused, SafeRoot

RECORD_FORMAT = "carioca-game-record"
MODEL_CARD_FORMAT = "carioca-ppo-model"
#: folders never walked into
SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".hypothesis",
                       ".pytest_cache", ".mypy_cache", ".ipynb_checkpoints", "site-packages"})
#: a JSON file larger than this is not read (records are a few kB)
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: entries visited at most in one walk (a front page stays fast on a huge folder)
MAX_ENTRIES = 50_000


class UnreadableFile(PathRefused):
    """A file in the served folder that cannot be shown: not JSON, too large or too deep,
    or JSON of the wrong shape (status 422; the listing shows it with its reason)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path or '.'} is unreadable: {reason}", status=422)
        self.path = path
        self.reason = reason


@dataclass
class Listing:
    """What one walk found (paths relative to the served folder); ``unreadable`` holds
    ``{"path", "reason"}`` of every file that could not be read."""

    records: list[dict[str, Any]] = field(default_factory=list)
    tournaments: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    unreadable: list[dict[str, str]] = field(default_factory=list)
    truncated: bool = False


def read_json(root: SafeRoot, path: Path) -> Any:
    """The JSON in ``path`` (a real path inside the folder), read bounded
    (:func:`carioca_env.records.read_json_file`: size, depth, a regular file).

    Raises:
        UnreadableFile: saying why.
    """
    try:
        return read_json_file(path, max_bytes=MAX_RECORD_BYTES)
    except RecordError as exc:
        raise UnreadableFile(root.relative(path), str(exc).removeprefix(f"cannot read a JSON file from {path}: ")) from None


def read_json_in(root: SafeRoot, folder: Path, name: str) -> Any:
    """The JSON of ``folder/name`` when that file resolves inside the served folder, else None.

    Raises:
        UnreadableFile: the file is there but cannot be read.
    """
    real = root.child(folder, name)
    return None if real is None else read_json(root, real)


def _number(v: Any, none: bool = True) -> bool:
    return (none and v is None) or (isinstance(v, (int, float)) and not isinstance(v, bool))


def _int(v: Any) -> bool:
    return type(v) is int


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


#: The fields of a summary's rows and what they must be (missing: refused; extra: kept).
_ROWS: dict[str, dict[str, Callable[[Any], bool]]] = {
    "agents": {"contract": _scalar, "agent": _text, "decks": _int, "deals": _int, "truncated": _int,
               "mean_penalty": _number, "ci_low": _number, "ci_high": _number,
               "win_rate": _number, "close_rate": _number, "open_rate": _number},
    "pairs": {"contract": _scalar, "agent_x": _text, "agent_y": _text, "decks": _int,
              "mean_diff": _number, "ci_low": _number, "ci_high": _number},
}
#: rates the page multiplies: a null one (nan when written) is shown as nan
_RATES = ("win_rate", "close_rate", "open_rate")


def check_summary(summary: Any) -> dict[str, Any]:
    """A tournament's ``summary.json`` checked for the shape its page shows (the dict,
    with a null rate as nan).

    Raises:
        ValueError: naming the first field of the wrong type.
    """
    if not isinstance(summary, dict):
        raise ValueError(f"summary.json holds a {type(summary).__name__}, not an object")
    config = summary.get("config", {})
    if not isinstance(config, dict):
        raise ValueError(f"'config' must be an object, got a {type(config).__name__}")
    checks = {"agents": lambda v: isinstance(v, list) and all(map(_text, v)),
              "contracts": lambda v: isinstance(v, list) and all(map(_scalar, v)),
              "players": lambda v: v is None or _int(v), "format": lambda v: v is None or _text(v)}
    for key, ok in checks.items():
        if key in config and not ok(config[key]):
            raise ValueError(f"'config.{key}' has the wrong type ({type(config[key]).__name__})")
    for key in ("deals_played", "deals_expected", "truncated", "cancelled"):
        if summary.get(key) is not None and not _int(summary[key]):
            raise ValueError(f"{key!r} must be an integer, got {type(summary[key]).__name__}")
    out = dict(summary, config=config)
    for key, fields in _ROWS.items():
        rows = summary.get(key, [])
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError(f"{key!r} must be a list of rows (objects)")
        for i, row in enumerate(rows):
            for name, ok in fields.items():
                if not ok(row.get(name, ...)):
                    raise ValueError(f"{key}[{i}].{name} is missing or of the wrong type")
        out[key] = [dict(r, **{k: math.nan for k in _RATES if k in r and r[k] is None}) for r in rows]
    ratings = summary.get("ratings", [])
    if not isinstance(ratings, list) or not all(isinstance(r, dict) and all(map(_scalar, r.values())) for r in ratings):
        raise ValueError("'ratings' must be a list of rows of plain values")
    notes = summary.get("notes", [])
    if not isinstance(notes, list) or not all(map(_text, notes)):
        raise ValueError("'notes' must be a list of texts")
    return out


def read_summary(root: SafeRoot, folder: Path) -> dict[str, Any] | None:
    """The checked ``summary.json`` of a tournament folder, or None when it has none.

    Raises:
        UnreadableFile: it is there but not readable, or not of a summary's shape.
    """
    summary = read_json_in(root, folder, "summary.json")
    if summary is None:
        return None
    try:
        return check_summary(summary)
    except ValueError as exc:
        raise UnreadableFile(root.relative(folder / "summary.json"), str(exc)) from None


def record_info(root: SafeRoot, path: Path, check_game: Callable[[dict[str, Any]], None] | None = None
                ) -> dict[str, Any] | None:
    """A record's header facts for a listing, or None when ``path`` is no game record
    (JSON without the record format). ``check_game`` checks a browser game's session.

    Raises:
        UnreadableFile: not readable JSON, or a record whose header does not hold.
    """
    rec = read_json(root, path)
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        return None
    try:
        Game.start_of_record(rec)  # every header field typed (moves, totals, agents, config...)
        if "session" in rec and check_game is not None:
            check_game(rec)
    except (RecordError, PathRefused) as exc:
        raise UnreadableFile(root.relative(path), str(exc)) from None
    config = rec["config"]
    deals = list(config.get("deals") or [])
    return {
        "path": root.relative(path),
        "players": config.get("num_players"),
        "deals": deals,
        "moves": len(rec["moves"]),
        "agents": rec.get("agents") or [],
        "totals": rec.get("totals") or [],
        "finished": bool(deals) and len(rec.get("deal_scores") or []) >= len(deals),
        "session": rec.get("session") if isinstance(rec.get("session"), dict) else None,
    }


def _tournament_info(root: SafeRoot, folder: Path, files: set[str], out: Listing) -> dict[str, Any]:
    summary = None
    if "summary.json" in files:
        try:
            summary = read_summary(root, folder)
        except UnreadableFile as exc:
            out.unreadable.append({"path": exc.path, "reason": exc.reason})
    config = summary["config"] if summary is not None else {}
    records_dir = folder / "records"
    kept = 0
    if records_dir.is_dir() and not records_dir.is_symlink():
        kept = sum(1 for p in records_dir.iterdir() if p.suffix == ".json")
    return {
        "path": root.relative(folder),
        "agents": config.get("agents", []),
        "players": config.get("players"),
        "contracts": config.get("contracts", []),
        "deals_played": summary.get("deals_played") if summary is not None else None,
        "has_summary": summary is not None,
        "records": kept,
    }


def _read_or_note(root: SafeRoot, folder: Path, name: str, out: Listing) -> Any:
    try:
        return read_json_in(root, folder, name)
    except UnreadableFile as exc:
        out.unreadable.append({"path": exc.path, "reason": exc.reason})
        return None


def scan(root: SafeRoot, check_game: Callable[[dict[str, Any]], None] | None = None) -> Listing:
    """Walk the served folder once and list what it holds; a file that cannot be read
    is listed in ``unreadable`` with its reason, and the walk goes on."""
    out = Listing()
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root.root, followlinks=False):
        here = Path(dirpath)
        files = set(filenames)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if seen > MAX_ENTRIES:
            out.truncated = True
            break
        if "results.jsonl" in files or "summary.json" in files:
            out.tournaments.append(_tournament_info(root, here, files, out))
            if "records" in dirnames:
                dirnames.remove("records")  # listed on the tournament's page
        card = _read_or_note(root, here, "model.json", out) if "model.json" in files else None
        is_model = isinstance(card, dict) and card.get("format") == MODEL_CARD_FORMAT
        if is_model and "model.zip" in files:
            out.models.append(root.relative(here))
        if "experiment.json" in files:
            _read_or_note(root, here, "experiment.json", out)
        if is_model or "experiment.json" in files:
            out.runs.append({"path": root.relative(here), "model": is_model and "model.zip" in files,
                             "experiment": "experiment.json" in files, "eval": "eval.csv" in files})
        for name in sorted(filenames):
            if name.endswith(".json") and name not in ("summary.json", "model.json", "experiment.json", "run.json"):
                p = here / name
                if p.is_symlink() and not p.resolve().is_relative_to(root.root):
                    continue
                try:
                    info = record_info(root, p.resolve(), check_game)
                except UnreadableFile as exc:
                    out.unreadable.append({"path": root.relative(p.resolve()), "reason": exc.reason})
                    continue
                if info is not None:
                    out.records.append(info)
    return out


def tournament_records(root: SafeRoot, folder: Path) -> list[str]:
    """The kept records of a tournament folder (``records/*.json``), sorted by name."""
    records_dir = folder / "records"
    if not records_dir.is_dir():
        return []
    return sorted(root.relative(p) for p in records_dir.iterdir()
                  if p.suffix == ".json" and p.resolve().is_relative_to(root.root))
