"""Measuring beliefs on held-out deals: log-loss, calibration, paired intervals, speed.

Usage::

    python -m carioca_experiments.studies.belief.measure --out runs/belief-measure
    python -m carioca_experiments.studies.belief.measure --model runs/belief/belief-v1.json --plot docs/img/belief-calibration.png
    python -m carioca_experiments.studies.belief.measure --model belief-v2 --baseline belief-v1   # a new model against an old one

The held-out deals of :mod:`carioca_experiments.studies.belief.records` (never recorded by the fit) are
played again and, at every recorded position, each belief (``uniform``, ``rule``,
``learned``, and ``baseline``: a second learned model, such as the one a calibration
started from) states its expected hidden counts for every opponent with hidden cards.
Scored against the true hidden counts ``n`` (``k`` cards, ``pool`` unseen copies):

- **log-loss** per hidden card: ``-(1/k) sum_c n_c log(e_c / k)``, the cross-entropy of
  the hidden cards under the belief's card distribution.  The rule model is a sampler: its
  expected counts are the mean of :data:`carioca_agents.belief.RULE_SAMPLES` samples, mixed with
  the uniform belief (weight ``eps``, :data:`RULE_EPS`) so that an unsampled card is not
  impossible; every ``eps`` of :data:`RULE_EPS` is reported, the best one beside the fixed;
- **per-copy log-loss and calibration** per card type: each unseen copy is hidden with the
  probability ``e_c / pool_c``; the binary log-loss of that against ``n_c / pool_c``, and a
  reliability diagram of mean predicted against mean observed in probability bins;
- **paired intervals**: differences of the per-deal mean log-loss between two beliefs,
  Student t over the held-out deals (positions of one deal are not independent);
- **time** per call: expected counts and one sample of each belief, against the uniform
  sample in the same run.

With ``--inferred-pool N`` the inferred belief (:mod:`carioca_agents.belief.inferred`: ``N``
samples of the learned model weighted by the opponents' last turns) is scored too, three
ways from the same pool of candidates: ``inferred`` (the weighted mean of the pool, mixed
with the uniform belief as the rule model is), ``pool`` (the *unweighted* mean of the same
candidates, mixed alike: what the weights are compared with, so that the sampling noise of
a finite pool cancels in the paired difference) and ``inferred shift`` (the learned
expectation moved by the weighted minus the unweighted pool mean, floored at
:data:`SHIFT_FLOOR` of the learned expectation and rescaled to the hidden cards: with equal
weights it is the learned belief exactly).  Each of these and ``learned`` is also scored
apart for the opponents that were ``heuristic`` and those that were not (``[heuristic]``,
``[other]``): the inference assumes the heuristic.

With ``--filtered-pool N`` the filtered belief (:mod:`carioca_experiments.studies.belief.filtered`: ``N``
particles filtered through every opponent turn of the deal, the learned model where it
cannot run) is scored too, as ``filtered`` (its weighted mean, mixed with the uniform
belief as ``inferred`` is) and split by opponent alike; the result's
``filtered_fallbacks`` counts the positions the learned model answered.  Positions of one
deal are visited in order, so its filter is carried forward as in a game.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carioca_agents.belief import Belief, RuleBelief, UniformBelief
from carioca_agents.belief.inferred import DEFAULT_EPS, InferredBelief
from carioca_agents.belief.learned import LearnedBelief
from carioca_agents.belief.model import SHIPPED_BELIEF
from carioca_agents.cheat import redeal_expected
from carioca_env.cards import NUM_CARD_TYPES, card_str
from carioca_env.determinize import unseen_pool
from carioca_experiments.cli import run_script
from carioca_experiments.common.argtypes import CONTRACT_CHOICES, PLAYER_CHOICES, int_at_least
from carioca_experiments.common.stats import mean_ci, paired_difference
from carioca_experiments.studies.belief.filtered import DEFAULT_MOVES, FilteredBelief
from carioca_experiments.studies.belief.records import (
    DEFAULT_AGENTS,
    HELDOUT_EVERY,
    AgentCache,
    Position,
    collect,
    deal_indices,
)

#: The uniform mixing weights of the rule model's sampled counts that are scored.
RULE_EPS = (0.01, 0.05, 0.2)
#: The one fixed in advance (the others are shown to say how much the choice matters).
RULE_EPS_FIXED = 0.05
#: The bins of the reliability diagram (predicted probability that a copy is hidden there).
BINS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.65, 0.85, 1.0)
#: Probabilities are clipped to [CLIP, 1 - CLIP] for the per-copy log-loss.
CLIP = 1e-4
#: ``inferred shift`` keeps at least this share of the learned expectation of each card.
SHIFT_FLOOR = 0.05
#: The uniform weight mixed into the pool means (``inferred``, ``pool``), as the rule model's.
INFERRED_EPS = RULE_EPS_FIXED


@dataclass(frozen=True)
class MeasureConfig:
    """What is measured.

    Attributes:
        players: player counts.
        contracts: contracts.
        deals: deal numbers per (player count, contract), as in the fit; the held-out
            fifth is played.
        agents: agent specs drawn per seat (as in the fit).
        seed: the seed in the belief's namespace (as in the fit).
        record_prob: chance that a turn start is recorded.
        model: the learned model (shipped name or file).
        baseline: a second learned model scored beside it as ``baseline`` ('' for none).
        rule_samples: samples of the rule model's expectation.
        out: folder for ``belief-measure.json``.
        plot: the reliability diagram's PNG ('' for none).
        merge: measurement files to merge instead of playing (see :func:`merge`).
        inferred_pool: candidates of the inferred belief per position (0: not scored).
        filtered_pool: particles of the filtered belief (0: not scored).
        filtered_window: its rejuvenation window in turns (0: any card;
            :class:`~carioca_experiments.studies.belief.filtered.FilteredBelief`).
        filtered_moves: its Metropolis-Hastings moves per particle and step.
        filtered_eps: its weight of a uniform legal move in the opponents' policy.
        oracle_noise: noise levels of the noisy oracle scored as ``oracle noise=Q`` (the
            first-order expectation of ``cheat-search:noise=Q``'s determinizations,
            :func:`carioca_agents.cheat.redeal_expected`; it reads the true hands: a yardstick,
            not a belief).
    """

    players: tuple[int, ...] = (2,)
    contracts: tuple[int, ...] = tuple(CONTRACT_CHOICES)
    deals: int = 400
    agents: tuple[str, ...] = DEFAULT_AGENTS
    seed: int = 0
    record_prob: float = 0.35
    model: str = SHIPPED_BELIEF
    baseline: str = ""
    rule_samples: int = 64
    out: str = "runs/belief-measure"
    plot: str = ""
    merge: tuple[str, ...] = ()
    inferred_pool: int = 0
    filtered_pool: int = 0
    filtered_window: int = 0
    filtered_moves: int = DEFAULT_MOVES
    filtered_eps: float = DEFAULT_EPS
    oracle_noise: tuple[float, ...] = ()


def oracle_name(noise: float) -> str:
    """The name the noisy oracle at ``noise`` is scored under."""
    return f"oracle noise={noise:g}"


def card_log_loss(expected: np.ndarray, hidden: np.ndarray) -> float:
    """Log-loss per hidden card of ``hidden`` under expected counts ``expected`` (same sum)."""
    k = hidden.sum()
    q = expected / expected.sum()
    live = hidden > 0
    return float(-(hidden[live] * np.log(q[live])).sum() / k)


def copy_scores(expected: np.ndarray, hidden: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per card type, ``(predicted, observed)`` probability that one unseen copy is hidden
    here (``nan`` where no copy is unseen)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pool > 0, expected / pool, np.nan), np.where(pool > 0, hidden / pool, np.nan)


class Tally:
    """Sums for one belief: per deal log-losses, per card type copy log-losses, bins."""

    def __init__(self) -> None:
        self.by_deal: dict[tuple[int, int, int], list[float]] = defaultdict(list)
        self.type_loss = np.zeros(NUM_CARD_TYPES)
        self.type_copies = np.zeros(NUM_CARD_TYPES)
        self.bin_pred = np.zeros(len(BINS) - 1)
        self.bin_obs = np.zeros(len(BINS) - 1)
        self.bin_copies = np.zeros(len(BINS) - 1)

    def add(self, key: tuple[int, int, int], expected: np.ndarray, hidden: np.ndarray, pool: np.ndarray) -> None:
        """Score one (position, opponent)."""
        self.by_deal[key].append(card_log_loss(expected, hidden))
        pred, obs = copy_scores(expected, hidden, pool)
        live = pool > 0
        p = np.clip(pred[live], CLIP, 1 - CLIP)
        y = obs[live]
        w = pool[live]
        self.type_loss[live] += -w * (y * np.log(p) + (1 - y) * np.log(1 - p))
        self.type_copies[live] += w
        b = np.clip(np.searchsorted(BINS, pred[live], side="right") - 1, 0, len(BINS) - 2)
        np.add.at(self.bin_pred, b, w * pred[live])
        np.add.at(self.bin_obs, b, w * y)
        np.add.at(self.bin_copies, b, w)

    def deal_means(self) -> dict[Hashable, float]:
        """Per deal, the mean log-loss of its scored (position, opponent) pairs."""
        return {k: float(np.mean(v)) for k, v in self.by_deal.items()}

    def summary(self) -> dict[str, Any]:
        """Mean log-loss with its interval over deals, per-type copy log-loss, the bins and
        the expected calibration error (copy-weighted |predicted - observed| over bins)."""
        ci = mean_ci(self.deal_means().values())
        with np.errstate(invalid="ignore"):
            pred = self.bin_pred / self.bin_copies
            obs = self.bin_obs / self.bin_copies
        live = self.bin_copies > 0
        ece = float((np.abs(pred - obs)[live] * self.bin_copies[live]).sum() / self.bin_copies[live].sum())
        return {
            "log_loss": ci.mean, "low": ci.low, "high": ci.high, "deals": ci.n,
            "pairs": sum(len(v) for v in self.by_deal.values()),
            "copy_log_loss": float(self.type_loss.sum() / self.type_copies.sum()),
            "type_copy_log_loss": {card_str(c): float(self.type_loss[c] / self.type_copies[c])
                                   for c in range(NUM_CARD_TYPES) if self.type_copies[c]},
            "bins": [{"low": BINS[i], "high": BINS[i + 1], "predicted": float(pred[i]), "observed": float(obs[i]),
                      "copies": float(self.bin_copies[i])} for i in range(len(BINS) - 1) if live[i]],
            "ece": ece,
        }


def _merge_into(dst: Tally, src: Tally) -> None:
    for k, v in src.by_deal.items():
        dst.by_deal[k].extend(v)
    for name in ("type_loss", "type_copies", "bin_pred", "bin_obs", "bin_copies"):
        setattr(dst, name, getattr(dst, name) + getattr(src, name))


def tally_to_dict(t: Tally) -> dict[str, Any]:
    """A tally as JSON values (to merge measurements run in parts)."""
    return {"by_deal": [[*k, v] for k, v in t.by_deal.items()],
            **{n: getattr(t, n).tolist() for n in ("type_loss", "type_copies", "bin_pred", "bin_obs", "bin_copies")}}


def tally_from_dict(d: dict[str, Any]) -> Tally:
    """The tally :func:`tally_to_dict` wrote."""
    t = Tally()
    for *k, v in d["by_deal"]:
        t.by_deal[tuple(k)] = list(v)
    for n in ("type_loss", "type_copies", "bin_pred", "bin_obs", "bin_copies"):
        setattr(t, n, np.array(d[n], dtype=float))
    return t


def summarize(per_contract: dict[int, dict[str, Tally]], times: dict[str, list[float]],
              head: dict[str, Any]) -> dict[str, Any]:
    """The result of per-contract tallies: every belief overall and per contract, the
    paired differences, the time per call, and the raw tallies (for :func:`merge`)."""
    names = list(next(iter(per_contract.values())))
    tallies = {n: Tally() for n in names}
    for group in per_contract.values():
        for n, t in group.items():
            _merge_into(tallies[n], t)
    fixed = f"rule eps={RULE_EPS_FIXED:g}"
    best_rule = min((f"rule eps={e:g}" for e in RULE_EPS), key=lambda n: tallies[n].summary()["log_loss"])

    def diffs(group: dict[str, Tally]) -> dict[str, Any]:
        out = {}
        pairs = [("learned", "uniform"), ("learned", fixed), ("learned", best_rule), (fixed, "uniform")]
        if "baseline" in group:
            pairs += [("learned", "baseline"), ("baseline", "uniform"), ("baseline", fixed)]
        if "inferred shift" in group:
            pairs += [("inferred shift", "learned"), ("inferred shift", "uniform"), ("inferred", "pool"),
                      ("inferred", "learned")]
            pairs += [(f"{a} [{who}]", f"{b} [{who}]") for who in ("heuristic", "other")
                      for a, b in (("inferred shift", "learned"), ("inferred", "pool"))]
        if "filtered" in group:
            pairs += [("filtered", "learned"), ("filtered", "uniform"), ("filtered", "inferred")]
            pairs += [(f"filtered [{who}]", f"{b} [{who}]") for who in ("heuristic", "other")
                      for b in ("learned", "inferred")]
        pairs += [("learned", n) for n in group if n.startswith("oracle noise=")]
        pairs = [(a, b) for a, b in pairs if a in group and b in group and group[a].by_deal and group[b].by_deal]
        for a, b in pairs:
            d = paired_difference(group[a].deal_means(), group[b].deal_means())
            out[f"{a} - {b}"] = {"mean": d.mean, "low": d.low, "high": d.high, "deals": d.n}
        return out

    keep = ("log_loss", "low", "high", "pairs", "ece")
    return {
        **head,
        # a split that scored nothing (say, no opponent other than the heuristic) is left out
        "beliefs": {n: t.summary() for n, t in tallies.items() if t.by_deal},
        "differences": diffs(tallies),
        "per_contract": {str(c): {"beliefs": {n: {k: v for k, v in t.summary().items() if k in keep}
                                              for n, t in group.items() if t.by_deal},
                                  "differences": diffs(group)} for c, group in sorted(per_contract.items())},
        "ms_per_call": {k: 1000 * float(np.mean(v)) for k, v in times.items()},
        "best_rule": best_rule,
        "raw": {"times": times, "tallies": {str(c): {n: tally_to_dict(t) for n, t in g.items()}
                                            for c, g in per_contract.items()}},
    }


def _write(result: dict[str, Any], out: Path, plot: str, log: Any) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "belief-measure.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "belief-measure.md").write_text(report(result))
    log(f"[belief-measure] wrote {out / 'belief-measure.json'} and .md")
    if plot:
        names = ["uniform", f"rule eps={RULE_EPS_FIXED:g}", *(["baseline"] if "baseline" in result["beliefs"] else []),
                 "learned"]
        cfg = result.get("config")
        labels = {"learned": f"learned ({cfg['model']})", "baseline": f"baseline ({cfg['baseline']})"} \
            if isinstance(cfg, dict) and cfg.get("baseline") else {}
        reliability_plot(result, Path(plot), names, labels)
        log(f"[belief-measure] wrote {plot}")


def run(cfg: MeasureConfig, log: Any = print) -> dict[str, Any]:
    """Play the held-out deals, score every belief, write ``OUT/belief-measure.json`` (and
    ``.md``: :func:`report`)."""
    uniform, rule, learned = UniformBelief(), RuleBelief(samples=cfg.rule_samples), LearnedBelief.load(cfg.model)
    baseline = LearnedBelief.load(cfg.baseline) if cfg.baseline else None
    inferred = InferredBelief(learned, cfg.inferred_pool) if cfg.inferred_pool else None
    filtered = FilteredBelief(learned, cfg.filtered_pool, window=cfg.filtered_window or None,
                              moves=cfg.filtered_moves, eps=cfg.filtered_eps) if cfg.filtered_pool else None
    names = ["uniform", *(f"rule eps={e:g}" for e in RULE_EPS), "learned", *(["baseline"] if baseline else [])]
    if inferred is not None:
        split = ("learned", "inferred shift", "inferred", "pool")
        names += ["inferred shift", "inferred", "pool", *(f"{n} [{who}]" for n in split for who in ("heuristic", "other"))]
    if filtered is not None:
        names += ["filtered", *(f"filtered [{who}]" for who in ("heuristic", "other"))]
        if inferred is None:
            names += [f"learned [{who}]" for who in ("heuristic", "other")]
    names += [oracle_name(q) for q in cfg.oracle_noise]
    per_contract: dict[int, dict[str, Tally]] = {c: {n: Tally() for n in names} for c in cfg.contracts}
    times: dict[str, list[float]] = defaultdict(list)
    cache = AgentCache()

    def timed(key: str, fn: Any, *args: Any) -> Any:
        t = time.perf_counter()
        out = fn(*args)
        times[key].append(time.perf_counter() - t)
        return out

    def inferred_rows(belief: InferredBelief, view: Any, base: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The inferred belief's three expectations (see the module docstring); ``base``
        is the learned expectation."""
        post = belief.posterior(view)
        counts = post.hidden_counts(view.num_players)
        weighted = np.tensordot(post.weights, counts, axes=1)
        plain = counts.mean(axis=0)
        shift = np.maximum(base + weighted - plain, SHIFT_FLOOR * base)
        totals = shift.sum(axis=1, keepdims=True)
        shift = np.divide(shift * base.sum(axis=1, keepdims=True), totals, out=np.zeros_like(shift), where=totals > 0)
        return shift, weighted, plain

    def visit(pos: Position) -> None:
        view = pos.view
        e_uni = timed("uniform expected", uniform.expected_hidden, view)
        e_rule = timed("rule expected", rule.expected_hidden, view)
        learned._cache = None  # time the features too, as a first call on a view does
        e_learned = timed("learned expected", learned.expected_hidden, view)
        e_base = baseline.expected_hidden(view) if baseline is not None else None
        rng = random.Random(pos.deal)
        for name, belief in (("uniform", uniform), ("rule", rule), ("learned", learned)):
            b: Belief = belief
            timed(f"{name} sample", b.sample, view, rng)
        e_inferred = timed("inferred posterior", inferred_rows, inferred, view, e_learned) \
            if inferred is not None else None
        e_filtered = timed("filtered expected", filtered.expected_hidden, view) if filtered is not None else None
        pool = np.array(unseen_pool(view), dtype=float)
        key = (view.num_players, view.deal, pos.deal)
        e_oracle = {q: redeal_expected(pos.hidden, pool, q) for q in cfg.oracle_noise}
        for s in range(view.num_players):
            if s == view.seat or pos.hidden[s].sum() == 0:
                continue
            rows = {"uniform": e_uni[s], "learned": e_learned[s]}
            if e_base is not None:
                rows["baseline"] = e_base[s]
            for eps in RULE_EPS:
                rows[f"rule eps={eps:g}"] = (1 - eps) * e_rule[s] + eps * e_uni[s]
            if e_inferred is not None:
                shift, weighted, plain = (e[s] for e in e_inferred)
                rows["inferred shift"] = shift
                rows["inferred"] = (1 - INFERRED_EPS) * weighted + INFERRED_EPS * e_uni[s]
                rows["pool"] = (1 - INFERRED_EPS) * plain + INFERRED_EPS * e_uni[s]
                who = "heuristic" if pos.specs[s] == "heuristic" else "other"
                for n in ("learned", "inferred shift", "inferred", "pool"):
                    rows[f"{n} [{who}]"] = rows[n]
            if e_filtered is not None:
                # mixed with uniform as the inferred pool mean is: a finite pool gives some copies 0
                rows["filtered"] = (1 - INFERRED_EPS) * e_filtered[s] + INFERRED_EPS * e_uni[s]
                who = "heuristic" if pos.specs[s] == "heuristic" else "other"
                rows[f"filtered [{who}]"] = rows["filtered"]
                rows[f"learned [{who}]"] = rows["learned"]
            for q, e_q in e_oracle.items():
                # not mixed with uniform: every held type keeps at least (1 - q) of its count
                rows[oracle_name(q)] = e_q[s]
            for n, e in rows.items():
                per_contract[view.deal][n].add(key, e, pos.hidden[s], pool)

    t0 = time.time()
    for players in cfg.players:
        for contract in cfg.contracts:
            t = time.time()
            collect(players, contract, deal_indices(cfg.deals, heldout=True), visit, seed=cfg.seed,
                    agents=cfg.agents, record_prob=cfg.record_prob, cache=cache)
            log(f"[belief-measure] p{players} c{contract}: {time.time() - t:.0f}s")
    head = {"config": asdict(cfg), "heldout_rule": f"deal % {HELDOUT_EVERY} == {HELDOUT_EVERY - 1}",
            "seconds": round(time.time() - t0, 1), "model_fingerprint": learned.model.fingerprint,
            "baseline_fingerprint": baseline.model.fingerprint if baseline is not None else None,
            "filtered_fallbacks": filtered.fallbacks if filtered is not None else None,
            "contract_weights": {str(c): learned.model.contract_fingerprint(c) for c in cfg.contracts}}
    result = summarize(per_contract, times, head)
    _write(result, Path(cfg.out), cfg.plot, log)
    return result


