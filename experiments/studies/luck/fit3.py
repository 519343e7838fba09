"""Fitting the version-3 luck value function: the corrections themselves regressed on the penalties.

Usage::

    python -m carioca_experiments.studies.luck.fit3 record --players 2 --decks 600 --out runs/luck-v3
    python -m carioca_experiments.studies.luck.fit3 fit --players 2 3 4 --out runs/luck-v3

``record`` plays duplicate games between the built-in agents on decks dealt from the fit's
seed namespace (``carioca-luck-fit``, fit seed 3: never a tournament's decks, nor version
2's fitting deals): on each deck, every seating of heuristic against greedy that a
duplicate tournament plays, and heuristic alone and greedy alone at every seat.  At every
stock draw it adds up, per game and seat, the *centred* regression rows of
:func:`carioca_experiments.evaluation.luck.draw_features.basis` (the row of the card drawn minus the
rows' mean over the cards in the stock), and with them the corrections of the shipped
version-2 value function, for comparison.  A version-3 correction is linear in its weights,
``w @ (sum of centred rows)``, so fitting is a regression of the final penalty on those
sums: ridge regression, with a fixed effect per (deck, seat) (the dealt hand's own value,
which every correction leaves alone) so that the deal's variance does not drown the draws'.

Splits by deck, fixed before any fit: every fifth deck held out (the figures reported),
the deck before it validation (chooses the ridge penalty), the rest trains; the shipped
weights are those fitted on the training decks.  The validation measure is the one that
counts: the ratio of corrected to raw standard deviation of heuristic's minus greedy's
paired difference per deck.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carioca_experiments.cli import run_script
from carioca_experiments.common.argtypes import int_at_least
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.evaluation.luck import draw_features as features3

#: Every HELDOUT_EVERY-th deck is held out; the one before it is validation.
HELDOUT_EVERY = 5
VALIDATION = HELDOUT_EVERY - 2
#: The ridge penalties tried (on the basis columns scaled to unit variance); validation chooses one.
RIDGES = (1.0, 10.0, 100.0, 1000.0, 10000.0)


@dataclass(frozen=True)
class Fit3Config:
    """What ``record`` plays and ``fit`` fits.

    Attributes:
        what: ``record`` or ``fit``.
        players: player counts.
        contracts: contracts.
        decks: fitting decks per (player count, contract).
        seed: the fit seed (in the ``carioca-luck-fit`` namespace).
        max_turns: completed turns after which a deal is cut (each seat scores its hand).
        out: folder of the recorded sums (``draws-p{n}-c{k}.npz``) and ``value.json``.
    """

    what: str
    players: tuple[int, ...] = (2, 3, 4)
    contracts: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    decks: int = 600
    seed: int = 3
    max_turns: int = 600
    out: str = "runs/luck-v3"


def seatings(players: int) -> list[tuple[str, ...]]:
    """The agents by seat of the games played on each fitting deck: the duplicate lineups
    of heuristic against greedy, then each alone."""
    from carioca_experiments.evaluation.tournament.config import lineups

    names = ("heuristic", "greedy")
    out = [tuple(names[a] for a in lu) for lu in lineups(2, players)]
    return out + [tuple([n] * players) for n in names]


def play_game(deck: list[int], dealer: int, contract: int, specs: Sequence[str], seeds: Sequence[int],
              game_seed: int, max_turns: int, v2: Any) -> dict[str, Any]:
    """One game; per seat its penalty, the sum of its centred basis rows and its version-2 correction."""
    from carioca_env.moves import MoveKind
    from carioca_env.view import Phase
    from carioca_experiments.evaluation.tournament.play import deal_penalties
    from carioca_experiments.studies.luck.seated import seat_deal

    n = len(specs)
    game, agents = seat_deal(deck, dealer, contract, specs, seeds, game_seed)
    width = n * len(features3.CONTEXT) * len(features3.ATTRS)
    sums = np.zeros((n, width))
    v2sum = np.zeros(n)
    draws = turns = 0
    while not game.deal_results or game.deal_results[-1].cancelled:
        if turns >= max_turns:
            break
        seat = game.current
        move = agents[seat].act(game.view(seat), game.legal_moves())
        pending = None
        if move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock:
            cards, counts, ctx, attrs = features3.draw_features(game)
            # the basis is linear in the attributes: centring them centres it
            mean = np.tensordot(counts, attrs, axes=1) / counts.sum()
            v2vals = None
            if v2 is not None:
                _, _, v2vals = v2.draw_values(game)
                v2vals = v2vals - np.sum(counts[:, None] * v2vals, axis=0) / counts.sum()
            pending = (cards, ctx, attrs, mean, v2vals)
        game.apply(move)
        if pending is not None:
            cards, ctx, attrs, mean, v2vals = pending
            k = int(np.searchsorted(cards, game.drawn_card))
            sums += features3.basis(seat, ctx, attrs[k] - mean)
            if v2vals is not None:
                v2sum += v2vals[k]
            draws += 1
        turns += move.kind is MoveKind.DISCARD
    penalty = deal_penalties(game)
    return {"penalty": np.array(penalty, dtype=np.float64), "sums": sums, "v2": v2sum, "draws": draws}


def states_path(out: str | Path, players: int, contract: int) -> Path:
    """The recorded sums of a player count and contract."""
    return Path(out) / f"draws-p{players}-c{contract}.npz"


def pending(cfg: Fit3Config, path_of: Callable[[str | Path, int, int], Path], tag: str,
            log: Any = print) -> Iterator[tuple[int, int, Path]]:
    """The (player count, contract, file) of ``cfg`` still to record, in order; a file
    already recorded is kept (and said so), so that an interrupted recording resumes."""
    Path(cfg.out).mkdir(parents=True, exist_ok=True)
    for players in cfg.players:
        for contract in cfg.contracts:
            path = path_of(cfg.out, players, contract)
            if path.exists():
                log(f"[{tag}] {path} exists, kept")
                continue
            yield players, contract, path


@dataclass(frozen=True)
class FitGame:
    """One fitting game: the deck's index and cards, the dealer, the game's index in the
    deck's :func:`seatings` and its agents by seat, the agents' seeds and the game's seed."""

    deck_index: int
    deck: list[int]
    dealer: int
    game: int
    specs: tuple[str, ...]
    seeds: list[int]
    game_seed: int

    @property
    def agents(self) -> list[int]:
        """The agent of each seat as recorded: 0 the heuristic, 1 greedy."""
        return [0 if spec == "heuristic" else 1 for spec in self.specs]


