"""Rules-engine cost in machine instructions per random action, counted by callgrind.

Wall-clock figures on these shared machines drift by tens of percent within minutes, so two
versions of the engine cannot be compared by timing them a minute apart. An instruction count
can: the same code and seed give the same count on every run. This script runs itself under
``valgrind --tool=callgrind`` and counts only what runs inside one ``functools.reduce`` call
(``--toggle-collect``), which wraps the measured games: no interpreter start-up, no imports,
no table building. The game loop is the one of ``benchmarks/engine.py``.

    .venv/bin/python benchmarks/engine_instructions.py --presets classic second_edition
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys

from engine import play_games  # benchmarks/engine.py: the measured loop itself

from camelup_env import RuleSet


def measure(preset: str, players: int, games: int, seed: int) -> None:
    """Inner run (under valgrind): warm up, then play ``games`` inside ``functools.reduce``."""
    rules = RuleSet(preset, num_players=players)
    play_games(rules, 3, seed + 1)  # tables built, the interpreter's specialisation settled
    actions = functools.reduce(lambda _, __: play_games(rules, games, seed)[1], [None], 0)
    print(f"ACTIONS {actions}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["classic", "second_edition"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        measure(args.presets[0], args.players, args.games, args.seed)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is needed (Debian: apt-get install valgrind)")
    print(
        f"camelup rules engine, random play, {args.players} players, {args.games} games per "
        "preset, instructions counted by callgrind"
    )
    for preset in args.presets:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                "--toggle-collect=functools_reduce",
                sys.executable,
                __file__,
                "--inner",
                "--presets",
                preset,
                "--players",
                str(args.players),
                "--games",
                str(args.games),
                "--seed",
                str(args.seed),
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        actions = int(re.search(r"ACTIONS (\d+)", run.stdout).group(1))
        collected = int(re.search(r"Collected : (\d+)", run.stderr).group(1))
        print(
            f"{preset:<16}{collected / actions:>10,.0f} instructions per action "
            f"({actions:,} actions)"
        )
    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    print(f"command: {command}")


if __name__ == "__main__":
    main()
