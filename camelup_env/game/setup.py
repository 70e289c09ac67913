"""The setup of a game (R2): the deal, its exact distribution, and each leg's starting pyramid.

:func:`new_game` draws a deal from a generator; :func:`setup_outcomes` lists every deal with its
exact probability, drawn by the same steps, so the luck of the deal (:mod:`camelup_env.odds.luck`)
is measured against the distribution :func:`new_game` samples.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from camelup_env.game.movement import ranking
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState


def new_game(
    rules: RuleSet, seed: int | np.random.Generator | None = None, first_player: int = 0
) -> GameState:
    """A game set up per R2: racing camels on spaces 1-3 in random stack order (R2.1, R11.1),
    crazy camels on 14-16 counted back from the end (R2.2), everything else at its start.
    With the desert wanderer (R14.1) every camel starts on the start line, space 1, in a random
    stack order, and the wanderer lies on space 2."""
    if not 0 <= first_player < rules.num_players:
        raise ValueError(f"first_player must be a seat 0..{rules.num_players - 1}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if rules.wanderer:  # R14.1
        stacks = _racing_setup(rules, (), tuple(int(c) for c in rng.permutation(rules.n_racing)))
    else:
        rolls = tuple(int(rules.racing_die_faces[i]) for i in rng.integers(0, 6, rules.n_racing))
        stacks = _racing_setup(rules, rolls, tuple(int(c) for c in rng.permutation(rules.n_racing)))
    order: list[int] = []
    values: list[int] = []
    for k in rng.permutation(len(rules.crazy_colours)):
        order.append(int(k))
        values.append(int(rules.grey_die_values[rng.integers(0, len(rules.grey_die_values))]))
    return _dealt(rules, _crazy_setup(rules, stacks, tuple(order), tuple(values)), first_player)


def _racing_setup(
    rules: RuleSet, rolls: tuple[int, ...], order: tuple[int, ...]
) -> dict[int, tuple[int, ...]]:
    """R2.1: racing camel ``c`` on space ``rolls[c]``, stacked in ``order`` (bottom to top on a
    shared space). With the desert wanderer (R14.1) all start on space 1 and ``rolls`` is
    empty."""
    stacks: dict[int, tuple[int, ...]] = {}
    for camel in order:
        space = 1 if rules.wanderer else rolls[camel]
        stacks[space] = (*stacks.get(space, ()), camel)
    return stacks


def _crazy_setup(
    rules: RuleSet,
    stacks: dict[int, tuple[int, ...]],
    order: tuple[int, ...],
    values: tuple[int, ...],
) -> dict[int, tuple[int, ...]]:
    """R2.2: the ``order[i]``-th crazy camel, placed ``i``-th, counts ``values[i]`` back from
    the end; a copy of ``stacks`` with them on top."""
    out = dict(stacks)
    for k, value in zip(order, values, strict=True):
        space = rules.track_length + 1 - value
        out[space] = (*out.get(space, ()), rules.n_racing + k)
    return out


#: a deal's stacks as a hashable key: (space, camels bottom to top) by space
_StacksKey = tuple[tuple[int, tuple[int, ...]], ...]


def setup_outcomes(rules: RuleSet, first_player: int = 0) -> list[tuple[GameState, Fraction]]:
    """Every deal :func:`new_game` can make, with its exact probability (sums to 1): the chance
    model of the setup rolls (R2.1, R2.2, R14.1), for callers that take expectations over it.
    A racing camel's space has the probability of its face on the racing die; every stacking
    order is equally likely (a uniform permutation), and likewise for the crazy camels."""
    racing: dict[_StacksKey, Fraction] = {}
    faces = rules.racing_die_faces
    roll_sets = (
        [((), Fraction(1))]
        if rules.wanderer
        else [
            (rolls, _product(Fraction(faces.count(v), len(faces)) for v in rolls))
            for rolls in itertools.product(sorted(set(faces)), repeat=rules.n_racing)
        ]
    )
    orders = list(itertools.permutations(range(rules.n_racing)))
    for rolls, p in roll_sets:
        for order in orders:
            key = tuple(sorted(_racing_setup(rules, rolls, order).items()))
            racing[key] = racing.get(key, Fraction(0)) + p / len(orders)
    n_crazy = len(rules.crazy_colours)
    grey = rules.grey_die_values
    crazy = [
        (order, values, Fraction(1, math.factorial(n_crazy) * len(grey) ** n_crazy))
        for order in itertools.permutations(range(n_crazy))
        for values in itertools.product(grey, repeat=n_crazy)
    ]
    deals: dict[_StacksKey, Fraction] = {}
    for key, p in racing.items():
        for order, values, q in crazy:
            full = tuple(sorted(_crazy_setup(rules, dict(key), order, values).items()))
            deals[full] = deals.get(full, Fraction(0)) + p * q
    return [(_dealt(rules, dict(key), first_player), p) for key, p in deals.items()]


def _product(values: Iterable[Fraction]) -> Fraction:
    out = Fraction(1)
    for v in values:
        out *= v
    return out


def _dealt(rules: RuleSet, stacks: dict[int, tuple[int, ...]], first_player: int) -> GameState:
    """The state at the start of the race once the camels stand on ``stacks`` (R2.3)."""
    n = rules.num_players
    all_cards = (1 << rules.n_racing) - 1
    return GameState(
        rules=rules,
        stacks=stacks,
        tiles={},
        pyramid=leg_start_pyramid(rules, stacks),
        revealed=(),
        leg_stacks=leg_start_stacks(rules),
        pyramid_tiles_left=rules.pyramid_tiles,
        coins=(rules.starting_coins,) * n,
        leg_bets=((),) * n,
        pyramid_tiles=(0,) * n,
        hands=(all_cards,) * n,
        partners=(-1,) * n,
        winner_pile=(),
        loser_pile=(),
        leg=1,
        current=first_player,
        leg_starter=first_player,
        game_over=False,
        wanderer=2 if rules.wanderer else 0,
    )


def leg_start_stacks(rules: RuleSet) -> tuple[tuple[int, ...], ...]:
    """Each camel's leg-bet stack at a leg start (R2.3). With leg cards (R14.3) a camel's
    "stack" is the value its winner card would pay if played now: the first value of the
    order-played table, or empty once a winner card of that camel is out this leg."""
    if rules.leg_cards:
        return ((rules.leg_bet_values[0],),) * rules.n_racing
    return (rules.leg_bet_values,) * rules.n_racing


def leg_start_pyramid(rules: RuleSet, stacks: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
    """The dice in the pyramid when a leg starts: every racing die (and the grey die, R2.3),
    plus, with Supercup support dice, the support die of the last camel (R9.1.1)."""
    if not rules.support_dice:
        return rules.leg_start_dice
    last = ranking(stacks, rules.n_racing)[-1]
    return (*rules.leg_start_dice, rules.first_support_die + last)
