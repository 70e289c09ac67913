"""camelup_v1 with the Supercup preset: PettingZoo API and seed tests for a few module
combinations, the extra action (R9.1.4) as a second decision of the same agent with its own
mask, and the Supercup observation slices (support dice, craters, photographer and camera,
position bets, extra_pending; R9.1-R9.3)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from camelup_env import (
    AddSupportDie,
    RuleSet,
    SkipExtra,
    action_table,
    apply_action,
    legal_action_indices,
    new_game,
)
from camelup_env.camelup_v1 import env as make_env
from camelup_env.camelup_v1 import raw_env
from camelup_env.game.events import SupportDieAdded
from camelup_env.observation import Observer

CONFIGS = {
    "4p-all-extra": RuleSet("supercup", num_players=4, extra_action=True),
    "10p": RuleSet("supercup", num_players=10),
    "6p-no-support-dice": RuleSet("supercup", num_players=6, support_dice=False),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_api_test(name: str) -> None:
    api_test(make_env(rules=CONFIGS[name], odds_features=name == "4p-all-extra"), num_cycles=60)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_seed_test(name: str) -> None:
    seed_test(lambda: make_env(rules=CONFIGS[name], odds_features=False), num_cycles=60)


def _to_extra_decision(env, rng) -> None:
    """Play random actions (never the extra action) until an agent decides its extra action."""
    table = action_table(env.rules)
    for _ in range(2000):
        state = env.unwrapped.state
        if state.extra_pending:
            return
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        pyramid = table.pyramid
        action = pyramid if mask[pyramid] and rng.random() < 0.5 else int(rng.choice(legal))
        env.step(action)
    raise AssertionError("no extra action offered")


@pytest.mark.parametrize("coin_shaping", [0.0, 0.5])
def test_R9_1_4_extra_action_is_a_second_decision_of_the_same_agent(coin_shaping) -> None:
    rules = CONFIGS["4p-all-extra"]
    env = raw_env(rules=rules, odds_features=False, coin_shaping=coin_shaping)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    table = action_table(rules)
    for _ in range(3):
        _to_extra_decision(env, rng)
        state = env.unwrapped.state
        agent = env.agent_selection
        seat = state.current
        assert agent == f"player_{seat}"
        mask = env.observe(agent)["action_mask"]
        legal = set(np.flatnonzero(mask))
        assert legal == set(legal_action_indices(state))
        assert table.index[SkipExtra()] in legal
        assert all(isinstance(table.actions[i], (SkipExtra, AddSupportDie)) for i in legal)
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        obs = env.observe(agent)["observation"]
        assert env.observer.view(obs, "extra_pending")[0] == 1
        adds = [i for i in legal if isinstance(table.actions[i], AddSupportDie)]
        action = adds[0] if adds else table.index[SkipExtra()]
        coins = state.coins
        env.step(action)
        after = env.unwrapped.state
        assert not after.extra_pending and after.current == (seat + 1) % 4
        assert env.agent_selection == f"player_{(seat + 1) % 4}"
        assert after.coins == coins and all(r == 0 for r in env.rewards.values())
        if adds:
            camel = table.actions[action].camel
            assert env.last_events[agent] == (SupportDieAdded(seat, camel),)
            assert rules.first_support_die + camel in after.pyramid
        obs = env.observe(env.agent_selection)["observation"]
        assert env.observer.view(obs, "extra_pending")[0] == 0


def test_full_supercup_games_through_the_wrapped_env() -> None:
    for name, rules in CONFIGS.items():
        env = make_env(rules=rules, odds_features=False, reward_mode="rank")
        env.reset(seed=11)
        rng = np.random.default_rng(5)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(20_000):
            obs, reward, term, trunc, _ = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.unwrapped.state.game_over, name
        assert sum(total.values()) == pytest.approx(0.0, abs=1e-9), name


COMBOS = [
    RuleSet(
        "supercup",
        num_players=n,
        support_dice=sd,
        photographer=ph,
        position_bets=pb,
        extra_action=ex and sd,
    )
    for n, sd, ph, pb, ex in itertools.product(
        (3, 6), (False, True), (False, True), (False, True), (False, True)
    )
    if sd or not ex
]


@pytest.mark.parametrize("odds", [False, True])
@pytest.mark.parametrize("rules", COMBOS, ids=lambda r: repr(r.to_dict()))
def test_layout_covers_vector_and_module_slices_exist_only_with_their_module(rules, odds) -> None:
    ob = Observer(rules, odds_features=odds)
    spans = sorted(ob.layout.values())
    assert spans[0][0] == 0 and spans[-1][1] == ob.size
    for (_, stop), (start, _) in itertools.pairwise(spans):
        assert stop == start
    assert ("support_dice" in ob.layout) == rules.support_dice
    assert ("extra_pending" in ob.layout) == rules.extra_action
    assert ("photographer" in ob.layout) == ("camera_space" in ob.layout) == rules.photographer
    assert ("position_bets" in ob.layout) == rules.position_bets
    assert ("partner" in ob.layout) == rules.partnerships
    assert max(ob.layout.values())[0] == ob.layout["action_values"][0]  # v1's slice comes last
    if odds:  # odds slices just before it, as in v0
        assert ob.layout["race_loser_prob"][1] == ob.layout["action_values"][0]


def test_supercup_slices_decode_to_the_state() -> None:
    """Every module slice against the state, for every seat, along random games."""
    rules = RuleSet("supercup", num_players=6, extra_action=True)
    ob = Observer(rules, odds_features=False)
    n, R, L = 6, 5, 20
    first = rules.first_support_die
    seen = dict(photo=0, pos=0, crater=0, extra=0, support=0)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        state = new_game(rules, seed=rng)
        while not state.game_over:
            for seat in range(n):
                obs = ob.observe(state, seat)
                assert np.all(obs >= ob.low) and np.all(obs <= ob.high)
                rel = [(s - seat) % n for s in range(n)]
                sd = ob.view(obs, "support_dice")
                for c in range(R):
                    assert sd[c, 0] == (first + c in state.pyramid)
                    assert sd[c, 1] == bool(state.crater >> c & 1)
                assert ob.view(obs, "extra_pending")[0] == state.extra_pending
                photo, cam = ob.view(obs, "photographer"), ob.view(obs, "camera_space")
                if state.photographer is None:
                    assert not photo.any() and not cam.any()
                else:
                    owner, space = state.photographer
                    assert np.flatnonzero(photo).tolist() == [rel[owner]]
                    assert np.flatnonzero(cam).tolist() == [space - 1]
                pb = ob.view(obs, "position_bets")
                taken = {pos: (o, c, v) for o, pos, c, v in state.position_bets}
                for row, pos in enumerate(rules.position_tiles):
                    if pos in taken:
                        o, c, v = taken[pos]
                        assert pb[row, 0] == 1 and np.flatnonzero(pb[row, 1 : 1 + n]).tolist() == [
                            rel[o]
                        ]
                        assert np.flatnonzero(pb[row, 1 + n : 1 + n + R]).tolist() == [c]
                        assert pb[row, -1] == pytest.approx(v / 5)
                    else:
                        assert not pb[row].any()
            seen["photo"] += state.photographer is not None
            seen["pos"] += bool(state.position_bets)
            seen["crater"] += bool(state.crater)
            seen["extra"] += state.extra_pending
            seen["support"] += sum(d >= first for d in state.pyramid) > 1
            legal = legal_action_indices(state)
            state, _ = apply_action(state, legal[int(rng.random() * len(legal))], rng)
    assert all(seen.values()), seen
    assert rules.track_length == L


def test_supercup_observation_sizes_in_the_docstring() -> None:
    """camelup_v1's docstring quotes these sizes (with odds features)."""
    sizes = {
        (4, True): Observer(RuleSet("supercup", 4, extra_action=True)).size,
        (10, False): Observer(RuleSet("supercup", 10)).size,
    }
    import camelup_env.camelup_v1 as mod

    assert f"supercup 4p (extra action) {sizes[(4, True)]}" in mod.__doc__
    assert f"10p {sizes[(10, False)]}" in mod.__doc__


def test_single_agent_env_plays_supercup_with_the_extra_action() -> None:
    """The SB3 wrapper hands the learner its extra decisions as ordinary steps (same masks)."""
    from camelup_env.envs.single_agent import SingleAgentEnv

    rules = CONFIGS["4p-all-extra"]
    env = SingleAgentEnv(rules=rules, odds_features=False)
    skip = action_table(rules).index[SkipExtra()]
    rng = np.random.default_rng(0)
    extra_steps = 0
    for seed in range(3):
        _, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            extra_steps += bool(mask[skip])
            _, reward, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        assert term and -1.0 <= reward <= 1.0
    assert extra_steps > 0
