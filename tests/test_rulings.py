"""One or more tests per ruling R1..R16 (docs/rules.md), plus the guide's examples.

Every scenario is played through the engine from a stacked deck (``stack_deck`` and
``Game.from_deck``), with moves given in notation.  An illegal move is checked for the
ruling it breaks (``IllegalMoveError.rule``), for not being listed by ``legal_moves()``,
and for leaving the state untouched.

Later deals of a multi-deal game come from the game's generator; to stack them too, a
test replaces ``game.rng`` by :class:`QueuedDecks`, whose ``shuffle`` of a full deck
returns the next queued deck (every other shuffle, e.g. an R13 recycle, is random).

R13's cancelled deal cannot be reached through legal play (see
:func:`test_R13_cancel_is_unreachable_through_legal_play_pile_counts`): the state is
constructed directly for :func:`test_R13_nothing_to_recycle_cancels_the_deal_and_redeals`.
R17 (truncation) is the environment's and is tested with it.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from carioca_env import (
    CONTRACTS,
    JOKER,
    End,
    Game,
    GameConfig,
    IllegalMoveError,
    InvalidConfigError,
    InvalidNotationError,
    Meld,
    MeldKind,
    MisdealError,
    Move,
    MoveKind,
    Phase,
    enumerate_openings,
    hand_penalty,
    parse_card,
    parse_cards,
    parse_move,
    stack_deck,
    validate_deck,
)
from carioca_env.cards import DECK_SIZE, counts_of, deck_counts, full_deck

# ---------------------------------------------------------------------------- helpers


def C(text: str) -> int:
    return parse_card(text)


def CS(text: str) -> list[int]:
    return parse_cards(text)


def stacked(
    hands: list[str],
    upcard: str,
    stock: str = "",
    *,
    deal: int = 1,
    deals: tuple[int, ...] | None = None,
    dealer: int | None = None,
    seed: int = 0,
) -> Game:
    """A game whose first deal gives ``hands[seat]`` to each seat (dealer default: last seat)."""
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    deck = stack_deck([CS(h) for h in hands], C(upcard), CS(stock), dealer)
    return Game.from_deck(deck, dealer, GameConfig(num_players=n, deals=deals or (deal,)), seed)


class QueuedDecks(random.Random):
    """A generator whose shuffles of a full 108-card deck deal the queued decks in turn."""

    def __init__(self, decks: list[list[int]], seed: int = 0) -> None:
        super().__init__(seed)
        self.decks = list(decks)

    def shuffle(self, x):  # type: ignore[override]
        if self.decks and len(x) == DECK_SIZE:
            x[:] = self.decks.pop(0)
        else:
            super().shuffle(x)


def play(game: Game, *notations: str) -> None:
    for text in notations:
        game.push(text)


def state(game: Game) -> tuple:
    return (
        [list(h) for h in game.hands],
        list(game.hand_sizes),
        game.table_melds(),
        list(game.discard),
        list(game.stock),
        list(game.opened),
        game.phase,
        game.current_player,
        len(game.moves),
        list(game.totals),
        len(game.deal_results),
    )


def illegal(game: Game, notation: str, rule: str) -> IllegalMoveError:
    """Assert the move is refused for ``rule``, is not listed, and changes nothing."""
    move = parse_move(notation)
    before = state(game)
    assert move not in game.legal_moves(), notation
    assert not game.is_legal(move), notation
    with pytest.raises(IllegalMoveError) as exc:
        game.push(notation)
    assert exc.value.rule == rule, f"{notation}: {exc.value}"
    assert state(game) == before, f"refused move {notation} changed the state"
    return exc.value


def legal(game: Game, notation: str) -> None:
    """Assert the move is listed and legal, then apply it."""
    move = parse_move(notation)
    assert move in game.legal_moves(), f"{notation} not in legal_moves()"
    assert game.is_legal(move)
    game.apply(move)


def table_run(game: Game, owner: int, index: int) -> Meld:
    meld = game.table_melds()[owner][index]
    assert meld.kind is MeldKind.RUN
    return meld


def all_cards(game: Game) -> Counter:
    everything: Counter = Counter()
    for s in range(game.num_players):
        everything.update(game.hand(s))
    for melds in game.table_melds():
        for m in melds:
            everything.update(m.cards)
    everything.update(game.stock)
    everything.update(game.discard)
    return everything


FULL = Counter(full_deck())

# A deal-6 hand that opens trio + 2 runs (11 cards); with one more card drawn the player
# opens and closes on the first turn (R12).
CLOSER_6 = "8C 8D 8H 4S 5S 6S 7S 4H 5H 6H 7H"
CLOSER_6_OPEN = "open 8C 8D 8H / 4S 5S 6S 7S / 4H 5H 6H 7H"


def closing_deck(n: int, dealer: int, others: dict[int, str], upcard: str = "2S") -> list[int]:
    """A deal-6 deck in which the seat after ``dealer`` opens and closes on turn 1 (draws KD)."""
    starter = (dealer + 1) % n
    hands = [CLOSER_6 if s == starter else others[s] for s in range(n)]
    return stack_deck([CS(h) for h in hands], C(upcard), CS("KD"), dealer)


def close_first_turn(game: Game) -> int:
    """The player to act (holding CLOSER_6) draws KD, opens and closes the deal."""
    seat = game.current_player
    play(game, "draw stock", CLOSER_6_OPEN, "discard KD")
    return seat


# ------------------------------------------------------------------------- R1 cards


def test_R1_deck_has_108_cards_two_packs_and_four_jokers():
    deck = full_deck()
    assert len(deck) == DECK_SIZE == 108
    counts = counts_of(deck)
    assert counts[JOKER] == 4
    assert all(counts[c] == 2 for c in range(52))
    validate_deck(deck)
    for n, deal in [(2, 1), (3, 4), (4, 7)]:
        game = Game(GameConfig(num_players=n, deals=(deal,)), seed=n)
        assert all_cards(game) == FULL


def test_R1_copies_are_interchangeable_a_card_is_rank_and_suit():
    game = stacked(
        ["8S 8S 9H 9H 2C 3C 4D 5D 6C 7C KD", "2H 3H 4H 5H 6D 7D 8D 9D 10C JC QC"],
        "KH", "QD QH",
    )
    play(game, "draw stock")
    assert game.hand(0).count(C("8S")) == 2
    discards = [m for m in game.legal_moves() if m.kind is MoveKind.DISCARD]
    assert discards.count(Move.discard(C("8S"))) == 1  # one move for both copies
    play(game, "discard 8S")
    assert game.hand(0).count(C("8S")) == 1
    assert game.top_discard == C("8S")


def test_R1_twos_are_natural_cards_never_wild():
    # a run 2S 3S 4S 5S is natural (no joker)
    game = stacked(
        ["2S 3S 4S 5S 8C 8D 8H 2H 9C 10D 7H", "2D 3D 4D 5C 6C 7C 9D 10C JC QC KC"],
        "KH", "QD QH 8S", deal=2,
    )
    play(game, "draw stock")
    assert parse_move("open 8C 8D 8H / 2S 3S 4S 5S") in game.legal_moves()
    # a 2 never stands in for a missing card: no trio of eights with a 2, no run with a gap
    with pytest.raises(InvalidNotationError):
        parse_move("open 8C 8D 2H / 2S 3S 4S 5S")
    fake_trio = Meld(MeldKind.TRIO, 8, 0, (C("2H"), C("8D"), C("8C")))
    with pytest.raises(IllegalMoveError) as exc:
        game.apply(Move.open([fake_trio, Meld.run(0, 2)]))
    assert exc.value.rule == "R5"
    fake_run = Meld(MeldKind.RUN, 1, 7, (C("7H"), C("8H"), C("2H"), C("10H")))
    with pytest.raises(IllegalMoveError):
        game.apply(Move.open([Meld.trio(8, (1, 2, 3)), fake_run]))
    play(game, "open 8C 8D 8H / 2S 3S 4S 5S")
    run = table_run(game, 0, 1)
    assert run.num_jokers == 0 and run.lo == 2 and run.stands_for() == ()
    # 2S 2H 2D is a trio of twos; no 2 fills 8C 8D _ or 4C 5C _ 7C
    openings = enumerate_openings(counts_of(CS("2S 2H 2D 8C 8D 4C 5C 7C 10D JD QD KD")), CONTRACTS[2])
    assert openings == [(Meld.trio(2, (0, 1, 2)), Meld.run(2, 10))]
    # a 2 cannot be laid off on the eights or across a gap in a run
    play(game, "discard QD", "draw stock", "discard QH", "draw stock")
    illegal(game, "lay 2H 0.0", "R9")
    illegal(game, "lay 2H 0.1 high", "R4")


# ------------------------------------------------------------------------ R2 seats


def test_R2_first_dealer_by_lot_from_the_games_generator():
    dealers = {}
    for seed in range(60):
        game = Game(GameConfig(num_players=3), seed=seed)
        again = Game(GameConfig(num_players=3), seed=seed)
        assert game.dealer == again.dealer  # the game's own generator: reproducible
        assert game.dealer == random.Random(seed).randrange(3)
        assert game.current_player == (game.dealer + 1) % 3  # the player after the dealer
        dealers[seed] = game.dealer
    assert set(dealers.values()) == {0, 1, 2}  # by lot: every seat can deal


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R2_player_after_the_dealer_starts(n):
    for dealer in range(n):
        deck = full_deck()
        random.Random(dealer).shuffle(deck)
        game = Game.from_deck(deck, dealer, GameConfig(num_players=n, deals=(1,)))
        assert game.dealer == dealer
        assert game.current_player == (dealer + 1) % n
        # dealt one card at a time, starting with the player after the dealer
        for i in range(n):
            seat = (dealer + 1 + i) % n
            assert game.hand(seat) == sorted(deck[i: n * 11: n])
        assert game.discard == [deck[n * 11]]


def test_R2_deal_passes_to_the_next_seat_each_deal():
    n = 3
    others = {s: h for s, h in enumerate(
        ["2C 2D 3C 3D 9C 9D 10C 10D JC JD QC", "KC KC KH KH QH QH JH JH 10H 10H AS",
         "AD AD AC AC 9S 9S 10S 10S JS JS QS"])}
    game = Game.from_deck(closing_deck(n, 1, others), 1, GameConfig(num_players=n, deals=(6, 6, 6, 6)))
    game.rng = QueuedDecks([closing_deck(n, d, others) for d in (2, 0, 1)])
    for i, dealer in enumerate([1, 2, 0, 1]):
        assert game.dealer == dealer
        assert game.current_player == (dealer + 1) % n
        closer = close_first_turn(game)
        result = game.deal_results[i]
        assert (result.dealer, result.closer, result.cancelled) == (dealer, (dealer + 1) % n, False)
        assert closer == (dealer + 1) % n
    assert game.game_over


# ------------------------------------------------------------------- R3 deal sizes


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("deal", [1, 2, 3, 4, 5, 6, 7])
def test_R3_hand_sizes_upcard_and_stock(n, deal):
    size = 12 if deal == 7 else 11
    assert CONTRACTS[deal].hand_size == size
    game = Game(GameConfig(num_players=n, deals=(deal,)), seed=deal * 10 + n)
    assert game.hand_sizes == [size] * n
    assert all(len(game.hand(s)) == size for s in range(n))
    assert len(game.discard) == 1  # one card turned up
    assert game.stock_size == 108 - n * size - 1
    assert all_cards(game) == FULL


def test_R3_stacked_deal_gives_hands_upcard_and_stock_in_order():
    hands = ["AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH",
             "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD"]
    game = stacked(hands, "JK", "KC KD", deal=7, dealer=1)
    for s in range(3):
        assert game.hand(s) == sorted(CS(hands[s]))
    assert game.discard == [JOKER]
    assert game.current_player == 2
    play(game, "draw stock")
    assert C("KC") in game.hand(2)
    play(game, "discard KC", "draw stock")
    assert C("KD") in game.hand(0)


# ------------------------------------------------------------------------- R4 ranks


def test_R4_ace_low_and_ace_high_runs_open():
    game = stacked(
        ["AS 2S 3S 4S JH QH KH AH 5S 10H 2H", "2C 3C 4C 6C 7C 8C 9C 10D JD QD KD"],
        "KC", "QC QS KS", deal=3,
    )
    play(game, "draw stock")
    legal(game, "open AS 2S 3S 4S / JH QH KH AH")
    assert table_run(game, 0, 0).lo == 1  # ace low: position 1
    assert table_run(game, 0, 1).hi == 14  # ace high: position 14
    play(game, "discard QC", "draw stock", "discard QS", "draw stock")
    # nothing below the low ace, nothing above the high ace (K-A-2 never wraps)
    illegal(game, "lay KS 0.0 low", "R4")
    illegal(game, "lay 2H 0.1 high", "R4")
    legal(game, "lay 5S 0.0 high")
    legal(game, "lay 10H 0.1 low")
    assert [str(m) for m in game.table_melds()[0]] == ["AS 2S 3S 4S 5S", "10H JH QH KH AH"]


def test_R4_king_ace_two_never_wraps():
    game = stacked(
        ["QS KS AS 2S 3S 8C 8D 8H JH QH KH", "2C 3C 4C 6C 7C 9C 10C 10D JD QD KD"],
        "KC", "AH 2H 9D 4D", deal=2,
    )
    play(game, "draw stock")
    with pytest.raises(InvalidNotationError):
        parse_move("open 8C 8D 8H / QS KS AS 2S")
    wrap = Meld(MeldKind.RUN, 0, 12, (C("QS"), C("KS"), C("AS"), C("2S")))
    with pytest.raises(IllegalMoveError) as exc:
        game.apply(Move.open([Meld.trio(8, (1, 2, 3)), wrap]))
    assert exc.value.rule == "R4"
    assert not any(
        m.kind is MoveKind.OPEN and any(x.kind is MeldKind.RUN and x.hi > 14 for x in m.melds)
        for m in game.legal_moves()
    )
    # JH QH KH AH then 2H: no wrap when laying off either
    legal(game, "open 8C 8D 8H / JH QH KH AH")
    play(game, "discard QS", "draw stock", "discard 2H", "draw discard")
    illegal(game, "lay 2H 0.1 high", "R4")
    illegal(game, "lay 2H 0.1 low", "R4")
    assert not any(m.kind is MoveKind.LAY_OFF and m.index == 1 for m in game.legal_moves())


def test_R4_joker_may_stand_for_an_ace_at_either_end():
    low = Meld.parse("JK 2S 3S 4S")
    high = Meld.parse("JH QH KH JK")
    assert low.lo == 1 and low.stands_for() == ((0, C("AS")),)
    assert high.hi == 14 and high.stands_for() == ((3, C("AH")),)
    game = stacked(
        ["JK 2S 3S 4S 8C 8D 8H AS 9C 10D 5H", "2C 3C 4C 6C 7C 9D 10C JD QD KD KC"],
        "KH", "QC QS 7D", deal=2,
    )
    play(game, "draw stock")
    legal(game, "open 8C 8D 8H / JK 2S 3S 4S")


def test_R4_A_to_A_run_of_14_cards_needs_two_aces_and_R11_no_swap_on_it():
    """Four players (deal 2) build AS..AS through lay-offs on seat 0's run AS 2S JK 4S."""
    hands = [
        "AS 2S JK 4S 8C 8D 8H 5S 6S 7S KD",
        "9C 9D 9H 4H 5H 6H 7H 8S 9S 10S KC",
        "10C 10D 10H 4D 5D 6D 7D JS QS KS KH",
        "JC JD JH 4C 5C 6C 7C AS 3S QD QH",
    ]
    game = stacked(hands, "2D", "2C 2H 3C 3H 3D 2C 2H 3C", deal=2, dealer=3)
    opens = ["open 8C 8D 8H / AS 2S JK 4S", "open 9C 9D 9H / 4H 5H 6H 7H",
             "open 10C 10D 10H / 4D 5D 6D 7D", "open JC JD JH / 4C 5C 6C 7C"]
    drawn = ["2C", "2H", "3C", "3H"]
    for seat in range(4):
        assert game.current_player == seat
        play(game, "draw stock", opens[seat], f"discard {drawn[seat]}")
    run = table_run(game, 0, 1)
    assert (run.lo, run.cards[0], run.stands_for()) == (1, C("AS"), ((2, C("3S")),))
    # others lay off on seat 0's run (R9), one end at a time
    play(game, "draw stock", "lay 5S 0.1 high", "lay 6S 0.1 high", "lay 7S 0.1 high", "discard 3D")
    play(game, "draw stock", "lay 8S 0.1 high", "lay 9S 0.1 high", "lay 10S 0.1 high", "discard 2C")
    play(game, "draw stock", "lay JS 0.1 high", "lay QS 0.1 high", "lay KS 0.1 high", "discard 2H")
    play(game, "draw stock")
    run = table_run(game, 0, 1)
    assert (run.lo, run.hi, len(run.cards)) == (1, 13, 13)
    # 13 cards A..K: the joker could still move, but only to the high end (nothing below A)
    swaps = [m for m in game.legal_moves() if m.kind is MoveKind.SWAP]
    assert swaps == [Move.swap(C("3S"), 0, 1, End.HIGH)]
    illegal(game, "swap 3S 0.1 low", "R11")
    # the second ace goes on top: A low to A high, two physical aces
    legal(game, "lay AS 0.1 high")
    run = table_run(game, 0, 1)
    assert (run.lo, run.hi, len(run.cards)) == (1, 14, 14)
    assert run.cards[0] == run.cards[-1] == C("AS")
    assert run.cards.count(C("AS")) == 2
    assert game.hand_sizes[3] == 4
    # full run: no open end, so no swap (R11) and no lay-off at all
    illegal(game, "swap 3S 0.1 high", "R11")
    illegal(game, "swap 3S 0.1 low", "R11")
    assert not any(m.kind in (MoveKind.SWAP, MoveKind.LAY_OFF) and (m.owner, m.index) == (0, 1)
                   for m in game.legal_moves())
    illegal(game, "lay 3C 0.1 high", "R4")
    assert all_cards(game) == FULL


