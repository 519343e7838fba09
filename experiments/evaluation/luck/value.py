"""The luck value function: ``V(state) -> expected final deal penalty of each seat``.

Four versions, each read from a JSON value file and named by its fingerprint (a hash of
its features' version and its parameters) in tournament configs, so results corrected by
one value function are never mixed with another's:

- version 1, :class:`ValueFunction` (``value-v1.json``): a linear model per (player count,
  contract) on the design rows of :mod:`experiments.evaluation.luck.features`;
- version 2, :class:`MlpValue` (``value-v2.json``): a small network per (player count,
  contract) on the race features of :mod:`experiments.evaluation.luck.features2`
  (deficiencies, live outs in the stock, penalties of every seat);
- version 3, :class:`DrawValue` (``value-v3.json``): per (player count, contract) and seat
  position, weights on the draw features of :mod:`experiments.evaluation.luck.features3` (what the
  card drawn is worth to each seat in its context), fitted by
  :mod:`experiments.evaluation.luck.fit3` so that the corrections explain the penalties;
- version 4, :class:`ActionValue` (a version 3 of the draws plus weights on the action
  features of :mod:`experiments.evaluation.luck.features4`, which value the options of a
  choice an agent declared random: AIVAT's action terms), fitted by
  :mod:`experiments.evaluation.luck.fit4`.

All were fitted once on games between the built-in agents dealt from their own seed
namespace (never a tournament's decks), then frozen.  :func:`shipped_value` is the
default (:data:`SHIPPED_FILE`); :func:`value_by_fingerprint` finds any shipped version, so
a tournament corrected by an older one can still be resumed.

Versions 1 and 3 sum products in a fixed order with numpy.  Version 2 multiplies small
matrices (at most a few hundred rows); every process of a run uses the same numpy, so a
value is the same bytes with any number of workers (the tournament tests check it).
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

from experiments.common.files import write_file
from experiments.evaluation.luck import features2, features3, features4
from experiments.evaluation.luck.features import FEATURE_VERSION, design, draw_stats, num_features, state_stats

#: The value file format.
VALUE_FORMAT = "carioca-luck-value"
VALUE_VERSION = 1
#: The value files shipped with the package, oldest first (:data:`SHIPPED_FILE` is the default).
SHIPPED_FILES = tuple(Path(__file__).with_name(f"value-v{v}.json") for v in (1, 2, 3, 4))
#: The value file of :func:`shipped_value`, the default of ``--luck-correction``: version 3
#: (version 4's held-out ratios on its fitting decks did not beat it).
SHIPPED_FILE = SHIPPED_FILES[2]


class ValueFileError(ValueError):
    """A value file that cannot be used: unreadable, another format, or the wrong features."""


def model_key(num_players: int, contract: int) -> str:
    """The key of one linear model in a value file: ``"p{players}-c{contract}"``."""
    return f"p{num_players}-c{contract}"


class _ValueFile:
    """What every version's value function shares: writing itself as its JSON file."""

    def to_dict(self) -> dict[str, Any]:
        """The file's content (each version defines it)."""
        raise NotImplementedError

    def save(self, path: str | Path) -> None:
        """Write the value file (JSON), atomically: a reader never sees half a file."""
        write_file(path, json.dumps(self.to_dict(), indent=1) + "\n")


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
        if d.get("fingerprint") != vf.fingerprint:
            raise ValueFileError(
                f"{path}: the recorded fingerprint {d.get('fingerprint')!r} does not match its weights ({vf.fingerprint})"
            )
        return vf


#: The version of :class:`MlpValue` files.
MLP_VERSION = 2
#: The parameters of one network, in order: input shift and scale, two hidden layers, the
#: output layer (``w3`` a vector, ``b3`` one number) and the output's scale and shift.
MLP_PARAMS = ("mu", "sd", "w1", "b1", "w2", "b2", "w3", "b3", "y_scale", "y_shift")


def _mlp_shapes(inputs: int, hidden: int) -> dict[str, tuple[int, ...]]:
    return {"mu": (inputs,), "sd": (inputs,), "w1": (inputs, hidden), "b1": (hidden,), "w2": (hidden, hidden),
            "b2": (hidden,), "w3": (hidden,), "b3": (), "y_scale": (), "y_shift": ()}


