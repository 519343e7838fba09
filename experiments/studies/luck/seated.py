"""One game of one contract from a stacked deck, with its agents seated and reset.

Every luck measurement (the fits, ``measure``, ``playout``) plays deals this way: the deck
and the dealer are stacked, each seat's agent is made from its spec and reset with its
seed, so that a deck played twice with the same seeds is the same game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from carioca_agents.base import Agent
    from carioca_env import Game


def seat_deal(deck: Sequence[int], dealer: int, contract: int, specs: Sequence[str], seeds: Sequence[int],
              game_seed: int) -> tuple[Game, list[Agent]]:
    """The game of ``contract`` dealt from ``deck`` by ``dealer`` (one seat per spec, the
    game's own randomness from ``game_seed``) and its agents, seat by seat, each made
    from its spec and reset with its seed."""
    from carioca_agents.registry import make_agent
    from carioca_env import Game, GameConfig

    game = Game.from_deck(list(deck), dealer, GameConfig(num_players=len(specs), deals=(contract,)), game_seed)
    agents = [make_agent(spec, seed) for spec, seed in zip(specs, seeds, strict=True)]
    for agent, seed in zip(agents, seeds):
        agent.reset(seed)
    return game, agents