def test_R4_one_ace_never_sits_at_both_ends():
    # a run J..A holds the high ace; the other ace cannot go below J, and a run A..4's ace is low
    game = stacked(
        ["JS QS KS AS 8C 8D 8H AS 10S 9D 2H", "2C 3C 4C 6C 7C 9C 10C 10D JD QD KD"],
        "KC", "AH 3H 4H", deal=2,
    )
    play(game, "draw stock", "open 8C 8D 8H / JS QS KS AS", "discard AH", "draw stock", "discard 3H")
    play(game, "draw stock")
    illegal(game, "lay AS 0.1 low", "R4")
    illegal(game, "lay AS 0.1 high", "R4")
    legal(game, "lay 10S 0.1 low")


def test_R4_trio_of_aces_is_allowed():
    game = stacked(
        ["AC AD AH 4S 5S 6S 7S 9D 10C JH QH", "2C 3C 4C 6C 7C 9C 10D JD QD KD KC"],
        "KH", "QC", deal=2,
    )
    play(game, "draw stock")
    legal(game, "open AC AD AH / 4S 5S 6S 7S")


# ---------------------------------------------------------------- R5 opening melds

R5_HANDS = [
    "8S 8S 8H JK JK 4S 5S 7S 9C 9D 6S",
    "2C 3C 4C 6C 7C 10C 10D JD QD KD KC",
]


