"""The web app: routes, and the one-line answers to bad requests.

=====================================================  ======================================
``GET /``                                              start a game; links to Watch
``GET /play?preset=&players=&seat=&opponents=``        a new game (:mod:`webapp.play_options`),
                                                       then its page
``GET /game/{id}[?coach=1]``                           the board, the moves so far, the legal
                                                       actions as buttons (``data-action``),
                                                       the result (``id="result"``)
``POST /game/{id}/move/{turn}/{action}``               play an action as move ``turn``
``GET /game/{id}/state.json``                          the same as data, for scripts
``GET /watch``, ``/watch/games?dir=``,                 tournament folders under ``--runs``,
``/watch/game?dir=&game=&step=``                       their games, one game step by step
``/ladder...``                                         a ladder's pages (``--ladder``,
                                                       :mod:`webapp.ladder`)
=====================================================  ======================================

Pages are rendered on the server (Jinja templates); the only JavaScript steps a replay on
(``static/watch.js``) and keeps a ladder's table live (``static/ladder.js``). Endpoints are
plain functions, which Starlette runs in its thread pool, so a game whose bots are thinking
does not hold up another tab's. Every refused request is a 4xx answer whose body is one line,
and the server goes on; the app writes no file but a ladder's uploads, where the owner allows
them.
:mod:`webapp.guard` keeps other sites out, :mod:`webapp.specs` decides which bots a page may
name, and the game store (:class:`webapp.games.GameStore`) bounds how many games run.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from camelup_env.game.rules import PRESETS
from webapp import pages
from webapp.coach import coach
from webapp.games import GameError, GameStore, StaleTurn, TooManyGames, WebGame
from webapp.guard import SameSiteOnly
from webapp.ladder import LadderSite, ladder_routes
from webapp.play_options import play_options, suggested_opponents
from webapp.specs import Allowed
from webapp.watch import (
    RunsRoot,
    WatchError,
    find,
    game_rows,
    labels_of,
    replayed,
    step_view,
)

HERE = Path(__file__).resolve().parent


def _integer(request: Request, name: str, default: int | None = None) -> int:
    text = request.query_params.get(name)
    if text is None and default is not None:
        return default
    try:
        return int(text or "")
    except ValueError:
        raise HTTPException(400, f"{name} must be a whole number") from None


def create_app(
    runs: Path | None = None,
    *,
    models: Path | None = None,
    code: tuple[Path, ...] = (),
    allowed_hosts: tuple[str, ...] = (),
    store: GameStore | None = None,
    ladder: LadderSite | None = None,
) -> Starlette:
    """The app. ``runs``: the root Watch may read (None: Watch is off); ``models``: the folder
    model opponents come from (None: the shipped models); ``code``: the folders code opponents
    may come from (none: no code); ``allowed_hosts``: names besides IP addresses and
    ``localhost`` the server answers to; ``store``: the games and their limits; ``ladder``: the
    ladder whose pages to serve (None: no ladder pages)."""
    templates = Jinja2Templates(directory=HERE / "templates")
    store = store if store is not None else GameStore()
    allowed = Allowed.of(models, code)
    root = RunsRoot(runs) if runs is not None else None

    def game_of(game_id: str) -> WebGame:
        try:
            return store.get(game_id)
        except KeyError:
            raise HTTPException(
                404,
                f"no such game (a game is forgotten after {store.idle_seconds:g} s idle, "
                "and every game when the server stops)",
            ) from None

    def snapshot(game: WebGame) -> tuple:
        """What a page or the JSON shows of ``game``, read under its lock: the seat's view, its
        legal actions, the result, the turns so far and each turn's text."""
        with game.lock:
            view, legal, result = game.view(), game.legal(), game.result()
            turns = list(game.turns)
        moves = [
            pages.move_lines(game.rules, t.seat, t.action, t.events, game.labels) for t in turns
        ]
        return view, legal, result, turns, moves

    def back_to(game: WebGame, request: Request) -> Response:
        """The game's page after a form, keeping the coach on if it was."""
        coach_on = "?coach=1" if request.query_params.get("coach") == "1" else ""
        return RedirectResponse(f"/game/{game.id}{coach_on}", status_code=303)

    def index(request: Request) -> Response:
        return templates.TemplateResponse(
            request,
            "index.html",
            {
                "presets": PRESETS,
                "opponents": suggested_opponents(allowed),
                "watch": root is not None,
            },
        )

    def start(request: Request) -> Response:
        options = play_options(request.query_params, allowed)
        client = request.client.host if request.client else ""
        game = WebGame(options.rules, options.seat, options.opponents, options.seed, client)
        store.add(game)
        with game.lock:
            try:
                game.start()
            except BaseException:  # a bot that could not load or launch: no half-open game
                store.drop(game.id)
                game.close()
                raise
        return back_to(game, request)

    def game_page(request: Request) -> Response:
        game = game_of(request.path_params["id"])
        view, legal, result, turns, moves = snapshot(game)
        rules, labels = game.rules, game.labels
        show_coach = request.query_params.get("coach") == "1"
        # the moves since the person's last one: what happened while the page was loading
        mine = [i for i, t in enumerate(turns) if t.seat == game.seat]
        since = mine[-1] + 1 if mine else 0
        return templates.TemplateResponse(
            request,
            "game.html",
            {
                "game": game,
                "view": view,
                # after the race the view's piles are face up (WebGame.view): draw them so
                "board": pages.board(view, None if view.game_over else game.seat),
                "players": pages.players(view, labels, game.seat),
                "moves": moves,
                "since": since,
                "turn": len(turns),
                "buttons": pages.buttons(rules, legal),
                "result": result,
                "scoreboard": pages.scoreboard(result) if result else [],
                "coach": coach(view, legal) if show_coach and legal else None,
                "coach_on": show_coach,
            },
        )

    def move(request: Request) -> Response:
        game = game_of(request.path_params["id"])
        with game.lock:
            game.play(request.path_params["turn"], request.path_params["action"])
        return back_to(game, request)

    def state_json(request: Request) -> Response:
        game = game_of(request.path_params["id"])
        view, legal, result, turns, moves = snapshot(game)
        return JSONResponse(
            {
                "seat": game.seat,
                "labels": game.labels,
                "state": view.to_dict(),
                "legal": legal,
                "moves": [
                    {"seat": t.seat, "action": t.action, "text": head, "events": lines}
                    for t, (head, lines) in zip(turns, moves, strict=True)
                ],
                "result": None
                if result is None
                else {
                    "coins": result.coins,
                    "scores": result.scores,
                    "ranks": result.ranks,
                    "winners": result.winners,
                    "forfeit": result.forfeit,
                    "truncated": result.truncated,
                },
            }
        )

    def runs_root() -> RunsRoot:
        if root is None:
            raise HTTPException(404, "Watch is off: start camelup serve with --runs DIR")
        return root

    def watch(request: Request) -> Response:
        return templates.TemplateResponse(
            request, "watch.html", {"folders": runs_root().tournaments()}
        )

    def watch_games(request: Request) -> Response:
        folder = request.query_params.get("dir", "")
        rules, records = runs_root().games(folder)
        return templates.TemplateResponse(
            request,
            "watch_games.html",
            {"folder": folder, "rules": rules, "rows": game_rows(records)},
        )

    def watch_game(request: Request) -> Response:
        folder = request.query_params.get("dir", "")
        rules, records = runs_root().games(folder)
        record = find(records, _integer(request, "game"))
        steps = replayed(rules, record)
        k = _integer(request, "step", 0)
        if not 0 <= k < len(steps):
            raise HTTPException(400, f"step must be 0..{len(steps) - 1}, got {k}")
        labels = labels_of(record, rules)
        step = step_view(rules, steps, k, labels)
        state = step.step.state  # a finished game's replay: every card is shown
        return templates.TemplateResponse(
            request,
            "watch_game.html",
            {
                "folder": folder,
                "record": record,
                "row": game_rows([record])[0],
                "rules": rules,
                "k": k,
                "last": len(steps) - 1,
                "step": step,
                "board": pages.board(state, None),
                "players": pages.players(state, labels, None),
                "playing": request.query_params.get("play") == "1",
            },
        )

    def one_line(status: int, message: str) -> PlainTextResponse:
        return PlainTextResponse(" ".join(message.split()) + "\n", status_code=status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return one_line(exc.status_code, f"error: {exc.detail}")

    async def refused(request: Request, exc: Exception) -> Response:
        statuses: dict[type[Exception], int] = {StaleTurn: 409, TooManyGames: 429, WatchError: 404}
        status = statuses.get(type(exc), 400)
        return one_line(status, f"error: {exc}")

    async def crashed(request: Request, exc: Exception) -> Response:
        # Starlette re-raises the exception after this answer, so the server logs its traceback
        return one_line(500, f"internal error: {type(exc).__name__}: {exc}"[:300])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store.start_sweeping()
        yield
        store.close_all()  # no bot process outlives the server

    routes = [
        Route("/", index),
        Route("/play", start),
        Route("/game/{id}", game_page),
        Route("/game/{id}/state.json", state_json),
        Route("/game/{id}/move/{turn:int}/{action:int}", move, methods=["POST"]),
        Route("/watch", watch),
        Route("/watch/games", watch_games),
        Route("/watch/game", watch_game),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    if ladder is not None:
        routes[-1:-1] = ladder_routes(ladder, templates)
    app = Starlette(
        routes=routes,
        exception_handlers={
            HTTPException: http_error,
            GameError: refused,
            WatchError: refused,
            Exception: crashed,
        },
        lifespan=lifespan,
        middleware=[Middleware(SameSiteOnly, allowed_hosts=allowed_hosts)],
    )
    app.state.games = store
    app.state.ladder = ladder
    return app