def merge(parts: Sequence[dict[str, Any]], out: Path, plot: str = "", log: Any = print) -> dict[str, Any]:
    """One result from measurements run in parts (say, contracts split over processes);
    where two parts measured one contract they must have used the same weights for it.

    Raises:
        ValueError: two parts scored one contract with different weights.
    """
    weights: dict[str, str] = {}
    for part in parts:
        for c, fp in part.get("contract_weights", {}).items():
            if weights.setdefault(c, fp) != fp:
                raise ValueError(f"the parts scored contract {c} with different learned weights")
    per_contract: dict[int, dict[str, Tally]] = {}
    times: dict[str, list[float]] = defaultdict(list)
    for part in parts:
        for c, group in part["raw"]["tallies"].items():
            dst = per_contract.setdefault(int(c), {n: Tally() for n in group})
            for n, d in group.items():
                _merge_into(dst[n], tally_from_dict(d))
        for k, v in part["raw"]["times"].items():
            times[k].extend(v)
    head = {"config": [p["config"] for p in parts], "heldout_rule": parts[0]["heldout_rule"],
            "seconds": sum(p["seconds"] for p in parts), "contract_weights": weights}
    result = summarize(per_contract, times, head)
    _write(result, out, plot, log)
    return result


def report(result: dict[str, Any]) -> str:
    """The measurement's tables in Markdown: log-loss per belief with its interval,
    paired differences, per contract, and the per-copy log-loss by rank."""
    fixed = f"rule eps={RULE_EPS_FIXED:g}"

    def iv(d: dict[str, Any], digits: int = 3) -> str:
        return f"{d['mean' if 'mean' in d else 'log_loss']:+.{digits}f} [{d['low']:+.{digits}f}, {d['high']:+.{digits}f}]"

    lines = ["| belief | log-loss per hidden card [95% over deals] | per-copy log-loss | ECE | pairs |", "|---|---|---|---|---|"]
    for n, b in result["beliefs"].items():
        lines.append(f"| {n} | {b['log_loss']:.3f} [{b['low']:.3f}, {b['high']:.3f}] | {b['copy_log_loss']:.4f} | "
                     f"{b['ece']:.4f} | {b['pairs']} |")
    lines += ["", "| difference (negative: the first is better) | mean [95% paired, over deals] | deals |", "|---|---|---|"]
    for k, d in result["differences"].items():
        lines.append(f"| {k} | {iv(d)} | {d['deals']} |")
    has_base = "baseline" in result["beliefs"]
    lines += ["", "| contract | uniform | rule (eps 0.05) |" + (" baseline |" if has_base else "")
              + " learned | learned - uniform | learned - rule |" + (" learned - baseline |" if has_base else ""),
              "|---|---|---|---|---|---|" + ("---|---|" if has_base else "")]
    for c, g in result["per_contract"].items():
        b, d = g["beliefs"], g["differences"]
        base_cell = f" {b['baseline']['log_loss']:.3f} |" if has_base else ""
        base_diff = f" {iv(d['learned - baseline'])} |" if has_base else ""
        lines.append(f"| {c} | {b['uniform']['log_loss']:.3f} | {b[fixed]['log_loss']:.3f} |{base_cell} "
                     f"{b['learned']['log_loss']:.3f} | {iv(d['learned - uniform'])} | {iv(d['learned - ' + fixed])} |"
                     f"{base_diff}")
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK"]
    lines += ["", "| rank | " + " | ".join(["uniform", "rule (eps 0.05)", "learned"]) + " |", "|---|---|---|---|"]
    for r in ranks:
        cells = []
        for n in ("uniform", fixed, "learned"):
            per = result["beliefs"][n]["type_copy_log_loss"]
            vals = [v for k, v in per.items() if (k == "JK" if r == "JK" else k[:-1] == r)]
            cells.append(f"{np.mean(vals):.4f}" if vals else "n/a")
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    uni, lea = result["beliefs"]["uniform"]["type_copy_log_loss"], result["beliefs"]["learned"]["type_copy_log_loss"]
    lines += ["", "| learned - uniform, per-copy log-loss x1000 | S | H | D | C |", "|---|---|---|---|---|"]
    for r in ranks[:-1]:
        cells = [f"{1000 * (lea[r + x] - uni[r + x]):+.1f}" if r + x in uni else "n/a" for x in "SHDC"]
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    if "JK" in uni:
        lines.append(f"| JK | {1000 * (lea['JK'] - uni['JK']):+.1f} | | | |")
    return "\n".join(lines) + "\n"


