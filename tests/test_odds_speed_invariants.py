"""The speed-ups of the odds kernels changed no result.

``race_probabilities`` draws one uniform number per reveal from numba's generator seeded with
``seed`` (die = ``int(x * k)``-th of the ``k`` dice left in ascending order, face from the
fractional part); a faster kernel must keep that scheme, so the counts below, recorded before
the kernels were optimised, must not move. The exact leg odds are checked against the engine
in ``tests/test_odds.py``.
"""

from __future__ import annotations

import numpy as np

from camelup_env import RuleSet, new_game
from camelup_env.odds import clear_cache, race_probabilities


def test_race_counts_unchanged_for_a_seed():
    clear_cache()
    classic = race_probabilities(new_game(RuleSet("classic"), seed=1), 1000, seed=5)
    np.testing.assert_array_equal(classic.winner * 1000, [177, 219, 212, 212, 180])
    np.testing.assert_array_equal(classic.loser * 1000, [226, 152, 167, 185, 270])
    second = race_probabilities(new_game(RuleSet("second_edition"), seed=1), 1000, seed=5)
    np.testing.assert_array_equal(second.winner * 1000, [179, 203, 234, 202, 182])
    np.testing.assert_array_equal(second.loser * 1000, [236, 180, 117, 172, 295])
