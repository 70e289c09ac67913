"""Property-based tests: random legal play over both presets and 2-8 players keeps every
invariant of docs/rules.md, and the chance API agrees with the sampler."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from engine_positions import SECOND, position
from hypothesis import given, settings
from hypothesis import strategies as st

from camelup_env import (
    DieRoll,
    IllegalActionError,
    RuleSet,
    TakePyramidTile,
    action_table,
    apply_action,
    apply_outcome,
    chance_outcomes,
    check_legal,
    legal_action_indices,
    legal_action_mask,
    new_game,
)
from camelup_env.game.events import (
    DieRevealed,
    FinalBetsScored,
    GameOver,
    LegScored,
    RaceEnded,
    TilePayout,
)

GAMES = settings(max_examples=100, deadline=None, derandomize=True)
presets = st.sampled_from(["classic", "second_edition"])
players = st.integers(min_value=2, max_value=8)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def coin_changes(events, n: int) -> list[int]:
    """Coins each seat should have gained, according to the events (R5.3, R6.2, R7.2)."""
    delta = [0] * n
    for e in events:
        if isinstance(e, TilePayout):
            delta[e.owner] += e.coins
        elif isinstance(e, LegScored):
            for seat, d in enumerate(e.deltas):
                delta[seat] += d
        elif isinstance(e, FinalBetsScored):
            for seat, _, d in e.cards:
                delta[seat] += d
    return delta


def check_step(old, action: int, new, events, leg_dice: int) -> int:
    """Every invariant of one step; returns the number of dice revealed so far this leg."""
    rules = old.rules
    n, L = rules.num_players, rules.track_length
    new.validate()  # camels neither lost nor duplicated, stacks non-empty, coins >= 0
    assert sorted(c for st_ in new.stacks.values() for c in st_) == list(range(rules.n_camels))
    assert min(new.coins) >= 0  # R8.1
    assert [b - a for a, b in zip(old.coins, new.coins, strict=True)] == coin_changes(events, n)
    assert new.current == (old.current + 1) % n  # R3.1
    crossed = any(s > L or s < 1 for s in new.stacks)
    assert new.game_over == crossed  # R5.4, R5.6
    assert isinstance(events[-1], GameOver) == new.game_over
    assert bool([e for e in events if isinstance(e, RaceEnded)]) == new.game_over
    is_roll = action == action_table(rules).pyramid
    if not is_roll:
        assert new.stacks == old.stacks and not new.game_over
        assert not any(isinstance(e, LegScored) for e in events)
        return leg_dice
    leg_dice += 1
    assert leg_dice == len(old.revealed) + 1
    scored = [e for e in events if isinstance(e, LegScored)]
    # R6.1: the leg ends exactly after its 5th pyramid tile (R7.1: or when the race ends).
    assert len(scored) == (1 if leg_dice == rules.pyramid_tiles or new.game_over else 0)
    if scored and not new.game_over:
        assert leg_dice == 5
        assert len(old.pyramid) == rules.n_dice - 4  # second edition: one die stays (6 - 5)
        assert new.leg == old.leg + 1 and new.revealed == () and new.tiles == {}
        assert new.leg_starter == new.current  # R6.3
        return 0
    return leg_dice


def play_checked(preset: str, n: int, seed: int, check_masks: bool = False) -> int:
    rng = np.random.default_rng(seed)
    state = new_game(RuleSet(preset, num_players=n), seed=rng)
    assert set(state.camel_space(c) for c in range(5)) <= {1, 2, 3}  # R2.1
    table = action_table(state.rules)
    leg_dice, steps = 0, 0
    while not state.game_over:
        legal = legal_action_indices(state)
        assert legal and legal == sorted(set(legal))
        if check_masks and steps % 7 == 0:
            mask = legal_action_mask(state)
            for i, action in enumerate(table.actions):
                try:
                    check_legal(state, action)
                    assert mask[i] == 1, action
                except IllegalActionError:
                    assert mask[i] == 0, action
        action = legal[int(rng.random() * len(legal))]
        new, events = apply_action(state, action, rng)
        leg_dice = check_step(state, action, new, events, leg_dice)
        state = new
        steps += 1
        assert steps < 5000
    assert legal_action_indices(state) == []
    return steps


@GAMES
@given(preset=presets, n=players, seed=seeds)
def test_random_legal_play_keeps_invariants_R3_R5_R6_R8(preset: str, n: int, seed: int) -> None:
    play_checked(preset, n, seed)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(preset=presets, n=players, seed=seeds)
def test_legal_mask_agrees_with_check_legal_R4(preset: str, n: int, seed: int) -> None:
    play_checked(preset, n, seed, check_masks=True)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(preset=presets, n=players, seed=seeds, stop=st.integers(min_value=0, max_value=400))
def test_chance_outcomes_are_exact_and_complete_R4_3(preset, n, seed, stop) -> None:
    rng = np.random.default_rng(seed)
    state = new_game(RuleSet(preset, num_players=n), seed=rng)
    for _ in range(stop):
        legal = legal_action_indices(state)
        state, _ = apply_action(state, legal[int(rng.random() * len(legal))], rng)
        if state.game_over:
            return
    if not state.pyramid_tiles_left:
        return
    outcomes = chance_outcomes(state, TakePyramidTile())
    probs = [p for _, p in outcomes]
    assert all(isinstance(p, Fraction) and p > 0 for p in probs)
    assert sum(probs) == 1
    rolls = {(r.die, r.camel_shown, r.value) for r, _ in outcomes}
    expected = {(d, c, v) for d in state.pyramid for c, v in state.rules.dice[d]}
    assert rolls == expected and len(rolls) == len(outcomes)
    for roll, _ in outcomes:  # every listed outcome can be applied
        _, events = apply_outcome(state, TakePyramidTile(), roll)
        assert events[1] == DieRevealed(roll.die, roll.camel_shown, roll.value)


# Sampler frequencies ---------------------------------------------------------------------
def _frequency_check(state, samples: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    counts: Counter[DieRoll] = Counter()
    for _ in range(samples):
        _, events = apply_action(state, TakePyramidTile(), rng)
        d = events[1]
        counts[DieRoll(d.die, d.camel_shown, d.value)] += 1
    outcomes = dict(chance_outcomes(state, TakePyramidTile()))
    assert set(counts) <= set(outcomes)
    chi2 = 0.0
    for roll, p in outcomes.items():
        mean = samples * float(p)
        sd = (samples * float(p) * (1 - float(p))) ** 0.5
        assert abs(counts[roll] - mean) <= 4 * sd, (roll, counts[roll], mean)
        chi2 += (counts[roll] - mean) ** 2 / mean
    dof = len(outcomes) - 1
    # Far beyond the 99.99th percentile for these degrees of freedom (mean dof, sd sqrt(2 dof)).
    assert chi2 < dof + 8 * (2 * dof) ** 0.5, chi2


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_sampler_matches_chance_outcomes_at_leg_start(preset: str) -> None:
    _frequency_check(new_game(RuleSet(preset), seed=11), samples=12_000, seed=2024)


def test_sampler_matches_chance_outcomes_with_grey_die_among_three() -> None:
    sB, sG, sR, sY, sP = (SECOND[c] for c in ("blue", "green", "red", "yellow", "purple"))
    s = position(
        "second_edition",
        stacks={1: (sB, sG), 2: (sR,), 3: (sY, sP), 15: (5,), 16: (6,)},
        pyramid=(1, 3, 5),
        revealed=((0, 0, 1), (2, 2, 1), (4, 4, 2)),
        pyramid_tiles_left=2,
    )
    outcomes = dict(chance_outcomes(s, TakePyramidTile()))
    assert outcomes[DieRoll(1, 1, 2)] == Fraction(1, 9)  # faces 2 and 2 of 1 die in 3
    assert outcomes[DieRoll(5, 5, 3)] == Fraction(1, 18)  # grey: 1 face of 6
    _frequency_check(s, samples=12_000, seed=7)
