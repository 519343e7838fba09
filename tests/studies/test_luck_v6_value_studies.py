"""The studies' part of ``tests/test_luck_v6_value.py``: tests of modules in ``experiments/studies/``."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_luck_v6_value import _events, _network_folder

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.evaluation.luck import (
    DrawNetValue,
    LuckTracker,
    ValueFileError,
    load_value,
    shipped_version,
    shipped_versions,
    value_by_fingerprint,
)
from carioca_experiments.evaluation.luck import value as value_module
from carioca_experiments.evaluation.luck.value import MLP_PARAMS, NET_DECIMALS, net_inputs
from carioca_experiments.studies.luck import fit5
from carioca_experiments.studies.luck.fit import fit_deck
from carioca_experiments.studies.luck.fit6 import ExportConfig, export, main, rounding_deviation
from carioca_experiments.studies.luck.measure import play_deal
from tests.test_luck_v3 import random_draw_net


@pytest.mark.parametrize(("players", "contract"), [(2, 1), (2, 5), (4, 3)])
def test_values_are_fit5s_forward_pass_on_the_same_rows(players: int, contract: int) -> None:
    """In a played game: every draw's input rows are fit5's (``inputs``' layout, the same
    numbers), the values are ``mlp_forward`` of them, and a tracker with the version-6 value
    sums to what ``fit5.network_corrections`` gives with the same parameters."""
    value = random_draw_net(2, (f"p{players}-c{contract}",))
    deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, 99, "test6", contract)), players)
    specs = ("heuristic", "greedy", "greedy", "heuristic")[:players]
    r = fit5.play_game(deck, dealer, contract, specs, list(range(5, 5 + players)), 7, 600, value)
    data = _events(r)
    assert len(data["mover"]) > 5
    per_event, per_row, row_event = fit5.inputs(data)
    fit5_x = np.concatenate([per_event[row_event], per_row], axis=-1)
    ours = np.concatenate([net_inputs(int(data["mover"][e]), data["ctx"][e],
                                      data["attrs"][data["start"][e]:data["start"][e + 1]])
                           for e in range(len(data["mover"]))])
    np.testing.assert_array_equal(ours, fit5_x)
    params = value.models[f"p{players}-c{contract}"]
    np.testing.assert_allclose(value_module.mlp_forward(params, ours), value_module.mlp_forward(params, fit5_x))
    np.testing.assert_allclose(fit5.network_corrections(params, data)[0], r["v3"], rtol=1e-12, atol=1e-9)
    assert np.abs(r["v3"]).max() > 1e-3  # the corrections are not all 0: the test tests something


def _tracked(value: Any, seed: int) -> bytes:
    """A tracker's corrections over one heuristic-greedy deal of contract 1, as bytes."""
    deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, 99, "test6-proc", seed)), 2)
    game = Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(1,)), seed)
    agents = [make_agent("heuristic", seed), make_agent("greedy", seed + 1)]
    for a, s in zip(agents, (seed, seed + 1)):
        a.reset(s)
    tracker = LuckTracker(value, 2)
    play_deal(game, agents, 600, [tracker])
    assert tracker.draws > 5
    return tracker.corrections.tobytes()


def test_corrections_are_the_same_bytes_after_a_round_trip_and_in_another_process(tmp_path: Path) -> None:
    value = random_draw_net(6)
    path = tmp_path / "value-v6.json"
    value.save(path)
    loaded = load_value(path)
    assert isinstance(loaded, DrawNetValue) and loaded.fingerprint == value.fingerprint
    here = _tracked(value, 11)
    assert _tracked(loaded, 11) == here
    script = ("import sys; from carioca_experiments.evaluation.luck import load_value; "
              "from studies.test_luck_v6_value_studies import _tracked; "
              "sys.stdout.write(_tracked(load_value(sys.argv[1]), 11).hex())")
    tests = Path(__file__).resolve().parents[1]
    # from the repository (helpers import tests.X) with tests/ on the path (and helpers import X)
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True,
                         cwd=tests.parent, env={**os.environ, "PYTHONPATH": str(tests)})
    assert bytes.fromhex(out.stdout) == here
    assert _tracked(value, 12) != here  # another deal, other corrections


