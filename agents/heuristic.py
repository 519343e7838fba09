"""``heuristic``: a scripted player built on the exact deficiency of the hand.

Before opening
  * The hand is judged by its exact deficiency for the deal's contract (fewest cards
    still missing, jokers included, :func:`carioca_env.analysis.analyze`), then by its live
    outs (card types that lower the deficiency, weighted by how many copies are still
    unseen: not in the hand, on the table, in the discard pile or known to be in
    another hand), then by its penalty.
  * Draw: the top discard when it lowers the deficiency, otherwise the stock.
  * Discard: each card is tried; the hand left with the lowest cost wins.  The cost is
    the deficiency, minus the live outs, plus the penalty weighted by the danger (an
    opponent who has opened and holds few cards may close soon: then high cards go,
    even at some loss of outs), plus the risk of feeding the next player (a card that
    fits a table meld when that player has opened; a card of a rank or near a card that
    player took from the discard pile).  Sure lay-offs for after the opening are worth
    keeping: a card that fits a table meld, another card of a planned trio's rank, the
    card below or above a planned run (not in deals 6 and 7, where the opening closes).
    Only the cards some optimal plan uses are re-analysed: dropping any other card
    leaves the deficiency and the outs as they are; outs are computed only for the
    candidates that can still win.
  * Opening: always, as soon as possible; among the openings, the one whose leftover
    cards lay off best on the table including the new melds (fewest stuck cards after
    this turn's discard, then the lowest penalty left).  In deals 6 and 7 the opening
    leaves one card and its discard closes the deal.

After opening
  * Every turn lays off as many cards as possible (a small search over lay-offs and
    joker swaps, whose order matters on runs: see :func:`carioca_env.analysis.plan_layoffs`),
    jokers included; a swap sheds a natural card, so it is one more lay-off.
  * Draw: the top discard when it adds a lay-off this turn.
  * Discard: the card least likely to fit later (how far it is from a run end, how many
    copies of the missing cards are unseen), weighted by its penalty.

Everything comes from the PlayerView; ties are broken by the agent's seeded generator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from operator import itemgetter, mul
from typing import Any

from carioca_agents.base import SeededAgent, forced_draw
from carioca_agents.explain import Explaining, ranked
from carioca_env import End, Move, MoveKind, Phase, PlayerView
from carioca_env.analysis import (
    SimMeld,
    analysis_without,
    analyze,
    counts_minus,
    deficiency_with,
    deficiency_without,
    plan_layoffs,
    sim_table,
    unseen_counts,
)
from carioca_env.cards import JOKER, PENALTY, RANK_NAMES, SUIT_LETTERS, card_str, rank_of, suit_of
from carioca_env.explanations import Candidate, Explanation
from carioca_env.meld_moves import view_meld_moves
from carioca_env.melds import Meld, MeldKind, card_positions
from carioca_env.openings import can_open

#: Weights of the discard cost (tuned by self-play against ``greedy``).
DEFAULT_PARAMS: dict[str, float] = {
    "w_def": 10.0,          # one card of deficiency
    "w_out": 0.25,          # one live out (an unseen copy of a card that lowers the deficiency)
    "w_out_cap": 24.0,      # live outs counted at most
    "w_pen": 0.02,          # one penalty point, no danger
    "w_pen_danger": 0.25,   # one penalty point when an opponent is about to close
    "w_feed_open": 6.0,     # discarding a card the opened next player can lay off
    "w_feed_close": 0.2,    # ... per penalty point left in hand when that player holds 1 card
    "w_feed_rank": 2.0,     # discarding a card of a rank the next player took
    "w_feed_suit": 0.8,     # discarding a card near one the next player took
    "w_table_keep": 0.6,    # share of a table-fitting card's penalty that still counts
    "w_ext": 4.0,           # discarding a sure lay-off for after opening (fits the table or the plan)
    "ext_runs": 1.0,        # run extensions count as sure lay-offs (0: only trio ranks)
    "w_pot": 12.0,          # after opening: value of a card's chance to fit later
}


#: The hand-set weights of the first version (``heuristic:preset=v1``).
V1_PARAMS: dict[str, float] = dict(DEFAULT_PARAMS)

#: Weights found by ``carioca tune-heuristic`` for the trio contracts 1 and 4 (one
#: heuristic at a table of greedy players, 2-4 players, tuning decks of seed 0):
#: ``carioca tune-heuristic --contracts 1 4 --players 2 3 4 --trials 50 --decks 16 --seed 0``
#: (trial 46: -5.96 points per deal against greedy on the tuning
#: decks, from -4.49 with the v1 weights).  Against greedy's pair hoarding it
#: weighs the deficiency more and the outs less, and avoids feeding a rank the next
#: player took from the pile more.
TUNED_TRIOS: dict[str, float] = {
    "w_def": 13.7169,
    "w_out": 0.0787,
    "w_out_cap": 11.6026,
    "w_pen": 0.0031,
    "w_pen_danger": 0.526,
    "w_feed_open": 3.7085,
    "w_feed_close": 0.0562,
    "w_feed_rank": 5.6168,
    "w_feed_suit": 0.1472,
    "w_table_keep": 0.8462,
    "w_ext": 0.6595,
    "w_pot": 6.7953,
}

#: Per-contract weights of the ``tuned`` preset (contracts not listed use DEFAULT_PARAMS).
TUNED_BY_DEAL: dict[int, dict[str, float]] = {1: TUNED_TRIOS, 4: TUNED_TRIOS}

#: Named weight sets (``heuristic:preset=NAME``): (weights, per-contract overrides).
PRESETS: dict[str, tuple[dict[str, float], dict[int, dict[str, float]]]] = {
    "v1": (V1_PARAMS, {}),
    "tuned": (DEFAULT_PARAMS, TUNED_BY_DEAL),
}


def _heuristic_params() -> dict:
    from carioca_agents.specs import Param

    # v1 stays the default: on fresh decks the tuned weights were no better than v1 at 3
    # and 4 players and head to head at 2 players slightly worse (contract 1: +0.7
    # [+0.2, +1.2] per deal), so "tuned" is opt-in until a tuning run beats v1
    out = {"preset": Param(str, "v1", "named weight set", choices=tuple(PRESETS))}
    for key in DEFAULT_PARAMS:
        out[key] = Param(float, None, f"weight {key} (default: the preset's)")
    return out


def make_heuristic(seed: int = 0, preset: str = "v1", **weights: float | None) -> HeuristicAgent:
    """Registry factory: ``heuristic``, ``heuristic:preset=v1``, ``heuristic:w_def=12,...``."""
    base, by_deal = PRESETS[preset]
    given = {k: v for k, v in weights.items() if v is not None}
    # weights given in the spec apply in every contract
    return HeuristicAgent(seed, {**base, **given}, {k: {**v, **given} for k, v in by_deal.items()})


class HeuristicAgent(SeededAgent, Explaining):
    """The deficiency-based scripted player (see the module docstring).

    It explains its decisions (:meth:`weigh`, :mod:`carioca_agents.explain`): its discard
    costs with what they are made of and what the hand keeps for, the deficiency or the
    lay-offs a draw leaves, how many cards each opening leaves stuck."""

    name = "heuristic"

    def __init__(
        self,
        seed: int = 0,
        params: dict[str, float] | None = None,
        by_deal: dict[int, dict[str, float]] | None = None,
    ) -> None:
        """``params`` override :data:`DEFAULT_PARAMS`; ``by_deal[k]`` overrides those
        again in contract ``k`` (the trio contracts want other weights than the runs)."""
        super().__init__(seed)
        self._base = dict(DEFAULT_PARAMS)
        if params:
            self._base.update(params)
        self._by_deal = {k: {**self._base, **v} for k, v in (by_deal or {}).items()}
        self.p = self._base

    # ------------------------------------------------------------------ protocol

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Choose one of ``legal`` from the seat's view only."""
        self._use_weights(view)
        kinds = {m.kind for m in legal}
        if MoveKind.DRAW_STOCK in kinds or MoveKind.DRAW_DISCARD in kinds:
            return self._draw(view, legal)
        opens = [m for m in legal if m.kind is MoveKind.OPEN]
        if opens:
            return self._choose_opening(view, opens)
        if view.opened[view.seat]:
            if MoveKind.LAY_OFF in kinds or MoveKind.SWAP in kinds:
                move = self._next_layoff(view, legal)
                if move is not None:
                    return move
            return self._discard_opened(view, legal)
        return self._discard_closed(view, legal)

    # ------------------------------------------------------------------ helpers

    def _use_weights(self, view: PlayerView) -> None:
        """Select the weights of ``view``'s contract (every public entry point starts here)."""
        self.p = self._by_deal.get(view.deal, self._base)

    def _pick_min(self, scored: list[tuple[float, Move]]) -> Move:
        best = min(s for s, _ in scored)
        tied = [m for s, m in scored if s <= best + 1e-9]
        return self.choose(tied)

    @staticmethod
    def _danger(view: PlayerView) -> float:
        """0..1: how likely another seat is to close soon."""
        d = 0.0
        for seat in range(view.num_players):
            if seat == view.seat or not view.opened[seat]:
                continue
            h = view.hand_sizes[seat]
            d = max(d, 1.0 if h <= 1 else 0.75 if h == 2 else 0.5 if h == 3 else 0.3)
        return d

    # ------------------------------------------------------------------ draw

    def _draw(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        forced = forced_draw(legal)
        if forced is not None:
            return forced
        take, stock = Move.draw_discard(), Move.draw_stock()
        top = view.top_discard
        counts = view.hand_counts
        if view.opened[view.seat]:
            table = sim_table(view)
            hand = [c for c, n in enumerate(counts) for _ in range(n)]
            with_top = plan_layoffs(hand + [top], table)[0]
            without = plan_layoffs(hand, table)[0]
            return take if with_top > without else stock
        now = analyze(counts, view.contract, want_outs=False).deficiency
        # the deficiency of counts_plus(counts, top), searched between now and now - 1
        after = deficiency_with(counts, top, view.contract)
        return take if after < now else stock

    # ------------------------------------------------------------------ opening

    def _choose_opening(self, view: PlayerView, opens: list[Move]) -> Move:
        tied = self._best_openings(view, opens)
        return self.choose(tied)

    def _best_openings(self, view: PlayerView, opens: list[Move]) -> list[Move]:
        """The openings of ``opens`` that leave the fewest cards stuck, then the fewest
        stuck points, then the fewest points in hand (this agent plays one of them)."""
        scored = self._opening_scores(view, opens)
        best = min(s for s, _ in scored)
        return [m for s, m in scored if s == best]

    def _opening_scores(self, view: PlayerView, opens: list[Move]) -> list[tuple[tuple[int, int, int], Move]]:
        """``((stuck cards, stuck points, points left), opening)`` of each of ``opens``."""
        base = sim_table(view)
        scored = []
        for move in opens:
            counts = list(view.hand_counts)
            for meld in move.melds:
                for c in meld.cards:
                    counts[c] -= 1
            left = [c for c, n in enumerate(counts) for _ in range(n)]
            table = base + [SimMeld(m, view.seat, len(view.table[view.seat]) + i) for i, m in enumerate(move.melds)]
            stuck = self._stuck_after(left, table)
            scored.append(((len(stuck), sum(PENALTY[c] for c in stuck), sum(PENALTY[c] for c in left)), move))
        return scored

    @staticmethod
    def _stuck_after(left: list[int], table: list[SimMeld]) -> list[int]:
        """Cards of ``left`` that cannot be laid off next turn, after this turn's discard
        of the worst of them."""
        if len(left) <= 1:
            return []
        _, _, steps = plan_layoffs(left, table)
        rest = list(left)
        for step in steps:
            rest.remove(step[1])
        # plan_layoffs keeps one card for the discard: that card may fit too
        if len(rest) == 1:
            return []
        rest.sort(key=lambda c: -PENALTY[c])
        return rest[1:]  # the highest-penalty stuck card is discarded now

    # ------------------------------------------------------------------ after opening

    def _next_layoff(self, view: PlayerView, legal: Sequence[Move]) -> Move | None:
        table = sim_table(view)
        hand = list(view.hand)
        shed, _, steps = plan_layoffs(hand, table)
        if not steps:
            return None
        kind, card, mi, end = steps[0]
        m = table[mi]
        e = None if end is None else End(end)
        if kind == "lay":
            move = Move.lay_off(card, m.owner, m.index, e)
        elif e is not None:  # a swap always names the run's end that frees the joker
            move = Move.swap(card, m.owner, m.index, e)
        else:
            return None
        if move in legal:
            return move
        sheds = [x for x in legal if x.kind in (MoveKind.LAY_OFF, MoveKind.SWAP)]
        return max(sheds, key=lambda x: PENALTY[x.card]) if sheds else None

    def _potential(self, card: int, table: list[SimMeld], unseen: list[int], jokers_in_hand: int) -> float:
        """Chance-like value that ``card`` fits a meld later (0..1)."""
        if card == JOKER:
            return 1.0
        best = 0.0
        s, r = suit_of(card), rank_of(card)
        for m in table:
            if m.kind is MeldKind.TRIO:
                if m.key == r:
                    return 1.0
                continue
            if m.key != s:
                continue
            for p in card_positions(card):
                if p < m.lo:
                    gap = range(p + 1, m.lo)
                elif p > m.hi:
                    gap = range(m.hi + 1, p)
                else:
                    continue
                d = len(gap)
                if d == 0:
                    return 1.0
                if d > 3:
                    continue
                # each missing card must come (2 copies at most) or a joker fills it
                v = 1.0
                for q in gap:
                    c = (s * 13 + (0 if q in (1, 14) else q - 1))
                    live = unseen[c] + 0.5 * unseen[JOKER] / 4 + (0.5 if jokers_in_hand else 0.0)
                    v *= min(1.0, 0.22 * live)
                best = max(best, v)
        return best

    def _discard_opened(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        if len(discards) == 1:
            return discards[0]
        return self._pick_min(self._opened_scores(view, discards))

    def ranked_discards(self, view: PlayerView, legal: Sequence[Move]) -> list[Move]:
        """The discards of ``legal``, best first by this agent's cost (for search's
        candidate moves); before opening, candidates pruned as hopeless come last."""
        self._use_weights(view)
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        if view.opened[view.seat]:
            scored = self._opened_scores(view, discards)
        else:
            by_card = {m.card: m for m in discards}
            scored = [(cost, by_card[c]) for cost, c in self._closed_costs(view, view.hand_counts, unseen_counts(view))]
        ranked = [m for _, m in sorted(scored, key=lambda x: (x[0], x[1].card))]
        return ranked + [m for m in discards if m not in ranked]

    def discard_costs(self, view: PlayerView) -> dict[int, float]:
        """Cost of discarding one copy of each card type the seat holds, by this agent's
        own reckoning (lower is better; the agent discards a type of the lowest cost).

        Before opening, a type pruned as hopeless gets the lower bound that pruned it,
        which is above the best cost.  For the ``advice`` observation piece
        (:mod:`carioca_agents.advice`); it reads the view only."""
        self._use_weights(view)
        held = [c for c, n in enumerate(view.hand_counts) if n]
        if view.opened[view.seat]:
            return {m.card: cost for cost, m in self._opened_scores(view, [Move.discard(c) for c in held])}
        return {c: cost for cost, c in self._closed_costs(view, view.hand_counts, unseen_counts(view), bounds=True)}

    def melds_now(self, view: PlayerView, choosing_opening: bool = False) -> bool:
        """Whether this agent, having drawn, would open, lay off or swap a joker rather
        than discard (``choosing_opening``: an opening is being chosen meld by meld):
        :meth:`act` opens whenever it can and lays off whenever a lay-off plan exists."""
        if view.phase is not Phase.PLAY:
            return False
        if not view.opened[view.seat]:
            return choosing_opening or can_open(view.hand_counts, view.contract)
        return bool(plan_layoffs(list(view.hand), sim_table(view))[2])

    def next_melds(self, view: PlayerView, pending: Sequence[Meld] = ()) -> list[Move | Meld]:
        """What this agent, having drawn, would play now instead of a discard, from the
        view alone: before opening, the next meld of each of its best openings that
        begin with ``pending`` (the melds of an opening chosen so far, in canonical
        order; it plays one of these openings, ties at random); after, the one lay-off or
        swap it plays next.  Empty when it would discard.  For the ``advice_play``
        observation piece (:mod:`carioca_agents.advice`)."""
        self._use_weights(view)
        if view.phase is not Phase.PLAY:
            return []
        legal = view_meld_moves(view)
        if not view.opened[view.seat]:
            k = len(pending)
            opens = [m for m in legal if m.melds[:k] == tuple(pending)]
            if not opens:
                return []
            return list(dict.fromkeys(m.melds[k] for m in self._best_openings(view, opens)))
        move = self._next_layoff(view, legal)
        return [] if move is None else [move]

    def takes_discard(self, view: PlayerView) -> bool:
        """Whether this agent, to draw, would take the top discard rather than the stock
        (when both are allowed)."""
        self._use_weights(view)
        return self._draw(view, (Move.draw_stock(), Move.draw_discard())) == Move.draw_discard()

    def _opened_scores(self, view: PlayerView, discards: list[Move]) -> list[tuple[float, Move]]:
        table = sim_table(view)
        unseen = unseen_counts(view)
        jokers = view.hand_counts[JOKER]
        nxt = (view.seat + 1) % view.num_players
        feed_open = view.opened[nxt]
        nxt_size = view.hand_sizes[nxt]
        hand_pen = sum(PENALTY[c] for c in view.hand)
        scored = []
        for m in discards:
            c = m.card
            pot = self._potential(c, table, unseen, jokers - (c == JOKER))
            cost = self.p["w_pot"] * pot - PENALTY[c] * 0.1
            if feed_open:
                cost += self._feed_cost(c, table, True, (), (), nxt_size, hand_pen - PENALTY[c])
            scored.append((cost, m))
        return scored

    # ------------------------------------------------------------------ before opening

    def _discard_closed(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        if len(discards) == 1:
            return discards[0]
        scored = self._closed_best(view, view.hand_counts, unseen_counts(view))
        by_card = {m.card: m for m in discards}
        move = self._pick_min([(cost, by_card[c]) for cost, c in scored])
        # the hand kept is the one this seat draws to next turn: its analysis (found
        # without a search when no optimal plan used the card) is cached for then
        analysis_without(view.hand_counts, move.card, view.contract)
        return move

    def _out_term(self, unseen: list[int]) -> tuple[Callable[[frozenset[int]], float], float]:
        """The outs part of a hand's cost (minus ``w_out`` per live out, capped) and its
        lowest possible value."""
        w, cap = self.p["w_out"], self.p["w_out_cap"]

        def linear(outs: frozenset[int]) -> float:
            live = sum(unseen[x] for x in outs)
            return -w * (cap if live > cap else live)

        return linear, -w * cap

    def _closed_costs(
        self, view: PlayerView, counts: Sequence[int], unseen: list[int], bounds: bool = False,
    ) -> list[tuple[float, int]]:
        """Cost of the hand left by each discard candidate of ``counts`` (before opening);
        outs are computed only for the candidates that can still win.  The others are
        left out, or with ``bounds`` listed at the lower bound that ruled them out.

        Every candidate the plan uses gets its deficiency: the explanations, the search's
        ranked candidates and the ``advice`` piece read these lists.  :meth:`act` needs
        only the lowest costs: :meth:`_closed_best` gives them with less work, and the
        tests compare the two."""
        p = self.p
        contract = view.contract
        whole, out_term, out_floor, scored, pending = self._closed_terms(view, counts, unseen)
        rest = []
        for other, c in pending:
            # the deficiency of counts_minus(counts, c), searched between whole's and one more
            d = deficiency_without(counts, c, contract)
            rest.append((p["w_def"] * d + other, d, c))
        # outs are computed only where they can change the choice
        rest.sort(key=lambda x: x[0])
        best = min((s for s, _ in scored), default=float("inf"))
        for i, (base, _, c) in enumerate(rest):
            if base + out_floor > best + 1e-9:
                if bounds:  # ruled out, and every later one too (sorted; best only falls)
                    scored += [(b + out_floor, x) for b, _, x in rest[i:]]
                break
            a = analyze(counts_minus(counts, c), contract)
            cost = base + out_term(a.outs)
            scored.append((cost, c))
            if cost < best:
                best = cost
        return scored

    def _closed_best(self, view: PlayerView, counts: Sequence[int], unseen: list[int]) -> list[tuple[float, int]]:
        """The fast path of :meth:`_closed_costs` for :meth:`act`: the same costs of every
        candidate within ``1e-9`` of the lowest, in the same order (so :meth:`_pick_min`
        ties them and draws from the generator alike); candidates that cannot come that
        close may be left out.

        :meth:`_closed_costs` searches the deficiency of every candidate the plan uses
        (about nine a decision, most of the heuristic's time on hands not seen before).
        Here each candidate is first bounded from below without a search: its hand
        misses at least the whole hand's cards, and if no more, its outs are among the
        whole hand's (a card ``x`` that completes one more contract card of the smaller
        hand does so in the whole hand too: its outs term is at least the whole hand's);
        if one more, its outs term is at least ``out_floor``.  Taken cheapest bound
        first, the work stops at the first bound above the lowest cost found so far
        (which only falls).  A candidate left out costs more than the lowest cost, so it
        is never tied with it; the candidates kept are ordered as :meth:`_closed_costs`
        orders them (by deficiency and other terms, then card)."""
        p = self.p
        contract = view.contract
        whole, out_term, out_floor, scored, pending = self._closed_terms(view, counts, unseen)
        w_def, missing = p["w_def"], whole.deficiency
        whole_out = out_term(whole.outs)
        # the outs term's bound at the whole hand's deficiency and at one more
        bound_same, bound_more = whole_out, out_floor
        floor = min(w_def * missing + bound_same, w_def * (missing + 1) + bound_more)
        best = min((s for s, _ in scored), default=float("inf"))
        pending.sort(key=itemgetter(0))  # stable: card order among equal terms
        rest = []
        for other, c in pending:
            # 2e-9: a bound summed in another order may round a hair above the cost
            if floor + other > best + 2e-9:
                break  # and every later one (sorted; best only falls)
            d = deficiency_without(counts, c, contract)
            base = w_def * d + other
            if base + (bound_same if d == missing else bound_more) > best + 2e-9:
                continue
            a = analyze(counts_minus(counts, c), contract)
            cost = base + out_term(a.outs)
            rest.append((base, c, cost))
            if cost < best:
                best = cost
        # _closed_costs's order: by base, then card (pending was in card order)
        rest.sort(key=itemgetter(0, 1))
        return scored + [(cost, c) for _, c, cost in rest]

    def _closed_terms(
        self, view: PlayerView, counts: Sequence[int], unseen: list[int],
    ) -> tuple[Any, Callable[[frozenset[int]], float], float, list[tuple[float, int]], list[tuple[float, int]]]:
        """What :meth:`_closed_costs` and :meth:`_closed_best` share: the whole hand's
        analysis, the outs term and its floor, the exact ``(cost, card)`` of the
        candidates no optimal plan uses (in card order), and ``(other terms, card)`` of
        the others (in card order): everything but their deficiency and outs."""
        p = self.p
        contract = view.contract
        table = sim_table(view)
        fits_table = set()
        for t in table:
            fits_table.update(t.needs())
        danger = self._danger(view)
        w_pen = p["w_pen"] + danger * p["w_pen_danger"]
        nxt = (view.seat + 1) % view.num_players
        nxt_open = view.opened[nxt]
        nxt_size = view.hand_sizes[nxt]
        picked = view.picked_from_discard[nxt] if view.num_players > 1 else ()
        nxt_discarded = view.discarded[nxt]
        hand_pen = sum(map(mul, counts, PENALTY))
        table_pen = {f: (1.0 - p["w_table_keep"]) * PENALTY[f] for f in fits_table if counts[f]}
        table_pen_sum = sum(table_pen.values())
        whole = analyze(counts, contract)
        out_term, out_floor = self._out_term(unseen)
        whole_out = out_term(whole.outs)
        # cards that lay off right after opening (none in deals 6 and 7: opening closes)
        closes = sum(counts) - 1 <= contract.cards
        later = set() if closes else set(fits_table)
        if not closes and p["w_ext"]:
            ext = whole.extensions()
            if not p.get("ext_runs", 1.0):
                ext = frozenset(x for x in ext if x == JOKER or rank_of(x) in whole.plan_ranks)
            later |= ext
        pending: list[tuple[float, int]] = []
        scored: list[tuple[float, int]] = []
        for c in compress(range(len(counts)), counts):  # the types held, in card order
            pen_left = hand_pen - PENALTY[c] - table_pen_sum + (table_pen.get(c, 0.0) if counts[c] == 1 else 0.0)
            other = w_pen * pen_left + self._feed_cost(c, table, nxt_open, picked, nxt_discarded, nxt_size, pen_left)
            if c in later:
                other += p["w_ext"]
            if c not in whole.used_types:
                # no optimal plan uses it: deficiency and outs stay those of the hand
                scored.append((p["w_def"] * whole.deficiency + whole_out + other, c))
                continue
            pending.append((other, c))
        return whole, out_term, out_floor, scored, pending

    def _feed_cost(
        self, c: int, table: list[SimMeld], nxt_open: bool, picked: Sequence[int],
        nxt_discarded: Sequence[int], nxt_size: int, pen_left: float,
    ) -> float:
        """Cost of handing ``c`` to the next player, who may take the top discard.

        An opened player lays a fitting card off at once: one card fewer to shed, and
        with one card in hand that closes the deal, so the cost grows with what this
        seat would then pay.  An unopened player is judged by the cards it took from
        the discard pile (its ranks and neighbours) and those it threw away."""
        p = self.p
        cost = 0.0
        if nxt_open:
            if c == JOKER or any(t.fits(c) for t in table):
                closeness = 1.0 if nxt_size <= 1 else 0.4 if nxt_size == 2 else 0.15 if nxt_size == 3 else 0.0
                cost += p["w_feed_open"] + p["w_feed_close"] * closeness * pen_left
            return cost
        if c == JOKER:
            return p["w_feed_rank"] * 2
        r, s = rank_of(c), suit_of(c)
        for x in picked:
            if x == JOKER:
                continue
            if rank_of(x) == r:
                cost += p["w_feed_rank"]
            elif suit_of(x) == s and abs(rank_of(x) - r) <= 2:
                cost += p["w_feed_suit"]
        if nxt_discarded[c]:
            cost -= 0.5 * p["w_feed_suit"]
        return cost


    # ------------------------------------------------------------------ explanations

    def weigh(self, view: PlayerView, legal: Sequence[Move], move: Move) -> Explanation:
        """What this agent weighed to play ``move`` (a decision with a real choice), from
        the view alone and without drawing from its generator: a draw's deficiency (or
        lay-offs, once opened) each way, each discard's cost and what it is made of, each
        opening's stuck cards, a lay-off plan's length."""
        self._use_weights(view)
        if move.kind in (MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD):
            return self._explain_draw(view, move)
        if move.kind is MoveKind.OPEN:
            return self._explain_opening(view, [m for m in legal if m.kind is MoveKind.OPEN], move)
        if move.kind in (MoveKind.LAY_OFF, MoveKind.SWAP):
            return self._explain_layoff(view, legal, move)
        discards = [m for m in legal if m.kind is MoveKind.DISCARD]
        if view.opened[view.seat]:
            return self._explain_opened_discard(view, discards, move)
        return self._explain_closed_discard(view, move)

    def _explain_draw(self, view: PlayerView, move: Move) -> Explanation:
        top = view.top_discard
        counts = view.hand_counts
        take, stock = str(Move.draw_discard()), str(Move.draw_stock())
        if view.opened[view.seat]:
            table = sim_table(view)
            hand = [c for c, n in enumerate(counts) for _ in range(n)]
            with_top = plan_layoffs(hand + [top], table)[0]
            without = plan_layoffs(hand, table)[0]
            cands = [Candidate(take, with_top, f"with {card_str(top)}: lays off {with_top}"),
                     Candidate(stock, without, f"lays off {without} now (the stock card unknown)")]
            return Explanation.build(self.name, "cost", "cards laid off this turn after the draw", "higher",
                                     ranked(cands, "higher", move), move,
                                     "takes the top discard only when it adds a lay-off")
        now = analyze(counts, view.contract, want_outs=False).deficiency
        after = deficiency_with(counts, top, view.contract)  # as act reckons it
        cands = [Candidate(take, after, f"with {card_str(top)}: {_missing(after)}"),
                 Candidate(stock, now, f"{_missing(now)} now (the stock card unknown)")]
        return Explanation.build(self.name, "cost", f"deficiency after the draw: cards still missing for {view.contract}",
                                 "lower", ranked(cands, "lower", move), move,
                                 "takes the top discard only when it lowers the deficiency")

    def _explain_opening(self, view: PlayerView, opens: list[Move], move: Move) -> Explanation:
        scored = sorted(self._opening_scores(view, opens), key=lambda x: (x[0], x[1] != move))
        cands = [Candidate(str(m), stuck + stuck_pts / 1000.0,
                           f"{stuck} cards stuck ({stuck_pts} points), {left} points in hand")
                 for (stuck, stuck_pts, left), m in scored]
        return Explanation.build(self.name, "cost", "cards left stuck after the opening (then their points)",
                                 "lower", cands, move, "opens as soon as it can; ties go to the fewest points")

    def _explain_layoff(self, view: PlayerView, legal: Sequence[Move], move: Move) -> Explanation:
        shed, _, steps = plan_layoffs(list(view.hand), sim_table(view))
        others = [m for m in legal if m.kind in (MoveKind.LAY_OFF, MoveKind.SWAP) and m != move]
        cands = [Candidate(str(move), shed, f"the first of {len(steps)} planned lay-offs and swaps")]
        cands += [Candidate(str(m), 0.0, "not the plan's next step") for m in others]
        return Explanation.build(self.name, "rule", "cards the lay-off plan sheds this turn", "higher", cands, move,
                                 "lays off as many cards as it can, in the order a run needs")

    def _explain_opened_discard(self, view: PlayerView, discards: list[Move], move: Move) -> Explanation:
        table = sim_table(view)
        unseen = unseen_counts(view)
        jokers = view.hand_counts[JOKER]
        scores = self._opened_scores(view, discards)
        cands = []
        for cost, m in scores:
            c = m.card
            pot = self._potential(c, table, unseen, jokers - (c == JOKER))
            cands.append(Candidate(str(m), cost, f"chance to fit later {pot:.2f}, {PENALTY[c]} points"))
        return Explanation.build(self.name, "cost", "cost of discarding the card: its chance to fit a meld later, "
                                 "less its points", "lower", ranked(cands, "lower", move), move,
                                 "opened: keeps the cards likely to lay off later")

    def _explain_closed_discard(self, view: PlayerView, move: Move) -> Explanation:
        counts = view.hand_counts
        unseen = unseen_counts(view)
        contract = view.contract
        exact = {c for _, c in self._closed_costs(view, counts, unseen)}
        costs = self._closed_costs(view, counts, unseen, bounds=True)
        whole = analyze(counts, contract)
        kept = self._kept_for_later(view, counts, whole)
        cands = []
        for cost, c in ranked_costs(costs, move.card):
            parts = []
            if c in whole.used_types:
                d = analyze(counts_minus(counts, c), contract, want_outs=False).deficiency
                parts.append(f"breaks the plan: {whole.deficiency}->{d} missing" if d > whole.deficiency
                             else "in a plan, another plan keeps the deficiency")
            else:
                parts.append("in no optimal plan")
            if c in kept:
                parts.append("a sure lay-off after opening")
            if c not in exact:
                parts.append("pruned: a lower bound")
            parts.append(f"{PENALTY[c]} points")
            cands.append(Candidate(str(Move.discard(c)), cost, ", ".join(parts)))
        return Explanation.build(self.name, "cost", "cost of the hand left: 10 per card missing, less live outs, "
                                 "plus points at risk, feeding and lost lay-offs", "lower", cands, move,
                                 f"keeps for {plan_text(whole)}: {whole.deficiency} cards missing for {contract}")

    def _kept_for_later(self, view: PlayerView, counts: Sequence[int], whole: Any) -> set[int]:
        """The cards :meth:`_closed_costs` charges ``w_ext`` for discarding: sure lay-offs
        right after the opening (the same rule, for the explanation only)."""
        if sum(counts) - 1 <= view.contract.cards:
            return set()  # deals 6 and 7: opening closes
        later = set()
        for t in sim_table(view):
            later.update(t.needs())
        if self.p["w_ext"]:
            ext = whole.extensions()
            if not self.p.get("ext_runs", 1.0):
                ext = frozenset(x for x in ext if x == JOKER or rank_of(x) in whole.plan_ranks)
            later |= ext
        return later


def ranked_costs(costs: list[tuple[float, int]], played: int) -> list[tuple[float, int]]:
    """``(cost, card)`` lowest first, the card played first among equal costs."""
    return sorted(costs, key=lambda x: (x[0], x[1] != played, x[1]))


def plan_text(whole: Any) -> str:
    """The hand's optimal plans in a few words: the trio ranks and the run windows."""
    parts = []
    if whole.plan_ranks:
        parts.append("trios of " + " ".join(RANK_NAMES[r - 1] for r in sorted(whole.plan_ranks)))
    if whole.plan_windows:
        runs = sorted(whole.plan_windows)[:4]
        parts.append("runs " + " ".join(f"{SUIT_LETTERS[s]}{_pos(lo)}-{_pos(lo + 3)}" for s, lo in runs))
    return "; ".join(parts) or "no plan yet"


def _missing(n: int) -> str:
    return f"{n} card{'' if n == 1 else 's'} missing"


def _pos(p: int) -> str:
    """A run position (1 = the low ace .. 14 = the high ace) as a rank name."""
    return RANK_NAMES[(p - 1) % 13]


#: The spec keys of ``heuristic`` (carioca_agents.registry.Param values).
HEURISTIC_PARAMS = _heuristic_params()