def reliability_plot(result: dict[str, Any], path: Path, names: Sequence[str],
                     labels: dict[str, str] | None = None) -> None:
    """The reliability diagram of ``names`` (shown as ``labels[name]`` where given): mean
    predicted against mean observed probability that an unseen copy is hidden in an
    opponent's hand, per bin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 4.6), dpi=110)
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="perfect calibration")
    for name, marker in zip(names, "osD^"):
        s = result["beliefs"][name]
        xs = [b["predicted"] for b in s["bins"]]
        ys = [b["observed"] for b in s["bins"]]
        ax.plot(xs, ys, marker=marker, ms=4, label=f"{(labels or {}).get(name, name)} (ECE {s['ece']:.3f})")
    ax.set_xlabel("predicted P(an unseen copy is in the opponent's hidden cards)")
    ax.set_ylabel("observed frequency")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title("Belief calibration, held-out positions", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def config_from_args(argv: Sequence[str] | None = None) -> MeasureConfig:
    """The :class:`MeasureConfig` of the command line (argparse exits 2 on a bad value)."""
    p = argparse.ArgumentParser(prog="python -m carioca_experiments.studies.belief.measure", description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, nargs="+", choices=PLAYER_CHOICES, default=[2])
    p.add_argument("--contracts", type=int, nargs="+", choices=CONTRACT_CHOICES, default=list(CONTRACT_CHOICES))
    p.add_argument("--deals", type=int_at_least(HELDOUT_EVERY), default=400)
    p.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS))
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--record-prob", type=float, default=0.35)
    p.add_argument("--model", default=SHIPPED_BELIEF, help="the learned model: a shipped name or a file")
    p.add_argument("--baseline", default="", help="a second learned model scored beside --model (shipped name or file)")
    p.add_argument("--rule-samples", type=int_at_least(1), default=64)
    p.add_argument("--out", default="runs/belief-measure")
    p.add_argument("--plot", default="", help="write the reliability diagram to this PNG")
    p.add_argument("--inferred-pool", type=int_at_least(0), default=0,
                   help="also score the inferred belief with this many candidates per position (0: not)")
    p.add_argument("--filtered-pool", type=int_at_least(0), default=0,
                   help="also score the filtered belief with this many particles (0: not)")
    p.add_argument("--filtered-window", type=int_at_least(0), default=0,
                   help="the filtered belief's rejuvenation window in opponent turns (0: any card)")
    p.add_argument("--filtered-moves", type=int_at_least(0), default=DEFAULT_MOVES,
                   help="the filtered belief's Metropolis-Hastings moves per particle and step")
    p.add_argument("--filtered-eps", type=float, default=DEFAULT_EPS,
                   help="the filtered belief's weight of a uniform legal move in the opponents' policy, in (0, 1]")
    p.add_argument("--oracle-noise", type=float, nargs="+", default=[], metavar="Q",
                   help="also score the noisy oracle (cheat-search:noise=Q; it reads the true hands) at these "
                        "noise levels in [0, 1]")
    p.add_argument("--merge", nargs="+", default=[], metavar="JSON",
                   help="merge these belief-measure.json files (parts of one measurement) instead of playing")
    a = p.parse_args(argv)
    if not 0 < a.record_prob <= 1:
        p.error(f"argument --record-prob: expected a number in (0, 1], got {a.record_prob:g}")
    for q in a.oracle_noise:
        if not 0 <= q <= 1:
            p.error(f"argument --oracle-noise: expected numbers in [0, 1], got {q:g}")
    if not 0 < a.filtered_eps <= 1:
        p.error(f"argument --filtered-eps: expected a number in (0, 1], got {a.filtered_eps:g}")
    if a.merge:
        for path in a.merge:
            try:
                part = json.loads(Path(path).read_text())
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                p.error(f"argument --merge: cannot read {path[:80]!r} as JSON ({exc})")
            if not isinstance(part, dict) or not isinstance(part.get("raw"), dict):
                p.error(f"argument --merge: {path[:80]!r} is not a belief measurement (no raw tallies)")
    else:
        from carioca_agents.belief.model import BeliefModelError, load_belief_model

        for flag, name in (("--model", a.model), ("--baseline", a.baseline)):
            try:
                if name or flag == "--model":
                    load_belief_model(name)
            except BeliefModelError as exc:
                p.error(f"argument {flag}: {exc}")
    return MeasureConfig(tuple(a.players), tuple(a.contracts), a.deals, tuple(a.agents), a.seed, a.record_prob,
                         a.model, a.baseline, a.rule_samples, a.out, a.plot, tuple(a.merge), a.inferred_pool,
                         a.filtered_pool,
                         a.filtered_window, a.filtered_moves, a.filtered_eps, tuple(a.oracle_noise))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m carioca_experiments.studies.belief.measure``."""
    cfg = config_from_args(argv)

    def work() -> int:
        if cfg.merge:
            parts = [json.loads(Path(p).read_text()) for p in cfg.merge]
            try:
                merge(parts, Path(cfg.out), cfg.plot)
            except ValueError as exc:
                print(f"python -m carioca_experiments.studies.belief.measure: error: --merge: {exc}", file=sys.stderr)
                return 2
        else:
            run(cfg)
        return 0

    return run_script(work)


if __name__ == "__main__":
    sys.exit(main())
