"""The batch core against the reference engine, state for state (camelup_env.batch).

Random games: both are driven with the same actions and the same dice - on even steps the batch
draws the die and the engine is given it (``apply_outcome``), on odd steps the engine draws it
(``apply_action``) and the batch is given it (``step(actions, rolls)``) - and after every step
every game's state, legal set, reward, die and end are compared. Over 100,000 actions per preset.

Scripted positions: from each rule-edge position (R5.3-R5.6, R6-R8, R9.4), every legal action
and every die outcome it can lead to, one step, compared the same way.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_positions import CLASSIC, GREY, SECOND, position

from camelup_env import (
    DieRoll,
    GameState,
    RuleSet,
    apply_action,
    apply_outcome,
    chance_outcomes,
    legal_action_indices,
)
from camelup_env.batch import BatchGames
from camelup_env.game.events import DieRevealed
from camelup_env.game.rewards import final_rewards

#: (preset, players, games, steps, reward mode): 3 x 64 x 540 > 100,000 actions per preset.
RANDOM_RUNS = [
    ("classic", 2, 64, 540, "win"),
    ("classic", 4, 64, 540, "rank"),
    ("classic", 8, 64, 540, "coins"),
    ("second_edition", 3, 64, 540, "win"),
    ("second_edition", 6, 64, 540, "rank"),  # partnerships (R9.4)
    ("second_edition", 8, 64, 540, "coins"),
]
SHAPING = 0.25
#: Rule sets of the batch presets with every number changed (the batch core reads them all).
CUSTOM = {
    "classic-custom": RuleSet(
        "classic",
        num_players=5,
        track_length=24,
        starting_coins=1,
        racing_die_faces=(1, 2, 3, 4),
        leg_bet_values=(5, 3, 2, 2, 1),
        race_bet_payouts=(8, 5, 3, 2, 1, 1),
        pyramid_tiles=3,
    ),
    "second-custom": RuleSet(
        "second_edition",
        num_players=6,
        track_length=12,
        grey_die_values=(1, 1, 2),
        leg_bet_values=(4, 2),
        race_bet_payouts=(6, 3),
        starting_coins=0,
        partnerships=False,
    ),
}


def pick_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal action per game: the pyramid (index 5) a third of the time when it is legal, so
    races finish and every rule is met often; otherwise uniform."""
    out = np.empty(len(mask), np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        out[i] = 5 if row[5] and rng.random() < 0.35 else legal[rng.integers(len(legal))]
    return out


def expected_rewards(old: GameState, new: GameState, mode: str) -> np.ndarray:
    shaping = SHAPING * (np.array(new.coins) - np.array(old.coins))
    if new.game_over:
        shaping = shaping + np.array(final_rewards(new.coins, mode))
    return shaping


def die_of(events) -> tuple[int, int, int]:
    revealed = [e for e in events if isinstance(e, DieRevealed)]
    return (revealed[0].die, revealed[0].camel_shown, revealed[0].value) if revealed else (-1,) * 3


def assert_same(games: BatchGames, states: list[GameState], where: str) -> None:
    got = games.to_states()
    mask = games.legal_action_mask()
    for i, (mine, ref) in enumerate(zip(got, states, strict=True)):
        assert mine == ref, f"{where}, game {i}:\nbatch  {mine}\nengine {ref}"
        assert list(np.flatnonzero(mask[i])) == legal_action_indices(ref), f"{where}, game {i}"


@pytest.mark.parametrize(("preset", "players", "n", "steps", "mode"), RANDOM_RUNS)
def test_batch_core_equals_engine_over_random_games(
    preset: str, players: int, n: int, steps: int, mode: str
) -> None:
    drive_both(RuleSet(preset, num_players=players), n, steps, mode)


@pytest.mark.parametrize("name", list(CUSTOM))
def test_batch_core_equals_engine_under_custom_rules(name: str) -> None:
    drive_both(CUSTOM[name], 32, 300, "rank")


def drive_both(rules: RuleSet, n: int, steps: int, mode: str) -> None:
    """Random games on the batch core and the engine, compared after every step."""
    preset, players = rules.preset, rules.num_players
    games = BatchGames(rules, n, seed=1000 * players)
    states = games.to_states()
    for state in states:
        state.validate()
    rng = np.random.default_rng(players)
    dice = np.random.default_rng(players + 1)
    ended = 0
    for step in range(steps):
        actions = pick_actions(games.legal_action_mask(), rng)
        engine_draws = step % 2 == 1
        if engine_draws:
            stepped = [apply_action(s, int(a), dice) for s, a in zip(states, actions, strict=True)]
            result = games.step(
                actions,
                np.array([die_of(ev) for _, ev in stepped]),
                reward_mode=mode,
                coin_shaping=SHAPING,
            )
        else:
            result = games.step(actions, reward_mode=mode, coin_shaping=SHAPING)
            stepped = [
                apply_outcome(s, int(a), DieRoll(*map(int, roll)) if roll[0] >= 0 else None)
                for s, a, roll in zip(states, actions, result.rolls, strict=True)
            ]
        where = f"{preset} {players}p step {step}"
        for i, ((new, events), old) in enumerate(zip(stepped, states, strict=True)):
            assert tuple(result.rolls[i]) == die_of(events), f"{where}, game {i}"
            assert result.terminated[i] == new.game_over, f"{where}, game {i}"
            np.testing.assert_allclose(
                result.rewards[i],
                expected_rewards(old, new, mode),
                atol=1e-6,
                err_msg=f"{where}, game {i}",
            )
            if new.game_over:
                assert list(result.final_coins[i]) == list(new.coins)
        states = [new for new, _ in stepped]
        assert_same(games, states, where)
        done = np.flatnonzero(result.terminated)
        if done.size:
            ended += done.size
            games.reset(done)
            for i, state in zip(done, games.to_states(done), strict=True):
                state.validate()
                states[i] = state
    assert games.state.turns.sum() > 0 and ended > n  # every rule of the race's end was met


# Scripted positions at the rule edges ---------------------------------------------------------
B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
sB, sG, sR, sY, sP, BLACK, WHITE = (
    SECOND[c] for c in ("blue", "green", "red", "yellow", "purple", "black", "white")
)


def edge_positions() -> dict[str, GameState]:
    return {
        "E1 carrying": position(stacks={1: (OR,), 2: (Y, B), 3: (G, W)}),
        "E2 mirage underneath, R5.3": position(
            stacks={3: (OR,), 2: (Y, B), 7: (G, W)}, tiles={4: (1, -1)}
        ),
        "R5.3 mirage back under the unit's own stack": position(
            stacks={3: (OR, Y, B), 9: (G, W)}, tiles={4: (2, -1)}
        ),
        "R5.3 oasis on the last space carries over the line (R5.4)": position(
            stacks={15: (Y, B), 14: (OR,), 13: (G, W)},
            tiles={16: (0, 1)},
            winner_pile=((0, B), (1, Y), (2, B)),
            loser_pile=((3, OR), (0, G)),
            hands=(31 - (1 << B) - (1 << G), 31 - (1 << Y), 31 - (1 << B), 31 - (1 << OR)),
            coins=(0, 1, 0, 2),
        ),
        "R6 last pyramid tile, leg bets and floors": position(
            stacks={5: (OR,), 6: (Y, B), 7: (G,), 8: (W,)},
            pyramid=(2,),
            pyramid_tiles_left=1,
            revealed=((0, 0, 1), (1, 1, 2), (3, 3, 3), (4, 4, 1)),
            leg_stacks=((2,), (3, 2), (), (5, 3, 2), (3, 2)),
            leg_bets=(((0, 5), (2, 5)), ((0, 3), (4, 5)), ((2, 3), (1, 5)), ((2, 2),)),
            pyramid_tiles=(1, 2, 0, 1),
            coins=(0, 0, 1, 3),
            tiles={10: (3, -1)},
        ),
        "E5 grey die exception 1": position(
            "second_edition", stacks={14: (WHITE, sR), 15: (BLACK,), 3: (sB, sG, sY, sP)}
        ),
        "E6 grey die exception 2": position(
            "second_edition", stacks={16: (WHITE, BLACK), 2: (sB, sG), 3: (sR, sY, sP)}
        ),
        "R5.5.2 both carry, stacked directly": position(
            "second_edition", stacks={9: (WHITE, BLACK, sR), 3: (sB, sG, sY, sP)}
        ),
        "R5.5.3 both carry, separated": position(
            "second_edition", stacks={9: (WHITE, sR, BLACK, sG), 3: (sB, sY, sP)}
        ),
        "R5.5 tiles push crazy units the other way": position(
            "second_edition",
            stacks={14: (BLACK,), 15: (WHITE,), 4: (sB, sG, sR, sY, sP)},
            tiles={13: (0, 1), 11: (1, -1)},
        ),
        "E7 backward crossing": position(
            "second_edition",
            stacks={2: (BLACK, sY), 16: (WHITE,), 5: (sB, sG, sR, sP)},
            winner_pile=((1, sB),),
            loser_pile=((0, sY), (2, sR)),
        ),
        "R9.4 partners at the leg's end": position(
            "second_edition",
            num_players=6,
            stacks={4: (sB, sG), 5: (sR,), 6: (sY, sP), 14: (BLACK,), 15: (WHITE,)},
            pyramid=(GREY,),
            pyramid_tiles_left=1,
            revealed=((0, 0, 1), (1, 1, 1), (2, 2, 2), (3, 3, 3)),
            leg_stacks=((2, 2), (5, 3, 2, 2), (5, 3, 2, 2), (2,), (3, 2, 2)),
            leg_bets=(((0, 5),), ((3, 5),), ((0, 3),), ((3, 3), (4, 5)), ((3, 2),), ()),
            pyramid_tiles=(1, 1, 0, 1, 1, 0),
            partners=(1, 0, -1, 5, -1, 3),
            coins=(0, 2, 3, 1, 0, 4),
        ),
        "R9.4 partnership cards": position(
            "second_edition", num_players=7, partners=(2, -1, 0, -1, -1, -1, -1)
        ),
        "classic mid-leg": position(
            stacks={3: (B, G), 9: (OR,), 10: (Y, W)},
            tiles={5: (0, 1), 12: (2, -1)},
            leg_stacks=((2,), (5, 3, 2), (3, 2), (5, 3, 2), (3, 2)),
            leg_bets=(((0, 5), (2, 5)), ((0, 3),), ((4, 5),), ()),
        ),
    }


def one_step_everywhere(state: GameState) -> tuple[list[int], list[DieRoll | None]]:
    """Every (legal action, outcome) pair of ``state``."""
    actions, outcomes = [], []
    for a in legal_action_indices(state):
        for outcome, _ in chance_outcomes(state, a):
            actions.append(a)
            outcomes.append(outcome)
    return actions, outcomes


@pytest.mark.parametrize("name", list(edge_positions()))
def test_batch_core_equals_engine_from_rule_edge_positions(name: str) -> None:
    state = edge_positions()[name]
    state.validate()
    actions, outcomes = one_step_everywhere(state)
    games = BatchGames.from_states([state] * len(actions))
    assert games.to_states() == [state] * len(actions)
    rolls = np.array([(o.die, o.camel_shown, o.value) if o else (-1, -1, -1) for o in outcomes])
    result = games.step(np.array(actions), rolls, reward_mode="coins", coin_shaping=SHAPING)
    expected = [apply_outcome(state, a, o) for a, o in zip(actions, outcomes, strict=True)]
    for i, (new, _) in enumerate(expected):
        assert result.terminated[i] == new.game_over, f"{name}: {actions[i]} {outcomes[i]}"
        np.testing.assert_allclose(
            result.rewards[i], expected_rewards(state, new, "coins"), atol=1e-6
        )
    assert_same(games, [new for new, _ in expected], name)
