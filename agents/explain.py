"""Agents that say what they weighed: ``act_explained`` and ``explain``.

An agent may, besides :meth:`~carioca_agents.base.Agent.act`, offer two methods:

- ``act_explained(view, legal) -> (Move, Explanation)``: play the decision exactly as
  ``act`` would (the same move, the same draws from the agent's generator) and say what
  it weighed (:class:`carioca_env.explanations.Explanation`).  Runners that keep
  records call this instead of ``act`` (``carioca tournament --explain``,
  ``carioca play``), so an explained game is the game that would have been played.
- ``explain(view, legal) -> Explanation``: the same explanation, with the agent left as
  it was (its generator and counters restored), so asking never changes a later move
  (the hint at ``carioca serve``'s table asks a bot about the person's view).

Both read the seat's :class:`~carioca_env.PlayerView` and the legal moves only, as
``act`` does: the same view gives the same explanation whatever the hidden cards are.

The built-in agents explain (:class:`Explaining` does ``explain`` for them from
``act_explained``): ``heuristic`` its costs and what the hand keeps for, ``greedy`` its
rule's keys, ``random`` a uniform draw, ``search`` each candidate's rollout mean,
standard error and count, ``ppo`` its policy's most likely actions.  The reference
cheat (``cheat-search``) and plugins that define neither method explain nothing:
:func:`act_and_explain` then plays ``act`` and gives ``None``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from carioca_env import Move, PlayerView
from carioca_env.explanations import Candidate, Explanation, forced

__all__ = ["Explaining", "act_and_explain", "explain", "explains", "ranked", "uniform"]


def explains(agent: Any) -> bool:
    """Whether ``agent`` offers ``act_explained`` (and so explains its moves)."""
    return callable(getattr(agent, "act_explained", None))


def act_and_explain(agent: Any, view: PlayerView, legal: Sequence[Move]) -> tuple[Move, Explanation | None]:
    """The agent's move and, if it explains, its explanation (``None`` otherwise).

    Raises:
        ValueError: the agent's explanation names another move than the one it played
            (a broken ``act_explained``: the record would lie).
    """
    fn = getattr(agent, "act_explained", None)
    if not callable(fn):
        return agent.act(view, legal), None
    move, exp = fn(view, legal)
    if exp is not None and exp.move != str(move):
        raise ValueError(f"agent {getattr(agent, 'name', agent)!r} played {move} but explained {exp.move!r}")
    return move, exp


def explain(agent: Any, view: PlayerView, legal: Sequence[Move]) -> Explanation | None:
    """What ``agent`` would play at ``view`` and why, without changing the agent (``None``
    when it does not explain)."""
    fn = getattr(agent, "explain", None)
    return fn(view, legal) if callable(fn) else None


def ranked(cands: Sequence[Candidate], better: str, played: Move | str) -> list[Candidate]:
    """``cands`` best first by score (``better``: ``"lower"`` or ``"higher"``); among equal
    scores the move played comes first, then the given order."""
    sign = 1.0 if better == "lower" else -1.0
    played_text = str(played)
    order = sorted(range(len(cands)),
                   key=lambda i: (sign * cands[i].score, cands[i].move != played_text, i))
    return [cands[i] for i in order]


def uniform(agent: str, legal: Sequence[Move], move: Move) -> Explanation:
    """The explanation of a uniformly random choice among ``legal``."""
    n = len(legal)
    cands = [Candidate(str(m), 1.0 / n) for m in legal]
    return Explanation.build(agent, "uniform", "probability of each legal move: uniform", "higher",
                             ranked(cands, "higher", move), move, f"chosen uniformly among {n} legal moves")


class Explaining(ABC):
    """Gives an agent ``explain`` from its ``act_explained``: the agent's state is saved
    before and put back after (:meth:`_save_state`, :meth:`_restore_state`), so the
    explanation leaves the next move as it would have been.

    A subclass defines ``act_explained`` and, for each decision with a real choice,
    :meth:`weigh`; the default ``act_explained`` plays ``act`` then weighs the view.
    """

    name: str

    @abstractmethod
    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """The agent's own move (each agent defines it)."""

    @abstractmethod
    def weigh(self, view: PlayerView, legal: Sequence[Move], move: Move) -> Explanation:
        """What the agent weighed to play ``move`` at ``view`` (called after ``act``; it
        must not draw from the agent's generator)."""

    def act_explained(self, view: PlayerView, legal: Sequence[Move]) -> tuple[Move, Explanation]:
        """``act``'s move, and what the agent weighed (a forced move: the only legal one)."""
        move = self.act(view, legal)
        if len(legal) == 1:
            return move, forced(self.name, move)
        return move, self.weigh(view, legal, move)

    def explain(self, view: PlayerView, legal: Sequence[Move]) -> Explanation:
        """What the agent would play at ``view`` and why; the agent is left unchanged."""
        state = self._save_state()
        try:
            return self.act_explained(view, legal)[1]
        finally:
            self._restore_state(state)

    def _save_state(self) -> Any:
        """What ``act`` may change (default: a seeded agent's generator and declaration)."""
        rng = getattr(self, "rng", None)
        return (rng.getstate() if rng is not None else None, getattr(self, "last_choice", None))

    def _restore_state(self, state: Any) -> None:
        rng_state, last = state
        if rng_state is not None:
            self.rng.setstate(rng_state)  # type: ignore[attr-defined]
        if hasattr(self, "last_choice"):
            self.last_choice = last
