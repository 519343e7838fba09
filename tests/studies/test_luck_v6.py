"""Version 6 candidate: the version-3 draw features fitted to playout card values
(carioca_experiments.studies.luck.fit6): targets reproducible and resumable, the weighted fit
recovers known weights, the reported held-out figures are what a tracker with the saved
value file gives, and its corrections have exact expectation 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.evaluation.luck import load_value
from carioca_experiments.studies.luck.fit3 import demean, pair_diffs, split
from carioca_experiments.studies.luck.fit5 import Fit5Config, events_path
from carioca_experiments.studies.luck.fit5 import record as record5
from carioca_experiments.studies.luck.fit6 import (
    Fit6Config,
    NormalEquations,
    centred_event,
    fit,
    main,
    network_rows,
    normal_equations,
    targets,
    targets_path,
)
from carioca_experiments.studies.luck.playout import read_rows
from tests.test_luck import check_exact, small_position

#: short deals and playouts, so that a deck takes a fraction of a second
SMALL = {"decks": 5, "rollouts": 1, "rate": 0.5, "max_turns": 8}


def _targets(out: Path, **kw: object) -> Path:
    cfg = Fit6Config("targets", out=str(out), **{**SMALL, **kw})  # type: ignore[arg-type]
    targets(cfg, log=lambda _: None)
    return targets_path(cfg)


def test_targets_are_the_same_bytes_for_the_same_seed(tmp_path: Path) -> None:
    """Two runs with one seed write the same bytes; another seed values other draws; every
    valued draw has one value per card type in the stock and seat, and its copies are the stock's."""
    a, b = _targets(tmp_path / "a"), _targets(tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()
    assert _targets(tmp_path / "c", seed=7).read_bytes() != a.read_bytes()
    rows = read_rows(a, frozenset({"events"}))
    assert sorted(rows) == [(1, d) for d in range(5)]
    events = [e for r in rows.values() for e in r["events"]]
    assert len(events) >= 10
    for e in events:
        k = len(e["cards"])
        assert np.shape(e["values"]) == (k, 2) and np.shape(e["attrs"]) == (k, 2, len(features3.ATTRS))
        assert np.shape(e["ctx"]) == (2, len(features3.CONTEXT)) and min(e["counts"]) >= 1
        assert e["game"] in (0, 1) and sorted(e["agents"]) == [0, 1]  # the duplicate lineups only
    # the cards' values differ (the playouts see the card drawn)
    assert any(np.ptp(np.asarray(e["values"])[:, 0]) > 0 for e in events)


def test_targets_resume_after_a_stop(tmp_path: Path) -> None:
    """Three decks, a last row cut off mid-line (a stop), then all five: the same bytes as
    five decks in one run; a finished run run again plays nothing."""
    full = _targets(tmp_path / "full")
    part = _targets(tmp_path / "part", decks=5, first_deck=0)
    text = part.read_text(encoding="utf-8").splitlines(keepends=True)
    part.write_text("".join(text[:3]) + text[3][: len(text[3]) // 2], encoding="utf-8")
    assert _targets(tmp_path / "part").read_bytes() == full.read_bytes()
    cfg = Fit6Config("targets", out=str(tmp_path / "part"), **SMALL)  # type: ignore[arg-type]
    assert targets(cfg, log=lambda _: None) == 0


def _synthetic_rows(rng: np.random.Generator, w: np.ndarray, decks: int, noise: float) -> list[dict[str, object]]:
    """Rows of random valued draws whose card values are ``features3.values(w)`` plus a
    constant per draw and seat (the state's own value, which centring removes) and noise."""
    rows = []
    for d in range(decks):
        events = []
        for _ in range(4):
            k = int(rng.integers(3, 9))
            ctx = rng.normal(size=(2, len(features3.CONTEXT)))
            attrs = rng.normal(size=(k, 2, len(features3.ATTRS)))
            mover = int(rng.integers(0, 2))
            values = features3.values(w, mover, ctx, attrs) + rng.normal(scale=30.0, size=2)
            values += rng.normal(scale=noise, size=values.shape)
            events.append({"mover": mover, "ctx": ctx.tolist(), "attrs": attrs.tolist(),
                           "counts": rng.integers(1, 3, size=k).tolist(), "values": values.tolist()})
        rows.append({"contract": 1, "deck": d, "penalty": [], "events": events})
    return rows


def test_the_weighted_fit_recovers_known_weights() -> None:
    """On a synthetic set whose card values are a known version-3 model (plus a constant
    per draw and seat), the training split's ridge weights with a tiny penalty are that
    model; with noise the validation R^2 is still high and below 1."""
    rng = np.random.default_rng(0)
    w = rng.normal(size=(2, len(features3.CONTEXT), len(features3.ATTRS)))
    sums = normal_equations(_synthetic_rows(rng, w, 40, 0.0))
    np.testing.assert_allclose(sums["train"].solve(1e-9), w.ravel(), atol=1e-5)
    assert sums["validation"].r2(w.ravel()) == pytest.approx(1.0)
    noisy = normal_equations(_synthetic_rows(rng, w, 40, 1.0))
    assert 0.8 < noisy["validation"].r2(noisy["train"].solve(1.0)) < 1.0


def test_the_weighted_sums_are_a_fixed_effect_regression_on_the_copies() -> None:
    """Weighting each card by its chance equals repeating its row once per copy and taking
    fit3's fixed effect (``demean``) per draw and seat: the same normal equations."""
    rng = np.random.default_rng(1)
    w = rng.normal(size=(2, len(features3.CONTEXT), len(features3.ATTRS)))
    event = _synthetic_rows(rng, w, 1, 1.0)[0]["events"][0]  # type: ignore[index]
    sums = NormalEquations(w.size)
    sums.add(event)
    counts = np.asarray(event["counts"])
    x = features3.basis(event["mover"], np.asarray(event["ctx"]), np.asarray(event["attrs"]))
    y = np.asarray(event["values"])
    xr, yr = np.repeat(x, counts, axis=0), np.repeat(y, counts, axis=0)
    group = np.tile(np.arange(2), len(xr))
    xd = demean(xr.reshape(-1, w.size), group)
    yd = demean(yr.reshape(-1, 1), group)[:, 0]
    total = counts.sum()
    np.testing.assert_allclose(sums.gram, xd.T @ xd / total, atol=1e-9)
    np.testing.assert_allclose(sums.cross, xd.T @ yd / total, atol=1e-9)
    assert sums.weight == pytest.approx(2.0)
    xc, yc, p = centred_event(event)
    np.testing.assert_allclose(p @ yc, 0.0, atol=1e-9)


def test_fit_reports_what_a_tracker_with_the_saved_value_gives(tmp_path: Path) -> None:
    """``fit`` on five decks of targets, measured on a fit5 recording of other decks: the
    saved value file loads, its corrections have exact expectation 0 on the stacked
    positions, and the reported held-out ratio is the one a tracker with it gives when the
    recording's games are replayed."""
    from carioca_experiments.studies.luck.fit3 import fit_games
    from carioca_experiments.studies.luck.fit5 import play_game

    _targets(tmp_path / "t")
    rec = Fit5Config("record", players=(2,), contracts=(1,), decks=10, seed=62, out=str(tmp_path / "h"))
    record5(rec, log=lambda _: None)
    cfg = Fit6Config("fit", out=str(tmp_path / "t"), heldout=str(tmp_path / "h"), bootstrap=50, network=True,
                     **SMALL)  # type: ignore[arg-type]
    report = fit(cfg, log=lambda _: None)["p2-c1"]
    value = load_value(tmp_path / "t" / "value.json")
    for opened in (False, True):
        check_exact(value, small_position(opened))
    data = dict(np.load(events_path(tmp_path / "h", 2, 1)))
    tracked = np.array([play_game(fg.deck, fg.dealer, 1, fg.specs, fg.seeds, fg.game_seed, rec.max_turns, value)["v3"]
                        for fg in fit_games(62, "v5", 2, 1, range(10))])
    decks = np.arange(10)
    ratio = pair_diffs(data, decks, tracked).std(ddof=1) / pair_diffs(data, decks, 0 * tracked).std(ddof=1)
    assert report["heldout"]["v6"]["ratio"] == pytest.approx(ratio, abs=5e-4)
    assert report["heldout"]["decks"] == 10 and "minus_v3" in report["heldout"]["v6"]
    assert set(report["r2"]) == {"train", "validation", "heldout"} and report["ridge"] in cfg.ridges
    # the network: the numpy forward pass's validation error is the one training kept
    net = report["network"]
    rows = list(read_rows(targets_path(cfg), frozenset({"events"})).values())
    arr = network_rows(rows)
    val = np.isin(arr["deck"], split(np.unique(arr["deck"]))["validation"])
    spread = float(np.sum(arr["p"][val[arr["event"]], None] * arr["y"][val[arr["event"]]].astype(np.float64) ** 2))
    kept = net["validation_error"][net["epoch"]]
    assert (1.0 - net["r2"]["validation"]) * spread / (2 * val.sum()) == pytest.approx(kept, abs=0.01 + 1e-3 * kept)
    assert "minus_v3" in report["heldout"]["v6-network"]
    # the saved network gives the reported held-out ratio through fit5's forward pass
    from carioca_experiments.studies.luck.fit5 import network_corrections

    saved = dict(np.load(tmp_path / "t" / "network-p2-c1.npz"))
    by_net = network_corrections(saved, data)
    net_ratio = pair_diffs(data, decks, by_net).std(ddof=1) / pair_diffs(data, decks, 0 * by_net).std(ddof=1)
    assert report["heldout"]["v6-network"]["ratio"] == pytest.approx(net_ratio, abs=5e-4)
    # version 3's family refitted on the recording's own penalties, measured on its held-out split
    refit = report["refit"]
    assert refit["decks"] == 2 and refit["train_decks"] == 6 and "minus_v3" in refit["v3-refit"]


@pytest.mark.parametrize(("args", "message"), [
    (["--rate", "0"], "share"), (["--rate", "1.5"], "share"), (["--decks", "1"], "integer >= 5"),
    (["--rollouts", "0"], "integer >= 1"), (["--playout-agents", "random"], "invalid choice"),
])
def test_bad_arguments_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                   message: str) -> None:
    """Refused input exits 2 with one error line, before anything is written."""
    with pytest.raises(SystemExit) as exc:
        main(["targets", "--out", str(tmp_path / "out"), *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_missing_heldout_folder_no_targets_and_a_damaged_rows_file_are_refused(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``fit --heldout`` naming no folder, ``fit`` with no targets, and a rows file damaged before its last line,
    exit 2 with one error line; the file is left as it was."""
    with pytest.raises(SystemExit) as exc:
        main(["fit", "--out", str(tmp_path), "--heldout", str(tmp_path / "none")])
    assert exc.value.code == 2 and "is not a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["fit", "--out", str(tmp_path)])
    assert exc.value.code == 2 and "no targets of contracts [1]" in capsys.readouterr().err
    path = targets_path(Fit6Config("targets", out=str(tmp_path)))
    path.write_text("{oops\n{}\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["targets", "--out", str(tmp_path)])
    assert exc.value.code == 2 and "line 1 is not JSON" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "{oops\n{}\n"
