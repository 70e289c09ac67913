"""Batched observations against the Observer, seat for seat (camelup_env.batch.observe).

Positions come from random play in the batch core (games kept after they end, so finished
races are observed too) and are observed in one batch built with ``BatchGames.from_states``;
every game is observed from every seat and each row is compared with
``Observer(...).observe(state, seat)``: the exact leg odds to 1e-9, everything else to float32
rounding. R10: a seat's batched observation does not change when another seat's race-bet cards
change colour.
"""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pytest

from camelup_env import GameState, RuleSet, stale_cache
from camelup_env.batch import BatchGames, random_streams
from camelup_env.batch import kernels as bk
from camelup_env.batch import luck_kernels as lk
from camelup_env.batch import observation_kernels as ok
from camelup_env.batch.observe import BatchObserver, observe
from camelup_env.observation import ACTION_VALUE_SCALE, Observer, public_view

#: (preset, players): classic 2p/4p, second edition 4p and 6p (partnerships, R9.4).
SETUPS = [("classic", 2), ("classic", 4), ("second_edition", 4), ("second_edition", 6)]
#: Observer flags: the training configs' (configs/train: odds and action values, 64 samples;
#: smoke.yaml: action values without odds), the plain observation, and camelup_v0's.
TRAINING = dict(odds_features=True, race_samples=64, action_values=True)
FLAGS = [
    TRAINING,
    dict(odds_features=False, race_samples=64, action_values=True),
    dict(odds_features=False, action_values=False),
    dict(odds_features=True, action_values=False),
]
#: Slices of exact odds (compared to 1e-9); the rest to float32 rounding.
EXACT = ("leg_rank_prob", "leg_bet_ev", "leg_bet_available")


def random_positions(
    rules: RuleSet, games: int, steps: int, every: int, seed: int
) -> list[GameState]:
    """The states of ``games`` random games of the batch core, every ``every`` steps for
    ``steps`` steps; a game that ends is kept as it ended (observed once more) and replaced."""
    batch = BatchGames(rules, games, seed=seed)
    streams = random_streams(games, seed + 1)
    out: list[GameState] = []
    for step in range(steps):
        if step % every == 0:
            out += batch.to_states()
        result = batch.step(batch.random_actions(streams))
        ended = np.flatnonzero(result.terminated)
        if ended.size:
            out += batch.to_states(ended)
            batch.reset(ended)
    return out


def assert_observations_equal(rules: RuleSet, flags: dict, states: list[GameState]) -> int:
    """Every state from every seat, batched vs Observer; returns the observations compared."""
    batch = BatchObserver(rules, **flags)
    reference = Observer(rules, **flags)
    games = BatchGames.from_states(states)
    n = rules.num_players
    exact = [batch.layout[name] for name in EXACT if name in batch.layout]
    for shift in range(n):
        seats = (np.arange(len(states)) + shift) % n  # each game from a different seat
        got = batch.observe(games, seats)
        want = np.stack([reference.observe(s, int(q)) for s, q in zip(states, seats, strict=True)])
        for a, b in exact:
            np.testing.assert_allclose(got[:, a:b], want[:, a:b], rtol=0, atol=1e-9)
        for name, (a, b) in batch.layout.items():
            np.testing.assert_allclose(
                got[:, a:b],
                want[:, a:b],
                rtol=1e-6,
                atol=1e-7,
                err_msg=f"{rules.preset} {n}p {flags}: {name}",
            )
    return n * len(states)


@pytest.mark.parametrize(("preset", "players"), SETUPS)
def test_batched_observation_equals_observer_training_flags(preset: str, players: int) -> None:
    rules = RuleSet(preset, num_players=players)
    states = random_positions(rules, games=32, steps=600, every=20, seed=players)
    assert len(states) > 900
    assert any(s.game_over for s in states) and any(s.winner_pile for s in states)
    assert assert_observations_equal(rules, TRAINING, states) >= 900 * players


@pytest.mark.parametrize("flags", FLAGS[1:], ids=["no_odds", "plain", "v0"])
@pytest.mark.parametrize(("preset", "players"), [SETUPS[1], SETUPS[3]])
def test_batched_observation_equals_observer_other_flags(
    preset: str, players: int, flags: dict
) -> None:
    rules = RuleSet(preset, num_players=players)
    states = random_positions(rules, games=16, steps=300, every=30, seed=10 + players)
    assert_observations_equal(rules, flags, states)


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_batched_observation_equals_observer_every_player_count(preset: str, players: int) -> None:
    rules = RuleSet(preset, num_players=players)
    states = random_positions(rules, games=4, steps=200, every=25, seed=20 + players)
    assert_observations_equal(rules, TRAINING, states)


def test_batched_race_estimate_with_more_samples_than_the_default_picks() -> None:
    """2,000 samples: the enumeration draws 2,048 leg-end picks instead of 1,024."""
    rules = RuleSet("classic", num_players=3)
    states = random_positions(rules, games=4, steps=60, every=20, seed=5)
    assert_observations_equal(rules, dict(TRAINING, race_samples=2000), states)


