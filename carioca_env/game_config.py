"""The rule options of a game: :class:`GameConfig` (players, which deals), checked when built."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from carioca_env.errors import ArgumentTypeError, InvalidConfigError, described, excerpt
from carioca_env.openings import CONTRACTS

#: Turns a deal may last before it is cut off (R17): the one default of every ``max_turns``
#: here and in the layers above (the env, tournaments, training, tuning).  A cut deal is a
#: truncation in the env (reported, never scored, as R17 says); where a result is needed
#: (a tournament, a rollout, the training stages) it is scored by the cards in hand.  Deals between the built-in agents end in far fewer turns;
#: random play can go on for thousands.
MAX_TURNS = 1000


@dataclass(frozen=True)
class GameConfig:
    """Rule options of a game (all defaults are the guide's full game).

    Attributes:
        num_players: 2, 3 or 4 individual players (guide §01).
        deals: the contracts to play, in order; default the seven deals 1..7 (guide §03).
            ``(3,)`` plays contract 3 alone, so agents can be compared per contract.
    """

    num_players: int = 2
    deals: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not _is_integer(n) or not 2 <= n <= 4:
            raise InvalidConfigError(
                f"num_players must be 2, 3 or 4 (Carioca is for 2-4 players), got {described(n)}"
            )
        deals = self.deals
        if isinstance(deals, (str, bytes, dict)) or not isinstance(deals, Sequence) and not hasattr(deals, "tolist"):
            raise InvalidConfigError(
                f"deals must be a non-empty sequence of contract numbers 1..7, got {described(deals)}"
            )
        deals = tuple(deals)
        # ints only: 1.0 or True == 1 would otherwise pass as contract 1 silently
        if not deals or any(isinstance(d, bool) or not _is_integer(d) or d not in CONTRACTS for d in deals):
            raise InvalidConfigError(
                f"deals must be a non-empty sequence of contract numbers 1..7 (ints), got {excerpt(self.deals)}"
            )
        object.__setattr__(self, "num_players", int(n))
        object.__setattr__(self, "deals", tuple(int(d) for d in deals))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (used in records)."""
        d = asdict(self)
        d["deals"] = list(self.deals)
        return d

    @staticmethod
    def from_dict(d: dict[str, Any]) -> GameConfig:
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidConfigError: not a dict of exactly ``num_players`` and ``deals``, or
                values that make no game.
        """
        if not isinstance(d, dict) or set(d) != {"num_players", "deals"}:
            raise InvalidConfigError(
                f"a game config is a dict with keys 'num_players' and 'deals', got {excerpt(d)}"
            )
        return GameConfig(num_players=d["num_players"], deals=d["deals"])


def _is_integer(value: Any) -> bool:
    """A Python or numpy integer (``operator.index`` takes it), bools included."""
    try:
        value.__index__()
    except (AttributeError, TypeError):
        return False
    return True


def check_game_config(config: Any) -> GameConfig:
    """``config`` if it is a :class:`GameConfig`, the default for ``None``; else a typed error."""
    if config is None:
        return GameConfig()
    if not isinstance(config, GameConfig):
        hint = " (build one with GameConfig(**d) or GameConfig.from_dict(d))" if isinstance(config, dict) else ""
        raise ArgumentTypeError(f"config must be a GameConfig or None, got {described(config)}{hint}")
    return config