def test_R5_trio_with_copies_of_one_suit_and_a_joker_standing_for_its_rank():
    game = stacked(R5_HANDS, "KH", "QC", deal=2)
    play(game, "draw stock")
    assert parse_move("open 8S 8S 8H / 4S 5S JK 7S") in game.legal_moves()
    assert parse_move("open 8S 8H JK / 4S 5S JK 7S") in game.legal_moves()
    legal(game, "open 8S 8H JK / 4S 5S JK 7S")
    trio, run = game.table_melds()[0]
    assert trio.stands_for() == ((2, -8),)  # a card of rank 8
    assert run.stands_for() == ((2, C("6S")),)  # exactly the six of spades


def test_R5_at_most_one_joker_per_opening_meld():
    game = stacked(R5_HANDS, "KH", "QC", deal=2)
    play(game, "draw stock")
    illegal(game, "open 8S JK JK / 4S 5S 6S 7S", "R5")  # a trio with one natural
    illegal(game, "open 8S 8S 8H / 4S JK JK 7S", "R5")  # a run with two naturals
    illegal(game, "open 8S 8H JK / 5S JK 7S JK", "R5")
    assert not any(
        m.kind is MoveKind.OPEN and any(x.num_jokers > 1 for x in m.melds) for m in game.legal_moves()
    )
    # at least two naturals in a trio, three in a run; both jokers used, one per meld
    opens = [m for m in game.legal_moves() if m.kind is MoveKind.OPEN]
    assert parse_move("open 8S 8H JK / 4S 5S 6S JK") in opens
    for m in opens:
        for x in m.melds:
            naturals = len(x.cards) - x.num_jokers
            assert naturals >= (2 if x.kind is MeldKind.TRIO else 3)


