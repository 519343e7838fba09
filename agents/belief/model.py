"""The learned belief's model file: per-contract softmax weights over card features.

A model holds, for each contract, one weight per feature of
:mod:`agents.belief.features`; an opponent's weight for one unseen copy of card type
``c`` is ``exp(features[s, c] @ theta[contract])``.  It is stored as JSON (no pickle: a
file is data, never code) with the feature names and version it was fitted on, how it
was trained, and a fingerprint of the weights that loading checks.

Shipped models live beside the package's policies as ``agents/models/NAME.json`` and load
by name (:func:`load_belief_model`, ``"belief-v1"``); :data:`SHIPPED_BELIEF` is the one
``belief=learned`` means.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.belief.features import FEATURE_VERSION, FEATURES
from carioca_env.errors import CariocaError

#: Where shipped belief models are (``NAME.json``).
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "models"
#: The shipped model that ``belief=learned`` loads.
SHIPPED_BELIEF = "belief-v1"
#: A shipped belief model's name.
BELIEF_NAME = re.compile(r"^belief-v[0-9]+$")
#: The file format's version.
FORMAT = 1


class BeliefModelError(CariocaError):
    """A belief model file that is missing, malformed, or fitted on other features."""


def _fingerprint(weights: dict[str, list[float]]) -> str:
    text = json.dumps({k: [round(float(x), 12) for x in v] for k, v in sorted(weights.items())},
                      separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class BeliefModel:
    """A fitted learned belief.

    Attributes:
        name: its name (``belief-v1``).
        weights: contract number -> one weight per feature (numpy arrays).
        meta: how it was trained (seed namespace, data, time), as stored.
    """

    name: str
    weights: dict[int, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        """A hash of the weights (the file stores it; loading checks it)."""
        return _fingerprint({str(k): list(map(float, v)) for k, v in self.weights.items()})

    def contract_fingerprint(self, contract: int) -> str:
        """A hash of the weights of one contract (two models that agree on it score its
        positions the same)."""
        return _fingerprint({str(contract): list(map(float, self.theta(contract)))})

    def theta(self, contract: int) -> np.ndarray:
        """The weights of ``contract``.

        Raises:
            BeliefModelError: the model has none for it.
        """
        try:
            return self.weights[contract]
        except KeyError:
            raise BeliefModelError(f"belief model {self.name} has no weights for contract {contract}") from None

    def to_json(self) -> str:
        """The file's text."""
        weights = {str(k): [round(float(x), 12) for x in v] for k, v in sorted(self.weights.items())}
        return json.dumps({
            "format": FORMAT, "name": self.name, "feature_version": FEATURE_VERSION, "features": list(FEATURES),
            "weights": weights, "fingerprint": _fingerprint(weights), "meta": self.meta,
        }, indent=1) + "\n"

    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` (a ``.json`` file); returns the path."""
        path = Path(path)
        path.write_text(self.to_json())
        return path


def belief_model_path(name: str | Path) -> Path:
    """The file of a shipped model's name (``belief-v1``) or a ``.json`` path as it is.

    Raises:
        BeliefModelError: a shipped name that is not shipped.
    """
    if isinstance(name, str) and BELIEF_NAME.match(name):
        path = SHIPPED_DIR / f"{name}.json"
        if not path.is_file():
            shipped = sorted(p.stem for p in SHIPPED_DIR.glob("belief-v*.json"))
            raise BeliefModelError(f"no shipped belief model named {name!r}; shipped: {', '.join(shipped) or 'none'}")
        return path
    return Path(name)


def load_belief_model(name: str | Path = SHIPPED_BELIEF) -> BeliefModel:
    """Load a belief model by shipped name or path, checking everything before use.

    Raises:
        BeliefModelError: no such file, not a belief model, other features or format, a
            weight vector of the wrong length or not finite, or a fingerprint that does not
            match its weights.
    """
    path = belief_model_path(name)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise BeliefModelError(f"cannot read belief model {str(path)!r}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BeliefModelError(f"{path}: not a belief model (not JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BeliefModelError(f"{path}: not a belief model of format {FORMAT}")
    if data.get("feature_version") != FEATURE_VERSION or data.get("features") != list(FEATURES):
        raise BeliefModelError(f"{path}: fitted on other features (version {data.get('feature_version')!r}, "
                               f"this code reads version {FEATURE_VERSION})")
    raw = data.get("weights")
    if not isinstance(raw, dict) or not raw:
        raise BeliefModelError(f"{path}: no weights")
    weights: dict[int, np.ndarray] = {}
    for key, vec in raw.items():
        if key not in {str(k) for k in range(1, 8)}:
            raise BeliefModelError(f"{path}: weights for {key!r}, which is no contract (1..7)")
        if (not isinstance(vec, list) or len(vec) != len(FEATURES)
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vec)):
            raise BeliefModelError(f"{path}: contract {key} needs {len(FEATURES)} numbers")
        arr = np.array(vec, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise BeliefModelError(f"{path}: contract {key} has a weight that is not finite")
        weights[int(key)] = arr
    if data.get("fingerprint") != _fingerprint(raw):
        raise BeliefModelError(f"{path}: the fingerprint does not match the weights (the file was altered)")
    meta = data.get("meta")
    if not isinstance(meta, dict):
        meta = {}
    return BeliefModel(str(data.get("name", path.stem)), weights, meta)
