"""Do the oracle tests catch a one-line change to the compiled rules? Each mutant is run.

``python -m tests.rule_mutations [NAME ...]`` copies the tracked files to a scratch folder once,
then for each mutant of :mod:`camelup_env.game.rule_kernels` below (one line changed, the rule
it breaks in its name) writes the changed file, runs the oracle tests (the batch core against
the engine state for state, the odds against brute force through the engine, the batched
observation against the Observer) on a fresh numba cache, and prints whether they failed
(caught) or passed (missed). Exit status 1 when a mutant is missed. Minutes per mutant: every
kernel recompiles. Not part of ``make test``; docs/contributing.md says when to run it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = Path("camelup_env/game/rule_kernels.py")
ORACLES = (
    "tests/test_batch_differential.py",
    "tests/test_odds.py",
    "tests/test_supercup_odds.py",
    "tests/test_batch_observation.py",
)

#: name (the rule it breaks) -> (the line as it is, the line mutated)
MUTANTS = {
    "R5.3 mirage puts the unit on top": (
        "    bottom *= 1 - under\n",
        "    bottom *= 1\n",
    ),
    "R5.3 tile pushes a backward unit the same way": (
        "    return arrival - side, side < 0\n",
        "    return arrival + side, side < 0\n",
    ),
    "R5.5 two carriers count as one": (
        "    if n_carriers == 1:\n",
        "    if n_carriers >= 1:\n",
    ),
    "R5.5 a crazy camel rides the other one": (
        "            if b[row, base + j] == kk + 1:\n",
        "            if b[row, base + j] == kk - 1:\n",
    ),
    "R5.6 a backward finish does not end the race": (
        "    return space > track_length or space < 1\n",
        "    return space > track_length or space < 0\n",
    ),
    "R0.4 ties ranked the other way": (
        "        ahead += b[row, base + c] > kc\n",
        "        ahead += b[row, base + c] >= kc\n",
    ),
    "R0.5 second camel is the first's predecessor only": (
        "        elif second < 0 or k > b[row, base + second]:\n",
        "        elif second < 0:\n",
    ),
    "R6.2 a wrong leg tile costs nothing": (
        "    return -SECOND_PAYS\n",
        "    return 0\n",
    ),
    "R6.2 expected pay of a wrong tile": (
        "    return value * p_first + p_second - (1.0 - p_first - p_second)\n",
        "    return value * p_first + p_second - (1.0 - p_first)\n",
    ),
    "R7.2 payouts skip the first": (
        "    return payouts[start + min(correct_before, n_payouts - 1)]\n",
        "    return payouts[start + min(correct_before + 1, n_payouts - 1)]\n",
    ),
    "R8.1 coins may go below zero": (
        "    return max(0, coins + amount)\n",
        "    return coins + amount\n",
    ),
}


def _copy_tree(to: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in files:
        source = ROOT / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)


def run(names: list[str]) -> int:
    """Run the mutants ``names`` (all when empty); return how many were missed."""
    unknown = sorted(set(names) - MUTANTS.keys())
    if unknown:
        raise SystemExit(f"rule_mutations: no mutant named {unknown[0]!r}")
    original = (ROOT / RULES).read_text()
    missed = 0
    with tempfile.TemporaryDirectory(prefix="camelup-mutants-") as scratch:
        tree = Path(scratch) / "tree"
        _copy_tree(tree)
        for name in names or list(MUTANTS):
            line, mutated = MUTANTS[name]
            if original.count(line) != 1:
                raise SystemExit(f"rule_mutations: {name}: the line {line.strip()!r} moved")
            (tree / RULES).write_text(original.replace(line, mutated))
            cache = Path(scratch) / "numba" / str(list(MUTANTS).index(name))
            env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(cache)}
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *ORACLES],
                cwd=tree,
                env=env,
                capture_output=True,
                text=True,
            )
            caught = done.returncode != 0
            missed += not caught
            print(f"{'caught' if caught else 'MISSED'}: {name}", flush=True)
    return missed


if __name__ == "__main__":
    sys.exit(1 if run(sys.argv[1:]) else 0)
