"""The batch core's two copies of each kernel, its threading layer and its unchecked step.

Each public kernel is compiled serial (one thread: no threading layer is ever started) and
parallel (:mod:`camelup_env.batch.game_loops`); both must play and observe every game alike.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from camelup_env import IllegalActionError, RuleSet
from camelup_env.batch import BatchGames, BatchObserver, kernels, random_streams
from camelup_env.batch.game_loops import GameLoop

CLASSIC4 = RuleSet("classic", num_players=4)


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("second_edition", 6)])
def test_serial_and_parallel_kernels_play_and_observe_every_game_alike(
    preset: str, players: int
) -> None:
    """Step by step, the serial copies (threads=1) and the parallel ones (threads=2) give the
    same rows, streams, masks, random actions, step results and observations."""
    rules = RuleSet(preset, num_players=players)
    serial, parallel = (BatchGames(rules, 96, seed=7, threads=t) for t in (1, 2))
    streams = [random_streams(96, 3) for _ in range(2)]
    observer = BatchObserver(rules, race_samples=16)
    for step in range(120):
        masks = [g.legal_action_mask() for g in (serial, parallel)]
        np.testing.assert_array_equal(*masks)
        actions = [g.random_actions(s) for g, s in zip((serial, parallel), streams, strict=True)]
        np.testing.assert_array_equal(*actions)
        results = [
            g.step(a, autoreset=True, max_turns=60)
            for g, a in zip((serial, parallel), actions, strict=True)
        ]
        for a, b in zip(*results, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(serial.state.rows, parallel.state.rows)
        np.testing.assert_array_equal(serial.state.rng, parallel.state.rng)
        if step % 20 == 0:
            seats = serial.current_player.astype(np.int64)
            np.testing.assert_array_equal(
                observer.observe(serial, seats), observer.observe(parallel, seats)
            )


def test_every_public_kernel_has_a_serial_and_a_parallel_copy() -> None:
    loops = [v for v in vars(kernels).values() if isinstance(v, GameLoop)]
    assert len(loops) == 5
    for loop in loops:
        assert not loop.serial.targetoptions.get("parallel")
        assert loop.parallel.targetoptions["parallel"]
        assert loop.serial.py_func.__qualname__ != loop.parallel.py_func.__qualname__  # own caches


CHILD = """
import numba
from camelup_env import RuleSet
from camelup_env.batch import BatchGames, BatchObserver, random_streams
games = BatchGames(RuleSet("classic", num_players=4), 8, seed=0{threads})
streams = random_streams(8, 1)
for _ in range(5):
    games.step(games.random_actions(streams), autoreset=True)
BatchObserver(games.rules, race_samples=16).observe(games, 0)
try:
    print(numba.threading_layer())
except ValueError:
    print("none")
"""


def layer_after_play(threads: str) -> str:
    """The threading layer a fresh process has started after playing and observing."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    run = subprocess.run(
        [sys.executable, "-c", CHILD.format(threads=threads)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout.split()[-1]


def test_one_thread_starts_no_threading_layer() -> None:
    """The default (one thread) runs only the serial copies: no layer's launch is paid and no
    layer's threads exist beside torch."""
    assert inspect.signature(BatchGames).parameters["threads"].default == 1
    assert layer_after_play("") == "none"


def test_several_threads_run_on_the_workqueue_layer() -> None:
    """With threads, ``camelup_env.batch`` selects numba's workqueue layer: OpenMP's spinning
    threads slow torch and collapse on a busy machine (docs/performance.md, Batch core)."""
    assert numba.config.NUMBA_NUM_THREADS > 1  # the machine has threads to start
    assert layer_after_play(", threads=2") == "workqueue"


def test_the_public_step_always_checks_and_the_unchecked_step_is_apart(monkeypatch) -> None:
    assert "check" not in inspect.signature(BatchGames.step).parameters
    assert BatchGames.step_unchecked is not BatchGames.step
    games = BatchGames(CLASSIC4, 4, seed=0)
    with pytest.raises(IllegalActionError, match="game 0"):
        games.step(np.full(4, games.num_actions))  # out of range everywhere
    passes = []
    real = kernels.check_actions

    class Spy:
        def run(self, *args):
            passes.append(1)
            return real.run(*args)

    monkeypatch.setattr(kernels, "check_actions", Spy())
    legal = games.random_actions(random_streams(4, 1))
    games.copy().step(legal)
    assert passes == [1]
    games.step_unchecked(legal)
    assert passes == [1]  # no legality pass
