"""The inferred belief: a base belief's samples weighted by how well they explain the opponents' play.

A per-card belief (:mod:`carioca_agents.belief.learned`) says which cards an opponent tends to
hold; it cannot say that *this* hand would not have discarded what the opponent just
discarded.  :class:`InferredBelief` adds that: it draws ``pool`` candidate hidden hands from
a base belief, weights each candidate by the likelihood of every opponent's most recent
turn (its pile decision, any opening, lay-offs or swaps, and its discard) under an assumed
policy (the heuristic, :class:`carioca_agents.heuristic.HeuristicAgent`, mixed with a uniform
choice among the legal moves with weight ``eps``, so that no candidate is impossible: the
real opponent need not be the heuristic), and resamples (sampling importance resampling).

The likelihood reads only the seat's view.  The public state before each event of the
opponent's last turn (table, discard pile, stock size, hand sizes, who opened, the cards
each seat took, surely holds and discarded) is replayed from the public history
(:func:`last_turns`); the opponent's hand then is the candidate's hand with the cards the
opponent showed since put back.  The heuristic's move at that moment is computed from that
reconstructed view; a random tie among its best moves counts as a uniform choice among
them (its declared choice, :class:`carioca_agents.base.DeclaredChoice`).  Before a stock draw the
hand held one card fewer, which card is not seen: the pile decision is averaged over the
cards of the hand after the draw that could have been the drawn one (those it did not
surely hold before), each copy alike.

A turn that cannot be replayed exactly is not explained (its likelihood is 1): one
followed by a recycle of the discard pile into the stock (the pile before it is not in the
view), or a view whose history does not replay to its own table, sizes and pile.

The pool is a function of the view alone (drawn with the fixed seed :data:`INFER_SEED`), so
:meth:`InferredBelief.expected_hidden` (the weighted mean of the pool's hidden counts) is
too, and :meth:`InferredBelief.sample` draws one candidate by its weight with the caller's
generator and deals the stock from the rest in an order from that generator.  The pool of
the last view asked about is kept: a search draws many samples from one decision's view.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from carioca_agents.base import declared_choice
from carioca_agents.belief.base import DEFAULT_POOL, Belief
from carioca_agents.belief.learned import LearnedBelief
from carioca_agents.belief.sampling import game_with_hidden, sample_hidden
from carioca_agents.heuristic import HeuristicAgent
from carioca_env import Game, Move, Phase, PlayerView
from carioca_env.cards import NUM_CARD_TYPES, cards_of
from carioca_env.meld_moves import view_meld_moves
from carioca_env.melds import Meld, TableMeld
from carioca_env.view import PublicEvent

#: The seed of every view's pool of candidates: the pool is a function of the view.
INFER_SEED = 20261204
#: Weight of a uniform choice among the legal moves in the assumed opponent policy.
DEFAULT_EPS = 0.05

_DRAWS = ("DRAW_STOCK", "DRAW_DISCARD")
_SHOWS = ("OPEN", "LAY_OFF", "SWAP", "DISCARD")


@dataclass(frozen=True)
class PublicState:
    """The public part of a deal just before one event of its history (see :func:`last_turns`).

    Attributes:
        index: the event's index in the history.
        hand_sizes, table, opened, discard_pile, stock_size, picked_from_discard,
            known_cards, discarded, turn: as in :class:`~carioca_env.PlayerView`, then.
        phase: the phase of the acting seat's turn then.
        history: the events before it.
    """

    index: int
    hand_sizes: tuple[int, ...]
    table: tuple[tuple[Meld, ...], ...]
    opened: tuple[bool, ...]
    discard_pile: tuple[int, ...]
    stock_size: int
    picked_from_discard: tuple[tuple[int, ...], ...]
    known_cards: tuple[tuple[int, ...], ...]
    discarded: tuple[tuple[int, ...], ...]
    turn: int
    phase: Phase
    history: tuple[PublicEvent, ...]

    def view_of(self, view: PlayerView, seat: int, hand: Sequence[int]) -> PlayerView:
        """What ``seat`` saw then, had it held ``hand`` (53 counts); the deal's fixed parts
        (dealer, contract, totals) come from ``view``, the seat's view now."""
        return PlayerView(
            seat=seat, num_players=view.num_players, hand_counts=tuple(hand), hand_sizes=self.hand_sizes,
            table=self.table, opened=self.opened, discard_pile=self.discard_pile, stock_size=self.stock_size,
            picked_from_discard=self.picked_from_discard, known_cards=self.known_cards, discarded=self.discarded,
            history=self.history, current_player=seat, phase=self.phase, dealer=view.dealer, deal=view.deal,
            contract=view.contract, deal_index=view.deal_index, turn=self.turn, deal_results=view.deal_results,
            totals=view.totals, game_over=False,
        )


