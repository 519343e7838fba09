"""The version-6 luck value function (:class:`DrawNetValue`: networks on version 3's draw
inputs, the shipped version 3 for the models it lacks): its values are fit5's forward pass,
its file is checked and round-trips, its corrections are the same bytes in any process,
``fit6 export`` gathers networks into one file, the shipped ``value-v6.json`` stays
loadable, and the shipped ``value-v7.json`` (the same kind of file, two more networks) is
the default.  (The exact-expectation and card-by-card tests run on it
through :data:`tests.test_luck_v3.DRAW_VALUES` and the vectorised-values test there.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carioca_env import Game, GameConfig
from carioca_experiments.evaluation.luck import (
    DrawNetValue,
    ValueFileError,
    load_value,
    shipped_version,
)
from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.evaluation.luck import value as value_module
from carioca_experiments.evaluation.luck.value import MLP_PARAMS, NET_DECIMALS
from tests.test_luck_v3 import random_draw_net


def _events(r: dict[str, Any]) -> dict[str, np.ndarray]:
    """One game of fit5's ``play_game`` in the recorded layout (game index 0)."""
    counts = [e[2] for e in r["events"]]
    start = np.concatenate([[0], np.cumsum([len(c) for c in counts])])
    return {"ctx": np.stack([e[0] for e in r["events"]]), "attrs": np.concatenate([e[1] for e in r["events"]]),
            "counts": np.concatenate(counts), "start": start,
            "drawn": start[:-1] + np.array([e[3] for e in r["events"]]),
            "mover": np.array([e[4] for e in r["events"]]), "event_game": np.zeros(len(counts), dtype=int),
            "penalty": np.asarray(r["penalty"], dtype=np.float64)[None]}




def test_draw_values_at_a_real_draw_are_the_forward_pass_of_the_draw_features() -> None:
    """``draw_values`` is one forward pass over every card and seat of ``draw_features``."""
    value = random_draw_net(4)
    game = Game(GameConfig(num_players=2, deals=(2,)), seed=3)
    cards, counts, values = value.draw_values(game)
    c2, n2, ctx, attrs = features3.draw_features(game)
    np.testing.assert_array_equal(cards, c2)
    np.testing.assert_array_equal(counts, n2)
    m = value.models["p2-c2"]
    assert values.shape == (len(cards), 2)
    for k in range(len(cards)):
        for s in range(2):
            x = np.concatenate([ctx[s], np.eye(2)[(s - game.current) % 2], attrs[k, s]])
            assert values[k, s] == pytest.approx(float(value_module.mlp_forward(m, x)), abs=1e-9)


@pytest.mark.parametrize(("players", "contract"), [(3, 2), (4, 6)])
def test_models_it_lacks_are_the_shipped_version_3(players: int, contract: int) -> None:
    """A 3- or 4-player game (no network): the values are the shipped version 3's, bit for bit."""
    value, v3 = random_draw_net(5, ("p2-c1",)), shipped_version(3)
    assert value.base is v3
    game = Game(GameConfig(num_players=players, deals=(contract,)), seed=players)
    for a, b in zip(value.draw_values(game), v3.draw_values(game)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(value.model(players, contract), v3.model(players, contract))  # type: ignore[arg-type]
    assert value.model(2, 1) is value.models["p2-c1"]


def test_version_6_is_defined_right_after_a_stock_draw_only() -> None:
    """As version 3: ``evaluate`` refuses a state that is not right after a stock draw."""
    from tests.test_luck import small_position

    with pytest.raises(ValueError, match="right after a stock draw"):
        random_draw_net(1).evaluate(small_position(False))






@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), h1=st.integers(1, 6), h2=st.integers(1, 6),
       keys=st.sets(st.sampled_from(["p2-c1", "p2-c4", "p3-c2", "p4-c7"]), min_size=1))
def test_any_small_network_round_trips_with_its_fingerprint(seed: int, h1: int, h2: int, keys: set[str]) -> None:
    """Save then load gives the same parameters, fingerprint and file bytes; the parameters
    are rounded to NET_DECIMALS, and rounding again changes nothing."""
    import tempfile

    value = random_draw_net(seed, tuple(sorted(keys)), (h1, h2))
    assert value.fingerprint.startswith("v6-") and len(value.fingerprint) == 15
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "v.json"
        value.save(path)
        loaded = load_value(path)
        assert isinstance(loaded, DrawNetValue) and loaded.fingerprint == value.fingerprint
        loaded.save(Path(tmp) / "again.json")
        assert (Path(tmp) / "again.json").read_bytes() == path.read_bytes()
    for key, params in value.models.items():
        for p in MLP_PARAMS:
            np.testing.assert_array_equal(loaded.models[key][p], params[p])
            np.testing.assert_array_equal(np.round(params[p], NET_DECIMALS), params[p])
    assert DrawNetValue(dict(value.models)).fingerprint == value.fingerprint


