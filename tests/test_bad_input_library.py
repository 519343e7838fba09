"""Catalogue of bad input at the library boundary (cards, moves, melds, Game, GameConfig).

Each class of bad input is a list of cases; every case must raise the expected type
(a project error, or a project error that is also the ``TypeError``/``ValueError`` a
caller would expect), with a message that names the problem, and change nothing.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from carioca_env import (
    JOKER,
    CariocaError,
    Game,
    GameConfig,
    IllegalMoveError,
    InvalidConfigError,
    InvalidNotationError,
    Meld,
    MeldKind,
    Move,
    MoveKind,
    parse_card,
    parse_move,
)
from carioca_env.cards import full_deck
from carioca_env.decks import stack_deck
from carioca_env.determinize import determinize_view
from carioca_env.errors import (
    EXCERPT_CHARS,
    ArgumentTypeError,
    InvalidArgumentError,
    MalformedMoveError,
    excerpt,
)
from carioca_env.position import InvalidPositionError, position_of

from bad_input import fingerprint

HUGE = "8" * 1_000_000 + "S"

#: (label, call on a fresh 2-player game in the draw phase, error type, words the message holds)
WRONG_TYPES = [
    ("parse_card(None)", lambda g: parse_card(None), ArgumentTypeError, ["string", "NoneType"]),
    ("parse_card(8)", lambda g: parse_card(8), ArgumentTypeError, ["string", "int 8"]),
    ("parse_card(b'8S')", lambda g: parse_card(b"8S"), ArgumentTypeError, ["string", "bytes"]),
    ("parse_move(42)", lambda g: parse_move(42), ArgumentTypeError, ["string", "int 42"]),
    ("parse_move(None)", lambda g: parse_move(None), ArgumentTypeError, ["string", "NoneType"]),
    ("parse_move(['draw'])", lambda g: parse_move(["draw", "stock"]), ArgumentTypeError, ["string", "list"]),
    ("Meld.parse(3)", lambda g: Meld.parse(3), ArgumentTypeError, ["string", "int"]),
    ("apply(None)", lambda g: g.apply(None), ArgumentTypeError, ["Move", "NoneType"]),
    ("apply('draw stock')", lambda g: g.apply("draw stock"), ArgumentTypeError, ["Move", "parse_move", "push"]),
    ("apply(0)", lambda g: g.apply(0), ArgumentTypeError, ["Move", "int"]),
    ("apply(Move(7))", lambda g: g.apply(Move(7)), MalformedMoveError, ["MoveKind", "7"]),
    ("apply(Move(0))", lambda g: g.apply(Move(0)), MalformedMoveError, ["MoveKind", "int 0"]),
    ("apply(discard(True))", lambda g: g.apply(Move.discard(True)), MalformedMoveError, ["card type", "bool"]),
    ("apply(discard(8.0))", lambda g: g.apply(Move.discard(8.0)), MalformedMoveError, ["card type", "float"]),
    ("apply(discard(np.int64(8)))", lambda g: g.apply(Move.discard(np.int64(8))), MalformedMoveError, ["card type"]),
    ("apply(lay_off end='low')", lambda g: g.apply(Move.lay_off(8, 0, 0, "low")), MalformedMoveError, ["end", "str"]),
    ("apply(swap end None)", lambda g: g.apply(Move(MoveKind.SWAP, card=8, owner=0, index=0)), MalformedMoveError, ["end"]),
    ("apply(open melds=list)", lambda g: g.apply(Move(MoveKind.OPEN, melds=[1, 2])), MalformedMoveError, ["tuple of Meld"]),
    ("Move.open('8S 8H 8D')", lambda g: Move.open("8S 8H 8D"), MalformedMoveError, ["list or tuple of Meld", "str"]),
    ("Move.open([None])", lambda g: Move.open([None]), MalformedMoveError, ["Meld values", "NoneType"]),
    ("is_legal(None)", lambda g: g.is_legal(None), ArgumentTypeError, ["Move"]),
    ("check('draw stock')", lambda g: g.check("draw stock"), ArgumentTypeError, ["Move"]),
    ("Game({'num_players': 2})", lambda g: Game({"num_players": 2}), ArgumentTypeError, ["GameConfig", "dict", "from_dict"]),
    ("Game(2)", lambda g: Game(2), ArgumentTypeError, ["GameConfig", "int"]),
    ("Game(seed='x')", lambda g: Game(seed="x"), InvalidConfigError, ["seed", "str"]),
    ("Game(seed=1.5)", lambda g: Game(seed=1.5), InvalidConfigError, ["seed", "float"]),
    ("Game.from_deck(None, 0)", lambda g: Game.from_deck(None, 0), ArgumentTypeError, ["deck", "NoneType"]),
    ("Game.from_deck('8S'*108, 0)", lambda g: Game.from_deck("8S" * 108, 0), ArgumentTypeError, ["deck", "str"]),
    ("from_deck(dealer='0')", lambda g: Game.from_deck(full_deck(), "0"), InvalidConfigError, ["dealer", "str"]),
    ("hand(3)", lambda g: g.hand(3), InvalidArgumentError, ["seat", "0..1", "3"]),
    ("hand(-1)", lambda g: g.hand(-1), InvalidArgumentError, ["seat", "0..1", "-1"]),
    ("hand('0')", lambda g: g.hand("0"), ArgumentTypeError, ["seat", "str"]),
    ("hand(True)", lambda g: g.hand(True), ArgumentTypeError, ["seat", "bool"]),
    ("hand(0.0)", lambda g: g.hand(0.0), ArgumentTypeError, ["seat", "float"]),
    ("view(2)", lambda g: g.view(2), InvalidArgumentError, ["seat", "0..1"]),
    ("view(None)", lambda g: g.view(None), ArgumentTypeError, ["seat", "NoneType"]),
    ("GameConfig(deals=(1.0,))", lambda g: GameConfig(deals=(1.0,)), InvalidConfigError, ["deals", "1.0"]),
    ("GameConfig(deals=(True,))", lambda g: GameConfig(deals=(True,)), InvalidConfigError, ["deals", "True"]),
    ("GameConfig(deals=(8,))", lambda g: GameConfig(deals=(8,)), InvalidConfigError, ["deals", "1..7"]),
    ("GameConfig(deals=())", lambda g: GameConfig(deals=()), InvalidConfigError, ["non-empty"]),
    ("GameConfig(deals='123')", lambda g: GameConfig(deals="123"), InvalidConfigError, ["deals", "str"]),
    ("GameConfig(deals=3)", lambda g: GameConfig(deals=3), InvalidConfigError, ["deals", "int"]),
    ("GameConfig(deals=None)", lambda g: GameConfig(deals=None), InvalidConfigError, ["deals"]),
    ("GameConfig(num_players=True)", lambda g: GameConfig(num_players=True), InvalidConfigError, ["num_players", "bool"]),
    ("GameConfig(num_players=2.0)", lambda g: GameConfig(num_players=2.0), InvalidConfigError, ["num_players", "float"]),
    ("GameConfig(num_players='2')", lambda g: GameConfig(num_players="2"), InvalidConfigError, ["num_players", "str"]),
    ("GameConfig(num_players=5)", lambda g: GameConfig(num_players=5), InvalidConfigError, ["num_players", "2, 3 or 4"]),
    ("GameConfig.from_dict([])", lambda g: GameConfig.from_dict([]), InvalidConfigError, ["num_players", "deals"]),
    ("GameConfig.from_dict(extra key)", lambda g: GameConfig.from_dict({"num_players": 2, "deals": [1], "x": 1}), InvalidConfigError, ["keys"]),
]

#: notation that does not parse: (label, text, words the message holds)
NOTATION = [
    ("superscript seat", "lay 8S ².0", ["seat.index", "².0"]),
    ("superscript index", "lay 8S 0.³ high", ["seat.index"]),
    ("arabic-indic digit", "lay 8S ٣.0", ["seat.index"]),
    ("5000-digit seat", "lay 8S " + "9" * 5000 + ".0", ["seat.index", "characters"]),
    ("negative seat", "lay 8S -1.0", ["seat.index"]),
    ("huge card", HUGE, ["not a move", "characters"]),
    ("huge discard", "discard " + HUGE, ["not a card", "characters"]),
    ("huge verb", "x" * 100_000, ["unknown verb", "characters"]),
    ("huge open", "open " + "8S " * 100_000, ["not a", "characters"]),
    ("nul byte", "discard 8S\x00", ["not a card"]),
    ("two-card meld", "open 8S 8H", ["opening meld"]),
    ("15-card run", "open " + " ".join(["2S"] * 15), ["not a"]),
    ("all-joker trio", "open JK JK JK", ["not a trio"]),
]


#: the engine's other entry points: a position and a determinization (label, call, error, words)
WRONG_TYPES += [
    ("determinize(0, 5)", lambda g: g.determinize(0, 5), ArgumentTypeError, ["rng", "int 5", "random.Random"]),
    ("determinize(0, None)", lambda g: g.determinize(0, None), ArgumentTypeError, ["rng", "NoneType"]),
    ("determinize(0, 'seed')", lambda g: g.determinize(0, "seed"), ArgumentTypeError, ["rng", "str 'seed'"]),
    ("determinize(0, 1.5)", lambda g: g.determinize(0, 1.5), ArgumentTypeError, ["rng", "float"]),
    ("determinize_view(view, 5)", lambda g: determinize_view(g.view(0), 5), ArgumentTypeError, ["rng", "int 5"]),
    ("from_position(deal_results=5)", lambda g: Game.from_position(replace(position_of(g), deal_results=5)),
     InvalidPositionError, ["deal_results", "sequence", "int"]),
    ("from_position(deal_results=[5])", lambda g: Game.from_position(replace(position_of(g), deal_results=[5])),
     InvalidPositionError, ["deal_results", "DealResult", "int 5"]),
    ("from_position(deal_results='ab')", lambda g: Game.from_position(replace(position_of(g), deal_results="ab")),
     InvalidPositionError, ["deal_results", "sequence", "str"]),
]


def test_the_field_of_a_bad_deal_results_is_named_and_good_ones_are_kept() -> None:
    game, rng = Game(GameConfig(num_players=2, deals=(1, 2)), seed=3), random.Random(0)
    for _ in range(5000):  # random play closes deal 1 (269 moves with these seeds)
        if game.deal_results:
            break
        game.apply(rng.choice(game.legal_moves()))
    with pytest.raises(InvalidPositionError) as info:
        Game.from_position(replace(position_of(game), deal_results=(game.deal_results[0], "x")))
    assert info.value.field == "deal_results"
    again = Game.from_position(position_of(game))
    assert again.deal_results == game.deal_results


def test_determinize_takes_either_generator_and_the_same_seed_gives_the_same_game() -> None:
    game = Game(GameConfig(num_players=3, deals=(1,)), seed=5)
    a, b = game.determinize(1, random.Random(9)), game.determinize(1, random.Random(9))
    assert a.hands == b.hands and a.view(1) == game.view(1)
    c = game.determinize(1, np.random.default_rng(9))
    assert c.view(1) == game.view(1)


@pytest.fixture
def game() -> Game:
    return Game(GameConfig(num_players=2, deals=(1,)), seed=4)


@pytest.mark.parametrize("label, call, error, words", WRONG_TYPES, ids=[c[0] for c in WRONG_TYPES])
def test_wrong_types_and_values_raise_a_typed_error_naming_the_argument(game, label, call, error, words) -> None:
    before = fingerprint(game)
    with pytest.raises(error) as info:
        call(game)
    assert isinstance(info.value, CariocaError), f"{label}: {type(info.value).__name__} is not a project error"
    assert isinstance(info.value, (TypeError, ValueError))
    message = str(info.value)
    for w in words:
        assert w in message, f"{label}: {w!r} not in {message!r}"
    assert fingerprint(game) == before, f"{label} changed the game"


@pytest.mark.parametrize("label, text, words", NOTATION, ids=[c[0] for c in NOTATION])
def test_bad_notation_raises_invalid_notation_with_a_bounded_echo(label, text, words) -> None:
    with pytest.raises(InvalidNotationError) as info:
        parse_move(text)
    message = str(info.value)
    for w in words:
        assert w in message, f"{label}: {w!r} not in {message[:300]!r}"
    assert len(message) < 1000, f"{label}: a {len(message)}-character message"


def test_a_million_character_card_gives_a_short_message() -> None:
    with pytest.raises(InvalidNotationError) as info:
        parse_card("J" * 1_000_000)
    assert len(str(info.value)) < 400 and "1,000,000 characters" in str(info.value)


def test_excerpt_is_bounded_for_long_deep_and_broken_values() -> None:
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")
    for value in ("x" * 10**6, list(range(10**5)), deep, {"k": "v" * 10**5}, Broken()):
        text = excerpt(value)
        assert len(text) <= 2 * EXCERPT_CHARS + 40, text[:100]
    assert excerpt("8S") == "'8S'"


def _opened_table_game(seed: int) -> Game:
    """A 2-player contract-1 game played by greedy-ish random moves until melds grew on the table."""
    rng = random.Random(seed)
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=seed)
    while not game.game_over and game.deal_results == []:
        legal = game.legal_moves()
        melding = [m for m in legal if m.kind in (MoveKind.OPEN, MoveKind.LAY_OFF, MoveKind.SWAP)]
        game.apply(rng.choice(melding) if melding else rng.choice(legal))
        if any(len(m.cards) > 4 for t in game.table for m in t):
            break
    return game


def test_every_table_meld_str_parses_back_including_grown_ones() -> None:
    grown = 0
    for seed in range(40):
        game = _opened_table_game(seed)
        for melds in game.table_melds():
            for m in melds:
                assert Meld.parse(str(m)) == m, str(m)
                grown += len(m.cards) > 4
    # built directly: a 14-card run A..A with a joker, a 6-card trio with jokers
    full = Meld.run(0, 1, 14, jokers_at=(7,))
    assert Meld.parse(str(full)) == full
    trio = Meld.trio(8, (0, 1, 1, 3), jokers=2)
    assert Meld.parse(str(trio)) == trio
    assert grown > 0, "no grown meld was met: the test would check only opening melds"


def _two_trios_game() -> Game:
    """Contract 1, seat 0 to draw holding 8S 8H 8D 9S 9H 9D and five other cards; the stock's top is a joker."""
    hand0 = [7, 20, 33, 8, 21, 34, 9, 22, 35, 10, 23]
    hand1 = [0, 1, 2, 3, 4, 5, 6, 13, 14, 15, 16]
    return Game.from_deck(stack_deck([hand0, hand1], 30, [JOKER]), 1, GameConfig(num_players=2, deals=(1,)))


