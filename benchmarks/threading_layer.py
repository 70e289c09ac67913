"""Numba's threading layers on both sides: the batch core's speed and torch's beside it.

    python benchmarks/threading_layer.py [--model agents/models/classic4.zip] [--seconds 2]

Training, batch evaluation and the ``rollout:`` search run numba kernels and torch in one
process, so a threading layer is judged on two figures measured in the same fresh process:

* the batch core's random play (``random_actions`` + checked ``step``, 1,024 classic 4-player
  games, as ``benchmarks/batch.py``), in actions per second;
* a policy's forward pass on 128 observations (torch on one thread), timed before any kernel
  has run and again after the games have been played and observed: the ratio after / before.

One process per configuration: ``default`` is what a user gets (``BatchGames``' default of one
thread, the layer ``camelup_env.batch`` selects); the others run the kernels on every core
under each layer numba has here - ``workqueue``, ``omp`` as it comes, ``omp`` with passive
waiting (``OMP_WAIT_POLICY=PASSIVE``, ``KMP_BLOCKTIME=0``, set before the OpenMP runtime
loads) and ``tbb`` when the ``tbb`` package is installed. A layer numba cannot load is
reported as such. Last line: ``threading: default LAYER, THREADS thread(s): forward pass after
kernels = X of before``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = """
import time, numpy as np, torch
torch.set_num_threads(1)
from agents.ppo import load_agent
from camelup_env import RuleSet
from camelup_env.batch import BatchGames, BatchObserver, random_streams
import numba
agent = load_agent({model!r})
rng = np.random.default_rng(0)
obs = rng.random((128, agent.observer.size), dtype=np.float32)

def forward_ms(blocks=5, repeats=20):
    best = float("inf")
    for _ in range(blocks):
        start = time.perf_counter()
        for _ in range(repeats):
            agent.logits(obs)
        best = min(best, (time.perf_counter() - start) / repeats * 1e3)
    return best

before = forward_ms()
threads = {threads}
kwargs = {{}} if threads is None else {{"threads": threads}}
games = BatchGames(RuleSet("classic", num_players=4), 1024, seed=0, **kwargs)
streams = random_streams(1024, 1)
games.step(games.random_actions(streams), autoreset=True)
steps, start = 0, time.perf_counter()
while time.perf_counter() - start < {seconds}:
    games.step(games.random_actions(streams), autoreset=True)
    steps += 1
rate = steps * 1024 / (time.perf_counter() - start)
few = games.take(np.arange(128))
observer = BatchObserver(agent.rules, **agent.observer.metadata)
observer.observe(few, few.current_player.astype(np.int64), np.arange(128))
after = forward_ms()
try:
    layer = numba.threading_layer()
except ValueError:  # no parallel region has run: no layer was started
    layer = "none"
print(numba.config.THREADING_LAYER, layer, games.threads, rate, before, after)
"""

#: (label, environment, numba threads or None for BatchGames' default)
CONFIGS = (
    ("default", {}, None),
    ("workqueue", {"NUMBA_THREADING_LAYER": "workqueue"}, 0),
    ("omp", {"NUMBA_THREADING_LAYER": "omp"}, 0),
    (
        "omp passive",
        {"NUMBA_THREADING_LAYER": "omp", "OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"},
        0,
    ),
    ("tbb", {"NUMBA_THREADING_LAYER": "tbb"}, 0),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="agents/models/classic4.zip")
    parser.add_argument("--seconds", type=float, default=2.0, help="random play per config")
    args = parser.parse_args()
    print(
        f"{os.cpu_count()} cores; batch core: random play of 1,024 classic 4-player games for "
        f"{args.seconds:g} s; torch (one thread): forward pass of {args.model} on 128 "
        "observations, best of 5 x 20, before any kernel and after the kernels"
    )
    settings = {key for _, env, _ in CONFIGS for key in env}
    default = None
    for label, env, threads in CONFIGS:
        # the default as the user's environment has it; each layer without the others' settings
        base = {k: v for k, v in os.environ.items() if label == "default" or k not in settings}
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                CHILD.format(model=args.model, threads=threads, seconds=args.seconds),
            ],
            env={**base, **env},
            capture_output=True,
            text=True,
        )
        if run.returncode:
            why = (run.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"{label:12} unavailable here ({why[:100]})")
            continue
        chosen, started, used, rate, before, after = run.stdout.split()[-6:]
        used = str(os.cpu_count()) if used == "0" else used  # 0: all of numba's threads
        ratio = float(after) / float(before)
        print(
            f"{label:12} layer started: {started:9} {used} thread(s) "
            f"{float(rate):>12,.0f} actions/s   forward {float(before):6.3f} ms before, "
            f"{float(after):6.3f} ms after = {ratio:5.2f} of before"
        )
        if label == "default":
            default = (chosen, used, ratio)
    if default is not None:
        chosen, used, ratio = default
        print(
            f"threading: default {chosen}, {used} thread(s): forward pass after kernels = "
            f"{ratio:.2f} of before"
        )


if __name__ == "__main__":
    main()
