"""odds.position_odds: one enumeration per position shared by the observation and greedy, and
the race estimate's documented error bound against a high-sample reference (R7.2)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from agents.greedy import GreedyAgent
from camelup_env import RuleSet, legal_action_indices, odds, parse_position
from camelup_env.game.sampling import random_positions
from camelup_env.observation import Observer, public_view


def positions(preset: str, n: int, seed: int = 0) -> list:
    """Positions of seeded random 4-player games, every phase of the race."""
    return random_positions(RuleSet(preset, num_players=4), n, seed)


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup", "persian_tutorial"])
def test_R7_2_race_estimate_error_is_within_the_documented_bound(preset: str) -> None:
    """The bound of the odds module docstring: with N samples the root-mean-square error of an
    entry is at most 0.5 / sqrt(N) and no entry is off by more than 2 / sqrt(N) (4 times that),
    measured against plain Monte Carlo with 20,000 rollouts (whose own error is allowed for)."""
    n, ref_n = odds.RACE_SAMPLES, 20_000
    errors, allowance = [], []
    for s in positions(preset, 25):
        est = odds.position_odds(s, n).race
        ref = odds.race_probabilities(s, ref_n, seed=99)
        errors += [*(est.winner - ref.winner), *(est.loser - ref.loser)]
        allowance += [*ref.winner_se, *ref.loser_se]
    errors, allowance = np.abs(errors), 4 * np.array(allowance)
    assert np.sqrt(np.mean(errors**2)) <= 0.5 / np.sqrt(n) + allowance.mean()
    assert np.all(errors <= 2 / np.sqrt(n) + allowance)


def test_R5_4_race_estimate_is_exact_when_the_race_ends_this_leg() -> None:
    """A camel on 16 crosses when its die is revealed and every die is revealed this leg: the
    estimate is the exact leg odds (first = winner, last = loser), whatever the samples."""
    state = parse_position("classic", "12:orange;13:yellow,blue;15:green;16:white", tiles="14:+1")
    exact = odds.leg_rank_probabilities(state)
    for n in (1, 16, 64):
        race = odds.position_odds(state, n).race
        assert race.winner == pytest.approx(exact[:, 0], abs=1e-12)
        assert race.loser == pytest.approx(exact[:, 4], abs=1e-12)


def test_position_odds_agree_with_the_single_functions_and_do_not_depend_on_history() -> None:
    for s in positions("classic", 6, seed=1):
        odds.clear_cache()
        small = odds.position_odds(s, 64)
        assert np.array_equal(small.leg, odds.leg_rank_probabilities(s))
        assert np.array_equal(small.landings, odds.expected_landings(s))
        assert small.race.winner.sum() == pytest.approx(1) and small.race.n_samples == 64
        odds.clear_cache()
        large = odds.position_odds(s, 1000)  # the 64-sample estimate reads its first rollouts
        again = odds.position_odds(s, 64)
        assert np.array_equal(again.race.winner, small.race.winner)
        assert np.array_equal(again.race.loser, small.race.loser)
        assert large.race.n_samples == 1000


def test_greedy_and_the_observation_share_one_computation_per_position(monkeypatch) -> None:
    """A greedy opponent (1,000 samples) and a learner's observation (the default 64) of the
    same position: one leg enumeration and one rollout run between them."""
    calls = {"leg": 0, "race": 0}
    leg_kernel, race_kernel = odds.kernels._leg_kernel, odds.kernels._race_kernel

    def count_leg(*args):
        calls["leg"] += 1
        return leg_kernel(*args)

    def count_race(*args):
        calls["race"] += 1
        return race_kernel(*args)

    monkeypatch.setattr(odds.leg, "_leg_kernel", count_leg)  # its one caller: _leg_kernel_on
    for module in (odds.race, odds.position_estimate):
        monkeypatch.setattr(module, "_race_kernel", count_race)
    rules = RuleSet("classic", num_players=4)
    observer, greedy = Observer(rules), GreedyAgent(tile_odds="approx")
    checked = 0
    for played in positions("classic", 6, seed=2):
        # The seat's own tile lifted: else its tile values need the track without that tile,
        # which is a second position.
        s = replace(
            played, tiles={sp: t for sp, t in played.tiles.items() if t[0] != played.current}
        )
        odds.clear_cache()
        calls.update(leg=0, race=0)
        greedy.action_values(public_view(s, s.current), legal_action_indices(s))
        observer.observe(s, s.current)
        assert calls == {"leg": 1, "race": 1}
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup"])
def test_R7_2_leg_scenarios_are_the_estimates_samples_row_by_row(preset: str) -> None:
    """Each row is one joint outcome: a ranking of the racing camels with the race's winner and
    loser; counted, the rows give the race estimate and the exact leg odds up to the sampling
    (the estimate counts the same rollouts; only the race's end inside the leg is exact there
    and sampled here)."""
    n = 1000
    for s in positions(preset, 12, seed=4):
        sc = odds.leg_scenarios(s, n)
        shared = odds.position_odds(s, n)
        R = s.rules.n_racing
        assert sc is not None and sc.ranks.shape == (n, R)
        assert np.all(np.sort(sc.ranks, axis=1) == np.arange(R))
        freq = np.stack([np.bincount(sc.winner, minlength=R), np.bincount(sc.loser, minlength=R)])
        race = np.stack([shared.race.winner, shared.race.loser])
        assert np.abs(freq / n - race).max() <= 0.05
        ranks = np.stack([(sc.ranks == r).mean(axis=0) for r in range(R)], axis=1)
        assert np.abs(ranks - shared.leg).max() <= 0.05
    assert odds.leg_scenarios(positions("persian_tutorial", 1)[0], n) is None


def test_leg_scenarios_are_cached_as_computed() -> None:
    """A position asked again gets the same read-only rows, equal to a fresh computation's
    (the cache a deal of each outcome reads, :class:`agents.afterstate.StandingValue`); a
    different sample count gets its own rows."""
    s = positions("classic", 3, seed=5)[-1]
    first = odds.leg_scenarios(s, 256)
    assert first is not None and odds.leg_scenarios(s, 256) is first
    assert not first.ranks.flags.writeable
    odds.clear_cache()
    fresh = odds.leg_scenarios(s, 256)
    assert fresh is not None and fresh is not first
    for name in ("ranks", "winner", "loser", "lead"):
        np.testing.assert_array_equal(getattr(first, name), getattr(fresh, name))
    more = odds.leg_scenarios(s, 512)
    assert more is not None and len(more.winner) == 512
