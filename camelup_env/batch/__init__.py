"""The batch core: N Camel Up games as fixed-size arrays, stepped by compiled numba kernels.

The reference engine (:mod:`camelup_env.game.engine`) plays one game of plain Python values; this
package plays thousands at once for training, evaluation and search, under the same rules
(classic and second edition, 2-8 players; Supercup stays on the engine) and the same action
indices. ``tests/test_batch_differential.py`` keeps the two equal state for state.

    import numpy as np
    from camelup_env import RuleSet
    from camelup_env.batch import BatchGames, random_streams

    games = BatchGames(RuleSet("classic", num_players=4), 1024, seed=0)
    streams = random_streams(1024, seed=1)
    for _ in range(100):
        result = games.step(games.random_actions(streams), autoreset=True)

* :class:`BatchGames` - create N games from seeds, ``legal_action_mask()`` (N, A),
  ``current_player`` (N,), ``step(actions)`` returning per-seat rewards, terminated and
  truncated (optionally resetting ended games), ``step(actions, rolls)`` with given dice,
  ``to_states`` / ``from_states`` to and from the engine's ``GameState``.
* :class:`~camelup_env.batch.observe.BatchObserver` - the ``camelup_v1`` observation of every
  game from one seat each (odds and action values included), compiled, equal to the
  ``Observer``'s (:mod:`~camelup_env.batch.observe`).
* :mod:`~camelup_env.batch.kernels` - the rules, compiled, and the layout of a game's row;
  :mod:`~camelup_env.batch.arrays` - named views of the rows; :mod:`~camelup_env.batch.convert`
  - the mapping onto ``GameState``.

Each game owns its random stream, so results do not depend on the thread count
(``BatchGames(..., threads=...)``: one by default, the kernels' serial copies). The docs'
"Batch core" page has the layout and the speed.
"""

import os

import numba

# The kernels start a threading layer only on more than one thread (BatchGames' default is one,
# which runs serial copies of the kernels: camelup_env.batch.game_loops). On several threads,
# numba's OpenMP layer keeps its worker threads spinning after every parallel kernel: each
# torch operation of the same process then waits on them (a policy's forward pass 21 times
# slower after one kernel on a busy two-core machine), and the kernels themselves collapse when
# other processes want the cores. The workqueue layer has no spinning threads and serves one
# calling thread at a time, as a BatchGames does anyway (benchmarks/threading_layer.py measures
# each layer on both sides). A layer chosen with NUMBA_THREADING_LAYER is left alone.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"  # type: ignore[attr-defined]

from camelup_env.batch.arrays import BATCH_PRESETS, BatchState
from camelup_env.batch.games import BatchGames, StepResult, random_streams
from camelup_env.batch.observe import BatchObserver

__all__ = [
    "BATCH_PRESETS",
    "BatchGames",
    "BatchObserver",
    "BatchState",
    "StepResult",
    "random_streams",
]
