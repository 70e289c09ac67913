"""Every odds kernel compiled before a clock starts: :func:`warm_up`.

numba compiles a kernel at its first call for each set of argument types, or loads it from its
disk cache (``cache=True``, written by ``python -m camelup_cli.compile_kernels`` at install).
A cold compile costs seconds per kernel, minutes on a busy machine: inside a timed move it
forfeits the game. An agent whose moves are timed (a tournament bot) calls :func:`warm_up` from
its ``warmup``, which tournaments do not time.

Each odds function is called here as its callers call it, once per call site of a kernel: a
kernel compiled at one call site may still compile again at another that passes other argument
types (``tests/test_compile_kernels.py`` plays whole games after the warm-up and checks that
nothing compiles). The answers are the true odds of ``state``, kept in the caches as usual.
"""

from __future__ import annotations

from camelup_env.game.state import GameState
from camelup_env.odds import race_exact
from camelup_env.odds.leg import expected_photo_coins, leg_rank_probabilities, placement_odds
from camelup_env.odds.position_estimate import RACE_SAMPLES, position_odds
from camelup_env.odds.race import race_probabilities


def warm_up(state: GameState) -> None:
    """Call every odds kernel on ``state``, a position with reveals left (a new game's): the
    plain leg enumeration, the sampled one behind :func:`position_odds` and its rollouts, the
    enumeration with a camera (Supercup), the placements' enumeration, the plain race
    rollouts and the exact race odds' kernels. Calls that find their answer cached are cheap;
    the order makes each kernel's call site miss at least once on a fresh position."""
    leg_rank_probabilities(state)
    position_odds(state, RACE_SAMPLES)
    race_probabilities(state, 16, seed=0)
    placement_odds(state, state.current)
    race_exact.warm_up(state)
    ahead = max(state.stacks) + 1
    if ahead <= state.rules.track_length:
        expected_photo_coins(state, [ahead])
