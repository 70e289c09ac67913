"""The batch core's API: setup, checks, streams, resets, copies and rewards (camelup_env.batch).

Rule-for-rule equality with the engine is ``tests/test_batch_differential.py``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numba
import numpy as np
import pytest
from engine_positions import CLASSIC, position

from camelup_env import IllegalActionError, RuleSet, action_table
from camelup_env.batch import BatchGames, random_streams
from camelup_env.batch.playout import play_to_end
from camelup_env.game.engine import winners
from camelup_env.game.rewards import REWARD_MODES, final_rewards, final_rewards_batch, win_shares
from camelup_env.game.setup import new_game
from camelup_env.observation import public_view

CLASSIC4 = RuleSet("classic", num_players=4)


def play(games: BatchGames, steps: int, seed: int = 1, **step_args) -> list:
    streams = random_streams(len(games), seed)
    return [games.step(games.random_actions(streams), **step_args) for _ in range(steps)]


def arrays_equal(a: BatchGames, b: BatchGames) -> bool:
    return np.array_equal(a.state.rows, b.state.rows) and np.array_equal(a.state.rng, b.state.rng)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_R2_batch_setup_is_a_valid_start_with_every_stacking_order(preset: str) -> None:
    rules = RuleSet(preset, num_players=5)
    games = BatchGames(rules, 3000, seed=0)
    spaces = Counter()
    bottoms = Counter()
    for state in games.to_states():
        state.validate()
        assert state.leg == 1 and state.current == 0 and not state.revealed
        assert state.coins == (3,) * 5 and state.pyramid == tuple(range(rules.n_dice))
        for space, stack in state.stacks.items():
            racing = [c for c in stack if c < 5]
            assert space in (1, 2, 3) if racing else 14 <= space <= 16  # R2.1, R2.2
            spaces[space] += len(stack)
            bottoms[stack[0]] += 1
    # R2.1: each space 1-3 holds about a third of the racing camels
    assert all(abs(spaces[s] / (5 * 3000) - 1 / 3) < 0.02 for s in (1, 2, 3))
    assert set(bottoms) == set(range(rules.n_camels))  # R11.1: any camel can end up below


def test_batch_first_player_and_reset_with_seeds() -> None:
    games = BatchGames(CLASSIC4, 4, seed=7, first_player=[0, 1, 2, 3])
    assert list(games.current_player) == [0, 1, 2, 3]
    again = BatchGames(CLASSIC4, 4, seed=0)
    again.reset(seed=7, first_player=[0, 1, 2, 3])
    assert arrays_equal(games, again)


def test_batch_refuses_presets_and_sizes_it_cannot_play() -> None:
    with pytest.raises(ValueError, match=r"supercup .*Python engine"):
        BatchGames(RuleSet("supercup", num_players=4), 2)
    with pytest.raises(ValueError, match="at most 61 spaces"):
        BatchGames(RuleSet("classic", track_length=64), 2)
    with pytest.raises(ValueError, match="at least one game"):
        BatchGames(CLASSIC4, 0)
    with pytest.raises(ValueError, match="seeds must be one int or 3 ints"):
        BatchGames(CLASSIC4, 3, seed=[1, 2])


def test_R4_2_batch_illegal_action_names_the_game_and_the_rule() -> None:
    games = BatchGames(CLASSIC4, 4, seed=0)
    camel_space = next(iter(games.to_states([2])[0].stacks))
    actions = games.random_actions(random_streams(4))
    actions[2] = action_table(CLASSIC4).tile_index(camel_space, 1)
    before = games.copy()
    with pytest.raises(IllegalActionError, match=r"game 2: .* holds a camel \(R4.2\)"):
        games.step(actions)
    assert arrays_equal(before, games)  # nothing moved
    with pytest.raises(IllegalActionError, match="game 0: action index 99 is out of range"):
        games.step(np.array([99, 0, 0, 0]))
    with pytest.raises(ValueError, match="actions must be 4 integers"):
        games.step(np.zeros(3, np.int64))


def test_R4_3_batch_refuses_impossible_given_rolls() -> None:
    games = BatchGames(CLASSIC4, 2, seed=0)
    pyramid = np.array([5, 5])
    with pytest.raises(ValueError, match=r"game 1: .*not a possible roll"):
        games.step(pyramid, np.array([[0, 0, 1], [0, 0, 4]]))
    with pytest.raises(ValueError, match=r"game 0: .*has no chance outcome"):
        games.step(np.array([0, 5]), np.array([[0, 0, 1], [-1, -1, -1]]))
    result = games.step(pyramid, np.array([[0, 0, 3], [4, 4, 1]]))
    assert result.rolls.tolist() == [[0, 0, 3], [4, 4, 1]]


@pytest.mark.parametrize(("preset", "players"), [("classic", 3), ("second_edition", 7)])
def test_batch_legality_check_agrees_with_the_mask(preset: str, players: int) -> None:
    """The step's per-action check (``_is_legal``) and the mask (``_legal_row``) are two
    implementations of R4; every index, out-of-range ones too, on many positions (-1, sitting
    the step out, is always accepted)."""
    games = BatchGames(RuleSet(preset, num_players=players), 64, seed=3)
    streams = random_streams(64, 4)
    from camelup_env.batch import kernels

    for _ in range(60):
        mask = games.legal_action_mask()
        codes = np.empty(64, np.int8)
        for a in range(-2, games.num_actions + 1):
            kernels.check_actions(
                games.state.rows, games.params, np.full(64, a), np.full((64, 3), -1), codes
            )
            legal = mask[:, a] == 1 if 0 <= a < games.num_actions else np.full(64, a == -1)
            assert np.array_equal(codes == kernels.OK, legal), a
        games.step(games.random_actions(streams), autoreset=True)


def test_batch_random_actions_are_legal_and_uniform() -> None:
    games = BatchGames(RuleSet("second_edition", num_players=6), 256, seed=8)
    streams = random_streams(256, 2)
    for _ in range(100):
        mask = games.legal_action_mask()
        actions = games.random_actions(streams)
        assert mask[np.arange(256), actions].all()
        games.step(actions, autoreset=True)
    one = BatchGames.from_states(games.to_states([0]) * 20000)
    picks = np.bincount(one.random_actions(random_streams(20000, 5)), minlength=one.num_actions)
    legal = one.legal_action_mask()[0] == 1
    assert not picks[~legal].any()
    expected = 20000 / legal.sum()  # each legal action within 5 standard deviations
    assert np.all(np.abs(picks[legal] - expected) < 5 * np.sqrt(expected))


def test_batch_results_do_not_depend_on_threads_or_batch_size() -> None:
    n = 256
    seeds = np.arange(100, 100 + n)
    runs = []
    for threads in (1, 0):  # the calling thread, all of numba's
        games = BatchGames(CLASSIC4, n, seed=seeds, threads=threads)
        play(games, 150, autoreset=True)
        runs.append(games)
    assert numba.config.NUMBA_NUM_THREADS > 1  # the machine has threads to compare
    assert arrays_equal(*runs)
    alone = BatchGames(CLASSIC4, 1, seed=[seeds[5]])
    streams = random_streams(n, 1)[5:6]
    for _ in range(150):
        alone.step(alone.random_actions(streams), autoreset=True)
    assert arrays_equal(alone, runs[0].take([5]))


def test_batch_autoreset_equals_a_reset_after_the_end() -> None:
    a = BatchGames(CLASSIC4, 32, seed=5)
    b = a.copy()
    streams_a, streams_b = random_streams(32, 9), random_streams(32, 9)
    ended = 0
    for _ in range(600):
        ra = a.step(a.random_actions(streams_a), autoreset=True)
        rb = b.step(b.random_actions(streams_b))
        assert np.array_equal(ra.terminated, rb.terminated)
        assert np.array_equal(ra.final_coins[ra.terminated], b.coins[rb.terminated])
        done = np.flatnonzero(rb.terminated)
        b.reset(done)
        ended += done.size
        assert arrays_equal(a, b)
    assert ended > 32


def test_batch_copy_take_and_states_round_trip() -> None:
    games = BatchGames(RuleSet("second_edition", num_players=6), 24, seed=11)
    play(games, 80, autoreset=True)
    copy = games.copy()
    play(copy, 5)
    assert not arrays_equal(copy, games)  # independent arrays
    back = BatchGames.from_states(games.to_states())
    back.state.rng[:] = games.state.rng  # the streams are not part of a GameState
    assert back.to_states() == games.to_states()
    play(back, 50, autoreset=True)
    play(games, 50, autoreset=True)
    assert back.to_states() == games.to_states()


def test_batch_from_states_refuses_views_and_mixed_rules() -> None:
    state = position(
        stacks={1: (CLASSIC["orange"],), 2: (0, 1, 3, 4)},
        winner_pile=((1, 0),),
        hands=(31, 30, 31, 31),
    )
    with pytest.raises(ValueError, match="hidden race-bet cards"):
        BatchGames.from_states([public_view(state, 0)])
    with pytest.raises(ValueError, match="other rules"):
        BatchGames.from_states([state, position(num_players=3)])
    broken = state.copy()
    broken.leg_stacks = ((3, 2), *state.leg_stacks[1:])
    with pytest.raises(ValueError, match="no seat holds"):
        BatchGames.from_states([broken])


def test_batch_games_sit_out_with_action_minus_one() -> None:
    games = BatchGames(CLASSIC4, 16, seed=4)
    streams = random_streams(16, 6)
    while not games.game_over.all():
        before = games.copy()
        actions = games.random_actions(streams)
        assert (actions[before.game_over] == -1).all()
        result = games.step(actions)
        done = before.game_over
        assert np.array_equal(games.state.rows[done], before.state.rows[done])
        assert not result.rewards[done].any() and not result.terminated[done].any()
    with pytest.raises(IllegalActionError, match=r"game 0: .*race is over \(R7\)"):
        games.step(np.zeros(16, np.int64))
    waiting = BatchGames(CLASSIC4, 4, seed=4)
    before = waiting.copy()
    waiting.step(np.array([-1, 0, -1, 5]))
    assert np.array_equal(waiting.state.rows[[0, 2]], before.state.rows[[0, 2]])
    assert list(waiting.current_player) == [0, 1, 0, 1]


def test_batch_truncation_at_max_turns_has_no_terminal_reward() -> None:
    games = BatchGames(CLASSIC4, 8, seed=2)
    results = play(games, 10, max_turns=10, reward_mode="win")
    assert results[-1].truncated.all() and not results[-1].terminated.any()
    assert not any(r.truncated.any() for r in results[:-1])
    assert (results[-1].final_coins == games.coins).all()
    assert not results[-1].rewards.any()


def _reward_by_definition(coins: list[int], seat: int, mode: str) -> float:
    """camelup_env.game.rewards' definitions, seat by seat, written out plainly (the oracle)."""
    n, mine = len(coins), coins[seat]
    if mode == "win":
        k = coins.count(max(coins))
        return 0.0 if k == n else (1.0 / k if mine == max(coins) else -1.0 / (n - k))
    if mode == "rank":
        ranks = [r for r, c in enumerate(sorted(coins, reverse=True)) if c == mine]
        return sum(1.0 - 2.0 * r / (n - 1) for r in ranks) / len(ranks)
    return (mine - max(c for q, c in enumerate(coins) if q != seat)) / 10.0


