"""Compile every numba kernel into numba's disk cache, once: later runs start at once.

``camelup compile`` (``make install`` runs it after pip; a pip-installed project runs it once
by hand): a first run of the odds, the batch core or its observation otherwise compiles its
kernels on the spot, for seconds to minutes (``camelup_env.compile_notice`` says so), and a
tournament bot that compiles inside its move clock loses the game on time. Each kernel is
reached through the code that calls it, with the argument types of its call sites: the odds
(:func:`camelup_env.odds.warm_up`, every preset), the batch core and its observation (the
serial and the parallel copy of each loop), the single-agent environment (the engine's games)
and the vector one (the learner's loop).
``tests/test_compile_kernels.py`` checks that the callers then compile nothing new. A kernel
already in the cache is loaded, not compiled, so a second run takes seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from camelup_env import compile_notice, odds
from camelup_env.batch import BatchGames, BatchObserver, random_streams
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import afterstates
from camelup_env.batch.playout import play_to_end
from camelup_env.envs.single_agent import SingleAgentEnv
from camelup_env.envs.vector import SingleAgentVectorEnv
from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.game.setup import new_game

#: The line printed before compiling (the notice a first run would print on its own).
STARTING = (
    "compiling kernels, first run only: every numba kernel of camelup, into numba's disk "
    "cache (a minute or more on a busy machine; later runs load them in a second)"
)


def steps() -> list[tuple[str, Callable[[], None]]]:
    """What :func:`compile_all` calls, in order, each with the words its progress line says."""
    rules = RuleSet("classic", num_players=4)
    return [
        *(
            (
                f"odds, {preset}",
                partial(odds.warm_up, new_game(RuleSet(preset, num_players=4), seed=0)),
            )
            for preset in PRESETS
        ),
        # the serial copies, then the parallel ones (game_loops)
        ("batch core, 1 thread", partial(_batch_core, rules, 1)),
        ("batch core, 2 threads", partial(_batch_core, rules, 2)),
        ("environments", partial(_environments, rules)),
    ]


def compile_all(progress: Callable[[str], None] | None = None) -> None:
    """Call every kernel through its callers (module docstring); the cache keeps them.
    ``progress`` gets a line after each step: ``[3/9] odds, persian_tutorial: 4 s``."""
    todo = steps()
    for i, (what, step) in enumerate(todo, 1):
        start = time.perf_counter()
        step()
        if progress is not None:
            progress(f"[{i}/{len(todo)}] {what}: {time.perf_counter() - start:.0f} s")


def _batch_core(rules: RuleSet, threads: int) -> None:
    """Every kernel of :class:`BatchGames`, :class:`BatchObserver` and
    :func:`~camelup_env.batch.afterstates.afterstates` on ``threads``."""
    n = 4
    games = BatchGames(rules, n, seed=0, threads=threads)
    observer = BatchObserver(rules)
    streams = random_streams(n, seed=1)
    games.step(games.random_actions(streams))  # checked
    games.step_unchecked(games.random_actions(streams, np.arange(2)), autoreset=True)
    games.reset(np.arange(1), seed=2)
    observer.observe(games, games.current_player)
    after = afterstates(games)
    running = np.flatnonzero(~after.ended)
    plain = {"odds_features": False, "action_values": False}
    AfterstateFeatures(rules, plain, leg_equity=True, race_equity=True).rows(after, running, 0)
    copies = BatchGames.from_states(games.to_states(), seed=3)
    copies.threads = threads

    def choose(board: BatchGames, idx: np.ndarray) -> np.ndarray:
        observer.observe(board, board.current_player[idx], idx)
        return board.random_actions(streams, idx)[idx]

    play_to_end(copies, choose, max_turns=40, check=False)
    games.legal_action_mask()


def _environments(rules: RuleSet) -> None:
    """A few random steps of the single-agent env (the engine's games) and the vector one
    (the learner's loop on the batch core)."""
    rng = np.random.default_rng(0)
    env = SingleAgentEnv(rules=rules)
    _, info = env.reset(seed=0)
    for _ in range(4):
        _, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        if terminated or truncated:
            break
    vector = SingleAgentVectorEnv(2, rules=rules)
    _, info = vector.reset(seed=0)
    for _ in range(4):
        mask = info["action_mask"]
        _, _, _, _, info = vector.step(np.where(mask, rng.random(mask.shape), -1).argmax(axis=1))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: it compiles everything, once."""


def run(args: argparse.Namespace | None = None) -> int:
    print(STARTING, flush=True)
    compile_notice.notice_given()  # the line above says it
    start = time.time()
    compile_all(lambda line: print(line, flush=True))
    print(f"kernels compiled and cached in {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run())
