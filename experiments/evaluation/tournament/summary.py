"""What a tournament's results say: per-agent statistics, paired differences, ratings.

:func:`summarize` reads a results file and computes a :class:`Summary`; the intervals
come from :mod:`carioca_experiments.common.stats` through its public functions.  How a summary is
shown (tables, files, plots) is :mod:`carioca_experiments.evaluation.tournament.presentation`.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from carioca_experiments.common.stats import MeanCI, mean_ci, paired_difference, penalty_ci, win_shares
from carioca_experiments.evaluation.ratings import Rating, fit_ratings
from carioca_experiments.evaluation.tournament.config import TournamentConfig
from carioca_experiments.evaluation.tournament.results import RESULTS_FILE, ResultsFile, read_results
from carioca_experiments.evaluation.tournament.tasks import make_tasks


@dataclass(frozen=True)
class AgentStats:
    """One agent's results on one contract (or ``"all"``)."""

    contract: str
    agent: str
    deals: int  # deals (tables) the agent sat at
    seat_deals: int  # seats it played (more than deals when it sat twice at a table)
    decks: int  # dealt decks it played (the sample size of the interval)
    mean_penalty: float
    ci_low: float
    ci_high: float
    ci_half: float
    win_rate: float
    close_rate: float
    open_rate: float
    mean_open_turn: float
    truncated: int  # deals it sat at that were truncated
    cancelled: int  # R13 redeals in those deals


@dataclass(frozen=True)
class PairStats:
    """Paired difference ``agent_x - agent_y`` of mean penalty on the same decks (negative: x better).

    ``mean_diff`` and its interval compare the two over every deal of each deck (each
    against the whole field); the ``h2h_`` fields only over the deals where the two sat
    at one table (head to head).  With two agents, or ``n`` agents at ``n`` seats, the two
    are the same; with more agents than seats they differ, and the head-to-head one is
    the match between the two.
    """

    contract: str
    agent_x: str
    agent_y: str
    decks: int
    mean_diff: float
    ci_low: float
    ci_high: float
    ci_half: float
    h2h_decks: int
    h2h_diff: float
    h2h_low: float
    h2h_high: float
    h2h_half: float
    corrected_diff: float = math.nan
    corrected_low: float = math.nan
    corrected_high: float = math.nan
    corrected_half: float = math.nan

    @property
    def significant(self) -> bool:
        """Whether the 95% interval (over every deal) excludes 0."""
        return not math.isnan(self.ci_half) and (self.ci_low > 0 or self.ci_high < 0)

    @property
    def corrected_significant(self) -> bool:
        """Whether the luck-corrected 95% interval excludes 0."""
        return not math.isnan(self.corrected_half) and (self.corrected_low > 0 or self.corrected_high < 0)

    @property
    def h2h_significant(self) -> bool:
        """Whether the head-to-head 95% interval excludes 0."""
        return not math.isnan(self.h2h_half) and (self.h2h_low > 0 or self.h2h_high < 0)

    def seen_from(self, agent: str) -> PairStats:
        """The same pair as ``agent`` minus the other (``agent`` becomes ``agent_x``): every
        difference changes sign and every interval's ends swap when ``agent`` is ``agent_y``.

        Raises:
            ValueError: ``agent`` is neither of the pair.
        """
        if agent == self.agent_x:
            return self
        if agent != self.agent_y:
            raise ValueError(f"{agent!r} is not in the pair {self.agent_x!r} - {self.agent_y!r}")
        return PairStats(self.contract, self.agent_y, self.agent_x, self.decks, -self.mean_diff, -self.ci_high,
                         -self.ci_low, self.ci_half, self.h2h_decks, -self.h2h_diff, -self.h2h_high, -self.h2h_low,
                         self.h2h_half, -self.corrected_diff, -self.corrected_high, -self.corrected_low,
                         self.corrected_half)


#: A rating row (the batch Bradley-Terry fit of :mod:`carioca_experiments.evaluation.ratings`).
RatingStats = Rating


