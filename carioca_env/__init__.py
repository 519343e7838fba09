"""carioca-env: Argentine Carioca (contract rummy, 2-4 players, seven deals) for research.

The rules engine (plain Python, no RL framework imports) plays the whole game exactly as
the project's guide and rulings say::

    import random

    from carioca_env import Game, GameConfig

    game = Game(GameConfig(num_players=3), seed=7)
    rng = random.Random(7)
    for _ in range(5_000):                   # random play rarely closes a deal: bound it
        if game.game_over:
            break
        moves = game.legal_moves()           # every legal move of the player to act
        game.apply(rng.choice(moves))        # raises IllegalMoveError for an illegal one
    print(game)                              # <Game deal 1 of 7 (contract 1: 2 trios), turn ...>

Agents that play whole games on their own seat's :class:`PlayerView` are an upper layer
(the ``agents`` package builds on this one; this one imports nothing from it).

Public names:

- Cards: card types are ints ``0..52`` (``JOKER == 52``); :func:`parse_card` /
  :func:`card_str` (``8S``, ``10H``, ``AC``, ``JK``), :func:`card_symbol` (``8♠``),
  :data:`PENALTY` (R14).
- :class:`Meld` (immutable trio or run, which card each joker stands for), :class:`End`.
- :class:`Move` / :func:`parse_move`: moves with a notation that parses back.
- :class:`Game`: the state (``current_player``, ``phase``, ``hand(seat)``,
  ``table_melds()``, ``stock_size``, ``discard``, ``deal_number``, ``contract``,
  ``deal_results``, ``totals``, ``game_over``, ``winners``), ``legal_moves()``,
  ``apply(move)`` (checked; ``apply_unchecked(move)`` for a move known to be legal,
  ``apply_choice(move, legal)`` for a policy's answer among ``legal_moves()``),
  ``view(seat)`` (a :class:`PlayerView`), ``from_deck`` for stacked
  deals (R16 refuses bad decks), ``to_record`` / ``from_record`` / ``save`` / ``load``;
  ``clone()`` (an independent copy, far cheaper than deepcopy), ``determinize(seat,
  rng)`` (:mod:`carioca_env.determinize`) and ``from_position`` (a validated
  :class:`Position`, :mod:`carioca_env.position`).
- :class:`GameConfig`: the rule options (players, which deals).
- :func:`enumerate_openings`, :data:`CONTRACTS`.
- :func:`register_envs` (``gymnasium.make("Carioca-v0")``, ``pettingzoo.make("aec",
  "carioca/carioca-v0")``) and ``__version__``.
- Errors: :class:`CariocaError` and its subclasses :class:`IllegalMoveError` (with the
  ruling broken in ``.rule``), :class:`InvalidNotationError`, :class:`MisdealError`,
  :class:`InvalidConfigError`, :class:`RecordError`, and for values that are no input
  at all :class:`MalformedMoveError` (a ``Move`` that is no move),
  :class:`ArgumentTypeError` (also a ``TypeError``) :class:`InvalidArgumentError`, and
  :class:`InvalidPositionError` (a position that no game can reach).

The PettingZoo environment lives in :mod:`carioca_env.carioca_v0` (imported lazily so
that the engine has no RL dependency); registration with ``gymnasium.make`` and
``pettingzoo.make`` is described in :mod:`carioca_env.registration`.
"""

from __future__ import annotations

from carioca_env._version import __version__
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
from carioca_env.decks import stack_deck, validate_deck
from carioca_env.errors import (
    ArgumentTypeError,
    CariocaError,
    IllegalMoveError,
    InvalidArgumentError,
    InvalidConfigError,
    InvalidNotationError,
    MalformedMoveError,
    MisdealError,
    RecordError,
)
from carioca_env.game import Game
from carioca_env.game_config import MAX_TURNS, GameConfig
from carioca_env.melds import End, Meld, MeldKind
from carioca_env.moves import Move, MoveKind, parse_move
from carioca_env.openings import CONTRACTS, Contract, enumerate_openings
from carioca_env.position import InvalidPositionError, Position
from carioca_env.registration import register_envs, register_on_import
from carioca_env.view import DealResult, Phase, PlayerView, PublicEvent

__all__ = [
    "CONTRACTS",
    "JOKER",
    "MAX_TURNS",
    "PENALTY",
    "ArgumentTypeError",
    "CariocaError",
    "Contract",
    "DealResult",
    "End",
    "Game",
    "GameConfig",
    "IllegalMoveError",
    "InvalidArgumentError",
    "InvalidConfigError",
    "InvalidNotationError",
    "MalformedMoveError",
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
    "register_envs",
    "__version__",
]

# Register with the frameworks already imported (gymnasium.make("carioca_env:Carioca-v0")
# imports this package after gymnasium), and with each when it is imported later (isort puts
# `import carioca_env` first), without importing either for engine users.
register_on_import()
