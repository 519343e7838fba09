"""``measure playout``: a draw correction valued by playouts (carioca_experiments.studies.luck.playout)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from carioca_env import Game, GameConfig
from carioca_env.moves import Move
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.studies.luck.fit import fit_deck
from carioca_experiments.studies.luck.measure import _duplicate_pair
from carioca_experiments.studies.luck.measure import main as measure_main
from carioca_experiments.studies.luck.playout import (
    TAG,
    PlayoutConfig,
    PlayoutTracker,
    card_value,
    draw_plan,
    playout_start,
    read_rows,
    run,
)

SPECS = ["heuristic", "greedy"]
MAX_TURNS = 3  # short playouts: the property holds whatever they return


def _position(seed: int = 3) -> Game:
    """A 2-player contract-1 game at its first stock draw."""
    deck, dealer = fit_deck(random.Random(seed), 2)
    return Game.from_deck(deck, dealer, GameConfig(num_players=2, deals=(1,)), seed)


def _copies(game: Game) -> dict[int, float]:
    """The chance of each card being the next stock card: its share of the stock's copies."""
    n = len(game.stock)
    return {c: game.stock.count(c) / n for c in sorted(set(game.stock))}


def test_each_draw_correction_has_expectation_exactly_zero() -> None:
    """With the playout seeds fixed, the card's value is a function of the card alone (not
    of the stock's hidden order), the tracker's correction for any card drawn is that
    value minus the sample mean over card-independent samples, and enumerating every card
    and every sample tuple gives an expectation of 0 (to rounding)."""
    game = _position()
    p = _copies(game)
    parts = (5, "test", 1)
    centring, rollouts = 2, 2
    plans = [draw_plan(game.stock, random.Random(derive_seed(LUCK_FIT, *parts, 0, h)), centring, rollouts)
             for h in range(2)]
    f = [{c: card_value(game, c, plans[h][1], SPECS, MAX_TURNS) for c in p} for h in range(2)]
    exact = [sum(p[c] * f[h][c] for c in p) for h in range(2)]
    # the sample mean of the centring is unbiased: enumerate every tuple of samples
    for h in range(2):
        mean = sum(np.prod([p[c] for c in t]) * np.mean([f[h][c] for c in t], axis=0)
                   for t in itertools.product(p, repeat=centring))
        np.testing.assert_allclose(mean, exact[h], atol=1e-9)
    # the tracker, with each card on top of a stock otherwise in a fresh random order
    mix = random.Random(9)
    actual_term = [np.zeros(2), np.zeros(2)]
    for card in p:
        g = game.clone()
        rest = list(g.stock)
        rest.remove(card)
        mix.shuffle(rest)
        g.stock = rest + [card]
        tracker = PlayoutTracker(SPECS, parts, centring, rollouts, MAX_TURNS)
        tracker.before(g, Move.draw_stock())
        g.apply(Move.draw_stock())
        assert g.drawn_card == card
        tracker.after(g)
        assert tracker.draws == 1
        for h, (samples, _) in enumerate(plans):
            centre = np.mean([f[h][c] for c in samples], axis=0)
            np.testing.assert_array_equal(tracker.corrections[h], f[h][card] - centre)
            actual_term[h] += p[card] * (tracker.corrections[h] + centre)
    for h in range(2):  # the drawn card's term averages to the exact centring
        np.testing.assert_allclose(actual_term[h], exact[h], atol=1e-9)
    assert any(len({float(f[0][c][s]) for c in p}) > 1 for s in range(2))  # the playouts do tell cards apart


def test_a_playout_draws_the_card_and_differs_from_another_cards_only_by_it() -> None:
    """A playout starts with the card asked for drawn and the other cards in the stock; with
    one seed, two cards' playouts get the same generator and agents, and stocks that
    differ in at most two places."""
    game = _position(4)
    (seed,) = draw_plan(game.stock, random.Random(1), 1, 1)[1]
    starts = []
    for card in sorted(set(game.stock))[:2]:
        g, agents = playout_start(game, card, seed, SPECS)
        assert g.drawn_card == card and g.hands[game.current][card] == game.hands[game.current][card] + 1
        assert sorted(g.stock + [card]) == sorted(game.stock)
        starts.append((g, agents))
    (a, agents_a), (b, agents_b) = starts
    assert sum(x != y for x, y in zip(a.stock, b.stock)) <= 2
    assert a.rng.getstate() == b.rng.getstate()
    view = game.view(game.current)
    moves = game.legal_moves()
    assert [x.act(view, moves) for x in agents_a] == [y.act(view, moves) for y in agents_b]