@dataclass
class Summary:
    """The statistics of a results file (see :func:`summarize` for definitions)."""

    config: TournamentConfig
    deals_played: int
    deals_expected: int
    truncated: int
    cancelled: int
    agents: list[AgentStats]
    pairs: list[PairStats]
    ratings: list[RatingStats]
    truncated_by_contract: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether every task of the tournament has been played."""
        return self.deals_played == self.deals_expected

    def agent(self, agent: str, contract: int | str = "all") -> AgentStats:
        """The row of one agent on one contract (``"all"``: all contracts played)."""
        if contract == "all" and len(self.config.contracts) == 1:
            contract = self.config.contracts[0]  # one contract: no separate "all" rows
        for row in self.agents:
            if row.agent == agent and row.contract == str(contract):
                return row
        raise KeyError(f"no row for agent {agent!r} on contract {contract!r}")

    def pair(self, agent: str, other: str, contract: int | str = "all") -> PairStats:
        """The paired difference ``agent - other`` on one contract (``"all"``: all contracts
        played), whichever order the two are stored in (:meth:`PairStats.seen_from`).

        Raises:
            KeyError: the tournament has no such pair on that contract.
        """
        if contract == "all" and len(self.config.contracts) == 1:
            contract = self.config.contracts[0]  # one contract: no separate "all" rows
        for p in self.pairs:
            if p.contract == str(contract) and {p.agent_x, p.agent_y} == {agent, other}:
                return p.seen_from(agent)
        raise KeyError(f"no pair {agent} - {other} on contract {contract}")

    def mean_penalty(self, agent: str, contract: int | str = "all") -> float:
        """Mean penalty per deal of ``agent`` (lower is better)."""
        return self.agent(agent, contract).mean_penalty

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``nan`` as ``null``); the same for the same results."""
        def clean(x: Any) -> Any:
            if isinstance(x, float) and math.isnan(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x

        return clean({
            "config": self.config.to_dict(),
            "deals_played": self.deals_played,
            "deals_expected": self.deals_expected,
            "truncated": self.truncated,
            "truncated_by_contract": dict(self.truncated_by_contract),
            "cancelled": self.cancelled,
            "agents": [asdict(r) for r in self.agents],
            "pairs": [asdict(p) for p in self.pairs],
            "ratings": [asdict(r) for r in self.ratings],
            "notes": list(self.notes),
        })

    # ---------------------------------------------------------------- rendering (presentation.py)

    def to_text(self) -> str:
        """Plain-text tables for the terminal."""
        from carioca_experiments.evaluation.tournament.presentation import summary_text

        return summary_text(self)

    def to_markdown(self) -> str:
        """The same tables in Markdown."""
        from carioca_experiments.evaluation.tournament.presentation import summary_markdown

        return summary_markdown(self)

    def write(self, out_dir: str | Path, log: Callable[[str], None] | None = None) -> list[Path]:
        """Write summary.md, summary.csv, pairs.csv, summary.json and the PNG plots; returns the paths."""
        from carioca_experiments.evaluation.tournament.presentation import write_summary

        return write_summary(self, out_dir, log)


def table_means(rec: dict[str, Any]) -> dict[str, float]:
    """Each agent's mean penalty over its seats at one deal (an agent may sit twice)."""
    seats: dict[str, list[float]] = defaultdict(list)
    for agent, pen in zip(rec["seats"], rec["penalty"]):
        seats[agent].append(pen)
    return {a: sum(v) / len(v) for a, v in seats.items()}


def table_mate_rows(tournaments: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]], agents: Sequence[str],
                    baselines: Sequence[str]) -> list[dict[str, Any]]:
    """Per agent, baseline and contract: the agent's penalty minus its table-mates' of the
    baseline (``heuristic``, or the seats ``heuristic1``, ``heuristic2``, ... averaged), per
    deck over the deals where they sat together, then the paired difference and its 95%
    t-interval over decks (the learned set's final tournament reads it this way).

    ``tournaments`` are results files read (each its header and deal lines; a caller may
    leave deals out) of the same player count: their decks are pooled, each file's
    distinct.  When every deal recorded its luck (one value function), a row also holds
    the difference of luck-corrected penalties (``corrected_diff``, ``corrected_low``,
    ``corrected_high``, ``corrected_significant``) and the fingerprint (``luck``).

    Raises:
        ValueError: the tournaments differ in player count or were corrected by
            different value functions (or some not at all).
    """
    headers = [h for h, _ in tournaments]
    deals = [(i, d) for i, (_, ds) in enumerate(tournaments) for d in ds]
    players = {h["config"]["players"] for h in headers}
    lucks = {h["config"].get("luck") for h in headers}
    if len(players) != 1:
        raise ValueError(f"results of different player counts cannot be pooled: {sorted(players)}")
    if len(lucks) != 1:
        raise ValueError("results corrected by different luck value functions (or some uncorrected) cannot be "
                         f"pooled: {sorted(map(str, lucks))}")
    (luck,) = lucks
    corrected = luck is not None and all("luck" in d for _, d in deals)
    contracts = list(dict.fromkeys(k for h in headers for k in h["config"]["contracts"]))
    rows = []
    for lab in agents:
        for base in baselines:
            for k in contracts:
                mine, theirs = _mate_deck_means(deals, lab, base, k, corrected)
                if not mine:
                    continue
                ci = paired_difference({u: v[0] for u, v in mine.items()}, {u: v[0] for u, v in theirs.items()})
                row = {"players": headers[0]["config"]["players"], "contract": k,
                       "agent": lab, "baseline": base, "decks": ci.n, "diff": ci.mean, "low": ci.low,
                       "high": ci.high, "significant": ci.excludes_zero()}
                if corrected:
                    c = paired_difference({u: v[1] for u, v in mine.items()}, {u: v[1] for u, v in theirs.items()})
                    row.update(luck=luck, corrected_diff=c.mean, corrected_low=c.low, corrected_high=c.high,
                               corrected_significant=c.excludes_zero())
                rows.append(row)
    return rows


