"""Label shards: the rows a supervised afterstate run fits, made by worker processes, kept
across a stop.

A run that learns from bots' games (:mod:`training.afterstate.standing_copy`,
:mod:`training.afterstate.standing_td`) plays them in shards of a few games, each shard's
rows one ``.npz`` in ``labels/``, written whole or not at all (a stop leaves no half file), so
a resumed run labels only the shards missing. Shard ``k`` holds the same games whatever the
run's count of games, so a run may be extended. Workers are spawned, not forked: a fork of a
process with threads (torch's, numba's, a test runner's) can hold a lock no thread releases.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np

from camelup_env.files import replacing

Config = TypeVar("Config")


def shard_path(labels: Path, shard: int) -> Path:
    return labels / f"shard_{shard:05d}.npz"


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    """``arrays`` into ``path``, whole or not at all (plain arrays: nothing that runs)."""
    with replacing(path) as tmp, tmp.open("wb") as f:
        np.savez_compressed(f, allow_pickle=False, **arrays)
    return path


def label_shards(
    label_shard: Callable[[Config, int], Path],
    cfg: Config,
    labels: Path,
    shards: int,
    workers: int,
) -> None:
    """``label_shard(cfg, k)`` for every shard ``k < shards`` not yet in ``labels``, ``workers``
    at a time (one: in this process). A stop (Ctrl-C, SIGTERM) ends the
    workers at once: a finished shard is kept, a cut one removed."""
    todo = [k for k in range(shards) if not shard_path(labels, k).exists()]
    done = shards - len(todo)
    start = time.time()
    print(f"labels: {done} of {shards} shards on disk, {len(todo)} to label", flush=True)
    try:
        with contextlib.ExitStack() as stack:
            if workers == 1 or len(todo) < 2:
                made: Iterator[Path] = map(partial(label_shard, cfg), todo)
            else:
                spawn = multiprocessing.get_context("spawn")
                pool = stack.enter_context(spawn.Pool(workers, _leave_stops_to_the_run))
                made = pool.imap(partial(label_shard, cfg), todo)
            for path in made:
                done += 1
                print(
                    f"{path.name}: {done} of {shards} shards "
                    f"({(time.time() - start) / (done - shards + len(todo)):.0f} s a shard)",
                    flush=True,
                )
    finally:
        for stray in labels.glob("*.tmp"):  # a worker's shard cut off mid-write
            stray.unlink()


def _leave_stops_to_the_run() -> None:
    """A worker ignores Ctrl-C (a terminal's reaches the whole group): the run stops it, the
    pool's end terminating it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