def test_the_fingerprint_covers_every_parameter_and_the_base() -> None:
    value = random_draw_net(7, ("p2-c1",))
    params = value.models["p2-c1"]
    for p in MLP_PARAMS:
        changed = {k: v.copy() for k, v in params.items()}
        changed[p] = changed[p] + 10.0 ** -NET_DECIMALS
        assert DrawNetValue({"p2-c1": changed}).fingerprint != value.fingerprint, p
    # a change below the rounding is no change
    tiny = {k: v + 0.1 * 10.0 ** -NET_DECIMALS for k, v in params.items()}
    assert DrawNetValue({"p2-c1": tiny}).fingerprint == value.fingerprint


def test_a_value_without_networks_or_with_a_bad_one_cannot_be_built() -> None:
    with pytest.raises(ValueFileError, match="at least one network"):
        DrawNetValue({})
    params = dict(random_draw_net(1, ("p2-c1",)).models["p2-c1"])
    with pytest.raises(ValueFileError, match="not a key"):
        DrawNetValue({"p2-c9": params})
    with pytest.raises(ValueFileError, match="sd <= 0"):
        DrawNetValue({"p2-c1": dict(params, sd=-params["sd"])})


def _good() -> dict[str, Any]:
    return json.loads(json.dumps(random_draw_net(8, ("p2-c1", "p3-c2"), (4, 3)).to_dict()))


def _edit(path: str, new: Any) -> dict[str, Any]:
    """The good file with ``path`` (keys joined by ``/``) set to ``new`` (``...``: removed)."""
    d = _good()
    *parents, last = path.split("/")
    node = d
    for k in parents:
        node = node[k]
    if new is ...:
        del node[last]
    else:
        node[last] = new
    return d


@pytest.mark.parametrize(("path", "new", "message"), [
    ("features", "draw-2", "fitted on features"),
    ("context", ["one"], "another context"),
    ("attributes", [], "other attributes"),
    ("models", {}, "holds no models"),
    ("models/p2-c1/w3", ..., r"missing parameters \['w3'\]"),
    ("models/p2-c1/w4", [1.0], r"extra ones \['w4'\]"),
    ("models/p2-c1/w1", [[1.0] * 4] * 26, r"w1 of shape \(27, 4\)"),
    ("models/p3-c2/mu", [0.0] * 27, r"mu of shape \(28,\)"),
    ("models/p2-c1/b1", [[0.0] * 4], "vectors b1 and b2"),
    ("models/p2-c1/b3", [0.0], r"b3 of shape \(\)"),
    ("models/p2-c1/w3", [1.0, float("nan"), 0.0], "non-finite numbers in w3"),
    ("models/p2-c1/y_scale", float("inf"), "non-finite numbers in y_scale"),
    ("models/p2-c1/sd", [0.0] + [1.0] * 26, "sd <= 0"),
    ("models/p2-c1/sd", [1e-12] + [1.0] * 26, "sd <= 0"),
    ("models/p2-c1/b2", ["a", "b", "c"], "not arrays of numbers"),
    ("models/p5-c1", {}, "not a key"),
    ("models/p2-c8", {}, "not a key"),
    ("base", "v3-000000000000", "falls back to the version-3 value function"),
    ("fingerprint", "v6-000000000000", "does not match its parameters"),
    ("meta", [1], "meta is not a JSON object"),
])
def test_bad_files_are_refused_with_one_line(tmp_path: Path, path: str, new: Any, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_edit(path, new)), encoding="utf-8")
    with pytest.raises(ValueFileError, match=message) as exc:
        load_value(bad)
    assert "\n" not in str(exc.value)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_good()), encoding="utf-8")
    assert isinstance(load_value(good), DrawNetValue)  # the edit, not the file, is refused


# --- fit6 export --------------------------------------------------------------------------


def _network_folder(folder: Path, seed: int, contracts: tuple[int, ...], report: bool = True) -> dict[int, dict]:
    """Write ``network-p2-c{k}.npz`` files of random fit5-shaped networks (unrounded, as
    training saves them), a report.json and a value.json's meta, as ``fit --network`` does."""
    folder.mkdir(parents=True, exist_ok=True)
    nets = {}
    for k in contracts:
        raw = random_draw_net(seed + k, (f"p2-c{k}",), (32, 16)).models[f"p2-c{k}"]
        rng = np.random.default_rng(seed + k)
        # unrounded float32-like numbers, as torch's weights are
        params = {p: (v + rng.normal(scale=1e-5, size=np.shape(v))).astype(np.float32).astype(np.float64)
                  for p, v in raw.items()}
        np.savez(folder / f"network-p2-c{k}.npz", **params)
        nets[k] = params
    if report:
        (folder / "report.json").write_text(json.dumps(
            {f"p2-c{k}": {"decks": 100 + k, "network": {"epoch": 3}} for k in contracts}), encoding="utf-8")
        (folder / "value.json").write_text(json.dumps({"meta": {"fit6": {"seed": seed, "rollouts": 2}}}),
                                           encoding="utf-8")
    return nets










# --- shipping ---------------------------------------------------------------------------








# --- version 7: the same file kind under its own number ----------------------------------
