"""Odds for Supercup: exact leg odds against the engine's brute force with support dice
on the 20-space track (R9.1), race odds following Supercup's leg start (R9.1.1) against Monte
Carlo of the real engine, placement EVs that respect the camera space (R9.2, R4.2), and the
``dice_left`` notation / ``camelup odds --preset supercup``.

The extra action (R9.1.4) is a player's choice, not chance: the odds never take it, and the
engine brute force / Monte Carlo below skip it (``SkipExtra``) whenever it is offered.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from engine_positions import CLASSIC, brute_force, position, random_positions, skip_extra

from camelup_cli.main import main
from camelup_env import (
    GameState,
    RuleSet,
    TakePyramidTile,
    apply_action,
    new_game,
    parse_position,
)
from camelup_env.game.events import LegScored
from camelup_env.game.notation import PositionError
from camelup_env.game.setup import leg_start_pyramid
from camelup_env.odds import leg_rank_probabilities, placement_evs, race_probabilities
from camelup_env.odds.kernels import _race_kernel
from camelup_env.odds.tables import _mask_of, _tables_of

PYRAMID = TakePyramidTile()
B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
SUP = 5


# Exact leg odds --------------------------------------------------------------------------------
@pytest.mark.parametrize("extra", [False, True])
def test_R9_1_leg_odds_match_engine_brute_force_on_random_supercup_positions(extra) -> None:
    """R9.1 (support dice, 20 spaces) with R5.1-R5.4 and R6.1: kernel = engine to 1e-12.
    With the extra action some pyramids hold several support dice (R9.1.4)."""
    rules = RuleSet("supercup", num_players=4, extra_action=extra)
    positions = random_positions(rules, 25, seed=70 + extra)
    several = 0
    for state in positions:
        exact, _ = brute_force(state)
        assert np.abs(leg_rank_probabilities(state) - exact).max() < 1e-12
        several += sum(d >= SUP for d in state.pyramid) > 1
    assert any(any(d >= SUP for d in s.pyramid) for s in positions)
    if extra:
        assert several > 0


def test_R9_1_leg_odds_start_of_a_leg_with_the_last_camels_support_die() -> None:
    """Four reveals left from a hand-built leg: orange (last) has its support die in; a finish on
    the 20-space track is possible (white on 19) and is ranked when it happens (R5.4)."""
    rules = RuleSet("supercup", num_players=4)
    stacks = {15: (OR,), 17: (Y, B), 19: (G, W)}
    s = position(
        rules=rules,
        stacks=stacks,
        pyramid=(B, W, SUP + OR, SUP + G),
        pyramid_tiles_left=4,
        tiles={18: (0, -1)},
    )
    exact, _ = brute_force(s)
    assert np.abs(leg_rank_probabilities(s) - exact).max() < 1e-12
    assert exact[W, 0] > 0 and exact[OR, 4] < 1


def test_R9_1_3_leg_odds_follow_configured_support_die_faces() -> None:
    rules = RuleSet("supercup", num_players=3, support_die_faces=(1, 2, 3, 4, 4, 4))
    s = position(
        rules=rules,
        stacks={1: (OR,), 2: (Y, B), 3: (G, W)},
        pyramid=(B, SUP + OR, SUP + Y),
        pyramid_tiles_left=3,
    )
    exact, _ = brute_force(s)
    assert np.abs(leg_rank_probabilities(s) - exact).max() < 1e-12


# Placement EVs and the camera ------------------------------------------------------------------
def test_R9_2_placement_evs_skip_the_camera_space_and_match_brute_force() -> None:
    """R4.2 / R9.2: no desert tile on the camera space. placement_evs asks the engine for the
    legal placements, so space 6 (the camera) is missing; values equal the brute force."""
    rules = RuleSet("supercup", num_players=4, extra_action=True)
    s = position(
        rules=rules,
        stacks={1: (OR,), 2: (Y, B), 3: (G, W)},
        pyramid=(B, G, SUP + OR),
        pyramid_tiles_left=3,
        photographer=(1, 6),
    )
    evs = placement_evs(s, 2)
    assert (6, 1) not in evs and (6, -1) not in evs and (5, 1) in evs and (7, -1) in evs
    for space, side in ((4, 1), (5, -1), (7, 1)):
        probe = s.copy()
        probe.tiles = {space: (2, side)}
        _, paid = brute_force(probe, seat=2)
        assert evs[(space, side)] == pytest.approx(paid, abs=1e-12)
    pending = s.copy()  # the seat is deciding its extra action: same placements
    pending.extra_pending = True
    pending.pyramid_tiles = (0, 0, 1, 0)
    pending.current = 2
    assert placement_evs(pending, 2) == evs


# Race odds -------------------------------------------------------------------------------------
RACE_POSITIONS = {
    # one reveal left in this leg, so the next leg (with the then-last camel's support die)
    # decides most races: camels 13-17 on the 20-space track
    "next_leg": ("13:orange;15:yellow,blue;17:green,white", "blue", "16:-1"),
    # mid-leg, two to three more legs
    "two_legs": ("8:orange;10:yellow;11:blue;12:green,white", "green,yellow,white,orange+", None),
}


def engine_races(state: GameState, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo with the real engine: only pyramid tiles, the extra action always skipped."""
    rng = np.random.default_rng(seed)
    wins = np.zeros(5)
    lasts = np.zeros(5)
    for _ in range(n):
        s = state
        while not s.game_over:
            s, events = apply_action(skip_extra(s), PYRAMID, rng)
        order = next(e for e in events if isinstance(e, LegScored)).ranking
        wins[order[0]] += 1
        lasts[order[-1]] += 1
    return wins / n, lasts / n


