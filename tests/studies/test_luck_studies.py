"""The studies' part of ``tests/test_luck.py``: tests of modules in ``experiments/studies/``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_luck import small_position

from carioca_experiments.evaluation.luck import ValueFileError
from carioca_experiments.studies.luck.seat_features import num_features, state_stats
from carioca_experiments.studies.luck.values import ValueFunction


def test_value_file_round_trip_and_refusals(tmp_path) -> None:
    rng = np.random.default_rng(4)
    value = ValueFunction({f"p{n}-c{k}": rng.normal(size=num_features(n)) for n in (2, 3, 4) for k in range(1, 8)})
    path = tmp_path / "v.json"
    value.save(path)
    back = ValueFunction.load(path)
    assert back.fingerprint == value.fingerprint
    d = json.loads(path.read_text())
    d["weights"]["p2-c1"][0] += 1.0
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="fingerprint"):
        ValueFunction.load(path)
    d["weights"]["p2-c1"] = d["weights"]["p2-c1"][:-1]
    path.write_text(json.dumps(d))
    with pytest.raises(ValueFileError, match="needs"):
        ValueFunction.load(path)
    path.write_text("{")
    with pytest.raises(ValueFileError, match="cannot read"):
        ValueFunction.load(path)
    with pytest.raises(ValueFileError, match="no model"):
        ValueFunction({"p2-c1": np.zeros(num_features(2))}).model(4, 1)


def test_state_stats_read_the_hands_not_the_stock_order() -> None:
    game = small_position(False)
    before = state_stats(game)
    game.stock.reverse()
    np.testing.assert_array_equal(state_stats(game), before)


def test_seat_deal_seats_the_specs_and_replays_the_same_game() -> None:
    """``seat_deal`` deals the stacked deck with one seat per spec, and two calls with the
    same seeds play move for move the same deal (every luck measurement relies on it)."""
    import random

    from carioca_env.cards import full_deck
    from carioca_experiments.studies.luck.seated import seat_deal

    deck = full_deck()
    random.Random(7).shuffle(deck)

    def moves() -> list[str]:
        game, agents = seat_deal(deck, 1, 3, ["heuristic", "random"], [11, 12], 13)
        assert [a.name for a in agents] == ["heuristic", "random"]
        assert game.num_players == 2
        played = []
        while not game.deal_results and len(played) < 400:
            move = agents[game.current].act(game.view(game.current), game.legal_moves())
            played.append(str(move))
            game.apply(move)
        return played

    first = moves()
    assert len(first) > 10
    assert first == moves()
