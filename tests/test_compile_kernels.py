"""Nothing compiles inside a clock: every numba kernel a bot, an environment or the batch core
calls is compiled (or loaded from numba's cache) by a warm-up before the first timed move, and
``python -m camelup_cli.compile_kernels`` (``make install``) reaches all of them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from camelup_env import compile_notice, kernel_cache

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_with_kernels_is_listed() -> None:
    """The list that the notice, the probe and ``signatures()`` read names every module of the
    project that compiles a function."""
    compiled = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "camelup_env").rglob("*.py")
        if re.search(r"^@(njit|over_games)\b", path.read_text(), re.MULTILINE)
    }
    assert compiled == set(kernel_cache.KERNEL_MODULES)


def _probe(what: str) -> dict[str, list[str]]:
    """Run ``tests/kernel_probe.py WHAT`` in a fresh process (the kernels of this one are
    already loaded) and return the kernels its play added."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.kernel_probe", what],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("bot", ["greedy", "ppo", "rollout"])
def test_a_bots_warmup_reaches_every_kernel_its_moves_call(bot: str) -> None:
    """A tournament times each move, not the warm-up: a kernel first called in a move would
    compile there (greedy lost games on time to the placements' kernel this way)."""
    assert _probe(bot) == {}


def test_compile_kernels_reaches_every_kernel_of_the_batch_core_and_the_envs() -> None:
    """After ``compile_all`` an evaluation on the batch core and the vector env of another
    rule set add no kernel and no argument types: ``make install`` leaves nothing to compile."""
    assert _probe("installed") == {}


def test_the_first_compile_of_a_process_says_so(tmp_path: Path) -> None:
    """A kernel compiled in a process prints the notice once on stderr, then its progress (here
    after every compile: no wait between lines); one loaded from the disk cache prints nothing
    (NUMBA_CACHE_DIR: a cache of this test's own)."""
    code = (
        "from camelup_env import compile_notice, odds\n"
        "compile_notice.PROGRESS_SECONDS = 0.0\n"
        "from camelup_env.game.setup import new_game\n"
        "from camelup_env.game.rules import RuleSet\n"
        "odds.leg_rank_probabilities(new_game(RuleSet('classic', num_players=2), seed=0))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr
    assert runs[0].stderr.count(compile_notice.NOTICE) == 1
    progress = re.findall(r"^  \.\.\. (\d+) kernels compiled, \d+ s$", runs[0].stderr, re.M)
    assert progress and [int(n) for n in progress] == list(range(1, len(progress) + 1))
    assert compile_notice.NOTICE not in runs[1].stderr and "kernels compiled" not in runs[1].stderr


def test_camelup_compile_warms_every_kernel_with_progress(tmp_path: Path) -> None:
    """``camelup compile`` (what ``make install`` runs; a pip-installed project runs it by
    hand) prints one line before it starts and a numbered line after each step, from any
    folder, and not the first-run notice as well: its own first line says it."""
    from camelup_cli.compile_kernels import STARTING, steps

    done = subprocess.run(
        [sys.executable, "-m", "camelup_cli", "compile"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    names = [what for what, _ in steps()]
    assert lines[0] == STARTING and lines[-1].startswith("kernels compiled and cached in ")
    assert [re.sub(r": \d+ s$", "", line) for line in lines[1:-1]] == [
        f"[{i}/{len(names)}] {what}" for i, what in enumerate(names, 1)
    ]
    assert compile_notice.NOTICE not in done.stderr