def table_mate_decks(deals: Sequence[dict[str, Any]], agent: str, baseline: str,
                     contract: int) -> dict[int, tuple[float, float | None]]:
    """Per deck of ``contract`` in one tournament's ``deals``: ``agent``'s mean penalty minus
    its ``baseline`` table-mates' (as :func:`table_mate_rows` pairs them), raw and, when
    every deal recorded its luck, luck-corrected (else ``None``)."""
    corrected = all("luck" in d for d in deals)
    mine, theirs = _mate_deck_means([(0, d) for d in deals], agent, baseline, contract, corrected)
    return {deck: (mine[(0, deck)][0] - theirs[(0, deck)][0],
                   mine[(0, deck)][1] - theirs[(0, deck)][1] if corrected else None) for _, deck in mine}


def _mate_deck_means(deals: Sequence[tuple[int, dict[str, Any]]], lab: str, base: str, k: int, corrected: bool
                     ) -> tuple[dict[tuple[int, int], tuple[float, float]], dict[tuple[int, int], tuple[float, float]]]:
    """Per deck (file, deck) of contract ``k``: the agent's and its baseline table-mates'
    mean penalties over the deals where they sat together, each (raw, corrected; the
    corrected equals the raw when ``corrected`` is false)."""
    mine: dict[tuple[int, int], list[tuple[float, float]]] = {}
    theirs: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for i, d in deals:
        at_table = table_means(d)
        fixed = table_means({**d, "penalty": [p - c for p, c in zip(d["penalty"], d["luck"])]}) \
            if corrected else at_table
        others = [s for s in at_table if s == base or (s.startswith(base) and s[len(base):].isdigit())]
        if d["contract"] != k or lab not in at_table or not others:
            continue
        mine.setdefault((i, d["deck"]), []).append((at_table[lab], fixed[lab]))
        theirs.setdefault((i, d["deck"]), []).append(
            (sum(at_table[s] for s in others) / len(others), sum(fixed[s] for s in others) / len(others)))

    def deck_means(values: dict[tuple[int, int], list[tuple[float, float]]]) -> dict[tuple[int, int], tuple[float, float]]:
        return {deck: (sum(v[0] for v in vs) / len(vs), sum(v[1] for v in vs) / len(vs)) for deck, vs in values.items()}

    return deck_means(mine), deck_means(theirs)


def _unit_means(units: dict[tuple[str, str], dict[tuple[int, int], list[float]]], g: str, agent: str) -> dict[tuple[int, int], float]:
    return {k: sum(v) / len(v) for k, v in units.get((g, agent), {}).items()}