def test_export_gathers_networks_from_several_folders(tmp_path: Path) -> None:
    a = _network_folder(tmp_path / "a", 60, (1, 2))
    b = _network_folder(tmp_path / "b", 70, (6,), report=False)
    out = tmp_path / "out" / "value-v6.json"
    value = export(ExportConfig((str(tmp_path / "a"), str(tmp_path / "b")), str(out)), log=lambda _: None)
    loaded = load_value(out)
    assert isinstance(loaded, DrawNetValue) and loaded.fingerprint == value.fingerprint
    assert sorted(loaded.models) == ["p2-c1", "p2-c2", "p2-c6"]
    for k, params in {**a, **b}.items():
        for p in MLP_PARAMS:
            np.testing.assert_array_equal(loaded.models[f"p2-c{k}"][p], np.round(params[p], NET_DECIMALS))
    src = loaded.meta["models"]
    assert src["p2-c1"]["folder"] == str(tmp_path / "a") and src["p2-c6"]["folder"] == str(tmp_path / "b")
    assert src["p2-c2"]["fit_seed"] == 60 and src["p2-c2"]["target_decks"] == 102
    assert src["p2-c2"]["fit_report"]["network"]["epoch"] == 3
    assert src["p2-c6"]["fit_seed"] is None and src["p2-c6"]["fit_report"] is None
    for k, params in {**a, **b}.items():
        dev = src[f"p2-c{k}"]["rounding"]["max_deviation_over_output_sd"]
        assert dev == rounding_deviation(params) and 0 < dev < 1e-6


def test_rounding_deviation_measures_the_rounding() -> None:
    """Coarser rounding would show: the measure is not blind (a network rounded to fewer
    decimals deviates more)."""
    raw = random_draw_net(9, ("p2-c1",), (32, 16)).models["p2-c1"]
    rng = np.random.default_rng(9)
    noisy = {p: v + rng.normal(scale=1e-4, size=np.shape(v)) for p, v in raw.items()}
    assert rounding_deviation(noisy) > 0
    assert rounding_deviation(raw) == 0.0  # already rounded: nothing changes


def _refused(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1
    return lines[0]


def test_export_refuses_bad_inputs_before_writing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _network_folder(tmp_path / "a", 60, (1, 2))
    _network_folder(tmp_path / "b", 70, (2,))
    (tmp_path / "empty").mkdir()
    out = tmp_path / "v.json"
    base = ["export", "--out", str(out), "--networks"]
    assert "is in both" in _refused(capsys, base + [str(tmp_path / "a"), str(tmp_path / "b")])
    assert "holds no network" in _refused(capsys, base + [str(tmp_path / "empty")])
    assert "is not a folder" in _refused(capsys, base + [str(tmp_path / "none")])
    assert "needs the value file" in _refused(capsys, ["export", "--networks", str(tmp_path / "a")])
    assert "export's options" in _refused(capsys, ["fit", "--networks", str(tmp_path / "a"), "--out", str(tmp_path)])
    # malformed network files
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "network-p2-c3.npz").write_bytes(b"not an npz")
    assert "not a readable npz" in _refused(capsys, base + [str(bad)])
    params = dict(np.load(tmp_path / "a" / "network-p2-c1.npz"))
    np.savez(bad / "network-p2-c3.npz", **{k: v for k, v in params.items() if k != "w2"})
    assert "missing parameters ['w2']" in _refused(capsys, base + [str(bad)])
    np.savez(bad / "network-p2-c3.npz", **dict(params, w1=params["w1"][:-1]))
    assert "w1 of shape (27, 32)" in _refused(capsys, base + [str(bad)])
    np.savez(bad / "network-p2-c3.npz", **dict(params, sd=0 * params["sd"]))
    assert "sd <= 0" in _refused(capsys, base + [str(bad)])
    (tmp_path / "b" / "report.json").write_text("{oops", encoding="utf-8")
    (tmp_path / "b" / "network-p2-c2.npz").rename(tmp_path / "b" / "network-p2-c4.npz")
    assert "cannot be read as JSON" in _refused(capsys, base + [str(tmp_path / "b")])
    assert not out.exists()
    # an existing output: refused and left as it was, replaced with --force
    out.write_text("keep", encoding="utf-8")
    assert "exists (give --force" in _refused(capsys, base + [str(tmp_path / "a")])
    assert out.read_text(encoding="utf-8") == "keep"
    assert main(base + [str(tmp_path / "a"), "--force"]) == 0
    assert sorted(load_value(out).models) == ["p2-c1", "p2-c2"]  # type: ignore[union-attr]


