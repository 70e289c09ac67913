"""The ladder's pages (``camelup serve --ladder DIR``): the live table, each bot's page, every
game in the Watch view, and model uploads where the owner allows them.

=====================================================  ======================================
``GET /ladder``                                        the table; its rows follow the database
                                                       (``static/ladder.js`` reads the JSON)
``GET /ladder/table.json``                             the table as data
``GET /ladder/bot/{NAME@VERSION}``                     rating over games (an SVG plot), head
                                                       to head, recent games
``GET /ladder/game?game=&step=``                       a stored game, step by step (Watch)
``GET``/``POST /ladder/submit``                        upload a model (``--submissions`` only)
=====================================================  ======================================

The pages only read the database (:class:`~tournament.ladder.store.Ladder`'s reader, which
never waits for a runner's write). Uploads, off by default, accept only model files of the safe
format (:func:`agents.policy_file.read_policy_file` reads them as data, never code) for this
ladder's game, each under the size limit, under a name and a token: the first upload of a name
sets its token (stored hashed), later versions of the name need the same token, and a name the
owner added on the command line cannot be replaced from a page. Code bots (``cmd:``, ``py:``,
``cup:``) come only from the owner's command line. An upload is written to
``DIR/uploads/`` and is the only file the web app writes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from tournament.ladder.segments import read_record
from tournament.ladder.store import NAME, Entry, Ladder, LadderError
from tournament.ladder.table import head_to_head, place_of, rating_history, recent_games, standings
from webapp import pages
from webapp.watch import game_rows, labels_of, replayed, step_view

#: Shortest and longest token a name may be uploaded under.
TOKEN_CHARS = (8, 200)


@dataclass(frozen=True)
class LadderSite:
    """What the ladder's pages serve: the ladder, and the upload limit (None: no uploads)."""

    ladder: Ladder
    upload_kb: int | None = None


def token_hash(token: str, salt: str | None = None) -> str:
    """``salt$sha256(salt + token)``: a stolen database does not give the tokens away."""
    salt = salt or secrets.token_hex(8)
    return f"{salt}${hashlib.sha256((salt + token).encode()).hexdigest()}"


def token_matches(token: str, stored: str) -> bool:
    salt, _, _ = stored.partition("$")
    return hmac.compare_digest(token_hash(token, salt), stored)


def rating_svg(points: list[tuple[int, float, float]], width: int = 640, height: int = 220) -> str:
    """The rating over a bot's games: ``mu`` as a line in its band ``mu ± 2 sigma``. Only
    numbers go into the picture, so nothing in it comes from a user."""
    if not points:
        return ""
    low = min(mu - 2 * s for _, mu, s in points)
    high = max(mu + 2 * s for _, mu, s in points)
    span_x = max(points[-1][0] - points[0][0], 1)
    span_y = max(high - low, 1e-9)
    pad = 30

    def xy(game: int, value: float) -> str:
        x = pad + (game - points[0][0]) / span_x * (width - 2 * pad)
        y = height - pad - (value - low) / span_y * (height - 2 * pad)
        return f"{x:.1f},{y:.1f}"

    band = [xy(g, mu + 2 * s) for g, mu, s in points]
    band += [xy(g, mu - 2 * s) for g, mu, s in reversed(points)]
    line = " ".join(xy(g, mu) for g, mu, _ in points)
    return (
        f'<svg class="rating" id="rating-plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="rating over {points[-1][0]} games">'
        f'<polygon points="{" ".join(band)}" fill="#f3c89a" stroke="none"/>'
        f'<polyline points="{line}" fill="none" stroke="#c0561b" stroke-width="2"/>'
        f'<text x="{pad}" y="{pad - 10}">{high:.1f}</text>'
        f'<text x="{pad}" y="{height - 8}">{low:.1f}</text>'
        f'<text x="{width - pad}" y="{height - 8}" text-anchor="end">game {points[-1][0]}</text>'
        "</svg>"
    )


#: Seconds the table is served from memory: many readers at once cost one read of the
#: database and one rendering a second, and a table polled every two seconds is no less live.
TABLE_SECONDS = 1.0


