"""Helpers shared by the engine tests: exact positions and chosen die rolls (docs/rules.md R13).

Positions are built from ``new_game`` and then overwritten field by field on a copy, so every
test states exactly which camels, tiles and bets are on the table.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from camelup_env import (
    DieRoll,
    GameState,
    PlaceTile,
    RuleSet,
    SkipExtra,
    TakePyramidTile,
    apply_action,
    apply_outcome,
    chance_outcomes,
    legal_actions,
    new_game,
)
from camelup_env.game.events import Event, LegScored, TilePayout

#: Camel indices by colour name, per preset (R1.3).
CLASSIC = {name: i for i, name in enumerate(RuleSet("classic").colours)}
SECOND = {name: i for i, name in enumerate(RuleSet("second_edition").colours)}
#: Index of the grey die in the second edition (after the 5 racing dice).
GREY = 5


def position(
    preset: str = "classic",
    num_players: int = 4,
    stacks: dict[int, tuple[int, ...]] | None = None,
    rules: RuleSet | None = None,
    **fields: object,
) -> GameState:
    """A game under ``preset`` (or exactly ``rules``) with the given stacks and any other fields
    replaced."""
    if rules is None:
        rules = RuleSet(preset, num_players=num_players)
    state = new_game(rules, seed=0).copy()
    if stacks is not None:
        state.stacks = {space: tuple(stack) for space, stack in stacks.items()}
    for name, value in fields.items():
        setattr(state, name, value)
    state.validate()
    return state


def roll(
    state: GameState, die: int, value: int, shown: int | None = None
) -> tuple[GameState, tuple[Event, ...]]:
    """Take a pyramid tile with a chosen outcome: ``die`` shows ``value`` (and ``shown``)."""
    camel = die if shown is None else shown
    return apply_outcome(state, TakePyramidTile(), DieRoll(die, camel, value))


def of_type(events: tuple[Event, ...], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def pile_scored(events: tuple[Event, ...], pile: int):
    """The FinalBetsScored event of one race-bet pile (0 winner, 1 loser)."""
    from camelup_env.game.events import FinalBetsScored

    return next(e for e in events if isinstance(e, FinalBetsScored) and e.pile == pile)


def fuzz_games(preset: str, first_seed: int, games: int) -> int:
    """Play ``games`` random full games (2-8 players in turn); return the actions taken.

    Every game must end (R5.4/R5.6) with a valid state, coins >= 0 (R8.1) and a JSON round trip.
    """
    import numpy as np

    from camelup_env import apply_action, legal_action_indices

    total = 0
    for seed in range(first_seed, first_seed + games):
        rng = np.random.default_rng(seed)
        state = new_game(RuleSet(preset, num_players=2 + seed % 7), seed=rng)
        steps = 0
        while not state.game_over:
            legal = legal_action_indices(state)
            state, _ = apply_action(state, legal[int(rng.random() * len(legal))], rng)
            steps += 1
            if steps > 5000:
                raise AssertionError(f"{preset} seed {seed}: no end after {steps} actions")
        state.validate()
        assert min(state.coins) >= 0
        assert any(s > state.rules.track_length or s < 1 for s in state.stacks)
        assert GameState.from_json(state.to_json()) == state, f"{preset} seed {seed}"
        total += steps
    return total


def skip_extra(state: GameState) -> GameState:
    """Decline the Supercup extra action (R9.1.4) if it is pending; odds never take it."""
    return apply_outcome(state, SkipExtra(), None)[0] if state.extra_pending else state


def brute_force(state: GameState, seat: int | None = None) -> tuple[np.ndarray, float]:
    """The exact rest of the leg through the engine: ``[camel][rank]`` probabilities (summed as
    Fractions) and the expected tile payouts to ``seat`` - the reference for the odds kernels."""
    pyramid = TakePyramidTile()
    n = state.rules.n_racing
    probs = [[Fraction(0)] * n for _ in range(n)]
    paid = [Fraction(0)]

    def recurse(s: GameState, weight: Fraction) -> None:
        for roll, p in chance_outcomes(s, pyramid):
            new, events = apply_outcome(s, pyramid, roll)
            w = weight * p
            paid[0] += sum(
                w * e.coins for e in events if isinstance(e, TilePayout) and e.owner == seat
            )
            scored = [e for e in events if isinstance(e, LegScored)]
            if scored:  # R6.1 / R9.1.5 leg end, or R7.1 final scoring at a race end
                for rank, camel in enumerate(scored[0].ranking):
                    probs[camel][rank] += w
            else:
                recurse(skip_extra(new), w)

    recurse(skip_extra(state), Fraction(1))
    return np.array([[float(x) for x in row] for row in probs]), float(paid[0])


def random_positions(rules: RuleSet, count: int, seed: int, reveals=(1, 2, 3)):
    """Positions reached by random play (tile-happy, so tiles are common), with few reveals
    left: the test positions of the odds kernels."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = new_game(rules, seed=rng)
        while not state.game_over and len(found) < count:
            if (
                not state.extra_pending
                and state.pyramid_tiles_left in reveals
                and rng.random() < 0.3
            ):
                found.append(state)
            actions = legal_actions(state)
            tiles = [a for a in actions if isinstance(a, PlaceTile)]
            u = rng.random()
            if state.extra_pending:
                action = actions[rng.integers(len(actions))]
            elif u < 0.45:
                action = TakePyramidTile()
            elif u < 0.8 and tiles:
                action = tiles[rng.integers(len(tiles))]
            else:
                action = actions[rng.integers(len(actions))]
            state, _ = apply_action(state, action, rng)
    return found
