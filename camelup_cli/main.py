"""The ``camelup`` command: one entry point, one module per subcommand.

Each subcommand lives in its own module, imported only when it runs (so ``camelup odds`` never
pays for torch). A subcommand module provides ``add_arguments(parser)`` and ``run(args) -> int``;
the first line of its docstring is its help text.

User errors are one line on stderr and exit code 2 in every subcommand: argparse's own errors
(an unknown flag, a bad value) are reported by :class:`Parser` without the usage block, and a
:class:`camelup_config.ConfigError` (a bad config file or override) that a subcommand lets
through is caught here.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from typing import NoReturn

from camelup_config import ConfigError

#: subcommand -> module implementing it
SUBCOMMANDS: dict[str, str] = {
    "demo": "camelup_env.cli.demo",
    "odds": "camelup_env.cli.odds",
    "train": "training.policy.sb3_trainer",
    "distill": "training.policy.distill",
    "iterate": "training.policy.expert_iteration",
    "curve": "training.afterstate.curve",
    "evaluate": "tournament.evaluate",
    "compare": "tournament.compare",
    "agents": "agents.cli",
    "play": "agents.play",
    "tournament": "tournament.cli",
    "ladder": "tournament.ladder.cli",
    "replay": "tournament.replay",
    "serve": "webapp.serve",
    "compile": "camelup_cli.compile_kernels",
}


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``camelup tournament: error: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _help(module_name: str) -> str:
    # Help text without importing heavy modules would need a second table; the docstring's first
    # line is cheap enough to read from the module itself.
    doc = importlib.import_module(module_name).__doc__ or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _module_name(command: str, argv: list[str]) -> str:
    """The module of ``command``; ``camelup train --trainer NAME`` has one per trainer."""
    if command == "train":
        from training import trainer_module

        return trainer_module(argv)
    return SUBCOMMANDS[command]


def _import(module_name: str):
    """The subcommand's module; an optional extra it needs but lacks is one line, exit 2."""
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        if exc.name is None or exc.name.split(".")[0] in ("training", "camelup_cli"):
            raise
        print(
            f"camelup: error: {module_name} needs the package {exc.name!r}, which is not "
            "installed (optional extras: README, Install)",
            file=sys.stderr,
        )
        sys.exit(2)


def _escaped(text: str) -> str:
    """``text`` as an argparse ``help=``: those are %-formatted, so a literal "%" (as in
    "95% CI") is doubled. Descriptions are printed as they are."""
    return text.replace("%", "%%")


def parser_for(argv: list[str]) -> Parser:
    """The ``camelup`` parser for ``argv``: every subcommand listed, the chosen one's arguments
    added. Parsing with it runs nothing, so the documentation's commands are checked with it
    (``tests/test_doc_examples.py``)."""
    parser = Parser(prog="camelup", description="Camel Up for RL research.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    for name, module_name in SUBCOMMANDS.items():
        if name == chosen:
            module_name = _module_name(name, argv[1:])
            module = _import(module_name)
            help_text = _help(module_name)
            module.add_arguments(
                sub.add_parser(name, help=_escaped(help_text), description=help_text)
            )
        else:  # only listed: its arguments are parsed when it is the one chosen
            sub.add_parser(name, help=None if chosen else _escaped(_help(module_name)))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(argv if argv is not None else sys.argv[1:])
    args = parser_for(argv).parse_args(argv)
    # The exact command, for reports that must say how they were made.
    args.command_line = "camelup " + shlex.join(argv)
    module = _import(_module_name(args.command, argv[1:]))
    try:
        return int(module.run(args) or 0)
    except ConfigError as exc:
        print(f"camelup {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
