"""Catalogue of bad records and record files, and a hypothesis fuzz of the notation and
record readers: whatever the text or JSON, only project errors come out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carioca_env import CariocaError, Game, GameConfig, RecordError, parse_card, parse_move
from carioca_env.melds import Meld


def _record() -> dict:
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=5)
    for _ in range(12):
        game.apply(game.legal_moves()[-1])
    return game.to_record(agents=["a", "b"])


def _stacked_record() -> dict:
    from carioca_env.cards import full_deck

    game = Game.from_deck(full_deck(), 1, GameConfig(num_players=2, deals=(1,)), seed=5)
    game.apply(game.legal_moves()[0])
    return game.to_record()


def _with(record: dict, **changes) -> dict:
    out = json.loads(json.dumps(record))
    for k, v in changes.items():
        if v is _DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


_DROP = object()
def _deep(levels: int) -> list:
    out: list = []
    for _ in range(levels):
        out = [out]
    return out


DEEP = _deep(50_000)

#: corrupt records: (label, changes to a good record, words the message holds)
BAD_RECORDS = [
    ("not a dict", None, ["not a Carioca game record"]),
    ("format missing", {"format": _DROP}, ["format"]),
    ("format other", {"format": "chess"}, ["format"]),
    ("version 2", {"version": 2}, ["version 2"]),
    ("version '1'", {"version": "1"}, ["version '1'"]),
    ("version true", {"version": True}, ["version True"]),
    ("version 1.0", {"version": 1.0}, ["version 1.0"]),
    ("config missing", {"config": _DROP}, ["config"]),
    ("config list", {"config": [2, [1]]}, ["config", "num_players"]),
    ("config extra key", {"config": {"num_players": 2, "deals": [1], "x": 0}}, ["num_players", "deals"]),
    ("config 5 players", {"config": {"num_players": 5, "deals": [1]}}, ["num_players"]),
    ("config deals floats", {"config": {"num_players": 2, "deals": [1.0]}}, ["deals"]),
    ("config deals string", {"config": {"num_players": 2, "deals": "1"}}, ["deals"]),
    ("config deep", {"config": DEEP}, ["config"]),
    ("seed missing", {"seed": _DROP}, ["seed"]),
    ("seed string", {"seed": "5"}, ["seed", "str"]),
    ("seed float", {"seed": 5.5}, ["seed", "float"]),
    ("seed null", {"seed": None}, ["seed"]),
    ("moves missing", {"moves": _DROP}, ["moves"]),
    ("moves string", {"moves": "draw stock"}, ["moves", "list"]),
    ("moves ints", {"moves": [0, 1]}, ["moves"]),
    ("moves deep", {"moves": DEEP}, ["moves"]),
    ("move nonsense", {"moves": ["fly away"]}, ["move 1", "fly away"]),
    ("move huge", {"moves": ["discard " + "8" * 10**6]}, ["move 1", "characters"]),
    ("move illegal", {"moves": ["draw discard", "draw stock"]}, ["move 2"]),
    ("agents not list", {"agents": "ab"}, ["agents"]),
    ("agents too few", {"agents": ["a"]}, ["agents", "2 names"]),
    ("agents ints", {"agents": [1, 2]}, ["agents"]),
    ("deal_scores string", {"deal_scores": "0"}, ["deal_scores"]),
    ("deal_scores deep", {"deal_scores": DEEP}, ["deal_scores"]),
    ("deal_scores wrong", {"deal_scores": [[1, 2]]}, ["deal scores"]),
    ("totals string", {"totals": "0 0"}, ["totals"]),
    ("totals floats", {"totals": [0.0, 0.0]}, ["totals"]),
    ("totals wrong", {"totals": [1, 2]}, ["totals"]),
    ("totals deep", {"totals": DEEP}, ["totals"]),
    ("dealer without deck", {"dealer": 0}, ["deck"]),
]

#: corrupt stacked-deck records
BAD_DECKS = [
    ("deck of ints", {"deck": list(range(52)) * 2 + [52] * 4}, ["deck", "notations"]),
    ("deck string", {"deck": "8S 8H"}, ["deck"]),
    ("deck short", {"deck": ["8S"] * 107}, ["108"]),
    ("deck bad card", {"deck": ["8X"] * 108}, ["8X"]),
    ("deck wrong copies", {"deck": ["8S"] * 108}, ["permutation"]),
    ("deck null", {"deck": None}, ["deck"]),
    ("dealer missing", {"dealer": _DROP}, ["dealer"]),
    ("dealer string", {"dealer": "1"}, ["dealer", "str"]),
    ("dealer 7", {"dealer": 7}, ["dealer"]),
]

#: bad record files: (label, how to make it in a folder, words)
BAD_FILES = [
    ("missing", lambda d: d / "nope.json", ["cannot read", "No such file"]),
    ("a folder", lambda d: _mkdir(d / "folder.json"), ["cannot read"]),
    ("not JSON", lambda d: _write(d / "x.json", b"{not json"), ["cannot read"]),
    ("empty", lambda d: _write(d / "x.json", b""), ["cannot read"]),
    ("not UTF-8", lambda d: _write(d / "x.json", b"\xff\xfe\x00"), ["cannot read"]),
    ("nested 100,000 deep", lambda d: _write(d / "x.json", b"[" * 100_000 + b"]" * 100_000), ["nests too deeply"]),
    ("deep object", lambda d: _write(d / "x.json", b'{"a":' * 100_000 + b"1" + b"}" * 100_000), ["nests too deeply"]),
    ("a JSON number", lambda d: _write(d / "x.json", b"42"), ["not a Carioca game record"]),
]


def _mkdir(p: Path) -> Path:
    p.mkdir()
    return p


def _write(p: Path, data: bytes) -> Path:
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("label, changes, words", BAD_RECORDS, ids=[c[0] for c in BAD_RECORDS])
def test_a_corrupt_record_gives_one_record_error_naming_the_field(label, changes, words) -> None:
    record = ["not", "a", "dict"] if changes is None else _with(_record(), **changes)
    with pytest.raises(RecordError) as info:
        Game.from_record(record)
    message = str(info.value)
    for w in words:
        assert w in message, f"{label}: {w!r} not in {message[:300]!r}"
    assert len(message) < 2000, f"{label}: {len(message)} characters"


@pytest.mark.parametrize("label, changes, words", BAD_DECKS, ids=[c[0] for c in BAD_DECKS])
def test_a_corrupt_stacked_deck_gives_a_record_error(label, changes, words) -> None:
    with pytest.raises(RecordError) as info:
        Game.from_record(_with(_stacked_record(), **changes))
    for w in words:
        assert w in str(info.value), f"{label}: {w!r} not in {str(info.value)[:300]!r}"


def test_good_records_still_replay() -> None:
    for record in (_record(), _stacked_record()):
        game = Game.from_record(record)
        assert game.to_record(record.get("agents")) == record


@pytest.mark.parametrize("label, make, words", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_a_bad_record_file_gives_a_record_error_and_is_left_as_it_was(tmp_path, label, make, words) -> None:
    path = make(tmp_path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(RecordError) as info:
        Game.load(path)
    for w in words:
        assert w in str(info.value), f"{label}: {w!r} not in {str(info.value)[:300]!r}"
    assert (path.read_bytes() if path.is_file() else None) == before


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path) -> None:
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=1)
    path = tmp_path / "g.json"
    game.save(path)
    game.apply(game.legal_moves()[0])
    game.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]
    assert Game.load(path).moves == game.moves
    with pytest.raises(OSError):
        game.save(tmp_path / "no-such-folder" / "g.json")
    assert Game.load(path).moves == game.moves


# ------------------------------------------------------------------------------ fuzz

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=10), children, max_size=6),
    max_leaves=30,
)
FIELDS = ["format", "version", "config", "seed", "moves", "deck", "dealer", "agents", "deal_scores", "totals"]
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.text(max_size=40))
def test_fuzz_parse_card_raises_only_project_errors(text: str) -> None:
    try:
        card = parse_card(text)
    except CariocaError:
        return
    assert 0 <= card <= 52


@FUZZ
@given(st.one_of(st.text(max_size=60), st.sampled_from(["draw stock", "lay 8S 0.1 high", "open 8S 8H JK / 4S 5S JK 7S"]).flatmap(
    lambda base: st.integers(0, len(base)).flatmap(lambda i: st.text(max_size=4).map(lambda t: base[:i] + t + base[i:])))))
def test_fuzz_parse_move_raises_only_project_errors_and_round_trips(text: str) -> None:
    try:
        move = parse_move(text)
    except CariocaError:
        return
    assert parse_move(str(move)) == move


@FUZZ
@given(st.text(max_size=60))
def test_fuzz_meld_parse_raises_only_project_errors_and_round_trips(text: str) -> None:
    try:
        meld = Meld.parse(text)
    except CariocaError:
        return
    assert Meld.parse(str(meld)) == meld


@FUZZ
@given(JSON)
def test_fuzz_from_record_of_any_json_raises_only_record_errors(value) -> None:
    with pytest.raises(RecordError):
        Game.from_record(value)


@FUZZ
@given(st.sampled_from(FIELDS), JSON, st.booleans())
def test_fuzz_a_record_with_one_field_replaced_by_any_json(field: str, value, stacked: bool) -> None:
    record = _with(_stacked_record() if stacked else _record(), **{field: value})
    try:
        game = Game.from_record(record)
    except RecordError:
        return
    # accepted only if the record is exactly what the replayed game writes
    assert game.to_record(record.get("agents")) == record


@FUZZ
@given(st.lists(st.text(max_size=20), max_size=5), st.integers(0, 11))
def test_fuzz_a_record_with_arbitrary_move_texts(texts: list[str], keep: int) -> None:
    record = _record()
    record = _with(record, moves=record["moves"][:keep] + texts, deal_scores=_DROP, totals=_DROP)
    try:
        game = Game.from_record(record)
    except RecordError:
        return
    assert [str(m) for m in game.moves] == [str(parse_move(t)) for t in record["moves"]]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_record_files_of_any_bytes(tmp_path_factory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "r.json"
    path.write_bytes(data)
    with pytest.raises(RecordError):
        Game.load(path)
    assert path.read_bytes() == data


def test_catalogue_counts() -> None:
    assert (len(BAD_RECORDS), len(BAD_DECKS), len(BAD_FILES)) >= (36, 9, 8)
