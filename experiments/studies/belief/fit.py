"""Fitting the learned belief: record positions, then a per-contract softmax regression.

Usage::

    python -m carioca_experiments.studies.belief.fit --out runs/belief                 # record + fit
    python -m carioca_experiments.studies.belief.fit --out runs/belief --fit-only      # refit the records

Positions come from :mod:`carioca_experiments.studies.belief.records` (the belief's own seed namespace;
held-out deals are never recorded here).  For each recorded (position, opponent) the
example is the features of every card type (:func:`carioca_agents.belief.features.view_features`),
the unseen copies and the opponent's true hidden counts.  The loss is the log-loss of the
hidden cards under the model's card distribution, ``q_c`` proportional to ``pool_c *
exp(x_c @ theta)``, averaged per hidden card, with an L2 penalty; it is convex, and
Newton's method on the full data converges in a few steps.  One weight vector per
contract, fitted on all player counts together; the file written is
``OUT/belief-v1.json`` (copy it to ``agents/models/`` to ship it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carioca_agents.belief.features import FEATURE_VERSION, NUM_FEATURES, view_features
from carioca_agents.belief.model import SHIPPED_BELIEF, BeliefModel
from carioca_env.cards import NUM_CARD_TYPES
from carioca_env.determinize import unseen_pool
from carioca_experiments.cli import run_script
from carioca_experiments.common.argtypes import CONTRACT_CHOICES, PLAYER_CHOICES, int_at_least, real_at_least
from carioca_experiments.studies.belief.records import (
    DEFAULT_AGENTS,
    HELDOUT_EVERY,
    SEED_NAMESPACE,
    AgentCache,
    Position,
    collect,
    deal_indices,
)


@dataclass(frozen=True)
class FitConfig:
    """What the fit records and how it regresses.

    Attributes:
        players: player counts recorded.
        contracts: contracts fitted.
        deals: deal numbers per (player count, contract); the held-out fifth is skipped.
        agents: agent specs drawn per seat (``learned``: the shipped policy).
        seed: the seed in the belief's namespace.
        record_prob: chance that a turn start is recorded.
        l2: the L2 penalty on the weights.
        out: folder of the records (``examples-p{n}-c{k}.npz``) and the model file.
        name: the model's name.
        fit_only: only refit the records.
    """

    players: tuple[int, ...] = (2, 3, 4)
    contracts: tuple[int, ...] = tuple(CONTRACT_CHOICES)
    deals: int = 250
    agents: tuple[str, ...] = DEFAULT_AGENTS
    seed: int = 0
    record_prob: float = 0.25
    l2: float = 1e-3
    out: str = "runs/belief"
    name: str = SHIPPED_BELIEF
    fit_only: bool = False


def example_rows(pos: Position) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, bool]]:
    """``(features (53, F), pool (53), hidden (53), opened)`` of each opponent of a position
    that has hidden cards."""
    view = pos.view
    x = view_features(view)
    pool = np.array(unseen_pool(view))
    rows = []
    for s in range(view.num_players):
        if s != view.seat and pos.hidden[s].sum() > 0:
            rows.append((x[s], pool, pos.hidden[s], bool(view.opened[s])))
    return rows


def record(cfg: FitConfig, log: Callable[[str], None] = print) -> dict[str, float]:
    """Play the training deals and save ``examples-p{n}-c{k}.npz``; the time spent and the
    examples recorded."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = AgentCache()
    t0 = time.time()
    total = 0
    for players in cfg.players:
        for contract in cfg.contracts:
            path = out / f"examples-p{players}-c{contract}.npz"
            if path.exists():
                log(f"[belief-fit] {path} exists, kept")
                continue
            xs, pools, hids, opened, deals = [], [], [], [], []

            def visit(pos: Position) -> None:
                for x, pool, hid, op in example_rows(pos):
                    xs.append(x.astype(np.float32))
                    pools.append(pool.astype(np.int8))
                    hids.append(hid.astype(np.int8))
                    opened.append(op)
                    deals.append(pos.deal)

            t = time.time()
            collect(players, contract, deal_indices(cfg.deals, heldout=False), visit, seed=cfg.seed,
                    agents=cfg.agents, record_prob=cfg.record_prob, cache=cache)
            np.savez_compressed(path, x=np.stack(xs), pool=np.stack(pools), hidden=np.stack(hids),
                                opened=np.array(opened), deal=np.array(deals))
            total += len(xs)
            log(f"[belief-fit] p{players} c{contract}: {len(xs)} examples, {time.time() - t:.0f}s")
    return {"record_seconds": round(time.time() - t0, 1), "examples": total}