def test_R5_opening_melds_have_exact_sizes():
    game = stacked(
        ["9S 9H 9D 9C 4S 5S 6S 7S 8S 2H 3D", "2C 3C 4C 6C 7C 10C 10D JD QD KD KC"],
        "KH", "QC", deal=2,
    )
    play(game, "draw stock")
    four_trio = Meld(MeldKind.TRIO, 9, 0, tuple(sorted(CS("9S 9H 9D 9C"))))
    five_run = Meld.run(0, 4, 5)
    for move in (Move.open([four_trio, Meld.run(0, 4)]), Move.open([Meld.trio(9, (0, 1, 2)), five_run])):
        before = state(game)
        with pytest.raises(IllegalMoveError) as exc:
            game.apply(move)
        assert exc.value.rule == "R5"
        assert state(game) == before
    legal(game, "open 9S 9H 9D / 4S 5S 6S 7S")


# ----------------------------------------------------------------------- R6 contracts


def test_R6_two_trios_of_the_same_rank_in_one_contract():
    game = stacked(
        ["8S 8S 8H 8H 8D 8D 2C 5H 9C 10D JH", "2D 3C 4C 6C 7C 10C JD QD KD KC QS"],
        "KH", "QC", deal=1,
    )
    play(game, "draw stock")
    legal(game, "open 8S 8S 8H / 8H 8D 8D")
    assert [str(m) for m in game.table_melds()[0]] == ["8S 8S 8H", "8H 8D 8D"]


def test_R6_two_runs_of_the_same_suit_that_would_join_stay_two_melds():
    game = stacked(
        ["4S 5S 6S 7S 8S 9S 10S JS 2C 9D KH", "2D 3C 4C 6C 7C 10C JD QD KD KC QS"],
        "KH", "QC", deal=3,
    )
    play(game, "draw stock")
    legal(game, "open 4S 5S 6S 7S / 8S 9S 10S JS")
    melds = game.table_melds()[0]
    assert [(m.lo, m.hi) for m in melds] == [(4, 7), (8, 11)]


@pytest.mark.parametrize(
    "deal, notation",
    [
        (1, "open 8C 8D 8H"),  # one trio of two
        (1, "open 8C 8D 8H / 9C 9D 9H / 10C 10D 10H"),  # an extra meld
        (2, "open 8C 8D 8H"),  # the trio without the run
        (2, "open 4S 5S 6S 7S"),  # the run without the trio
        (2, "open 8C 8D 8H / 9C 9D 9H"),  # two trios for trio + run
        (3, "open 4S 5S 6S 7S"),  # one run of two
        (4, "open 8C 8D 8H / 9C 9D 9H"),  # two trios of three
        (5, "open 8C 8D 8H / 9C 9D 9H"),  # the trios without the run
    ],
)
def test_R6_part_of_the_contract_or_extra_meld_refused(deal, notation):
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 10C 10D 4S 5S 6S", "2D 3C 4C 6C 7C JC JD QD KD KC QS"],
        "KH", "7S", deal=deal,
    )
    play(game, "draw stock")
    # the hand after drawing 7S holds 8C 8D 8H 9C 9D 9H 10C 10D 4S 5S 6S 7S
    illegal(game, notation, "R6")
    assert game.table_melds() == [[], []] and not game.opened[0]


# ---------------------------------------------------------------------- R7 turn order


def test_R7_draw_then_meld_then_discard_in_that_order():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 2S 3S 4D 5H KD", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"],
        "KH", "QC 5D",
    )
    assert game.phase is Phase.DRAW
    illegal(game, "discard KD", "R7")
    illegal(game, "open 8C 8D 8H / 9C 9D 9H", "R7")
    assert {m.kind for m in game.legal_moves()} == {MoveKind.DRAW_STOCK, MoveKind.DRAW_DISCARD}
    play(game, "draw stock")
    assert game.phase is Phase.PLAY
    illegal(game, "draw stock", "R7")
    illegal(game, "draw discard", "R7")
    illegal(game, "discard 10S", "R7")  # a card not held
    play(game, "discard QC")
    assert game.current_player == 1 and game.phase is Phase.DRAW


def test_R7_only_the_top_discard_and_it_may_be_discarded_again():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 2S 3S 4D 5H KD", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"],
        "KH", "QC 5D 6D",
    )
    play(game, "draw stock", "discard KD", "draw stock", "discard QS")
    assert game.discard == CS("KH KD QS")
    play(game, "draw discard")  # the top card QS, not KD or KH
    assert C("QS") in game.hand(0) and C("KD") not in game.hand(0)
    assert game.discard == CS("KH KD")
    legal(game, "discard QS")  # taken from the pile and discarded again
    assert game.discard == CS("KH KD QS")
    play(game, "draw discard")
    assert C("QS") in game.hand(1) and game.top_discard == C("KD")