def fit_games(seed: int, version: str, players: int, contract: int, decks: Iterable[int]) -> Iterator[FitGame]:
    """Every game a version's recording plays on ``decks``: each deck and dealer drawn by
    :func:`~carioca_experiments.studies.luck.fit.fit_deck` on the fit namespace under the
    version's labels (``v3-deck``, ``v3-agent``, ``v3-game`` for ``version="v3"``), then
    played by each of :func:`seatings`."""
    from carioca_experiments.studies.luck.fit import fit_deck

    lineup = seatings(players)
    for d in decks:
        deck, dealer = fit_deck(random.Random(derive_seed(LUCK_FIT, seed, f"{version}-deck", players, contract, d)),
                                players)
        seeds = [derive_seed(LUCK_FIT, seed, f"{version}-agent", players, contract, d, s) for s in range(players)]
        gseed = derive_seed(LUCK_FIT, seed, f"{version}-game", players, contract, d)
        for g, specs in enumerate(lineup):
            yield FitGame(d, deck, dealer, g, specs, seeds, gseed)


def save_recording(path: Path, arrays: dict[str, Any], players: int) -> None:
    """Save one (player count, contract)'s recorded arrays, with the seatings they were played by."""
    arrays["seatings"] = np.array(["|".join(s) for s in seatings(players)])
    np.savez_compressed(path, **arrays)


def record(cfg: Fit3Config, log: Any = print) -> None:
    """Play the fitting games and save, per (player count, contract), one row per (deck, game, seat)."""
    from carioca_experiments.evaluation.luck.value import SHIPPED_BY_VERSION, ValueFileError, load_value

    shipped_v2 = load_value(SHIPPED_BY_VERSION[2])
    for players, contract, path in pending(cfg, states_path, "luck-fit3", log):
        # version 2's corrections ride along for comparison (and as a candidate model) where it has models
        v2: Any = shipped_v2
        try:
            shipped_v2.model(players, 1)
        except ValueFileError:
            v2 = None
        t0 = time.process_time()
        rows: dict[str, list[Any]] = {"penalty": [], "sums": [], "v2": [], "deck": [], "game": [], "agent": []}
        for fg in fit_games(cfg.seed, "v3", players, contract, range(cfg.decks)):
            r = play_game(fg.deck, fg.dealer, contract, fg.specs, fg.seeds, fg.game_seed, cfg.max_turns, v2)
            rows["penalty"].append(r["penalty"])
            rows["sums"].append(r["sums"].astype(np.float32))
            rows["v2"].append(r["v2"])
            rows["deck"].append(fg.deck_index)
            rows["game"].append(fg.game)
            rows["agent"].append(fg.agents)
        save_recording(path, {k: np.array(v) for k, v in rows.items()}, players)
        log(f"[luck-fit3] p{players} c{contract}: {cfg.decks} decks, {len(rows['deck'])} games, "
            f"{time.process_time() - t0:.0f} s CPU")


