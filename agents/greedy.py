"""``greedy``: opens at once, sheds everything it can, keeps its groups.

* Draw: the top discard only if it completes or extends something: before opening, if
  it is a joker, makes a pair or a near-run with the hand (a card of the same rank, or
  of the same suit at most two places away; pairs count only when the contract has
  trios, near-runs only when it has runs, and a rank group is worth at most 3 cards),
  or makes an opening possible; after
  opening, if it can be laid off on a table meld.  Otherwise the stock.
* Play: any opening as soon as there is one (the one leaving the lowest penalty in
  hand); after opening, every lay-off or joker swap the rules allow, highest-penalty
  card first (jokers included).
* Discard: the highest-penalty card that belongs to no group of the hand (pair,
  near-run, joker, as for the draw; copies of a rank beyond 3 that are in no near-run
  count as loose); if every card belongs to one, the card with the
  fewest links to the others (then the highest penalty; a joker last).

Ties are broken by the agent's own seeded generator.  It reads only the PlayerView.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from carioca_agents.base import SeededAgent, forced_draw
from carioca_agents.explain import Explaining, ranked
from carioca_env import Move, MoveKind, PlayerView
from carioca_env.analysis import counts_plus, groups_of, links_of, sim_table
from carioca_env.cards import JOKER, PENALTY, card_str, rank_of
from carioca_env.explanations import Candidate, Explanation
from carioca_env.openings import can_open


class GreedyAgent(SeededAgent, Explaining):
    """The greedy scripted player (see the module docstring); it explains a decision by
    its rule's keys (:meth:`weigh`)."""

    name = "greedy"

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Choose one of ``legal`` from the seat's view only."""
        kinds = {m.kind for m in legal}
        if MoveKind.DRAW_STOCK in kinds or MoveKind.DRAW_DISCARD in kinds:
            return self._draw(view, legal)
        opens = [m for m in legal if m.kind is MoveKind.OPEN]
        if opens:
            return self._pick_min(opens, lambda m: self._leftover_penalty(view, m))
        sheds = [m for m in legal if m.kind in (MoveKind.LAY_OFF, MoveKind.SWAP)]
        if sheds:
            return self._pick_min(sheds, lambda m: -PENALTY[m.card])
        return self._discard(view, legal)

    # ------------------------------------------------------------------ parts

    def _pick_min(self, moves: list[Move], key: Callable[[Move], Any]) -> Move:
        scored = [(key(m), m) for m in moves]
        best = min(s for s, _ in scored)
        tied = [m for s, m in scored if s == best]
        return self.choose(tied)

    @staticmethod
    def _leftover_penalty(view: PlayerView, move: Move) -> int:
        counts = list(view.hand_counts)
        for meld in move.melds:
            for c in meld.cards:
                counts[c] -= 1
        return sum(n * PENALTY[c] for c, n in enumerate(counts) if n)

    def _draw(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        forced = forced_draw(legal)
        if forced is not None:
            return forced
        return Move.draw_discard() if self._take_reason(view) else Move.draw_stock()

    @staticmethod
    def _take_reason(view: PlayerView) -> str:
        """Why the rule takes the top discard, or ``""`` when it draws from the stock."""
        top = view.top_discard
        counts = view.hand_counts
        if view.opened[view.seat]:
            return "it fits a table meld" if any(m.fits(top) for m in sim_table(view)) else ""
        if top == JOKER:
            return "a joker"
        with_top = counts_plus(counts, top)
        con = view.contract
        if top in groups_of(with_top, False, con.runs > 0):
            return "it makes a near-run"
        if con.trios and 2 <= _rank_count(with_top, top) <= 3:
            return "it makes a pair or a trio"
        if can_open(with_top, view.contract):
            return "it makes an opening possible"
        return ""

    @staticmethod
    def _loose(view: PlayerView, discards: list[Move]) -> list[Move]:
        """The discards of cards in no group (a rank's copies beyond 3 in no near-run count too)."""
        con = view.contract
        grouped = groups_of(view.hand_counts, con.trios > 0, con.runs > 0)
        by_run = groups_of(view.hand_counts, False, con.runs > 0)
        # a rank group is worth a trio: copies beyond 3 are loose unless in a near-run
        return [
            m for m in discards
            if m.card not in grouped
            or (m.card != JOKER and m.card not in by_run and _rank_count(view.hand_counts, m.card) > 3)
        ]

    def _discard(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        con = view.contract
        loose = self._loose(view, discards)
        if loose:
            return self._pick_min(loose, lambda m: -PENALTY[m.card])
        counts = view.hand_counts
        t, r = con.trios > 0, con.runs > 0
        return self._pick_min(discards, lambda m: (links_of(counts, m.card, t, r), -PENALTY[m.card]))


    # ------------------------------------------------------------------ explanations

    def weigh(self, view: PlayerView, legal: Sequence[Move], move: Move) -> Explanation:
        """The keys greedy's rule ranked the moves by (see the module docstring), from the
        view alone and without drawing from its generator."""
        if move.kind in (MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD):
            why = self._take_reason(view)
            top = card_str(view.top_discard)
            cands = [Candidate(str(Move.draw_discard()), 1.0 if why else 0.0, f"{top}: {why or 'no group'}"),
                     Candidate(str(Move.draw_stock()), 0.5, "otherwise")]
            return Explanation.build(self.name, "rule", "greedy's draw rule: take the top discard only if it "
                                     "completes or extends something", "higher", ranked(cands, "higher", move), move)
        if move.kind is MoveKind.OPEN:
            opens = [m for m in legal if m.kind is MoveKind.OPEN]
            cands = [Candidate(str(m), self._leftover_penalty(view, m), "points left in hand") for m in opens]
            return Explanation.build(self.name, "rule", "points left in hand after the opening", "lower",
                                     ranked(cands, "lower", move), move, "opens at once, keeping the fewest points")
        if move.kind in (MoveKind.LAY_OFF, MoveKind.SWAP):
            sheds = [m for m in legal if m.kind in (MoveKind.LAY_OFF, MoveKind.SWAP)]
            cands = [Candidate(str(m), PENALTY[m.card], "the card's points") for m in sheds]
            return Explanation.build(self.name, "rule", "points of the card shed", "higher",
                                     ranked(cands, "higher", move), move, "sheds every card it can, highest first")
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        loose = set(self._loose(view, discards))
        con = view.contract
        t, r = con.trios > 0, con.runs > 0
        cands = []
        for m in discards:
            if m in loose:
                cands.append(Candidate(str(m), PENALTY[m.card], f"in no group: {PENALTY[m.card]} points"))
            else:
                links = links_of(view.hand_counts, m.card, t, r)
                cands.append(Candidate(str(m), -10.0 * links - 1 + PENALTY[m.card] / 100.0,
                                       f"in a group: {links} links"))
        return Explanation.build(self.name, "rule", "greedy's discard order: cards in no group by points, then "
                                 "grouped cards by fewest links", "higher", ranked(cands, "higher", move), move)


def _rank_count(counts: Sequence[int], card: int) -> int:
    """Natural cards of ``card``'s rank in the hand."""
    r = rank_of(card) - 1
    return counts[r] + counts[13 + r] + counts[26 + r] + counts[39 + r]