def test_R7_jokers_may_be_discarded_and_taken():
    game = stacked(
        ["JK 8D 8H 9C 9D 9H 2S 3S 4D 5H KD", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"],
        "KH", "QC 5D",
    )
    play(game, "draw stock")
    legal(game, "discard JK")
    assert game.top_discard == JOKER
    legal(game, "draw discard")
    assert JOKER in game.hand(1)


def test_R7_joker_upcard_is_an_ordinary_top_discard():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 2S 3S 4D 5H KD", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"],
        "JK", "QC",
    )
    assert game.discard == [JOKER] and game.hand_sizes == [11, 11]
    stock = game.stock_size
    legal(game, "draw discard")
    assert JOKER in game.hand(0) and game.discard == [] and game.stock_size == stock
    # the joker may be used in the opening like any other
    assert parse_move("open 8C 8D JK / 9C 9D 9H") in game.legal_moves()


def test_R7_discard_may_be_taken_after_opening():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 2S 3S 4D 5H KD", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"],
        "KH", "QC 5D 6D",
    )
    play(game, "draw stock", "open 8C 8D 8H / 9C 9D 9H", "discard KD", "draw stock", "discard 8S")
    assert game.opened[0]
    legal(game, "draw discard")
    legal(game, "lay 8S 0.0")


# ---------------------------------------------------------------------- R8 opening turn


def test_guide_worked_example_8S_not_on_opening_turn_then_laid_next_turn():
    game = stacked(
        ["8C 8D 8H 4S 5S 6S 7S KD QC 2H 9D", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"],
        "KH", "8S 5D 6D", deal=2,
    )
    play(game, "draw stock")
    for c in CS("8C 8D 8H 4S 5S 6S 7S 8S"):
        assert c in game.hand(0)
    legal(game, "open 8C 8D 8H / 4S 5S 6S 7S")
    assert game.hand_sizes[0] == 12 - 7  # exactly 7 cards laid
    assert game.phase is Phase.DISCARD
    illegal(game, "lay 8S 0.1 high", "R8")  # an extra card on the opening turn
    illegal(game, "lay 8S 0.0", "R8")
    assert all(m.kind is MoveKind.DISCARD for m in game.legal_moves())
    play(game, "discard KD")
    play(game, "draw stock", "discard 5D")  # the other player's turn
    play(game, "draw stock")
    assert parse_move("lay 8S 0.0") in game.legal_moves()  # the trio of eights is a choice too
    legal(game, "lay 8S 0.1 high")
    run = table_run(game, 0, 1)
    assert str(run) == "4S 5S 6S 7S 8S" and (run.lo, run.hi) == (4, 8)


def test_R8_opening_turn_allows_nothing_but_the_discard():
    game = stacked(
        ["8C 8D JK 4S 5S 6S 7S 6H 8S 9D 2C", "9C 9H 9S 4D 5D 6D 7D 8H 8D KC 10S"],
        "KH", "QC 5C 7C", deal=2,
    )
    play(game, "draw stock", "open 8C 8D JK / 4S 5S 6S 7S", "discard QC")
    play(game, "draw stock", "open 9C 9H 9S / 4D 5D 6D 7D")
    illegal(game, "lay 8H 0.0", "R8")  # not even on another player's meld
    illegal(game, "lay 8D 1.1 high", "R8")
    illegal(game, "open 9C 9H 9S / 4D 5D 6D 7D", "R8")
    illegal(game, "draw stock", "R8")
    play(game, "discard 5C")
    assert game.current_player == 0 and game.phase is Phase.DRAW


# -------------------------------------------------------------------- R9 after opening

R9_HANDS = [
    "8C 8D JK 4S 5S 6S 7S JK JK JK KD",
    "9C 9H 9S 4D 5D 6D 7D 8S 3S 8H QH",
]


def r9_game() -> Game:
    return stacked(R9_HANDS, "KH", "QC 2C 2D 3C 3D", deal=2)


def test_R9_layoff_by_a_player_who_has_not_opened_is_refused():
    game = r9_game()
    play(game, "draw stock", "open 8C 8D JK / 4S 5S 6S 7S", "discard QC")
    play(game, "draw stock")  # seat 1 has not opened
    illegal(game, "lay 8S 0.0", "R9")
    illegal(game, "lay 8S 0.1 high", "R9")
    illegal(game, "lay 3S 0.1 low", "R9")
    assert all(m.kind in (MoveKind.OPEN, MoveKind.DISCARD) for m in game.legal_moves())


def test_R9_layoff_on_other_players_melds_and_unlimited_jokers():
    game = r9_game()
    play(game, "draw stock", "open 8C 8D JK / 4S 5S 6S 7S", "discard KD")
    play(game, "draw stock", "open 9C 9H 9S / 4D 5D 6D 7D", "discard 2C")
    # seat 0: three jokers laid off after opening (one on the trio that already has one)
    play(game, "draw stock")
    legal(game, "lay JK 0.0")
    legal(game, "lay JK 0.1 high")
    legal(game, "lay JK 0.1 low")
    trio, run = game.table_melds()[0]
    assert trio.num_jokers == 2 and len(trio.cards) == 4
    assert run.num_jokers == 2 and str(run) == "JK 4S 5S 6S 7S JK"
    assert run.stands_for() == ((0, C("3S")), (5, C("8S")))
    play(game, "discard QC")  # one card (2D) kept
    # seat 1 lays off on seat 0's melds (others' melds are allowed)
    play(game, "draw stock")
    legal(game, "lay 8H 0.0")
    illegal(game, "lay 8S 0.1 high", "R4")  # the joker already stands for 8S: next is 9S
    legal(game, "swap 8S 0.1 high")  # the 8S replaces that joker, which moves up to 9S
    assert str(table_run(game, 0, 1)) == "JK 4S 5S 6S 7S 8S JK"
    illegal(game, "lay 3C 0.0", "R9")  # a trio takes only its rank
    assert game.table_melds()[0][0].cards.count(C("8H")) == 1


def test_R9_no_new_meld_after_opening():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 5C 5D 5H 6C 6D", "2D 3C 4C 7C 10C JC JD QD KC QS 10S"],
        "KH", "KD 2S 6H",
    )
    play(game, "draw stock", "open 8C 8D 8H / 9C 9D 9H", "discard KD")
    play(game, "draw stock", "discard 2S")
    play(game, "draw stock")  # 5C 5D 5H 6C 6D 6H: two more trios in hand
    assert not any(m.kind is MoveKind.OPEN for m in game.legal_moves())
    illegal(game, "open 5C 5D 5H", "R9")
    illegal(game, "open 5C 5D 5H / 6C 6D 6H", "R9")


