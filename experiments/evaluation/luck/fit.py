"""Fitting the luck value function: play games, record states, ridge-regress the penalties.

Usage::

    python -m experiments.evaluation.luck.fit --deals 300 --out runs/luck          # games + fit
    python -m experiments.evaluation.luck.fit --fit-only --out runs/luck           # refit recorded states

Games are single deals between agents drawn at random per seat from ``--agents`` (by
default the heuristic, greedy, and the shipped learned model of the contract where one
exists), dealt from the seed namespace ``carioca-luck-fit`` (:func:`experiments.common.seeds.derive_seed`): a hash that
no tournament seed can produce (tournaments hash ``carioca-tournament``), so the value
function never sees an evaluation's decks.  After every stock draw the seat statistics of
the full state are recorded with the deal's final penalties; a deal's states are all in
the training set or all in the held-out set (every fifth deal), so the held-out error
measures new deals.  The fit is ridge regression per (player count, contract) on
:func:`experiments.evaluation.luck.features.design`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.argtypes import int_at_least, real_at_least
from experiments.common.seeds import LUCK_FIT, derive_seed
from experiments.evaluation.luck.features import FEATURE_VERSION, design
from experiments.evaluation.luck.value import ValueFunction, model_key

#: The seed namespace of the fitting games (never a tournament's).
SEED_NAMESPACE = LUCK_FIT
#: Every HELDOUT_EVERY-th deal is held out.
HELDOUT_EVERY = 5
#: Where the shipped learned models live (per contract and player count, when shipped).
MODELS = Path(__file__).resolve().parents[3] / "agents" / "models"


@dataclass(frozen=True)
class FitConfig:
    """What the fit plays and how it regresses.

    Attributes:
        players: player counts to fit.
        contracts: contracts to fit.
        deals: deals per (player count, contract).
        agents: agent specs drawn per seat; ``learned`` is the shipped model of the
            contract and player count (left out where none is shipped).
        seed: the fit seed (in :data:`SEED_NAMESPACE`).
        max_turns: completed turns after which a deal is cut (each seat scores its hand).
        ridge: the ridge penalty (on standardised columns, not the intercept).
        out: folder for the recorded states (``states-p{n}-c{k}.npz``) and ``value.json``.
        workers: processes that play games.
        fit_only: only refit the recorded states.
    """

    players: tuple[int, ...] = (2, 3, 4)
    contracts: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    deals: int = 300
    agents: tuple[str, ...] = ("heuristic", "greedy", "learned")
    seed: int = 0
    max_turns: int = 600
    ridge: float = 1.0
    out: str = "runs/luck"
    workers: int = 1
    fit_only: bool = False


def learned_spec(players: int, contract: int) -> str | None:
    """The shipped learned model's agent spec for a contract and player count, if there is one."""
    folder = MODELS / (f"contract{contract}" + ("" if players == 2 else f"-p{players}"))
    return f"ppo:{folder}" if (folder / "model.zip").exists() else None


