"""The interval formulas of :mod:`tournament.ratings`: the clustered mean and the win share."""

from __future__ import annotations

import math
import statistics

import pytest

from tournament.ratings import TOO_FEW_SEEDS, bracket, mean_ci, plus_minus, share_interval

VALUES = [0.0, 1.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 1.0, 0.25, 0.0]


def test_independent_values_use_the_sample_variance():
    mean, half = mean_ci(VALUES)
    assert mean == pytest.approx(statistics.fmean(VALUES))
    assert half == pytest.approx(1.96 * statistics.stdev(VALUES) / math.sqrt(len(VALUES)))


def test_singleton_groups_are_the_independent_case():
    assert mean_ci(VALUES, list(range(len(VALUES)))) == pytest.approx(mean_ci(VALUES))


def test_copies_of_one_result_do_not_narrow_the_clustered_interval():
    """Four games that always end alike carry the information of one: clustered by group, the
    interval is that of the group results; counted as independent it would shrink by half."""
    copies = [v for v in VALUES for _ in range(4)]
    groups = [g for g in range(len(VALUES)) for _ in range(4)]
    assert mean_ci(copies, groups) == pytest.approx(mean_ci(VALUES))
    assert mean_ci(copies)[1] == pytest.approx(mean_ci(VALUES)[1] / 2, rel=0.1)


def test_groups_that_share_one_win_have_no_spread():
    """One win in every group of four rotations (the dice decide, whoever sits where): each
    group scores exactly 1/4, so the clustered interval is zero-width."""
    values = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    groups = [i // 4 for i in range(len(values))]
    mean, half = mean_ci(values, groups)
    assert mean == pytest.approx(0.25)
    assert half == pytest.approx(0.0)
    assert mean_ci(values)[1] > 0.2


def test_undefined_intervals_are_nan():
    assert all(math.isnan(x) for x in mean_ci([]))
    assert math.isnan(mean_ci([1.0])[1])
    assert math.isnan(mean_ci([1.0, 0.0], [7, 7])[1])  # one group: no spread to measure


# The win share's interval (share_interval): Wilson's at the clustered effective sample size.
def test_a_share_interval_without_clusters_is_wilsons():
    shares = [1.0] * 30 + [0.0] * 70
    mean, low, high = share_interval(shares)
    assert mean == pytest.approx(0.3)
    # Wilson's score interval of 30 wins in 100 games, z = 1.96
    assert (low, high) == pytest.approx((0.2189, 0.3958), abs=1e-4)


def test_no_win_gives_an_interval_above_zero_not_a_point():
    shares = [0.0] * 40
    groups = [g // 4 for g in range(40)]  # ten seeds of four rotations
    mean, low, high = share_interval(shares, groups)
    assert mean == low == 0.0 and high > 0.0
    # nothing measures how alike a seed's games are: each seed counts as one game
    assert high == pytest.approx(1.96**2 / (10 + 1.96**2))


def test_all_wins_give_an_interval_below_one_not_a_point():
    mean, low, high = share_interval([1.0] * 40, [g // 4 for g in range(40)])
    assert mean == high == 1.0 and 0.0 < low < 1.0


def test_share_intervals_stay_inside_zero_and_one():
    """A rare win: the normal interval would reach below 0 (as a training run's eval.csv did)."""
    shares = [1.0] + [0.0] * 19
    groups = [g // 2 for g in range(20)]
    mean, half = mean_ci(shares, groups)
    assert mean - half < 0.0
    _, low, high = share_interval(shares, groups)
    assert 0.0 <= low < 0.05 < high <= 1.0


def test_one_seed_is_too_few_seeds_not_nan():
    mean, low, high = share_interval([1.0, 0.0, 0.0, 0.0], [5, 5, 5, 5])
    assert mean == 0.25 and math.isnan(low) and math.isnan(high)
    assert bracket(low, high) == f"({TOO_FEW_SEEDS})" == plus_minus(math.nan)
    assert bracket(0.1, 0.25) == "[0.100, 0.250]" and plus_minus(0.5) == "± 0.50"