def permute_hidden_cards(state: GameState, seat: int, rng: np.random.Generator) -> GameState:
    """``state`` with every other seat's race-bet cards (piles and hand) recoloured by a random
    permutation of the colours per seat: still one card per colour each, a state the seat
    cannot tell from ``state`` (R10)."""
    n_racing = state.rules.n_racing
    perms = [
        list(range(n_racing)) if q == seat else list(rng.permutation(n_racing))
        for q in range(state.rules.num_players)
    ]
    out = state.copy()
    out.winner_pile = tuple((q, perms[q][c]) for q, c in state.winner_pile)
    out.loser_pile = tuple((q, perms[q][c]) for q, c in state.loser_pile)
    out.hands = tuple(
        sum(1 << perms[q][c] for c in range(n_racing) if hand >> c & 1)
        for q, hand in enumerate(state.hands)
    )
    return out


@pytest.mark.parametrize(("preset", "players"), [SETUPS[1], SETUPS[3]])
def test_R10_batched_observation_ignores_other_seats_card_colours(
    preset: str, players: int
) -> None:
    rules = RuleSet(preset, num_players=players)
    states = [
        s
        for s in random_positions(rules, games=16, steps=300, every=10, seed=3)
        if s.winner_pile or s.loser_pile
    ]
    rng = np.random.default_rng(0)
    batch = BatchObserver(rules, **TRAINING)
    reference = Observer(rules, **TRAINING)
    for seat in range(players):
        changed = [permute_hidden_cards(s, seat, rng) for s in states]
        moved = sum(
            a.winner_pile + a.loser_pile != b.winner_pile + b.loser_pile
            for a, b in zip(states, changed, strict=True)
        )
        assert moved > len(states) // 2  # the colours a seat may not see did change
        games, recoloured = BatchGames.from_states(states), BatchGames.from_states(changed)
        np.testing.assert_array_equal(batch.observe(games, seat), batch.observe(recoloured, seat))
        other = (seat + 1) % players  # whose own cards changed: its observation does
        assert not np.array_equal(batch.observe(games, other), batch.observe(recoloured, other))
        for s in states[:20]:  # the reference, too, uses only what the seat may see
            np.testing.assert_array_equal(
                reference.observe(s, seat), reference.observe(public_view(s, seat), seat)
            )


def test_batched_observation_is_deterministic_and_thread_count_free() -> None:
    rules = RuleSet("second_edition", num_players=4)
    games = BatchGames.from_states(random_positions(rules, 8, 80, 20, seed=9))
    batch = BatchObserver(rules, **TRAINING)
    first = batch.observe(games, 1)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = batch.observe(games, 1)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(first, single)
    np.testing.assert_array_equal(first, observe(games, 1, **TRAINING))


def test_batched_observer_memo_is_a_miss_for_another_position_in_the_row() -> None:
    """Rows keep the odds of their last position: observing other games in between, or the
    same games again, gives what a fresh observer gives."""
    rules = RuleSet("classic", num_players=4)
    states = random_positions(rules, 8, 100, 20, seed=4)
    half = len(states) // 2
    first = BatchGames.from_states(states[:half])
    second = BatchGames.from_states(states[half : 2 * half])
    for flags in (TRAINING, FLAGS[3]):
        batch = BatchObserver(rules, **flags)
        before = batch.observe(first, 2)
        np.testing.assert_array_equal(
            batch.observe(second, 2), BatchObserver(rules, **flags).observe(second, 2)
        )
        np.testing.assert_array_equal(batch.observe(first, 2), before)
        np.testing.assert_array_equal(
            batch.observe(first, 3), BatchObserver(rules, **flags).observe(first, 3)
        )


def test_batched_observer_refuses_what_it_cannot_observe() -> None:
    assert ok.ACTION_VALUE_SCALE == ACTION_VALUE_SCALE  # the compiled copy of the constant
    with pytest.raises(ValueError, match="batch core plays"):
        BatchObserver(RuleSet("supercup", num_players=4))
    rules = RuleSet("classic", num_players=4)
    batch = BatchObserver(rules)
    with pytest.raises(ValueError, match="seats"):
        batch.observe(BatchGames(rules, 2), 4)
    with pytest.raises(ValueError, match="other rules"):
        batch.observe(BatchGames(RuleSet("classic", num_players=3), 2), 0)


@pytest.mark.parametrize(
    ("module", "loop", "helper"),
    [
        (ok, ok.observe_games, ok._odds),
        (bk, bk.step_games, bk._setup_game),
        (lk, lk.roll_outcomes, lk._leg_equity),
    ],
    ids=["observation_kernels", "kernels", "luck_kernels"],
)
def test_stale_numba_cache_is_flushed_when_the_baked_in_files_change(
    monkeypatch, module, loop, helper
) -> None:
    flushed = []
    for kernel in stale_cache.dispatchers(module.__name__):
        monkeypatch.setattr(kernel._cache, "flush", lambda v=kernel: flushed.append(v))
    name = Path(module.__file__).stem
    marker = Path(loop.serial._cache.cache_path) / f"{name}.deps"
    marker.write_text("a fingerprint of other files")
    assert module.drop_stale_cache()
    assert loop.serial in flushed and loop.parallel in flushed and helper in flushed
    assert not any(k.py_func.__module__ != module.__name__ for k in flushed)
    assert marker.read_text() == stale_cache.fingerprint(module.DEPENDENCIES)
    assert not module.drop_stale_cache()  # up to date: nothing flushed