def mlp_forward(params: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """One network's output for input rows ``x [..., inputs]``: ``[...]``."""
    z = (x - params["mu"]) / params["sd"]
    h = np.maximum(z @ params["w1"] + params["b1"], 0.0)
    h = np.maximum(h @ params["w2"] + params["b2"], 0.0)
    return (h @ params["w3"] + params["b3"]) * params["y_scale"] + params["y_shift"]


@dataclass(frozen=True)
class MlpValue(_ValueFile):
    """Version 2: a network with two ReLU hidden layers per (player count, contract) on
    :func:`experiments.evaluation.luck.features2.design` rows, one row per seat.

    Attributes:
        models: model key (:func:`model_key`) -> parameters (:data:`MLP_PARAMS`).
        meta: how it was fitted (agents, seeds, deals, held-out fit); not part of the
            fingerprint.
    """

    models: dict[str, dict[str, np.ndarray]]
    meta: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def fingerprint(self) -> str:
        """``v2-`` and 12 hex digits of a SHA-256 over the features' version and the parameters
        (computed once: every deal of a tournament looks its value function up by it)."""
        body = json.dumps(
            {"features": features2.FEATURE_VERSION,
             "models": {k: {p: np.asarray(v[p], dtype=np.float64).ravel().tolist() for p in MLP_PARAMS}
                        for k, v in sorted(self.models.items())}},
            sort_keys=True, separators=(",", ":"),
        )
        return f"v{MLP_VERSION}-" + hashlib.sha256(body.encode()).hexdigest()[:12]

    def model(self, num_players: int, contract: int) -> dict[str, np.ndarray]:
        """The network for a player count and contract.

        Raises:
            ValueFileError: the value function has no model for them.
        """
        m = self.models.get(model_key(num_players, contract))
        if m is None:
            raise ValueFileError(
                f"the luck value function {self.fingerprint} has no model for {num_players} players, "
                f"contract {contract} (it has {', '.join(sorted(self.models))})"
            )
        return m

    def evaluate(self, game: Any) -> np.ndarray:
        """``V`` of the state right after a stock draw: the expected final penalty of each seat."""
        m = self.model(game.num_players, game.deal_number)
        x = features2.design(features2.state_stats(game), game.current, game.turn, float(len(game.stock)))
        return mlp_forward(m, x)

    def draw_values(self, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V`` after each possible stock draw of the player to act (draw phase, stock not empty).

        Returns ``(cards, weights, values)`` as :meth:`ValueFunction.draw_values`.
        """
        m = self.model(game.num_players, game.deal_number)
        cards, counts, stats = features2.draw_stats(game)
        x = features2.design(stats, game.current, game.turn, float(len(game.stock) - 1))
        return cards, counts, mlp_forward(m, x)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the value file."""
        return {
            "format": VALUE_FORMAT,
            "version": MLP_VERSION,
            "features": features2.FEATURE_VERSION,
            "fingerprint": self.fingerprint,
            "models": {k: {p: np.asarray(v[p], dtype=np.float64).tolist() for p in MLP_PARAMS}
                       for k, v in sorted(self.models.items())},
            "meta": self.meta,
        }

    @staticmethod
    def from_dict(d: dict[str, Any], path: str | Path) -> MlpValue:
        """The value function of a parsed version-2 file (``path`` names it in errors).

        Raises:
            ValueFileError: other features, a network of the wrong shape or with
                non-finite numbers, or a fingerprint that does not match (the file was edited).
        """
        if d.get("features") != features2.FEATURE_VERSION:
            raise ValueFileError(
                f"{path} was fitted on features {d.get('features')!r}; this version computes "
                f"{features2.FEATURE_VERSION!r}"
            )
        raw = d.get("models")
        if not isinstance(raw, dict) or not raw:
            raise ValueFileError(f"{path} holds no models")
        models: dict[str, dict[str, np.ndarray]] = {}
        for key, params in raw.items():
            try:
                players = int(str(key).split("-")[0][1:])
                inputs = features2.num_inputs(players)
                hidden = len(params["b1"])
                arrays = {p: np.asarray(params[p], dtype=np.float64) for p in MLP_PARAMS}
            except (ValueError, TypeError, IndexError, KeyError):
                raise ValueFileError(f"{path}: model {key!r} is not a player count and contract with a network") from None
            for p, shape in _mlp_shapes(inputs, hidden).items():
                if arrays[p].shape != shape or not np.all(np.isfinite(arrays[p])):
                    raise ValueFileError(f"{path}: model {key!r} needs {p} of shape {shape} with finite numbers, "
                                         f"got shape {arrays[p].shape}")
            if np.any(arrays["sd"] <= 0):
                raise ValueFileError(f"{path}: model {key!r} has an input scale sd <= 0")
            models[str(key)] = arrays
        vf = MlpValue(models, dict(d.get("meta") or {}))
        if d.get("fingerprint") != vf.fingerprint:
            raise ValueFileError(
                f"{path}: the recorded fingerprint {d.get('fingerprint')!r} does not match its parameters "
                f"({vf.fingerprint})"
            )
        return vf


#: The version of :class:`DrawValue` files.
DRAW_VERSION = 3
#: Decimals kept of a version-3 weight: the weights are rounded before they are
#: fingerprinted and saved, so the file is small and what was fingerprinted is what is read.
DRAW_DECIMALS = 3


@dataclass(frozen=True)
class DrawValue(_ValueFile):
    """Version 3: per (player count, contract), weights ``[num_players, len(CONTEXT), len(ATTRS)]``
    on the draw features of :mod:`experiments.evaluation.luck.features3` (the context of each
    seat before the draw times the drawn card's attributes for it), by the seat's position
    after the drawer; or, for the models in ``scaled``, ``beta *`` the shipped version-2
    network of the same player count and contract (where the fit found that better).

    Its value is defined right after a stock draw, which is the only place a luck
    correction reads one.  Weights and scales are rounded to :data:`DRAW_DECIMALS` decimals.

    Attributes:
        models: model key (:func:`model_key`) -> draw weights.
        meta: how it was fitted (agents, seeds, decks, held-out fit); not part of the
            fingerprint.
        scaled: model key -> ``beta`` for the models that are a multiple of version 2.
    """

    models: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)
    scaled: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # round first, so that the weights used are the weights fingerprinted and saved
        rounded = {k: np.round(np.asarray(v, dtype=np.float64), DRAW_DECIMALS) for k, v in self.models.items()}
        object.__setattr__(self, "models", rounded)
        object.__setattr__(self, "scaled", {k: round(float(b), DRAW_DECIMALS) for k, b in self.scaled.items()})

    @property
    def base(self) -> MlpValue:
        """The version-2 network the ``scaled`` models multiply (``value-v2.json``)."""
        v2 = _shipped(SHIPPED_FILES[1])
        if not isinstance(v2, MlpValue):
            raise ValueFileError(f"{SHIPPED_FILES[1]} is not a version-2 value file")
        return v2

    @cached_property
    def fingerprint(self) -> str:
        """``v3-`` and 12 hex digits of a SHA-256 over the features' version, the weights,
        the scales and the fingerprint of the version 2 they scale."""
        body = {"features": features3.FEATURE_VERSION,
                "models": {k: v.ravel().tolist() for k, v in sorted(self.models.items())}}
        if self.scaled:
            body["scaled"] = dict(sorted(self.scaled.items()))
            body["base"] = self.base.fingerprint
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return f"v{DRAW_VERSION}-" + hashlib.sha256(text.encode()).hexdigest()[:12]

    def model(self, num_players: int, contract: int) -> np.ndarray | float:
        """The draw weights for a player count and contract, or the scale of version 2.

        Raises:
            ValueFileError: the value function has no model for them.
        """
        key = model_key(num_players, contract)
        if key in self.scaled:
            return self.scaled[key]
        m = self.models.get(key)
        if m is None:
            raise ValueFileError(
                f"the luck value function {self.fingerprint} has no model for {num_players} players, "
                f"contract {contract} (it has {', '.join(sorted(set(self.models) | set(self.scaled)))})"
            )
        return m

    def evaluate(self, game: Any) -> np.ndarray:
        """``V`` of the state right after a stock draw, per seat.

        Raises:
            ValueError: the state is not right after a stock draw.
        """
        w = self.model(game.num_players, game.deal_number)
        if isinstance(w, float):
            if not features2.just_drew(game):
                raise ValueError("the version-3 luck value is defined right after a stock draw only")
            return w * self.base.evaluate(game)
        ctx, attrs = features3.state_features(game)
        return features3.values(w, game.current, ctx, attrs)

    def draw_values(self, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V`` after each possible stock draw of the player to act (draw phase, stock not empty).

        Returns ``(cards, weights, values)`` as :meth:`ValueFunction.draw_values`.
        """
        w = self.model(game.num_players, game.deal_number)
        if isinstance(w, float):
            cards, counts, values = self.base.draw_values(game)
            return cards, counts, w * values
        cards, counts, ctx, attrs = features3.draw_features(game)
        return cards, counts, features3.values(w, game.current, ctx, attrs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the value file."""
        d: dict[str, Any] = {
            "format": VALUE_FORMAT,
            "version": DRAW_VERSION,
            "features": features3.FEATURE_VERSION,
            "context": list(features3.CONTEXT),
            "attributes": list(features3.ATTRS),
            "fingerprint": self.fingerprint,
            "models": {k: v.tolist() for k, v in sorted(self.models.items())},
        }
        if self.scaled:
            d["scaled"] = dict(sorted(self.scaled.items()))
            d["base"] = self.base.fingerprint
        d["meta"] = self.meta
        return d

    @staticmethod
    def from_dict(d: dict[str, Any], path: str | Path) -> DrawValue:
        """The value function of a parsed version-3 file (``path`` names it in errors).

        Raises:
            ValueFileError: other features, weights of the wrong shape or not finite, scales
                of another version 2 than the shipped one, or a fingerprint that does not
                match (the file was edited).
        """
        if d.get("features") != features3.FEATURE_VERSION:
            raise ValueFileError(
                f"{path} was fitted on features {d.get('features')!r}; this version computes "
                f"{features3.FEATURE_VERSION!r}"
            )
        raw = d.get("models")
        scaled = d.get("scaled") or {}
        if not isinstance(raw, dict) or not isinstance(scaled, dict) or not (raw or scaled):
            raise ValueFileError(f"{path} holds no models")
        models: dict[str, np.ndarray] = {}
        for key, w in raw.items():
            try:
                players = int(str(key).split("-")[0][1:])
                arr = np.asarray(w, dtype=np.float64)
            except (ValueError, TypeError, IndexError):
                raise ValueFileError(f"{path}: model {key!r} is not a player count and contract with weights") from None
            shape = (players, len(features3.CONTEXT), len(features3.ATTRS))
            if arr.shape != shape or not np.all(np.isfinite(arr)):
                raise ValueFileError(f"{path}: model {key!r} needs finite weights of shape {shape}, got {arr.shape}")
            models[str(key)] = arr
        for key, beta in scaled.items():
            if not isinstance(beta, (int, float)) or not np.isfinite(beta) or key in models:
                raise ValueFileError(f"{path}: the scale of model {key!r} must be one finite number, not also weights")
        vf = DrawValue(models, dict(d.get("meta") or {}), {str(k): float(b) for k, b in scaled.items()})
        if scaled and d.get("base") != vf.base.fingerprint:
            raise ValueFileError(f"{path} scales the version-2 value function {d.get('base')!r}; "
                                 f"this version ships {vf.base.fingerprint}")
        if d.get("fingerprint") != vf.fingerprint:
            raise ValueFileError(
                f"{path}: the recorded fingerprint {d.get('fingerprint')!r} does not match its weights "
                f"({vf.fingerprint})"
            )
        return vf


#: The version of :class:`ActionValue` files.
ACTION_VERSION = 4


@dataclass(frozen=True)
class ActionValue(_ValueFile):
    """Version 4: a version-3 value of the stock draws (``draw``) and, per (player count,
    contract), weights ``[num_players, len(CONTEXT), len(ACTION_ATTRS)]`` on the action
    features of :mod:`experiments.evaluation.luck.features4`, which value each option of a
    choice an agent declared random (:class:`agents.base.DeclaredChoice`).

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
        of a kind not valued (:func:`experiments.evaluation.luck.features4.valued`)."""
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
        if d.get("fingerprint") != vf.fingerprint:
            raise ValueFileError(
                f"{path}: the recorded fingerprint {d.get('fingerprint')!r} does not match its weights "
                f"({vf.fingerprint})"
            )
        return vf


#: Any version of the luck value function.
AnyValue = ValueFunction | MlpValue | DrawValue | ActionValue


def load_value(path: str | Path) -> AnyValue:
    """Read a value file of either version.

    Raises:
        ValueFileError: unreadable, not this format, a version this code does not know,
            or a file its loader refuses.
    """
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueFileError(f"cannot read the luck value file {path}: {exc}") from None
    if not isinstance(d, dict) or d.get("format") != VALUE_FORMAT:
        raise ValueFileError(f"{path} is not a {VALUE_FORMAT} file")
    if d.get("version") == MLP_VERSION:
        return MlpValue.from_dict(d, path)
    if d.get("version") == DRAW_VERSION:
        return DrawValue.from_dict(d, path)
    if d.get("version") == ACTION_VERSION:
        return ActionValue.from_dict(d, path)
    return ValueFunction.load(path)


_LOADED: dict[Path, AnyValue] = {}


def _shipped(path: Path) -> AnyValue:
    if path not in _LOADED:
        _LOADED[path] = load_value(path)
    return _LOADED[path]


def shipped_value() -> AnyValue:
    """The default value function shipped with the package (:data:`SHIPPED_FILE`, loaded once per process)."""
    return _shipped(SHIPPED_FILE)


def shipped_version(version: int) -> AnyValue:
    """The shipped value function of ``version`` (1 to 4: ``value-vN.json``), loaded once per process.

    Raises:
        ValueFileError: no shipped value file has that version number.
    """
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= len(SHIPPED_FILES):
        raise ValueFileError(f"the shipped luck value functions are versions 1-{len(SHIPPED_FILES)}, got {version!r}")
    return _shipped(SHIPPED_FILES[version - 1])


def value_by_fingerprint(fingerprint: str) -> AnyValue:
    """The shipped value function (of any version) with this fingerprint.

    Raises:
        ValueFileError: no shipped value function has it.
    """
    for path in reversed(SHIPPED_FILES):
        value = _shipped(path)
        if value.fingerprint == fingerprint:
            return value
    raise ValueFileError(
        f"no luck value function shipped with this version has the fingerprint {fingerprint!r} "
        f"(it ships {', '.join(_shipped(p).fingerprint for p in SHIPPED_FILES)})"
    )
