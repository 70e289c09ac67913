"""Play and watch Camel Up in the browser: a local web app (Starlette on uvicorn).

``camelup serve [--host 127.0.0.1] [--port 8000] [--runs DIR] [--models DIR]
[--allow-code DIR ...] [--allowed-host NAME ...] [--max-games 8] [--max-games-per-client 4]
[--idle-timeout 600] [--ladder DIR [--submissions]] [--trusted-proxy ADDRESS ...]`` then open
the address it prints. ``--runs`` names the folder whose
tournament folders Watch may open (nothing outside it); without it Watch is off. Model
opponents come from ``--models`` only, code opponents from the ``--allow-code`` folders only
(:mod:`webapp.specs`). ``--ladder`` adds a ladder's pages (:mod:`webapp.ladder`), uploads of
model files only with ``--submissions``. The app writes no file but those uploads.

Behind a reverse proxy every request comes from the proxy's address, so the per-client game
limit would hold everyone behind it to one client's games: ``--trusted-proxy ADDRESS`` takes
the client's address from the ``X-Forwarded-For`` header of requests from that address
(uvicorn's ``forwarded_allow_ips``). Without it the header is never read: anyone could
otherwise name a new address with each request.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--runs",
        help="folder of tournament results Watch may open "
        "(camelup tournament ... --out DIR under it)",
    )
    parser.add_argument(
        "--models",
        help="folder model opponents (ppo:, search:, rollout:, rllib:) may come from "
        "(default: the shipped models, agents/models in the package)",
    )
    parser.add_argument(
        "--allow-code",
        action="append",
        default=[],
        metavar="DIR",
        help="let a page name py:, cmd: and cup: opponents whose file lies in DIR "
        "(repeatable); they run any code, so only where every page your browser opens is trusted",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name browsers may reach the server by, besides IP addresses, localhost "
        "and the --host name (repeatable)",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=8,
        help="unfinished games at once, each with its bot processes (default 8)",
    )
    parser.add_argument(
        "--max-games-per-client",
        type=int,
        default=4,
        help="unfinished games at once from one client address (default 4)",
    )
    parser.add_argument(
        "--ladder",
        metavar="DIR",
        help="serve this ladder's pages at /ladder (camelup ladder init DIR)",
    )
    parser.add_argument(
        "--submissions",
        action="store_true",
        help="let pages upload model files to the ladder under a name and a token",
    )
    parser.add_argument(
        "--upload-kb",
        type=int,
        default=4096,
        help="largest model file an upload may send, KiB (default 4096; the shipped models "
        "are about 1,300)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy's address (or network, or *) whose X-Forwarded-For names the "
        "client (repeatable); without it the header is ignored",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=600.0,
        help="seconds after which a game nobody touches is closed and forgotten, "
        "its bots ended (default 600)",
    )


def run(args: argparse.Namespace) -> int:
    try:  # imported here: `camelup --help` reads this module without the web extra
        import uvicorn

        from webapp.app import create_app
        from webapp.games import GameStore
    except ImportError as exc:
        print(
            f'camelup serve: error: needs the package {exc.name!r}: pip install -e ".[web]"',
            file=sys.stderr,
        )
        return 2
    problem = _problem(args)
    if problem is not None:
        print(f"camelup serve: error: {problem}", file=sys.stderr)
        return 2
    store = GameStore(
        args.max_games,
        per_client=args.max_games_per_client,
        idle_seconds=args.idle_timeout,
        finished_seconds=args.idle_timeout,
    )
    app = create_app(
        Path(args.runs) if args.runs else None,
        models=Path(args.models) if args.models else None,
        code=tuple(Path(d) for d in args.allow_code),
        allowed_hosts=(args.host, *args.allowed_host),  # the name it listens on, too
        store=store,
        ladder=ladder_site(args),
    )
    _warm_up_the_coach()
    print(f"camelup serve: http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.Server(server_config(app, args)).run()
    return 0


def server_config(app, args: argparse.Namespace):
    """uvicorn's settings: the address, and whose forwarded addresses to believe (module
    docstring)."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        proxy_headers=bool(args.trusted_proxy),
        forwarded_allow_ips=list(args.trusted_proxy) or None,
    )


def ladder_site(args: argparse.Namespace):
    """The ladder the pages serve (None: no --ladder)."""
    if args.ladder is None:
        return None
    from tournament.ladder.store import Ladder
    from webapp.ladder import LadderSite

    return LadderSite(Ladder.open(Path(args.ladder)), args.upload_kb if args.submissions else None)


def _warm_up_the_coach() -> None:
    """The coach's odds kernels, loaded (or compiled, saying so) before the first page asks:
    rather than on the first page that asks."""
    from camelup_env import odds
    from camelup_env.game.rules import RuleSet
    from camelup_env.game.setup import new_game

    odds.warm_up(new_game(RuleSet("classic", num_players=4), seed=0))


def _problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, in one line (None: nothing)."""
    for option, folder in [
        ("--runs", args.runs),
        ("--models", args.models),
        *(("--allow-code", d) for d in args.allow_code),
    ]:
        if folder is not None and not Path(folder).is_dir():
            return f"{option} {folder}: no such folder"
    if args.ladder is not None and not (Path(args.ladder) / "ladder.json").is_file():
        return f"--ladder {args.ladder}: no ladder there (camelup ladder init DIR)"
    if args.submissions and args.ladder is None:
        return "--submissions needs --ladder DIR"
    if args.upload_kb < 1:
        return "--upload-kb must be at least 1"
    if args.max_games < 1:
        return "--max-games must be at least 1"
    if args.max_games_per_client < 1:
        return "--max-games-per-client must be at least 1"
    if not args.idle_timeout > 0:
        return "--idle-timeout must be seconds > 0"
    return None
