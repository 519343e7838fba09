"""Shared helpers of the bad-input catalogues (``tests/test_bad_input_*.py``)."""

from __future__ import annotations

from typing import Any

from carioca_env import Game


def fingerprint(game: Game) -> tuple[Any, ...]:
    """Everything observable about a game, to check that a refused input changed nothing."""
    return (
        repr(game.to_record()),
        [list(h) for h in game.hands],
        list(game.hand_sizes),
        list(game.stock),
        list(game.discard),
        [[str(m.snapshot()) for m in t] for t in game.table],
        game.phase,
        game.current,
        game.turn,
        list(game.totals),
        len(game.history),
        game.rng.getstate(),
    )
