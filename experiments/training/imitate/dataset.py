"""The imitation data on disk: ``.npz`` shards and a JSON manifest.

A data folder (``OUT/data``) holds:

- ``manifest.json``: what the data is (below) and the list of finished shards;
- ``<split>-i<iter>-<k>.npz``: one shard, the labelled states of a block of games.

``<split>`` is ``train`` (DAgger iterations 0, 1, ...) or ``heldout`` (games on decks of
another seed range, teacher roll-outs only: the accuracy is measured there).  Each shard
is ``numpy.savez_compressed`` with one row per labelled state (a state where the
learner's seat had to choose an action id; an opening chosen meld by meld gives one row
per meld):

================  ========  ==========================================================
array             dtype     meaning
================  ========  ==========================================================
obs               float32   the learner's observation (``encode_observation``), N x obs
mask              uint8     the legal-action mask, ``numpy.packbits`` per row (N x
                            ceil(actions / 8)); :func:`unpack_masks` restores it
action            int32     the teacher's action id in that state (the label)
played            int32     the action id actually played (teacher's or learner's)
by_learner        bool      whether the learner chose the played action
ret               float32   the learner seat's discounted return from this state on
                            (rewards minus the deal penalty times ``reward_scale``,
                            discount ``gamma``; a deal cut at ``max_turns`` scores the
                            cards still held, as in training)
seat              int8      the learner's seat
game_seed         int64     the game's seed (``Game(config, seed)`` deals the decks)
game              int32     the game's index in its iteration
step              int32     the row's position in its game (learner decisions)
deal              int8      the contract being played
================  ========  ==========================================================

The manifest (``"format": "carioca-imitation-data"``, version 1) records the layout
(players, observation and action sizes, the layout fingerprint of
:func:`carioca_agents.ppo_agent.layout_fingerprint`), the teacher and opponent specs, the seeds,
``gamma`` and ``reward_scale``, and per shard its file, split, iteration, games, rows,
the beta (share of teacher moves) of its roll-ins and its SHA-256.  A shard listed in
the manifest is complete (shards are written to a temporary name and renamed; the
manifest is rewritten after each one).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from carioca_experiments.common.files import write_file
from carioca_experiments.training.state_rows import StateRows

DATA_FORMAT = "carioca-imitation-data"
DATA_VERSION = 1
COLUMNS = ("obs", "mask", "action", "played", "by_learner", "ret", "seat", "game_seed", "game", "step", "deal")


class DatasetError(ValueError):
    """A data folder that is not this run's, or a shard that is missing or corrupt."""


@dataclass
class Rows(StateRows):
    """Labelled states gathered in memory before they become a shard: the shared columns
    of :class:`~carioca_experiments.training.state_rows.StateRows` and the roll-in's own."""

    played: list[int] = field(default_factory=list)
    by_learner: list[bool] = field(default_factory=list)
    ret: list[float] = field(default_factory=list)

    def arrays(self) -> dict[str, np.ndarray]:
        """The shard's arrays (see the module docstring)."""
        arrays = {
            **self.state_arrays(),
            "played": np.asarray(self.played, dtype=np.int32),
            "by_learner": np.asarray(self.by_learner, dtype=bool),
            "ret": np.asarray(self.ret, dtype=np.float32),
        }
        return {k: arrays[k] for k in COLUMNS}


def unpack_masks(packed: np.ndarray, num_actions: int) -> np.ndarray:
    """Boolean masks (N x actions) from a shard's packed ``mask`` array."""
    return np.unpackbits(packed, axis=1, count=num_actions).astype(bool)


class DataFolder:
    """A data folder: its manifest header (``meta``) and finished shards.

    Opening a folder whose manifest has another header refuses it (the data of another
    run must not be mixed in); an empty folder starts a manifest with ``meta``.  The
    class attributes name the format; another shard format (the rollout advantages of
    :mod:`carioca_experiments.studies.improve.data`) is a subclass that sets its own.
    """

    FORMAT: str = DATA_FORMAT
    VERSION: int = DATA_VERSION
    COLUMNS: tuple[str, ...] = COLUMNS

    def __init__(self, path: str | Path, meta: dict[str, Any]) -> None:
        self.path = Path(path)
        self.meta = json.loads(json.dumps(meta))
        self.shards: list[dict[str, Any]] = []
        mf = self.path / "manifest.json"
        if mf.exists():
            try:
                doc = json.loads(mf.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise DatasetError(f"{mf} is unreadable ({exc}); move the folder away or pass --overwrite") from None
            if not isinstance(doc, dict) or doc.get("format") != self.FORMAT or doc.get("version") != self.VERSION:
                raise DatasetError(f"{mf} is not a version-{self.VERSION} {self.FORMAT} manifest")
            diffs = [f"{k}: the folder has {doc['meta'].get(k)!r}, this run has {v!r}"
                     for k, v in self.meta.items() if doc.get("meta", {}).get(k) != v]
            if diffs:
                raise DatasetError(f"{self.path} holds data of another run:\n  " + "\n  ".join(diffs)
                                   + "\nchoose another --out or pass --overwrite")
            self.shards = list(doc.get("shards", []))

    def has(self, name: str) -> bool:
        """Whether shard ``name`` is finished."""
        return any(s["file"] == name for s in self.shards)

    def write(self, name: str, rows: Any, **info: Any) -> None:
        """Write shard ``name`` (atomically) and list it in the manifest."""
        buf = io.BytesIO()
        np.savez_compressed(buf, **rows.arrays())
        data = buf.getvalue()
        write_file(self.path / name, data)
        self.shards = [s for s in self.shards if s["file"] != name]
        self.shards.append({"file": name, "rows": len(rows), "sha256": hashlib.sha256(data).hexdigest(), **info})
        self._save()

    def _save(self) -> None:
        doc = {"format": self.FORMAT, "version": self.VERSION, "meta": self.meta, "shards": self.shards}
        write_file(self.path / "manifest.json", (json.dumps(doc, indent=1) + "\n").encode())

    def load(self, split: str, iterations: Sequence[int] | None = None) -> dict[str, np.ndarray]:
        """The concatenated arrays of the finished shards of ``split`` (and those iterations).

        Raises:
            DatasetError: a listed shard missing, changed since it was written, or unreadable.
        """
        parts: list[dict[str, np.ndarray]] = []
        for s in self.shards:
            if s["split"] != split or (iterations is not None and s["iteration"] not in iterations):
                continue
            parts.append(read_shard(self.path / s["file"], s.get("sha256"), self.COLUMNS))
        if not parts:
            return {}
        return {k: np.concatenate([p[k] for p in parts]) for k in self.COLUMNS}


def read_shard(path: str | Path, sha256: str | None = None,
               columns: Sequence[str] = COLUMNS) -> dict[str, np.ndarray]:
    """One shard's arrays (``columns``), checked against its manifest hash when given.

    Raises:
        DatasetError: missing, changed or unreadable.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DatasetError(f"shard {p} cannot be read ({exc.strerror or exc})") from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise DatasetError(f"shard {p} changed since it was written (hash mismatch); delete it and rerun")
    try:
        with np.load(io.BytesIO(data)) as z:
            out = {k: z[k] for k in columns}
    except Exception as exc:  # noqa: BLE001 - zip, pickle or key errors: all mean corrupt
        raise DatasetError(f"shard {p} is corrupt: {type(exc).__name__}: {exc}") from None
    return out
