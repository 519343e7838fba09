"""The agent protocol shared by tournaments, the single-agent wrapper and ``carioca play``.

An agent chooses a move from what its seat may know: the seat's
:class:`~carioca_env.PlayerView` and the list of legal moves (which the engine derives
from that same seat's hand and the public table).  It never receives the game itself,
so it cannot read another hand or the stock order.

An agent may also *declare* the randomness of its last move (:class:`DeclaredChoice`,
read with :func:`declared_choice`): the options it drew the move from at random and
their probabilities.  An evaluation that knows them can take the luck of the agent's own
coin flips out of a result (the action terms of
:mod:`carioca_experiments.evaluation.luck.correction`); an agent that declares nothing is
evaluated as before.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from carioca_env import Move, PlayerView


@runtime_checkable
class Agent(Protocol):
    """A Carioca player.

    Attributes:
        name: the spec the agent was built from (e.g. ``"heuristic"``).
    """

    name: str

    def reset(self, seed: int) -> None:
        """Start a new deal or game; all of the agent's randomness comes from ``seed``."""

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Choose one of ``legal`` (never empty) for the seat of ``view``."""
        ...


@dataclass(frozen=True)
class DeclaredChoice:
    """The options an agent drew its last move from at random.

    Attributes:
        options: the moves it chose among (at least two), one of them the move it played.
        chosen: the index in ``options`` of the move it played.
        probs: each option's probability, summing to 1; ``None`` means uniform.
    """

    options: tuple[Move, ...]
    chosen: int
    probs: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.options) < 2:
            raise ValueError(f"a declared choice needs at least two options, got {len(self.options)}")
        if not 0 <= self.chosen < len(self.options):
            raise ValueError(f"chosen index {self.chosen} is not one of {len(self.options)} options")
        if self.probs is not None:
            if len(self.probs) != len(self.options) or any(not (p >= 0.0) for p in self.probs) \
                    or not math.isclose(sum(self.probs), 1.0, abs_tol=1e-9):
                raise ValueError("a declared choice's probabilities must be one per option, >= 0, summing to 1")

    @property
    def move(self) -> Move:
        """The option played."""
        return self.options[self.chosen]

    def weights(self) -> tuple[float, ...]:
        """Each option's probability (``1 / len(options)`` each when uniform)."""
        return self.probs if self.probs is not None else (1.0 / len(self.options),) * len(self.options)


def declared_choice(agent: Any) -> DeclaredChoice | None:
    """What ``agent`` declared of its last :meth:`Agent.act`: its :class:`DeclaredChoice`, or
    ``None`` when the move was deterministic or the agent declares nothing (any agent
    without a ``last_choice`` attribute holding a :class:`DeclaredChoice`)."""
    choice = getattr(agent, "last_choice", None)
    return choice if isinstance(choice, DeclaredChoice) else None


def _declaring(act: Callable[..., Move]) -> Callable[..., Move]:
    """Wrap a :class:`SeededAgent` subclass's ``act`` so that every call starts with no
    declared choice and ends with one only if exactly one random pick was made and its
    option is the move returned (a pick made for anything else declares nothing)."""

    @functools.wraps(act)
    def wrapper(self: SeededAgent, view: PlayerView, legal: Sequence[Move]) -> Move:
        outer = self._picks < 0
        if outer:
            self._picks = 0
            self.last_choice = None
        try:
            move = act(self, view, legal)
        finally:
            if outer:
                picks, self._picks = self._picks, -1
        if outer and (picks != 1 or self.last_choice is None or self.last_choice.move != move):
            self.last_choice = None
        return move

    wrapper._declaring = True  # type: ignore[attr-defined]
    return wrapper


class SeededAgent:
    """Base of the scripted agents: one ``random.Random`` for tie-breaks, reseeded by :meth:`reset`.

    Random picks go through :meth:`choose`, which declares them: after each ``act``,
    ``last_choice`` is the :class:`DeclaredChoice` the move was drawn from, or ``None``
    when the move was deterministic (every subclass's ``act`` is wrapped to reset it).
    """

    name = "seeded"
    #: The declared choice of the last ``act`` (class defaults: a subclass that does not
    #: call this ``__init__`` still declares correctly).
    last_choice: DeclaredChoice | None = None
    _picks = -1  # random picks in the act under way; -1 outside act

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        act = cls.__dict__.get("act")
        if act is not None and not getattr(act, "_declaring", False):
            setattr(cls, "act", _declaring(act))

    def reset(self, seed: int) -> None:
        """Reseed the generator: the same seed gives the same decisions."""
        self.rng = random.Random(seed)
        self.last_choice = None

    def choose(self, options: Sequence[Move]) -> Move:
        """One of ``options`` uniformly at random from the agent's generator (the only one
        without a draw), declared as ``last_choice`` when there were several."""
        if len(options) == 1:
            return options[0]
        i = self.rng.randrange(len(options))
        if self._picks >= 0:
            self._picks += 1
            self.last_choice = DeclaredChoice(tuple(options), i)
        return options[i]


def forced_draw(legal: Sequence[Move]) -> Move | None:
    """The draw when only one of stock and discard is legal (no choice to make), else None."""
    take, stock = Move.draw_discard(), Move.draw_stock()
    if take not in legal:
        return stock
    if stock not in legal:
        return take
    return None