@dataclass(frozen=True)
class OpponentTurn:
    """One opponent's most recent complete turn: ``steps[i]`` is the public state before
    ``events[i]``; the first event is its draw, the last its discard."""

    seat: int
    events: tuple[PublicEvent, ...]
    steps: tuple[PublicState, ...]


def shown_cards(event: PublicEvent) -> list[int]:
    """The cards a play-phase event took out of its seat's hand (an opening's melds, the
    card laid off, swapped in or discarded)."""
    if event.kind == "OPEN":
        return [c for m in event.detail.melds for c in m.cards] if isinstance(event.detail, Move) else []
    return [event.card]


def last_turns(view: PlayerView) -> list[OpponentTurn]:
    """Each opponent's most recent complete turn with the public state before each of its
    events, replayed from ``view``'s history (the table, sizes, opened seats, picked, known
    and discarded cards forward from the deal's start; the pile and the stock size backward
    from now).  An opponent that has not finished a turn, whose last turn is followed by a
    recycle, or every opponent when the replay does not end at ``view``, is left out."""
    history = list(view.history)
    n = view.num_players
    spans: dict[int, tuple[int, int]] = {}
    for s in range(n):
        if s == view.seat:
            continue
        end = next((i for i in range(len(history) - 1, -1, -1)
                    if history[i].seat == s and history[i].kind == "DISCARD"), None)
        if end is None:
            continue
        start = next((i for i in range(end - 1, -1, -1) if history[i].seat == s and history[i].kind in _DRAWS), None)
        if start is None or any(ev.kind == "recycle" for ev in history[start:]):
            continue
        spans[s] = (start, end)
    if not spans:
        return []
    states = replay_states(view, {i for a, b in spans.values() for i in range(a, b + 1)})
    if states is None:
        return []
    return [OpponentTurn(s, tuple(history[a:b + 1]), tuple(states[i] for i in range(a, b + 1)))
            for s, (a, b) in sorted(spans.items())]


def replay_states(view: PlayerView, wanted: set[int]) -> dict[int, PublicState] | None:
    """The public state before each event of ``view``'s history whose index is in
    ``wanted``, replayed from ``view`` (the table, sizes, opened seats, picked, known and
    discarded cards forward from the deal's start; the pile and the stock size backward
    from now); None when a wanted event precedes a recycle (the pile before it is not in
    the view) or the replay does not end at ``view``."""
    if not wanted:
        return {}
    history = list(view.history)
    n = view.num_players
    first = min(wanted)
    # backward: the pile and the stock size before each wanted event
    pile = list(view.discard_pile)
    stock = view.stock_size
    back: dict[int, tuple[tuple[int, ...], int]] = {}
    for i in range(len(history) - 1, first - 1, -1):
        ev = history[i]
        if ev.kind == "DISCARD":
            if not pile or pile[-1] != ev.card:
                return None
            pile.pop()
        elif ev.kind == "DRAW_DISCARD":
            pile.append(ev.card)
        elif ev.kind == "DRAW_STOCK":
            stock += 1
        elif ev.kind == "recycle":
            return None
        if i in wanted:
            back[i] = (tuple(pile), stock)
    # forward: everything else, from the deal's start
    size = view.contract.hand_size
    sizes = [size] * n
    table: list[list[TableMeld]] = [[] for _ in range(n)]
    opened = [False] * n
    picked: list[list[int]] = [[] for _ in range(n)]
    known = [[0] * NUM_CARD_TYPES for _ in range(n)]
    discarded = [[0] * NUM_CARD_TYPES for _ in range(n)]
    turn = 0
    phase = Phase.DRAW
    states: dict[int, PublicState] = {}
    for i, ev in enumerate(history):
        if i in wanted:
            states[i] = PublicState(
                i, tuple(sizes), tuple(tuple(m.snapshot() for m in melds) for melds in table), tuple(opened),
                back[i][0], back[i][1], tuple(tuple(p) for p in picked), tuple(tuple(k) for k in known),
                tuple(tuple(d) for d in discarded), turn, Phase.DRAW if ev.kind in _DRAWS else phase,
                tuple(history[:i]))
        s, move = ev.seat, ev.detail
        if ev.kind in _DRAWS:
            sizes[s] += 1
            phase = Phase.PLAY
            if ev.kind == "DRAW_DISCARD":
                picked[s].append(ev.card)
                known[s][ev.card] += 1
        elif ev.kind in _SHOWS:
            for c in shown_cards(ev):
                sizes[s] -= 1
                if known[s][c]:
                    known[s][c] -= 1
            if ev.kind == "OPEN" and isinstance(move, Move):
                table[s].extend(TableMeld(m, s) for m in move.melds)
                opened[s] = True
                phase = Phase.DISCARD
            elif ev.kind in ("LAY_OFF", "SWAP") and isinstance(move, Move):
                target = table[move.owner][move.index]
                if ev.kind == "LAY_OFF":
                    target.lay_off(ev.card, move.end)
                elif move.end is not None:
                    target.swap(ev.card, move.end)
            elif ev.kind == "DISCARD":
                discarded[s][ev.card] += 1
                turn += 1
                phase = Phase.DRAW
    now = (tuple(sizes), tuple(tuple(m.snapshot() for m in melds) for melds in table), tuple(opened),
           tuple(tuple(p) for p in picked), tuple(tuple(k) for k in known), tuple(tuple(d) for d in discarded), turn)
    if now != (view.hand_sizes, view.table, view.opened, view.picked_from_discard, view.known_cards,
               view.discarded, view.turn):
        return None
    return states


