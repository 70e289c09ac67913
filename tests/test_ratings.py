"""The interval formula of :func:`tournament.ratings.mean_ci`, independent and clustered."""

from __future__ import annotations

import math
import statistics

import pytest

from tournament.ratings import mean_ci

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
