"""A policy's forward pass beside the batch core's kernels, under each numba threading layer.

    python benchmarks/threading_layer.py [--model results/models/classic4/model.zip]

Training, batch evaluation and the ``rollout:`` search run numba kernels and torch in one
process. For each threading layer (``omp``, when numba has it, and ``workqueue``, which
``camelup_env.batch`` chooses unless ``NUMBA_THREADING_LAYER`` says otherwise) a fresh process
times the policy's forward pass on 128 observations before any kernel has run and again after
the games have been stepped and observed, and prints both in milliseconds and their ratio,
measured in the same process. On a machine whose cores are busy with other work the OpenMP
layer's spinning threads make the second figure hundreds of times the first.
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
from camelup_env.batch import BatchGames, BatchObserver, random_streams
import numba
agent = load_agent({model!r})
n = 128
rng = np.random.default_rng(0)
obs = rng.random((n, agent.observer.size), dtype=np.float32)

def forward_ms(repeats=50):
    start = time.perf_counter()
    for _ in range(repeats):
        agent.logits(obs)
    return (time.perf_counter() - start) / repeats * 1e3

before = forward_ms()
games = BatchGames(agent.rules, n, seed=0)
observer = BatchObserver(agent.rules, **agent.observer.metadata)
games.step(games.random_actions(random_streams(n, 1)))
observer.observe(games, games.current_player.astype(np.int64), np.arange(n))
after = forward_ms()
print(numba.threading_layer(), before, after)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="results/models/classic4/model.zip")
    args = parser.parse_args()
    print(f"forward pass of {args.model} on 128 observations, torch on one thread")
    for layer in ("omp", "workqueue"):
        env = {**os.environ, "NUMBA_THREADING_LAYER": layer}
        run = subprocess.run(
            [sys.executable, "-c", CHILD.format(model=args.model)],
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode:
            print(f"{layer:10} unavailable here ({run.stderr.strip().splitlines()[-1]})")
            continue
        name, before, after = run.stdout.split()
        print(
            f"{name:10} before any kernel {float(before):8.3f} ms   after the kernels "
            f"{float(after):8.3f} ms   ({float(after) / float(before):7.1f} x)"
        )


if __name__ == "__main__":
    main()
