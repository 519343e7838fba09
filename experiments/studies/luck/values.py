"""The luck value functions that only reproduce past studies: versions 1 and 4.

- version 1, :class:`ValueFunction` (``value-v1.json``): a linear model per (player count,
  contract) on the design rows of :mod:`carioca_experiments.studies.luck.seat_features`;
- version 4, :class:`ActionValue` (``value-v4.json``): a version 3 of the draws plus
  weights on the action features of :mod:`carioca_experiments.studies.luck.action_features`,
  which value the options of a choice an agent declared random (AIVAT's action terms).
  Its held-out ratios did not beat version 3 (``docs/results/2026-12-03-luck-correction-v4.md``).

Importing this module adds both to the table of :mod:`carioca_experiments.evaluation.luck.value`
(:func:`~carioca_experiments.evaluation.luck.value.register_version`), so the studies' commands,
and tournaments resumed from a checkout that imports it, read their files; the installed
package refuses them in one line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.evaluation.luck.value import (
    DRAW_DECIMALS,
    DRAW_VERSION,
    VALUE_FORMAT,
    DrawValue,
    ValueFileError,
    _check_fingerprint,
    _ValueFile,
    model_key,
    register_version,
)
from carioca_experiments.studies.luck import action_features as features4
from carioca_experiments.studies.luck.seat_features import (
    FEATURE_VERSION,
    design,
    draw_stats,
    num_features,
    state_stats,
)

#: The version of :class:`ValueFunction` files.
VALUE_VERSION = 1
#: The study versions' files, kept beside this module.
STUDY_FILES: dict[int, Path] = {v: Path(__file__).with_name(f"value-v{v}.json") for v in (1, 4)}


@dataclass(frozen=True)
class ValueFunction(_ValueFile):
    """Linear models ``V = design(state) @ w`` per (player count, contract).

    Attributes:
        weights: model key (:func:`model_key`) -> weight vector.
        meta: how it was fitted (agents, seeds, deals, held-out fit); not part of the
            fingerprint.
    """

    weights: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @cached_property
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
        _check_fingerprint(d, vf.fingerprint, path, "weights")
        return vf



#: The version of :class:`ActionValue` files.
ACTION_VERSION = 4


@dataclass(frozen=True)
class ActionValue(_ValueFile):
    """Version 4: a version-3 value of the stock draws (``draw``) and, per (player count,
    contract), weights ``[num_players, len(CONTEXT), len(ACTION_ATTRS)]`` on the action
    features of :mod:`carioca_experiments.studies.luck.action_features`, which value each option of a
    choice an agent declared random (:class:`carioca_agents.base.DeclaredChoice`).

    A (player count, contract) without action weights gets draw corrections only.  Weights
    are rounded to :data:`DRAW_DECIMALS` decimals, like version 3's.

    Attributes:
        draw: the draw part, a complete version-3 value function (its models refitted
            jointly with the action weights, or version 3's own where those validated better).
        actions: model key (:func:`model_key`) -> action weights.
        meta: how it was fitted; not part of the fingerprint.
    """

    draw: DrawValue
    actions: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rounded = {k: np.round(np.asarray(v, dtype=np.float64), DRAW_DECIMALS) for k, v in self.actions.items()}
        object.__setattr__(self, "actions", rounded)

    @cached_property
    def fingerprint(self) -> str:
        """``v4-`` and 12 hex digits of a SHA-256 over the action features' version, the
        action weights and the draw part's fingerprint."""
        body = {"features": features4.FEATURE_VERSION, "draw": self.draw.fingerprint,
                "actions": {k: v.ravel().tolist() for k, v in sorted(self.actions.items())}}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return f"v{ACTION_VERSION}-" + hashlib.sha256(text.encode()).hexdigest()[:12]

    def model(self, num_players: int, contract: int) -> np.ndarray | float:
        """The draw part's model for a player count and contract (:meth:`DrawValue.model`).

        Raises:
            ValueFileError: the value function has no model for them.
        """
        return self.draw.model(num_players, contract)

    def evaluate(self, game: Any) -> np.ndarray:
        """``V`` of the state right after a stock draw, per seat (the draw part's)."""
        return self.draw.evaluate(game)

    def draw_values(self, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V`` after each possible stock draw (the draw part's :meth:`DrawValue.draw_values`)."""
        return self.draw.draw_values(game)

    def action_values(self, game: Any, options: Sequence[Any]) -> np.ndarray | None:
        """``V`` after each of ``options`` of the player to act, ``[len(options), num_players]``,
        or ``None`` when this (player count, contract) has no action weights or an option is
        of a kind not valued (:func:`carioca_experiments.studies.luck.action_features.valued`)."""
        w = self.actions.get(model_key(game.num_players, game.deal_number))
        if w is None or not features4.valued(options):
            return None
        ctx, attrs = features4.action_features(game, options)
        return features3.values(w, game.current, ctx, attrs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the value file (the draw part nested in its own version-3 form)."""
        return {
            "format": VALUE_FORMAT,
            "version": ACTION_VERSION,
            "features": features4.FEATURE_VERSION,
            "context": list(features3.CONTEXT),
            "attributes": list(features4.ACTION_ATTRS),
            "fingerprint": self.fingerprint,
            "actions": {k: v.tolist() for k, v in sorted(self.actions.items())},
            "draw": self.draw.to_dict(),
            "meta": self.meta,
        }

    @staticmethod
    def from_dict(d: dict[str, Any], path: str | Path) -> ActionValue:
        """The value function of a parsed version-4 file (``path`` names it in errors).

        Raises:
            ValueFileError: other features, a draw part that is not a valid version 3,
                action weights of the wrong shape or not finite, or a fingerprint that does
                not match (the file was edited).
        """
        if d.get("features") != features4.FEATURE_VERSION:
            raise ValueFileError(
                f"{path} was fitted on features {d.get('features')!r}; this version computes "
                f"{features4.FEATURE_VERSION!r}"
            )
        draw = d.get("draw")
        if not isinstance(draw, dict) or draw.get("version") != DRAW_VERSION:
            raise ValueFileError(f"{path} has no version-3 draw part")
        draw_value = DrawValue.from_dict(draw, path)
        raw = d.get("actions")
        if not isinstance(raw, dict):
            raise ValueFileError(f"{path} holds no action weights")
        actions: dict[str, np.ndarray] = {}
        for key, w in raw.items():
            try:
                players = int(str(key).split("-")[0][1:])
                arr = np.asarray(w, dtype=np.float64)
            except (ValueError, TypeError, IndexError):
                raise ValueFileError(f"{path}: action model {key!r} is not a player count and contract with weights") from None
            shape = (players, len(features3.CONTEXT), len(features4.ACTION_ATTRS))
            if arr.shape != shape or not np.all(np.isfinite(arr)):
                raise ValueFileError(f"{path}: action model {key!r} needs finite weights of shape {shape}, got {arr.shape}")
            actions[str(key)] = arr
        vf = ActionValue(draw_value, actions, dict(d.get("meta") or {}))
        _check_fingerprint(d, vf.fingerprint, path, "weights")
        return vf


register_version(VALUE_VERSION, lambda d, path: ValueFunction.load(path), STUDY_FILES[VALUE_VERSION])
register_version(ACTION_VERSION, ActionValue.from_dict, STUDY_FILES[ACTION_VERSION])