# ------------------------------------------------------------------- R10 keep one card


def test_R10_layoff_must_keep_a_card_and_the_discard_that_empties_the_hand_closes():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 8S 8S 9S 9S 8C", "2D 3C 4C 7C 10C JC JD QD KC QS 10S"],
        "KH", "KD 2S JK",
    )
    play(game, "draw stock", "open 8C 8D 8H / 9C 9D 9H", "discard KD")
    play(game, "draw stock", "discard 2S")
    play(game, "draw stock")
    assert game.hand(0) == sorted(CS("8S 8S 9S 9S 8C JK"))
    play(game, "lay 8S 0.0", "lay 8S 0.0", "lay 9S 0.1", "lay 9S 0.1", "lay 8C 0.0")
    assert game.hand(0) == [JOKER]
    illegal(game, "lay JK 0.0", "R10")  # the last card is kept for the discard
    illegal(game, "lay JK 0.1", "R10")
    assert game.legal_moves() == [Move.discard(JOKER)]
    before = hand_penalty(game.hands[1])
    legal(game, "discard JK")
    result = game.deal_results[-1]
    assert result.closer == 0 and not result.cancelled
    assert result.scores == (0, before)
    assert game.game_over and game.totals == [0, before]


def test_R10_swap_must_keep_a_card():
    game = stacked(
        ["8C 8D 8H 4S 5S JK 7S 8S 8S 3S 6S", "2D 3C 4C 7C 10C JC JD QD KC QS 10S"],
        "KH", "KD 2H 2S", deal=2,
    )
    play(game, "draw stock", "open 8C 8D 8H / 4S 5S JK 7S", "discard KD")
    play(game, "draw stock", "discard 2H")
    play(game, "draw stock")
    play(game, "lay 8S 0.0", "lay 8S 0.0", "lay 3S 0.1 low", "lay 2S 0.1 low")
    assert game.hand(0) == [C("6S")]
    illegal(game, "swap 6S 0.1 high", "R10")
    illegal(game, "swap 6S 0.1 low", "R10")
    legal(game, "discard 6S")
    assert game.deal_results[-1].closer == 0


# ------------------------------------------------------------------------ R11 joker swap

R11_HANDS = [
    "8C 8D 8H 4S 5S JK 7S 6S 6H 3S KD",
    "2H 3H 9C 9D 10C JD QH KH KC AD 10S",
]


def r11_game() -> Game:
    game = stacked(R11_HANDS, "2C", "QD QC 2D", deal=2)
    play(game, "draw stock", "open 8C 8D 8H / 4S 5S JK 7S", "discard KD")
    play(game, "draw stock", "discard QC", "draw stock")
    return game


@pytest.mark.parametrize(
    "end, after, stands",
    [("low", "JK 4S 5S 6S 7S", "3S"), ("high", "4S 5S 6S 7S JK", "8S")],
)
def test_R11_joker_swap_moves_joker_to_open_end(end, after, stands):
    game = r11_game()
    jokers = game.hands[0][JOKER]
    size = game.hand_sizes[0]
    legal(game, f"swap 6S 0.1 {end}")
    run = table_run(game, 0, 1)
    assert str(run) == after
    assert run.stands_for()[0][1] == C(stands)
    assert game.hands[0][JOKER] == jokers  # the joker never goes to a hand
    assert game.hand_sizes[0] == size - 1 and C("6S") not in game.hand(0)
    assert len(game.table_melds()[0]) == 2 and game.table_melds()[0][0].num_jokers == 0


def test_R11_swap_card_must_be_exactly_the_card_the_joker_stands_for():
    game = r11_game()
    illegal(game, "swap 6H 0.1 low", "R11")  # right rank, wrong suit
    illegal(game, "swap 3S 0.1 low", "R11")  # right suit, another card
    illegal(game, "swap 6S 0.0 low", "R11")  # the trio has no joker
    assert {str(m) for m in game.legal_moves() if m.kind is MoveKind.SWAP} == {
        "swap 6S 0.1 low", "swap 6S 0.1 high"}
    legal(game, "swap 6S 0.1 low")  # JK 4S 5S 6S 7S: the joker now stands for 3S
    legal(game, "swap 3S 0.1 high")  # so 3S replaces it and it moves to 8S
    assert str(table_run(game, 0, 1)) == "3S 4S 5S 6S 7S JK"


def test_R11_joker_in_a_trio_is_never_moved():
    game = stacked(
        ["8C 8D JK 4S 5S 6S 7S 8H 8S 2D KD", "2H 3H 9C 9D 10C JD QH KH KC AD 10S"],
        "2C", "QD QC 3D", deal=2,
    )
    play(game, "draw stock", "open 8C 8D JK / 4S 5S 6S 7S", "discard KD")
    play(game, "draw stock", "discard QC", "draw stock")
    illegal(game, "swap 8H 0.0 low", "R11")
    illegal(game, "swap 8S 0.0 high", "R11")
    assert not any(m.kind is MoveKind.SWAP for m in game.legal_moves())
    legal(game, "lay 8H 0.0")  # the eight is laid off instead; the joker stays
    assert game.table_melds()[0][0].cards == tuple(CS("8H 8D 8C JK"))


def test_R11_swap_before_opening_is_refused():
    game = stacked(
        ["8C 8D 8H 4S 5S JK 7S 2S 2H 3S KD", "6S 3H 9C 9D 10C JD QH KH KC AD 10S"],
        "2C", "QD QC 2D", deal=2,
    )
    play(game, "draw stock", "open 8C 8D 8H / 4S 5S JK 7S", "discard KD", "draw stock")
    assert not game.opened[1]
    illegal(game, "swap 6S 0.1 low", "R11")
    assert not any(m.kind is MoveKind.SWAP for m in game.legal_moves())


def test_R11_no_swap_on_the_opening_turn():
    game = stacked(
        ["8C 8D 8H 4S 5S JK 7S 6S 9D 2C KD", "9C 9H 9S 4D 5D 6D 7D JD QD KC 10S"],
        "KH", "QC 3C 4C", deal=2,
    )
    play(game, "draw stock", "open 8C 8D 8H / 4S 5S JK 7S")
    illegal(game, "swap 6S 0.1 high", "R8")  # the opening turn allows only the discard
    illegal(game, "swap 6S 0.1 low", "R8")
    play(game, "discard KD", "draw stock", "discard 3C", "draw stock")
    legal(game, "swap 6S 0.1 high")  # the next turn it may


