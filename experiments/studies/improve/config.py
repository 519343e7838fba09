"""What defines a rollout-advantage run (:class:`ImproveConfig`), checked once when it is built."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from carioca_env.game_config import MAX_TURNS
from carioca_experiments.training.train import TrainError


class ImproveError(TrainError):
    """A rollout-advantage run that cannot start: a bad option (named, with what is
    allowed), a starting model that does not fit, or a folder holding another run."""


@dataclass(frozen=True)
class ImproveConfig:
    """One rollout-advantage run.

    Attributes:
        init: the starting model (``contract3``, a shipped name, or a path): an imitation
            model of ``teacher``; its card gives the players and the observation variant.
        contract: 1..7: the contract of the games (a full-game model is improved one
            contract at a time).
        teacher: the agent spec whose states are labelled and whose continuation the
            rollouts play (it needs ``ranked_discards``: the heuristic).
        opponents: empty, the teacher plays every seat and every seat is labelled; else
            the teacher plays one seat (``game % players``, so every seat in turn) and
            each other seat an agent drawn from these specs, in the games and in the
            rollouts alike, and only the teacher's seat is labelled.
        games: teacher games of training data; ``heldout_games``: games of held-out data
            (other decks) on which each epoch is measured and the best epoch chosen.
        reshuffles: stock shuffles per valued decision (each candidate rolled out once
            per shuffle, all on the same shuffles).
        top: candidates per decision at most (the teacher's move and the next ones).
        epochs, batch_size, learning_rate: the fit.
        anchor: weight of the anchor loss (see :mod:`carioca_experiments.studies.improve.learn`).
        adv_scale: points per unit of the pairwise loss.
        seed: every seed (decks, teachers' tie-breaks, shuffles, batch order).
        max_turns: turns per deal before a game or a rollout is cut (R17).
        shard_games: games per data shard (the unit of resuming and of parallel work).
    """

    init: str = "contract1"
    contract: int = 1
    teacher: str = "heuristic"
    opponents: tuple[str, ...] = ()
    games: int = 1200
    heldout_games: int = 200
    reshuffles: int = 4
    top: int = 4
    epochs: int = 8
    batch_size: int = 256
    learning_rate: float = 1e-4
    anchor: float = 1.0
    adv_scale: float = 10.0
    seed: int = 0
    max_turns: int = MAX_TURNS
    shard_games: int = 50

    def __post_init__(self) -> None:
        if not isinstance(self.init, str) or not self.init:
            raise ImproveError(f"--init must name a model (a shipped name such as contract3, or a path), got {self.init!r}")
        if not isinstance(self.opponents, tuple) or not all(isinstance(o, str) and o for o in self.opponents):
            raise ImproveError(f"--opponents must be agent specs, got {self.opponents!r}")
        if isinstance(self.contract, bool) or not isinstance(self.contract, int) or not 1 <= self.contract <= 7:
            raise ImproveError(f"--contract must be an integer 1..7, got {self.contract!r}")
        for name, low in (("games", 1), ("heldout_games", 1), ("reshuffles", 1), ("top", 2), ("epochs", 1),
                          ("batch_size", 2), ("max_turns", 1), ("shard_games", 1), ("seed", 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ImproveError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {v!r}")
        for name in ("learning_rate", "adv_scale"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise ImproveError(f"--{name.replace('_', '-')} must be a number > 0, got {v!r}")
        if isinstance(self.anchor, bool) or not isinstance(self.anchor, (int, float)) \
                or not math.isfinite(self.anchor) or self.anchor < 0:
            raise ImproveError(f"--anchor must be a number >= 0, got {self.anchor!r}")

    def data_meta(self) -> dict[str, Any]:
        """What defines the data (a data folder of another run's data is refused)."""
        return {"contract": self.contract, "teacher": self.teacher, "games": self.games,
                **({"opponents": list(self.opponents)} if self.opponents else {}),
                "heldout_games": self.heldout_games, "reshuffles": self.reshuffles, "top": self.top,
                "seed": self.seed, "max_turns": self.max_turns, "shard_games": self.shard_games}

    def to_json(self) -> dict[str, Any]:
        """Every option (for the model card)."""
        d = asdict(self)
        d["opponents"] = list(self.opponents)
        return d