class TableCache:
    """The table, read from the database at most every :data:`TABLE_SECONDS`, and what is made
    of it (the page, the JSON), made once per reading."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self.lock = threading.Lock()
        self.read_at = -math.inf
        self.rows: list[dict] = []
        self.made: dict[str, bytes] = {}

    def clear(self) -> None:
        with self.lock:
            self.read_at = -math.inf

    def get(self, kind: str, make: Callable[[list[dict]], bytes]) -> bytes:
        """``make(rows)`` of the current rows, ``kind`` naming what is made."""
        with self.lock:
            if time.monotonic() - self.read_at >= TABLE_SECONDS:
                self.rows = [row.as_dict() for row in standings(self.ladder)]
                self.read_at = time.monotonic()
                self.made = {}
            if kind not in self.made:
                self.made[kind] = make(self.rows)
            return self.made[kind]


def ladder_routes(site: LadderSite, templates: Jinja2Templates) -> list[Route]:
    """The routes of the module docstring."""
    ladder = site.ladder
    table = TableCache(ladder)

    def entry_of(label: str) -> Entry:
        try:
            return ladder.entry(label)
        except LadderError as exc:
            raise HTTPException(404, str(exc)) from None

    settings = ladder.settings()

    def table_page(request: Request) -> Response:
        def render(rows: list[dict]) -> bytes:
            context = {
                "request": request,
                "rows": rows,
                "settings": settings,
                "submissions": site.upload_kb is not None,
            }
            return templates.get_template("ladder.html").render(context).encode()

        return Response(table.get("page", render), media_type="text/html")

    def table_json(request: Request) -> Response:
        return Response(
            table.get("json", lambda rows: json.dumps({"rows": rows}).encode()),
            media_type="application/json",
        )

    def bot_page(request: Request) -> Response:
        entry = entry_of(request.path_params["label"])
        return templates.TemplateResponse(
            request,
            "ladder_bot.html",
            {
                "entry": entry,
                "plot": rating_svg(rating_history(ladder, entry)),
                "h2h": head_to_head(ladder, entry),
                "games": recent_games(ladder, entry),
            },
        )

    def game_page(request: Request) -> Response:
        try:
            game = int(request.query_params.get("game", ""))
            k = int(request.query_params.get("step", "0"))
        except ValueError:
            raise HTTPException(400, "game and step must be whole numbers") from None
        place = place_of(ladder, game)
        if place is None:
            raise HTTPException(404, f"no stored game {game} in this ladder")
        try:
            record = read_record(ladder.folder, place)
        except (OSError, ValueError) as exc:
            raise HTTPException(404, f"the record of game {game} cannot be read: {exc}") from None
        rules = settings.ruleset()
        steps = replayed(rules, record)
        if not 0 <= k < len(steps):
            raise HTTPException(400, f"step must be 0..{len(steps) - 1}, got {k}")
        labels = labels_of(record, rules)
        step = step_view(rules, steps, k, labels)
        state = step.step.state
        return templates.TemplateResponse(
            request,
            "watch_game.html",
            {
                "folder": "ladder",
                "step_base": f"/ladder/game?game={game}&step=",
                "back_url": "/ladder",
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

    def submit_form(request: Request) -> Response:
        if site.upload_kb is None:
            raise HTTPException(404, "uploads are off: camelup serve --ladder DIR --submissions")
        return templates.TemplateResponse(
            request,
            "ladder_submit.html",
            {"limit_kb": site.upload_kb, "settings": settings},
        )

    async def submit(request: Request) -> Response:
        if site.upload_kb is None:
            raise HTTPException(404, "uploads are off: camelup serve --ladder DIR --submissions")
        limit = site.upload_kb * 1024
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit + 4096:
            raise HTTPException(413, f"the upload is over the limit of {site.upload_kb} KiB")
        form = await request.form(max_files=1, max_fields=4, max_part_size=64 * 1024)
        name, token, upload = form.get("name"), form.get("token"), form.get("model")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise HTTPException(400, "name: 1-40 letters, digits and _.-")
        if not isinstance(token, str) or not TOKEN_CHARS[0] <= len(token) <= TOKEN_CHARS[1]:
            raise HTTPException(400, f"token: {TOKEN_CHARS[0]}-{TOKEN_CHARS[1]} characters")
        if not isinstance(upload, UploadFile):
            raise HTTPException(400, "model: a model file is needed")
        data = await upload.read(limit + 1)
        if len(data) > limit:
            raise HTTPException(413, f"the upload is over the limit of {site.upload_kb} KiB")
        entry = await run_in_threadpool(_add_upload, ladder, name, token, data)
        table.clear()  # the new bot shows at once
        return RedirectResponse(f"/ladder/bot/{entry.label}", status_code=303)

    return [
        Route("/ladder", table_page),
        Route("/ladder/table.json", table_json),
        Route("/ladder/bot/{label}", bot_page),
        Route("/ladder/game", game_page),
        Route("/ladder/submit", submit_form, methods=["GET"]),
        Route("/ladder/submit", submit, methods=["POST"]),
    ]


def _add_upload(ladder: Ladder, name: str, token: str, data: bytes) -> Entry:
    """Check an uploaded model (module docstring) and add it as the next version of ``name``."""
    from agents.policy_file import ModelFileError, read_policy_file

    known = [e for e in ladder.entries() if e.name == name]
    stored = ladder.token_hash(name)
    if known and (stored is None or not token_matches(token, stored)):
        raise HTTPException(
            403, f"{name!r} is taken: a new version needs the token of its first upload"
        )
    folder = ladder.folder / "uploads"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}-{len(known) + 1}-{secrets.token_hex(4)}.zip"
    path.write_bytes(data)
    try:
        model = read_policy_file(path)
        rules = ladder.settings().ruleset()
        if model.rules != rules:
            raise ModelFileError(
                f"the model was trained for {model.rules.preset} with "
                f"{model.rules.num_players} players; this ladder plays {rules.preset} with "
                f"{rules.num_players}"
            )
    except (ModelFileError, ValueError, OSError) as exc:
        path.unlink(missing_ok=True)
        raise HTTPException(400, f"not a usable model file: {exc}") from None
    return ladder.add(
        name,
        f"ppo:{path.resolve()}",
        origin="upload",
        token_hash=stored if known and stored else token_hash(token),
    )
