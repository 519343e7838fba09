"""Batch ratings of tournament agents: a Bradley-Terry maximum-likelihood fit (``choix``).

Why a batch fit
    A tournament is a fixed batch of deals.  Online rating updates (OpenSkill, Elo)
    over such a batch depend on the order the deals are fed in: shuffling the 840 demo
    deals moved random's OpenSkill mu from 26.1 to anywhere between 17.7 and 19.7.  A
    maximum-likelihood fit of the whole batch has no order: it depends only on how many
    times each agent beat each other one.

Model
    Each deal is a ranking of the distinct agents at its table by penalty (an agent
    seated twice counts once, with its mean penalty; lower is better).  The ranking is
    broken into all its pairs ("full rank breaking", a consistent estimator of the
    Plackett-Luce strengths): the agent with the lower penalty wins the pair, a tie
    gives each half a win.  The Bradley-Terry model ``P(i beats j) = 1 / (1 + exp(t_j -
    t_i))`` is fitted to those counts by maximum likelihood with ``choix``'s I-LSR
    (:func:`choix.ilsr_pairwise_dense`), lightly regularized (:data:`ALPHA`) so that an
    agent that never lost still gets a finite strength.  Strengths are centred (mean 0
    over the agents) and shown on the Elo scale: ``rating = 1500 + 400 * t / ln 10``, so
    a 200-point gap means the stronger agent wins about 76% of its pairs.

Uncertainty
    A 95% percentile interval from refitting :data:`RESAMPLES` bootstrap resamples of
    the dealt decks (every lineup of a deck stays together, as in the penalty
    intervals).  Decks are taken in sorted order and the generator is seeded, so the
    whole result - fit and interval - is the same for the same deals in any order.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "ALPHA",
    "RATINGS_EXPLAINED",
    "RESAMPLES",
    "Rating",
    "RatingError",
    "deck_comparisons",
    "fit_ratings",
    "fit_strengths",
    "rating_table",
]

#: I-LSR regularization: the weight of a prior "every pair split evenly" against real pairs.
ALPHA = 0.1
#: Bootstrap resamples of the decks for the rating intervals.
RESAMPLES = 200
#: Elo points per unit of log-strength (400 points = a factor 10 in the odds).
ELO_SCALE = 400.0 / math.log(10.0)
ELO_MEAN = 1500.0

RATINGS_EXPLAINED = (
    "Bradley-Terry ratings, a maximum-likelihood fit of all deals at once (choix), so the "
    "order of the deals does not matter: each deal ranks the distinct agents at the table by "
    "penalty (an agent seated twice counts once, with its mean; ties split), every pair of "
    "them is one comparison. Elo scale, mean 1500: 200 points = the stronger wins ~76% of "
    "pairs. 95% interval: bootstrap over decks. pairs = comparisons the agent was in."
)


class RatingError(ValueError):
    """Deal records that cannot be rated (the message says which field is wrong)."""


@dataclass(frozen=True)
class Rating:
    """One agent's batch Bradley-Terry rating.

    Attributes:
        agent: the agent's label.
        rating: Elo-scale rating, ``1500 + 400 * strength / ln 10`` (mean 1500 over agents).
        low: lower end of the 95% bootstrap interval of ``rating`` (over decks).
        high: upper end of that interval.
        strength: the fitted log-strength ``t`` (mean 0 over the agents).
        matches: deals the agent played against at least one other agent.
        pairs: pairwise comparisons it took part in (the data of its rating).
    """

    agent: str
    rating: float
    low: float
    high: float
    strength: float
    matches: int
    pairs: int


def _agent_penalties(rec: Mapping[str, Any]) -> dict[str, float]:
    try:
        seats, penalty = rec["seats"], rec["penalty"]
    except KeyError as exc:
        raise RatingError(f"a deal record needs 'seats' and 'penalty', this one lacks {exc}") from None
    if len(seats) != len(penalty):
        raise RatingError(f"deal {rec.get('task', '?')}: {len(seats)} seats but {len(penalty)} penalties")
    pens: dict[str, list[float]] = defaultdict(list)
    for agent, pen in zip(seats, penalty):
        pens[agent].append(float(pen))
    return {a: sum(v) / len(v) for a, v in pens.items()}


def deck_comparisons(labels: Sequence[str], records: Iterable[Mapping[str, Any]]
                     ) -> tuple[dict[tuple[Any, ...], np.ndarray], dict[str, int]]:
    """Per dealt deck, the win matrix of its deals; and each agent's number of matches.

    ``wins[deck][i, j]`` is how often agent ``labels[i]`` beat ``labels[j]`` on that deck
    (a tie adds 0.5 to both).  A deck is ``(contract, deck)``; deals with one distinct
    agent compare nothing and are skipped.

    Raises:
        RatingError: a record lacks its seats or penalties, or seats an unknown agent.
    """
    index = {a: i for i, a in enumerate(labels)}
    k = len(labels)
    wins: dict[tuple[Any, ...], np.ndarray] = {}
    matches = dict.fromkeys(labels, 0)
    for rec in records:
        pens = _agent_penalties(rec)
        if len(pens) < 2:
            continue
        unknown = [a for a in pens if a not in index]
        if unknown:
            raise RatingError(f"deal {rec.get('task', '?')} seats {unknown}, not among the agents {list(labels)}")
        key = (rec.get("contract"), rec.get("deck"))
        m = wins.setdefault(key, np.zeros((k, k)))
        names = list(pens)
        for a in names:
            matches[a] += 1
        for x in range(len(names)):
            for y in range(x + 1, len(names)):
                i, j = index[names[x]], index[names[y]]
                px, py = pens[names[x]], pens[names[y]]
                if px < py:
                    m[i, j] += 1.0
                elif py < px:
                    m[j, i] += 1.0
                else:
                    m[i, j] += 0.5
                    m[j, i] += 0.5
    return wins, matches


def fit_strengths(wins: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Bradley-Terry log-strengths (mean 0) of a win matrix, by ``choix.ilsr_pairwise_dense``.

    Raises:
        RatingError: the fit did not converge.
    """
    import choix

    try:
        params = choix.ilsr_pairwise_dense(np.asarray(wins, dtype=float), alpha=alpha, max_iter=1000)
    except (RuntimeError, ValueError) as exc:
        raise RatingError(f"the Bradley-Terry fit failed: {exc}") from None
    return params - params.mean()


