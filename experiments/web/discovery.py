"""What the served folder holds: game records, tournaments, training runs and models.

One bounded walk of the folder (symlinked folders are not followed, so a link cannot
loop or lead out; hidden and tool folders are skipped).  A tournament is a folder with
``results.jsonl`` or ``summary.json`` (``carioca tournament``); its kept records
(``records/*.json``) are listed on its own page, not on the front page.  A model is a
folder with a ``model.json`` card of a ``ppo:`` model (``carioca train``); a training
run is a folder with ``experiment.json`` (``carioca train-all``) or a model card.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.web.safepath import SafeRoot

RECORD_FORMAT = "carioca-game-record"
MODEL_CARD_FORMAT = "carioca-ppo-model"
#: folders never walked into
SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".hypothesis",
                       ".pytest_cache", ".mypy_cache", ".ipynb_checkpoints", "site-packages"})
#: a JSON file larger than this is not read as a record (records are a few kB)
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: entries visited at most in one walk (a front page stays fast on a huge folder)
MAX_ENTRIES = 50_000


@dataclass
class Listing:
    """What one walk found (paths relative to the served folder)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    tournaments: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    truncated: bool = False


def read_json(path: Path, limit: int = MAX_RECORD_BYTES) -> Any:
    """The JSON in ``path``, or None when it is too large, unreadable or not JSON."""
    try:
        if path.stat().st_size > limit:
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def read_json_in(root: SafeRoot, folder: Path, name: str) -> Any:
    """The JSON of ``folder/name`` when that file resolves inside the served folder, else None."""
    real = root.child(folder, name)
    return None if real is None else read_json(real)


def record_info(root: SafeRoot, path: Path) -> dict[str, Any] | None:
    """A record's header facts for a listing, or None when ``path`` is no game record."""
    rec = read_json(path)
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        return None
    config = rec.get("config") if isinstance(rec.get("config"), dict) else {}
    deals = config.get("deals") if isinstance(config.get("deals"), list) else []
    scores = rec.get("deal_scores") if isinstance(rec.get("deal_scores"), list) else []
    session = rec.get("session") if isinstance(rec.get("session"), dict) else None
    return {
        "path": root.relative(path),
        "players": config.get("num_players"),
        "deals": deals,
        "moves": len(rec.get("moves") or []),
        "agents": rec.get("agents") or [],
        "totals": rec.get("totals") or [],
        "finished": bool(deals) and len(scores) >= len(deals),
        "session": session,
    }


def _tournament_info(root: SafeRoot, folder: Path, files: set[str]) -> dict[str, Any]:
    summary = read_json_in(root, folder, "summary.json") if "summary.json" in files else None
    config = summary.get("config", {}) if isinstance(summary, dict) else {}
    records_dir = folder / "records"
    kept = 0
    if records_dir.is_dir() and not records_dir.is_symlink():
        kept = sum(1 for p in records_dir.iterdir() if p.suffix == ".json")
    return {
        "path": root.relative(folder),
        "agents": config.get("agents", []),
        "players": config.get("players"),
        "contracts": config.get("contracts", []),
        "deals_played": summary.get("deals_played") if isinstance(summary, dict) else None,
        "has_summary": summary is not None,
        "records": kept,
    }


def scan(root: SafeRoot) -> Listing:
    """Walk the served folder once and list what it holds."""
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
            out.tournaments.append(_tournament_info(root, here, files))
            if "records" in dirnames:
                dirnames.remove("records")  # listed on the tournament's page
        card = read_json_in(root, here, "model.json") if "model.json" in files else None
        is_model = isinstance(card, dict) and card.get("format") == MODEL_CARD_FORMAT
        if is_model and "model.zip" in files:
            out.models.append(root.relative(here))
        if is_model or "experiment.json" in files:
            out.runs.append({"path": root.relative(here), "model": is_model and "model.zip" in files,
                             "experiment": "experiment.json" in files, "eval": "eval.csv" in files})
        for name in sorted(filenames):
            if name.endswith(".json") and name not in ("summary.json", "model.json", "experiment.json", "run.json"):
                p = here / name
                if p.is_symlink() and not p.resolve().is_relative_to(root.root):
                    continue
                info = record_info(root, p)
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
