"""The luck value function: ``V(state) -> expected final deal penalty of each seat``.

The live kinds of value function, each read from a JSON value file and named by its
fingerprint (a hash of its features' version and its parameters) in tournament configs, so
results corrected by one value function are never mixed with another's.  One table,
:data:`VERSIONS`, says which version number is which kind and which file ships it:

- version 2, :class:`MlpValue` (``value-v2.json``): a small network per (player count,
  contract) on the race features of :mod:`carioca_experiments.evaluation.luck.race_features`
  (deficiencies, live outs in the stock, penalties of every seat); version 3 scales it
  for four models;
- version 3, :class:`DrawValue` (``value-v3.json``): per (player count, contract) and seat
  position, weights on the draw features of
  :mod:`carioca_experiments.evaluation.luck.draw_features` (what the card drawn is worth to
  each seat in its context), fitted so that the corrections explain the penalties;
- versions 6 and 7, :class:`DrawNetValue` (``value-v6.json``, ``value-v7.json``): per
  (player count, contract) a network on version 3's draw inputs, fitted to playout card
  values; the models a file has no network for are the shipped version 3's.  Version 7
  has a network for every 2-player contract; 3 and 4 players are version 3's.

The default, the value function of ``carioca tournament --luck-correction``, is named in
one place: :data:`DEFAULT_VERSION`.  Versions 1 (linear) and 4 (action terms) only
reproduce past studies: they live with the studies (``experiments/studies/luck/``, run
from a checkout), which add them to the table with :func:`register_version`; without them
a file or a results folder of those versions is refused in one line that says so.  (Version
5 was a diagnostic that never shipped.)

All were fitted once on games between the built-in agents dealt from their own seed
namespace (never a tournament's decks), then frozen.  Version 3 sums products in a fixed
order with numpy; versions 2, 6 and 7 multiply small matrices (at most a few hundred rows);
every process of a run uses the same numpy, so a value is the same bytes with any number
of workers (the tournament tests check it, and version 6's tests compare a tracker's bytes
across processes; version 7 is the same code).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from carioca_experiments.common.files import write_file
from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.evaluation.luck import race_features as features2

#: The value file format.
VALUE_FORMAT = "carioca-luck-value"
#: The live versions, by number: the file that ships each (``value-vN.json`` next to this
#: module).  Keyed by version, not position, so a gap in the numbers cannot shift one
#: version onto another's file.  Versions 2 and 3 stay because the newer ones fall back to
#: them; 6 because results corrected by it must still resume.
SHIPPED_BY_VERSION: dict[int, Path] = {v: Path(__file__).with_name(f"value-v{v}.json") for v in (2, 3, 6, 7)}
#: The live versions, oldest first (the studies add theirs to :data:`SHIPPED_BY_VERSION`).
LIVE_VERSIONS: tuple[int, ...] = tuple(sorted(SHIPPED_BY_VERSION))
#: The version of :func:`shipped_value`, the default of ``--luck-correction``, named here
#: only (every doc that names it is checked against this by ``tests/test_luck_versions.py``):
#: version 7, whose networks beat version 3 held out on every contract they cover.
#: Tournaments record the fingerprint, so results corrected by versions 3 and 6 still
#: resume with them.
DEFAULT_VERSION = 7
#: The value file of :func:`shipped_value`.
SHIPPED_FILE = SHIPPED_BY_VERSION[DEFAULT_VERSION]
#: Versions that only reproduce past studies, and what they were: they live in
#: ``experiments/studies/luck/`` (a checkout), which registers them (:func:`register_version`).
STUDY_VERSIONS: dict[int, str] = {1: "linear models on seat statistics", 4: "version 3 plus action terms"}


class ValueFileError(ValueError):
    """A value file that cannot be used: unreadable, another format, or the wrong features."""


def _check_fingerprint(d: dict[str, Any], fingerprint: str, path: str | Path, what: str) -> None:
    """Refuse a parsed value file whose recorded fingerprint is not the one its ``what``
    (weights or parameters) give: the file was edited after it was written.

    Raises:
        ValueFileError: the fingerprints differ.
    """
    if d.get("fingerprint") != fingerprint:
        raise ValueFileError(f"{path}: the recorded fingerprint {d.get('fingerprint')!r} does not match its {what} "
                             f"({fingerprint})")


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
    :func:`carioca_experiments.evaluation.luck.race_features.design` rows, one row per seat.

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

        Returns ``(cards, weights, values)`` as :meth:`LuckValue.draw_values`.
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
        _check_fingerprint(d, vf.fingerprint, path, "parameters")
        return vf


#: The version of :class:`DrawValue` files.
DRAW_VERSION = 3
#: Decimals kept of a version-3 weight: the weights are rounded before they are
#: fingerprinted and saved, so the file is small and what was fingerprinted is what is read.
DRAW_DECIMALS = 3


@dataclass(frozen=True)
class DrawValue(_ValueFile):
    """Version 3: per (player count, contract), weights ``[num_players, len(CONTEXT), len(ATTRS)]``
    on the draw features of :mod:`carioca_experiments.evaluation.luck.draw_features` (the context of each
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
        return _shipped_as(MLP_VERSION, MlpValue)

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

        Returns ``(cards, weights, values)`` as :meth:`LuckValue.draw_values`.
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
        _check_fingerprint(d, vf.fingerprint, path, "weights")
        return vf


#: The first version of :class:`DrawNetValue` files.
DRAW_NET_VERSION = 6
#: The versions a :class:`DrawNetValue` file may carry: one format, shipped twice (6: networks
#: for contracts 1, 2, 4, 5 and 6 at 2 players; 7: the same and more), each frozen under its
#: own number so that results corrected by the first still resume with it.
DRAW_NET_VERSIONS = (6, 7)
#: Decimals kept of a version-6 network parameter: rounded before they are fingerprinted
#: and saved (as version 3's :data:`DRAW_DECIMALS`).  The weights are float32 numbers from
#: training (about 7 significant digits), so 9 decimals keep every weight above 0.01 as it
#: was; on a fit6 network the largest change in an output was 8e-8 of the outputs'
#: standard deviation (8 decimals: 1.5e-6, 7: 1.4e-5).  ``fit6 export`` records each
#: exported network's deviation in the file's meta.
NET_DECIMALS = 9


def net_inputs(mover: int, ctx: np.ndarray, attrs: np.ndarray) -> np.ndarray:
    """A version-6 network's input rows ``[..., num_players, len(CONTEXT) + num_players + len(ATTRS)]``:
    per seat its :mod:`~carioca_experiments.evaluation.luck.draw_features` context ``ctx [num_players,
    len(CONTEXT)]``, its position after the drawer ``mover`` (one-hot), then the card's
    attributes for it, ``attrs [..., num_players, len(ATTRS)]``
    (:func:`carioca_experiments.studies.luck.fit5.inputs`' layout)."""
    n = ctx.shape[0]
    onehot = np.eye(n)[(np.arange(n) - mover) % n]
    seat = np.concatenate([np.asarray(ctx, dtype=np.float64), onehot], axis=-1)  # [n, C + n]
    seat = np.broadcast_to(seat, attrs.shape[:-1] + seat.shape[-1:])
    return np.concatenate([seat, np.asarray(attrs, dtype=np.float64)], axis=-1)


def net_shapes(num_players: int, hidden1: int, hidden2: int) -> dict[str, tuple[int, ...]]:
    """The shape of every parameter (:data:`MLP_PARAMS`) of a version-6 network for
    ``num_players`` seats with hidden layers of ``hidden1`` and ``hidden2`` units."""
    d = len(features3.CONTEXT) + num_players + len(features3.ATTRS)
    return {"mu": (d,), "sd": (d,), "w1": (d, hidden1), "b1": (hidden1,), "w2": (hidden1, hidden2),
            "b2": (hidden2,), "w3": (hidden2,), "b3": (), "y_scale": (), "y_shift": ()}


_KEY = re.compile(r"p([234])-c([1-7])")


def checked_network(key: str, params: Any, where: str) -> dict[str, np.ndarray]:
    """One version-6 network's parameters as float64 arrays rounded to :data:`NET_DECIMALS`,
    checked: a model key of 2-4 players and contract 1-7, exactly :data:`MLP_PARAMS`, the
    shapes of :func:`net_shapes`, finite numbers and a positive input scale.

    Raises:
        ValueFileError: any of these is wrong (``where`` names the file or folder).
    """
    m = _KEY.fullmatch(str(key))
    if m is None:
        raise ValueFileError(f"{where}: model {key!r} is not a key p{{2-4}}-c{{1-7}}")
    if not isinstance(params, dict):
        raise ValueFileError(f"{where}: model {key!r} is not a dict of network parameters")
    missing, extra = sorted(set(MLP_PARAMS) - set(params)), sorted(set(params) - set(MLP_PARAMS))
    if missing or extra:
        raise ValueFileError(f"{where}: model {key!r} has missing parameters {missing} and extra ones {extra}")
    try:
        arrays = {p: np.asarray(params[p], dtype=np.float64) for p in MLP_PARAMS}
    except (ValueError, TypeError):
        raise ValueFileError(f"{where}: model {key!r} has parameters that are not arrays of numbers") from None
    if arrays["b1"].ndim != 1 or arrays["b2"].ndim != 1:
        raise ValueFileError(f"{where}: model {key!r} needs vectors b1 and b2, got shapes "
                             f"{arrays['b1'].shape} and {arrays['b2'].shape}")
    for p, shape in net_shapes(int(m.group(1)), len(arrays["b1"]), len(arrays["b2"])).items():
        if arrays[p].shape != shape:
            raise ValueFileError(f"{where}: model {key!r} needs {p} of shape {shape}, got {arrays[p].shape}")
        if not np.all(np.isfinite(arrays[p])):
            raise ValueFileError(f"{where}: model {key!r} has non-finite numbers in {p}")
    # rounded first, so that the parameters used are those fingerprinted and saved
    arrays = {p: np.round(a, NET_DECIMALS) for p, a in arrays.items()}
    if np.any(arrays["sd"] <= 0):
        raise ValueFileError(f"{where}: model {key!r} has an input scale sd <= 0")
    return arrays


def _net_values(params: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """:func:`mlp_forward` of input rows ``x [..., inputs]``, as one matrix of rows: about
    twice as fast as numpy's stacked products on ``[cards, seats, inputs]`` (this runs at
    every stock draw), the same numbers up to rounding in the last bits."""
    rows = np.ascontiguousarray(x, dtype=np.float64).reshape(-1, x.shape[-1])
    return np.asarray(mlp_forward(params, rows), dtype=np.float64).reshape(x.shape[:-1])


@dataclass(frozen=True)
class DrawNetValue(_ValueFile):
    """Version 6: per model key (:func:`model_key`), a network of version 5's shape (two ReLU
    layers, inputs standardised, :func:`mlp_forward`) that values the card drawn for each
    seat from version 3's draw features (:func:`net_inputs`: the seat's context, its
    position after the drawer, the card's attributes for it), fitted to playout card values
    by :mod:`carioca_experiments.studies.luck.fit6`; a (player count, contract) it has no network
    for is valued by the shipped version 3 (:attr:`base`, named by its fingerprint in the
    file and in this one's).

    Like version 3, its value is defined right after a stock draw only.  Parameters are
    rounded to :data:`NET_DECIMALS` decimals.

    Version 7 is the same kind of file with more networks: :attr:`version` is one of
    :data:`DRAW_NET_VERSIONS` and heads the fingerprint.

    Attributes:
        models: model key -> network parameters (:data:`MLP_PARAMS`, shapes :func:`net_shapes`).
        meta: where each network came from (folders, fit seeds, decks, the fit's report);
            not part of the fingerprint.
        version: the version number the file ships under (:data:`DRAW_NET_VERSIONS`).

    Raises:
        ValueFileError: a model's key or parameters are not a version-6 network's, or the
            version is not one of :data:`DRAW_NET_VERSIONS`.
    """

    models: dict[str, dict[str, np.ndarray]]
    meta: dict[str, Any] = field(default_factory=dict)
    version: int = DRAW_NET_VERSION

    def __post_init__(self) -> None:
        if isinstance(self.version, bool) or self.version not in DRAW_NET_VERSIONS:
            raise ValueFileError(f"a network value is of version {' or '.join(map(str, DRAW_NET_VERSIONS))}, "
                                 f"got {self.version!r}")
        if not self.models:
            # without a network it would be version 3 under another fingerprint
            raise ValueFileError("a version-6 value needs at least one network")
        checked = {str(k): checked_network(k, v, "a version-6 value") for k, v in sorted(self.models.items())}
        object.__setattr__(self, "models", checked)

    @property
    def base(self) -> DrawValue:
        """The value of the keys without a network: the shipped version 3 (``value-v3.json``)."""
        return _shipped_as(DRAW_VERSION, DrawValue)

    @cached_property
    def fingerprint(self) -> str:
        """``v6-`` (or ``v7-``: :attr:`version`) and 12 hex digits of a SHA-256 over the
        features' version, every network's parameters (in :data:`MLP_PARAMS` order) and the
        fingerprint of the version 3 it falls back to."""
        body = {"features": features3.FEATURE_VERSION, "base": self.base.fingerprint,
                "models": {k: [[float(x) for x in np.ravel(v[p])] for p in MLP_PARAMS]
                           for k, v in sorted(self.models.items())}}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return f"v{self.version}-" + hashlib.sha256(text.encode()).hexdigest()[:12]

    def model(self, num_players: int, contract: int) -> dict[str, np.ndarray] | np.ndarray | float:
        """The network for a player count and contract, else the base's model (:meth:`DrawValue.model`).

        Raises:
            ValueFileError: neither has a model for them.
        """
        m = self.models.get(model_key(num_players, contract))
        return m if m is not None else self.base.model(num_players, contract)

    def evaluate(self, game: Any) -> np.ndarray:
        """``V`` of the state right after a stock draw, per seat.

        Raises:
            ValueError: the state is not right after a stock draw.
        """
        m = self.models.get(model_key(game.num_players, game.deal_number))
        if m is None:
            return self.base.evaluate(game)
        ctx, attrs = features3.state_features(game)
        return _net_values(m, net_inputs(game.current, ctx, attrs))

    def draw_values(self, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V`` after each possible stock draw of the player to act (draw phase, stock not
        empty): the draw features once, then one forward pass over every card and seat.

        Returns ``(cards, weights, values)`` as :meth:`LuckValue.draw_values`.
        """
        m = self.models.get(model_key(game.num_players, game.deal_number))
        if m is None:
            return self.base.draw_values(game)
        cards, counts, ctx, attrs = features3.draw_features(game)
        return cards, counts, _net_values(m, net_inputs(game.current, ctx, attrs))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the value file."""
        return {
            "format": VALUE_FORMAT,
            "version": self.version,
            "features": features3.FEATURE_VERSION,
            "context": list(features3.CONTEXT),
            "attributes": list(features3.ATTRS),
            "fingerprint": self.fingerprint,
            "base": self.base.fingerprint,
            "models": {k: {p: v[p].tolist() for p in MLP_PARAMS} for k, v in sorted(self.models.items())},
            "meta": self.meta,
        }

    @staticmethod
    def from_dict(d: dict[str, Any], path: str | Path) -> DrawNetValue:
        """The value function of a parsed version-6 file (``path`` names it in errors).

        Raises:
            ValueFileError: other features, context or attributes; no models; a network
                with missing or extra parameters, of the wrong shapes, with non-finite
                numbers or an input scale <= 0; a base that is not the shipped version 3;
                or a fingerprint that does not match (the file was edited).
        """
        if d.get("features") != features3.FEATURE_VERSION:
            raise ValueFileError(
                f"{path} was fitted on features {d.get('features')!r}; this version computes "
                f"{features3.FEATURE_VERSION!r}"
            )
        if d.get("context") != list(features3.CONTEXT) or d.get("attributes") != list(features3.ATTRS):
            raise ValueFileError(f"{path} names another context or other attributes than features3's")
        raw = d.get("models")
        if not isinstance(raw, dict) or not raw:
            raise ValueFileError(f"{path} holds no models")
        meta = d.get("meta") or {}
        if not isinstance(meta, dict):
            raise ValueFileError(f"{path}: meta is not a JSON object")
        version = d.get("version")
        if isinstance(version, bool) or version not in DRAW_NET_VERSIONS:
            raise ValueFileError(f"{path} is of version {version!r}, not a network value's "
                                 f"({' or '.join(map(str, DRAW_NET_VERSIONS))})")
        vf = DrawNetValue({str(k): checked_network(k, v, str(path)) for k, v in raw.items()}, dict(meta),
                          int(version))
        if d.get("base") != vf.base.fingerprint:
            raise ValueFileError(f"{path} falls back to the version-3 value function {d.get('base')!r}; "
                                 f"this version ships {vf.base.fingerprint}")
        _check_fingerprint(d, vf.fingerprint, path, "parameters")
        return vf


class LuckValue(Protocol):
    """What the luck correction reads of a value function of any version."""

    @property
    def fingerprint(self) -> str:
        """``vN-`` and 12 hex digits naming the version and its parameters."""
        ...

    def model(self, num_players: int, contract: int) -> Any:
        """Its parameters for a player count and contract (checks that it values them).

        Raises:
            ValueFileError: the value function has no model for them.
        """
        ...

    def evaluate(self, game: Any) -> np.ndarray:
        """``V`` of the state (right after a stock draw): the expected final penalty of each seat."""
        ...

    def draw_values(self, game: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V`` after each possible stock draw of the player to act (draw phase, stock not empty).

        Returns ``(cards, weights, values)``: the card types in the stock, their copies,
        and ``values[k]`` = :meth:`evaluate` of the state after drawing ``cards[k]``.
        """
        ...

    def to_dict(self) -> dict[str, Any]:
        """The value file's content."""
        ...


#: Any version of the luck value function (the live kinds are :class:`MlpValue`,
#: :class:`DrawValue` and :class:`DrawNetValue`; the studies add theirs).
AnyValue = LuckValue

#: A kind's reader: ``loader(parsed file, path)``, raising :class:`ValueFileError`.
Loader = Callable[[dict[str, Any], "str | Path"], LuckValue]
#: version -> the reader of its files: the live kinds, and what the studies register.
_LOADERS: dict[int, Loader] = {
    MLP_VERSION: MlpValue.from_dict,
    DRAW_VERSION: DrawValue.from_dict,
    **{v: DrawNetValue.from_dict for v in DRAW_NET_VERSIONS},
}


#: the modules that registered versions in this process, for worker processes to import
_REGISTERED_BY: list[str] = []


def registered_modules() -> tuple[str, ...]:
    """The modules that added versions with :func:`register_version` in this process: a
    tournament's spawn workers import them first, so they read the same table."""
    return tuple(_REGISTERED_BY)


def register_version(version: int, loader: Loader, shipped: Path | None = None) -> None:
    """Add a kind of value file to the table: ``experiments/studies/luck`` registers the
    study versions (:data:`STUDY_VERSIONS`) this way, with the files it keeps.

    Raises:
        ValueError: a live version's number.
    """
    if version in SHIPPED_BY_VERSION and SHIPPED_BY_VERSION[version].parent == Path(__file__).parent:
        raise ValueError(f"version {version} is a live version of the luck value function")
    _LOADERS[version] = loader
    module = getattr(loader, "__module__", None)
    if isinstance(module, str) and module not in _REGISTERED_BY:
        _REGISTERED_BY.append(module)
    if shipped is not None:
        SHIPPED_BY_VERSION[version] = shipped


def _study_refusal(version: int, where: str) -> ValueFileError:
    return ValueFileError(
        f"{where} is a version-{version} luck value function ({STUDY_VERSIONS[version]}), "
        f"which only reproduces a past study and is not in the installed package: run it from a checkout, "
        f"where experiments/studies/luck registers it (this package's versions: "
        f"{', '.join(map(str, shipped_versions()))})"
    )


def load_value(path: str | Path) -> LuckValue:
    """Read a value file of any version in the table (2, 3, 6, 7, and what the studies register).

    Raises:
        ValueFileError: unreadable, not this format, a version this code does not know
            (a study version outside a checkout, in one line that says so), or a file its
            loader refuses.
    """
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueFileError(f"cannot read the luck value file {path}: {exc}") from None
    if not isinstance(d, dict) or d.get("format") != VALUE_FORMAT:
        raise ValueFileError(f"{path} is not a {VALUE_FORMAT} file")
    version = d.get("version")
    loader = _LOADERS.get(version) if isinstance(version, int) and not isinstance(version, bool) else None
    if loader is None:
        if type(version) is int and version in STUDY_VERSIONS:
            raise _study_refusal(version, str(path))
        raise ValueFileError(f"{path} is a luck value file of version {version!r}, which this code does not know "
                             f"(it reads versions {', '.join(map(str, sorted(_LOADERS)))})")
    return loader(d, path)


_LOADED: dict[Path, LuckValue] = {}


def _shipped(path: Path) -> LuckValue:
    if path not in _LOADED:
        _LOADED[path] = load_value(path)
    return _LOADED[path]


_V = TypeVar("_V")


def _shipped_as(version: int, cls: type[_V]) -> _V:
    """The shipped value file of ``version``, which a newer version builds on, checked to be of ``cls``.

    Raises:
        ValueFileError: the file holds another kind of value function.
    """
    value = _shipped(SHIPPED_BY_VERSION[version])
    if not isinstance(value, cls):
        raise ValueFileError(f"{SHIPPED_BY_VERSION[version]} is not a version-{version} value file")
    return value


def shipped_value() -> LuckValue:
    """The default value function shipped with the package (:data:`SHIPPED_FILE`, loaded once per process)."""
    return _shipped(SHIPPED_FILE)


def shipped_versions() -> tuple[int, ...]:
    """The versions whose value file is here, oldest first (:data:`SHIPPED_BY_VERSION`'s
    files that exist: the live ones, and the studies' once registered)."""
    return tuple(v for v, path in sorted(SHIPPED_BY_VERSION.items()) if path.is_file())


def shipped_version(version: int) -> LuckValue:
    """The shipped value function of ``version`` (``value-vN.json``), loaded once per process.

    Raises:
        ValueFileError: no shipped value file has that version number (a study version
            outside a checkout is refused in one line that says so).
    """
    shipped = shipped_versions()
    if isinstance(version, bool) or not isinstance(version, int) or version not in shipped:
        if type(version) is int and version in STUDY_VERSIONS:
            raise _study_refusal(version, f"version {version}")
        raise ValueFileError(f"no luck value function of version {version!r} ships with this package "
                             f"(it ships versions {', '.join(map(str, shipped))})")
    return _shipped(SHIPPED_BY_VERSION[version])


def value_by_fingerprint(fingerprint: str) -> LuckValue:
    """The shipped value function (of any version in the table) with this fingerprint.

    Raises:
        ValueFileError: no shipped value function has it (a study version's fingerprint,
            ``v1-...`` or ``v4-...``, outside a checkout: in one line that says so).
    """
    paths = [SHIPPED_BY_VERSION[v] for v in reversed(shipped_versions())]
    for path in paths:
        value = _shipped(path)
        if value.fingerprint == fingerprint:
            return value
    head = fingerprint.partition("-")[0] if isinstance(fingerprint, str) else ""
    number = int(head[1:]) if head[:1] == "v" and head[1:].isdigit() else None
    if number is not None and number in STUDY_VERSIONS and number not in shipped_versions():
        raise _study_refusal(number, f"the fingerprint {fingerprint!r}")
    raise ValueFileError(
        f"no luck value function shipped with this version has the fingerprint {fingerprint!r} "
        f"(it ships {', '.join(_shipped(p).fingerprint for p in reversed(paths))})"
    )
