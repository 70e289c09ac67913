"""List the agents that play, tournament and evaluation accept, with one-line descriptions."""

from __future__ import annotations

import argparse

from agents.base import describe_agents


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--names", action="store_true", help="print the names only")


def run(args: argparse.Namespace) -> int:
    rows = describe_agents()
    if args.names:
        print("\n".join(name for name, _ in rows))
        return 0
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        print(f"{name:<{width}}  {description}")
    return 0