def softmax_loss(theta: np.ndarray, x: np.ndarray, logpool: np.ndarray, target: np.ndarray,
                 l2: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Mean log-loss per hidden card, its gradient and Hessian (``target`` rows are the
    hidden counts divided by the hidden cards, so each row sums to 1)."""
    z = x @ theta + logpool
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    q = e / e.sum(axis=1, keepdims=True)
    m = len(x)
    logq = np.log(np.maximum(q, 1e-300))
    loss = -float((target * logq).sum()) / m + 0.5 * l2 * float(theta @ theta)
    mu = np.einsum("nc,ncf->nf", q, x)
    grad = (mu - np.einsum("nc,ncf->nf", target, x)).sum(axis=0) / m + l2 * theta
    flat = x.reshape(-1, x.shape[2])  # (n*53, F): no (n, 53, F, F) intermediate
    hess = (flat * q.reshape(-1, 1)).T @ flat / m - mu.T @ mu / m + l2 * np.eye(len(theta))
    return loss, grad, hess


def newton(x: np.ndarray, pool: np.ndarray, hidden: np.ndarray, l2: float, steps: int = 30) -> tuple[np.ndarray, float]:
    """The weights minimising :func:`softmax_loss` (Newton with step halving) and the loss."""
    with np.errstate(divide="ignore"):
        logpool = np.where(pool > 0, np.log(np.maximum(pool, 1)), -np.inf)
    target = hidden / hidden.sum(axis=1, keepdims=True)
    theta = np.zeros(x.shape[2])
    loss, grad, hess = softmax_loss(theta, x, logpool, target, l2)
    for _ in range(steps):
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-4:
            new = theta - t * step
            new_loss, new_grad, new_hess = softmax_loss(new, x, logpool, target, l2)
            if new_loss <= loss:
                break
            t /= 2
        else:
            break
        converged = loss - new_loss < 1e-10
        theta, loss, grad, hess = new, new_loss, new_grad, new_hess
        if converged:
            break
    return theta, loss


def read_examples(path: Path) -> dict[str, np.ndarray]:
    """One records file (``examples-p*-c*.npz``): ``x``, ``pool`` and ``hidden`` as float64,
    and ``deal`` (each example's deal number) when the file has it."""
    with np.load(path) as data:
        rec = {k: data[k].astype(np.float64) for k in ("x", "pool", "hidden")}
        if "deal" in data.files:
            rec["deal"] = np.asarray(data["deal"])
    return rec


def load_examples(out: Path, players: Sequence[int], contract: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """The recorded ``(x, pool, hidden)`` of one contract over those of ``players`` whose
    records exist, and the examples per player count used.

    Raises:
        FileNotFoundError: no records of the contract for any of ``players``.
    """
    xs, pools, hids, used = [], [], [], {}
    for p in players:
        path = out / f"examples-p{p}-c{contract}.npz"
        if not path.exists():
            continue
        rec = read_examples(path)
        xs.append(rec["x"])
        pools.append(rec["pool"])
        hids.append(rec["hidden"])
        used[f"p{p}"] = len(xs[-1])
    if not xs:
        raise FileNotFoundError(f"no records of contract {contract} in {out} (examples-p*-c{contract}.npz)")
    return np.concatenate(xs), np.concatenate(pools), np.concatenate(hids), used


def fit(cfg: FitConfig, cost: dict[str, float] | None = None, log: Callable[[str], None] = print) -> BeliefModel:
    """Fit one weight vector per contract on the records of the player counts recorded
    (the model's meta says which, with their examples); write ``OUT/NAME.json``.

    Raises:
        FileNotFoundError: a contract without any records.
    """
    out = Path(cfg.out)
    weights: dict[int, np.ndarray] = {}
    train: dict[str, Any] = {}
    t0 = time.time()
    for contract in cfg.contracts:
        x, pool, hidden, used = load_examples(out, cfg.players, contract)
        theta, loss = newton(x, pool, hidden, cfg.l2)
        weights[contract] = theta
        train[str(contract)] = {"examples": int(len(x)), "by_players": used, "train_log_loss": round(loss, 5)}
        log(f"[belief-fit] contract {contract}: {len(x)} examples {used}, train log-loss {loss:.4f}")
    meta = {
        "fit": {k: v for k, v in asdict(cfg).items() if k not in ("out", "fit_only")},
        "seed_namespace": SEED_NAMESPACE, "feature_version": FEATURE_VERSION, "num_features": NUM_FEATURES,
        "heldout_rule": f"deal % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1} held out (never recorded by the fit)",
        "train": train, "cost": {**(cost or {}), "fit_seconds": round(time.time() - t0, 1)},
        "card_types": NUM_CARD_TYPES,
    }
    model = BeliefModel(cfg.name, weights, meta)
    path = model.save(out / f"{cfg.name}.json")
    log(f"[belief-fit] wrote {path} ({model.fingerprint})")
    return model



def check_agent_specs(p: argparse.ArgumentParser, specs: Sequence[str]) -> None:
    """Exit 2 through ``p`` naming the first recording agent spec that does not parse
    (``learned``, the shipped policies' set, is always allowed)."""
    from carioca_agents.registry import SpecError, parse_spec  # the recording side only

    for spec in specs:
        if spec != "learned":
            try:
                parse_spec(spec)
            except SpecError as exc:
                p.error(f"argument --agents: {exc}")

def config_from_args(argv: Sequence[str] | None = None) -> FitConfig:
    """The :class:`FitConfig` of the command line (argparse exits 2 on a bad value)."""
    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.belief.fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", choices=PLAYER_CHOICES, default=[2, 3, 4])
    p.add_argument("--contracts", type=int, nargs="+", choices=CONTRACT_CHOICES, default=list(CONTRACT_CHOICES))
    p.add_argument("--deals", type=int_at_least(HELDOUT_EVERY), default=250,
                   help="deal numbers per player count and contract (every fifth is held out, not recorded)")
    p.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS), help="agent specs drawn per seat")
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--record-prob", type=real_at_least(0.001), default=0.25)
    p.add_argument("--l2", type=real_at_least(0), default=1e-3)
    p.add_argument("--out", default="runs/belief")
    p.add_argument("--name", default=SHIPPED_BELIEF)
    p.add_argument("--fit-only", action="store_true")
    a = p.parse_args(argv)
    if a.record_prob > 1:
        p.error(f"argument --record-prob: expected a number in (0, 1], got {a.record_prob:g}")
    from carioca_agents.belief.model import BELIEF_NAME

    if not BELIEF_NAME.match(a.name):
        p.error(f"argument --name: a belief model is named belief-vN, got {a.name[:40]!r}")
    check_agent_specs(p, a.agents)
    return FitConfig(tuple(a.players), tuple(a.contracts), a.deals, tuple(a.agents), a.seed, a.record_prob,
                     a.l2, a.out, a.name, a.fit_only)


def run(cfg: FitConfig) -> BeliefModel:
    """Record (unless ``fit_only``) and fit."""
    cost = {} if cfg.fit_only else record(cfg)
    return fit(cfg, cost)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.belief.fit``."""
    cfg = config_from_args(argv)
    if cfg.fit_only:  # refused before anything is written: every contract needs records
        missing = [c for c in cfg.contracts
                   if not any((Path(cfg.out) / f"examples-p{p}-c{c}.npz").exists() for p in cfg.players)]
        if missing:
            print(f"python -m carioca_experiments.studies.belief.fit: error: --fit-only: no records of contracts {missing} in "
                  f"{cfg.out}", file=sys.stderr)
            return 2

    def work() -> None:
        run(cfg)  # the model it returns is for callers in Python

    return run_script(work)


if __name__ == "__main__":
    sys.exit(main())
