"""Run a standing ladder of bots: a league in a database that plays on (docs/ladder.md).

``camelup ladder init DIR --preset P --players N``, ``add DIR NAME SPEC``, ``retire DIR NAME``,
``run DIR [--games N]``, ``table DIR [--csv]``, ``export DIR OUT``. Every problem of the user's
is one line and exit code 2, found before any game is played.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from camelup_env.interrupts import interrupts_stop_the_run, stop_requested
from tournament.config import TournamentConfig, TournamentError, check_workers

if TYPE_CHECKING:
    from tournament.ladder.store import Settings

#: Forfeits in a row after which a bot is suspended, and the games a newcomer plays first.
SUSPEND_AFTER, NEWCOMER_GAMES = 3, 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="ladder_command", required=True, metavar="ACTION")
    init = sub.add_parser("init", help="make a new ladder in DIR")
    init.add_argument("dir")
    init.add_argument("--preset", default="classic", help="rule preset (default classic)")
    init.add_argument("--players", type=int, default=4, help="players a game (default 4)")
    init.add_argument("--seed", type=int, default=0, help="base seed of the deals (default 0)")
    init.add_argument(
        "--rules", default="{}", help="extra RuleSet fields as JSON, e.g. '{\"track_length\": 20}'"
    )
    init.add_argument(
        "--database",
        help="SQLAlchemy URL of the database (default: sqlite:///DIR/ladder.db, one file)",
    )
    defaults = TournamentConfig()
    for flag, kind, value, what in [
        ("--move-timeout", float, defaults.move_timeout, "seconds a bot may think about a move"),
        ("--game-timeout", float, defaults.game_timeout, "seconds a bot may think in a game"),
        ("--load-timeout", float, defaults.load_timeout, "seconds a bot may take to load"),
        ("--memory-mb", int, defaults.memory_mb, "address-space limit of a bot, MiB"),
        ("--max-turns", int, defaults.max_turns, "a game is stopped after this many turns"),
    ]:
        init.add_argument(flag, type=kind, default=value, help=f"{what} (default {value})")
    init.add_argument(
        "--suspend-after",
        type=int,
        default=SUSPEND_AFTER,
        help=f"forfeits in a row after which a bot is seated no more (default {SUSPEND_AFTER})",
    )
    init.add_argument(
        "--newcomer-games",
        type=int,
        default=NEWCOMER_GAMES,
        help=f"a bot with fewer games is seated first (default {NEWCOMER_GAMES})",
    )
    add = sub.add_parser("add", help="add a bot, or a new version of one (NAME@2, ...)")
    add.add_argument("dir")
    add.add_argument("name", help="the bot's name: letters, digits and _.-")
    add.add_argument("spec", help="any spec a tournament takes (camelup agents; cmd:PROGRAM)")
    add.add_argument("--kwargs", default="{}", help="the agent's arguments as JSON")
    add.add_argument(
        "--allow-code",
        action="store_true",
        help="let py: and cup: specs run the Python file they name (only code you trust)",
    )
    retire = sub.add_parser("retire", help="seat a bot in no new game (its results stay)")
    retire.add_argument("dir")
    retire.add_argument("name", help="NAME (its newest version) or NAME@VERSION")
    run = sub.add_parser("run", help="play games until stopped, or until the ladder holds N")
    run.add_argument("dir")
    run.add_argument("--games", type=int, help="stop once the ladder holds this many games")
    run.add_argument("--workers", type=int, help="game workers (default: one per CPU)")
    run.add_argument("--backend", choices=("local", "ray"), default="local")
    run.add_argument("--address", help="Ray cluster to join (backend ray)")
    run.add_argument("--verbose", action="store_true", help="print each stored game's id")
    table = sub.add_parser("table", help="the standings")
    table.add_argument("dir")
    table.add_argument("--csv", action="store_true", help="as CSV")
    table.add_argument("--all", action="store_true", help="retired bots too")
    table.add_argument("--bot", help="instead, this bot against each other (NAME or NAME@N)")
    export = sub.add_parser("export", help="every game as a tournament folder (camelup replay)")
    export.add_argument("dir")
    export.add_argument("out")


def _json_object(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise TournamentError(f"{flag} is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise TournamentError(f"{flag} must be a JSON object, got {text[:40]!r}")
    return value


def init(args: argparse.Namespace) -> str:
    from tournament.ladder.store import Ladder, Settings

    try:  # the tournament's own checks of the rules, seed and limits
        config = TournamentConfig(
            agents=["random"],
            preset=args.preset,
            players=args.players,
            seed=args.seed,
            rules=_json_object(args.rules, "--rules"),
            move_timeout=args.move_timeout,
            game_timeout=args.game_timeout,
            load_timeout=args.load_timeout,
            memory_mb=args.memory_mb,
            max_turns=args.max_turns,
        )
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    if args.suspend_after < 1 or args.newcomer_games < 0:
        raise TournamentError("--suspend-after must be >= 1 and --newcomer-games >= 0")
    settings = Settings(
        preset=config.preset,
        players=config.players,
        rules=config.rules,
        seed=config.seed,
        limits=config.limits(),
        max_turns=config.max_turns,
        suspend_after=args.suspend_after,
        newcomer_games=args.newcomer_games,
    )
    Ladder.create(Path(args.dir), settings, args.database).close()
    return f"a {config.players}-player {config.preset} ladder in {args.dir}/"


def check_entry(spec: str, kwargs: dict[str, Any], allow_code: bool, settings: Settings) -> None:
    """Refuse a spec the ladder cannot seat, before it is added: code without
    ``--allow-code``, an unknown agent, a model of another game, a bot that does not start."""
    import agents as registry
    from tournament.config import AgentEntry, check_model_game, check_spec
    from tournament.pool import MatchSetup, check_bots_start

    prefix, sep, _ = spec.partition(":")
    code = sep and prefix != "cmd" and prefix not in registry.model_prefixes()
    if code and not allow_code:
        raise TournamentError(
            f"{spec!r} runs the Python code it names; add --allow-code if you trust it"
        )
    rules = settings.ruleset()
    try:
        check_spec(spec)
        check_model_game(spec, rules)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    entry = AgentEntry(spec, spec, kwargs)
    check_bots_start(MatchSetup((entry,), rules.to_dict(), settings.limits, settings.max_turns))


def add(args: argparse.Namespace) -> str:
    from tournament.ladder.store import NAME, Ladder, LadderError

    if not NAME.fullmatch(args.name):
        raise LadderError(
            f"bad bot name {args.name[:50]!r}: 1-40 letters, digits and _.- (starting with a "
            "letter or digit)"
        )
    kwargs = _json_object(args.kwargs, "--kwargs")
    ladder = Ladder.open(Path(args.dir))
    try:
        check_entry(args.spec, kwargs, args.allow_code, ladder.settings())
        entry = ladder.add(args.name, args.spec, kwargs)
    finally:
        ladder.close()
    replaced = f" (replacing {args.name}@{entry.version - 1})" if entry.version > 1 else ""
    return f"added {entry.label}{replaced}"


def retire(args: argparse.Namespace) -> str:
    from tournament.ladder.store import Ladder

    ladder = Ladder.open(Path(args.dir))
    try:
        return f"retired {ladder.retire(args.name).label}"
    finally:
        ladder.close()


def run_games(args: argparse.Namespace) -> str:
    from tournament.ladder.runner import run_ladder
    from tournament.ladder.store import Ladder

    if args.games is not None and args.games < 1:
        raise TournamentError(f"--games must be >= 1, got {args.games}")
    if args.address and args.backend != "ray":
        raise TournamentError("--address is for backend ray; add --backend ray")
    if args.backend == "local":
        try:
            check_workers(args.workers, "--workers")
        except ValueError as exc:
            raise TournamentError(str(exc)) from None
    elif args.workers is not None and args.workers < 1:
        raise TournamentError(f"--workers must be >= 1, got {args.workers}")
    Ladder.open(Path(args.dir)).close()  # a missing ladder is one line, before anything starts

    def each(record: dict) -> None:
        print(f"stored {record['game']}", flush=True)

    stored = run_ladder(
        Path(args.dir),
        args.workers,
        args.games,
        args.backend,
        args.address,
        each_game=each if args.verbose else None,
    )
    return f"{stored} games stored by this runner"


def table(args: argparse.Namespace) -> str:
    from tournament.ladder.store import Ladder
    from tournament.ladder.table import (
        csv_table,
        head_to_head,
        standings,
        text_head_to_head,
        text_table,
    )

    ladder = Ladder.open(Path(args.dir))
    try:
        if args.bot is not None:
            entry = ladder.entry(args.bot)
            return text_head_to_head(entry, head_to_head(ladder, entry))
        rows = standings(ladder, everyone=args.all)
    finally:
        ladder.close()
    return csv_table(rows).rstrip("\n") if args.csv else text_table(rows)


def export(args: argparse.Namespace) -> str:
    from tournament.ladder.store import Ladder
    from tournament.ladder.table import export as export_games

    ladder = Ladder.open(Path(args.dir))
    try:
        count = export_games(ladder, Path(args.out))
    finally:
        ladder.close()
    return f"{count} games in {args.out}/ (camelup replay {args.out} --game N)"


ACTIONS = {
    "init": init,
    "add": add,
    "retire": retire,
    "run": run_games,
    "table": table,
    "export": export,
}


def run(args: argparse.Namespace) -> int:
    try:
        with interrupts_stop_the_run():
            print(ACTIONS[args.ladder_command](args))
    except TournamentError as exc:
        print(f"camelup ladder {args.ladder_command}: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as exc:
        if not stop_requested(exc):
            raise
        print("\nstopped: every stored game is kept; run it again to go on", file=sys.stderr)
        return 130
    return 0
