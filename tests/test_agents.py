"""Tests of the scripted agents (``random``, ``greedy``, ``heuristic``) and their hand analysis."""

from __future__ import annotations

import copy
import inspect
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carioca_agents.base import Agent
from carioca_agents.greedy import GreedyAgent
from carioca_agents.heuristic import HeuristicAgent
from carioca_agents.random_agent import RandomAgent
from carioca_agents.registry import available, make_agent
from carioca_env import Game, GameConfig, Meld, MoveKind, Phase, parse_cards, stack_deck
from carioca_env.analysis import SimMeld, analyze, deficiency, plan_layoffs
from carioca_env.cards import JOKER, counts_of, full_deck, hand_penalty, parse_card
from carioca_env.openings import CONTRACTS, can_open

AGENTS = ("random", "greedy", "heuristic")


def hand(text: str) -> list[int]:
    return counts_of(parse_cards(text))


def play(game: Game, agents: list[Agent], max_turns: int = 3000, check: tuple[Agent, ...] = ()) -> None:
    """Play until the game ends or ``max_turns`` turns; ``check`` agents are also asked
    at every decision and must answer with a legal move."""
    while not game.game_over and game.turn < max_turns:
        seat = game.current_player
        view = game.view(seat)
        legal = game.legal_moves()
        for other in check:
            assert other.act(view, legal) in legal
        move = agents[seat].act(view, legal)
        assert move in legal
        game.apply(move)


# ---------------------------------------------------------------------------- protocol


def test_registry_builds_the_scripted_agents():
    assert {"random", "greedy", "heuristic"} <= set(available())
    for name, cls in (("greedy", GreedyAgent), ("heuristic", HeuristicAgent), ("random", RandomAgent)):
        agent = make_agent(name, seed=3)
        assert isinstance(agent, cls)
        assert isinstance(agent, Agent)
        assert agent.name == name


@pytest.mark.parametrize("name", AGENTS)
def test_act_takes_only_the_view_and_the_legal_moves(name):
    params = list(inspect.signature(make_agent(name).act).parameters)
    assert params == ["view", "legal"]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("deal", range(1, 8))
def test_every_agent_returns_a_legal_move(players, deal):
    """Seats played by a mix of agents, every agent asked at every decision."""
    for seed in range(2):
        game = Game(GameConfig(num_players=players, deals=(deal,)), seed=seed * 31 + deal)
        seats = [make_agent(AGENTS[(i + seed) % 3], seed + i) for i in range(players)]
        asked = tuple(make_agent(a, seed) for a in AGENTS)
        play(game, seats, max_turns=120, check=asked)


def test_scripted_agents_play_a_whole_game():
    game = Game(GameConfig(num_players=3), seed=11)
    play(game, [make_agent("heuristic", 1), make_agent("greedy", 2), make_agent("heuristic", 3)])
    assert game.game_over
    assert len([r for r in game.deal_results if not r.cancelled]) == 7


@pytest.mark.parametrize("name", AGENTS)
def test_same_seed_same_choices(name):
    records = []
    for _ in range(2):
        game = Game(GameConfig(num_players=3, deals=(2, 5)), seed=5)
        play(game, [make_agent(name, 7), make_agent(name, 8), make_agent("greedy", 9)], max_turns=400)
        records.append([str(m) for m in game.moves])
    assert records[0] == records[1]
    assert len(records[0]) > 20


# ---------------------------------------------------------------------------- hidden information


