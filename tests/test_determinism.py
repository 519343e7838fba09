"""Seeded full games, byte-identical records, replay, and refusal of bad records."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from carioca_env import Game, GameConfig, RecordError, card_str, stack_deck  # noqa: E402

from random_play import BiasedPolicy, play  # noqa: E402

MAX_MOVES = 50_000


def full_game(n: int, seed: int, policy_seed: int, config: GameConfig | None = None) -> Game:
    game = Game(config or GameConfig(num_players=n), seed=seed)
    play(game, BiasedPolicy(random.Random(policy_seed)), MAX_MOVES)
    return game


def state_of(game: Game) -> dict:
    """Everything that defines a game's state, as plain comparable values."""
    return {
        "hands": [list(h) for h in game.hands],
        "hand_sizes": list(game.hand_sizes),
        "table": game.table_melds(),
        "stock": list(game.stock),
        "discard": list(game.discard),
        "phase": game.phase,
        "current": game.current,
        "dealer": game.dealer,
        "deal_index": game.deal_index,
        "opened": list(game.opened),
        "moves": list(game.moves),
        "deal_results": list(game.deal_results),
        "totals": list(game.totals),
        "winners": game.winners,
        "rng": game.rng.getstate(),
        "views": [game.view(s) for s in range(game.num_players)],
    }


@pytest.fixture(scope="module")
def finished() -> dict[int, Game]:
    return {n: full_game(n, seed=2024 + n, policy_seed=7 * n) for n in (2, 3, 4)}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seeded_seven_deal_game_completes(finished: dict[int, Game], n: int) -> None:
    game = finished[n]
    assert game.game_over, f"not finished after {len(game.moves)} moves"
    done = [r for r in game.deal_results if not r.cancelled]
    assert [r.deal for r in done] == [1, 2, 3, 4, 5, 6, 7]
    assert all(0 <= r.closer < n and r.scores[r.closer] == 0 for r in done)
    assert game.totals == [sum(r.scores[s] for r in done) for s in range(n)]
    assert set(game.winners) == {s for s in range(n) if game.totals[s] == min(game.totals)}
    # the deal passes to the next seat each time (R2)
    assert [r.dealer for r in done] == [(done[0].dealer + i) % n for i in range(7)]
    assert game.legal_moves() == []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_same_seeds_give_byte_identical_records(finished: dict[int, Game], n: int) -> None:
    again = full_game(n, seed=2024 + n, policy_seed=7 * n)
    a, b = finished[n].to_record(), again.to_record()
    assert a == b
    assert json.dumps(a) == json.dumps(b)
    assert state_of(again) == state_of(finished[n])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_different_seeds_give_different_games(finished: dict[int, Game], n: int) -> None:
    ref = json.dumps(finished[n].to_record())
    other_game_seed = full_game(n, seed=9000 + n, policy_seed=7 * n)
    other_policy_seed = full_game(n, seed=2024 + n, policy_seed=7 * n + 1)
    assert json.dumps(other_game_seed.to_record()) != ref
    assert json.dumps(other_policy_seed.to_record()) != ref
    # the first deal differs with the game's seed alone
    assert Game(GameConfig(n), seed=1).hands != Game(GameConfig(n), seed=2).hands


@pytest.mark.parametrize("n", [2, 3, 4])
def test_record_replays_to_the_same_state(finished: dict[int, Game], n: int) -> None:
    game = finished[n]
    replayed = Game.from_record(game.to_record())
    assert state_of(replayed) == state_of(game)
    # a record also survives a JSON round trip
    assert state_of(Game.from_record(json.loads(json.dumps(game.to_record())))) == state_of(game)


@pytest.mark.parametrize("cut", [0, 1, 37, 250, 801])
def test_partial_record_replays_and_continues_identically(cut: int) -> None:
    config = GameConfig(num_players=3)
    game = Game(config, seed=77)
    policy = BiasedPolicy(random.Random(5))
    play(game, policy, cut)
    replayed = Game.from_record(game.to_record())
    assert state_of(replayed) == state_of(game)
    # both continue the same way under the same policy state
    policy2 = BiasedPolicy(random.Random())
    policy2.rng.setstate(policy.rng.getstate())
    play(game, policy, 300)
    play(replayed, policy2, 300)
    assert state_of(replayed) == state_of(game)