def legal_at(view: PlayerView) -> list[Move]:
    """The legal moves of ``view``'s seat in ``view``'s phase, in the engine's order (the
    draws; the openings, lay-offs and swaps, then the discards; the discards)."""
    if view.phase is Phase.DRAW:
        return ([Move.draw_stock()] if view.stock_size else []) + ([Move.draw_discard()] if view.discard_pile else [])
    discards = [Move.discard(c) for c in range(NUM_CARD_TYPES) if view.hand_counts[c]]
    if view.phase is Phase.PLAY:
        return view_meld_moves(view) + discards
    return discards


def policy_probability(policy: HeuristicAgent, view: PlayerView, legal: Sequence[Move], move: Move) -> float:
    """The probability that ``policy`` plays ``move`` at ``view`` among ``legal``: 1 or 0
    for a deterministic choice, the share of its declared random tie-break otherwise."""
    chosen = policy.act(view, legal)
    choice = declared_choice(policy)
    if choice is None:
        return 1.0 if chosen == move else 0.0
    return sum(p for o, p in zip(choice.options, choice.weights()) if o == move)


def turn_likelihood(view: PlayerView, turn: OpponentTurn, hand: Sequence[int], policy: HeuristicAgent,
                    eps: float, drawn: int | None = None) -> float:
    """The probability of ``turn``'s moves if the opponent holds ``hand`` (53 counts) after
    it and plays ``policy`` with probability ``1 - eps``, else a uniform legal move (see the
    module docstring); 0 when ``hand`` cannot have played the turn (a card shown that it
    never held).  A stock draw's card is ``drawn`` when given (a card type of the hand
    before the turn's plays), else averaged over as the module docstring says."""
    h = list(hand)
    like = 1.0
    for ev, state in zip(reversed(turn.events[1:]), reversed(turn.steps[1:])):
        for c in shown_cards(ev):
            h[c] += 1
        v = state.view_of(view, turn.seat, h)
        legal = legal_at(v)
        if len(legal) > 1 and isinstance(ev.detail, Move):  # a move event always carries its move
            like *= _mixed(policy_probability(policy, v, legal, ev.detail), len(legal), eps)
    draw, state = turn.events[0], turn.steps[0]
    legal = legal_at(state.view_of(view, turn.seat, h))  # legality of a draw reads no hand
    if len(legal) < 2:
        return like
    if draw.kind == "DRAW_DISCARD":
        if h[draw.card] < 1:
            return 0.0
        h[draw.card] -= 1
        p = policy_probability(policy, state.view_of(view, turn.seat, h), legal, Move.draw_discard())
        return like * _mixed(p, 2, eps)
    if drawn is not None:
        if h[drawn] < 1:
            return 0.0
        h[drawn] -= 1
        return like * _mixed(policy_probability(policy, state.view_of(view, turn.seat, h), legal, Move.draw_stock()),
                             2, eps)
    # a stock draw: average over the card drawn (a copy it did not surely hold before)
    known = state.known_cards[turn.seat]
    total = 0
    acc = 0.0
    for c in range(NUM_CARD_TYPES):
        free = h[c] - known[c]
        if free <= 0:
            continue
        h[c] -= 1
        acc += free * policy_probability(policy, state.view_of(view, turn.seat, h), legal, Move.draw_stock())
        h[c] += 1
        total += free
    return like * _mixed(acc / total if total else 0.0, 2, eps)


