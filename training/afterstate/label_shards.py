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
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from camelup_env.files import replacing
from training.run_folder import open_progress, resume_command, write_progress


class ShardedRun(Protocol):
    """The settings every run of label shards has (a dataclass config)."""

    out_dir: str
    workers: int
    holdout_every: int

    @property
    def labels(self) -> Path:
        """The folder of the shards the run fits."""
        ...

    @property
    def shards(self) -> int:
        """How many shards the run's games make."""
        ...


Config = TypeVar("Config", bound=ShardedRun)


def shard_path(labels: Path, shard: int) -> Path:
    return labels / f"shard_{shard:05d}.npz"


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    """``arrays`` into ``path``, whole or not at all (plain arrays: nothing that runs)."""
    with replacing(path) as tmp, tmp.open("wb") as f:
        np.savez_compressed(f, allow_pickle=False, **arrays)
    return path


def open_run(cfg: ShardedRun, resume: bool) -> dict[str, Any]:
    """The run's progress record, new or resumed (:func:`training.run_folder.open_progress`),
    its folders made and its settings recorded. More or fewer games may follow a resume: a
    shard's games hang on its index alone, so the shards kept agree."""
    progress = open_progress(
        cfg,
        resume,
        may_change=frozenset({"out_dir", "workers", "threads", "label_games"}),
        fresh={},
        has_checkpoint=lambda folder, _: (folder / "progress.json").exists(),
        done=lambda _: f"{len(list(cfg.labels.glob('shard_*.npz')))} shards labelled",
    )
    Path(cfg.out_dir).mkdir(parents=True, exist_ok=True)
    cfg.labels.mkdir(parents=True, exist_ok=True)  # another run's, with labels_from
    progress["config"] = asdict(cfg)  # type: ignore[call-overload]  # a dataclass config
    write_progress(Path(cfg.out_dir), progress)
    return progress


def label_run(
    label_shard: Callable[[Config, int], Path],
    cfg: Config,
    progress: dict[str, Any],
    command: str | None,
    trainer: str,
) -> None:
    """Every shard not yet on disk (:func:`label_shards`), the seconds it took added to the
    run's progress, stopped or not; a stop says the command that resumes the run."""
    start = time.time()
    try:
        label_shards(label_shard, cfg, cfg.labels, cfg.shards, cfg.workers)
    except KeyboardInterrupt:
        print(
            f"stopped; the finished shards stay: "
            f"{resume_command(command, f'camelup train --trainer {trainer} ...')}",
            flush=True,
        )
        raise
    finally:
        progress["label_seconds"] = progress.get("label_seconds", 0.0) + time.time() - start
        write_progress(Path(cfg.out_dir), progress)


def split(cfg: ShardedRun) -> tuple[list[Path], list[Path]]:
    """The run's shards the fit trains on, and those it holds out: every
    ``holdout_every``-th."""
    paths = [shard_path(cfg.labels, k) for k in range(cfg.shards)]
    every = cfg.holdout_every
    held = [p for k, p in enumerate(paths) if k % every == every - 1]
    return [p for p in paths if p not in held], held


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