def test_R11_joker_standing_for_low_ace_moves_only_up():
    game = stacked(
        ["8C 8D 8H JK 2S 3S 4S AS 9C 10D 5H", "2C 3C 4C 6C 7C 9D 10C JD QD KD KC"],
        "KH", "QC QS 7D", deal=2,
    )
    play(game, "draw stock", "open 8C 8D 8H / JK 2S 3S 4S", "discard QC")
    play(game, "draw stock", "discard QS", "draw stock")
    illegal(game, "swap AS 0.1 low", "R11")  # nothing below the low ace
    legal(game, "swap AS 0.1 high")
    run = table_run(game, 0, 1)
    assert str(run) == "AS 2S 3S 4S JK" and run.stands_for() == ((4, C("5S")),)


def test_R11_joker_standing_for_high_ace_moves_only_down():
    game = stacked(
        ["8C 8D 8H JS QS KS JK AS 9C 10D 5H", "2C 3C 4C 6C 7C 9D 10C JD QD KD KC"],
        "KH", "QC QH 7D", deal=2,
    )
    play(game, "draw stock", "open 8C 8D 8H / JS QS KS JK", "discard QC")
    play(game, "draw stock", "discard QH", "draw stock")
    illegal(game, "swap AS 0.1 high", "R11")
    legal(game, "swap AS 0.1 low")
    run = table_run(game, 0, 1)
    assert str(run) == "JK JS QS KS AS" and run.stands_for() == ((0, C("10S")),)


# ------------------------------------------------------------------- R12 deals 6 and 7


@pytest.mark.parametrize(
    "deal, hand, opening",
    [
        (6, CLOSER_6, CLOSER_6_OPEN),
        (7, "4S 5S 6S 7S 4H 5H 6H 7H 4D 5D 6D 7D", "open 4S 5S 6S 7S / 4H 5H 6H 7H / 4D 5D 6D 7D"),
    ],
)
@pytest.mark.parametrize("n", [2, 4])
def test_R12_opening_in_deals_6_and_7_is_followed_by_the_closing_discard(deal, hand, opening, n):
    size = 12 if deal == 7 else 11
    fillers = ["AC 2C 3C 9C 10C JC QC KC AD 2D 3D 9D", "AH 2H 3H 9H 10H JH QH KH AS 2S 3S 9S",
               "9C 10C JC QC KC AC 2C 3C 8S 9D 10D JD"]
    hands = [hand] + [" ".join(f.split()[:size]) for f in fillers[: n - 1]]
    game = stacked(hands, "10S", "KD", deal=deal)
    assert game.hand_sizes == [size] * n
    play(game, "draw stock")
    assert game.hand_sizes[0] == size + 1 == CONTRACTS[deal].cards + 1
    legal(game, opening)
    assert game.hand_sizes[0] == 1 and game.hand(0) == [C("KD")]
    assert game.phase is Phase.DISCARD
    assert game.legal_moves() == [Move.discard(C("KD"))]
    play(game, "discard KD")
    result = game.deal_results[-1]
    assert result.closer == 0 and result.scores[0] == 0 and result.turns == 1
    assert result.scores[1:] == tuple(hand_penalty(counts_of(CS(h))) for h in hands[1:])
    assert game.game_over


# ------------------------------------------------------------------- R13 empty stock


def test_R13_empty_stock_keeps_top_discard_and_reshuffles_the_rest():
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=3)
    s0 = game.stock_size
    assert s0 == 108 - 22 - 1
    for i in range(s0):  # every turn: draw from the stock, discard the card drawn
        assert game.phase is Phase.DRAW
        assert game.stock_size == s0 - i and len(game.discard) == 1 + i
        seat = game.current_player
        before = Counter(game.hand(seat))
        play(game, "draw stock")
        (drawn,) = (Counter(game.hand(seat)) - before).elements()
        pile_before = list(game.discard)
        game.apply(Move.discard(drawn))
    # the last draw emptied the stock; at the next turn's start the pile is turned over
    assert game.stock_size == s0 and game.discard == [drawn]  # the top discard stays
    assert Counter(game.stock) == Counter(pile_before)
    assert game.stock != pile_before and game.stock != pile_before[::-1]  # shuffled
    assert game.history[-1].kind == "recycle"
    assert game.phase is Phase.DRAW and game.deal_results == []
    assert all_cards(game) == FULL
    play(game, "draw stock")  # play goes on from the new stock
    assert game.stock_size == s0 - 1


def test_R13_cancel_is_unreachable_through_legal_play_pile_counts():
    """Each turn has one draw and one discard, so at a turn's start the pile holds
    1 + (stock draws since the deal or the last recycle), and the stock holds S0 minus
    those draws (S0 >= 1).  An empty stock thus always meets a pile of S0 + 1 >= 2 cards:
    the cancel case of R13 cannot arise in legal play.  Checked over random play."""
    rng = random.Random(5)
    recycles = 0
    for seed in range(3):
        game = Game(GameConfig(num_players=2 + seed, deals=(1,)), seed=seed)
        s0, stock_draws = game.stock_size, 0
        for _ in range(250):
            assert game.phase is Phase.DRAW
            assert len(game.discard) == 1 + stock_draws
            assert game.stock_size == s0 - stock_draws
            draw = Move.draw_stock() if rng.random() < 0.8 else Move.draw_discard()
            game.apply(draw)
            stock_draws += draw.kind is MoveKind.DRAW_STOCK
            discards = [m for m in game.legal_moves() if m.kind is MoveKind.DISCARD]
            game.apply(rng.choice(discards))
            if game.history[-1].kind == "recycle":
                recycles += 1
                s0, stock_draws = game.stock_size, 0
                assert s0 >= 1
            assert game.deal_results == []
    assert recycles >= 3


def test_R13_nothing_to_recycle_cancels_the_deal_and_redeals():
    """Constructed state (unreachable in legal play): the player takes the only discard,
    the stock is emptied by hand, and the discard that ends the turn leaves one card."""
    hands = ["8C 8D 8H 9C 9D 9H 2S 3S 4D 5H KD", "2D 3C 4C 6C 7C JC JD QD KC QS 8S"]
    game = stacked(hands, "KH", "QC 5D", dealer=1, seed=11)
    game.totals = [7, 9]  # earlier deals' totals must be left alone
    play(game, "draw discard")  # the upcard, the pile's only card
    assert game.discard == []
    game.stock = []  # constructed: nothing left to draw
    play(game, "discard KD")
    result = game.deal_results[-1]
    assert result.cancelled and result.closer == -1 and result.scores == (0, 0)
    assert (result.deal, result.dealer) == (1, 1)
    assert game.totals == [7, 9] and game.deal_scores == []
    # a fresh deal of the same contract by the same dealer
    assert game.deal_number == 1 and game.deal_index == 0 and game.dealer == 1
    assert game.current_player == 0 and game.phase is Phase.DRAW
    assert game.hand_sizes == [11, 11] and len(game.discard) == 1 and game.stock_size == 85
    assert game.table_melds() == [[], []] and game.opened == [False, False]
    assert all_cards(game) == FULL  # all 108 cards shuffled again
    assert game.hand(0) != sorted(CS(hands[0]))
    assert not game.game_over


