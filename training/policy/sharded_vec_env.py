"""The batched env split over worker processes: one :class:`~training.policy.vec_env.CamelUpVecEnv`
shard per process, all cores stepping games while the learner waits for one answer.

Why: on the batched env nearly all of a training step is game work (the engine, the exact odds
of the observation, the scripted opponents' decisions); the learner's forward pass and updates
are a few percent. That work is independent per game, so ``workers`` processes each step their
share of the games and the learner process only gathers rows. Unlike SB3's ``SubprocVecEnv``
(one game per process, ``action_masks`` and ``step`` as two round trips), each shard answers a
whole step, its legal-action masks included, in **one** round trip.

Shard ``k`` is built in its own process by ``build(k)`` (a picklable callable); the shards'
games are concatenated in shard order. Built with seeds that continue each other (shard ``k``
seeded with ``seed`` plus the number of games before it) and the same opponents, the sharded
env plays exactly the games of one :class:`CamelUpVecEnv` (``tests/test_sharded_vec_env.py``).
``env_method(name, ...)`` calls ``name`` once per shard (for example ``add_snapshot`` of
:class:`training.policy.selfplay.SelfPlayVecEnv`, so every shard's pool gets a new snapshot).

Messages between the learner and its own workers are pickled, as in SB3's ``SubprocVecEnv``:
both ends are this project's code (no bot or model file speaks here). Workers ignore SIGINT, so
Ctrl-C reaches only the learner, which checkpoints and closes them.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

if TYPE_CHECKING:
    from training.policy.vec_env import CamelUpVecEnv

__all__ = ["ShardedVecEnv"]


def _serve(remote: Connection, build: Callable[[int], CamelUpVecEnv], index: int) -> None:
    """Worker loop: build shard ``index``, then answer the learner's commands until ``close``.
    A worker is one core's share of the games: numba's threads (the batch core's kernels) would
    only contend with the other workers for the cores."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    numba.set_num_threads(1)
    try:
        env = build(index)
        remote.send(("ok", (env.num_envs, env.observation_space, env.action_space)))
        while True:
            command, payload = remote.recv()
            if command == "step":
                obs, rewards, dones, infos = env.step(payload)
                remote.send(("ok", (obs, rewards, dones, infos, env.action_masks())))
            elif command == "reset":
                obs = env.reset()
                remote.send(("ok", (obs, env.action_masks())))
            elif command == "call":
                name, args, kwargs = payload
                remote.send(("ok", getattr(env, name)(*args, **kwargs)))
            elif command == "get":
                remote.send(("ok", getattr(env, payload)))
            elif command == "has":
                remote.send(("ok", hasattr(env, payload)))
            elif command == "close":
                env.close()
                remote.send(("ok", None))
                return
    except EOFError:  # the learner is gone
        return
    except Exception:
        # the learner may have stopped listening (another shard failed first)
        with contextlib.suppress(OSError):
            remote.send(("error", traceback.format_exc()))


class ShardedVecEnv(VecEnv):
    """``VecEnv`` over ``workers`` processes, each stepping the shard ``build(k)`` returns.

    Args:
        build: ``build(k) -> CamelUpVecEnv`` for ``k`` in ``range(workers)``, called in worker
            ``k`` (picklable: a module-level function or a ``functools.partial`` of one). Shards
            must share observation and action spaces.
        workers: processes (and shards).
        start_method: multiprocessing start method (``forkserver``: no torch state inherited).
    """

    def __init__(
        self, build: Callable[[int], CamelUpVecEnv], workers: int, start_method: str = "forkserver"
    ):
        if workers < 1:
            raise ValueError(f"workers must be positive, got {workers}")
        context = mp.get_context(start_method)
        self.remotes: list[Connection] = []
        self.processes = []
        for k in range(workers):
            here, there = context.Pipe()
            # every start method's context has a Process; typeshed's BaseContext (what a method
            # named by a str gets) declares none
            process = context.Process(  # type: ignore[attr-defined]
                target=_serve, args=(there, build, k), daemon=True
            )
            process.start()
            there.close()
            self.remotes.append(here)
            self.processes.append(process)
        try:
            shapes = [self._answer(k) for k in range(workers)]
        except RuntimeError:
            for process in self.processes:
                process.terminate()
            raise
        self.sizes = [n for n, _, _ in shapes]
        self.bounds = np.cumsum([0, *self.sizes])
        _, obs_space, action_space = shapes[0]
        super().__init__(int(self.bounds[-1]), obs_space, action_space)
        self._masks: np.ndarray  # the learners' legal actions, set by reset and each step
        self.closed = False

    def _answer(self, k: int) -> Any:
        try:
            status, value = self.remotes[k].recv()
        except EOFError as exc:
            raise RuntimeError(
                f"env worker {k} died (exit code {self.processes[k].exitcode})"
            ) from exc
        if status == "error":
            raise RuntimeError(f"env worker {k} failed:\n{value}")
        return value

    def _all(self, command: str, payloads: Sequence[Any]) -> list[Any]:
        for remote, payload in zip(self.remotes, payloads, strict=True):
            remote.send((command, payload))
        return [self._answer(k) for k in range(len(self.remotes))]

    # VecEnv API ---------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        answers = self._all("reset", [None] * len(self.remotes))
        self._masks = np.concatenate([masks for _, masks in answers])
        return np.concatenate([obs for obs, _ in answers])

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(self.num_envs)
        for k, remote in enumerate(self.remotes):
            remote.send(("step", actions[self.bounds[k] : self.bounds[k + 1]]))

    def step_wait(self):
        answers = [self._answer(k) for k in range(len(self.remotes))]
        self._masks = np.concatenate([a[4] for a in answers])
        infos = [info for a in answers for info in a[3]]
        return (
            np.concatenate([a[0] for a in answers]),
            np.concatenate([a[1] for a in answers]),
            np.concatenate([a[2] for a in answers]),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, one row per game, from the last step's answers."""
        return self._masks.copy()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for k, remote in enumerate(self.remotes):
            try:
                remote.send(("close", None))
                self._answer(k)
            except (BrokenPipeError, EOFError, RuntimeError):
                pass
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()

    def shard_attr(self, attr_name: str) -> list[Any]:
        """``attr_name`` of every shard (for example each shard's ``timers``)."""
        return self._all("get", [attr_name] * len(self.remotes))

    def _per_game(self, values: list[Any], indices) -> list[Any]:
        """One shard-level answer per shard -> one entry per requested game index."""
        shard_of = np.searchsorted(self.bounds, np.arange(self.num_envs), side="right") - 1
        return [values[shard_of[i]] for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return self._per_game(self.shard_attr(attr_name), indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        self._all("call", [("__setattr__", (attr_name, value), {})] * len(self.remotes))

    def has_attr(self, attr_name: str) -> bool:
        return all(self._all("has", [attr_name] * len(self.remotes)))

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":  # sb3-contrib asks every env for its own row
            return [self._masks[i].copy() for i in self._get_indices(indices)]
        # once per shard (a method with an effect, such as add_snapshot, runs once in each)
        answers = self._all("call", [(method_name, method_args, method_kwargs)] * len(self.remotes))
        return self._per_game(answers, indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
