"""Shared pieces of the ``carioca serve`` tests: folders to serve, a stacked deal, a live server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig, parse_cards, stack_deck

if TYPE_CHECKING:
    from carioca_experiments.apps.serve.sessions import GameStore

#: seat 0 (the person) can open 8C 8D 8H / KS KH KD at once and lay 8S off afterwards;
#: greedy (seat 1) holds pairs it cannot complete from the cards the person discards
HUMAN_HAND = "8C 8D 8H KS KH KD 8S 9C 10C JC QD"
GREEDY_HAND = "2S 2H 3S 3H 4S 4H 5S 5H 6S 6H 7S"
UPCARD = "AD"
#: the stock in draw order: the person draws the K/8s, greedy the spades and hearts between
STOCK_TOP = "KC 9S 8S 10S KS JS 8H QS KH 9H 8D 10H KD JH 8C QH KC"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def stacked_deck() -> list[int]:
    """The deck of the stacked contract-1 deal (seat 1 deals, so seat 0 plays first)."""
    return stack_deck([parse_cards(HUMAN_HAND), parse_cards(GREEDY_HAND)], parse_cards(UPCARD)[0],
                      parse_cards(STOCK_TOP), dealer=1)


def write_played_record(path: Path, players: int = 3, deals: tuple[int, ...] = (1, 2), seed: int = 5) -> Game:
    """Play a game between scripted agents and save its record at ``path``; returns the game."""
    game = Game(GameConfig(num_players=players, deals=deals), seed=seed)
    specs = ["heuristic", "greedy", "random", "greedy"][:players]
    bots = [make_agent(s, seed * 10 + i) for i, s in enumerate(specs)]
    while not game.game_over:
        s = game.current_player
        game.apply(bots[s].act(game.view(s), game.legal_moves()))
    path.parent.mkdir(parents=True, exist_ok=True)
    game.save(path, agents=specs)
    return game


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(folder: Path) -> Iterator[str]:
    """``carioca serve``'s app on a free loopback port in a thread; yields its base URL."""
    import uvicorn

    from carioca_experiments.apps.serve.app import create_app

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(folder), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError(f"the test server did not start on port {port} within 20 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


#: a contract-2 deal: seat 0 opens 8C 8D 8H / 4S 5S JK 7S and later swaps 6S for the joker
SWAP_HAND = "8C 8D 8H 4S 5S JK 7S 6S 9C 10C JC"


def swap_deck() -> list[int]:
    """The deck of the stacked contract-2 deal for the joker swap (seat 1 deals)."""
    return stack_deck([parse_cards(SWAP_HAND), parse_cards(GREEDY_HAND)], parse_cards(UPCARD)[0],
                      parse_cards("QC 9S KC 10S"), dealer=1)


def play_person(store: GameStore, game_id: str, until: Callable[[Game], bool], spec: str = "greedy",
                seed: int = 0, limit: int = 5000) -> Game:
    """Play the person's seat of a browser game with agent ``spec`` (through the store, as the
    page would) until ``until(game)`` holds at the person's turn or the game ends; returns the game."""
    agent = make_agent(spec, seed)
    for _ in range(limit):
        session = store.get(game_id)
        game = session.game
        if game.game_over or until(game):
            return game
        move = agent.act(game.view(session.human_seat), game.legal_moves())
        store.play(game_id, session.version, move)
    raise RuntimeError(f"{game_id}: the condition did not hold within {limit} of the person's moves")