def load(path: str | Path) -> dict[str, np.ndarray]:
    """The recorded sums of one (player count, contract), as arrays."""
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def demean(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """``values`` minus their mean within each group (rows of ``values``)."""
    _, inv = np.unique(groups, return_inverse=True)
    sums = np.zeros((inv.max() + 1,) + values.shape[1:])
    np.add.at(sums, inv, values)
    count = np.bincount(inv).astype(np.float64).reshape((-1,) + (1,) * (values.ndim - 1))
    return values - (sums / count)[inv]


def ridge_fit(x: np.ndarray, y: np.ndarray, groups: np.ndarray, lam: float) -> np.ndarray:
    """Weights ``w`` of ``y ~ w @ x`` with a fixed effect per group, ridge penalty ``lam`` on
    columns scaled to unit variance (a column that never varies gets weight 0)."""
    xd, yd = demean(x, groups), demean(y[:, None], groups)[:, 0]
    sd = xd.std(axis=0)
    live = sd > 1e-9
    z = xd[:, live] / sd[live]
    b = np.linalg.solve(z.T @ z + lam * np.eye(z.shape[1]), z.T @ yd)
    w = np.zeros(x.shape[1])
    w[live] = b / sd[live]
    return w


def seat_rows(data: dict[str, np.ndarray], decks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, y, group)``: one row per (game, seat) of the given decks; the group is (deck, seat)."""
    keep = np.isin(data["deck"], decks)
    n = data["penalty"].shape[1]
    x = data["sums"][keep].astype(np.float64).reshape(-1, data["sums"].shape[-1])
    y = data["penalty"][keep].reshape(-1)
    group = (data["deck"][keep][:, None] * n + np.arange(n)[None, :]).reshape(-1)
    return x, y, group


def pair_diffs(data: dict[str, np.ndarray], decks: np.ndarray, corrections: np.ndarray) -> np.ndarray:
    """Per deck, heuristic's minus greedy's mean corrected penalty over the duplicate lineups
    (``corrections [games, seats]``, zeros for the raw difference)."""
    lineups = duplicate_lineups(data)
    out = []
    for d in decks:
        games = np.flatnonzero((data["deck"] == d) & (data["game"] < lineups))
        pen = data["penalty"][games] - corrections[games]
        agent = data["agent"][games]
        out.append(pen[agent == 0].mean() - pen[agent == 1].mean())
    return np.array(out)


def pair_rows(data: dict[str, np.ndarray], decks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: per deck, heuristic's minus greedy's mean over the duplicate lineups of the
    centred basis sums and of the penalties (what a correction subtracts from the paired
    difference, and the difference)."""
    lineups = duplicate_lineups(data)
    xs, ys = [], []
    for d in decks:
        games = np.flatnonzero((data["deck"] == d) & (data["game"] < lineups))
        agent, pen, sums = data["agent"][games], data["penalty"][games], data["sums"][games].astype(np.float64)
        ys.append(pen[agent == 0].mean() - pen[agent == 1].mean())
        xs.append(sums[agent == 0].mean(axis=0) - sums[agent == 1].mean(axis=0))
    return np.array(xs), np.array(ys)


def duplicate_lineups(data: dict[str, np.ndarray]) -> int:
    """How many of a deck's games (the first) are the lineups of heuristic against greedy."""
    return int(np.sum([0 < s.split("|").count("heuristic") < len(s.split("|")) for s in data["seatings"]]))


def split(decks: np.ndarray) -> dict[str, np.ndarray]:
    """The decks of each split: ``train``, ``validation``, ``heldout``."""
    r = decks % HELDOUT_EVERY
    return {"train": decks[(r != VALIDATION) & (r != HELDOUT_EVERY - 1)], "validation": decks[r == VALIDATION],
            "heldout": decks[r == HELDOUT_EVERY - 1]}


#: The fitting objectives tried; validation chooses one with the ridge penalty.
OBJECTIVES = ("seat", "pair")
#: With fewer validation decks than this, a paired ratio over them is too noisy to choose
#: by (about +-0.2 at 15 decks): the choice is then the seat objective's ridge penalty with
#: the best within-deal R^2 on the validation decks' every game and seat.
MIN_PAIRED_VALIDATION = 40


def choose_fit(data: dict[str, np.ndarray], sums: np.ndarray, sp: dict[str, np.ndarray],
            raw_validation: float) -> tuple[float, str, float, np.ndarray, float]:
    """The objective and ridge penalty whose weights on ``sums [games, seats, columns]``
    do best on the validation decks: ``(criterion, objective, ridge, weights, paired ratio)``,
    the criterion the paired ratio, or minus the within-deal R^2 with fewer than
    :data:`MIN_PAIRED_VALIDATION` validation decks (lower is better)."""
    d = dict(data, sums=sums)
    seat_x, seat_y, seat_g = seat_rows(d, sp["train"])
    pair_x, pair_y = pair_rows(d, sp["train"])
    full = sums.astype(np.float64)
    few = len(sp["validation"]) < MIN_PAIRED_VALIDATION
    vx, vy, vg = seat_rows(d, sp["validation"])
    best: tuple[float, str, float, np.ndarray, float] | None = None
    for objective in ("seat",) if few else OBJECTIVES:
        for lam in RIDGES:
            if objective == "seat":
                w = ridge_fit(seat_x, seat_y, seat_g, lam)
            else:
                w = ridge_fit(pair_x, pair_y, np.zeros(len(pair_y)), lam)
            r = float(pair_diffs(data, sp["validation"], full @ w).std(ddof=1) / raw_validation)
            key = -_within_r2(vx, vy, vg, w) if few else r
            if best is None or key < best[0]:
                best = (key, objective, lam, w, r)
    if best is None:
        raise ValueError("no objective or ridge penalty to try")
    return best


def _within_r2(x: np.ndarray, y: np.ndarray, groups: np.ndarray, w: np.ndarray) -> float:
    """The share of the within-group variance of ``y`` that ``x @ w`` explains."""
    yd = demean(y[:, None], groups)[:, 0]
    resid = yd - demean((x @ w)[:, None], groups)[:, 0]
    return 1.0 - float(resid @ resid) / float(yd @ yd)


def fit_model(data: dict[str, np.ndarray], log: Any = print) -> tuple[np.ndarray | float, dict[str, Any]]:
    """The model of one (player count, contract) and what the fit measured.

    Two kinds of model are fitted on the training decks: draw weights on the basis sums,
    and (where the recorded games carry version 2's corrections) a multiple ``beta`` of
    version 2, or version 2 as it is.  Each tries every objective of :data:`OBJECTIVES`
    (``seat``: each seat's penalty, a fixed effect per deck and seat, every game; ``pair``:
    the paired difference of the duplicate lineups per deck) with every ridge penalty of
    :data:`RIDGES`; the one whose corrections give the narrowest paired difference on the
    validation decks is kept (with fewer than :data:`MIN_PAIRED_VALIDATION` validation
    decks: the seat objective only, and the best within-deal R^2 on them).  The held-out
    decks only report.  Returns the draw weights (a vector) or ``beta``.
    """
    decks = np.unique(data["deck"])
    sp = split(decks)
    zero = np.zeros_like(data["penalty"])
    raw = {k: float(pair_diffs(data, sp[k], zero).std(ddof=1)) for k in ("validation", "heldout")}
    candidates = {"draw": (data["sums"], choose_fit(data, data["sums"], sp, raw["validation"]))}
    if np.any(data["v2"]):
        v2 = data["v2"][..., None]
        fitted = choose_fit(data, v2, sp, raw["validation"])
        # version 2 as it is (beta 1) is a candidate too, judged by the same criterion
        one = np.ones(1)
        as_is = float(pair_diffs(data, sp["validation"], data["v2"]).std(ddof=1) / raw["validation"])
        if len(sp["validation"]) < MIN_PAIRED_VALIDATION:
            crit = -_within_r2(*seat_rows(dict(data, sums=v2), sp["validation"]), one)
        else:
            crit = as_is
        candidates["v2"] = (v2, fitted if fitted[0] <= crit else (crit, "none", 0.0, one, as_is))
    kind = min(candidates, key=lambda k: candidates[k][1][0])
    sums, (_, objective, lam, w, r_val) = candidates[kind]
    corr = sums.astype(np.float64) @ w
    # held out: how much of the within-(deck, seat) penalty variance the corrections explain
    hx, hy, hg = seat_rows(dict(data, sums=sums), sp["heldout"])
    report: dict[str, Any] = {
        "decks": int(len(decks)), "games": int(len(data["deck"])), "kind": kind, "objective": objective,
        "ridge": lam, "ratio_validation": round(r_val, 3),
        "ratio_heldout": round(float(pair_diffs(data, sp["heldout"], corr).std(ddof=1) / raw["heldout"]), 3),
        "r2_heldout_within_deal": round(_within_r2(hx, hy, hg, w), 3),
        "draw_ratio_validation": round(candidates["draw"][1][4], 3),
        "criterion": "paired ratio" if len(sp["validation"]) >= MIN_PAIRED_VALIDATION else "within-deal R^2",
    }
    if "v2" in candidates:
        report["v2_beta_ratio_validation"] = round(candidates["v2"][1][4], 3)
        for k in ("validation", "heldout"):
            report[f"v2_ratio_{k}"] = round(float(pair_diffs(data, sp[k], data["v2"]).std(ddof=1) / raw[k]), 3)
    return (float(w[0]) if kind == "v2" else w), report


def fit(cfg: Fit3Config, log: Any = print) -> Any:
    """Fit every recorded (player count, contract) and write ``value.json`` (version 3)."""
    from dataclasses import asdict

    from carioca_experiments.evaluation.luck.value import DrawValue, model_key

    models: dict[str, np.ndarray] = {}
    scaled: dict[str, float] = {}
    reports: dict[str, Any] = {}
    shape = (len(features3.CONTEXT), len(features3.ATTRS))
    for players in cfg.players:
        for contract in cfg.contracts:
            path = states_path(cfg.out, players, contract)
            if not path.exists():
                log(f"[luck-fit3] {path} missing, p{players} c{contract} not fitted")
                continue
            w, report = fit_model(load(path), log)
            key = model_key(players, contract)
            if isinstance(w, float):
                scaled[key] = w
            else:
                models[key] = w.reshape((players,) + shape)
            reports[key] = report
            log(f"[luck-fit3] {key}: {report}")
    meta = {"fit": {k: v for k, v in asdict(cfg).items() if k not in ("what", "out")},
            "seed_namespace": LUCK_FIT, "features": features3.FEATURE_VERSION, "agents": ["heuristic", "greedy"],
            "games_per_deck": "the duplicate lineups of heuristic against greedy, heuristic alone, greedy alone",
            "split_rule": f"by deck: deck % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1} held out (reported only), "
                          f"== {VALIDATION} validation (chooses the objective and the ridge), the rest trains",
            "ridges": list(RIDGES), "objectives": list(OBJECTIVES),
            "kinds": "draw weights, or beta times version 2 (scaled), whichever validates narrower",
            "fit_report": reports}
    value = DrawValue(models, meta, scaled)
    value.save(Path(cfg.out) / "value.json")
    log(f"[luck-fit3] wrote {Path(cfg.out) / 'value.json'} ({value.fingerprint})")
    return value


def command(argv: Sequence[str] | None, module: str, doc: str, config: Callable[..., Any],
            record_fn: Callable[[Any], None], fit_fn: Callable[[Any], Any], players: Sequence[int], seed: int,
            out: str, first_deck: bool = False) -> int:
    """The ``record`` / ``fit`` command line of a fitting module (fit3's, fit4's and fit5's):
    arguments -> ``config(what, players, contracts, decks, seed, max_turns, out)`` ->
    ``record_fn`` or ``fit_fn``; ``players``, ``seed`` and ``out`` are its defaults.  With
    ``first_deck``, a ``--first-deck`` option is passed to ``config`` as ``first_deck=``."""
    p = argparse.ArgumentParser(prog=f"python -m carioca_experiments.evaluation.luck.{module}", description=doc.split("\n\n")[0])
    p.add_argument("what", choices=("record", "fit"))
    p.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=list(players))
    p.add_argument("--contracts", type=int, nargs="+", choices=range(1, 8), default=list(range(1, 8)))
    p.add_argument("--decks", type=int_at_least(HELDOUT_EVERY), default=600)
    p.add_argument("--seed", type=int_at_least(0), default=seed)
    p.add_argument("--max-turns", type=int_at_least(1), default=600)
    p.add_argument("--out", default=out)
    if first_deck:
        p.add_argument("--first-deck", type=int_at_least(0), default=0,
                       help="the index of the first deck recorded (decks first..first+decks-1)")
    a = p.parse_args(argv)
    extra = {"first_deck": a.first_deck} if first_deck else {}
    cfg = config(a.what, tuple(a.players), tuple(a.contracts), a.decks, a.seed, a.max_turns, a.out, **extra)

    def work() -> None:
        if cfg.what == "record":
            record_fn(cfg)
        else:
            fit_fn(cfg)

    return run_script(work)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.luck.fit3``: see the module docstring."""
    return command(argv, "fit3", __doc__ or "", Fit3Config, record, fit, (2, 3, 4), 3, "runs/luck-v3")


if __name__ == "__main__":
    sys.exit(main())
