"""The dice's luck on the batch core (``camelup_env.batch.roll_luck``): the outcomes of a roll
against the engine's chance model (R4.1, R4.3), the leg equity against the reference odds, and
the training option that subtracts the luck (unbiased, narrower)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from camelup_config import ConfigError
from camelup_env.batch import luck_kernels
from camelup_env.batch.convert import from_states
from camelup_env.batch.games import BatchGames, random_streams
from camelup_env.batch.learner import LearnerGames
from camelup_env.batch.roll_luck import ROLL, RollLuck, worth
from camelup_env.game.actions import TakePyramidTile
from camelup_env.game.engine import apply_outcome, chance_outcomes
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.legality import uncovered_tiles
from camelup_env.game.payouts import leg_tile_ev
from camelup_env.game.rules import RuleSet
from camelup_env.odds.leg import expected_landings, leg_rank_probabilities
from camelup_env.odds.win import load_win_model

EPISODE = EpisodeSettings("win", 0.02, None)
RANDOM = agents.make("random")


def _before_rolls(rules: RuleSet, games: int, seed: int) -> list:
    """Engine states of random-play batch games at the moment a pyramid tile is taken."""
    batch = BatchGames(rules, games, seed=seed)
    streams = random_streams(games, np.arange(games) + seed)
    found = []
    for _ in range(60):
        actions = batch.random_actions(streams)
        found += batch.to_states(np.flatnonzero(actions == ROLL))
        batch.step_unchecked(actions, autoreset=True)
    return found[::7]


def _leg_equity(state) -> np.ndarray:
    """The reference: coins plus each seat's leg bets at the exact leg odds, pyramid tiles and
    the arrivals its desert tile expects, from the engine's own odds."""
    out = np.array(state.coins, float)
    if state.game_over:
        return out
    probs = leg_rank_probabilities(state)
    landings = expected_landings(state)
    for seat in range(state.rules.num_players):
        out[seat] += sum(leg_tile_ev(probs, c, v) for c, v in uncovered_tiles(state, seat))
        out[seat] += state.rules.pyramid_tile_value * state.pyramid_tiles[seat]
    for space, (owner, _) in state.tiles.items():
        out[owner] += landings[space]
    return out


