"""Game records: the format (``carioca-game-record``, version 1), writing and replaying
them, and their files.

:class:`GameRecords` holds :class:`~carioca_env.game.Game`'s record methods
(``to_record``, ``start_of_record``, ``from_record``, ``check_record_results``, ``save``,
``load``; ``Game`` inherits them).  Files are read bounded, never with a traceback
(:func:`read_record`) and written atomically (:func:`write_atomic`).  The format is
documented in ``docs/tournaments.md`` ("Game record format").
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from carioca_env.cards import DECK_SIZE, card_str, parse_card
from carioca_env.errors import CariocaError, RecordError, excerpt
from carioca_env.explanations import ExplanationError, check_explanations
from carioca_env.game_config import GameConfig

if TYPE_CHECKING:  # the game imports this module: the names only, for the annotations
    from carioca_env.game import Game, _DealStart
    from carioca_env.moves import Move as _Move
    from carioca_env.view import DealResult

RECORD_FORMAT = "carioca-game-record"
RECORD_VERSION = 1


#: How deep a JSON file read by :func:`read_json_file` may nest (a record nests 3 deep;
#: deeper files are refused before anything walks them recursively).
MAX_JSON_DEPTH = 64


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests more than ``limit`` lists or objects deep.

    Walked with a stack, not recursion, so any depth is measured safely.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def read_json_file(path: str | Path, *, max_bytes: int | None = None, max_depth: int = MAX_JSON_DEPTH,
                   what: str = "a JSON file") -> Any:
    """The JSON value in a file, read bounded: a regular file, at most ``max_bytes``
    (None: no limit), UTF-8 JSON nested at most ``max_depth`` deep.

    Raises:
        RecordError: saying why it cannot be read (``what`` names what was expected).
    """
    try:
        p = Path(path)
        st = p.stat()  # a missing file: OSError "No such file or directory"
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
            raise RecordError(f"cannot read {what} from {path}: it is not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise RecordError(f"cannot read {what} from {path}: it is larger than {max_bytes:,} bytes")
        value = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        if isinstance(exc, RecordError):
            raise
        raise RecordError(f"cannot read {what} from {path}: {exc}") from exc
    except RecursionError:
        value = None
        deep = True
    else:
        deep = json_depth_exceeds(value, max_depth)
    if deep:
        raise RecordError(f"cannot read {what} from {path}: its JSON nests too deeply (more than {max_depth} levels)")
    return value


def read_record(path: str | Path) -> Any:
    """The JSON value in a record file (not yet checked as a record).

    Raises:
        RecordError: the file cannot be read, is not UTF-8 JSON, or nests too deeply.
    """
    return read_json_file(path, what="a game record")


def write_atomic(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` through a temporary file in the
    same folder and ``os.replace``: readers see the old file or the new one, never a part.

    With ``durable`` the file is also flushed to the disk before it replaces the old one,
    so a power cut leaves one or the other (for files a person's work lives in).

    Raises:
        OSError: the folder does not exist or cannot be written.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data  # "\n" stays "\n" everywhere
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_record_lists(record: dict[str, Any]) -> None:
    """``deal_scores`` (a list of lists of ints) and ``totals`` (a list of ints), if present."""
    scores = record.get("deal_scores", [])
    if not isinstance(scores, list) or not all(
        isinstance(row, list) and all(type(x) is int for x in row) for row in scores
    ):
        raise RecordError(f"corrupt record: 'deal_scores' must be a list of lists of ints, got {excerpt(scores)}")
    totals = record.get("totals", [])
    if not isinstance(totals, list) or not all(type(x) is int for x in totals):
        raise RecordError(f"corrupt record: 'totals' must be a list of ints, got {excerpt(totals)}")


class GameRecords:
    """The record methods of :class:`~carioca_env.game.Game` (which inherits them).

    They use only the game's public state (``config``, ``seed``, ``moves``,
    ``deal_results``, ``totals``, ``num_players``), how its first deal was made
    (``_start``), and ``from_deck`` / ``push`` to replay.
    """

    if TYPE_CHECKING:  # what Game provides; declared for the type checker only
        config: GameConfig
        seed: int
        _start: _DealStart
        moves: list[_Move]
        deal_results: list[DealResult]
        totals: list[int]
        num_players: int

        def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None: ...

        @classmethod
        def from_deck(
            cls, deck: Sequence[int], dealer: int, config: GameConfig | None = None, seed: int = 0
        ) -> Game: ...

        def push(self, text: str) -> _Move: ...

    def to_record(self, agents: Sequence[str] | None = None) -> dict[str, Any]:
        """The game as a JSON-ready record (format ``carioca-game-record``, version 1).

        It holds the options, the seed (and a stacked first deal's deck and dealer), the
        moves in notation, each deal's result and the totals; ``agents`` (one name or spec
        per seat) is kept as information.
        """
        rec: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "config": self.config.to_dict(),
            "seed": self.seed,
        }
        if self._start.position is not None:
            raise RecordError(
                "a game set up from an explicit position has no replayable record "
                "(a record replays from a deck); save the Position instead"
            )
        if self._start.deck is not None:
            rec["deck"] = [card_str(c) for c in self._start.deck]
            rec["dealer"] = self._start.dealer
        if agents is not None:
            rec["agents"] = list(agents)
        rec["moves"] = [str(m) for m in self.moves]
        rec["deal_scores"] = [list(r.scores) for r in self.deal_results if not r.cancelled]
        rec["totals"] = list(self.totals)
        return rec

    @classmethod
    def start_of_record(cls, record: dict[str, Any]) -> tuple[Game, list[str]]:
        """The game a record starts from (no move played yet) and its moves' notations.

        Every header field is checked for its type and value before the game is built
        (see the record format in ``docs/tournaments.md``), so a corrupt or foreign record gives one
        :class:`RecordError` that names the field, never another exception.

        Raises:
            RecordError: not a Carioca record, another version, or a corrupt header.
        """
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise RecordError(f"not a Carioca game record (expected a JSON object with format {RECORD_FORMAT!r})")
        version = record.get("version")
        if type(version) is not int or version != RECORD_VERSION:
            raise RecordError(
                f"record version {excerpt(version)} is not supported (this engine reads {RECORD_VERSION})"
            )
        for key in ("config", "seed", "moves"):
            if key not in record:
                raise RecordError(f"corrupt record header: it has no {key!r}")
        moves = record["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RecordError(f"corrupt record header: 'moves' must be a list of move notations, got {excerpt(moves)}")
        check_record_lists(record)
        try:  # optional: what the agents weighed, one entry per move (carioca_env.explanations)
            check_explanations(record, moves)
        except ExplanationError as exc:
            raise RecordError(f"corrupt record: {exc}") from None
        try:
            config = GameConfig.from_dict(record["config"])
            seed = record["seed"]
            if "deck" in record or "dealer" in record:
                deck = record.get("deck")
                if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                    raise RecordError(
                        f"'deck' must be a list of {DECK_SIZE} card notations like '8S', got {excerpt(deck)}"
                    )
                dealer: Any = record.get("dealer")  # from_deck checks that it is a seat
                game = cls.from_deck([parse_card(c) for c in deck], dealer, config, seed)
            else:
                game = cast("Game", cls(config, seed))  # cls is Game or a subclass
        except CariocaError as exc:
            raise RecordError(f"corrupt record header: {exc}") from exc
        agents = record.get("agents")
        if "agents" in record and (
            not isinstance(agents, list) or len(agents) != game.num_players or not all(isinstance(a, str) for a in agents)
        ):
            raise RecordError(
                f"corrupt record header: 'agents' must be a list of {game.num_players} names, got {excerpt(agents)}"
            )
        return game, moves

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        """Replay a record into a game, checking every move, the deal scores and the totals.

        Raises:
            RecordError: the record is not a Carioca record, has another version, or does
                not replay (the message names the move and the reason).
        """
        game, moves = cls.start_of_record(record)
        for i, text in enumerate(moves):
            try:
                game.push(text)
            except CariocaError as exc:
                raise RecordError(f"move {i + 1} {excerpt(text)} does not replay: {exc}") from exc
        game.check_record_results(record)
        return game

    def check_record_results(self, record: dict[str, Any]) -> None:
        """Raise :class:`RecordError` if the record's stored scores differ from this game's."""
        check_record_lists(record)
        scores = [list(r.scores) for r in self.deal_results if not r.cancelled]
        if "deal_scores" in record and record["deal_scores"] != scores:
            raise RecordError(
                f"the record's deal scores {excerpt(record['deal_scores'])} differ from the replayed {excerpt(scores)}"
            )
        if "totals" in record and record["totals"] != self.totals:
            raise RecordError(
                f"the record's totals {excerpt(record['totals'])} differ from the replayed totals {self.totals}"
            )

    def save(self, path: str | Path, agents: Sequence[str] | None = None) -> None:
        """Write the record (see :meth:`to_record`) as JSON, atomically.

        The record goes to a temporary file beside ``path`` that then replaces it
        (``os.replace``), so an interrupted save leaves the previous file whole.

        Raises:
            OSError: the folder cannot be written.
        """
        write_atomic(Path(path), json.dumps(self.to_record(agents)) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Game:
        """Read and replay a JSON record written by :meth:`save`.

        Raises:
            RecordError: the file is not valid JSON or does not replay.
        """
        return cls.from_record(read_record(path))
