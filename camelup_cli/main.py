"""The ``camelup`` command: one entry point, one module per subcommand.

Each subcommand lives in its own module, imported only when it runs (so ``camelup odds`` never
pays for torch). A subcommand module provides ``add_arguments(parser)`` and ``run(args) -> int``;
the first line of its docstring is its help text.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys

#: subcommand -> module implementing it
SUBCOMMANDS: dict[str, str] = {
    "demo": "camelup_env.demo",
    "odds": "camelup_env.odds_cli",
    "train": "training.train_ppo",
    "evaluate": "training.evaluate",
    "agents": "agents.cli",
    "play": "agents.play",
    "tournament": "training.tournament",
}


def _help(module_name: str) -> str:
    # Help text without importing heavy modules would need a second table; the docstring's first
    # line is cheap enough to read from the module itself.
    doc = importlib.import_module(module_name).__doc__ or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="camelup", description="Camel Up for RL research.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    first = (argv if argv is not None else sys.argv[1:])[:1]
    chosen = first[0] if first and first[0] in SUBCOMMANDS else None
    for name, module_name in SUBCOMMANDS.items():
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sub.add_parser(name, help=_help(module_name)))
        else:  # only listed: its arguments are parsed when it is the one chosen
            sub.add_parser(name, help=None if chosen else _help(module_name))
    args = parser.parse_args(argv)
    # The exact command, for reports that must say how they were made.
    args.command_line = "camelup " + shlex.join(argv if argv is not None else sys.argv[1:])
    module = importlib.import_module(SUBCOMMANDS[args.command])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
