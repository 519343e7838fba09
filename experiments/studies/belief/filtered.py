"""The filtered belief: a particle filter that explains every opponent turn of the deal.

:mod:`carioca_agents.belief.inferred` weights candidate hands by each opponent's *last* turn only.
:class:`FilteredBelief` explains all of them.  It runs a particle filter (sequential
importance resampling with Metropolis-Hastings rejuvenation) over the opponents' hands
along the deal's public history, under the model of :mod:`carioca_agents.belief.inferred`: the
cards are dealt uniformly at random and each opponent plays the heuristic with
probability ``1 - eps``, else a uniform legal move.

**What a particle is.**  For each opponent, its whole hand now and, for each copy it holds
that it did not take from the discard pile, the turn it arrived (0: dealt; ``k``: drawn
from the stock on its ``k``-th turn), with the hand after each of its turns and the card
each stock draw brought.  The cards taken from the pile are public
(``PlayerView.known_cards``), so a particle's hidden part is exactly those arrivals.

**The filter reads the public history only.**  At the deal's start each particle deals
the opponents' hands uniformly from the deck minus the pile's first card (the viewing
seat's hand is not used: it is not public).  Each complete opponent turn, in the order
played, is one step: a stock draw's card is drawn uniformly from the cards not public
then and not in the particle's hands, restricted to the cards that let the turn's melds,
lay-offs and discard come from the hand (so a particle is not killed by a discard it
could explain; the importance weight takes the restriction's prior mass); the weight is
multiplied by the turn's likelihood (:func:`carioca_agents.belief.inferred.turn_likelihood` with
the drawn card given).  When the effective sample size falls below
:data:`RESAMPLE_AT` of the pool the particles are resampled (systematic).  After every
step each particle gets ``moves`` Metropolis-Hastings moves on the opponent that just
played: one of its hidden copies that arrived within its last ``window`` turns (None:
any) is swapped for a copy not public and not in the particle's hands, drawn with
weight :func:`related_weights` (cards that make a meld with the cards it took from the
pile weigh more, so that its pile takes get explained); the turns since the swapped
copy's arrival are explained again, and the move is accepted with the ratio of their
likelihoods times the Hastings ratio of the draw (the prior is uniform over physical
cards).  A move is rejected as soon as the turns left could not make up the likelihood
already lost.

So the filter's state after a prefix of the history is a function of that prefix and
:data:`FILTER_SEED` alone (each step draws from a generator seeded by the seat and the
prefix's length): it is cached by prefix, a new decision processes only the opponent
turns since the cached prefix, and a cold start (a view seen for the first time)
replays the history to the same state.

**The seat's own cards enter at the end.**  Given the filter's particles, the seat's
cards that are not public (its hand minus the cards it took from the pile) are a uniform
draw from the cards left unpublic by the particle: each particle's weight is multiplied
by that (multivariate hypergeometric) probability, which is 0 for a particle whose
opponents hold copies the seat holds.  :meth:`FilteredBelief.expected_hidden` is the
weighted mean of the particles' hidden counts, :meth:`FilteredBelief.sample` draws a
particle by weight with the caller's generator and deals the stock from the other unseen
cards in an order from it.

**Where it falls back to its base belief** (``learned`` unless told): a view whose
history has a recycle of the discard pile (the pile before it is not in the view), whose
history does not replay to its own table and sizes, a view taken in the middle of an
opponent's turn (not one of the seat's decisions: the filter steps by whole turns), or
where no particle is consistent with the seat's hand.  :attr:`FilteredBelief.fallbacks` counts them.

**Repairs.**  A turn can show hidden cards a particle does not hold (an opening shows
several at once), which would kill it, and with a few dozen particles kill them all.  Such a
particle is moved instead (an SMC-sampler step, Del Moral, Doucet and Jasra 2006): each
missing card beyond the one its stock draw can bring is swapped into the hand for a
hidden copy the turn does not show, chosen uniformly, and the turns since that copy's
arrival are explained again.  The weight is that of the move against a backward kernel
that keeps a particle with probability :data:`KEEP` and otherwise undoes such swaps (picks
shown copies back and draws their replacements from the pool); with equal arrival labels
(dealt cards) it counts a move's orderings as distinct, an approximation.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from carioca_agents.belief import Belief
from carioca_agents.belief.inferred import (
    DEFAULT_EPS,
    DEFAULT_POOL,
    OpponentTurn,
    PublicState,
    replay_states,
    shown_cards,
    turn_likelihood,
)
from carioca_agents.belief.sampling import game_with_hidden
from carioca_agents.heuristic import HeuristicAgent
from carioca_env import Game, PlayerView
from carioca_env.cards import JOKER, NUM_CARD_TYPES, cards_of, deck_counts, rank_of, suit_of
from carioca_env.determinize import unseen_pool

#: The seed of every filter step (with the seat and the prefix's length).
FILTER_SEED = 20261206
#: Resample when the effective sample size falls below this share of the pool.
RESAMPLE_AT = 0.5
#: Rejuvenation swaps only cards that arrived within the opponent's last this-many turns (None: any).
DEFAULT_WINDOW: int | None = None
#: The backward kernel's chance of keeping a particle that needed no repair (see the module docstring).
KEEP = 0.5
#: Metropolis-Hastings moves per particle after each step.
DEFAULT_MOVES = 1
#: The extra weight of a card per pile take it would make a meld with (:func:`related_weights`).
RELATED_WEIGHT = 4.0
#: Deals whose filter states are kept (search and measurement visit few at once).
CACHED_DEALS = 4

_DECK = tuple(deck_counts())


@dataclass(frozen=True)
class TurnRecord:
    """One explained opponent turn of a particle.

    Attributes:
        turn: the turn (its events and the public state before each).
        ordinal: which of the opponent's turns it is (1 for its first).
        hand: the opponent's whole hand after it (53 counts).
        drawn: the card its stock draw brought (None: it took the pile's top).
        log_like: the log-likelihood of the turn's moves.
    """

    turn: OpponentTurn
    ordinal: int
    hand: tuple[int, ...]
    drawn: int | None
    log_like: float


@dataclass(frozen=True)
class Particle:
    """One guess of the opponents' hands along the deal (see the module docstring).

    Attributes:
        hands: per seat, its whole hand now (53 counts; empty for the viewing seat).
        arrivals: per seat, ``(card, ordinal)`` for each copy of its hidden part: the
            ordinal of its turn whose stock draw brought it, 0 if dealt.
        records: per seat, its explained turns in order.
    """

    hands: tuple[tuple[int, ...], ...]
    arrivals: tuple[tuple[tuple[int, int], ...], ...]
    records: tuple[tuple[TurnRecord, ...], ...]

    def hidden(self, seat: int) -> list[int]:
        """``seat``'s hidden counts (53) in this particle."""
        out = [0] * NUM_CARD_TYPES
        for c, _ in self.arrivals[seat]:
            out[c] += 1
        return out


@dataclass(frozen=True)
class FilterState:
    """The filter after a prefix of the history.

    Attributes:
        length: the events of the history processed (the prefix's length).
        particles: the particles.
        log_weights: per particle, its log importance weight (from the last resampling).
        resamples: resamplings so far in the deal.
    """

    length: int
    particles: tuple[Particle, ...]
    log_weights: tuple[float, ...]
    resamples: int

    @property
    def effective_size(self) -> float:
        """The effective sample size of the weights, ``1 / sum(w^2)`` (0 if none is possible)."""
        return effective_size(np.array(self.log_weights))


def effective_size(log_weights: np.ndarray) -> float:
    """``1 / sum(w^2)`` of the normalised ``exp(log_weights)``; 0 when every weight is 0."""
    top = log_weights.max() if len(log_weights) else -math.inf
    if not np.isfinite(top):
        return 0.0
    w = np.exp(log_weights - top)
    w /= w.sum()
    return float(1.0 / np.square(w).sum())


def public_counts(state: PublicState) -> list[int]:
    """The cards public just before ``state``'s event (53 counts): the discard pile, the
    table and every seat's surely-held cards."""
    out = [0] * NUM_CARD_TYPES
    for c in state.discard_pile:
        out[c] += 1
    for melds in state.table:
        for m in melds:
            for c in m.cards:
                out[c] += 1
    for known in state.known_cards:
        for c, k in enumerate(known):
            out[c] += k
    return out


def view_public_counts(view: PlayerView) -> list[int]:
    """The cards public in ``view`` (53 counts): the pile, the table and every seat's
    surely-held cards (the deck minus :func:`unseen_pool` and the seat's other cards)."""
    unseen = unseen_pool(view)
    private = [h - k for h, k in zip(view.hand_counts, view.known_cards[view.seat])]
    return [d - u - p for d, u, p in zip(_DECK, unseen, private)]


def opponent_turns(view: PlayerView, start: int) -> list[tuple[int, int, int]]:
    """The complete opponent turns of ``view``'s history that start at or after event
    ``start``: ``(seat, first event, last event)`` from its draw to its discard, in order."""
    history = view.history
    out = []
    begin: dict[int, int] = {}
    for i in range(start, len(history)):
        ev = history[i]
        if ev.seat == view.seat:
            continue
        if ev.kind in ("DRAW_STOCK", "DRAW_DISCARD"):
            begin[ev.seat] = i
        elif ev.kind == "DISCARD" and ev.seat in begin:
            out.append((ev.seat, begin.pop(ev.seat), i))
    return out


def known_after_draw(turn: OpponentTurn) -> list[int]:
    """The cards ``turn``'s seat surely holds after its draw (53 counts): a pile take's card is one."""
    known = list(turn.steps[0].known_cards[turn.seat])
    if turn.events[0].kind == "DRAW_DISCARD":
        known[turn.events[0].card] += 1
    return known


def log_choose(n: int, k: int) -> float:
    """``log C(n, k)`` (-inf when ``k > n``)."""
    if k > n:
        return -math.inf
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


class FilteredBelief(Belief):
    """A particle filter over the opponents' hands through the deal (see the module docstring).

    Attributes:
        base: the belief used where the filter cannot be (see the module docstring).
        pool: particles.
        eps: weight of a uniform legal move in the assumed opponent policy (0 < eps <= 1).
        window: rejuvenation swaps cards that arrived within this many of the opponent's
            last turns (None: any).
        moves: Metropolis-Hastings moves per particle after each step (0: none).
        fallbacks: views answered by the base belief so far.
    """

    name = "filtered"

    def __init__(self, base: Belief, pool: int = DEFAULT_POOL, eps: float = DEFAULT_EPS,
                 window: int | None = DEFAULT_WINDOW, moves: int = DEFAULT_MOVES,
                 policy: HeuristicAgent | None = None) -> None:
        if pool < 1 or not 0 < eps <= 1 or (window is not None and window < 1) or moves < 0:
            raise ValueError(f"pool must be >= 1, eps in (0, 1], window None or >= 1 and moves >= 0, "
                             f"got {pool}, {eps}, {window} and {moves}")
        self.base, self.pool, self.eps, self.window, self.moves = base, pool, eps, window, moves
        self.policy = policy if policy is not None else HeuristicAgent(0)
        self.fallbacks = 0
        # per deal key: the events processed and the states after each processed turn
        self._chains: OrderedDict[tuple[object, ...], tuple[tuple[object, ...], list[FilterState]]] = OrderedDict()
        self._last: tuple[PlayerView, tuple[np.ndarray, tuple[Particle, ...]] | None] | None = None

    # ------------------------------------------------------------------ the filter

    def state(self, view: PlayerView) -> FilterState | None:
        """The filter after every complete opponent turn of ``view``'s history (cached by
        prefix); None where the filter cannot run (a recycle, a history that does not
        replay to the view)."""
        history = tuple(view.history)
        if any(ev.kind == "recycle" for ev in history):
            return None
        first = replay_states(view, {0}) if history else {}
        if first is None:
            return None
        upcard = first[0].discard_pile[0] if history else view.discard_pile[0]
        key = (view.seat, view.num_players, view.deal_index, view.dealer, view.contract.number, upcard)
        events, states = self._chains.get(key, ((), []))
        common = 0
        for old, new in zip(events, history):
            if old != new:
                break
            common += 1
        states = [s for s in states if s.length <= common]
        current = states[-1] if states else self._initial(view, upcard)
        todo = opponent_turns(view, current.length)
        if todo:
            steps = replay_states(view, {i for _, a, b in todo for i in range(a, b + 1)})
            if steps is None:
                return None
            for seat, start, end in todo:
                turn = OpponentTurn(seat, history[start:end + 1], tuple(steps[i] for i in range(start, end + 1)))
                current = self._step(view, current, turn, end + 1)
                states.append(current)
        self._chains[key] = (history, states)
        self._chains.move_to_end(key)
        while len(self._chains) > CACHED_DEALS:
            self._chains.popitem(last=False)
        return current

    def _initial(self, view: PlayerView, upcard: int) -> FilterState:
        """The opponents' dealt hands, uniform from the deck minus the pile's first card."""
        rng = random.Random(f"{FILTER_SEED}:{view.seat}:0")
        left = list(_DECK)
        left[upcard] -= 1
        copies = cards_of(left)
        size = view.contract.hand_size
        opponents = [s for s in range(view.num_players) if s != view.seat]
        particles = []
        for _ in range(self.pool):
            dealt = rng.sample(copies, size * len(opponents))
            hands: list[tuple[int, ...]] = [()] * view.num_players
            arrivals: list[tuple[tuple[int, int], ...]] = [()] * view.num_players
            for j, s in enumerate(opponents):
                cards = sorted(dealt[j * size:(j + 1) * size])
                h = [0] * NUM_CARD_TYPES
                for c in cards:
                    h[c] += 1
                hands[s], arrivals[s] = tuple(h), tuple((c, 0) for c in cards)
            particles.append(Particle(tuple(hands), tuple(arrivals), ((),) * view.num_players))
        return FilterState(0, tuple(particles), (0.0,) * self.pool, 0)

    def _step(self, view: PlayerView, state: FilterState, turn: OpponentTurn, length: int) -> FilterState:
        """``state`` moved on by one opponent turn (ending at event ``length - 1``)."""
        rng = random.Random(f"{FILTER_SEED}:{view.seat}:{length}")
        public = public_counts(turn.steps[0])
        moved = []
        logs = []
        for p, lw in zip(state.particles, state.log_weights):
            q, dl = self._extend(view, p, turn, public, rng) if np.isfinite(lw) else (p, -math.inf)
            moved.append(q)
            logs.append(lw + dl)
        log_w = np.array(logs)
        resamples = state.resamples
        if not np.isfinite(log_w.max()):
            return FilterState(length, tuple(moved), tuple(float(x) for x in log_w), resamples)
        if effective_size(log_w) < RESAMPLE_AT * self.pool:
            moved = [moved[j] for j in systematic(log_w, self.pool, rng)]
            log_w = np.zeros(self.pool)
            resamples += 1
        if self.moves:
            related = related_weights(turn.steps[-1].picked_from_discard[turn.seat])
            for _ in range(self.moves):
                moved = [self._rejuvenate(view, p, turn, related, rng) if np.isfinite(lw) else p
                         for p, lw in zip(moved, log_w)]
        return FilterState(length, tuple(moved), tuple(float(x) for x in log_w), resamples)

    def _extend(self, view: PlayerView, p: Particle, turn: OpponentTurn, public: Sequence[int],
                rng: random.Random) -> tuple[Particle, float]:
        """Particle ``p`` through ``turn``: its stock draw proposed (see the module
        docstring) and the log of (prior mass of the proposal's support x likelihood)."""
        s = turn.seat
        pool = [d - u for d, u in zip(_DECK, public)]
        for o in range(view.num_players):
            for c, _ in p.arrivals[o]:
                pool[c] -= 1
        if min(pool) < 0:  # the particle holds copies that have since been shown
            return p, -math.inf
        # the hidden copies the turn shows (a shown card surely held is that copy)
        known = known_after_draw(turn)
        need = [0] * NUM_CARD_TYPES
        for ev in turn.events[1:]:
            for c in shown_cards(ev):
                if known[c]:
                    known[c] -= 1
                else:
                    need[c] += 1
        hidden = p.hidden(s)
        missing = [c for c in range(NUM_CARD_TYPES) for _ in range(max(0, need[c] - hidden[c]))]
        draw = turn.events[0]
        stock = draw.kind == "DRAW_STOCK"
        # the stock draw brings one missing card; a repair swaps the others into the hand
        repaired = self._repair(view, p, s, missing[1:] if stock else missing, need, pool, rng)
        if repaired is None:
            return p, -math.inf
        p, pool, log_w = repaired
        arrivals = list(p.arrivals[s])
        hand = list(p.hands[s])
        ordinal = len(p.records[s]) + 1
        drawn: int | None = None
        if not stock:
            hand[draw.card] += 1
        else:
            total = sum(pool)
            if total == 0 or (missing and pool[missing[0]] == 0):
                return p, -math.inf
            if missing:
                drawn = missing[0]
                log_w += math.log(pool[drawn] / total)
            else:
                drawn = pick_copy(pool, rng.random() * total)
            hand[drawn] += 1
            arrivals.append((drawn, ordinal))
        known = known_after_draw(turn)
        for ev in turn.events[1:]:
            for c in shown_cards(ev):
                hand[c] -= 1
                if known[c]:
                    known[c] -= 1
                else:  # the latest-arrived copy leaves (copies of a card are alike)
                    k = max(j for j, (a, _) in enumerate(arrivals) if a == c)
                    arrivals.pop(k)
        like = turn_likelihood(view, turn, hand, self.policy, self.eps, drawn)
        ll = math.log(like) if like > 0 else -math.inf
        rec = TurnRecord(turn, ordinal, tuple(hand), drawn, ll)
        out = Particle(_put(p.hands, s, tuple(hand)), _put(p.arrivals, s, tuple(arrivals)),
                       _put(p.records, s, p.records[s] + (rec,)))
        return out, log_w + ll

    def _repair(self, view: PlayerView, p: Particle, s: int, missing: Sequence[int], need: Sequence[int],
                pool: Sequence[int], rng: random.Random) -> tuple[Particle, list[int], float] | None:
        """``p`` with each card of ``missing`` swapped into seat ``s``'s hidden hand for a
        hidden copy the turn does not show (chosen uniformly), the pool after, and the log
        of the SMC-sampler weight of the move (see the module docstring); None when a
        missing card has no copy left.  With nothing missing: ``p`` itself, weighted by
        the backward kernel's chance of keeping it."""
        if not missing:
            return p, list(pool), math.log(KEEP)
        pool = list(pool)
        log_w = math.log(1.0 - KEEP) + math.lgamma(len(missing) + 1)
        shown = sum(need)
        for i, m in enumerate(missing):
            if pool[m] < 1:
                return None
            hidden = p.hidden(s)
            spare = [j for j, (c, _) in enumerate(p.arrivals[s]) if hidden[c] > need[c]]
            if not spare:
                return None
            j = spare[int(rng.random() * len(spare))]
            x = p.arrivals[s][j][0]  # not m: m is short, x is spare
            # forward: this hidden copy (1 / spare) and this copy of m (1 / pool[m]); backward:
            # pick the shown copy back (1 / (shown - i)) and draw x from the pool after, any
            # card but m (the pool after the swap has one copy of m fewer and one of x more)
            after = sum(pool) - pool[m] + 1
            log_w += math.log(len(spare) * pool[m]) - math.log((shown - i) * after)
            swapped = self._swap(view, p, s, j, m)
            if swapped is None:
                return None
            p, delta = swapped
            log_w += delta
            pool[m] -= 1
            pool[x] += 1
        return p, pool, log_w

    def _rejuvenate(self, view: PlayerView, p: Particle, turn: OpponentTurn, related: Sequence[float],
                    rng: random.Random) -> Particle:
        """One Metropolis-Hastings swap of ``p``'s hand of ``turn``'s seat (see the module
        docstring); ``related`` weighs the card swapped in."""
        s = turn.seat
        now = len(p.records[s])
        eligible = [j for j, (_, a) in enumerate(p.arrivals[s]) if self.window is None or a > now - self.window]
        if not eligible:
            return p
        last = turn.steps[-1]
        public = public_counts(last)
        disc = turn.events[-1].card
        public[disc] += 0 if last.known_cards[s][disc] else 1  # a surely-held discard was counted already
        pool = [d - u for d, u in zip(_DECK, public)]
        for o in range(view.num_players):
            for c, _ in p.arrivals[o]:
                pool[c] -= 1
        mass = [k * r for k, r in zip(pool, related)]
        total = sum(mass)
        j = eligible[int(rng.random() * len(eligible))]
        y = pick_copy(mass, rng.random() * total) if total > 0 else -1
        u = rng.random()
        x, a = p.arrivals[s][j]
        if y < 0 or y == x:
            return p
        # Hastings: drawing this copy of y, against drawing back a copy of x from the pool after the swap
        delta = math.log(related[x] / (total - related[y] + related[x])) - math.log(related[y] / total)
        threshold = (math.log(u) if u > 0 else -math.inf) - delta
        swapped = self._swap(view, p, s, j, y, threshold)
        return p if swapped is None or swapped[1] < threshold else swapped[0]

    def _swap(self, view: PlayerView, p: Particle, s: int, j: int, y: int,
              floor: float = -math.inf) -> tuple[Particle, float] | None:
        """``p`` with seat ``s``'s hidden copy ``j`` (of its arrivals) replaced by a ``y``
        that arrived when it did, and the change in the log-likelihood of the turns since
        (explained again, newest first); None as soon as that change cannot end above
        ``floor`` (a turn's likelihood can rise to 1 at most)."""
        x, a = p.arrivals[s][j]
        records = list(p.records[s])
        affected = [r for r, rec in enumerate(records) if rec.ordinal >= max(a, 1)]
        headroom = -sum(records[r].log_like for r in affected)
        delta = 0.0
        for r in reversed(affected):
            rec = records[r]
            headroom += rec.log_like
            hand = list(rec.hand)
            hand[x] -= 1
            hand[y] += 1
            drawn = y if rec.ordinal == a else rec.drawn
            like = turn_likelihood(view, rec.turn, hand, self.policy, self.eps, drawn)
            ll = math.log(like) if like > 0 else -math.inf
            delta += ll - rec.log_like
            records[r] = replace(rec, hand=tuple(hand), drawn=drawn, log_like=ll)
            if delta + headroom < floor or delta == -math.inf:
                return None
        hand = list(p.hands[s])
        hand[x] -= 1
        hand[y] += 1
        arrivals = list(p.arrivals[s])
        arrivals[j] = (y, a)
        return Particle(_put(p.hands, s, tuple(hand)), _put(p.arrivals, s, tuple(arrivals)),
                        _put(p.records, s, tuple(records))), delta

    # ------------------------------------------------------------------ the seat's cards

    def posterior(self, view: PlayerView) -> tuple[np.ndarray, tuple[Particle, ...]] | None:
        """The particles at ``view`` and their normalised weights with the seat's own cards
        (see the module docstring); None where the base belief answers."""
        if self._last is not None and self._last[0] is view:
            return self._last[1]
        out = self._posterior(view)
        if out is None:
            self.fallbacks += 1
        self._last = (view, out)
        return out

    def _posterior(self, view: PlayerView) -> tuple[np.ndarray, tuple[Particle, ...]] | None:
        state = self.state(view)
        if state is None or any(ev.seat != view.seat for ev in view.history[state.length:]):
            return None  # the filter cannot run, or an opponent is in the middle of a turn
        free = [d - u for d, u in zip(_DECK, view_public_counts(view))]
        private = [h - k for h, k in zip(view.hand_counts, view.known_cards[view.seat])]
        logs = np.array(state.log_weights)
        for j, p in enumerate(state.particles):
            if not np.isfinite(logs[j]):
                continue
            left = list(free)
            for o in range(view.num_players):
                for c, _ in p.arrivals[o]:
                    left[c] -= 1
            logs[j] += sum(log_choose(left[c], private[c]) if left[c] >= 0 else -math.inf
                           for c in range(NUM_CARD_TYPES) if private[c] or left[c] < 0)
        top = logs.max()
        if not np.isfinite(top):
            return None
        w = np.exp(logs - top)
        return w / w.sum(), state.particles

    def expected_hidden(self, view: PlayerView) -> np.ndarray:
        """The weighted mean of the particles' hidden counts (the base's where it falls back)."""
        post = self.posterior(view)
        if post is None:
            return self.base.expected_hidden(view)
        weights, particles = post
        out = np.zeros((view.num_players, NUM_CARD_TYPES))
        for w, p in zip(weights, particles):
            if w > 0:
                for s in range(view.num_players):
                    if s != view.seat:
                        out[s] += w * np.array(p.hidden(s))
        return out

    def sample(self, view: PlayerView, rng: random.Random) -> Game:
        """One particle drawn by weight with ``rng``; the stock the other unseen cards in an
        order from ``rng`` (the base's sample where it falls back)."""
        post = self.posterior(view)
        if post is None:
            return self.base.sample(view, rng)
        weights, particles = post
        cum = np.cumsum(weights).tolist()
        p = particles[min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)]
        hidden = [tuple(cards_of(p.hidden(s))) if s != view.seat else () for s in range(view.num_players)]
        return game_with_hidden(view, hidden, rng)


