"""Fitting the luck value function: play games, record states, ridge-regress the penalties.

Usage::

    python -m carioca_experiments.studies.luck.fit --deals 1200 --out runs/luck          # games + fit (version 2)
    python -m carioca_experiments.studies.luck.fit --fit-only --out runs/luck            # refit recorded states
    python -m carioca_experiments.studies.luck.fit --version 1 --ridge 300 --out runs/luck-v1   # the linear version 1

Games are single deals between agents drawn at random per seat from ``--agents`` (by
default the heuristic, greedy, and the shipped learned model of the contract where one
exists), dealt from the seed namespace ``carioca-luck-fit`` (:func:`carioca_experiments.common.seeds.derive_seed`): a hash that
no tournament seed can produce (tournaments hash ``carioca-tournament``), so the value
function never sees an evaluation's decks.  After every stock draw the seat statistics of
the full state are recorded with the deal's final penalties; a deal's states are all in
the training set or all in the held-out set (every fifth deal), so the held-out error
measures new deals.

Version 2 (the default, :class:`~carioca_experiments.evaluation.luck.value.MlpValue`) trains a small network
per (player count, contract) on :func:`carioca_experiments.evaluation.luck.race_features.design` with three
splits by deal: every fifth deal is held out for the reported fit and never used to fit or
choose anything, the deal before it in each five is the validation split that chooses the
training epoch, the rest is trained on; the shipped network is the one trained on the
training split.  Version 1 is ridge regression on :func:`carioca_experiments.studies.luck.seat_features.design`.
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

from carioca_experiments.cli import run_script
from carioca_experiments.common.argtypes import int_at_least, real_at_least
from carioca_experiments.common.seeds import LUCK_FIT, derive_seed
from carioca_experiments.evaluation.luck import race_features as features2
from carioca_experiments.evaluation.luck.value import MLP_VERSION, MlpValue, model_key
from carioca_experiments.studies.luck import seat_features as features
from carioca_experiments.studies.luck.values import ValueFunction

#: The seed namespace of the fitting games (never a tournament's).
SEED_NAMESPACE = LUCK_FIT
#: Every HELDOUT_EVERY-th deal is held out.
HELDOUT_EVERY = 5
#: Version 2: the deals with ``deal % HELDOUT_EVERY == VALIDATION`` choose the training
#: settings and epoch.
VALIDATION = HELDOUT_EVERY - 2
#: Version 2: the training settings tried per model (hidden units, learning rate, batch,
#: weight decay); the validation deals choose one.  The second is for the smaller data
#: sets (600 deals at 4 players), where the first overfits within a few epochs.
MLP_SETTINGS = ((32, 1e-3, 1024, 1e-3), (16, 5e-4, 2048, 1e-2))
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
        version: 1 (linear, :mod:`.features`) or 2 (network, :mod:`.features2`).
        epochs: version 2: the most training epochs (the validation split picks one).
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
    version: int = MLP_VERSION
    epochs: int = 40


def learned_spec(players: int, contract: int) -> str | None:
    """The shipped learned model's agent spec for a contract and player count, if there is one."""
    folder = MODELS / (f"contract{contract}" + ("" if players == 2 else f"-p{players}"))
    return f"ppo:{folder}" if (folder / "model.zip").exists() else None


def fit_deck(rng: random.Random, players: int) -> tuple[list[int], int]:
    """A fitting deal's shuffled deck and dealer, drawn from ``rng`` (seeded by :func:`carioca_experiments.common.seeds.derive_seed`)."""
    from carioca_env.cards import full_deck

    deck = full_deck()
    rng.shuffle(deck)
    return deck, rng.randrange(players)


def fit_deal_rng(seed: int, players: int, contract: int, deal: int) -> random.Random:
    """The random source of one fitting deal (its deck, dealer and agents)."""
    return random.Random(derive_seed(SEED_NAMESPACE, seed, "deal", players, contract, deal))


