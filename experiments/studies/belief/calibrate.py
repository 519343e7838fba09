"""Calibrating a learned belief: a temperature and a uniform mixture per contract, fitted on
validation deals that neither the fit nor the held-out measurement plays.

Usage::

    python -m carioca_experiments.studies.belief.calibrate --model belief-v1 --seeds 1 2 --deals 25 \\
        --out runs/belief-cal --name belief-v2

The validation positions are recorded as the fit records its own
(:func:`carioca_experiments.studies.belief.fit.record`) but from other seeds of the belief's seed
namespace: seed ``s`` deals other decks than the fit's seed, and no tournament deck (the
namespace is the belief's own).  A seed the model was fitted on is refused.  Records
already in ``OUT/seed-S/`` are kept, so a run can be resumed or extended.

For each contract, a grid search over the temperature ``t`` (the logits times ``t``) and
the uniform weight ``u`` (``(1 - u) * p + u * k / unseen`` for the water-filled probability
``p`` that a copy is hidden) minimises the log-loss per hidden card of the expected counts,
the quantity :mod:`carioca_experiments.studies.belief.measure` scores, averaged per deal and then
over deals as the measurement does (a long deal records many positions, which are not
independent: it would otherwise decide the calibration alone).  The weights are not
refitted.  The calibrated model is written as ``OUT/NAME.json`` (copy it to
``agents/models/`` to ship it); its meta records the base model's fingerprint, the
validation deals and the validation log-loss before and after.
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

from carioca_agents.belief.model import BELIEF_NAME, BeliefModel, BeliefModelError, load_belief_model
from carioca_agents.belief.sampling import inclusion
from carioca_experiments.cli import run_script
from carioca_experiments.common.argtypes import CONTRACT_CHOICES, PLAYER_CHOICES, int_at_least, real_at_least
from carioca_experiments.studies.belief.fit import FitConfig, check_agent_specs, read_examples, record
from carioca_experiments.studies.belief.records import DEFAULT_AGENTS, HELDOUT_EVERY, SEED_NAMESPACE

#: The temperatures tried (the logits are multiplied by one of these).
TEMPERATURES = tuple(round(0.1 + 0.05 * i, 2) for i in range(29))  # 0.10 .. 1.50
#: The uniform weights tried.
UNIFORM_WEIGHTS = tuple(round(0.01 * i, 2) for i in range(51))  # 0.00 .. 0.50


@dataclass(frozen=True)
class CalibrateConfig:
    """What is recorded and fitted.

    Attributes:
        model: the learned model calibrated (a shipped name or a file).
        seeds: seeds of the belief's namespace the validation deals come from (never the
            model's fit seed).
        players: player counts recorded.
        contracts: contracts calibrated (the others keep no calibration).
        deals: deal numbers per seed, player count and contract (the held-out fifth of
            each seed is not recorded, as in the fit).
        agents: agent specs drawn per seat.
        record_prob: chance that a turn start is recorded.
        out: folder of the records (``seed-S/examples-p{n}-c{k}.npz``) and the model file.
        name: the calibrated model's name.
    """

    model: str = "belief-v1"
    seeds: tuple[int, ...] = (1,)
    players: tuple[int, ...] = (2,)
    contracts: tuple[int, ...] = tuple(CONTRACT_CHOICES)
    deals: int = 25
    agents: tuple[str, ...] = DEFAULT_AGENTS
    record_prob: float = 0.5
    out: str = "runs/belief-cal"
    name: str = "belief-v2"


def card_losses(probs: np.ndarray, pool: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Per example, the log-loss per hidden card of the expected counts ``probs * pool``
    (``probs``: the probability that a copy is hidden, rows summing to ``k`` over the pool)."""
    k = hidden.sum(axis=1)
    e = probs * pool
    q = e / e.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        logq = np.where(hidden > 0, np.log(np.maximum(q, 1e-300)), 0.0)
    return -(hidden * logq).sum(axis=1) / k


def water_filled(logits: np.ndarray, pool: np.ndarray, hidden: np.ndarray, temperature: float) -> np.ndarray:
    """Per example, :func:`inclusion` of the weights ``exp(temperature * logits)`` (as
    :class:`carioca_agents.belief.learned.LearnedBelief` computes them)."""
    z = temperature * logits
    z = z - z.max(axis=1, keepdims=True)
    w = np.exp(np.maximum(z, -50.0))
    k = hidden.sum(axis=1)
    return np.array([inclusion(w[i].tolist(), pool[i].astype(int).tolist(), int(k[i])) for i in range(len(w))])