@pytest.mark.parametrize("name", sorted(RACE_POSITIONS))
def test_R9_1_1_race_odds_agree_with_engine_monte_carlo(name) -> None:
    """race_probabilities (20,000 rollouts) and 2,000 engine races agree within 4 combined SE;
    the engine starts every leg with leg_start_pyramid (R9.1.1), and so must the kernel."""
    track, dice, tiles = RACE_POSITIONS[name]
    state = parse_position("supercup", track, dice, tiles)
    odds = race_probabilities(state, 20_000, seed=5)
    n = 2000
    wins, lasts = engine_races(state, n, seed=9)
    for est, mc in ((odds.winner, wins), (odds.loser, lasts)):
        p = np.clip(est, 1e-3, 1 - 1e-3)
        se = np.sqrt(p * (1 - p) / n + p * (1 - p) / odds.n_samples)
        assert np.all(np.abs(est - mc) <= 4 * se), (est - mc) / se


def test_R9_1_1_race_odds_would_differ_with_every_die_in_the_next_legs_pyramid() -> None:
    """The check above has teeth: rolling later legs with all 10 dice (the pre-Supercup kernel
    behaviour) moves the estimate far outside 4 SE of the correct one."""
    state = parse_position("supercup", *RACE_POSITIONS["next_leg"])
    rules = state.rules
    good = race_probabilities(state, 20_000, seed=5)
    t = _tables_of(rules)
    from camelup_env.odds.tables import _position, _pyramid_mask

    board, side, _ = _position(state)
    wins, _, _, _, _ = _race_kernel(
        np.array([board], np.int64),
        _pyramid_mask(state),
        state.pyramid_tiles_left,
        np.array(side, np.int64),
        t.raw_camel,
        t.raw_value,
        t.raw_n,
        5,
        rules.track_length,
        rules.pyramid_tiles,
        20_000,
        5,
        10_000,
        _mask_of(range(rules.n_dice)),
        -1,
    )
    bad = wins / 20_000
    se = np.sqrt(good.winner * (1 - good.winner) * 2 / 20_000)
    assert np.max(np.abs(bad - good.winner) / np.maximum(se, 1e-3)) > 4


def test_R9_1_race_odds_of_a_new_game_are_symmetric_enough() -> None:
    """At the start every racing camel can win; the sums are 1 (sanity on the 20 track)."""
    state = new_game(RuleSet("supercup", num_players=5), seed=4)
    odds = race_probabilities(state, 4000, seed=1)
    assert odds.winner.sum() == pytest.approx(1) and odds.loser.sum() == pytest.approx(1)
    assert np.all(odds.winner > 0.02)


# Notation and CLI ------------------------------------------------------------------------------
def test_supercup_position_notation_support_dice() -> None:
    s = parse_position("supercup", "1:orange;2:yellow,blue;3:green,white")
    assert s.rules.track_length == 20 and s.rules.support_dice
    assert s.pyramid == leg_start_pyramid(s.rules, s.stacks) == (0, 1, 2, 3, 4, SUP + OR)
    assert s.pyramid_tiles_left == 6
    s = parse_position("supercup", "1:orange;2:yellow,blue;3:green,white", "blue,Yellow+")
    assert s.pyramid == (B, SUP + Y) and s.pyramid_tiles_left == 2 and not s.rules.extra_action
    s = parse_position(
        "supercup", "1:orange;2:yellow,blue;3:green,white", ["white support", "orange+", "green"]
    )
    assert s.pyramid == (G, SUP + OR, SUP + W) and s.rules.extra_action  # only R9.1.4 adds
    assert s.pyramid_tiles_left == 3
    s.validate()
    for bad, msg in (
        ("blue+,blue+", "duplicate die"),
        ("grey", "unknown die 'grey'"),
        ("pink+", r"unknown die 'pink\+'.*blue\+"),
    ):
        with pytest.raises(PositionError, match=msg):
            parse_position("supercup", "1:orange;2:yellow,blue;3:green,white", bad)
    with pytest.raises(PositionError, match=r"the track is 1\.\.20"):
        parse_position("supercup", "21:orange;2:yellow,blue;3:green,white")
    with pytest.raises(PositionError, match="unknown die 'blue\\+'"):
        parse_position("classic", "1:orange;2:yellow,blue;3:green,white", "blue+")


