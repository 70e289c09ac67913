"""Play and watch Camel Up in the browser: a local web app (Starlette on uvicorn).

``camelup serve [--host 127.0.0.1] [--port 8000] [--runs DIR] [--max-games 8] [--allow-code]``
then open the address it prints. ``--runs`` names the folder whose tournament folders Watch may
open (nothing outside it); without it Watch is off. The app writes no file.
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
        "--max-games",
        type=int,
        default=8,
        help="unfinished games at once, each with its bot processes (default 8)",
    )
    parser.add_argument(
        "--allow-code",
        action="store_true",
        help="let a page name py: and cmd: opponents, which run any code "
        "(only where every page your browser opens is trusted)",
    )


def run(args: argparse.Namespace) -> int:
    try:  # imported here: `camelup --help` reads this module without the web extra
        import uvicorn

        from webapp.app import create_app
    except ImportError as exc:
        print(
            f'camelup serve: error: needs the package {exc.name!r}: pip install -e ".[web]"',
            file=sys.stderr,
        )
        return 2
    runs = Path(args.runs) if args.runs else None
    if runs is not None and not runs.is_dir():
        print(f"camelup serve: error: --runs {args.runs}: no such folder", file=sys.stderr)
        return 2
    if args.max_games < 1:
        print("camelup serve: error: --max-games must be at least 1", file=sys.stderr)
        return 2
    app = create_app(runs, allow_code=args.allow_code, max_games=args.max_games)
    print(f"camelup serve: http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
