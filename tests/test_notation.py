"""Card and move notation: round trips, symbols and case, and helpful errors for bad text."""

from __future__ import annotations

import random

import pytest

from carioca_env import (
    JOKER,
    End,
    Game,
    GameConfig,
    InvalidNotationError,
    Meld,
    Move,
    MoveKind,
    card_str,
    card_symbol,
    cards_str,
    make_card,
    parse_card,
    parse_cards,
    parse_move,
)

SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

# ------------------------------------------------------------------------------ cards


def test_all_53_card_types_round_trip():
    seen = set()
    for c in range(53):
        text = card_str(c)
        seen.add(text)
        assert parse_card(text) == c
        assert parse_card(text.lower()) == c
        assert parse_card(card_symbol(c)) == c
        assert parse_card(card_symbol(c).lower()) == c
        assert parse_card(f"  {text} ") == c
    assert len(seen) == 53
    assert card_str(JOKER) == "JK" and parse_card("jk") == parse_card("Jk") == JOKER
    assert parse_card("🃏") == JOKER


def test_card_strings_by_rank_and_suit():
    for s, letter in enumerate(SUITS):
        for r, name in enumerate(RANKS, start=1):
            c = make_card(r, s)
            assert card_str(c) == name + letter
            assert card_symbol(c) == name + "♠♥♦♣"[s]
            assert parse_card(name + "♠♥♦♣"[s]) == c
            assert parse_card((name + letter).lower()) == c
    assert parse_card("10h") == make_card(10, 1)
    assert parse_card("a♣") == make_card(1, 3)
    assert parse_card("q♦") == make_card(12, 2)


def test_parse_cards_and_cards_str():
    cards = parse_cards("8S 10h ac JK 2♦")
    assert cards == [make_card(8, 0), make_card(10, 1), make_card(1, 3), JOKER, make_card(2, 2)]
    assert cards_str(cards) == "8S 10H AC JK 2D"
    assert parse_cards(cards_str(cards, symbols=True)) == cards
    assert parse_cards("") == []


@pytest.mark.parametrize(
    "text",
    ["", " ", "1S", "11S", "0S", "8X", "S8", "8", "10", "JKK", "JOKER", "AS5", "8 S", "♠8",
     "88S", "1OS", "K", "Z♠", "8♠♠", "JK8", "-8S", "8s,"],
)
def test_malformed_card_raises_with_a_helpful_message(text):
    with pytest.raises(InvalidNotationError) as exc:
        parse_card(text)
    message = str(exc.value)
    assert repr(text) in message  # says which text
    assert "rank then suit" in message and "JK" in message  # says what would be right
    assert isinstance(exc.value, ValueError)


def test_malformed_card_inside_a_list():
    with pytest.raises(InvalidNotationError, match="'9X'"):
        parse_cards("8S 9X 10S")


def test_card_str_rejects_non_card_types():
    for bad in (-1, 53, 100):
        with pytest.raises(ValueError):
            card_str(bad)


# ------------------------------------------------------------------------------ moves

S, H, D, Cl = 0, 1, 2, 3


