"""Fitting the version-4 luck value function: draw and action weights, regressed on the penalties.

Usage::

    python -m carioca_experiments.studies.luck.fit4 record --players 2 --contracts 1 2 6 --decks 200 --out runs/luck-v4
    python -m carioca_experiments.studies.luck.fit4 fit --players 2 --out runs/luck-v4

``record`` plays, on decks dealt from the fit's seed namespace (``carioca-luck-fit``, fit
seed 4, deck label ``v4-deck``: never a tournament's decks, nor version 3's fitting
deals), the games of :func:`carioca_experiments.studies.luck.fit3.seatings` (the duplicate
lineups of heuristic against greedy, then each alone).  Per game and seat it adds up the
centred draw rows of every stock draw (as :mod:`.fit3`), the centred action rows of every
choice an agent declared random (:mod:`.features4`: the option played minus the options'
probability-weighted mean, through :func:`carioca_experiments.evaluation.luck.draw_features.basis`),
and the corrections of the shipped version 3, for comparison.

A version-4 correction is linear in its weights, so ``fit`` is fit3's regression on the
joined rows.  Per (player count, contract) three models are fitted on the training decks
and validation keeps one: version 3's draws as they are plus action weights fitted to what
version 3 leaves (``v3+actions``); draw and action weights jointly (``joint``); version 3
alone (no action weights).  The draw weights refitted alone (``draw``) are reported beside
them, to show what the action rows add.  Splits by deck as fit3 (every fifth held out,
only reported; the one before it validation; the rest trains).  The value file's draw part
is version 3 with the refitted draw models replaced; (player count, contract)s that were
not recorded keep version 3 and get no action terms.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carioca_experiments.common.seeds import LUCK_FIT
from carioca_experiments.evaluation.luck import draw_features as features3
from carioca_experiments.studies.luck import action_features as features4
from carioca_experiments.studies.luck.fit3 import (
    HELDOUT_EVERY,
    MIN_PAIRED_VALIDATION,
    Fit3Config,
    choose_fit,
    command,
    fit_games,
    load,
    pair_diffs,
    pending,
    save_recording,
    split,
)


@dataclass(frozen=True)
class Fit4Config(Fit3Config):
    """What ``record`` plays and ``fit`` fits: :class:`Fit3Config`'s fields, with version
    4's defaults (2 players, fit seed 4, ``runs/luck-v4``, whose recorded sums are
    ``rows-p{n}-c{k}.npz``)."""

    players: tuple[int, ...] = (2,)
    seed: int = 4
    out: str = "runs/luck-v4"


def play_game(deck: list[int], dealer: int, contract: int, specs: Sequence[str], seeds: Sequence[int],
              game_seed: int, max_turns: int, v3: Any) -> dict[str, Any]:
    """One game; per seat its penalty, its summed centred draw and action rows, and its
    correction by ``v3``."""
    from carioca_agents.base import declared_choice
    from carioca_env.moves import MoveKind
    from carioca_env.view import Phase
    from carioca_experiments.evaluation.luck.correction import LuckTracker
    from carioca_experiments.evaluation.tournament.play import deal_penalties
    from carioca_experiments.studies.luck.seated import seat_deal

    n = len(specs)
    game, agents = seat_deal(deck, dealer, contract, specs, seeds, game_seed)
    tracker = LuckTracker(v3, n)
    draw_sums = np.zeros((n, n * len(features3.CONTEXT) * len(features3.ATTRS)))
    action_sums = np.zeros((n, n * len(features3.CONTEXT) * len(features4.ACTION_ATTRS)))
    actions = turns = 0
    while not game.deal_results or game.deal_results[-1].cancelled:
        if turns >= max_turns:
            break
        seat = game.current
        move = agents[seat].act(game.view(seat), game.legal_moves())
        choice = declared_choice(agents[seat])
        tracker.before(game, move)
        pending = None
        if move.kind is MoveKind.DRAW_STOCK and game.phase is Phase.DRAW and game.stock:
            cards, counts, ctx, attrs = features3.draw_features(game)
            pending = (cards, ctx, attrs, np.tensordot(counts, attrs, axes=1) / counts.sum())
        elif choice is not None and choice.move == move and features4.valued(choice.options):
            ctx, attrs = features4.action_features(game, choice.options)
            action_sums += features3.basis(seat, ctx, features4.centred(attrs, choice.chosen, choice.weights()))
            actions += 1
        game.apply(move)
        tracker.after(game)
        if pending is not None:
            cards, ctx, attrs, mean = pending
            k = int(np.searchsorted(cards, game.drawn_card))
            draw_sums += features3.basis(seat, ctx, attrs[k] - mean)
        turns += move.kind is MoveKind.DISCARD
    penalty = deal_penalties(game)
    return {"penalty": np.array(penalty, dtype=np.float64), "draw_sums": draw_sums, "action_sums": action_sums,
            "v3": tracker.corrections.copy(), "draws": tracker.draws, "actions": actions}


def rows_path(out: str | Path, players: int, contract: int) -> Path:
    """The recorded rows of a player count and contract."""
    return Path(out) / f"rows-p{players}-c{contract}.npz"


def record(cfg: Fit4Config, log: Any = print) -> None:
    """Play the fitting games; save, per (player count, contract), one row per (deck, game)
    (a (player count, contract) already recorded is kept)."""
    from carioca_experiments.evaluation.luck.value import SHIPPED_BY_VERSION, load_value

    v3 = load_value(SHIPPED_BY_VERSION[3])
    for players, contract, path in pending(cfg, rows_path, "luck-fit4", log):
        t0 = time.process_time()
        rows: dict[str, list[Any]] = {k: [] for k in ("penalty", "draw_sums", "action_sums", "v3", "deck", "game",
                                                      "agent", "actions")}
        for fg in fit_games(cfg.seed, "v4", players, contract, range(cfg.decks)):
            r = play_game(fg.deck, fg.dealer, contract, fg.specs, fg.seeds, fg.game_seed, cfg.max_turns, v3)
            for k in ("penalty", "v3", "actions"):
                rows[k].append(r[k])
            rows["draw_sums"].append(r["draw_sums"].astype(np.float32))
            rows["action_sums"].append(r["action_sums"].astype(np.float32))
            rows["deck"].append(fg.deck_index)
            rows["game"].append(fg.game)
            rows["agent"].append(fg.agents)
        save_recording(path, {k: np.array(v) for k, v in rows.items()}, players)
        log(f"[luck-fit4] p{players} c{contract}: {cfg.decks} decks, {len(rows['deck'])} games, "
            f"{np.mean(rows['actions']):.1f} declared choices valued per game, "
            f"{time.process_time() - t0:.0f} s CPU")


def _ratio(data: dict[str, np.ndarray], decks: np.ndarray, corrections: np.ndarray, raw: float) -> float:
    return round(float(pair_diffs(data, decks, corrections).std(ddof=1) / raw), 3)


def fit_model(data: dict[str, np.ndarray]) -> tuple[str, np.ndarray | None, np.ndarray | None, dict[str, Any]]:
    """The model of one (player count, contract): ``(kind, draw weights or None (version 3's),
    action weights or None, report)`` (see the module docstring)."""
    decks = np.unique(data["deck"])
    sp = split(decks)
    zero = np.zeros_like(data["penalty"])
    raw = {k: float(pair_diffs(data, sp[k], zero).std(ddof=1)) for k in ("validation", "heldout")}
    draw, action, v3 = data["draw_sums"], data["action_sums"], data["v3"]
    few = len(sp["validation"]) < MIN_PAIRED_VALIDATION
    fits: dict[str, tuple[Any, ...]] = {}
    # version 3 plus actions: the action weights explain what version 3's corrections leave
    rest = dict(data, penalty=data["penalty"] - v3)
    fits["v3+actions"] = choose_fit(rest, action, split(decks), raw["validation"])
    fits["joint"] = choose_fit(data, np.concatenate([draw, action], axis=-1), sp, raw["validation"])
    fits["draw"] = choose_fit(data, draw, sp, raw["validation"])
    corr = {"v3+actions": v3 + action.astype(np.float64) @ fits["v3+actions"][3],
            "joint": np.concatenate([draw, action], axis=-1).astype(np.float64) @ fits["joint"][3],
            "draw": draw.astype(np.float64) @ fits["draw"][3], "v3": v3}
    # the kind by the paired ratio on validation (fit3's within-deal R^2 is not comparable
    # between a fit of the penalty and one of what version 3 leaves)
    crit = {k: fits[k][4] for k in ("v3+actions", "joint")}
    crit["v3"] = _ratio(data, sp["validation"], v3, raw["validation"])
    kind = min(crit, key=lambda k: crit[k])
    report: dict[str, Any] = {
        "decks": int(len(decks)), "games": int(len(data["deck"])), "kind": kind,
        "declared_choices_per_game": round(float(np.mean(data["actions"])), 1),
        "ridge_criterion": "within-deal R^2" if few else "paired ratio",
    }
    for k, c in corr.items():
        report[f"ratio_validation_{k}"] = _ratio(data, sp["validation"], c, raw["validation"])
        report[f"ratio_heldout_{k}"] = _ratio(data, sp["heldout"], c, raw["heldout"])
        if k in fits:
            report[f"objective_{k}"], report[f"ridge_{k}"] = fits[k][1], fits[k][2]
    if kind == "v3":
        return kind, None, None, report
    if kind == "v3+actions":
        return kind, None, fits[kind][3], report
    w = fits["joint"][3]
    return kind, w[:draw.shape[-1]], w[draw.shape[-1]:], report


def fit(cfg: Fit4Config, log: Any = print) -> Any:
    """Fit every recorded (player count, contract) and write ``value.json`` (version 4)."""
    from dataclasses import asdict

    from carioca_experiments.evaluation.luck.value import SHIPPED_BY_VERSION, DrawValue, load_value, model_key
    from carioca_experiments.studies.luck.values import ActionValue

    v3 = load_value(SHIPPED_BY_VERSION[3])
    if not isinstance(v3, DrawValue):
        raise ValueError(f"{SHIPPED_BY_VERSION[3]} is not a version-3 value file")
    models = dict(v3.models)
    scaled = dict(v3.scaled)
    actions: dict[str, np.ndarray] = {}
    reports: dict[str, Any] = {}
    shape3 = (len(features3.CONTEXT), len(features3.ATTRS))
    shape4 = (len(features3.CONTEXT), len(features4.ACTION_ATTRS))
    for players in cfg.players:
        for contract in cfg.contracts:
            path = rows_path(cfg.out, players, contract)
            if not path.exists():
                log(f"[luck-fit4] {path} missing, p{players} c{contract} keeps version 3")
                continue
            kind, wd, wa, report = fit_model(load(path))
            key = model_key(players, contract)
            if wd is not None:
                models[key] = wd.reshape((players,) + shape3)
                scaled.pop(key, None)
            if wa is not None:
                actions[key] = wa.reshape((players,) + shape4)
            reports[key] = report
            log(f"[luck-fit4] {key}: {report}")
    meta = {"fit": {k: v for k, v in asdict(cfg).items() if k not in ("what", "out")},
            "seed_namespace": LUCK_FIT, "deck_label": "v4-deck", "agents": ["heuristic", "greedy"],
            "features": [features3.FEATURE_VERSION, features4.FEATURE_VERSION],
            "split_rule": f"by deck: deck % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1} held out (reported only), "
                          f"== {HELDOUT_EVERY - 2} validation (chooses the kind, objective and ridge), the rest trains",
            "kinds": "v3+actions, joint or v3, whichever validates narrower", "fit_report": reports,
            "draw_base": v3.fingerprint}
    value = ActionValue(DrawValue(models, {"from": f"version 3 ({v3.fingerprint}) with the models refitted by fit4"},
                                  scaled), actions, meta)
    value.save(Path(cfg.out) / "value.json")
    log(f"[luck-fit4] wrote {Path(cfg.out) / 'value.json'} ({value.fingerprint})")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.luck.fit4``: see the module docstring."""
    return command(argv, "fit4", __doc__ or "", Fit4Config, record, fit, (2,), 4, "runs/luck-v4")


if __name__ == "__main__":
    sys.exit(main())