def test_camelup_odds_cli_supercup_json(capsys) -> None:
    track = "1:orange;2:yellow,blue;18:green,white"
    args = [
        "odds",
        "--preset",
        "supercup",
        "--track",
        track,
        "--dice-left",
        "blue,green,orange+",
        "--race-samples",
        "300",
        "--players",
        "10",
        "--json",
    ]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    state = parse_position("supercup", track, "blue,green,orange+", num_players=10)
    exact = leg_rank_probabilities(state)
    for c, name in enumerate(state.rules.racing_colours):
        assert doc["leg"][name] == pytest.approx(list(exact[c]), abs=1e-15)
    assert doc["race_samples"] == 300


def test_camelup_odds_cli_supercup_table_and_errors(capsys) -> None:
    args = [
        "odds",
        "--preset",
        "supercup",
        "--track",
        "1:orange;2:yellow,blue;3:green,white",
        "--race-samples",
        "200",
    ]
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich may wrap the title
    assert "6 reveals left; dice: blue, green, orange, yellow, white, orange+)" in out
    assert main([*args, "--dice-left", "red+"]) == 2
    assert "unknown die 'red+'" in capsys.readouterr().err
    assert main([*args, "--players", "11"]) == 2
    assert "2 to 10 players" in capsys.readouterr().err


# expected_landings and expected_photo_coins: the same exact enumeration ------------------------
def _engine_photo_coins(state: GameState, seat: int) -> float:
    """The engine's expected photo payouts to ``seat`` over the rest of the leg (R9.2)."""
    from fractions import Fraction

    from camelup_env import apply_outcome, chance_outcomes
    from camelup_env.game.events import PhotoPayout

    total = Fraction(0)

    def recurse(s: GameState, weight: Fraction) -> None:
        nonlocal total
        for roll, p in chance_outcomes(s, PYRAMID):
            new, events = apply_outcome(s, PYRAMID, roll)
            total += (
                weight
                * p
                * sum(e.coins for e in events if isinstance(e, PhotoPayout) and e.owner == seat)
            )
            if not any(isinstance(e, LegScored) for e in events):
                recurse(skip_extra(new), weight * p)

    recurse(skip_extra(state), Fraction(1))
    return float(total)


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup"])
def test_R5_3_expected_landings_on_a_tile_space_are_its_exact_payouts(preset) -> None:
    """R5.3, R5.5: a unit arriving on a tile pays its owner, so on every tile space the expected
    arrivals equal the engine's expected payouts of that tile, exactly (both tile sides)."""
    from camelup_env.odds import expected_landings

    checked = 0
    for state in random_positions(RuleSet(preset, num_players=4), 6, seed=4, reveals=(2, 3)):
        arrivals = expected_landings(state)
        for space, (owner, _) in state.tiles.items():
            assert arrivals[space] == pytest.approx(brute_force(state, owner)[1], abs=1e-12)
            checked += 1
    assert checked >= 6


def test_R9_2_expected_photo_coins_match_the_engine_exactly() -> None:
    """R9.2: the camera's expected coins from the leg enumeration equal the engine's photo
    payouts, summed over every die sequence, for a camera held by seat 0 on each empty space."""
    from camelup_env.odds import expected_photo_coins

    checked = 0
    for state in random_positions(RuleSet("supercup", num_players=4), 4, seed=16, reveals=(2, 3)):
        empty = [
            s
            for s in range(1, state.rules.track_length + 1)
            if s not in state.stacks and s not in state.tiles
        ]
        coins = expected_photo_coins(state, empty)
        for space in empty[::3]:
            held = state.copy()
            held.photographer = (0, space)
            assert coins[space] == pytest.approx(_engine_photo_coins(held, 0), abs=1e-12)
            checked += 1
    assert checked >= 8
