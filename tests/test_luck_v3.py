"""The version-3 luck value function (draw features, weights fitted on the corrections):
unbiased by construction, its vectorised values the values of the states, its file checked."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_env.moves import MoveKind
from carioca_experiments.evaluation.luck import (
    DrawNetValue,
    DrawValue,
    ValueFileError,
    load_value,
    shipped_version,
    shipped_versions,
)
from carioca_experiments.evaluation.luck import draw_features as features3
from tests.test_luck import check_exact, outcomes, small_position


def random_draw_value(seed: int, scaled: tuple[str, ...] = ()) -> DrawValue:
    """Random weights for every model (a poor value function, but one whose draws differ);
    the models in ``scaled`` are a random multiple of version 2 instead."""
    rng = np.random.default_rng(seed)
    shape = (len(features3.CONTEXT), len(features3.ATTRS))
    keys = [f"p{n}-c{k}" for n in (2, 3, 4) for k in range(1, 8)]
    return DrawValue({k: rng.normal(scale=5.0, size=(int(k[1]),) + shape) for k in keys if k not in scaled},
                     scaled={k: float(rng.uniform(0.5, 1.5)) for k in scaled})


def random_draw_net(seed: int, keys: tuple[str, ...] = tuple(f"p2-c{k}" for k in range(1, 8)) + ("p4-c1",),
                    hidden: tuple[int, int] = (8, 5)) -> DrawNetValue:
    """A version-6 value of random networks for ``keys`` (a poor value function whose
    draws differ); every other model falls back to the shipped version 3."""
    rng = np.random.default_rng(seed)
    models = {}
    for key in keys:
        n = int(key[1])
        d, (h1, h2) = len(features3.CONTEXT) + n + len(features3.ATTRS), hidden
        models[key] = {"mu": rng.normal(scale=0.3, size=d), "sd": rng.uniform(0.2, 2.0, size=d),
                       "w1": rng.normal(size=(d, h1)) * (2.0 / d) ** 0.5, "b1": rng.normal(scale=0.5, size=h1),
                       "w2": rng.normal(size=(h1, h2)) * (2.0 / h1) ** 0.5, "b2": rng.normal(scale=0.5, size=h2),
                       "w3": rng.normal(size=h2), "b3": np.array(rng.normal()),
                       "y_scale": np.array(rng.uniform(5.0, 20.0)), "y_shift": np.array(rng.normal())}
    return DrawNetValue(models)


#: The draw value functions the exact-expectation tests run on: random version-3 weights,
#: a model that is a multiple of version 2, random version-6 networks, and a version 6
#: without the contract's network (the shipped version 3 then).
DRAW_VALUES = {"v3": lambda: random_draw_value(1), "v3 scaled": lambda: random_draw_value(1, ("p2-c1",)),
               "v6 network": lambda: random_draw_net(1), "v6 fallback": lambda: random_draw_net(1, ("p2-c2",))}


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize("kind", sorted(DRAW_VALUES))
def test_each_draw_correction_has_exact_expectation_zero(opened: bool, kind: str) -> None:
    check_exact(DRAW_VALUES[kind](), small_position(opened))  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize("version", [v for v in shipped_versions() if v >= 3])
def test_each_shipped_draw_correction_has_exact_expectation_zero(opened: bool, version: int) -> None:
    """Version 3 and every later shipped version (6 once its file ships)."""
    check_exact(shipped_version(version), small_position(opened))


def test_shipped_v3_corrections_have_exact_expectation_zero_at_random_agents_states() -> None:
    """At every stock draw of 40 short deals between random agents (all seven contracts),
    the shipped version 3's corrections computed over every possible card have
    probability-weighted mean 0 for each seat, and the card drawn is one of them."""
    from carioca_experiments.evaluation.luck import shipped_value
    from tests.test_luck import tracked_correction

    value = shipped_value()
    draws = 0
    for d in range(40):
        game = Game(GameConfig(num_players=2, deals=(1 + d % 7,)), seed=10_000 + d)
        agents = [make_agent("random", 2 * d + s) for s in range(2)]
        turns = 0
        while not game.deal_results and turns < 4:
            move = agents[game.current].act(game.view(game.current), game.legal_moves())
            if move.kind is MoveKind.DRAW_STOCK:
                outs = outcomes(game)
                assert game.stock[-1] in [c for c, _, _ in outs]
                probs = np.array([p for _, p, _ in outs])
                corrections = np.array([tracked_correction(value, game, g) for _, _, g in outs])
                np.testing.assert_allclose(probs @ corrections, 0.0, atol=1e-9)
                draws += 1
            game.apply(move)
            turns += move.kind is MoveKind.DISCARD
    assert draws >= 60


def test_a_scaled_v3_model_is_beta_times_version_2() -> None:
    value = random_draw_value(2, ("p2-c1",))
    beta = value.model(2, 1)
    assert isinstance(beta, float) and beta != 1.0
    game = small_position(False)
    cards, counts, values = value.draw_values(game)
    c2, n2, v2 = value.base.draw_values(game)
    np.testing.assert_array_equal(cards, c2)
    np.testing.assert_allclose(values, beta * v2, rtol=1e-12)
    for _, _, after in outcomes(game)[:3]:
        np.testing.assert_allclose(value.evaluate(after), beta * value.base.evaluate(after), rtol=1e-12)
    with pytest.raises(ValueError, match="right after a stock draw"):
        value.evaluate(game)


@pytest.mark.parametrize("version", [3, 6])
def test_vectorised_draw_values_are_the_values_of_the_states(version: int) -> None:
    """Over real deals at 2, 3 and 4 players, with seats opened and not: the value of each
    possible draw computed at once equals the value of the state after that draw, card by
    card (version 6: networks for 2 players and for 4 players' contract 1, the shipped
    version 3 for the others)."""
    value = random_draw_value(3) if version == 3 else random_draw_net(3)
    seen_opened = False
    for seed, (n, k) in enumerate([(2, 1), (3, 5), (4, 2), (2, 3), (4, 1)]):
        game = Game(GameConfig(num_players=n, deals=(k,)), seed=seed)
        agents = [make_agent("heuristic", seed * 10 + s) for s in range(n)]
        draws = moves = 0
        while not game.deal_results and draws < 40 and moves < 600:
            moves += 1
            seat = game.current
            move = agents[seat].act(game.view(seat), game.legal_moves())
            if move.kind is MoveKind.DRAW_STOCK and draws % 3 == 0:
                cards, counts, values = value.draw_values(game)
                outs = outcomes(game)
                assert [c for c, _, _ in outs] == list(cards)
                np.testing.assert_allclose(counts / counts.sum(), [p for _, p, _ in outs])
                for (_, _, after), v in zip(outs, values):
                    np.testing.assert_allclose(v, value.evaluate(after), rtol=1e-9, atol=1e-9)
                seen_opened |= any(game.opened)
            draws += move.kind is MoveKind.DRAW_STOCK
            game.apply(move)
    assert seen_opened  # the opened branch was exercised too


def test_v3_basis_is_the_linear_form_of_its_values() -> None:
    """The fit regresses on basis rows: ``values(w) == basis @ w`` for any weights."""
    game = small_position(True)
    cards, _, ctx, attrs = features3.draw_features(game)
    w = random_draw_value(2).model(2, 1)
    rows = features3.basis(game.current, ctx, attrs)
    np.testing.assert_allclose(rows @ w.ravel(), features3.values(w, game.current, ctx, attrs), atol=1e-9)


def test_v3_is_defined_right_after_a_stock_draw_only() -> None:
    with pytest.raises(ValueError, match="right after a stock draw"):
        random_draw_value(1).evaluate(small_position(False))


def test_v3_file_round_trip_and_refusals(tmp_path: Path) -> None:
    value = random_draw_value(4, ("p4-c7",))
    assert value.fingerprint != random_draw_value(4).fingerprint
    assert np.all(value.models["p2-c1"] == np.round(value.models["p2-c1"], 3))  # rounded before fingerprinting
    path = tmp_path / "v.json"
    value.save(path)
    back = load_value(path)
    assert isinstance(back, DrawValue) and back.fingerprint == value.fingerprint
    assert back.fingerprint.startswith("v3-") and back.fingerprint != random_draw_value(5).fingerprint
    game = small_position(False)
    np.testing.assert_array_equal(back.draw_values(game)[2], value.draw_values(game)[2])
    d = json.loads(path.read_text())
    assert d["scaled"] == {"p4-c7": value.model(4, 7)} and d["base"] == value.base.fingerprint
    for edit in ({"scaled": {"p4-c7": 0.5}}, {"base": "v2-000000000000"}):
        path.write_text(json.dumps({**d, **edit}))
        with pytest.raises(ValueFileError, match="fingerprint|scales the version-2"):
            load_value(path)
    path.write_text(json.dumps({**d, "scaled": {"p4-c7": "x"}}))
    with pytest.raises(ValueFileError, match="one finite number"):
        load_value(path)
    d["models"]["p2-c1"][0][0][0] += 1.0
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="fingerprint"):
        load_value(path)
    d["models"]["p2-c1"] = d["models"]["p2-c1"][:1]
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="shape"):
        load_value(path)
    d["models"]["p2-c1"] = "weights"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="with weights"):
        load_value(path)
    d["features"] = "race-2"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="fitted on features"):
        load_value(path)








def test_the_shipped_v3_is_frozen_fitted_off_tournament_seeds_and_small() -> None:
    """value-v3.json: fitted in the fit's seed namespace, a model per player count (2, 3
    and 4) and contract, each with its fit report, and a small file."""
    from carioca_experiments.evaluation.luck import SHIPPED_BY_VERSION

    path = SHIPPED_BY_VERSION[3]
    value = load_value(path)
    assert isinstance(value, DrawValue)
    meta = value.meta
    assert meta["seed_namespace"] == "carioca-luck-fit" and "validation" in meta["split_rule"]
    for n in (2, 3, 4):
        for k in range(1, 8):
            key = f"p{n}-c{k}"
            value.model(n, k)
            report = meta["fit_report"][key]
            assert report["kind"] == ("v2" if key in value.scaled else "draw")
            assert 0 < report["ratio_validation"] and report["decks"] >= 50
    assert json.loads(path.read_text())["fingerprint"] == value.fingerprint
    assert path.stat().st_size < 200_000