def play_states(cfg: FitConfig, players: int, contract: int, deal: int) -> dict[str, Any]:
    """Play one fitting deal; its recorded states and final penalties."""
    from carioca_env.cards import hand_penalty
    from carioca_env.moves import MoveKind
    from carioca_experiments.studies.luck.seated import seat_deal
    stats_of = features2.state_stats if cfg.version == MLP_VERSION else features.state_stats

    rng = fit_deal_rng(cfg.seed, players, contract, deal)
    deck, dealer = fit_deck(rng, players)
    # "learned" is the shipped model of this table, if there is one
    named = (a if a != "learned" else learned_spec(players, contract) for a in cfg.agents)
    pool = [a for a in named if a]
    specs = [pool[rng.randrange(len(pool))] for _ in range(players)]
    seeds = [derive_seed(SEED_NAMESPACE, cfg.seed, "agent", players, contract, deal, s) for s in range(players)]
    game, agents = seat_deal(deck, dealer, contract, specs, seeds,
                             derive_seed(SEED_NAMESPACE, cfg.seed, "game", players, contract, deal))
    stats, movers, turns, stocks = [], [], [], []
    played = 0
    while not game.deal_results or game.deal_results[-1].cancelled:
        if played >= cfg.max_turns:
            break
        seat = game.current
        move = agents[seat].act(game.view(seat), game.legal_moves())
        before = len(game.deal_results)
        game.apply(move)
        if move.kind is MoveKind.DRAW_STOCK:
            stats.append(stats_of(game))
            movers.append(seat)
            turns.append(game.turn)
            stocks.append(len(game.stock))
        if move.kind is MoveKind.DISCARD:
            played += 1
        if len(game.deal_results) > before and game.deal_results[-1].cancelled:
            stats, movers, turns, stocks = [], [], [], []  # a redeal: the states of the cancelled attempt say nothing of its end
    if game.deal_results and not game.deal_results[-1].cancelled:
        penalty = list(game.deal_results[-1].scores)
    else:
        penalty = [hand_penalty(game.hands[s]) for s in range(players)]
    width = len(features2.STATS) if cfg.version == MLP_VERSION else len(features.STATS)
    return {
        "stats": np.array(stats, dtype=np.float32).reshape(-1, players, width),
        "mover": np.array(movers, dtype=np.int8),
        "turn": np.array(turns, dtype=np.int16),
        "stock": np.array(stocks, dtype=np.int16),
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
            path = out / states_file(cfg.version, players, contract)
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
                stock=np.concatenate([d["stock"] for d in deals]),
                deal=np.repeat(np.arange(cfg.deals), sizes),
                penalty=np.stack([d["penalty"] for d in deals]),
                specs=np.array(["|".join(d["specs"]) for d in deals]),
            )
            log(f"[luck-fit] p{players} c{contract}: {cfg.deals} deals, {sum(sizes)} states, {time.time() - t0:.0f}s")


def states_file(version: int, players: int, contract: int) -> str:
    """The recorded states' file name of a features version, player count and contract."""
    return f"states-p{players}-c{contract}.npz" if version == 1 else f"states-v{version}-p{players}-c{contract}.npz"