@pytest.mark.parametrize("mode", REWARD_MODES)
def test_final_rewards_follow_their_definitions(mode: str) -> None:
    rng = np.random.default_rng(0)
    for players in range(2, 9):
        coins = rng.integers(0, 6, size=(200, players))  # many ties
        coins[0] = 4  # everyone tied
        expected = [
            [_reward_by_definition(list(map(int, row)), q, mode) for q in range(players)]
            for row in coins
        ]
        np.testing.assert_allclose(final_rewards_batch(coins, mode), expected, atol=1e-12)
        assert final_rewards(list(coins[1]), mode) == pytest.approx(expected[1])


def test_an_unknown_reward_mode_is_refused_naming_the_modes() -> None:
    with pytest.raises(ValueError, match="win, rank, coins"):
        final_rewards_batch(np.zeros((1, 2)), "score")


def test_R7_3_batch_win_shares_equal_the_engine_winners() -> None:
    rng = np.random.default_rng(1)
    for players in range(2, 9):
        coins = rng.integers(0, 4, size=(200, players))  # many ties
        expected = np.zeros(coins.shape)
        for g, row in enumerate(coins):
            state = new_game(RuleSet("classic", num_players=players), seed=0)
            state = replace(state, coins=tuple(int(c) for c in row))
            won = winners(state)
            expected[g, list(won)] = 1.0 / len(won)
        np.testing.assert_allclose(win_shares(coins), expected, atol=1e-12)


def test_play_to_end_scores_every_game_once() -> None:
    """Oracle: the loop's final coins are each game's coins at its end, games over on entry
    keep theirs, and ``max_turns`` truncates as :meth:`BatchGames.step` does."""
    games = BatchGames(CLASSIC4, 64, seed=3)
    streams = random_streams(64, 4)
    ended = play_to_end(games, lambda g, idx: g.random_actions(streams, idx)[idx])
    assert games.game_over.all() and np.array_equal(ended, games.coins)
    again = play_to_end(games, lambda g, idx: pytest.fail("no game is left to play"))
    assert np.array_equal(again, ended)
    short = BatchGames(CLASSIC4, 64, seed=3)
    cut = play_to_end(short, lambda g, idx: g.random_actions(streams, idx)[idx], max_turns=5)
    assert (short.state.turns == 5).all() and not short.game_over.any()
    assert np.array_equal(cut, short.coins)