def summarize(source: str | Path | ResultsFile) -> Summary:
    """Compute the summary of a results folder (or file, or :class:`ResultsFile`).

    Definitions (``contract`` is each contract played, then ``"all"``):

    - An *observation* is one seat at one deal.  A *unit* is a dealt deck (contract,
      deck); each agent's value on a unit is its mean penalty over the seats it played
      on that deck (over lineups and, if it sat twice, both seats).
    - ``mean_penalty`` is the mean of the agent's unit values (with the duplicate format
      every unit has the same weight, so this is also the mean per seat-deal); its 95%
      interval is a seeded BCa bootstrap over units (:func:`carioca_experiments.common.stats.penalty_ci`:
      never below 0), which are independent (the seats and lineups of one deck are not).
    - Paired difference ``x - y``: the mean over the units both played of
      ``value_x - value_y``, with its t-interval: the two agents on the same cards.
      Head to head (``h2h_``): per unit, the mean over the deals where both sat of x's
      penalty minus y's (each the mean of its seats at that table), then the mean and
      t-interval over units: the two agents against each other on the same cards.
    - ``win_rate``: mean over observations of the win share (``1/k`` if the seat has the
      lowest penalty at its table with ``k`` seats tied there, else 0); truncated deals
      count with their hand penalties.  ``close_rate``: share of observations where the
      seat closed.  ``open_rate``: where it laid its contract.  ``mean_open_turn``: the
      mean over opened observations of the seat's own turn number of the opening.
    - ``truncated`` / ``cancelled``: over the deals (tables) the agent sat at.
    - Luck-corrected paired difference (``corrected_``, with ``--luck-correction``): the
      same as the paired difference with each seat's penalty replaced by ``penalty -
      luck`` (its stock draws' luck, :mod:`carioca_experiments.evaluation.luck.correction`).
    - Ratings: a batch Bradley-Terry fit of all deals (:mod:`carioca_experiments.evaluation.ratings`): each
      deal ranks the distinct agents at the table by penalty (mean penalty if seated
      twice, lower is better, ties split); the order of the deals does not matter.
    """
    if isinstance(source, ResultsFile):
        rf = source
    else:
        p = Path(source)
        rf = read_results(p / RESULTS_FILE if p.is_dir() else p)
    config = rf.config
    labels = list(config.labels)
    records = sorted(rf.records.values(), key=lambda r: r["index"])
    expected = len(make_tasks(config))
    groups = [str(c) for c in config.contracts] + (["all"] if len(config.contracts) > 1 else [])

    # per (group, agent): observations and unit sums
    obs: dict[tuple[str, str], list[tuple[float, float, bool, int | None]]] = defaultdict(list)
    units: dict[tuple[str, str], dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    # the same with luck-corrected penalties (only when every deal recorded its luck)
    corrected = config.luck is not None and all("luck" in r for r in records)
    cunits: dict[tuple[str, str], dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    tables: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    # per (group, x, y) in label order: per unit, x's minus y's penalty at each shared table
    h2h: dict[tuple[str, str, str], dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    order = {lab: i for i, lab in enumerate(labels)}
    truncated_by_contract = {str(c): 0 for c in config.contracts}
    for rec in records:
        shares = win_shares(rec["penalty"])
        gs = [str(rec["contract"])] + (["all"] if "all" in groups else [])
        truncated_by_contract[str(rec["contract"])] += bool(rec["truncated"])
        at_table = table_means(rec)
        met = list(itertools.combinations(sorted(at_table, key=order.__getitem__), 2))
        for g in gs:
            for agent in at_table:
                tables[(g, agent)].append(rec)
            for s, agent in enumerate(rec["seats"]):
                obs[(g, agent)].append((rec["penalty"][s], shares[s], rec["closer"] == s, rec["open_turn"][s]))
                units[(g, agent)][(rec["contract"], rec["deck"])].append(rec["penalty"][s])
                if corrected:
                    cunits[(g, agent)][(rec["contract"], rec["deck"])].append(rec["penalty"][s] - rec["luck"][s])
            for x, y in met:
                h2h[(g, x, y)][(rec["contract"], rec["deck"])].append(at_table[x] - at_table[y])

    agent_rows: list[AgentStats] = []
    unit_means: dict[tuple[str, str], dict[tuple[int, int], float]] = {}
    for g in groups:
        for agent in labels:
            o = obs.get((g, agent), [])
            um = {k: sum(v) / len(v) for k, v in units.get((g, agent), {}).items()}
            unit_means[(g, agent)] = um
            ci = penalty_ci(um.values())
            opened = [t for *_, t in o if t is not None]
            tb = tables.get((g, agent), [])
            n = len(o)
            agent_rows.append(AgentStats(
                contract=g, agent=agent, deals=len(tb), seat_deals=n, decks=len(um),
                mean_penalty=ci.mean, ci_low=ci.low, ci_high=ci.high, ci_half=ci.half,
                win_rate=sum(x[1] for x in o) / n if n else math.nan,
                close_rate=sum(x[2] for x in o) / n if n else math.nan,
                open_rate=len(opened) / n if n else math.nan,
                mean_open_turn=sum(opened) / len(opened) if opened else math.nan,
                truncated=sum(bool(r["truncated"]) for r in tb),
                cancelled=sum(int(r["cancelled"]) for r in tb),
            ))

    pair_rows: list[PairStats] = []
    for x, y in itertools.combinations(labels, 2):
        for g in groups:
            d: MeanCI = paired_difference(unit_means[(g, x)], unit_means[(g, y)])
            h: MeanCI = mean_ci(sum(v) / len(v) for v in h2h.get((g, x, y), {}).values())
            c = paired_difference(_unit_means(cunits, g, x), _unit_means(cunits, g, y)) if corrected else None
            pair_rows.append(PairStats(g, x, y, d.n, d.mean, d.low, d.high, d.half,
                                       h.n, h.mean, h.low, h.high, h.half,
                                       *((c.mean, c.low, c.high, c.half) if c is not None else ())))

    notes: list[str] = []
    if config.luck is not None and not corrected:
        notes.append("some deals recorded no luck correction, so no corrected differences are shown")
    ratings = fit_ratings(labels, records)
    return Summary(
        config=config,
        deals_played=len(records),
        deals_expected=expected,
        truncated=sum(bool(r["truncated"]) for r in records),
        cancelled=sum(int(r["cancelled"]) for r in records),
        agents=agent_rows,
        pairs=pair_rows,
        ratings=ratings,
        truncated_by_contract=truncated_by_contract,
        notes=notes,
    )