def _cfg(tmp: Path, **kw: object) -> PlayoutConfig:
    base: dict[str, object] = dict(agents=("heuristic", "greedy"), contracts=(1,), decks=2, seed=4, centring=1,
                                   rollouts=1, value=3, out=str(tmp), max_turns=30, bootstrap=20)
    return PlayoutConfig(**{**base, **kw})  # type: ignore[arg-type]


def test_run_rows_fields_raw_and_determinism(tmp_path: Path) -> None:
    """Two decks end to end: the summary has every field; each deck's raw difference is the
    one the same deck and seeds give without any observer; the same seed writes the same
    bytes, and a resumed run (last row removed) writes them again."""
    cfg = _cfg(tmp_path / "a")
    (summary,) = run(cfg)
    for key in ("raw_sd", "value_sd", "perfect_sd", "half_sd", "value_ratio", "perfect_ratio", "half_ratio",
                "perfect_ratio_low", "perfect_ratio_high", "gap_ratio", "gap_ratio_low", "gap_ratio_high", "half_ratio_low", "half_ratio_high",
                "value_ratio_low", "value_ratio_high", "cpu_seconds_per_game", "raw_cpu_seconds_per_game",
                "draws_per_game", "playouts_per_game"):
        assert np.isfinite(summary[key]), key
    assert summary["decks"] == 2 and summary["games_timed"] == 4 and summary["playouts_per_game"] > 0
    path = tmp_path / "a" / f"{cfg.name}.jsonl"
    rows = read_rows(path)
    assert sorted(rows) == [(1, 0), (1, 1)]
    for (k, d), row in rows.items():
        deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, cfg.seed, TAG, k, d)), 2)
        seeds = [derive_seed(LUCK_FIT, cfg.seed, f"{TAG}-agent", k, d, s) for s in range(2)]
        assert row["raw"] == _duplicate_pair(deck, dealer, k, ("heuristic", "greedy"), seeds, cfg.max_turns)
        assert row["draws"] > 0 and row["half1"] != row["half2"]
    assert np.std([r["raw"] for r in rows.values()], ddof=1) == pytest.approx(summary["raw_sd"])
    again = _cfg(tmp_path / "b")
    run(again)
    first = path.read_bytes()
    assert (tmp_path / "b" / f"{cfg.name}.jsonl").read_bytes() == first
    path.write_bytes(first[: first.rstrip(b"\n").rfind(b"\n") + 1] + b'{"contract": 1, "de')  # a stop mid-row
    (resumed,) = run(cfg)
    assert path.read_bytes() == first and resumed["games_timed"] == 4  # the first run's timings are kept
    assert resumed["perfect_ratio"] == summary["perfect_ratio"]


def test_heuristic_playouts_change_only_the_playout_columns(tmp_path: Path) -> None:
    """``--playout-agents heuristic`` plays the same games (raw and value columns equal) and
    values their draws differently."""
    a, b = _cfg(tmp_path / "x", decks=2), _cfg(tmp_path / "y", decks=2, playout_agents="heuristic")
    run(a), run(b)
    ra, rb = read_rows(Path(a.out) / f"{a.name}.jsonl"), read_rows(Path(b.out) / f"{b.name}.jsonl")
    assert [(r["raw"], r["v3"]) for r in ra.values()] == [(r["raw"], r["v3"]) for r in rb.values()]
    assert [r["half1"] for r in ra.values()] != [r["half1"] for r in rb.values()]


@pytest.mark.parametrize("args, message", [
    (["--centring", "0"], "--centring"),
    (["--rollouts", "-1"], "--rollouts"),
    (["--playout-agents", "random"], "--playout-agents"),
    (["--decks", "1"], "--decks"),
    (["--agents", "heuristic", "no-such-agent"], "no-such-agent"),
])
def test_bad_arguments_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                   message: str) -> None:
    """Refused input exits 2 with one error line, before anything is written."""
    base = {"--agents": ["heuristic", "greedy"], "--decks": ["2"], "--out": [str(tmp_path / "out")]}
    flags = dict(base)
    flags[args[0]] = args[1:]
    argv = ["playout"] + [x for k, v in flags.items() for x in (k, *v)]
    with pytest.raises(SystemExit) as exc:
        measure_main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_damaged_rows_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A rows file with a damaged line that is not the last is refused (exit 2, one line) and left as it was."""
    cfg = _cfg(tmp_path)
    path = tmp_path / f"{cfg.name}.jsonl"
    path.write_text('not json\n{"contract": 1, "deck": 0, "raw": 0, "half1": 0, "half2": 0}\n', encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(SystemExit) as exc:
        measure_main(["playout", "--agents", "heuristic", "greedy", "--contracts", "1", "--decks", "2", "--seed", "4",
                      "--centring", "1", "--rollouts", "1", "--value", "3", "--max-turns", "30", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "line 1 is not JSON" in capsys.readouterr().err
    assert path.read_bytes() == before