def sample_moves() -> list[Move]:
    moves = [Move.draw_stock(), Move.draw_discard()]
    moves += [Move.discard(c) for c in range(53)]
    openings = [
        [Meld.trio(8, (3, 2, 1)), Meld.trio(9, (0, 0, 1))],  # same-suit copies
        [Meld.trio(1, (1, 2), 1), Meld.run(S, 1)],  # aces: a trio, a low run A 2 3 4
        [Meld.trio(13, (0, 3), 1), Meld.run(H, 11)],  # high run J Q K A
        [Meld.run(S, 11, 4, (14,)), Meld.run(S, 1, 4, (1,))],  # jokers as high and low aces
        [Meld.run(D, 4, 4, (6,)), Meld.run(D, 8)],  # two runs of one suit that would join
        [Meld.trio(8, (0, 1, 2)), Meld.trio(8, (0, 1), 1), Meld.trio(10, (3, 3, 2))],
        [Meld.trio(2, (0, 1, 2)), Meld.trio(3, (1,), 2), Meld.run(Cl, 2, 4, (2,))],
        [Meld.trio(12, (0, 1), 1), Meld.run(S, 10, 4, (13,)), Meld.run(H, 1, 4, (4,))],
        [Meld.run(S, 1, 4, (3,)), Meld.run(H, 5, 4, (5,)), Meld.run(Cl, 11, 4, (12,))],
        [Meld.run(D, 2), Meld.run(D, 6), Meld.run(D, 10)],
    ]
    moves += [Move.open(o) for o in openings]
    moves += [Move.open(list(reversed(o))) for o in openings]
    for card in (make_card(8, 0), make_card(10, 1), make_card(1, 3), JOKER):
        for owner, index in ((0, 0), (1, 2), (3, 1), (2, 11)):
            moves.append(Move.lay_off(card, owner, index))
            moves.append(Move.lay_off(card, owner, index, End.LOW))
            moves.append(Move.lay_off(card, owner, index, End.HIGH))
            if card != JOKER:
                moves.append(Move.swap(card, owner, index, End.LOW))
                moves.append(Move.swap(card, owner, index, End.HIGH))
    return moves


def test_every_move_kind_round_trips():
    moves = sample_moves()
    assert {m.kind for m in moves} == set(MoveKind)
    for m in moves:
        text = str(m)
        assert parse_move(text) == m, text
        assert Move.parse(text) == m
        assert str(parse_move(text)) == text
        assert parse_move(text.upper()) == m  # case does not matter
        assert parse_move("  " + text.replace(" ", "   ") + " ") == m  # nor spacing


def test_move_notation_examples():
    assert str(Move.draw_stock()) == "draw stock"
    assert str(Move.draw_discard()) == "draw discard"
    assert str(Move.discard(JOKER)) == "discard JK"
    opening = parse_move("open 4S 5S JK 7S / 8C 8D 8H")
    assert str(opening) == "open 8H 8D 8C / 4S 5S JK 7S"  # canonical: trios first, suits ordered
    assert opening == parse_move("open 8H 8C 8D / 4S 5S JK 7S")
    assert opening.melds[1].stands_for() == ((2, make_card(6, 0)),)
    assert parse_move("open JH QH KH AH / 8C 8D JK").melds[1].hi == 14
    assert parse_move("open AH 2H 3H 4H / 8C 8D JK").melds[1].lo == 1
    assert parse_move("open JK 2H 3H 4H / 8C 8D JK").melds[1].stands_for() == ((0, make_card(1, 1)),)
    assert parse_move("open JH QH KH JK / 8C 8D JK").melds[1].stands_for() == ((3, make_card(1, 1)),)
    assert parse_move("lay 8S 1.0") == Move.lay_off(make_card(8, 0), 1, 0)
    assert parse_move("lay 8S 0.1 high") == Move.lay_off(make_card(8, 0), 0, 1, End.HIGH)
    assert parse_move("swap 5S 0.1 low") == Move.swap(make_card(5, 0), 0, 1, End.LOW)
    assert parse_move("lay 8♠ 1.0") == parse_move("lay 8s 1.0")


def test_legal_moves_of_random_games_round_trip():
    kinds = set()
    rng = random.Random(1)
    configs = [(2, (1, 2)), (3, (3, 4)), (4, (5, 6, 7)), (2, (6, 7)), (2, (2, 3)), (3, (2, 3)),
               (4, (1, 2, 3)), (2, (4, 5))]
    for seed, (n, deals) in enumerate(configs):
        game = Game(GameConfig(num_players=n, deals=deals), seed=seed)
        for _ in range(1500):
            if game.game_over:
                break
            moves = game.legal_moves()
            for m in moves:
                kinds.add(m.kind)
                text = str(m)
                assert parse_move(text) == m, text
            assert len(set(moves)) == len(moves)
            # biased play so that openings, lay-offs and swaps happen
            for kind in (MoveKind.OPEN, MoveKind.SWAP, MoveKind.LAY_OFF):
                options = [m for m in moves if m.kind is kind]
                if options:
                    move = rng.choice(options)
                    break
            else:
                move = rng.choice(moves)
            game.push(str(move))
    assert kinds == set(MoveKind)


