"""The learned belief's model file: per-contract softmax weights over card features.

A model holds, for each contract, one weight per feature of
:mod:`carioca_agents.belief.features`; an opponent's weight for one unseen copy of card type
``c`` is ``exp(features[s, c] @ theta[contract])``.  It is stored as JSON (no pickle: a
file is data, never code) with the feature names and version it was fitted on, how it
was trained, and a fingerprint of the weights that loading checks.

A model may also carry a **calibration** per contract (file format 2): a temperature ``t``
that scales the logits (``exp(t * features @ theta)``; below 1 it flattens an overconfident
model) and a weight ``u`` of the uniform belief mixed into the probability that a copy is
hidden (``(1 - u) * p + u * k / unseen``), so that no card is ever believed certain.  The
weights stay those of the model it calibrates; format-1 files (no calibration) still load,
as the identity ``t = 1, u = 0``.

Shipped models live beside the package's policies as ``agents/models/NAME.json`` and load
by name (:func:`load_belief_model`, ``"belief-v2"``); :data:`SHIPPED_BELIEF` is the one
``belief=learned`` means: the newest shipped version.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from carioca_agents.belief.features import FEATURE_VERSION, FEATURES
from carioca_env.errors import CariocaError

#: Where shipped belief models are (``NAME.json``).
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "models"
#: The shipped model that ``belief=learned`` loads: the newest version shipped (a test checks it).
SHIPPED_BELIEF = "belief-v2"
#: A shipped belief model's name.
BELIEF_NAME = re.compile(r"^belief-v[0-9]+$")
#: The file format written: 2 adds the per-contract calibration (format 1 still loads).
FORMAT = 2
#: The file formats read.
FORMATS = (1, 2)
#: The calibration of a contract without one: temperature 1, no uniform mixed in.
IDENTITY = (1.0, 0.0)


class BeliefModelError(CariocaError):
    """A belief model file that is missing, malformed, or fitted on other features."""


def _fingerprint(weights: dict[str, list[float]], calibration: dict[str, list[float]] | None = None) -> str:
    """A hash of the weights and, when there is one, the calibration (a format-1 file's
    hash is that of its weights alone, as it was written)."""
    body: dict[str, Any] = {k: [round(float(x), 12) for x in v] for k, v in sorted(weights.items())}
    if calibration:
        body = {"weights": body, "calibration": {k: [round(float(x), 12) for x in v]
                                                 for k, v in sorted(calibration.items())}}
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class BeliefModel:
    """A fitted learned belief.

    Attributes:
        name: its name (``belief-v1``).
        weights: contract number -> one weight per feature (numpy arrays).
        meta: how it was trained (seed namespace, data, time), as stored.
        calibration: contract number -> ``(temperature, uniform weight)``; a contract
            absent here is uncalibrated (:data:`IDENTITY`).
    """

    name: str
    weights: dict[int, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)
    calibration: dict[int, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for c, (t, u) in self.calibration.items():
            if not (np.isfinite(t) and t > 0 and 0 <= u < 1):
                raise BeliefModelError(f"belief model {self.name}: contract {c} needs a temperature > 0 and a "
                                       f"uniform weight in [0, 1), got {t!r} and {u!r}")

    def _calibration_lists(self) -> dict[str, list[float]]:
        return {str(k): [float(t), float(u)] for k, (t, u) in self.calibration.items()}

    @property
    def fingerprint(self) -> str:
        """A hash of the weights and the calibration (the file stores it; loading checks it)."""
        return _fingerprint({str(k): list(map(float, v)) for k, v in self.weights.items()}, self._calibration_lists())

    def calibrated(self, contract: int) -> tuple[float, float]:
        """``(temperature, uniform weight)`` of ``contract`` (:data:`IDENTITY` without a calibration)."""
        return self.calibration.get(contract, IDENTITY)

    def contract_fingerprint(self, contract: int) -> str:
        """A hash of the weights and calibration of one contract (two models that agree on
        it score its positions the same)."""
        cal = {str(contract): list(self.calibration[contract])} if contract in self.calibration else None
        return _fingerprint({str(contract): list(map(float, self.theta(contract)))}, cal)

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
        calibration = {k: [round(x, 12) for x in v] for k, v in sorted(self._calibration_lists().items())}
        return json.dumps({
            "format": FORMAT, "name": self.name, "feature_version": FEATURE_VERSION, "features": list(FEATURES),
            "weights": weights, "calibration": calibration, "fingerprint": _fingerprint(weights, calibration),
            "meta": self.meta,
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
    if not isinstance(data, dict) or data.get("format") not in FORMATS:
        raise BeliefModelError(f"{path}: not a belief model of format {' or '.join(map(str, FORMATS))}")
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
    cal_raw = data.get("calibration", {}) if data["format"] >= 2 else {}
    if not isinstance(cal_raw, dict):
        raise BeliefModelError(f"{path}: the calibration is not a mapping of contracts")
    calibration: dict[int, tuple[float, float]] = {}
    for key, pair in cal_raw.items():
        if key not in {str(k) for k in weights}:
            raise BeliefModelError(f"{path}: a calibration for {key!r}, which has no weights")
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in pair)
                or not (math.isfinite(pair[0]) and pair[0] > 0 and 0 <= pair[1] < 1)):
            raise BeliefModelError(f"{path}: contract {key}'s calibration must be [temperature > 0, "
                                   f"uniform weight in [0, 1)]")
        calibration[int(key)] = (float(pair[0]), float(pair[1]))
    if data.get("fingerprint") != _fingerprint(raw, cal_raw):
        raise BeliefModelError(f"{path}: the fingerprint does not match the weights (the file was altered)")
    meta = data.get("meta")
    if not isinstance(meta, dict):
        meta = {}
    return BeliefModel(str(data.get("name", path.stem)), weights, meta, calibration)
