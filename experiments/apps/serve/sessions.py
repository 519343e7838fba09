"""Games a person plays in the browser: one record file per game, saved after every move.

A game is a record file ``<folder>/web-games/<id>.json``: the engine's own record
(``Game.to_record``, so ``carioca replay`` and the viewer read it) plus a ``session`` key
(the person's seat, each bot's spec, the bots' seed).  Every move, the person's and each
bot's, rewrites the file atomically (a temporary file in the same folder, then
``os.replace``), so a reload or a server restart resumes the game and a crash never
leaves half a file.

Two tabs on one game cannot corrupt it: every change runs under the game's lock, and a
move carries the version (the number of moves played) the page was showing; a move made
from an older position is refused with :class:`StaleMove`.  The locks live in the server's
process: serve a folder with one ``carioca serve`` at a time (a second server on the same
folder sees the other's moves, through the file's modification time, but does not share
its locks).

The bots act on their seat's ``PlayerView`` only.  Before each decision a bot is reset
with a seed derived from the game's bot seed, its seat and the move number, so what it
plays depends on the position alone and a resumed game plays on exactly as it would
have.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from carioca_agents.allowlist import Allowlist, model_files
from carioca_agents.base import Agent
from carioca_agents.explain import act_and_explain
from carioca_agents.registry import ParsedSpec, SpecError, build_agent
from carioca_env import CariocaError, Game, GameConfig, IllegalMoveError, Move, RecordError
from carioca_env.explanations import Explanation, ExplanationError, attach_explanations, check_explanations
from carioca_experiments.apps.serve.discovery import read_json
from carioca_experiments.apps.serve.safepath import PathRefused, SafeRoot
from carioca_experiments.common.files import write_file
from carioca_experiments.common.seeds import SERVE_BOT, derive_seed

GAMES_DIR = "web-games"
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class StaleMove(Exception):
    """A move sent from a position the game has already left (another tab moved)."""


class UnknownGame(Exception):
    """No game of that id in the served folder."""


class BotFailed(Exception):
    """A bot raised inside ``act()`` or answered an illegal move.

    The game keeps every move played before it (the file is saved after each move), so a
    later request lets the bot try again; the server answers 502, naming the seat and bot.
    """


@dataclass
class PlaySession:
    """A game in play: the engine's game, the person's seat, the bots and their specs."""

    id: str
    path: Path
    game: Game
    human_seat: int
    specs: dict[int, str]
    seed: int
    bots: dict[int, Agent] = field(default_factory=dict)
    #: one entry per move: what the bot weighed (None: the person's move, a forced one);
    #: saved in the record, shown by the viewer once the game is over, never during it
    explanations: list[Explanation | None] = field(default_factory=list)

    @property
    def version(self) -> int:
        """The number of moves played: a move must name it to be accepted."""
        return len(self.game.moves)

    @property
    def names(self) -> list[str]:
        """One name per seat: ``you`` or the bot's spec."""
        return ["you" if s == self.human_seat else self.specs[s] for s in range(self.game.num_players)]

    def record(self) -> dict[str, Any]:
        """The record written to the file."""
        rec = self.game.to_record(agents=self.names)
        if len(self.explanations) == len(self.game.moves):
            attach_explanations(rec, self.explanations)
        rec["session"] = {"id": self.id, "human_seat": self.human_seat,
                          "bots": {str(s): spec for s, spec in self.specs.items()}, "seed": self.seed}
        return rec

    def save(self) -> None:
        """Write the game atomically."""
        write_file(self.path, json.dumps(self.record()) + "\n", durable=True)


