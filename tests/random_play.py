"""A biased random policy that drives games to openings, lay-offs, swaps and closes.

Plain random play almost never lays a contract (a seven-deal game takes ~100k turns), so
the property tests use this policy: it always opens when it can, lays off and swaps
jokers most of the time, takes a useful top discard, and discards the card that helps
its contract least (after opening: the costliest card).  It only picks among
``game.legal_moves()``; it is a driver, not an oracle.
"""

from __future__ import annotations

import random
from collections import Counter

from carioca_env import Game, GameConfig, MoveKind

from checker import CONTRACT_SHAPE, JOKER, card_at, penalty, rank, suit


def _positions(c: int) -> tuple[int, ...]:
    return (1, 14) if rank(c) == 1 else (rank(c),)


def usefulness(c: int, hand: Counter, deal: int) -> float:
    """How much card ``c`` helps build the contract of ``deal`` from ``hand`` (with ``c``)."""
    if c == JOKER:
        return 100.0
    trios, runs = CONTRACT_SHAPE[deal]
    score = 0.0
    if trios:
        same = sum(hand[s * 13 + rank(c) - 1] for s in range(4)) - 1
        score += 1.5 * min(same, 2)
    if runs:
        best = 0
        for p in _positions(c):
            near = {q for q in range(max(1, p - 3), min(14, p + 3) + 1) if q != p and hand[card_at(suit(c), q)]}
            # cards inside one 4-window around p
            for lo in range(max(1, p - 3), min(p, 11) + 1):
                best = max(best, sum(1 for q in near if lo <= q <= lo + 3))
        score += 1.2 * best
    return score


def _fits_table(c: int, game: Game) -> bool:
    """Whether ``c`` could one day be laid off: a trio's rank or a natural near a run end."""
    for melds in game.table:
        for m in melds:
            if int(m.kind) == 0:
                if rank(c) == m.key:
                    return True
            elif suit(c) == m.key and any(
                q in _positions(c) for q in (m.lo - 2, m.lo - 1, m.lo + len(m.cards), m.lo + len(m.cards) + 1)
            ):
                return True
            elif any(x == JOKER and card_at(m.key, m.lo + i) == c for i, x in enumerate(m.cards)):
                return True  # could replace a joker (R11)
    return False


def _jokers_in_runs(move) -> int:
    return sum(1 for m in move.melds if int(m.kind) == 1 and JOKER in m.cards)


class BiasedPolicy:
    """Prefers OPEN, then SWAP / LAY_OFF (with probability ``p_meld``), then a smart discard."""

    def __init__(
        self,
        rng: random.Random,
        p_meld: float = 0.9,
        p_random_discard: float = 0.05,
        joker_runs: bool = False,
    ) -> None:
        self.rng = rng
        self.p_meld = p_meld
        self.p_random_discard = p_random_discard
        # joker_runs: put jokers into runs (openings, lay-offs) so that swaps (R11) arise
        self.joker_runs = joker_runs

    def choose(self, game: Game, moves: list | None = None):
        rng = self.rng
        moves = game.legal_moves() if moves is None else moves
        by_kind: dict[MoveKind, list] = {}
        for m in moves:
            by_kind.setdefault(m.kind, []).append(m)
        if MoveKind.OPEN in by_kind:
            opens = by_kind[MoveKind.OPEN]
            if self.joker_runs:
                most = max(_jokers_in_runs(m) for m in opens)
                opens = [m for m in opens if _jokers_in_runs(m) == most]
            return rng.choice(opens)
        if MoveKind.SWAP in by_kind and rng.random() < self.p_meld:
            return rng.choice(by_kind[MoveKind.SWAP])
        if MoveKind.LAY_OFF in by_kind and rng.random() < self.p_meld:
            lays = by_kind[MoveKind.LAY_OFF]
            if self.joker_runs:
                on_runs = [m for m in lays if m.card == JOKER and m.end is not None]
                lays = on_runs or lays
            return rng.choice(lays)
        seat = game.current
        hand = Counter({c: n for c, n in enumerate(game.hands[seat]) if n})
        if MoveKind.DRAW_STOCK in by_kind or MoveKind.DRAW_DISCARD in by_kind:
            if MoveKind.DRAW_DISCARD in by_kind and game.discard:
                top = game.discard[-1]
                h = hand.copy()
                h[top] += 1
                if game.opened[seat]:
                    useful = top == JOKER or _fits_table(top, game)
                else:
                    useful = usefulness(top, h, game.deal_number) >= 2.4
                if (useful and rng.random() < 0.9) or MoveKind.DRAW_STOCK not in by_kind:
                    return by_kind[MoveKind.DRAW_DISCARD][0]
            if MoveKind.DRAW_STOCK in by_kind:
                return by_kind[MoveKind.DRAW_STOCK][0]
            return rng.choice(moves)
        discards = by_kind.get(MoveKind.DISCARD, [])
        if not discards:
            return rng.choice(moves)
        if rng.random() < self.p_random_discard:
            return rng.choice(discards)
        if game.opened[seat]:
            def score(m):  # keep jokers and cards that may still be laid off; shed costly ones
                c = m.card
                keep = 1000 if c == JOKER else (100 if _fits_table(c, game) else 0)
                return (keep - penalty(c), rng.random())
        else:
            def score(m):
                return (usefulness(m.card, hand, game.deal_number), rng.random())
        return min(discards, key=score)