def play_states(cfg: FitConfig, players: int, contract: int, deal: int) -> dict[str, Any]:
    """Play one fitting deal; its recorded states and final penalties."""
    from agents.registry import make_agent
    from carioca_env import Game, GameConfig
    from carioca_env.cards import full_deck, hand_penalty
    from carioca_env.moves import MoveKind
    from experiments.evaluation.luck.features import state_stats

    rng = random.Random(derive_seed(SEED_NAMESPACE, cfg.seed, "deal", players, contract, deal))
    deck = full_deck()
    rng.shuffle(deck)
    dealer = rng.randrange(players)
    pool = [a if a != "learned" else learned_spec(players, contract) for a in cfg.agents]
    pool = [a for a in pool if a]
    specs = [pool[rng.randrange(len(pool))] for _ in range(players)]
    seeds = [derive_seed(SEED_NAMESPACE, cfg.seed, "agent", players, contract, deal, s) for s in range(players)]
    agents = [make_agent(sp, sd) for sp, sd in zip(specs, seeds)]
    for a, sd in zip(agents, seeds):
        a.reset(sd)
    game = Game.from_deck(deck, dealer, GameConfig(num_players=players, deals=(contract,)),
                          derive_seed(SEED_NAMESPACE, cfg.seed, "game", players, contract, deal))
    stats, movers, turns = [], [], []
    played = 0
    while not game.deal_results or game.deal_results[-1].cancelled:
        if played >= cfg.max_turns:
            break
        seat = game.current
        move = agents[seat].act(game.view(seat), game.legal_moves())
        before = len(game.deal_results)
        game.apply(move)
        if move.kind is MoveKind.DRAW_STOCK:
            stats.append(state_stats(game))
            movers.append(seat)
            turns.append(game.turn)
        if move.kind is MoveKind.DISCARD:
            played += 1
        if len(game.deal_results) > before and game.deal_results[-1].cancelled:
            stats, movers, turns = [], [], []  # a redeal: the states of the cancelled attempt say nothing of its end
    if game.deal_results and not game.deal_results[-1].cancelled:
        penalty = list(game.deal_results[-1].scores)
    else:
        penalty = [hand_penalty(game.hands[s]) for s in range(players)]
    return {
        "stats": np.array(stats, dtype=np.float32).reshape(-1, players, 6),
        "mover": np.array(movers, dtype=np.int8),
        "turn": np.array(turns, dtype=np.int16),
        "penalty": np.array(penalty, dtype=np.float32),
        "specs": specs,
    }


def _play_many(args: tuple[FitConfig, int, int, Sequence[int]]) -> list[dict[str, Any]]:
    cfg, players, contract, deals = args
    return [play_states(cfg, players, contract, d) for d in deals]


def record(cfg: FitConfig, log: Any = print) -> None:
    """Play the fitting deals and save ``states-p{n}-c{k}.npz`` per player count and contract."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    for players in cfg.players:
        for contract in cfg.contracts:
            path = out / f"states-p{players}-c{contract}.npz"
            if path.exists():
                log(f"[luck-fit] {path} exists, kept")
                continue
            t0 = time.time()
            chunks = [list(range(i, cfg.deals, cfg.workers)) for i in range(cfg.workers)]
            jobs = [(cfg, players, contract, c) for c in chunks if c]
            if cfg.workers > 1:
                import multiprocessing as mp

                with mp.get_context("spawn").Pool(cfg.workers) as pool:
                    parts = pool.map(_play_many, jobs)
            else:
                parts = [_play_many(j) for j in jobs]
            by_deal: dict[int, dict[str, Any]] = {}
            for c, part in zip(chunks, parts):
                by_deal.update(zip(c, part))
            deals = [by_deal[d] for d in range(cfg.deals)]
            sizes = [len(d["mover"]) for d in deals]
            np.savez_compressed(
                path,
                stats=np.concatenate([d["stats"] for d in deals]),
                mover=np.concatenate([d["mover"] for d in deals]),
                turn=np.concatenate([d["turn"] for d in deals]),
                deal=np.repeat(np.arange(cfg.deals), sizes),
                penalty=np.stack([d["penalty"] for d in deals]),
                specs=np.array(["|".join(d["specs"]) for d in deals]),
            )
            log(f"[luck-fit] p{players} c{contract}: {cfg.deals} deals, {sum(sizes)} states, {time.time() - t0:.0f}s")


def design_rows(data: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, deal)`` from recorded states: one row per (state, seat)."""
    stats = data["stats"].astype(np.float64)
    movers = data["mover"].astype(int)
    turns = data["turn"].astype(int)
    deals = data["deal"].astype(int)
    pen = data["penalty"].astype(np.float64)
    n = stats.shape[1]
    xs = [design(stats[i], movers[i], turns[i]) for i in range(len(movers))]
    x = np.concatenate(xs) if xs else np.zeros((0, 1))
    y = pen[deals].reshape(-1)
    return x, y, np.repeat(deals, n)


