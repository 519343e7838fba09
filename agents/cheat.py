"""``cheat-search``: :class:`~carioca_agents.search.SearchAgent` that knows the opponents' true hands.

A **labelled cheat, for reference only**: it measures how much a perfect belief about
the hidden hands would be worth to search (the value of information), the ceiling that a
belief model (uniform, the rule model, a learned one) can approach. It is not a player:

- it reads what its seat cannot see, so it plays only where the runner shows it the true
  game before each decision (:func:`show_true_game`, which ``carioca tournament`` calls);
  anywhere else its :meth:`~CheatSearchAgent.act` raises :class:`CheatNotShown` rather
  than quietly playing as an honest search;
- ``carioca serve`` never offers it: its name is not in
  :data:`carioca_agents.allowlist.BUILTIN_AGENTS`, so a request naming it is refused.

Its determinizations keep every opponent's true hand and deal only the stock, in a random
order from the agent's generator (the stock's order is not known to it either): what the
issue's "true hands, stock reshuffled" reference measures. Everything else (candidates,
budget, rollouts, the choice rule, the spec keys) is :class:`~carioca_agents.search.SearchAgent`'s.

**A noisy oracle** (``cheat-search:noise=Q``): before each determinization every hidden
card of every opponent is, independently with probability ``Q``, put back with the stock's
cards, and the emptied places are dealt again at random from that pool
(:func:`redeal_hidden`). ``noise=0`` (the default) is the true hands; ``noise=1`` deals
every hidden card again, the uniform belief. Between them it measures how much search
gains from a belief of a given quality, the yardstick a real belief is compared with.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from carioca_agents.search import SEARCH_PARAMS, SearchAgent
from carioca_agents.specs import Param
from carioca_env import Game, Move, PlayerView
from carioca_env.cards import cards_of
from carioca_env.determinize import game_from_view
from carioca_env.errors import CariocaError

#: The registered name: it says what the agent is.
CHEAT_NAME = "cheat-search"

#: The spec keys of ``cheat-search``: ``search``'s and ``noise``.
CHEAT_PARAMS: dict[str, Param] = {
    **SEARCH_PARAMS,
    "noise": Param(float, 0.0, "share of the opponents' true hidden cards dealt again at random from them and the "
                   "stock before each determinization (0: the true hands; 1: the uniform belief)",
                   minimum=0, maximum=1),
}


class CheatNotShown(CariocaError, RuntimeError):
    """A cheat asked to act without the runner having shown it the true game."""


class CheatSearchAgent(SearchAgent):
    """Search whose determinizations use the opponents' true hands (see the module docstring)."""

    name = CHEAT_NAME
    #: Runners check this flag to know that the agent must see the true game.
    cheat = True

    def __init__(self, *args: Any, noise: float = 0.0, **kwargs: Any) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, got {noise}")
        super().__init__(*args, **kwargs)
        #: the share of the true hidden cards dealt again per determinization (a noisy oracle)
        self.noise = noise
        self._game: Game | None = None  # shown for the next decision
        self._true: Game | None = None  # the game of the decision being searched

    #: A cheat explains nothing: what it weighed came from hands its seat cannot see, so
    #: runners that keep explanations store none for it (carioca_agents.explain).
    act_explained = None  # type: ignore[assignment]
    explain = None  # type: ignore[assignment]

    def show(self, game: Game) -> None:
        """The true game of the next decision (read only; never kept past it)."""
        self._game = game

    def act(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        """Search with the true hands of the game shown by :meth:`show` for this decision.

        Raises:
            CheatNotShown: no game was shown, or it is not the game of ``view``.
        """
        game, self._game = self._game, None
        if game is None:
            raise CheatNotShown(
                f"{CHEAT_NAME} is a reference cheat: it plays only where the runner shows it the true game "
                "(carioca tournament), not here"
            )
        if game.view(view.seat) != view:
            raise CheatNotShown(f"{CHEAT_NAME} was shown a game that is not the one of its view")
        self._true = game
        try:
            return super().act(view, legal)
        finally:
            self._true = None

    def determinize(self, view: PlayerView) -> Game:
        """The true hands (a share ``noise`` of their hidden cards dealt again, :func:`redeal_hidden`),
        the stock's cards in a random order from the agent's generator."""
        game = self._true
        if game is None:  # only act() searches, and it sets the game first
            raise CheatNotShown(f"{CHEAT_NAME} searches only inside act(), with the true game shown")
        hidden: list[tuple[int, ...]] = []
        for s in range(view.num_players):
            if s == view.seat:
                hidden.append(())
            else:
                rest = [a - b for a, b in zip(game.hands[s], view.known_cards[s])]
                hidden.append(tuple(cards_of(rest)))
        stock = list(game.stock)
        if self.noise > 0:  # not at 0: the true-hands cheat draws exactly what it always drew
            hidden, stock = redeal_hidden(hidden, stock, self.noise, self.rng)
        self.rng.shuffle(stock)
        return game_from_view(view, hidden, stock, self.rng.getrandbits(63))


def redeal_hidden(hidden: Sequence[Sequence[int]], stock: Sequence[int], share: float,
                  rng: random.Random) -> tuple[list[tuple[int, ...]], list[int]]:
    """Deal again a random part of the hidden cards: each card of ``hidden`` (per seat) goes,
    independently with probability ``share``, into a pool with the ``stock``; the pool is
    shuffled and refills the emptied places seat by seat; what is left is the stock.

    Hand sizes and the multiset of all cards are kept. ``share=0`` keeps the hands as they
    are (the stock comes back shuffled); ``share=1`` deals every hidden place uniformly from all the hidden and stock cards.

    Raises:
        ValueError: ``share`` is not between 0 and 1.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be between 0 and 1, got {share}")
    kept: list[list[int]] = []
    pool = list(stock)
    for cards in hidden:
        mine: list[int] = []
        for c in cards:
            (pool if rng.random() < share else mine).append(c)
        kept.append(mine)
    rng.shuffle(pool)
    out: list[tuple[int, ...]] = []
    for cards, mine in zip(hidden, kept):
        need = len(cards) - len(mine)
        out.append(tuple(mine + pool[:need]))
        del pool[:need]
    return out, pool


def redeal_expected(hidden: np.ndarray, pool: np.ndarray, share: float) -> np.ndarray:
    """The expected hidden counts per seat and card type after :func:`redeal_hidden`, to first
    order: a seat keeps ``(1 - share)`` of its true counts and fills its ``share * k`` emptied
    places from the mean put-back pool, ``share`` of every seat's hidden cards plus the stock
    (the ratio of the expectations stands for the expectation of the ratio).  Exact at
    ``share`` 0 (the true counts) and 1 (the uniform belief's counts).

    Args:
        hidden: ``[seats, card types]`` true hidden counts (zero rows for seats with none).
        pool: ``[card types]`` unseen copies: every seat's hidden cards and the stock.

    Raises:
        ValueError: ``share`` is not between 0 and 1, or ``pool`` holds fewer copies than ``hidden``.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be between 0 and 1, got {share}")
    hidden = np.asarray(hidden, dtype=float)
    pool = np.asarray(pool, dtype=float)
    stock = pool - hidden.sum(axis=0)
    if (stock < 0).any():
        raise ValueError("pool holds fewer copies of a card type than the hidden hands")
    put_back = share * hidden.sum(axis=0) + stock
    total = put_back.sum()
    sizes = hidden.sum(axis=1, keepdims=True)
    refill = share * sizes * (put_back / total) if total > 0 else np.zeros_like(hidden)
    return (1.0 - share) * hidden + refill


def show_true_game(agent: Any, game: Game) -> None:
    """Show ``game`` to ``agent`` if it is a labelled cheat (``agent.cheat``), else nothing:
    what a runner that allows reference cheats calls before each ``act``."""
    if getattr(agent, "cheat", False) is True:
        agent.show(game)