def play(game: Game, policy: BiasedPolicy, max_moves: int, on_state=None) -> int:
    """Play until the game ends or ``max_moves`` moves; ``on_state(game)`` before each move."""
    n = 0
    while not game.game_over and n < max_moves:
        if on_state is not None:
            on_state(game)
        game.apply(policy.choose(game))
        n += 1
    return n


def assert_plays_legally(agent, players: int, contracts, moves: int) -> None:
    """``agent`` in every seat of a one-deal game of each contract (game seed = contract)
    for up to ``moves`` moves: every move it returns is one of the legal ones."""
    for contract in contracts:
        game = Game(GameConfig(num_players=players, deals=(contract,)), seed=contract)
        for _ in range(moves):
            if game.game_over:
                break
            legal = game.legal_moves()
            move = agent.act(game.view(game.current_player), legal)
            assert move in legal, (contract, str(move))
            game.apply(move)


def heuristic_states(n: int, deal: int, seed: int, every: int = 7) -> list[Game]:
    """Copies of a one-deal game of ``n`` heuristic players (opponents who keep what
    helps), taken every ``every`` moves: positions for the determinization tests."""
    from carioca_agents.heuristic import HeuristicAgent

    game = Game(GameConfig(n, (deal,)), seed=seed)
    agents = [HeuristicAgent(seed + i) for i in range(n)]
    out = []
    while not game.game_over:
        if len(game.moves) % every == 1:
            out.append(game.clone())
        s = game.current
        game.apply(agents[s].act(game.view(s), game.legal_moves()))
    return out


def against_heuristic(agent, deal: int, seed: int, moves: int) -> list:
    """The moves of a 2-player one-deal game (game seed ``seed``) of ``agent`` in seat 0
    against a heuristic (seeded ``seed + 1``), at most ``moves``; each checked legal."""
    from carioca_agents.heuristic import HeuristicAgent

    game = Game(GameConfig(2, (deal,)), seed=seed)
    other = HeuristicAgent(seed + 1)
    out = []
    while not game.game_over and len(out) < moves:
        s = game.current
        legal = game.legal_moves()
        move = (agent if s == 0 else other).act(game.view(s), legal)
        assert move in legal
        out.append(move)
        game.apply(move)
    return out


def decision_points(n: int, deal: int, seed: int, count: int) -> list[Game]:
    """Copies of a heuristic deal (``n`` players, contract ``deal``) at up to ``count`` of
    its states where the player to act has a real choice (about three in ten of them)."""
    from carioca_agents.heuristic import HeuristicAgent

    game = Game(GameConfig(n, (deal,)), seed=seed)
    drivers = [HeuristicAgent(seed + i) for i in range(n)]
    out = []
    while not game.game_over and len(out) < count:
        legal = game.legal_moves()
        s = game.current
        if len(legal) > 1 and random.Random(len(game.moves) + seed).random() < 0.3:
            out.append(game.clone())
        game.apply(drivers[s].act(game.view(s), legal))
    return out
