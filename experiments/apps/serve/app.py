"""The FastAPI application of ``carioca serve``: pages, the replay API and the play API.

Pages are Jinja2 templates; the table is drawn in the browser by the package's own
JavaScript (``static/``) from JSON positions (:mod:`~carioca_experiments.apps.serve.frames`).  Every
path in a request goes through :class:`~carioca_experiments.apps.serve.safepath.SafeRoot`, every body
through a pydantic model (:mod:`~carioca_experiments.apps.serve.models`), and every engine error comes
back as JSON ``{"error": message, "rule": ruling}`` with a 4xx status.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from carioca_agents.allowlist import Allowlist, SpecRefused, model_files
from carioca_agents.registry import ParsedSpec, build_agent
from carioca_env import CariocaError, IllegalMoveError, RecordError, parse_move
from carioca_experiments.apps.serve import discovery
from carioca_experiments.apps.serve.clicks import describe, resolve_opening
from carioca_experiments.apps.serve.curves import MAX_BYTES as MAX_EVAL_BYTES
from carioca_experiments.apps.serve.curves import learning_curve, read_points
from carioca_experiments.apps.serve.deals import DealLog
from carioca_experiments.apps.serve.frames import display_name, game_frame, move_json
from carioca_experiments.apps.serve.models import HintRequest, MoveRequest, NewGame, OpenRequest
from carioca_experiments.apps.serve.replays import Replay, ReplayCache
from carioca_experiments.apps.serve.safepath import PathRefused, SafeRoot
from carioca_experiments.apps.serve.sessions import BotFailed, GameStore, PlaySession, StaleMove, UnknownGame
from carioca_experiments.common.seeds import SERVE_BOT, derive_seed
from carioca_experiments.evaluation.diff import TASK_FILE, DiffError, duplicate_diff
from carioca_experiments.evaluation.ratings import RATINGS_EXPLAINED
from carioca_experiments.evaluation.tournament.config import parse_agent

HERE = Path(__file__).resolve().parent
#: The most a hint may ask of a search (tighter than a bot's: a hint answers a click):
#: rollouts, milliseconds, rollout length and candidates per decision.
HINT_LIMITS = {("search", "sims"): 64, ("search", "ms"): 1000.0, ("search", "horizon"): 200, ("search", "top"): 8}
#: files the app serves as they are (plots and tables of results folders)
SERVED_SUFFIXES = {".png": "image/png", ".csv": "text/csv", ".md": "text/markdown",
                   ".json": "application/json", ".jsonl": "application/json"}
MAX_TABLE_ROWS = 500
#: characters of a CSV file read at most (far more than MAX_TABLE_ROWS rows of a results table)
MAX_CSV_CHARS = 2 * 1024 * 1024


@dataclass
class WebState:
    """What the routes share: the folder, the replay cache and the game store."""

    root: SafeRoot
    replays: ReplayCache
    games: GameStore
    deals: DealLog = field(default_factory=DealLog)


def _error(status: int, message: str, rule: str = "", **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, "rule": rule, **extra}, status_code=status)


def _error_page(request: Request, status: int, message: str) -> HTMLResponse:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, "error.html", {"message": message}, status_code=status)


def _refuse(request: Request, status: int, message: str, rule: str = "") -> JSONResponse | HTMLResponse:
    if request.url.path.startswith("/api/"):
        return _error(status, message, rule)
    return _error_page(request, status, message)


def _viewable(replay: Replay) -> Replay:
    """A replay the viewer may show: a browser game only once it is over (its record holds
    the seed, hence every hand: the person must not read the bots' cards mid-game)."""
    if replay.record.get("session") is not None and not replay.finished:
        raise PathRefused("this game is still being played in the browser: its replay opens when it is over")
    return replay


def dash(value: Any) -> Any:
    """A template filter: a missing value (None, empty) shows as a dash, never as ``None``."""
    return "\u2013" if value is None or value == "" or value == [] else value


def fixed(value: Any, digits: int = 1) -> str:
    """A template filter: a number with ``digits`` decimals, anything else as a dash."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return "\u2013"
    return f"{value:.{digits}f}"


def create_app(folder: str | Path, plugins: dict[str, ParsedSpec] | None = None) -> FastAPI:
    """The web app serving ``folder`` (records, tournaments, runs; browser games go to ``web-games/``).

    A request may name the built-in agents, shipped models and models inside ``folder``
    (:class:`carioca_agents.allowlist.Allowlist`), and the labels of ``plugins`` (label -> the
    operator's parsed spec: ``carioca serve --allow-plugin``), nothing else.
    """
    root = SafeRoot.of(folder)
    allowlist = Allowlist(plugins=dict(plugins or {}), resolve_model=root.model)
    app = FastAPI(title="carioca serve", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.web = WebState(root, ReplayCache(root), GameStore(root, allowlist))
    app.state.templates = Jinja2Templates(directory=str(HERE / "templates"))
    app.state.templates.env.filters.update(dash=dash, fixed=fixed, seat_name=lambda name: display_name(str(name)))
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    _add_error_handlers(app)
    _add_pages(app)
    _add_replay_api(app)
    _add_play_api(app)
    return app


def _state(request: Request) -> WebState:
    return request.app.state.web


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(PathRefused)
    async def path_refused(request: Request, exc: PathRefused) -> Any:
        return _refuse(request, exc.status, str(exc))

    @app.exception_handler(StaleMove)
    async def stale(request: Request, exc: StaleMove) -> Any:
        return _refuse(request, 409, str(exc))

    @app.exception_handler(UnknownGame)
    async def unknown(request: Request, exc: UnknownGame) -> Any:
        return _refuse(request, 404, str(exc))

    @app.exception_handler(BotFailed)
    async def bot_failed(request: Request, exc: BotFailed) -> Any:
        return _refuse(request, 502, str(exc))

    @app.exception_handler(RecordError)
    async def bad_record(request: Request, exc: RecordError) -> Any:
        return _refuse(request, 422, f"the record cannot be used: {exc}")

    @app.exception_handler(CariocaError)
    async def engine_error(request: Request, exc: CariocaError) -> Any:
        return _refuse(request, 400, str(exc), getattr(exc, "rule", ""))


# =========================================================================== pages


def shipped_bots() -> list[dict[str, Any]]:
    """The shipped models the play form offers as bots: ``name`` (``ppo:NAME`` plays it)
    and the table size it was trained for (``players``), read from each model's card."""
    from carioca_agents.ppo_agent import SHIPPED_DIR, read_card, shipped_models

    out = []
    for name in shipped_models():
        card = read_card(SHIPPED_DIR / name / "model.zip")
        out.append({"name": name, "players": int(card.get("num_players", 2)),
                    "contract": card.get("contract", "full")})
    return out


def _add_pages(app: FastAPI) -> None:
    def page(request: Request, name: str, **context: Any) -> HTMLResponse:
        return request.app.state.templates.TemplateResponse(request, name, context)

    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> HTMLResponse:
        web = _state(request)
        listing = discovery.scan(web.root, web.games.check_game)
        games = [r for r in listing.records if r["session"]]
        records = [r for r in listing.records if not r["session"]]
        return page(request, "index.html", listing=listing, records=records, games=games, shipped=shipped_bots(),
                    agents=web.games.allowlist.choices(), folder=str(web.root.root))

    @app.get("/view", response_class=HTMLResponse)
    def view(request: Request, path: str = Query(max_length=1000), move: int = Query(0, ge=0),
             seat: int | None = Query(None, ge=0, le=3)) -> HTMLResponse:
        web = _state(request)
        replay = _viewable(web.replays.get(web.root.resolve(path)))
        models = discovery.scan(web.root).models
        return page(request, "viewer.html", path=path, replay=replay, start=min(move, replay.length),
                    seat=seat, models=models, model=_model_of(replay.names, models))

    @app.get("/tournament", response_class=HTMLResponse)
    def tournament(request: Request, path: str = Query("", max_length=1000)) -> HTMLResponse:
        web = _state(request)
        folder = web.root.resolve(path, kind="dir") if path else web.root.root
        summary = discovery.read_summary(web.root, folder)
        if summary is None:
            raise PathRefused(f"{path!r} holds no summary.json (run `carioca tournament --report` on it)", 404)
        pngs = _pngs(web.root, folder)
        records = discovery.tournament_records(web.root, folder)
        config = summary.get("config", {})
        labels = [parse_agent(str(a))[0] for a in config.get("agents", [])] if isinstance(config, dict) else []
        return page(request, "tournament.html", path=web.root.relative(folder), s=summary, pngs=pngs,
                    ratings_explained=RATINGS_EXPLAINED, labels=labels,
                    records=records, has_md=web.root.child(folder, "summary.md") is not None)

    @app.get("/diff", response_class=HTMLResponse)
    def diff(request: Request, path: str = Query("", max_length=1000), contract: int = Query(ge=1, le=7),
             deck: int = Query(ge=0, le=1_000_000), a: str = Query(min_length=1, max_length=200),
             b: str = Query(min_length=1, max_length=200), seat: int | None = Query(None, ge=0, le=3)) -> HTMLResponse:
        """Two games of one deck with agents ``a`` and ``b`` in the same seat, side by side,
        from the first move where they part (:mod:`carioca_experiments.evaluation.diff`)."""
        web = _state(request)
        folder = web.root.resolve(path, kind="dir") if path else web.root.root
        records = {}
        for rel in discovery.tournament_records(web.root, folder):
            name = rel.rsplit("/", 1)[-1]
            if TASK_FILE.match(name) and name.startswith(f"c{contract}-d{deck}-l"):
                records[name[:-5]] = discovery.read_json(web.root, web.root.resolve(rel))
        try:
            result = duplicate_diff(records, contract, deck, (a, b), seat)
        except DiffError as exc:
            raise PathRefused(str(exc), 404) from None
        rel = web.root.relative(folder)
        games = [f"{rel}/records/{t}.json" if rel else f"records/{t}.json" for t in result.tasks]
        return page(request, "diff.html", path=rel, d=result.to_dict(), games=games)

    @app.get("/run", response_class=HTMLResponse)
    def run(request: Request, path: str = Query("", max_length=1000)) -> HTMLResponse:
        web = _state(request)
        folder = web.root.resolve(path, kind="dir") if path else web.root.root
        card = discovery.read_json_in(web.root, folder, "model.json")
        experiment = discovery.read_json_in(web.root, folder, "experiment.json")
        eval_csv = web.root.child(folder, "eval.csv")
        head, rows = _csv_table(web.root, eval_csv)
        pngs = _pngs(web.root, folder)
        return page(request, "run.html", path=web.root.relative(folder), card=card if isinstance(card, dict) else None,
                    experiment=experiment, head=head, rows=rows, pngs=pngs, curve=_curve(eval_csv),
                    model=(folder / "model.zip").is_file())

    @app.get("/file")
    def file(request: Request, path: str = Query(max_length=1000)) -> FileResponse:
        web = _state(request)
        real = web.root.resolve(path)
        if real.is_relative_to(web.games.folder):
            raise PathRefused("browser games are not served raw (their records hold every hand)", 403)
        media = SERVED_SUFFIXES.get(real.suffix.lower())
        if media is None:
            raise PathRefused(f"{path!r}: only {', '.join(sorted(SERVED_SUFFIXES))} files are served", 403)
        return FileResponse(real, media_type=media)

    @app.get("/play/{game_id}", response_class=HTMLResponse)
    def play(request: Request, game_id: str) -> HTMLResponse:
        web = _state(request)
        session = web.games.get(game_id)
        bots = list(dict.fromkeys([*session.specs.values(), *web.games.allowlist.choices()]))
        return page(request, "play.html", game_id=session.id, names=session.names, hint_bots=bots)


def _pngs(root: SafeRoot, folder: Path) -> list[str]:
    """The plots of a folder (a symlink leading out of the served folder is left out)."""
    return sorted(root.relative(p) for p in folder.glob("*.png") if p.resolve().is_relative_to(root.root))


def _model_of(names: list[str], models: list[str]) -> str:
    """The first served model a seat of the record played with (``ppo:PATH`` in its name), or ''."""
    for name in names:
        for arg in re.findall(r"ppo:([^\s()]+)", name):
            arg = arg.rstrip("/").removesuffix("/model.zip").removesuffix(".zip")
            if arg in models:
                return arg
    return ""


def _curve(path: Path | None) -> dict[str, Any] | None:
    """The learning-curve plot of a run's ``eval.csv`` (None when it has no evaluation)."""
    if path is None:
        return None
    with path.open("rb") as fh:
        data = fh.read(MAX_EVAL_BYTES + 1)
    if len(data) > MAX_EVAL_BYTES:  # a cut file: drop its cut last line
        data = data[:MAX_EVAL_BYTES].rsplit(b"\n", 1)[0]
    text = data.decode("utf-8", errors="replace")
    return learning_curve(read_points(text))


def _csv_table(root: SafeRoot, path: Path | None) -> tuple[list[str], list[list[str]]]:
    """The header and the first rows of a CSV file, read bounded.

    Raises:
        UnreadableFile: it cannot be read as CSV (a field beyond the csv module's limit...).
    """
    if path is None:
        return [], []
    try:
        with path.open(encoding="utf-8", errors="replace", newline="") as fh:
            text = fh.read(MAX_CSV_CHARS)  # the page shows MAX_TABLE_ROWS rows: no need for more
        rows = list(itertools.islice(csv.reader(io.StringIO(text)), MAX_TABLE_ROWS + 1))
    except (OSError, csv.Error) as exc:
        raise discovery.UnreadableFile(root.relative(path), f"not a readable CSV table: {exc}") from None
    if not rows:
        return [], []
    return rows[0], rows[1:MAX_TABLE_ROWS + 1]


# =========================================================================== replay API


def _add_replay_api(app: FastAPI) -> None:
    @app.get("/api/replay")
    def replay_position(request: Request, path: str = Query(max_length=1000), move: int = Query(0, ge=0),
                        seat: int | None = Query(None, ge=0, le=3),
                        model: str | None = Query(None, max_length=1000)) -> Any:
        """The position after ``move`` moves of a record, as ``seat`` saw it (or all hands)."""
        web = _state(request)
        replay = _viewable(web.replays.get(web.root.resolve(path)))
        if move > replay.length:
            return _error(400, f"move must be 0..{replay.length} for this record, got {move}")
        if seat is not None and seat >= replay.num_players:
            return _error(400, f"seat must be 0..{replay.num_players - 1} for this record, got {seat}")
        game = replay.game_at(move)
        out: dict[str, Any] = {
            "move": move,
            "length": replay.length,
            "frame": game_frame(game, replay.names, seat),
            "last": {"seat": replay.actors[move - 1], "text": replay.moves[move - 1], "number": move} if move else None,
            "next": {"seat": replay.actors[move], "text": replay.moves[move]} if move < replay.length else None,
            "deal_starts": replay.deal_starts,
            "names": replay.names,
            "explained": bool(replay.explanations),
        }
        # what the mover weighed at this position (the next move): in one seat's view only
        # that seat's own reasons, which name cards of its hand
        if move < replay.length and replay.explanations and seat in (None, replay.actors[move]):
            out["explanation"] = replay.explanations[move]
        if model:
            from carioca_agents.ppo_agent import ModelLoadError
            from carioca_experiments.apps.serve.policy import decision_probabilities

            real = web.root.model(model)  # it and its card inside the folder, or refused
            try:
                out["policy"] = decision_probabilities(real, game, out["next"]["text"] if out["next"] else None)
            except ModelLoadError as exc:
                out["policy"] = {"error": str(exc)}
        return out


# =========================================================================== play API


def game_state(web: WebState, session: PlaySession, bots: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the play page receives (:func:`play_state`), with the game's deal summaries."""
    return play_state(session, web.deals.summaries(session.id, session.game), bots)


def play_state(session: PlaySession, deals: list[dict[str, Any]],
               bots: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The play page's JSON: the person's seat's view, the legal moves when it is their
    turn, the finished ``deals`` (:mod:`~carioca_experiments.apps.serve.deals`) and the bots' last moves.

    Until the game ends the frame is the seat's view (its own hand only).  The hands of a
    finished deal were counted for its scores (R14), so they are public from then on: the
    deal summaries carry them, and once the game is over the frame shows every hand (they
    are the last deal's final hands).
    """
    game = session.game
    mine = not game.game_over and game.current_player == session.human_seat
    frame = game_frame(game, session.names, None if game.game_over else session.human_seat)
    return {
        "id": session.id,
        "version": session.version,
        "human_seat": session.human_seat,
        "names": session.names,
        "frame": frame,
        "legal": [move_json(m) for m in game.legal_moves()] if mine else [],
        "your_turn": mine,
        "game_over": game.game_over,
        "winners": list(game.winners),
        "deals": deals,
        "bots": bots or [],
    }


def _add_play_api(app: FastAPI) -> None:
    @app.post("/api/games")
    def new_game(request: Request, body: NewGame) -> Any:
        """Start a game and return its state (the bots before you have played)."""
        if body.seat >= body.players:
            return _error(422, f"your seat must be 0..{body.players - 1} at a {body.players}-player table")
        try:
            session = _state(request).games.create(body.players, body.bots, body.seat, body.deals, body.seed)
        except SpecRefused as exc:  # code, a plugin or a budget a request may not name
            return _error(403, str(exc))
        except ValueError as exc:  # unknown agent, bad options, a model for another table (CariocaError too)
            return _error(400, str(exc))
        return game_state(_state(request), session)

    @app.get("/api/games/{game_id}")
    def get_game(request: Request, game_id: str) -> Any:
        """The game as your seat sees it, with your legal moves when it is your turn."""
        return game_state(_state(request), _state(request).games.get(game_id))

    @app.post("/api/games/{game_id}/move")
    def move(request: Request, game_id: str, body: MoveRequest) -> Any:
        """Play one move in notation; an illegal one is refused with the engine's message."""
        parsed = parse_move(body.move)
        session, bots = _state(request).games.play(game_id, body.version, parsed)
        return game_state(_state(request), session, bots)

    @app.post("/api/games/{game_id}/hint")
    def hint(request: Request, game_id: str, body: HintRequest) -> Any:
        """What a bot would play at the person's position and why, from the person's view
        only.  The spec is checked whole against the allowlist, with a hint's budgets
        (:data:`HINT_LIMITS`), before the game is even read; nothing is saved."""
        from carioca_agents.explain import explain
        from carioca_agents.ppo_agent import check_card, read_card

        store = _state(request).games
        allow = replace(store.allowlist, limits={**store.allowlist.limits, **HINT_LIMITS})
        try:
            parsed = allow.check(body.bot)
        except SpecRefused as exc:
            return _error(403, str(exc))
        except ValueError as exc:
            return _error(400, str(exc))
        with store.lock(game_id):
            session = store.get(game_id)
            if body.version != session.version:
                raise StaleMove(f"this page shows move {body.version} but the game is at move {session.version}")
            game = session.game
            if game.game_over or game.current_player != session.human_seat:
                return _error(409, "a hint is for your turn: wait until it is your move")
            try:
                for model in model_files(parsed):
                    check_card(read_card(model), body.bot, game.num_players)
                agent = build_agent(parsed, derive_seed(SERVE_BOT, session.seed, "hint", len(game.moves)))
                why = explain(agent, game.view(session.human_seat), game.legal_moves())
            except SpecRefused as exc:
                return _error(403, str(exc))
            except (ValueError, CariocaError) as exc:  # a model for another table, a plugin that fails
                return _error(400, f"{body.bot}: {exc}")
        if why is None:
            return _error(422, f"{body.bot} does not explain its moves")
        return {"bot": body.bot, "version": session.version, "explanation": why.to_dict()}

    @app.post("/api/games/{game_id}/open")
    def open_contract(request: Request, game_id: str, body: OpenRequest) -> Any:
        """Open with the grouped cards: played when they mean one opening, else the choices."""
        store = _state(request).games
        with store.lock(game_id):  # re-entrant: get() and play() take it again
            session = store.get(game_id)
            if body.version != session.version:
                raise StaleMove(f"this page shows move {body.version} but the game is at move {session.version}")
            if session.game.current_player != session.human_seat or session.game.game_over:
                raise IllegalMoveError("it is not your turn", "R7")
            choices = resolve_opening(session.game, body.groups)
            if len(choices) > 1:
                return {"choices": [dict(move_json(m), label=describe(m)) for m in choices]}
            played, bots = store.play(game_id, body.version, choices[0])
        return game_state(_state(request), played, bots)
