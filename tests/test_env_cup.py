"""camelup_v1 with the Camel Up Cup preset (docs/rules.md C1-C11, docs/cup.md): the PettingZoo
API test, and observations that hold what only the Cup has: coins below 0 (C10), traps past
the finish line (C6) and more than one 0-valued round bet (C5)."""

from __future__ import annotations

import numpy as np
from engine_positions import CLASSIC, position
from pettingzoo.test import api_test

from camelup_env import RuleSet
from camelup_env.camelup_v1 import env as make_env
from camelup_env.observation import Observer

CUP = RuleSet("cup")
B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))


def test_C1_the_pettingzoo_env_plays_the_cup() -> None:
    api_test(make_env(rules=CUP, odds_features=True, action_values=True), num_cycles=80)


def test_C10_the_observation_holds_negative_coins_and_traps_past_the_line() -> None:
    observer = Observer(CUP, odds_features=True, action_values=True)
    s = position(
        rules=CUP,
        stacks={14: (OR,), 15: (Y, B), 16: (G, W)},
        coins=(-7, 3, 2, 2),
        tiles={20: (1, -1), 2: (2, 1)},
        leg_bets=(((W, 5), (W, 0), (W, 0), (W, 0)), (), (), ()),
    )
    obs = observer.observe(s, 0)
    assert np.all(obs >= observer.low) and np.all(obs <= observer.high)
    start, _ = observer.layout["coins"]
    assert obs[start] == -7 / 20
    tiles = obs[slice(*observer.layout["tiles"])].reshape(observer.shapes["tiles"])
    assert tiles.shape[0] == 27  # spaces 2..28
    assert tiles[20 - 2, 1] == 1 and tiles[20 - 2, 4 + 1] == 1  # seat 1's slow trap on 20
    held = obs[slice(*observer.layout["leg_bets_held"])].reshape(observer.shapes["leg_bets_held"])
    assert held[0, W].tolist() == [1, 0, 0, 1]  # the 5 tile, and (clipped) three 0 tiles


def test_C1_cup_sizes_in_the_docstring() -> None:
    import camelup_env.camelup_v1 as mod
    from camelup_env import action_table

    assert f"Cup {Observer(CUP).size}." in mod.__doc__
    assert f"has {len(action_table(CUP))} actions" in mod.__doc__
