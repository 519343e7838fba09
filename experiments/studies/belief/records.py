"""Positions for the belief: deals between built-in agents, dealt from a seed namespace
of their own, and what each opponent really hid at the positions recorded.

Decks come from :func:`carioca_experiments.common.seeds.derive_seed` (``carioca-belief``): a hash no tournament seed can
produce (tournaments hash ``carioca-tournament``, the luck fit ``carioca-luck-fit``), so
neither the fit nor its held-out measurement ever plays an evaluation's deck.  Every
:data:`HELDOUT_EVERY`-th deal is held out (:func:`is_heldout`): the fit never reads it.

Each seat's agent is drawn per deal from :data:`DEFAULT_AGENTS` (``learned`` is the
shipped policy of the contract and player count, left out where none is shipped).  At a
seat's turn start (the draw phase) the position is recorded with probability
``record_prob``: the seat's view and, for each opponent with hidden cards, its true hidden
counts (its hand minus the cards the view shows it surely holds).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from carioca_env import Game, GameConfig, Phase, PlayerView
from carioca_env.cards import full_deck
from carioca_env.determinize import hidden_slots
from carioca_experiments.common.seeds import BELIEF, derive_seed

#: The seed namespace of the belief's deals (never a tournament's).
SEED_NAMESPACE = BELIEF
#: Every HELDOUT_EVERY-th deal (deal % HELDOUT_EVERY == HELDOUT_EVERY - 1) is held out.
HELDOUT_EVERY = 5
#: The agents drawn per seat: the built-in ones the belief must read.
DEFAULT_AGENTS = ("heuristic", "greedy", "learned", "search:sims=8")


def is_heldout(deal: int) -> bool:
    """Whether deal number ``deal`` is held out of the fit."""
    return deal % HELDOUT_EVERY == HELDOUT_EVERY - 1


def deal_indices(deals: int, heldout: bool) -> list[int]:
    """The training (``heldout`` False) or held-out deal numbers among ``range(deals)``."""
    return [d for d in range(deals) if is_heldout(d) == heldout]


def learned_spec(players: int, contract: int) -> str | None:
    """The shipped policy's spec for a contract and player count, if one is shipped."""
    from carioca_agents.ppo_agent import shipped_models

    name = f"contract{contract}" + ("" if players == 2 else f"-p{players}")
    return f"ppo:{name}" if name in shipped_models() else None


@dataclass(frozen=True)
class Position:
    """A recorded position: the viewing seat's view and the truth it is scored on.

    Attributes:
        deal: the deal number (in the namespace).
        seat: the viewing seat.
        view: its view.
        hidden: per seat, the true hidden counts (53; zeros for the viewing seat).
        specs: the agent spec of each seat.
    """

    deal: int
    seat: int
    view: PlayerView
    hidden: np.ndarray
    specs: tuple[str, ...]


class AgentCache:
    """Agents built once per spec and process (a policy loads in seconds), reseeded per deal."""

    def __init__(self) -> None:
        self._agents: dict[tuple[str, int], Any] = {}

    def get(self, spec: str, seat: int, seed: int) -> Any:
        """The agent of ``spec`` for ``seat``, reset with ``seed``."""
        from carioca_agents.registry import make_agent

        key = (spec, seat)
        if key not in self._agents:
            self._agents[key] = make_agent(spec, seed)
        agent = self._agents[key]
        agent.reset(seed)
        return agent


def play_positions(
    players: int, contract: int, deal: int, *, seed: int = 0, agents: tuple[str, ...] = DEFAULT_AGENTS,
    record_prob: float = 0.3, max_moves: int = 2000, cache: AgentCache | None = None,
) -> Iterator[Position]:
    """Play deal ``deal`` of the namespace and yield its recorded positions, in order."""
    rng = random.Random(derive_seed(SEED_NAMESPACE, seed, "deal", players, contract, deal))
    deck = full_deck()
    rng.shuffle(deck)
    dealer = rng.randrange(players)
    pool = [spec for a in agents if (spec := a if a != "learned" else learned_spec(players, contract))]
    specs = tuple(pool[rng.randrange(len(pool))] for _ in range(players))
    cache = cache or AgentCache()
    seats = [cache.get(sp, s, derive_seed(SEED_NAMESPACE, seed, "agent", players, contract, deal, s)) for s, sp in enumerate(specs)]
    record = random.Random(derive_seed(SEED_NAMESPACE, seed, "record", players, contract, deal))
    game = Game.from_deck(deck, dealer, GameConfig(num_players=players, deals=(contract,)),
                          derive_seed(SEED_NAMESPACE, seed, "game", players, contract, deal))
    moves = 0
    while not game.game_over and moves < max_moves:
        seat = game.current
        view = game.view(seat)
        if game.phase is Phase.DRAW and record.random() < record_prob:
            slots = hidden_slots(view)
            if any(slots):
                hidden = np.zeros((players, len(game.hands[0])))
                for s in range(players):
                    if s != seat:
                        hidden[s] = np.array(game.hands[s]) - np.array(view.known_cards[s])
                yield Position(deal, seat, view, hidden, specs)
        game.apply(seats[seat].act(view, game.legal_moves()))
        moves += 1


def collect(
    players: int, contract: int, deals: list[int], visit: Callable[[Position], None], **kw: Any
) -> None:
    """Play ``deals`` and call ``visit`` on every recorded position (one agent cache)."""
    cache = kw.pop("cache", None) or AgentCache()
    for d in deals:
        for pos in play_positions(players, contract, d, cache=cache, **kw):
            visit(pos)