def bootstrap_strengths(stack: np.ndarray, rng: np.random.Generator, resamples: int, alpha: float = ALPHA,
                        memo: bool = True) -> np.ndarray:
    """``resamples`` Bradley-Terry fits (:func:`fit_strengths`) of the win matrices of
    ``stack`` (one per deck) resampled with replacement by ``rng``, one row each.

    With ``memo`` a resampled total met before is not fit again (the fit is a pure
    function of the total): with few decks and agents most totals repeat (a 42-deal
    tournament of two agents: 20 distinct totals in 200 resamples), and the fits were
    most of a small tournament's summary.  ``memo=False`` fits every one (the tests
    compare the two)."""
    n = len(stack)
    boot = np.empty((resamples, stack.shape[1]))
    fits: dict[bytes, np.ndarray] = {}
    for b in range(resamples):
        total = stack[rng.integers(0, n, n)].sum(axis=0)
        if not memo:
            boot[b] = fit_strengths(total, alpha)
            continue
        key = total.tobytes()
        fit = fits.get(key)
        if fit is None:
            fit = fits[key] = fit_strengths(total, alpha)
        boot[b] = fit
    return boot


def fit_ratings(labels: Sequence[str], records: Iterable[Mapping[str, Any]], *, seed: int = 0,
                resamples: int = RESAMPLES, alpha: float = ALPHA) -> list[Rating]:
    """Batch Bradley-Terry ratings of ``labels`` from deal records, best first.

    ``records`` are tournament result lines (``seats``, ``penalty``, ``contract``,
    ``deck``).  Their order does not change the result.  Fewer than two agents, or no
    deal between two of them: no ratings (``[]``).

    Raises:
        RatingError: a record lacks its seats or penalties, or seats an unknown agent.
    """
    labels = list(labels)
    if len(labels) < 2:
        return []
    wins, matches = deck_comparisons(labels, records)
    if not wins:
        return []
    keys = sorted(wins, key=repr)  # a fixed order of the decks, whatever the order of the deals
    stack = np.stack([wins[key] for key in keys])
    total = stack.sum(axis=0)
    pairs = total + total.T
    strength = fit_strengths(total, alpha)
    boot = bootstrap_strengths(stack, np.random.default_rng(seed), resamples, alpha)
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    rows = [Rating(agent=a, rating=ELO_MEAN + ELO_SCALE * float(strength[i]),
                   low=ELO_MEAN + ELO_SCALE * float(lo[i]), high=ELO_MEAN + ELO_SCALE * float(hi[i]),
                   strength=float(strength[i]), matches=matches[a], pairs=int(round(pairs[i].sum())))
            for i, a in enumerate(labels)]
    return sorted(rows, key=lambda r: (-r.rating, r.agent))


def rating_table(ratings: Sequence[Rating]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the ratings table (see :data:`RATINGS_EXPLAINED`)."""
    head = ["agent", "rating", "95% CI", "matches", "pairs"]
    rows = [[r.agent, f"{r.rating:.0f}", f"[{r.low:.0f}, {r.high:.0f}]", str(r.matches), str(r.pairs)]
            for r in ratings]
    return head, rows