def test_the_shipped_version_7_is_the_default_with_version_6_inside_it_and_version_3_behind() -> None:
    """The default is the shipped value-v7.json: a network for every 2-player contract, each
    with its provenance and a rounding that leaves its outputs as fitted; version 6's five
    networks in it unchanged; every other model is the shipped version 3's, value for value.
    Version 6 still ships, with its own fingerprint, so results corrected by it resume."""
    v7, v6, v3 = shipped_version(7), shipped_version(6), shipped_version(3)
    assert value_module.DEFAULT_VERSION == 7 and value_module.shipped_value() is v7
    assert isinstance(v7, DrawNetValue) and isinstance(v6, DrawNetValue) and v7.base is v3 and v6.base is v3
    assert v7.version == 7 and v7.fingerprint.startswith("v7-") and v6.fingerprint.startswith("v6-")
    assert sorted(v7.models) == [f"p2-c{k}" for k in range(1, 8)]
    assert sorted(v6.models) == ["p2-c1", "p2-c2", "p2-c4", "p2-c5", "p2-c6"]
    for key, params in v6.models.items():
        for p in MLP_PARAMS:
            np.testing.assert_array_equal(v7.models[key][p], params[p])
    for value in (v6, v7):
        for key, meta in value.meta["models"].items():
            assert meta["fit_seed"] == 6 and meta["target_decks"] >= 200, key
            assert meta["rounding"]["max_deviation_over_output_sd"] < 1e-6, key
    assert value_by_fingerprint(v6.fingerprint) is v6 and value_by_fingerprint(v7.fingerprint) is v7
    for players, contract in ((3, 4), (4, 1), (4, 7)):
        deck, dealer = fit_deck(random.Random(players * 10 + contract), players)
        game = Game.from_deck(deck, dealer, GameConfig(num_players=players, deals=(contract,)), 5)
        cards, counts, got = v7.draw_values(game)
        want = v3.draw_values(game)
        assert np.array_equal(cards, want[0]) and np.array_equal(counts, want[1]) and np.array_equal(got, want[2])
    # contract 3 at 2 players: version 6 falls back to version 3, version 7 has a network
    deck, dealer = fit_deck(random.Random(23), 2)
    game = Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(3,)), 5)
    assert np.array_equal(v6.draw_values(game)[2], v3.draw_values(game)[2])
    assert not np.array_equal(v7.draw_values(game)[2], v3.draw_values(game)[2])


def test_version_6_is_found_only_with_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Without value-v6.json, version 6 is reported as not shipped (a clear error where it is
    asked for); with it, shipped_version, value_by_fingerprint, measure's --values and the
    tournament's --luck-value find it."""
    from carioca_experiments.evaluation.tournament import TournamentError
    from carioca_experiments.evaluation.tournament.cli import _luck_fingerprint
    from carioca_experiments.studies.luck import measure

    v6_path = tmp_path / "value-v6.json"
    monkeypatch.setattr(value_module, "SHIPPED_BY_VERSION", {**value_module.SHIPPED_BY_VERSION, 6: v6_path})
    monkeypatch.setattr(value_module, "_LOADED", {})
    assert 6 not in shipped_versions() and {1, 2, 3, 4} <= set(shipped_versions())
    with pytest.raises(ValueFileError, match="no luck value function of version 6 ships"):
        shipped_version(6)
    with pytest.raises(TournamentError, match="--luck-value: no luck value function of version 6"):
        _luck_fingerprint(6)
    with pytest.raises(SystemExit):
        measure.main(["widths", "--agents", "heuristic", "greedy", "--values", "3", "6"])
    assert "invalid choice: 6" in capsys.readouterr().err
    value = random_draw_net(10)
    value.save(v6_path)
    assert 6 in shipped_versions()
    v6 = shipped_version(6)
    assert isinstance(v6, DrawNetValue) and v6.fingerprint == value.fingerprint
    assert value_by_fingerprint(value.fingerprint) is v6
    assert value_by_fingerprint(shipped_version(3).fingerprint) is shipped_version(3)
    assert _luck_fingerprint(6) == value.fingerprint and _luck_fingerprint() == value_module.shipped_value().fingerprint
    assert measure.MeasureConfig("widths", ("heuristic", "greedy"), values=(6, 3)).luck == value.fingerprint