def deal_weights(deals: Sequence[Any]) -> np.ndarray:
    """Per example, ``1 / (examples of its deal) / deals``: a weighted mean with these is the
    mean over deals of the per-deal means."""
    keys = [tuple(d) if isinstance(d, (list, tuple)) else d for d in deals]
    counts: dict[Any, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return np.array([1.0 / counts[key] / len(counts) for key in keys])


def fit_calibration(
    logits: np.ndarray, pool: np.ndarray, hidden: np.ndarray, weights: np.ndarray | None = None,
    temperatures: Sequence[float] = TEMPERATURES, uniforms: Sequence[float] = UNIFORM_WEIGHTS,
) -> tuple[float, float, float]:
    """The ``(temperature, uniform weight, log-loss)`` of the grid that minimises the
    log-loss per hidden card averaged over the examples with ``weights`` (summing to 1;
    default equal; ties: the first in grid order, so the smallest change)."""
    k = hidden.sum(axis=1, keepdims=True)
    flat = np.where(pool > 0, k / pool.sum(axis=1, keepdims=True), 0.0)
    wts = np.full(len(hidden), 1.0 / len(hidden)) if weights is None else weights
    best = (1.0, 0.0, float("inf"))
    for t in temperatures:
        p = water_filled(logits, pool, hidden, t)
        for u in uniforms:
            loss = float(card_losses((1 - u) * p + u * flat, pool, hidden) @ wts)
            if loss < best[2] - 1e-12:
                best = (float(t), float(u), loss)
    return best


def load_validation(out: Path, seeds: Sequence[int], players: Sequence[int], contract: int) -> dict[str, Any]:
    """The recorded validation examples of one contract over ``seeds`` and ``players``:
    ``x``, ``pool``, ``hidden``, ``deal`` (``(seed, deal number)`` pairs) and the examples
    and distinct deals per seed."""
    xs, pools, hids, deals, used = [], [], [], [], {}
    for s in seeds:
        for p in players:
            path = out / f"seed-{s}" / f"examples-p{p}-c{contract}.npz"
            if not path.exists():
                continue
            rec = read_examples(path)
            xs.append(rec["x"])
            pools.append(rec["pool"])
            hids.append(rec["hidden"])
            deals += [(s, p, int(d)) for d in rec["deal"]]
            used[f"seed {s} p{p}"] = {"examples": len(xs[-1]), "deals": len({d for d in deals if d[:2] == (s, p)})}
    if not xs:
        raise FileNotFoundError(f"no validation records of contract {contract} under {out}/seed-*/")
    return {"x": np.concatenate(xs), "pool": np.concatenate(pools), "hidden": np.concatenate(hids),
            "deal": deals, "used": used}


def run(cfg: CalibrateConfig, log: Callable[[str], None] = print) -> BeliefModel:
    """Record what is missing, fit each contract's calibration, write ``OUT/NAME.json``."""
    base = load_belief_model(cfg.model)
    out = Path(cfg.out)
    t0 = time.time()
    cost: dict[str, float] = {}
    for s in cfg.seeds:
        c = record(FitConfig(cfg.players, cfg.contracts, cfg.deals, cfg.agents, s, cfg.record_prob,
                             out=str(out / f"seed-{s}")), log)
        cost[f"record_seconds_seed_{s}"] = c["record_seconds"]
    t1 = time.time()
    calibration: dict[int, tuple[float, float]] = {}
    report: dict[str, Any] = {}
    for contract in cfg.contracts:
        v = load_validation(out, cfg.seeds, cfg.players, contract)
        logits = v["x"] @ base.theta(contract)
        k = v["hidden"].sum(axis=1, keepdims=True)
        flat = np.where(v["pool"] > 0, k / v["pool"].sum(axis=1, keepdims=True), 0.0)
        wts = deal_weights(v["deal"])
        before = float(card_losses(water_filled(logits, v["pool"], v["hidden"], 1.0), v["pool"], v["hidden"]) @ wts)
        uniform = float(card_losses(flat, v["pool"], v["hidden"]) @ wts)
        t, u, after = fit_calibration(logits, v["pool"], v["hidden"], wts)
        calibration[contract] = (t, u)
        report[str(contract)] = {"temperature": t, "uniform": u, "examples": len(v["x"]),
                                 "deals": len(set(v["deal"])), "by_seed": v["used"],
                                 "log_loss_uncalibrated": round(before, 5), "log_loss_calibrated": round(after, 5),
                                 "log_loss_uniform": round(uniform, 5)}
        log(f"[belief-calibrate] contract {contract}: t={t:.2f} u={u:.2f}, validation log-loss {before:.4f} -> "
            f"{after:.4f} (uniform {uniform:.4f}; {len(v['x'])} examples, {len(set(v['deal']))} deals)")
    meta = {
        **base.meta,
        "calibration": {
            "base_model": base.name, "base_fingerprint": base.fingerprint, "config": asdict(cfg),
            "seed_namespace": SEED_NAMESPACE, "validation_seeds": list(cfg.seeds),
            "heldout_rule": f"deal % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1} of each seed not recorded",
            "grid": {"temperatures": [TEMPERATURES[0], TEMPERATURES[-1], len(TEMPERATURES)],
                     "uniform": [UNIFORM_WEIGHTS[0], UNIFORM_WEIGHTS[-1], len(UNIFORM_WEIGHTS)]},
            "contracts": report, "cost": {**cost, "fit_seconds": round(time.time() - t1, 1),
                                          "total_seconds": round(time.time() - t0, 1)},
        },
    }
    model = BeliefModel(cfg.name, dict(base.weights), meta, calibration)
    path = model.save(out / f"{cfg.name}.json")
    log(f"[belief-calibrate] wrote {path} ({model.fingerprint})")
    return model


def config_from_args(argv: Sequence[str] | None = None) -> CalibrateConfig:
    """The :class:`CalibrateConfig` of the command line (argparse exits 2 on a bad value)."""
    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.belief.calibrate",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="belief-v1", help="the learned model calibrated: a shipped name or a file")
    p.add_argument("--seeds", type=int_at_least(0), nargs="+", default=[1],
                   help="seeds of the belief's namespace for the validation deals (not the model's fit seed)")
    p.add_argument("--players", type=int, nargs="+", choices=PLAYER_CHOICES, default=[2])
    p.add_argument("--contracts", type=int, nargs="+", choices=CONTRACT_CHOICES, default=list(CONTRACT_CHOICES))
    p.add_argument("--deals", type=int_at_least(HELDOUT_EVERY), default=25,
                   help="deal numbers per seed, player count and contract (every fifth is not recorded)")
    p.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS), help="agent specs drawn per seat")
    p.add_argument("--record-prob", type=real_at_least(0.001), default=0.5)
    p.add_argument("--out", default="runs/belief-cal")
    p.add_argument("--name", default="belief-v2")
    a = p.parse_args(argv)
    if a.record_prob > 1:
        p.error(f"argument --record-prob: expected a number in (0, 1], got {a.record_prob:g}")
    if not BELIEF_NAME.match(a.name):
        p.error(f"argument --name: a belief model is named belief-vN, got {a.name[:40]!r}")
    try:
        base = load_belief_model(a.model)
    except BeliefModelError as exc:
        p.error(f"argument --model: {exc}")
    fit_seed = base.meta.get("fit", {}).get("seed") if isinstance(base.meta.get("fit"), dict) else None
    if fit_seed in a.seeds:
        p.error(f"argument --seeds: {base.name} was fitted on seed {fit_seed}: validation needs other deals")
    missing = [c for c in a.contracts if c not in base.weights]
    if missing:
        p.error(f"argument --contracts: {base.name} has no weights for contracts {missing}")
    check_agent_specs(p, a.agents)
    return CalibrateConfig(a.model, tuple(dict.fromkeys(a.seeds)), tuple(a.players), tuple(a.contracts), a.deals,
                           tuple(a.agents), a.record_prob, a.out, a.name)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.belief.calibrate``."""
    cfg = config_from_args(argv)

    def work() -> None:
        run(cfg)  # the model it returns is for callers in Python

    return run_script(work)


if __name__ == "__main__":
    sys.exit(main())