@pytest.mark.parametrize(
    "text, why, quoted",
    [
        ("", "empty", ""),
        ("   ", "empty", "   "),
        ("draw", "draw what", "draw"),
        ("draw hand", "draw what", "draw hand"),
        ("draw stock discard", "draw what", "draw stock discard"),
        ("discard", "one card", "discard"),
        ("discard 8S 9S", "one card", "discard 8S 9S"),
        ("discard 8X", "not a card", "8X"),
        ("open", "separated by '/'", "open"),
        ("open 8S 8H 8D /", "separated by '/'", "open 8S 8H 8D /"),
        ("open / 8S 8H 8D", "separated by '/'", "open / 8S 8H 8D"),
        ("open 8S 8H 8D // 9S 9H 9D", "separated by '/'", "open 8S 8H 8D // 9S 9H 9D"),
        ("open 8S 8H", "opening meld", "8S 8H"),
        ("open 8S 8H 8D / 4S", "opening meld", "4S"),
        ("open 8S 8H 9D / 4S 5S 6S 7S", "not a trio", "8S 8H 9D"),
        ("open 8S 8H 8D / 4S 5S 7S 8S", "not a run", "4S 5S 7S 8S"),
        ("open 8S 8H 8D / 4S 5H 6S 7S", "not a run", "4S 5H 6S 7S"),
        ("open 8S 8H 8D / 7S 6S 5S 4S", "not a run", "7S 6S 5S 4S"),
        ("open 8S 8H 8D / QS KS AS 2S", "not a run", "QS KS AS 2S"),
        ("open 8S 8H 8D / KS AS 2S 3S", "not a run", "KS AS 2S 3S"),
        ("open JK JK JK / 4S 5S 6S 7S", "not a trio", "JK JK JK"),
        ("open 8S 8H 8D / JK JK JK JK", "not a run", "JK JK JK JK"),
        ("open 8S 8H 8Q", "not a card", "8Q"),
        ("lay", "expected a card", "lay"),
        ("lay 8S", "expected a card", "lay 8S"),
        ("lay 8S 1", "seat.index", "lay 8S 1"),
        ("lay 8S a.b", "seat.index", "lay 8S a.b"),
        ("lay 8S 1.", "seat.index", "lay 8S 1."),
        ("lay 8S .1", "seat.index", "lay 8S .1"),
        ("lay 8S -1.0", "seat.index", "lay 8S -1.0"),
        ("lay 8S 0.1 middle", "'low' or 'high'", "lay 8S 0.1 middle"),
        ("lay 8S 0.1 high extra", "expected a card", "lay 8S 0.1 high extra"),
        ("lay 8X 0.1 high", "not a card", "8X"),
        ("swap 5S 0.1", "low or high", "swap 5S 0.1"),
        ("swap 5S", "expected a card", "swap 5S"),
        ("swap 5S 0.1 up", "'low' or 'high'", "swap 5S 0.1 up"),
        ("fly 8S", "unknown verb", "fly 8S"),
        ("8S", "unknown verb", "8S"),
        ("discard8S", "unknown verb", "discard8S"),
    ],
)
def test_malformed_move_raises_with_a_helpful_message(text, why, quoted):
    """The message names the faulty text (the move, or the meld or card at fault) and why."""
    with pytest.raises(InvalidNotationError) as exc:
        parse_move(text)
    message = str(exc.value)
    assert why in message, message
    assert quoted in message, message


def test_move_error_lists_the_forms():
    with pytest.raises(InvalidNotationError) as exc:
        parse_move("jump 8S")
    message = str(exc.value)
    for form in ("draw stock", "draw discard", "discard 8S", "open ", "lay 8S 1.0", "swap 5S 0.1 low"):
        assert form in message