def ridge(x: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """Ridge regression with the first column the intercept (not penalised); columns are
    standardised for the penalty and the weights mapped back to raw columns."""
    mu = x[:, 1:].mean(axis=0)
    sd = x[:, 1:].std(axis=0)
    sd[sd < 1e-9] = 1.0
    z = (x[:, 1:] - mu) / sd
    ym = y.mean()
    a = z.T @ z + lam * np.eye(z.shape[1])
    b = np.linalg.solve(a, z.T @ (y - ym))
    w = np.empty(x.shape[1])
    w[1:] = b / sd
    w[0] = ym - float(mu @ w[1:])
    return w


def fit(cfg: FitConfig, log: Any = print) -> ValueFunction:
    """Fit one model per recorded (player count, contract); held-out fit in the meta."""
    out = Path(cfg.out)
    weights: dict[str, np.ndarray] = {}
    heldout: dict[str, Any] = {}
    for players in cfg.players:
        for contract in cfg.contracts:
            data = np.load(out / f"states-p{players}-c{contract}.npz")
            x, y, deal = design_rows(data)
            test = deal % HELDOUT_EVERY == HELDOUT_EVERY - 1
            w_train = ridge(x[~test], y[~test], cfg.ridge)
            pred = np.sum(x[test] * w_train, axis=-1)
            resid = y[test] - pred
            r2 = 1.0 - float(resid @ resid) / float(((y[test] - y[test].mean()) ** 2).sum())
            rmse = float(np.sqrt(np.mean(resid ** 2)))
            key = model_key(players, contract)
            heldout[key] = {"r2": round(r2, 4), "rmse": round(rmse, 2), "sd": round(float(y[test].std()), 2),
                            "rows": int(len(y)), "heldout_rows": int(test.sum())}
            log(f"[luck-fit] {key}: held-out R^2 {r2:.3f}, RMSE {rmse:.1f} (sd {y[test].std():.1f}), {len(y)} rows")
            weights[key] = ridge(x, y, cfg.ridge)  # the shipped model uses every deal
    meta = {"fit": {k: v for k, v in asdict(cfg).items() if k not in ("out", "workers", "fit_only")},
            "seed_namespace": SEED_NAMESPACE, "features": FEATURE_VERSION, "heldout": heldout,
            "heldout_rule": f"every {HELDOUT_EVERY}th deal (deal % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1}) held out"}
    vf = ValueFunction(weights, meta)
    vf.save(out / "value.json")
    log(f"[luck-fit] wrote {out / 'value.json'} ({vf.fingerprint})")
    return vf


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.evaluation.luck.fit``: record the fitting states and fit the value function."""
    p = argparse.ArgumentParser(prog="python -m experiments.evaluation.luck.fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=[2, 3, 4])
    p.add_argument("--contracts", type=int, nargs="+", choices=range(1, 8), default=list(range(1, 8)))
    p.add_argument("--deals", type=int_at_least(HELDOUT_EVERY), default=300)
    p.add_argument("--agents", nargs="+", default=["heuristic", "greedy", "learned"])
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--max-turns", type=int_at_least(1), default=600)
    p.add_argument("--ridge", type=real_at_least(0), default=1.0)
    p.add_argument("--out", default="runs/luck")
    p.add_argument("--workers", type=int_at_least(1), default=1)
    p.add_argument("--fit-only", action="store_true")
    a = p.parse_args(argv)
    cfg = FitConfig(tuple(a.players), tuple(a.contracts), a.deals, tuple(a.agents), a.seed, a.max_turns,
                    a.ridge, a.out, a.workers, a.fit_only)
    try:
        if not cfg.fit_only:
            record(cfg)
        fit(cfg)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
