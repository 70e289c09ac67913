"""The win-probability model (camelup_env.odds.win), its pile formula and its fitting."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from engine_positions import CLASSIC, pile_scored, position, roll

from agents import shipped
from camelup_env import RuleSet, apply_action, legal_actions, new_game
from camelup_env.game.payouts import pile_evs
from camelup_env.odds.luck import win_shares
from camelup_env.odds.win import (
    COVARIATES,
    SHIPPED,
    WinModel,
    equity,
    equity_parts,
    load_win_model,
    next_captures,
    progress,
)
from training.odds.win_model import Samples, fit, quality, reliability

B, G, OR, W, Y = (CLASSIC[c] for c in ("blue", "green", "orange", "white", "yellow"))


def test_R7_2_pile_evs_at_a_certain_camel_are_the_engines_payouts() -> None:
    """With the pile's camel known (p one-hot), the expected coins of every card are what
    the engine pays at the end of the race, card by card."""
    winner_pile = (*((p, B) for p in range(7)), (7, G))
    loser_pile = ((7, Y), (6, OR), (5, OR), (4, W))
    s = position(
        num_players=8,
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        coins=(20,) * 8,
        winner_pile=winner_pile,
        loser_pile=loser_pile,
        current=7,
    )
    rules = s.rules
    _, events = roll(s, B, 1)
    for pile, cards, target in ((0, winner_pile, B), (1, loser_pile, OR)):
        paid = np.zeros(8)
        for owner, _, delta in pile_scored(events, pile).cards:
            paid[owner] += delta
        certain = np.eye(rules.n_racing)[target]
        np.testing.assert_allclose(pile_evs(cards, certain, rules.race_bet_payouts, 8), paid)


def test_pile_evs_is_linear_in_the_odds() -> None:
    pile = ((0, B), (1, G), (2, B))
    pay = RuleSet("classic").race_bet_payouts
    p = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    expected = np.zeros(3)
    for camel, q in enumerate(p):
        expected += q * pile_evs(pile, np.eye(5)[camel], pay, 3)
    np.testing.assert_allclose(pile_evs(pile, p, pay, 3), expected)


def _states(preset: str, players: int, count: int) -> list:
    rng = np.random.default_rng(5)
    out = []
    while len(out) < count:
        s = new_game(RuleSet(preset, num_players=players), seed=rng)
        for _ in range(int(rng.integers(0, 60))):
            if s.game_over:
                break
            s, _ = apply_action(s, rng.choice(legal_actions(s)), rng)
        if not s.game_over:
            out.append(s)
    return out


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup", "persian_tutorial"])
def test_win_probabilities_sum_to_one_and_rise_with_coins(preset: str) -> None:
    model = WinModel((-1.0, 0.5, 1.0))
    states = _states(preset, 4, 5)
    p = model(states)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p > 0).all()
    for s in states:
        richer = s.copy()
        richer.coins = (s.coins[0] + 3, *s.coins[1:])
        assert model([richer])[0, 0] > model([s])[0, 0]
        assert 0 < progress(s) <= 1
        assert equity(richer)[0] == pytest.approx(equity(s)[0] + 3)


def test_R6_2_next_captures_give_each_seat_its_pick_in_turn_order() -> None:
    """Blue certain to win the leg: the seat to move takes its 5, the next seats its 3 and 2;
    the fourth finds no tile worth more than a pyramid tile's coin and takes the coin."""
    blue, green, orange = CLASSIC["blue"], CLASSIC["green"], CLASSIC["orange"]
    rest = (orange, CLASSIC["yellow"], CLASSIC["white"])
    state = position(stacks={12: (blue,), 1: (green,), 2: rest}, current=2)
    np.testing.assert_allclose(next_captures(state), [2.0, 1.0, 5.0, 3.0])


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_the_luck_covariates_are_equitys_parts_and_the_next_capture(preset: str) -> None:
    """Each state's covariates, less the seats' mean: the two parts of equity (which sum to
    it) and the next capture in tens of coins, then the model's chances with the capture
    counted; a finished game's are its final coins, zeros and its win shares."""
    model = WinModel((-1.0, 0.5, 1.0))
    states = _states(preset, 4, 4)
    u = model.covariates(states)
    assert u.shape == (len(states), len(COVARIATES), 4)
    np.testing.assert_allclose(u.sum(axis=2), 0.0, atol=1e-12)
    for s, row in zip(states, u, strict=True):
        held, race = equity_parts(s)
        np.testing.assert_allclose(held + race, equity(s))
        capture = next_captures(s)
        for got, want in zip(row[:3], (held, race, capture), strict=True):
            np.testing.assert_allclose(got, (want - want.mean()) / 10)
        ahead = model.from_features((equity(s) + capture)[None], np.array([progress(s)]))[0]
        np.testing.assert_allclose(row[3], ahead - 0.25)
    rng = np.random.default_rng(2)
    end = new_game(RuleSet(preset, num_players=4), seed=rng)
    while not end.game_over:
        end, _ = apply_action(end, rng.choice(legal_actions(end)), rng)
    coins = np.array(end.coins, dtype=float)
    np.testing.assert_allclose(model.covariates([end])[0, 0], (coins - coins.mean()) / 10)
    np.testing.assert_allclose(model.covariates([end])[0, 1:3], 0.0)
    np.testing.assert_allclose(model.covariates([end])[0, 3], win_shares(end) - 0.25)