def test_stacked_deck_record_replays() -> None:
    hands = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]]
    deck = stack_deck(hands, upcard=52, stock_top=[26, 27])
    game = Game.from_deck(deck, dealer=1, config=GameConfig(2, (2, 3)), seed=4)
    play(game, BiasedPolicy(random.Random(1)), 5000)
    assert game.game_over
    rec = game.to_record()
    assert state_of(Game.from_record(rec)) == state_of(game)


def _record(n: int = 2) -> dict:
    return full_game(n, seed=11, policy_seed=3, config=GameConfig(num_players=n, deals=(1, 2))).to_record()


def test_edited_move_is_refused_naming_the_move() -> None:
    rec = _record()
    # the first move (a draw) turned into a discard
    bad = json.loads(json.dumps(rec))
    bad["moves"][0] = "discard JK"
    with pytest.raises(RecordError, match=r"move 1 'discard JK'"):
        Game.from_record(bad)
    # an unparsable move deep in the game
    k = len(rec["moves"]) // 2
    bad = json.loads(json.dumps(rec))
    bad["moves"][k] = "fly away"
    with pytest.raises(RecordError, match=rf"move {k + 1} 'fly away'"):
        Game.from_record(bad)
    # a discard of a card the player does not hold
    i = [j for j, m in enumerate(rec["moves"]) if m.startswith("discard")][5]
    prefix = Game(GameConfig(num_players=2, deals=(1, 2)), seed=11)
    for text in rec["moves"][:i]:
        prefix.push(text)
    absent = next(card_str(c) for c in range(53) if c not in prefix.hand(prefix.current))
    bad = json.loads(json.dumps(rec))
    bad["moves"][i] = f"discard {absent}"
    with pytest.raises(RecordError, match=rf"move {i + 1} 'discard {absent}'"):
        Game.from_record(bad)
    # an extra move after the game is over
    bad = json.loads(json.dumps(rec))
    bad["moves"].append("draw stock")
    with pytest.raises(RecordError, match=rf"move {len(rec['moves']) + 1}"):
        Game.from_record(bad)


def test_wrong_version_format_or_totals_is_refused() -> None:
    rec = _record()
    with pytest.raises(RecordError, match="version"):
        Game.from_record({**rec, "version": 99})
    with pytest.raises(RecordError, match="format|record"):
        Game.from_record({**rec, "format": "chess-pgn"})
    with pytest.raises(RecordError):
        Game.from_record([rec])  # type: ignore[arg-type]
    wrong = list(rec["totals"])
    wrong[0] += 1
    with pytest.raises(RecordError, match="totals"):
        Game.from_record({**rec, "totals": wrong})
    for junk in (5, None, "0 0"):
        with pytest.raises(RecordError, match="totals"):
            Game.from_record({**rec, "totals": junk})
    for key in ("config", "seed", "moves"):
        broken = dict(rec)
        del broken[key]
        with pytest.raises(RecordError):
            Game.from_record(broken)
    with pytest.raises(RecordError):
        Game.from_record({**rec, "config": {"num_players": 9, "deals": [1]}})
    with pytest.raises(RecordError):
        Game.from_record({**rec, "moves": None})


def test_save_and_load_through_a_file(tmp_path: Path, finished: dict[int, Game]) -> None:
    game = finished[3]
    path = tmp_path / "game.json"
    game.save(path)
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(game.to_record()) + "\n"
    loaded = Game.load(path)
    assert state_of(loaded) == state_of(game)
    assert json.dumps(loaded.to_record()) == json.dumps(game.to_record())


@pytest.mark.parametrize(
    "content",
    ["{not json", "", '{"format": "carioca-game-record", "version": 1', "\x00\x01", "[1, 2, 3]", "null"],
)
def test_corrupt_file_gives_record_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RecordError):
        Game.load(path)


def test_missing_or_binary_file_gives_record_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError):
        Game.load(tmp_path / "absent.json")
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError):
        Game.load(path)