def _mixed(p: float, options: int, eps: float) -> float:
    return (1.0 - eps) * p + eps / options


@dataclass(frozen=True)
class Posterior:
    """A view's pool of candidates and their weights.

    Attributes:
        hidden: per candidate, per seat, the hidden part of its hand (card types).
        weights: per candidate, its normalised weight (sums to 1).
        log_likelihood: per candidate, the log-likelihood of the explained turns.
        turns: the opponents' turns explained.
    """

    hidden: tuple[tuple[tuple[int, ...], ...], ...]
    weights: np.ndarray
    log_likelihood: np.ndarray
    turns: tuple[OpponentTurn, ...]

    def hidden_counts(self, num_players: int) -> np.ndarray:
        """Per candidate, seat and card type, the hidden counts: shape ``(pool, players, 53)``."""
        out = np.zeros((len(self.hidden), num_players, NUM_CARD_TYPES))
        for j, cand in enumerate(self.hidden):
            for s, cards in enumerate(cand):
                for c in cards:
                    out[j, s, c] += 1
        return out

    @property
    def effective_size(self) -> float:
        """The effective sample size of the weights, ``1 / sum(w^2)``."""
        return float(1.0 / np.square(self.weights).sum())


class InferredBelief(Belief):
    """A base belief's samples weighted by the opponents' last turns (see the module docstring).

    Attributes:
        base: the belief the candidates come from.
        pool: candidates per view.
        eps: weight of a uniform legal move in the assumed opponent policy (0 < eps <= 1).
    """

    name = "inferred"

    def __init__(self, base: Belief, pool: int = DEFAULT_POOL, eps: float = DEFAULT_EPS,
                 policy: HeuristicAgent | None = None) -> None:
        if pool < 1 or not 0 < eps <= 1:
            raise ValueError(f"pool must be >= 1 and eps in (0, 1], got {pool} and {eps}")
        self.base, self.pool, self.eps = base, pool, eps
        self.policy = policy if policy is not None else HeuristicAgent(0)
        self._cache: tuple[PlayerView, Posterior] | None = None

    def posterior(self, view: PlayerView) -> Posterior:
        """The pool of ``view`` (drawn from the base with :data:`INFER_SEED`) and its weights."""
        if self._cache is not None and self._cache[0] is view:
            return self._cache[1]
        rng = random.Random(INFER_SEED)
        draw = self._hidden_sampler(view)
        hidden = tuple(draw(rng) for _ in range(self.pool))
        turns = tuple(last_turns(view))
        logs = np.zeros(self.pool)
        for j, cand in enumerate(hidden):
            for t in turns:
                hand = list(view.known_cards[t.seat])
                for c in cand[t.seat]:
                    hand[c] += 1
                like = turn_likelihood(view, t, hand, self.policy, self.eps)
                logs[j] += math.log(like) if like > 0 else -math.inf
        top = logs.max()
        w = np.exp(logs - top) if np.isfinite(top) else np.ones(self.pool)
        post = Posterior(hidden, w / w.sum(), logs, turns)
        self._cache = (view, post)
        return post

    def _hidden_sampler(self, view: PlayerView) -> Callable[[random.Random], tuple[tuple[int, ...], ...]]:
        """Draws one candidate (the hidden part of each seat's hand) from the base belief:
        a learned base's hidden cards are drawn directly (:func:`sample_hidden`, what its
        :meth:`~LearnedBelief.sample` does before it builds the game), any other's are read
        from the game it samples."""
        if isinstance(self.base, LearnedBelief):
            weights = self.base.weights(view).tolist()
            return lambda rng: tuple(sample_hidden(view, weights, rng)[0])

        def from_game(rng: random.Random) -> tuple[tuple[int, ...], ...]:
            game = self.base.sample(view, rng)
            return tuple(() if s == view.seat else
                         tuple(cards_of([a - b for a, b in zip(game.hands[s], view.known_cards[s])]))
                         for s in range(view.num_players))

        return from_game

    def expected_hidden(self, view: PlayerView) -> np.ndarray:
        """The weighted mean of the pool's hidden counts."""
        post = self.posterior(view)
        return np.tensordot(post.weights, post.hidden_counts(view.num_players), axes=1)

    def sample(self, view: PlayerView, rng: random.Random) -> Game:
        """One candidate drawn by its weight with ``rng``; the stock the other unseen cards
        in an order from ``rng``."""
        post = self.posterior(view)
        cum = np.cumsum(post.weights).tolist()
        j = min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)
        return game_with_hidden(view, post.hidden[j], rng)