def design_rows(data: Any, version: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, deal)`` from recorded states: one row per (state, seat)."""
    stats = data["stats"].astype(np.float64)
    movers = data["mover"].astype(int)
    turns = data["turn"].astype(int)
    deals = data["deal"].astype(int)
    pen = data["penalty"].astype(np.float64)
    n = stats.shape[1]
    if version == 1:
        xs = [features.design(stats[i], movers[i], turns[i]) for i in range(len(movers))]
    else:
        stock = data["stock"].astype(np.float64)
        xs = [features2.design(stats[i], movers[i], turns[i], stock[i]) for i in range(len(movers))]
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


def _r2(y: np.ndarray, pred: np.ndarray) -> float:
    resid = y - pred
    return 1.0 - float(resid @ resid) / float(((y - y.mean()) ** 2).sum())


def _heldout(y: np.ndarray, pred: np.ndarray, rows: int) -> dict[str, Any]:
    resid = y - pred
    return {"r2": round(_r2(y, pred), 4), "rmse": round(float(np.sqrt(np.mean(resid ** 2))), 2),
            "sd": round(float(y.std()), 2), "rows": rows, "heldout_rows": int(len(y))}


def fit_linear(cfg: FitConfig, log: Any = print) -> ValueFunction:
    """Version 1: ridge regression per recorded (player count, contract); held-out fit in the meta."""
    out = Path(cfg.out)
    weights: dict[str, np.ndarray] = {}
    heldout: dict[str, Any] = {}
    for players in cfg.players:
        for contract in cfg.contracts:
            x, y, deal = design_rows(np.load(out / states_file(1, players, contract)), 1)
            test = deal % HELDOUT_EVERY == HELDOUT_EVERY - 1
            w_train = ridge(x[~test], y[~test], cfg.ridge)
            key = model_key(players, contract)
            heldout[key] = _heldout(y[test], np.sum(x[test] * w_train, axis=-1), int(len(y)))
            log(f"[luck-fit] {key}: held-out {heldout[key]}")
            weights[key] = ridge(x, y, cfg.ridge)  # the shipped model uses every deal
    meta = {"fit": {k: v for k, v in asdict(cfg).items() if k not in ("out", "workers", "fit_only")},
            "seed_namespace": SEED_NAMESPACE, "features": features.FEATURE_VERSION, "heldout": heldout,
            "heldout_rule": f"every {HELDOUT_EVERY}th deal (deal % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1}) held out"}
    vf = ValueFunction(weights, meta)
    vf.save(out / "value.json")
    log(f"[luck-fit] wrote {out / 'value.json'} ({vf.fingerprint})")
    return vf


def train_mlp(x: np.ndarray, y: np.ndarray, x_val: np.ndarray, y_val: np.ndarray, hidden: int, epochs: int,
              seed: int, lr: float = 1e-3, batch: int = 512,
              weight_decay: float = 1e-4) -> tuple[dict[str, np.ndarray], int, float]:
    """Train one network (mean squared error, AdamW) on ``(x, y)``; the epoch with the best
    R^2 on ``(x_val, y_val)`` is kept.  Returns ``(parameters, epoch, validation R^2)``."""
    import torch

    from carioca_experiments.evaluation.luck.value import mlp_forward

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-6] = 1.0
    y_shift, y_scale = float(y.mean()), float(y.std()) or 1.0
    z = torch.tensor((x - mu) / sd, dtype=torch.float32)
    t = torch.tensor((y - y_shift) / y_scale, dtype=torch.float32)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)

    def params() -> dict[str, np.ndarray]:
        w = [p.detach().double().numpy().copy() for p in net.parameters()]
        return {"mu": mu, "sd": sd, "w1": w[0].T, "b1": w[1], "w2": w[2].T, "b2": w[3], "w3": w[4][0],
                "b3": np.asarray(w[5][0]), "y_scale": np.asarray(y_scale), "y_shift": np.asarray(y_shift)}

    best: tuple[float, int, dict[str, np.ndarray]] = (-np.inf, 0, params())
    for epoch in range(1, epochs + 1):
        order = torch.randperm(len(t), generator=gen)
        for i in range(0, len(order), batch):
            b = order[i:i + batch]
            loss = torch.mean((net(z[b])[:, 0] - t[b]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
        p = params()
        r2 = _r2(y_val, mlp_forward(p, x_val))
        if r2 > best[0]:
            best = (r2, epoch, p)
    return best[2], best[1], best[0]


def fit_mlp(cfg: FitConfig, log: Any = print) -> MlpValue:
    """Version 2: one network per recorded (player count, contract), trained on the
    training deals, its epoch chosen on the validation deals; the R^2 on the held-out
    deals (never used to fit or choose) in the meta."""
    import torch

    from carioca_experiments.evaluation.luck.value import mlp_forward

    torch.set_num_threads(1)
    out = Path(cfg.out)
    models: dict[str, dict[str, np.ndarray]] = {}
    heldout: dict[str, Any] = {}
    for players in cfg.players:
        for contract in cfg.contracts:
            x, y, deal = design_rows(np.load(out / states_file(MLP_VERSION, players, contract)), MLP_VERSION)
            split = deal % HELDOUT_EVERY
            test, val = split == HELDOUT_EVERY - 1, split == VALIDATION
            train = ~(test | val)
            key = model_key(players, contract)
            tried = []
            for setting in MLP_SETTINGS:
                hidden, lr, batch, decay = setting
                params, epoch, val_r2 = train_mlp(x[train], y[train], x[val], y[val], int(hidden), cfg.epochs,
                                                  derive_seed(SEED_NAMESPACE, cfg.seed, "train", players, contract) % 2**31,
                                                  lr=lr, batch=int(batch), weight_decay=decay)
                tried.append((val_r2, epoch, params, setting))
            val_r2, epoch, params, setting = max(tried, key=lambda t: t[0])
            heldout[key] = {**_heldout(y[test], mlp_forward(params, x[test]), int(len(y))),
                            "deals": int(len(np.unique(deal))), "validation_r2": round(val_r2, 4), "epoch": epoch,
                            "setting": dict(zip(("hidden", "lr", "batch", "weight_decay"), setting))}
            log(f"[luck-fit] {key}: {heldout[key]}")
            models[key] = params
    meta = {"fit": {k: v for k, v in asdict(cfg).items() if k not in ("out", "workers", "fit_only", "ridge")},
            "seed_namespace": SEED_NAMESPACE, "features": features2.FEATURE_VERSION, "heldout": heldout,
            "split_rule": f"by deal: deal % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1} held out (the R^2 here), "
                          f"== {VALIDATION} validation (chooses the setting and the epoch), the rest trains",
            "settings": [list(x) for x in MLP_SETTINGS]}
    vf = MlpValue(models, meta)
    vf.save(out / "value.json")
    log(f"[luck-fit] wrote {out / 'value.json'} ({vf.fingerprint})")
    return vf


def fit(cfg: FitConfig, log: Any = print) -> ValueFunction | MlpValue:
    """Fit the value function of ``cfg.version`` on the recorded states."""
    return fit_mlp(cfg, log) if cfg.version == MLP_VERSION else fit_linear(cfg, log)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.luck.fit``: record the fitting states and fit the value function."""
    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.luck.fit", description=__doc__.split("\n\n")[0])
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
    p.add_argument("--version", type=int, choices=(1, MLP_VERSION), default=MLP_VERSION)
    p.add_argument("--epochs", type=int_at_least(1), default=40)
    a = p.parse_args(argv)
    cfg = FitConfig(tuple(a.players), tuple(a.contracts), a.deals, tuple(a.agents), a.seed, a.max_turns,
                    a.ridge, a.out, a.workers, a.fit_only, a.version, a.epochs)

    def work() -> None:
        if not cfg.fit_only:
            record(cfg)
        fit(cfg)

    return run_script(work)


if __name__ == "__main__":
    sys.exit(main())
