"""The opponent model of search's determinizations (carioca_agents.opponent_model): only unseen
cards move, nothing hidden is read, seeded, and the hands it deals are further along."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from carioca_agents.opponent_model import _replay, informed_determinization, informed_hidden, stock_draws
from carioca_agents.search import SearchAgent
from carioca_env import Game, InvalidPositionError
from carioca_env.analysis import analyze
from carioca_env.cards import cards_of
from carioca_env.determinize import determinize_view, game_from_view, hidden_slots, unseen_pool

from random_play import heuristic_states


def _states() -> list[Game]:
    return [g for n, deal, seed in ((2, 6, 1), (3, 1, 2), (4, 3, 3), (2, 7, 4)) for g in heuristic_states(n, deal, seed)]


def test_only_unseen_cards_move_and_the_seat_sees_its_own_view() -> None:
    opened_seen = 0
    for k, game in enumerate(_states()):
        seat = k % game.num_players
        view = game.view(seat)
        det = informed_determinization(view, random.Random(k))
        assert det.view(seat) == view  # its own hand, table, pile, sizes, known cards, history
        hidden, stock = informed_hidden(view, random.Random(k))
        assert Counter(c for h in hidden for c in h) + Counter(stock) == Counter(cards_of(unseen_pool(view)))
        assert [len(h) for h in hidden] == hidden_slots(view) and len(stock) == view.stock_size
        for s in range(game.num_players):  # the cards an opponent surely holds stay in its hand
            assert all(det.hands[s][c] >= n for c, n in enumerate(view.known_cards[s]))
        opened_seen += any(view.opened)
        if game.current == seat:
            assert det.legal_moves() == game.legal_moves()
    assert opened_seen  # opened seats (left uniform) were among the states


def test_it_reads_only_the_view() -> None:
    """Two real games that differ only in what the seat cannot see give the same samples
    and the same search decisions."""
    differing = 0
    for k, game in enumerate(_states()[::3]):
        seat = game.current
        other = game.determinize(seat, np.random.default_rng(k))
        assert other.view(seat) == game.view(seat)
        differing += (other.hands, other.stock) != (game.hands, game.stock)
        a = informed_hidden(game.view(seat), random.Random(k))
        b = informed_hidden(other.view(seat), random.Random(k))
        assert a == b
        legal = game.legal_moves()
        assert legal == other.legal_moves()
        if len(legal) > 1:
            da = SearchAgent(seed=k, sims=4, infer=2).act(game.view(seat), legal)
            db = SearchAgent(seed=k, sims=4, infer=2).act(other.view(seat), legal)
            assert da == db
    assert differing >= 5


def test_it_is_seeded() -> None:
    game = heuristic_states(2, 6, 5)[-1]
    view = game.view(0)
    assert informed_hidden(view, random.Random(3)) == informed_hidden(view, random.Random(3))
    assert informed_hidden(view, random.Random(3)) != informed_hidden(view, random.Random(4))
    a, b = informed_determinization(view, random.Random(9)), informed_determinization(view, random.Random(9))
    assert (a.hands, a.stock, a.rng.getstate()) == (b.hands, b.stock, b.rng.getstate())


def test_stock_draws_count_the_public_stock_draws() -> None:
    game = heuristic_states(3, 2, 6)[-1]
    view = game.view(1)
    draws = stock_draws(view)
    takes = [sum(e.kind == "DRAW_DISCARD" and e.seat == s for e in view.history) for s in range(3)]
    turns = [sum(e.kind in ("DRAW_STOCK", "DRAW_DISCARD") and e.seat == s for e in view.history) for s in range(3)]
    assert [d + t for d, t in zip(draws, takes)] == turns and sum(draws) > 0


def test_replay_only_improves_and_gives_back_hidden_cards() -> None:
    rng = random.Random(0)
    for k, game in enumerate(heuristic_states(2, 6, 7, every=5)):
        view = game.view(0)
        if view.opened[1] or not hidden_slots(view)[1]:
            continue
        pool = cards_of(unseen_pool(view))
        rng.shuffle(pool)
        slots = hidden_slots(view)[1]
        mine, rest = pool[:slots], pool[slots:]
        before = Counter(mine) + Counter(rest)
        counts = list(view.known_cards[1])
        for c in mine:
            counts[c] += 1
        start = analyze(counts, view.contract, want_outs=False).deficiency
        out = _replay(view, 1, list(mine), rest, 30, rng)
        assert Counter(out) + Counter(rest) == before and len(out) == slots
        for c in out:
            counts[c] += 1
        for c in mine:
            counts[c] -= 1
        end = analyze(counts, view.contract, want_outs=False).deficiency
        assert end <= start and (end >= 1 or start == 0)


def test_its_opponents_are_further_along_than_uniform_ones() -> None:
    """Late in a heuristic deal an unopened opponent's hand is close to its contract; the
    model's hands are closer than the uniform determinization's (and 0 draws is uniform)."""
    late = [g for g in heuristic_states(2, 7, 8, every=3) if g.turn >= 14 and not g.opened[1 - g.current]]
    late += [g for g in heuristic_states(2, 6, 9, every=3) if g.turn >= 14 and not g.opened[1 - g.current]]
    assert len(late) >= 10
    uni, inf = [], []
    for k, game in enumerate(late):
        seat = game.current
        view, opp = game.view(seat), 1 - seat
        for r in range(4):
            u = determinize_view(view, random.Random(100 * k + r))
            m = informed_determinization(view, random.Random(100 * k + r))
            uni.append(analyze(u.hands[opp], view.contract, want_outs=False).deficiency)
            inf.append(analyze(m.hands[opp], view.contract, want_outs=False).deficiency)
    assert sum(inf) / len(inf) < sum(uni) / len(uni) - 1.0
    # factor 0 is the plain uniform split of the shuffled unseen cards
    view = late[0].view(late[0].current)
    opp = 1 - view.seat
    hidden, stock = informed_hidden(view, random.Random(1), factor=0)
    pool = cards_of(unseen_pool(view))
    random.Random(1).shuffle(pool)
    k = hidden_slots(view)[opp]
    assert hidden[opp] == tuple(pool[:k]) and Counter(stock) == Counter(pool[k:])


def test_game_from_view_refuses_wrong_sizes() -> None:
    game = heuristic_states(2, 1, 10)[2]
    view = game.view(0)
    pool = cards_of(unseen_pool(view))
    slots = hidden_slots(view)
    hidden = [tuple(pool[: slots[0]]), tuple(pool[slots[0]: slots[0] + slots[1]])]
    stock = pool[slots[0] + slots[1]:]
    assert game_from_view(view, hidden, stock, 0).view(0) == view
    with pytest.raises(InvalidPositionError, match=rf"hidden parts of sizes \[0, {slots[1] - 1}\], the view has \[0, {slots[1]}\]"):
        game_from_view(view, [(), hidden[1][:-1]], stock, 0)
    with pytest.raises(InvalidPositionError, match="stock cards, the view has"):
        game_from_view(view, hidden, stock[:-1], 0)
    with pytest.raises(InvalidPositionError, match="invalid position"):
        game_from_view(view, [(), (hidden[1][0],) * slots[1]], stock, 0)  # too many copies of a card