def test_a_tournament_and_measure_widths_correct_with_a_shipped_version_6(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """With a value-v6.json shipped, a tournament corrected by its fingerprint reports what
    measure widths computes on the same deals with ``--values 3 6``."""
    from carioca_experiments.evaluation.tournament import TournamentConfig, run_tournament
    from carioca_experiments.studies.luck.measure import corrected_pairs

    v6_path = tmp_path / "value-v6.json"
    monkeypatch.setattr(value_module, "SHIPPED_BY_VERSION", {**value_module.SHIPPED_BY_VERSION, 6: v6_path})
    monkeypatch.setattr(value_module, "_LOADED", {})
    random_draw_net(11).save(v6_path)
    values = [shipped_version(3), shipped_version(6)]
    cfg = TournamentConfig(agents=("heuristic", "greedy"), players=2, contracts=(2,), decks=2, seed=11, max_turns=300)
    raw, corrected = corrected_pairs(cfg, values)
    assert corrected[0].mean != corrected[1].mean
    tc = TournamentConfig(agents=cfg.agents, players=2, contracts=(2,), decks=2, seed=11, max_turns=300,
                          luck=values[1].fingerprint)
    p = run_tournament(tc, tmp_path / "t", workers=1, progress=False, log=lambda m: None).pairs[0]
    assert (p.mean_diff, p.ci_half) == pytest.approx((raw.mean, raw.half), abs=1e-9)
    assert (p.corrected_diff, p.corrected_half) == pytest.approx((corrected[1].mean, corrected[1].half), abs=1e-9)


def test_version_7_is_the_same_networks_under_its_own_fingerprint(tmp_path: Path) -> None:
    """A version-7 file holds the same kind of networks; its fingerprint is headed ``v7-``
    and differs from version 6's with the same networks, its values do not, and a file
    whose version number was edited is refused as edited."""
    v6 = random_draw_net(12, ("p2-c1", "p2-c3"), (4, 3))
    v7 = DrawNetValue(dict(v6.models), {}, 7)
    assert v7.fingerprint.startswith("v7-") and v7.fingerprint[3:] == v6.fingerprint[3:]
    v7.save(tmp_path / "v7.json")
    loaded = load_value(tmp_path / "v7.json")
    assert isinstance(loaded, DrawNetValue) and loaded.version == 7 and loaded.fingerprint == v7.fingerprint
    deck, dealer = fit_deck(random.Random(3), 2)
    game = Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(3,)), 5)
    assert all(np.array_equal(a, b) for a, b in zip(loaded.draw_values(game), v6.draw_values(game)))
    d = json.loads((tmp_path / "v7.json").read_text())
    d["version"] = 6
    (tmp_path / "edited.json").write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="edited|fingerprint"):
        load_value(tmp_path / "edited.json")
    for bad in (5, 8, True):
        with pytest.raises(ValueFileError, match="version 6 or 7"):
            DrawNetValue(dict(v6.models), {}, bad)
    del d["version"]  # from_dict called directly on a file without a version: one clear line
    with pytest.raises(ValueFileError, match=r"edited.json is of version None, not a network value's \(6 or 7\)"):
        DrawNetValue.from_dict(d, tmp_path / "edited.json")


def test_export_writes_version_7_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _network_folder(tmp_path / "a", 60, (3, 7))
    out6, out7 = tmp_path / "v6.json", tmp_path / "v7.json"
    v6 = export(ExportConfig((str(tmp_path / "a"),), str(out6)), log=lambda _: None)
    assert main(["export", "--version", "7", "--networks", str(tmp_path / "a"), "--out", str(out7)]) == 0
    v7 = load_value(out7)
    assert isinstance(v7, DrawNetValue) and v7.version == 7 and v6.version == 6
    assert v7.fingerprint == "v7-" + v6.fingerprint[3:]
    for argv in (["export", "--version", "5", "--networks", str(tmp_path / "a"), "--out", str(tmp_path / "x.json")],
                 ["fit", "--version", "7", "--out", str(tmp_path / "f")]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--version: expected one of 6, 7, got 5" in err and "export's options" in err
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "f").exists()
