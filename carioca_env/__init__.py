"""carioca-env: Argentine Carioca (contract rummy, 2-4 players, seven deals) for research.

The rules engine (plain Python, no RL framework imports) plays the whole game exactly as
the project's guide and rulings say::

    from carioca_env import Game, GameConfig, Move, parse_move

    game = Game(GameConfig(num_players=3), seed=7)
    while not game.game_over:
        moves = game.legal_moves()          # every legal move of the player to act
        game.apply(moves[0])                 # raises IllegalMoveError for an illegal one
    print(game.totals, game.winners)

Public names:

- Cards: card types are ints ``0..52`` (``JOKER == 52``); :func:`parse_card` /
  :func:`card_str` (``8S``, ``10H``, ``AC``, ``JK``), :func:`card_symbol` (``8♠``),
  :data:`PENALTY` (R14).
- :class:`Meld` (immutable trio or run, which card each joker stands for), :class:`End`.
- :class:`Move` / :func:`parse_move`: moves with a notation that parses back.
- :class:`Game`: the state (``current_player``, ``phase``, ``hand(seat)``,
  ``table_melds()``, ``stock_size``, ``discard``, ``deal_number``, ``contract``,
  ``deal_results``, ``totals``, ``game_over``, ``winners``), ``legal_moves()``,
  ``apply(move)``, ``view(seat)`` (a :class:`PlayerView`), ``from_deck`` for stacked
  deals (R16 refuses bad decks), ``to_record`` / ``from_record`` / ``save`` / ``load``;
  ``clone()`` (an independent copy, far cheaper than deepcopy), ``determinize(seat,
  rng)`` (:mod:`carioca_env.determinize`) and ``from_position`` (a validated
  :class:`Position`, :mod:`carioca_env.position`).
- :class:`GameConfig`: the rule options (players, which deals).
- :func:`enumerate_openings`, :data:`CONTRACTS`.
- Errors: :class:`CariocaError` and its subclasses :class:`IllegalMoveError` (with the
  ruling broken in ``.rule``), :class:`InvalidNotationError`, :class:`MisdealError`,
  :class:`InvalidConfigError`, :class:`RecordError`, :class:`InvalidPositionError`.

The PettingZoo environment lives in :mod:`carioca_env.carioca_v0` (imported lazily so
that the engine has no RL dependency).
"""

from __future__ import annotations

from typing import Any

from carioca_env.cards import (
    JOKER,
    PENALTY,
    card_str,
    card_symbol,
    cards_str,
    hand_penalty,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from carioca_env.errors import (
    CariocaError,
    IllegalMoveError,
    InvalidConfigError,
    InvalidNotationError,
    MisdealError,
    RecordError,
)
from carioca_env.game import (
    DealResult,
    Game,
    GameConfig,
    Phase,
    PlayerView,
    PublicEvent,
    stack_deck,
    validate_deck,
)
from carioca_env.melds import End, Meld, MeldKind
from carioca_env.moves import Move, MoveKind, parse_move
from carioca_env.openings import CONTRACTS, Contract, enumerate_openings
from carioca_env.position import InvalidPositionError, Position

__all__ = [
    "CONTRACTS",
    "JOKER",
    "PENALTY",
    "CariocaError",
    "Contract",
    "DealResult",
    "End",
    "Game",
    "GameConfig",
    "IllegalMoveError",
    "InvalidConfigError",
    "InvalidNotationError",
    "InvalidPositionError",
    "Meld",
    "MeldKind",
    "MisdealError",
    "Move",
    "MoveKind",
    "Phase",
    "PlayerView",
    "Position",
    "PublicEvent",
    "RecordError",
    "card_str",
    "card_symbol",
    "cards_str",
    "enumerate_openings",
    "hand_penalty",
    "make_card",
    "parse_card",
    "parse_cards",
    "parse_move",
    "rank_of",
    "stack_deck",
    "suit_of",
    "validate_deck",
]


def __getattr__(name: str) -> Any:
    # The environment needs pettingzoo; import it only when asked for.
    if name == "carioca_v0":
        import importlib

        return importlib.import_module("carioca_env.carioca_v0")
    raise AttributeError(f"module 'carioca_env' has no attribute {name!r}")