class GameStore:
    """The browser games of one served folder, each behind its own lock.

    Every bot spec, from a request or from a game file, goes through ``allowlist``
    (default: the built-in agents, shipped models and models inside the folder) before
    anything is built.
    """

    def __init__(self, root: SafeRoot, allowlist: Allowlist | None = None) -> None:
        self.root = root
        self.allowlist = allowlist if allowlist is not None else Allowlist(resolve_model=root.model)
        self.folder = root.root / GAMES_DIR
        self._locks: dict[str, threading.RLock] = {}
        self._locks_guard = threading.Lock()
        self._cache: dict[str, tuple[int, PlaySession]] = {}

    # ---------------------------------------------------------------- files

    def lock(self, game_id: str) -> threading.RLock:
        """The lock of one game (created on first use; re-entrant, so a route can hold it
        across a look and a move)."""
        with self._locks_guard:
            return self._locks.setdefault(game_id, threading.RLock())

    def path_of(self, game_id: str) -> Path:
        """The record file of a game id.

        Raises:
            UnknownGame: an id that is not letters, digits, '-' and '_' (1-64 of them).
        """
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise UnknownGame(f"{game_id!r} is not a game id (letters, digits, '-' and '_', at most 64)")
        return self.folder / f"{game_id}.json"

    def _new_id(self) -> str:
        n = 1
        while (self.folder / f"game-{n:04d}.json").exists():
            n += 1
        return f"game-{n:04d}"

    def ids(self) -> list[str]:
        """Every game id in the folder, sorted."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json") if GAME_ID.match(p.stem))

    def check_bot(self, spec: str, players: int) -> ParsedSpec:
        """A bot spec checked for a table of ``players``: allowed by the allowlist (nested
        specs too), and every model it names made for that many players.  Nothing is
        built; only the models' cards (inside the folder) are read.

        Raises:
            SpecError: a spec that does not parse, or names what is not allowed.
            PathRefused: a model outside the folder, or missing.
            ModelLoadError: a model whose card is unreadable or made for another table.
        """
        from carioca_agents.ppo_agent import check_card, read_card

        parsed = self.allowlist.check(spec)
        for path in model_files(parsed):
            check_card(read_card(path), spec, players)
        return parsed

    def check_game(self, record: dict[str, Any]) -> None:
        """Check a browser game's ``session`` and the bots it names (for the listing).

        Raises:
            RecordError: saying what is wrong.
        """
        self._session_of(record, "this game", int(record["config"]["num_players"]))

    def _session_of(self, record: dict[str, Any], where: str, players: int
                    ) -> tuple[int, dict[int, str], int, dict[int, ParsedSpec]]:
        """``(seat, specs, seed, checked specs)`` of a game file's session.

        Raises:
            RecordError: a corrupt session, or a bot that cannot be built here.
        """
        meta: Any = record.get("session")  # a corrupt one raises below
        try:
            seat = meta["human_seat"]
            specs = {int(s): spec for s, spec in meta["bots"].items()}
            seed = meta["seed"]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"{where} has a corrupt session: {exc!r}") from None
        if type(seat) is not int or type(seed) is not int or not all(isinstance(v, str) for v in specs.values()):
            raise RecordError(f"{where} has a corrupt session: the seat and seed are integers, the bots texts")
        if sorted(specs) != [s for s in range(players) if s != seat]:
            raise RecordError(f"{where} names bots for seats {sorted(specs)} at a {players}-player table")
        checked = {}
        for s, spec in specs.items():
            try:
                checked[s] = self.check_bot(spec, players)
            except (SpecError, PathRefused, CariocaError) as exc:  # ModelLoadError is a CariocaError
                raise RecordError(f"{where}: the bot of seat {s}, {spec[:100]!r}, cannot play here: {exc}") from None
        return seat, specs, seed, checked

    # ---------------------------------------------------------------- create / load

    def create(self, players: int, bots: list[str], seat: int, deals: list[int], seed: int,
               deck: list[int] | None = None, dealer: int = 0) -> PlaySession:
        """Start a game (``bots`` are used in turn for the other seats) and save it.

        ``deck`` and ``dealer`` stack the first deal (``Game.from_deck``).

        Raises:
            InvalidConfigError / MisdealError: options that make no game.
            ValueError: an unknown agent spec.
            PathRefused: a ``ppo:`` model outside the served folder.
        """
        config = GameConfig(num_players=players, deals=tuple(deals))
        if not 0 <= seat < players:
            raise ValueError(f"your seat must be 0..{players - 1}, got {seat}")
        if not bots:
            raise ValueError("name at least one bot (an agent spec such as greedy)")
        # every spec checked for this table before anything is built, loaded or written
        checked = {spec: self.check_bot(spec, players) for spec in dict.fromkeys(bots)}
        game = Game.from_deck(deck, dealer, config, seed) if deck is not None else Game(config, seed)
        others = [s for s in range(players) if s != seat]
        specs = {s: bots[k % len(bots)] for k, s in enumerate(others)}
        agents = {s: build_agent(checked[spec], seed) for s, spec in specs.items()}
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._locks_guard:
            game_id = self._new_id()
            path = self.path_of(game_id)
            path.touch()  # claim the id before the lock is released
        session = PlaySession(game_id, path, game, seat, specs, seed, agents)
        with self.lock(game_id):
            try:
                self._run_bots(session)
                session.save()
            except BaseException:
                path.unlink(missing_ok=True)  # a game that could not start leaves no file
                raise
            self._remember(session)
        return session

    def _remember(self, session: PlaySession) -> None:
        self._cache[session.id] = (session.path.stat().st_mtime_ns, session)

    def _load(self, game_id: str) -> PlaySession:
        path = self.path_of(game_id)
        if not path.is_file():
            raise UnknownGame(f"there is no game {game_id!r} in {GAMES_DIR}/")
        mtime = path.stat().st_mtime_ns
        cached = self._cache.get(game_id)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        where = f"{GAMES_DIR}/{game_id}.json"
        record = read_json(self.root, path)
        if not isinstance(record, dict) or not isinstance(record.get("session"), dict):
            raise RecordError(f"{where} is not a browser game record")
        game = Game.from_record(record)
        seat, specs, seed, checked = self._session_of(record, where, game.num_players)
        try:
            bots = {s: build_agent(checked[s], seed) for s in specs}
        except (ValueError, CariocaError) as exc:  # a model that no longer loads, a plugin that fails
            raise RecordError(f"{where}: a bot cannot be built: {exc}") from None
        try:  # a game file from before explanations has none: its moves explain nothing
            explained = check_explanations(record, record["moves"]) or [None] * len(game.moves)
        except ExplanationError:  # start_of_record checked them already
            explained = [None] * len(game.moves)
        session = PlaySession(game_id, path, game, seat, specs, seed, bots, explained)
        self._cache[game_id] = (mtime, session)
        return session

    def get(self, game_id: str) -> PlaySession:
        """The game, resumed from its file (bots owed a move play it first).

        Raises:
            UnknownGame: no such game.
            RecordError: its file does not replay.
        """
        with self.lock(game_id):
            session = self._load(game_id)
            if self._run_bots(session):
                self._remember(session)
            return session

    # ---------------------------------------------------------------- moves

    def _run_bots(self, session: PlaySession) -> list[dict[str, Any]]:
        """Let the bots play until the person is to act or the game ends; saves after each move."""
        game = session.game
        played = []
        while not game.game_over and game.current_player != session.human_seat:
            seat = game.current_player
            bot = session.bots[seat]
            try:
                bot.reset(derive_seed(SERVE_BOT, session.seed, seat, len(game.moves)))
                move, why = act_and_explain(bot, game.view(seat), game.legal_moves())
                game.apply(move)  # checked: a bot's answer is outside input
                session.explanations.append(None if why is None or why.kind == "forced" else why)
            except Exception as exc:  # the bot is code the operator allowed, not the server's
                raise BotFailed(
                    f"seat {seat}'s bot ({session.specs[seat]}) failed at move {len(game.moves)}: "
                    f"{type(exc).__name__}: {exc}; the game is saved, reload to let it try again"
                ) from exc
            session.save()
            played.append({"seat": seat, "move": str(move)})
        return played

    def play(self, game_id: str, version: int, move: Move) -> tuple[PlaySession, list[dict[str, Any]]]:
        """Play the person's move, then the bots' replies; returns the session and the bots' moves.

        Raises:
            StaleMove: ``version`` is not the game's (the page shows an old position).
            IllegalMoveError: the move is illegal (nothing changes, nothing is written).
            UnknownGame / RecordError: no such game, or its file does not replay.
        """
        with self.lock(game_id):
            session = self._load(game_id)
            if version != session.version:
                raise StaleMove(
                    f"this page shows move {version} but the game is at move {session.version} "
                    f"(another tab played): the position was reloaded, choose again"
                )
            game = session.game
            if game.game_over:
                raise IllegalMoveError("the game is over", "R15")
            if game.current_player != session.human_seat:
                raise IllegalMoveError(f"it is seat {game.current_player}'s turn, not yours", "R7")
            game.apply(move)
            session.explanations.append(None)
            session.save()
            bots = self._run_bots(session)
            self._remember(session)
            return session, bots