def test_a_trio_built_in_another_order_is_canonicalized_by_move_open() -> None:
    game = _two_trios_game()
    game.apply(Move.draw_stock())
    shuffled = [Meld(MeldKind.TRIO, 8, 0, (JOKER, 33, 20)), Meld(MeldKind.TRIO, 9, 0, (34, 8, 21))]
    move = Move.open(shuffled)
    assert move in game.legal_moves()
    game.apply(move)
    assert game.opened[0] and str(move) == "open 8H 8D JK / 9S 9H 9D"
    assert parse_move(str(move)) == move


def test_a_hand_built_non_canonical_opening_is_a_representation_error_not_a_ruling() -> None:
    game = _two_trios_game()
    game.apply(Move.draw_stock())
    before = fingerprint(game)
    for melds in (
        (Meld(MeldKind.TRIO, 8, 0, (JOKER, 20, 33)), Meld(MeldKind.TRIO, 9, 0, (8, 21, 34))),
        (Meld(MeldKind.TRIO, 9, 0, (8, 21, 34)), Meld(MeldKind.TRIO, 8, 0, (20, 33, JOKER))),
        (Meld(MeldKind.TRIO, 8, 5, (20, 33, JOKER)), Meld(MeldKind.TRIO, 9, 0, (8, 21, 34))),
    ):
        bad = Move(MoveKind.OPEN, melds=melds)
        with pytest.raises(MalformedMoveError, match="canonical form.*Move.open") as info:
            game.apply(bad)
        assert not isinstance(info.value, IllegalMoveError)
        assert not game.is_legal(bad)
        assert game.is_legal(Move.open(melds))
    assert fingerprint(game) == before


def test_open_with_a_five_card_trio_parses_and_is_refused_by_the_ruling() -> None:
    move = parse_move("open 8S 8H 8D 8C 8S")
    assert move.melds[0].kind is MeldKind.TRIO and len(move.melds[0].cards) == 5
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=0)
    game.apply(Move.draw_stock())
    with pytest.raises(IllegalMoveError) as info:
        game.apply(move)
    assert info.value.rule in ("R5", "R6", "R7")


def test_catalogue_counts() -> None:
    """The closing note reports these counts; the test keeps them from silently shrinking."""
    assert len(WRONG_TYPES) >= 53 and len(NOTATION) >= 13