# ----------------------------------------------------------------------- R14 scoring


def test_guide_scoring_example_A_Q_3_is_33():
    game = stacked(
        ["8C 8D 8H 9C 9D 9H 8S 9S 8C 9C KD", "5C 5D 5H 6C 6D 6H AH QS 3D 5S 6S"],
        "10S", "2C KC 8H KC 4C",
    )
    play(game, "draw stock", "open 8C 8D 8H / 9C 9D 9H", "discard KD")
    play(game, "draw stock", "open 5C 5D 5H / 6C 6D 6H", "discard KC")
    play(game, "draw stock", "lay 8S 0.0", "lay 9S 0.1", "discard 2C")
    play(game, "draw stock", "lay 5S 1.0", "lay 6S 1.1", "discard KC")
    assert game.hand(1) == sorted(CS("AH QS 3D"))
    play(game, "draw stock", "lay 8C 0.0", "lay 9C 0.1", "lay 8H 0.0", "discard 4C")
    result = game.deal_results[0]
    assert result.closer == 0
    assert result.scores == (0, 33)  # 20 + 10 + 3; the melded cards carry nothing
    assert game.totals == [0, 33] and game.winners == (0,)


def test_R14_card_values_and_totals_accumulate():
    n = 3
    hand1 = "JK AS KD QC JH 10S 9S 2C 3H 4D 5C"  # 50+20+10+10+10+10+9+2+3+4+5 = 133
    hand2 = "2D 2H 3D 3C 4C 5D 6C 7C 9D 10D 10C"  # 61
    assert hand_penalty(counts_of(CS(hand1))) == 133
    assert hand_penalty(counts_of(CS(hand2))) == 61
    game = Game.from_deck(closing_deck(n, 2, {1: hand1, 2: hand2}), 2, GameConfig(n, deals=(6, 7)))
    deal7 = stack_deck(
        [CS("2D 2H 3D 3C 4C 5D 6C 7C 9D 10D 10C JC"),  # 71
         CS("4S 5S 6S 7S 4H 5H 6H 7H 4D 5D 6D 7D"),
         CS("AC AC AD AD AH AH KC KC KH KH QH QH")],  # 6 x 20 + 6 x 10 = 180
        C("2S"), CS("KD"), 0)
    game.rng = QueuedDecks([deal7])
    close_first_turn(game)
    assert game.deal_results[0].scores == (0, 133, 61)
    assert game.totals == [0, 133, 61]
    assert game.current_player == 1 and game.hand_sizes == [12] * 3
    play(game, "draw stock", "open 4S 5S 6S 7S / 4H 5H 6H 7H / 4D 5D 6D 7D", "discard KD")
    assert game.deal_results[1].scores == (71, 0, 180)
    assert game.totals == [71, 133, 241]
    assert game.winners == (0,)


# --------------------------------------------------------------------------- R15 end


def test_R15_equal_lowest_totals_share_the_victory():
    n = 3
    low = "2C 2D 3C 3D 9C 9D 10C 10D JC JD QC"  # 78
    high = "KC KC KH KH QH QH JH JH 10H 10H AS"  # 120
    game = Game.from_deck(closing_deck(n, 2, {1: low, 2: high}), 2, GameConfig(n, deals=(6, 6)))
    game.rng = QueuedDecks([closing_deck(n, 0, {0: low, 2: "AD 2S 3S 9S 10S JS QS KS 2H 3H 9H"})])
    close_first_turn(game)  # seat 0 closes deal 1
    assert game.totals == [0, 78, 120] and not game.game_over
    close_first_turn(game)  # seat 1 closes deal 2
    assert game.totals == [78, 78, 120 + 20 + 2 + 3 + 9 + 10 + 10 + 10 + 10 + 2 + 3 + 9]
    assert game.game_over and game.phase is Phase.GAME_OVER
    assert game.winners == (0, 1)  # shared, and no extra deal
    assert len(game.deal_results) == 2 and game.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        game.push("draw stock")


# ------------------------------------------------------------------------ R16 misdeal


def _setup_spy(monkeypatch) -> list:
    calls: list = []
    original = Game._setup

    def spy(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Game, "_setup", spy)
    return calls


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: d[:-1], ["108", "107"]),
        (lambda d: d + [C("8S")], ["108", "109"]),
        (lambda d: [C("8S") if c == C("9S") and i % 2 == 0 else c for i, c in enumerate(d)], ["8S x3", "9S"]),
        (lambda d: [JOKER if c == C("AH") else c for c in d], ["JK x6", "AH x0"]),
        (lambda d: d[:-1] + [53], ["53"]),
        (lambda d: d[:-1] + [-1], ["-1"]),
        (lambda d: d[:-1] + ["8S"], ["8S"]),
        (lambda d: d[:-1] + [None], ["None"]),
        (lambda d: d[:-1] + [7.0], ["7.0"]),
        (lambda d: [True if c == 1 else c for c in d], ["True"]),  # a bool is no card type
    ],
)
def test_R16_bad_deck_refused_with_a_clear_error_and_nothing_created(monkeypatch, make, words):
    deck = full_deck()  # ordered: the two copies of a card side by side
    bad = make(deck)
    calls = _setup_spy(monkeypatch)
    with pytest.raises(MisdealError) as exc:
        Game.from_deck(bad, 0, GameConfig(num_players=2))
    message = str(exc.value)
    for w in words:
        assert w in message, f"{message!r} should mention {w!r}"
    assert calls == []  # refused before anything is dealt
    Game.from_deck(deck, 0, GameConfig(num_players=2))
    assert len(calls) == 1


def test_R16_stack_deck_refuses_a_third_copy():
    with pytest.raises(MisdealError, match="8S"):
        stack_deck([CS("8S 8S 8S 2C 3C 4C 5C 6C 7C 9C 10C"), CS("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD")], C("KH"))
    with pytest.raises(InvalidConfigError):
        Game.from_deck(full_deck(), 2, GameConfig(num_players=2))
    assert deck_counts()[JOKER] == 4