def _shuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` that ``seat`` cannot tell apart: the other hands' cards that are
    not publicly known and the stock are shuffled among themselves (sizes kept)."""
    other = copy.deepcopy(game)
    pool: list[int] = list(other.stock)
    hidden = {}
    for s in range(other.num_players):
        if s == seat:
            continue
        counts = other.hands[s]
        cards = [c for c in range(len(counts)) for _ in range(counts[c] - other.known[s][c])]
        hidden[s] = len(cards)
        pool.extend(cards)
        for c in cards:
            counts[c] -= 1
    rng.shuffle(pool)
    for s, n in hidden.items():
        for c in pool[:n]:
            other.hands[s][c] += 1
        pool = pool[n:]
    other.stock = pool
    return other


@pytest.mark.parametrize("name", AGENTS)
def test_decisions_ignore_hidden_cards_mid_game(name):
    """At many states of real games, a copy with the hidden cards shuffled gives the same
    view, and a fresh agent with the same seed makes the same decision on both."""
    rng = random.Random(1)
    compared = changed = 0
    for seed in range(4):
        players = 2 + seed % 3
        game = Game(GameConfig(num_players=players, deals=(seed % 7 + 1,)), seed=seed)
        drivers = [make_agent(AGENTS[(i + 1) % 3], i) for i in range(players)]
        while not game.game_over and game.turn < 60:
            seat = game.current_player
            twin = _shuffle_hidden(game, seat, rng)
            assert twin.view(seat) == game.view(seat)
            changed += any(twin.hands[s] != game.hands[s] for s in range(players) if s != seat)
            a = make_agent(name, 42).act(game.view(seat), game.legal_moves())
            b = make_agent(name, 42).act(twin.view(seat), twin.legal_moves())
            assert a == b
            compared += 1
            game.apply(drivers[seat].act(game.view(seat), game.legal_moves()))
    assert compared > 100 and changed > 50


@pytest.mark.parametrize("name", AGENTS)
@pytest.mark.parametrize("deal", [1, 3, 6, 7])
def test_decisions_ignore_other_hands_from_different_decks(name, deal):
    """Two decks deal seat 0 the same hand, the same upcard and the same first stock card,
    but different hands to the others and a different stock below: seat 0's first turn
    is decided the same way in both."""
    size = CONTRACTS[deal].hand_size
    for seed in range(5):
        rng = random.Random(seed)
        deck = full_deck()
        rng.shuffle(deck)
        mine, upcard, first = deck[:size], deck[size], deck[size + 1]
        rest = deck[size + 2:]
        decisions = []
        others_seen = []
        for variant in range(2):
            r = list(rest)
            random.Random(100 * seed + variant).shuffle(r)
            hands = [mine, r[:size], r[size:2 * size]]
            game = Game.from_deck(stack_deck(hands, upcard, [first] + r[2 * size:]), 2, GameConfig(3, (deal,)))
            assert game.current_player == 0
            agent = make_agent(name, seed)
            moves = []
            while game.current_player == 0 and not game.game_over:
                move = agent.act(game.view(0), game.legal_moves())
                moves.append(move)
                game.apply(move)
            decisions.append(moves)
            others_seen.append((tuple(hands[1]), tuple(hands[2])))
        assert others_seen[0] != others_seen[1]
        assert decisions[0] == decisions[1]


# ---------------------------------------------------------------------------- deficiency


@pytest.mark.parametrize(
    "deal, cards, expected",
    [
        (1, "8C 8D 8H 5S 5H 5D 2C 3D 9S JH KC", 0),
        (1, "8C 8D 5S 5H 5D 2C 3D 9S JH KC QD", 1),
        (1, "8C 9D 5S 6H 4D 2C 3D 10S JH KC QD", 4),
        (1, "8C 8D JK 5S 5H JK 2C 3D 9S JH KC", 0),
        (1, "8C 8D JK 5S JK 2C 3D 9S JH KC QD", 1),
        # one joker per opening meld: two jokers never make a trio with one natural
        (1, "8C JK JK 2C 3D 4S 6H 10S JH QD KC", 2),
        # two trios of one rank split four naturals two and two, a joker each
        (1, "8C 8D 8H 8S JK JK 2C 3D 4S 10H QS", 0),
        (1, "8C 8D 8H 8S JK 2C 3D 4S 10H QS 5D", 1),
        (2, "8C 8D 8H 4S 5S 6S 7S 2C 9D JH KC", 0),
        (2, "8C 8D JK 4S 5S 7S 2C 9D JH KC QD", 1),
        # a card used by both the trio and the run: the run takes a joker instead
        (2, "10D 10H JK JK 7D 8D 9D 2C 4S 5H KC", 0),
        (3, "4S 5S 6S 7S 9H 10H JH 2C 5D KD QC", 1),
        (3, "JS QS KS AS 2H 3H 4H 5H 9C 9D 6C", 0),
        (3, "QS KS AS 2S 3S 4S 5S 9C 9D 6C 7H", 1),  # K-A-2 never wraps
        (4, "8C 8D 8H 5S 5H 5D KS KH KD 2C 3D", 0),
        (4, "8C 8D 5S 5H KS KH 2C 3D 4S 9H 10H", 3),
        (5, "8C 8D 8H 5S 5H 5D 4S 5S 6S 7S 2C", 0),
        (6, "8C 8D 8H 4S 5S 6S 7S 9H 10H JH QH", 0),
        (6, "8C 8D 8H 4S 5S 6S 7S 9H 10H JH 2C", 1),
        # two runs of one window share the J and Q: each takes a joker
        (7, "10D 10D JK 9D QD KD 8D JK 7D JD KD 3D 6D", 0),
        (7, "4S 5S 6S 7S 4H 5H 6H 7H 4D 5D 6D 2C", 1),
    ],
)
def test_deficiency_of_hand_built_hands(deal, cards, expected):
    counts = hand(cards)
    contract = CONTRACTS[deal]
    assert deficiency(counts, contract) == expected
    if sum(counts) > contract.cards:
        assert can_open(counts, contract) == (expected == 0)


def test_outs_of_a_hand_one_card_short():
    a = analyze(hand("8C 8D 5S 5H 5D 2C 3D 9S JH KC QD"), CONTRACTS[1])
    assert a.deficiency == 1
    assert a.outs == frozenset(parse_cards("8S 8H 8D 8C JK"))
    a = analyze(hand("4S 5S 6S 7S 9H 10H JH 2C 5D KD QC"), CONTRACTS[3])
    assert a.outs == frozenset(parse_cards("8H QH JK"))
    # both copies of 8H already held: the third copy cannot be drawn
    a = analyze(hand("8H 8H 5S 5H 5D 2C 3D 9S JH KC QD"), CONTRACTS[1])
    assert a.outs == frozenset(parse_cards("8S 8D 8C JK"))
    # deal 6: with 4H the run 4H JK(5H) 6H 7H lets both 5H go to the trio 5H 5H JK
    counts = hand("5H 5H 6H 7H 8H 9H 10H JH AH 3S JK JK")
    a = analyze(counts, CONTRACTS[6])
    assert a.deficiency == 1 and parse_card("4H") in a.outs
    plus = list(counts)
    plus[parse_card("4H")] += 1
    assert can_open(plus, CONTRACTS[6])


def _near_hand(rng: random.Random, deal: int) -> list[int]:
    """A hand of the size a player holds after drawing, often close to the contract."""
    contract = CONTRACTS[deal]
    deck = full_deck()
    rng.shuffle(deck)
    size = contract.hand_size + 1
    if rng.random() < 0.7:
        if contract.runs:
            suits = rng.sample(range(4), rng.randint(1, 3))
            lo = rng.randint(0, 7)
            pool = [c for c in deck if c == JOKER or (c // 13 in suits and lo <= c % 13 < lo + 6)]
        else:
            ranks = rng.sample(range(13), 4)
            pool = [c for c in deck if c == JOKER or c % 13 in ranks]
        cards = pool[: size - 2]
        cards += [c for c in deck if c not in pool][: size - len(cards)]
        return cards
    return deck[:size]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), deal=st.integers(1, 7))
def test_deficiency_zero_exactly_when_an_opening_exists(seed, deal):
    counts = counts_of(_near_hand(random.Random(seed), deal))
    assert (deficiency(counts, CONTRACTS[deal]) == 0) == can_open(counts, CONTRACTS[deal])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), deal=st.integers(1, 7))
def test_deficiency_one_and_its_outs_match_brute_force(seed, deal):
    """Deficiency 1 means some card (not a third copy) makes an opening possible, and the
    outs are exactly those cards."""
    contract = CONTRACTS[deal]
    counts = counts_of(_near_hand(random.Random(seed), deal))
    if can_open(counts, contract):
        return
    openers = set()
    for x in range(53):
        if counts[x] < (4 if x == JOKER else 2):
            plus = list(counts)
            plus[x] += 1
            if can_open(plus, contract):
                openers.add(x)
    a = analyze(counts, contract)
    assert (a.deficiency == 1) == bool(openers)
    if openers:
        assert a.outs == openers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), deal=st.integers(1, 7))
def test_cards_no_optimal_plan_uses_can_go_for_free(seed, deal):
    contract = CONTRACTS[deal]
    counts = counts_of(_near_hand(random.Random(seed), deal))
    a = analyze(counts, contract)
    for c in range(53):
        if counts[c] and c not in a.used_types:
            minus = list(counts)
            minus[c] -= 1
            b = analyze(minus, contract)
            assert (b.deficiency, b.outs) == (a.deficiency, a.outs)


# ---------------------------------------------------------------------------- positions


def _game(deal: int, hands: list[str], upcard: str, stock_top: str = "") -> Game:
    """A 2-player game of one deal whose seat 0 acts first with the given hands."""
    deck = stack_deck([parse_cards(h) for h in hands], parse_card(upcard), parse_cards(stock_top), dealer=1)
    return Game.from_deck(deck, 1, GameConfig(2, (deal,)))


OTHER = "2S 3S 4H 6D 9C 10C JC QS QH KH 7D"


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_takes_the_discard_that_completes_a_trio(name):
    game = _game(1, ["8C 8D 5S 5H 5D 2C 3D 9S JH KC QD", OTHER], "8H")
    assert make_agent(name).act(game.view(0), game.legal_moves()).kind is MoveKind.DRAW_DISCARD


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_draws_from_the_stock_when_the_discard_helps_nothing(name):
    game = _game(1, ["8C 8D 5S 5H 5D 2C 3D 9S JH KC QD", OTHER], "7H")
    assert make_agent(name).act(game.view(0), game.legal_moves()).kind is MoveKind.DRAW_STOCK


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
@pytest.mark.parametrize(
    "deal, cards",
    [(1, "8C 8D 8H 5S 5H 5D 2C 3D 9S JH KC"), (2, "8C 8D 8H 4S 5S 6S 7S 2C 9D JH KC"),
     (6, "8C 8D 8H 4S 5S 6S 7S 9H 10H JH QH")],
)
def test_opens_as_soon_as_it_can(name, deal, cards):
    game = _game(deal, [cards, OTHER], "7H", "AD")
    agent = make_agent(name)
    game.apply(agent.act(game.view(0), game.legal_moves()))
    move = agent.act(game.view(0), game.legal_moves())
    assert move.kind is MoveKind.OPEN
    game.apply(move)
    game.apply(agent.act(game.view(0), game.legal_moves()))
    if deal == 6:  # the opening leaves one card; its discard closes the deal
        assert game.game_over and game.deal_results[-1].closer == 0


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_opening_puts_the_joker_down_rather_than_holding_it(name):
    """Holding the joker after opening risks 50 points until the next turn; laying it in
    the trio or the run keeps a natural card that fits the new melds instead."""
    game = _game(2, ["8C 8D 8H 4S 5S 6S 7S KD QC 2H JK", OTHER], "7H", "3C")
    agent = make_agent(name)
    game.apply(agent.act(game.view(0), game.legal_moves()))
    move = agent.act(game.view(0), game.legal_moves())
    assert move.kind is MoveKind.OPEN
    assert any(JOKER in meld.cards for meld in move.melds)


def _opened_game(deal_hand: str, later: str) -> Game:
    """Deal 2: seat 0 opens 8C 8D 8H / 5S 6S 7S 8S on its first turn, discards, seat 1 plays
    a stock card back; seat 0 then draws ``later`` and is to play."""
    game = _game(2, [deal_hand, OTHER], "7H", "KC AH " + later)
    game.push("draw stock")
    game.push("open 8C 8D 8H / 5S 6S 7S 8S")
    game.push("discard KC")
    game.push("draw stock")
    game.push("discard AH")
    game.push("draw stock")
    assert game.phase is Phase.PLAY and game.current_player == 0
    return game


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_lays_off_after_opening(name):
    game = _opened_game("8C 8D 8H 5S 6S 7S 8S 9S 10S 4S 2D", "QD")
    agent = make_agent(name)
    while game.current_player == 0:
        game.apply(agent.act(game.view(0), game.legal_moves()))
    # 9S, 10S (after 9S) and 4S went on the run; one of 2D QD was discarded
    assert len(game.hand(0)) == 1 and game.hand(0)[0] in parse_cards("2D QD")
    assert str(game.table_melds()[0][1]) == "4S 5S 6S 7S 8S 9S 10S"


def test_plan_layoffs_orders_a_run_and_places_a_swapped_joker():
    run = SimMeld(Meld.run(0, 5, 4))  # 5S 6S 7S 8S
    shed, _, steps = plan_layoffs(parse_cards("10S 9S KD"), [run])
    assert shed == 2 and [s[1] for s in steps] == parse_cards("9S 10S")
    # 5S JK(6S) 7S 8S: the swapped joker must not take 4S's place (send it high, or lay
    # 4S first)
    run = SimMeld(Meld.run(0, 5, 4, jokers_at=(6,)))
    shed, _, steps = plan_layoffs(parse_cards("6S 4S KD"), [run])
    assert shed == 2
    assert steps in ([("swap", parse_card("6S"), 0, 1), ("lay", parse_card("4S"), 0, 0)],
                     [("lay", parse_card("4S"), 0, 0), ("swap", parse_card("6S"), 0, 0)],
                     [("lay", parse_card("4S"), 0, 0), ("swap", parse_card("6S"), 0, 1)])
    # 2S 3S 4S JK(5S) with 5S and AS: the joker goes high so that AS fits low
    run = SimMeld(Meld.run(0, 2, 4, jokers_at=(5,)))
    shed, _, _ = plan_layoffs(parse_cards("5S AS KD"), [run])
    assert shed == 2
    # one card always stays for the discard (R10)
    shed, _, _ = plan_layoffs(parse_cards("9S 4S"), [SimMeld(Meld.run(0, 5, 4))])
    assert shed == 1


def _feed_position() -> Game:
    """Deal 5: seat 1 opens on its first turn and keeps one card; seat 0, one card short
    of its own contract, then holds three loose cards: 4C, 5C and 8S, which fits seat 1's
    trio of eights."""
    game = _game(5, ["2C 2D 2H 3C 3D 4H 5H 6H 7H 4C 8S", "8C 8D 8H 5S 5H 5D 9S 10S JS QS 2H"],
                 "7S", "KC 6H 5C")
    game.push("draw stock")
    game.push("discard KC")
    game.push("draw stock")
    game.push("open 5S 5H 5D / 8C 8D 8H / 9S 10S JS QS")
    game.push("discard 2H")
    game.push("draw stock")
    assert game.opened[1] and game.hand_sizes[1] == 1 and game.current_player == 0
    return game


def test_heuristic_does_not_hand_a_closing_card_to_the_next_player():
    """With one card left, the opened next player closes at once with any discard that
    fits a table meld: the heuristic keeps 8S although it is its highest loose card (also
    when it gives no value to keeping table-fitting cards for its own lay-offs)."""
    game = _feed_position()
    view, legal = game.view(0), game.legal_moves()
    no_keep = {"w_ext": 0.0, "w_table_keep": 1.0}
    careless = HeuristicAgent(0, {**no_keep, "w_feed_open": 0.0, "w_feed_close": 0.0})
    assert careless.act(view, legal).card == parse_card("8S")  # the position is a real test
    for agent in (HeuristicAgent(0, no_keep), make_agent("heuristic")):
        move = agent.act(view, legal)
        assert move.kind is MoveKind.DISCARD and move.card != parse_card("8S")


# ---------------------------------------------------------------------------- strength


def _duplicate(a: str, b: str, deal: int, decks: int, cap: int) -> tuple[float, float]:
    """Mean penalty per deal of ``a`` and ``b`` over ``decks`` decks, each played from both
    seats (a deal cut off at ``cap`` turns scores the cards in hand)."""
    totals = [0, 0]
    for i in range(decks):
        deck = full_deck()
        random.Random(1000 + i).shuffle(deck)
        for order in (0, 1):
            specs = (a, b) if order == 0 else (b, a)
            game = Game.from_deck(deck, 1, GameConfig(2, (deal,)), seed=i)
            play(game, [make_agent(s, 10 * i + k) for k, s in enumerate(specs)], max_turns=cap)
            if game.game_over:
                scores = game.deal_results[-1].scores
            else:
                scores = tuple(hand_penalty(game.hands[s]) for s in range(2))
            totals[0] += scores[order]
            totals[1] += scores[1 - order]
    n = 2 * decks
    return totals[0] / n, totals[1] / n


def test_heuristic_beats_greedy():
    heuristic, greedy = _duplicate("heuristic", "greedy", deal=2, decks=12, cap=1000)
    assert heuristic + 5 < greedy


def test_greedy_beats_random():
    greedy, rand = _duplicate("greedy", "random", deal=1, decks=6, cap=300)
    assert greedy + 30 < rand
