"""The luck value function: ``V(state) -> expected final deal penalty of each seat``.

A :class:`ValueFunction` is a linear model per (player count, contract) on the design
rows of :mod:`experiments.evaluation.luck.features`, read from a JSON value file.  The shipped one,
:func:`shipped_value`, was fitted once by :mod:`experiments.evaluation.luck.fit` on games between the
built-in agents dealt from their own seed namespace (never a tournament's decks), then
frozen: its :attr:`~ValueFunction.fingerprint` (a hash of the features' version and the
weights) names it in tournament configs, so results corrected by one value function are
never mixed with another's.

Evaluation sums products in a fixed order with numpy (no BLAS call whose summation order
could change with threads), so a value is the same bytes in every process.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from experiments.evaluation.luck.features import FEATURE_VERSION, design, draw_stats, num_features, state_stats

#: The value file format.
VALUE_FORMAT = "carioca-luck-value"
VALUE_VERSION = 1
#: The value file shipped with the package.
SHIPPED_FILE = Path(__file__).with_name("value-v1.json")


class ValueFileError(ValueError):
    """A value file that cannot be used: unreadable, another format, or the wrong features."""


def model_key(num_players: int, contract: int) -> str:
    """The key of one linear model in a value file: ``"p{players}-c{contract}"``."""
    return f"p{num_players}-c{contract}"


@dataclass(frozen=True)
class ValueFunction:
    """Linear models ``V = design(state) @ w`` per (player count, contract).

    Attributes:
        weights: model key (:func:`model_key`) -> weight vector.
        meta: how it was fitted (agents, seeds, deals, held-out fit); not part of the
            fingerprint.
    """

    weights: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        """``v1-`` and 12 hex digits of a SHA-256 over the features' version and the weights."""
        body = json.dumps(
            {"features": FEATURE_VERSION, "weights": {k: [float(x) for x in v] for k, v in sorted(self.weights.items())}},
            sort_keys=True, separators=(",", ":"),
        )
        return f"v{VALUE_VERSION}-" + hashlib.sha256(body.encode()).hexdigest()[:12]

    def model(self, num_players: int, contract: int) -> np.ndarray:
        """The weights for a player count and contract.

        Raises:
            ValueFileError: the value function has no model for them.
        """
        w = self.weights.get(model_key(num_players, contract))
        if w is None:
            raise ValueFileError(
                f"the luck value function {self.fingerprint} has no model for {num_players} players, "
                f"contract {contract} (it has {', '.join(sorted(self.weights))})"
            )
        return w

    def evaluate(self, game: Any) -> np.ndarray:
        """``V`` of the game's state: the expected final penalty of each seat in this deal."""
        w = self.model(game.num_players, game.deal_number)
        x = design(state_stats(game), game.current, game.turn)
        return np.sum(x * w, axis=-1)

    def draw_values(self, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V`` after each possible stock draw of the player to act (draw phase, stock not empty).

        Returns ``(cards, weights, values)``: the card types in the stock, their copies,
        and ``values[k]`` = :meth:`evaluate` of the state after drawing ``cards[k]``.
        """
        w = self.model(game.num_players, game.deal_number)
        cards, counts, stats = draw_stats(game)
        x = design(stats, game.current, game.turn)
        return cards, counts, np.sum(x * w, axis=-1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the value file."""
        return {
            "format": VALUE_FORMAT,
            "version": VALUE_VERSION,
            "features": FEATURE_VERSION,
            "fingerprint": self.fingerprint,
            "weights": {k: [float(x) for x in v] for k, v in sorted(self.weights.items())},
            "meta": self.meta,
        }

    def save(self, path: str | Path) -> None:
        """Write the value file (JSON)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @staticmethod
    def load(path: str | Path) -> ValueFunction:
        """Read a value file written by :meth:`save`.

        Raises:
            ValueFileError: unreadable, not this format or version, fitted on other
                features, weights of the wrong length, or a fingerprint that does not
                match the weights (the file was edited).
        """
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueFileError(f"cannot read the luck value file {path}: {exc}") from None
        if not isinstance(d, dict) or d.get("format") != VALUE_FORMAT or d.get("version") != VALUE_VERSION:
            raise ValueFileError(f"{path} is not a {VALUE_FORMAT} file of version {VALUE_VERSION}")
        if d.get("features") != FEATURE_VERSION:
            raise ValueFileError(
                f"{path} was fitted on features {d.get('features')!r}; this version computes {FEATURE_VERSION!r}"
            )
        raw = d.get("weights")
        if not isinstance(raw, dict) or not raw:
            raise ValueFileError(f"{path} holds no weights")
        weights: dict[str, np.ndarray] = {}
        for key, vec in raw.items():
            try:
                players = int(str(key).split("-")[0][1:])
                want = num_features(players)
                arr = np.asarray(vec, dtype=np.float64)
            except (ValueError, TypeError, IndexError):
                raise ValueFileError(f"{path}: model {key!r} is not a player count and contract with numbers") from None
            if arr.shape != (want,) or not np.all(np.isfinite(arr)):
                raise ValueFileError(f"{path}: model {key!r} needs {want} finite weights, got shape {arr.shape}")
            weights[str(key)] = arr
        vf = ValueFunction(weights, dict(d.get("meta") or {}))
        if d.get("fingerprint") != vf.fingerprint:
            raise ValueFileError(
                f"{path}: the recorded fingerprint {d.get('fingerprint')!r} does not match its weights ({vf.fingerprint})"
            )
        return vf


_SHIPPED: list[ValueFunction] = []


def shipped_value() -> ValueFunction:
    """The value function shipped with the package (loaded once per process)."""
    if not _SHIPPED:
        _SHIPPED.append(ValueFunction.load(SHIPPED_FILE))
    return _SHIPPED[0]
