"""Run a tournament of agents, each in its own process: seat rotation, paired seeds, ratings.

``camelup tournament configs/tournament/default.yaml [--agents greedy,random --players 2 ...]``
(every setting of the config is also a flag; docs/tournaments.md).
"""

from __future__ import annotations

import argparse
import sys

from camelup_config import add_override_flags, overrides_from_args
from camelup_env.interrupts import stop_requested
from tournament.config import TournamentConfig, TournamentError, tournament_config
from tournament.run import results_folder, run_tournament


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="tournament YAML (configs/tournament/...)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-luck",
        action="store_true",
        help="skip the luck-adjusted win shares (docs/luck.md) and their seconds per game",
    )
    add_override_flags(parser, TournamentConfig)


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "command_line", None) or " ".join(["python", *sys.argv])
    try:
        config = tournament_config(args.config, overrides_from_args(args, TournamentConfig))
        out = results_folder(config)
        summary = run_tournament(
            config, out, progress=not args.no_progress, command=command, luck=not args.no_luck
        )
    except TournamentError as exc:
        print(f"camelup tournament: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as exc:
        if not stop_requested(exc):
            raise
        print(
            "\ninterrupted: every finished game is saved; run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    print((out / "summary.md").read_text())
    print(f"results in {out}/ ({summary['games']} games)")
    return 0
