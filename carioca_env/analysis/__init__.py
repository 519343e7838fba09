"""The rules analysis of a hand: part of the game, like OpenSpiel's ``gin_rummy_utils``.

It serves the ``planning`` / ``discards`` observation pieces, and the agents built on
the engine (scripted players, opponent models) import it from here.

Everything here reads only what a seat may know: its own hand (as 53 counts), the
melds on the table and the public discard history of a :class:`~carioca_env.PlayerView`.
Its parts, re-exported here:

- :mod:`carioca_env.analysis.deficiency`: :func:`analyze`, the exact *deficiency* of a
  hand for a contract (the fewest cards still to draw, jokers included) and its *outs* (the card
  types whose arrival lowers it), checked against brute force over the engine's
  openings; results are cached per (hand, contract); :func:`deficiency_without` and
  :func:`deficiency_with` give the deficiency of the hand less or plus one card faster,
  :func:`analysis_without` the analysis of the hand less one card;
- :mod:`carioca_env.analysis.table_plan`: lay-offs and joker swaps on the table
  (:func:`plan_layoffs`);
- :mod:`carioca_env.analysis.hand_counts`: the unseen copies of each card, hands with a
  card added or removed, and the groups (pairs, near-runs) a card belongs to.
"""

from __future__ import annotations

from carioca_env.analysis.deficiency import (
    WINDOW_MASKS,
    Analysis,
    analysis_without,
    analyze,
    deficiency,
    deficiency_with,
    deficiency_without,
    suit_masks,
)
from carioca_env.analysis.hand_counts import counts_minus, counts_plus, groups_of, links_of, unseen_counts
from carioca_env.analysis.table_plan import SimMeld, plan_layoffs, sim_table

__all__ = [
    "Analysis",
    "SimMeld",
    "WINDOW_MASKS",
    "analysis_without",
    "analyze",
    "counts_minus",
    "counts_plus",
    "deficiency",
    "deficiency_with",
    "deficiency_without",
    "groups_of",
    "links_of",
    "plan_layoffs",
    "sim_table",
    "suit_masks",
    "unseen_counts",
]