def _outcomes(
    rules: RuleSet, states: list, rolled: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """The kernel on ``states``; ``rolled``: the dice rolled (default: each state's first
    outcome, where only ``realised`` reads it)."""
    rows = from_states(states).rows
    m, slots = len(states), luck_kernels.MAX_OUTCOMES
    probability, equity = np.empty((m, slots)), np.zeros((m, slots, rules.num_players))
    ended, realised = np.empty((m, slots), np.bool_), np.empty(m, np.int64)
    if rolled is None:
        rolled = np.zeros((m, 3), np.int64)
        for j, state in enumerate(states):
            roll, _ = chance_outcomes(state, TakePyramidTile())[0]
            rolled[j] = (roll.die, roll.camel_shown, roll.value)
    luck = RollLuck(rules, EPISODE)
    luck_kernels.roll_outcomes.run(
        1,
        rows,
        luck.params,
        rolled,
        *luck.tables,
        np.empty_like(rows),
        probability,
        equity,
        ended,
        realised,
    )
    return probability, equity, ended, realised


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_R4_1_a_rolls_outcomes_are_the_engines_with_their_chances(preset: str) -> None:
    """Every outcome the kernel plays has the engine's probability (R4.1: a die uniformly among
    those left, then a face) and leads to the engine's state: its leg equity equals the one
    computed from that state with the reference odds, and the race ends where it ends."""
    rules = RuleSet(preset, num_players=4)
    states = _before_rolls(rules, 64, seed=3)[:25]
    probability, equity, ended, _ = _outcomes(rules, states)
    for j, state in enumerate(states):
        np.testing.assert_allclose(probability[j].sum(), 1.0)
        by_outcome: dict[int, float] = {}
        for roll, q in chance_outcomes(state, TakePyramidTile()):
            after, _ = apply_outcome(state, TakePyramidTile(), roll)
            matches = [
                o
                for o in np.flatnonzero(probability[j])
                if np.allclose(equity[j, o], _leg_equity(after)) and ended[j, o] == after.game_over
            ]
            assert matches, f"state {j}: no outcome of the kernel matches {roll}"
            by_outcome[roll.die] = by_outcome.get(roll.die, 0.0) + float(q)
        dice = {o // luck_kernels.MAX_FACES for o in np.flatnonzero(probability[j])}
        assert dice == set(by_outcome)
        for die, q in by_outcome.items():
            slots = slice(die * luck_kernels.MAX_FACES, (die + 1) * luck_kernels.MAX_FACES)
            assert probability[j, slots].sum() == pytest.approx(q)


def test_the_realised_outcome_is_the_one_rolled() -> None:
    rules = RuleSet("classic", num_players=3)
    states = _before_rolls(rules, 32, seed=5)[:10]
    luck = RollLuck(rules, EPISODE, max_dice=rules.n_dice)
    batch = BatchGames(rules, len(states))
    batch.state.rows[:] = from_states(states).rows
    actions = np.full(len(states), ROLL)
    kept = luck.before(batch, actions)
    result = batch.step_unchecked(actions)
    assert kept is not None
    probability, equity, _, realised = _outcomes(rules, states, result.rolls)
    assert (probability[np.arange(len(states)), realised] > 0).all()
    for j in range(len(states)):
        after = batch.to_states([j])[0]
        np.testing.assert_allclose(equity[j, realised[j]], _leg_equity(after))
    got = luck.after(kept, result.rolls, len(states))
    w = worth(equity, np.zeros_like(probability, bool), kept.progress[:, None], EPISODE, luck.model)
    expected = np.einsum("jo,jop->jp", probability, w)
    np.testing.assert_allclose(got, w[np.arange(len(states)), realised] - expected)


def test_rolls_with_more_dice_left_are_not_measured() -> None:
    rules = RuleSet("classic", num_players=4)
    batch = BatchGames(rules, 16, seed=1)  # every game at its first roll: five dice left
    actions = np.full(16, ROLL)
    assert RollLuck(rules, EPISODE, max_dice=4).before(batch, actions) is None
    kept = RollLuck(rules, EPISODE, max_dice=5).before(batch, actions)
    assert kept is not None and len(kept.games) == 16


def test_worth_is_the_exact_reward_where_the_race_ended() -> None:
    model = load_win_model(RuleSet("classic", num_players=4))
    equity = np.array([[[20.0, 25.0, 25.0, 10.0]]])
    w = worth(equity, np.array([[True]]), np.array([[1.0]]), EPISODE, model)
    np.testing.assert_allclose(w[0, 0], [-1 / 2, 1 / 2, 1 / 2, -1 / 2] + 0.02 * equity[0, 0])
    blurred = worth(equity, np.array([[False]]), np.array([[0.5]]), EPISODE, model)
    assert blurred[0, 0, 1] == pytest.approx(blurred[0, 0, 2]) and blurred[0, 0, 1] > 0
    for mode in ("rank", "coins"):
        ep = EpisodeSettings(mode, 0.0, None)
        out = worth(equity, np.array([[False]]), np.array([[0.5]]), ep, model)
        assert out[0, 0, 1] > out[0, 0, 0] > out[0, 0, 3]


def _returns(luck_correction: float, games: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """Each game's learner return and its first observations, random learner and opponents."""
    rules = RuleSet("classic", num_players=4)
    learner = LearnerGames(
        rules,
        games,
        lambda: [RANDOM] * 3,
        learner_seat=0,
        reward_mode="win",
        coin_shaping=0.02,
        seed=11,
        autoreset=False,
        luck_correction=luck_correction,
        odds_features=False,
        action_values=False,
    )
    rng = np.random.default_rng(0)
    first = learner.reset()
    total = np.zeros(games)
    while not learner.over.all():
        masks = learner.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, rewards, _, _ = learner.step(actions)
        total += rewards
    return total, first


def test_the_luck_correction_keeps_the_mean_and_narrows_the_returns() -> None:
    """The same games (same deals, dice and moves) with and without the correction: the mean
    return agrees within its interval and the spread is smaller (random players, where every
    coin of a leg bet is luck's)."""
    raw, first_raw = _returns(0.0)
    corrected, first = _returns(1.0)
    np.testing.assert_array_equal(first, first_raw)
    diff = corrected - raw
    assert abs(diff.mean()) < 3 * diff.std() / np.sqrt(len(diff))
    assert corrected.var() < raw.var()


def test_luck_correction_is_checked_before_training() -> None:
    from training.policy.settings import SelfPlaySettings

    with pytest.raises(ConfigError, match="between 0 and 1"):
        SelfPlaySettings(luck_correction=1.5)
    with pytest.raises(ConfigError, match="supercup"):
        SelfPlaySettings(preset="supercup", luck_correction=0.5)
    assert SelfPlaySettings(luck_correction=0.5).luck_correction == 0.5


def test_games_on_the_engine_measure_the_same_luck() -> None:
    """RLlib's learner plays one game on the engine: its rolls are copied into rows and
    measured by the same kernel."""
    rules = RuleSet("classic", num_players=2)
    learner = LearnerGames(
        rules,
        1,
        lambda: [RANDOM],
        learner_seat=0,
        seed=2,
        engine=True,
        luck_correction=1.0,
        odds_features=False,
        action_values=False,
        autoreset=False,
    )
    learner.reset()
    rewards = []
    while not learner.over.all():
        mask = learner.action_masks()[0]
        _, r, _, _ = learner.step(np.array([ROLL if mask[ROLL] else np.flatnonzero(mask)[0]]))
        rewards.append(float(r[0]))
    assert np.isfinite(rewards).all() and any(abs(r) > 1e-9 for r in rewards[:-1])