def test_fit_recovers_the_sharpness_that_made_the_data() -> None:
    """Winners drawn from a known model: maximum likelihood finds its coefficients again."""
    truth = WinModel((-1.2, 0.4, 1.5))
    rng = np.random.default_rng(0)
    k, n = 20_000, 4
    eq = rng.normal(0, 6, (k, n))
    x = rng.uniform(0.1, 1.0, k)
    p = truth.from_features(eq, x)
    winner = (rng.random(k)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    shares = np.eye(n)[winner]
    samples = Samples(eq, x, shares, np.ones(k, int), np.full((k, n), 1.0 / n))
    fitted = fit(samples)
    np.testing.assert_allclose(
        fitted.sharpness(np.linspace(0.1, 1, 10)),
        truth.sharpness(np.linspace(0.1, 1, 10)),
        rtol=0.1,
    )
    table = quality(fitted, samples)
    assert table[0]["brier_model"] < table[0]["brier_equal"]


def test_the_reliability_diagram_is_drawn(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    k, n = 2_000, 4
    eq, x = rng.normal(0, 6, (k, n)), rng.uniform(0.1, 1.0, k)
    model = WinModel((-1.2, 0.4, 1.5))
    shares = np.eye(n)[(rng.random(k)[:, None] > model.from_features(eq, x).cumsum(1)).sum(1)]
    samples = Samples(eq, x, shares, np.ones(k, int), np.full((k, n), 1.0 / n))
    path = tmp_path / "reliability.png"
    truth = model.from_features(eq, x)
    curves = reliability(model, samples, path, "synthetic", {"win_network": truth[:, ::-1]})
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
    assert list(curves) == ["win-probability model", "coin leader", "win network"]
    xs, ys = curves["win-probability model"]  # the true chances: on the diagonal
    np.testing.assert_allclose(ys, xs, atol=0.06)
    xs, ys = curves["win network"]  # every seat given another seat's chances: off it
    assert max(abs(a - b) for a, b in zip(xs, ys, strict=True)) > 0.1


def test_shipped_models_load_and_unknown_presets_are_refused(tmp_path: Path) -> None:
    for key in json.loads(SHIPPED.read_text())["models"]:
        preset, players = key.split("/")
        assert isinstance(load_win_model(RuleSet(preset, num_players=int(players))), WinModel)
    with pytest.raises(ValueError, match="no win-probability model for the supercup preset"):
        load_win_model(RuleSet("supercup", num_players=4))
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": {"classic/2": {"beta": ["__import__"]}}}')
    with pytest.raises(ValueError, match="beta must be three numbers"):
        load_win_model(RuleSet("classic", num_players=2), bad)
    bad.write_text("not json")
    with pytest.raises(ValueError, match="not a win-model file"):
        load_win_model(RuleSet("classic", num_players=2), bad)


def test_a_policys_value_head_is_scored_as_a_baseline(capsys) -> None:
    """The luck issue's second baseline: a trained policy's own value head, read as each
    seat's chance to win; a file of another game is one line and exit 2."""
    from training.odds.win_model import main, play_samples, value_head_chances

    held = play_samples(RuleSet("classic", num_players=4), 2, 5, ["greedy", "random"])
    chances = value_head_chances(str(shipped.model_path("classic4")), held)
    assert chances.shape == held.shares.shape
    assert np.all(chances >= 0) and np.allclose(chances.sum(axis=1), 1.0)
    assert len(set(np.round(chances[:, 0], 6))) > 1  # it reads the positions, not a constant
    args = ["--players", "4", "--holdout", "1", "--measure", "--mix", "random"]
    assert main([*args, "--value-head", str(shipped.model_path("classic2"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "was trained for classic with 2 players" in err[0]


def test_R6_2_held_equity_is_what_the_legs_scoring_pays_in_expectation() -> None:
    """At a leg's last die (R6.1) the held part of equity is each seat's coins after the leg is
    scored (R6.2: leg-bet tiles at the leg's ranking, pyramid tiles), in expectation over the
    roll, less the tile the roller takes now; where no seat holds a bet (a deal, a leg's start)
    it is the coins alone, and the leg odds are never needed. Equity leaves out the desert
    tiles' pay and the floor of a seat's coins (R8.1), so the games here have neither."""
    from camelup_env.game.actions import PlaceTile, RaceBet, TakePyramidTile
    from camelup_env.game.engine import apply_outcome, chance_outcomes

    rng = np.random.default_rng(11)
    checked = 0
    while checked < 6:
        s = new_game(RuleSet("classic", num_players=3), seed=rng)
        while not s.game_over and len(s.pyramid) > 1:
            # no race card, no desert tile (whose pay equity leaves out): the leg's pay alone
            moves = [a for a in legal_actions(s) if not isinstance(a, (RaceBet, PlaceTile))]
            s, _ = apply_action(s, moves[rng.integers(len(moves))], rng)
        floor = any(c < len(b) for c, b in zip(s.coins, s.leg_bets, strict=True))  # R8.1
        if s.game_over or not any(s.leg_bets) or floor:
            continue
        held, race = equity_parts(s)
        after = np.zeros(3)
        for outcome, p in chance_outcomes(s, TakePyramidTile()):
            end, _ = apply_outcome(s, TakePyramidTile(), outcome)
            after += float(p) * np.asarray(end.coins, dtype=float)
        after[s.current] -= 1  # the pyramid tile taken now (R4.1), not held before
        np.testing.assert_allclose(held, after)
        np.testing.assert_allclose(race, 0.0)
        checked += 1
    deal = new_game(RuleSet("second_edition", num_players=4), seed=rng)
    held, race = equity_parts(deal)
    np.testing.assert_allclose(held, np.asarray(deal.coins, dtype=float))
    np.testing.assert_allclose(race, 0.0)


def test_the_brier_difference_from_each_baseline_is_paired_and_clustered_by_game() -> None:
    """The quality table's claim "the model beats a baseline at a leg" rests on the difference
    of the two Brier scores on the same positions, with an interval clustered by game: a
    baseline that is the truth's noisy copy loses with an interval below zero, and copies of
    one game's positions do not narrow the interval as new games would."""
    truth = WinModel((-1.2, 0.4, 1.5))
    rng = np.random.default_rng(2)
    k, n = 4_000, 4
    eq, x = rng.normal(0, 6, (k, n)), rng.uniform(0.1, 1.0, k)
    p = truth.from_features(eq, x)
    shares = np.eye(n)[(rng.random(k)[:, None] > p.cumsum(axis=1)).sum(axis=1)]
    noisy = np.clip(p + rng.normal(0, 0.2, p.shape), 0, None)
    noisy /= noisy.sum(axis=1, keepdims=True)
    leaders = np.full((k, n), 1.0 / n)
    samples = Samples(eq, x, shares, np.ones(k, int), leaders, games=np.arange(k))
    row = quality(truth, samples, {"noisy": noisy})[0]
    diff, half = row["brier_model_minus_noisy"], row["brier_model_minus_noisy_half"]
    assert diff == pytest.approx(row["brier_model"] - row["brier_noisy"], abs=2e-4)
    assert diff + half < 0
    copies = Samples(
        np.repeat(eq, 3, 0),
        np.repeat(x, 3),
        np.repeat(shares, 3, 0),
        np.ones(3 * k, int),
        np.repeat(leaders, 3, 0),
        games=np.repeat(np.arange(k), 3),
    )
    again = quality(truth, copies, {"noisy": np.repeat(noisy, 3, 0)})[0]
    assert again["brier_model_minus_noisy_half"] == pytest.approx(half, rel=0.01)