def related_weights(picked: Sequence[int]) -> list[float]:
    """Per card type, ``1 + RELATED_WEIGHT`` times the cards of ``picked`` (a seat's pile
    takes) it would make a meld with: the same rank (a trio), the same suit within two
    ranks (a run), or a joker (either)."""
    out = [1.0] * NUM_CARD_TYPES
    for c in picked:
        for y in range(NUM_CARD_TYPES):
            if y == JOKER or c == JOKER or (y != c and (rank_of(y) == rank_of(c) or (
                    suit_of(y) == suit_of(c) and abs(rank_of(y) - rank_of(c)) <= 2))):
                out[y] += RELATED_WEIGHT
    return out


def pick_copy(counts: Sequence[float], x: float) -> int:
    """The card type at ``x`` when each type ``c`` takes a stretch ``counts[c]`` long, in
    order (``0 <= x < sum(counts)``): with counts of copies, the type of copy ``floor(x)``."""
    acc = 0.0
    for c, k in enumerate(counts):
        if k > 0:
            acc += k
            if x < acc:
                return c
    return max(c for c, k in enumerate(counts) if k > 0)


def systematic(log_weights: np.ndarray, n: int, rng: random.Random) -> list[int]:
    """``n`` indices drawn by systematic resampling of ``exp(log_weights)`` with one uniform from ``rng``."""
    w = np.exp(log_weights - log_weights.max())
    cum = np.cumsum(w / w.sum()).tolist()
    u = rng.random()
    return [min(bisect_right(cum, (i + u) / n), len(cum) - 1) for i in range(n)]


def _put(items: tuple, index: int, value: object) -> tuple:
    return items[:index] + (value,) + items[index + 1:]
