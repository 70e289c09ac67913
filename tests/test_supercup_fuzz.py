"""Random full Supercup games over every module combination and player count (R1.4, R9).

Every combination of the four module switches (support dice, photographer, position bets,
partnerships; 16) and, with support dice, the extra action on and off, for 2-10 players: the
invalid ones (R1.4: partnerships below 6 players, 9-10 players without all four modules) must
raise ``ValueError``; every valid one plays random games to the end checking, after every
action, that the pyramid holds at least as many dice as pyramid tiles are left (R9.1.5: a tile
always has a die to reveal) and that a leg ends exactly when its last pyramid tile is taken
(R6.1, R9.1.5), and, at regular steps and at the end, ``validate()``, the JSON round trip and
coins >= 0 (R8.1).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from camelup_env import (
    GameState,
    RuleSet,
    action_table,
    apply_action,
    legal_action_indices,
    new_game,
)
from camelup_env.game.events import LegScored
from camelup_env.game.rules import SUPERCUP_MODULES

COMBOS = [
    dict(zip(SUPERCUP_MODULES, flags, strict=True)) | {"extra_action": extra}
    for flags in itertools.product((False, True), repeat=4)
    for extra in ((False, True) if flags[0] else (False,))
]


GAMES = 3  # per valid (modules, players): about 450 games, a few seconds


def _valid(n: int, modules: dict) -> bool:
    if modules["partnerships"] and n < 6:
        return False
    return n <= 8 or all(modules[m] for m in SUPERCUP_MODULES)


def play_game(rules: RuleSet, seed: int, check_every: int = 25) -> int:
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=rng, first_player=seed % rules.num_players)
    pyramid = action_table(rules).pyramid
    steps = 0
    while not state.game_over:
        legal = legal_action_indices(state)
        assert legal, "a player to act always has a legal action"
        action = legal[int(rng.random() * len(legal))]
        old = state
        state, events = apply_action(state, action, rng)
        steps += 1
        scored = any(isinstance(e, LegScored) for e in events)
        if action == pyramid:
            last_tile = old.pyramid_tiles_left == 1
            assert scored == (last_tile or state.game_over)  # R6.1 / R9.1.5 (R7.1 at a race end)
            if last_tile and not state.game_over:
                assert state.leg == old.leg + 1
                assert state.pyramid_tiles_left == rules.pyramid_tiles
        else:
            assert not scored and state.leg == old.leg
        assert len(state.pyramid) >= state.pyramid_tiles_left >= 1 or state.game_over
        if rules.extra_action and not state.game_over:
            assert state.extra_pending == (state.current == old.current)
        else:
            assert not state.extra_pending
        if steps % check_every == 0:
            state.validate()
            assert GameState.from_json(state.to_json()) == state
        assert steps < 5000, f"no end after {steps} actions"
    state.validate()
    assert min(state.coins) >= 0
    assert GameState.from_json(state.to_json()) == state
    return steps


@pytest.mark.parametrize(
    "modules", COMBOS, ids=lambda m: "-".join(k for k, v in m.items() if v) or "none"
)
def test_supercup_fuzz_every_module_combination(modules) -> None:
    played = 0
    for n in range(2, 11):
        if not _valid(n, modules):
            with pytest.raises(ValueError, match=r"R1\.4"):
                RuleSet("supercup", num_players=n, **modules)
            continue
        rules = RuleSet("supercup", num_players=n, **modules)
        assert all(getattr(rules, k) == v for k, v in modules.items())
        for game in range(GAMES):
            play_game(rules, seed=1000 * n + 10 * COMBOS.index(modules) + game)
        played += 1
    assert played == sum(_valid(n, modules) for n in range(2, 11))


def test_supercup_fuzz_covers_the_extra_action_and_all_modules() -> None:
    """The fuzz games really take the new actions (not just pass through them)."""
    from camelup_env.game.events import (
        PhotoPayout,
        PositionBetTaken,
        SupportDieAdded,
    )

    rules = RuleSet("supercup", num_players=10, extra_action=True)
    seen: set[type] = set()
    for seed in range(6):
        rng = np.random.default_rng(seed)
        state = new_game(rules, seed=rng)
        while not state.game_over:
            legal = legal_action_indices(state)
            state, events = apply_action(state, legal[int(rng.random() * len(legal))], rng)
            seen.update(type(e) for e in events)
    assert {PhotoPayout, PositionBetTaken, SupportDieAdded} <= seen
