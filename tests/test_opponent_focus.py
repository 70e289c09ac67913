"""Opponent draws weighted toward what beats the learner (training/policy/opponent_focus.py): the
weights' formula, the draws following them, and every finished game credited to its entries."""

from __future__ import annotations

import numpy as np
import pytest

from camelup_env.game.rules import RuleSet
from training.policy.opponent_focus import OpponentFocus
from training.policy.selfplay import OpponentPool, SelfPlayVecEnv


def test_no_focus_is_the_mix_as_given() -> None:
    focus = OpponentFocus({"greedy": 3.0, "random": 1.0}, players=4)
    focus.record(["greedy"], 0.0)
    np.testing.assert_allclose(focus.weights(), [0.75, 0.25])


def test_weights_move_toward_the_entries_the_learner_loses_to() -> None:
    focus = OpponentFocus({"a": 1.0, "b": 1.0, "c": 2.0}, players=4, focus=2.0, memory=10)
    np.testing.assert_allclose(focus.share, 0.25)  # an even share before any game
    focus.record(["a", "a", "c"], 1.0)  # a counted once, however many seats it held
    focus.record(["b"], 0.0)
    np.testing.assert_allclose(focus.share, [0.325, 0.225, 0.325])
    assert list(focus.games) == [1, 1, 1]
    raw = np.array([1.0, 1.0, 2.0]) / 4 * (1 - focus.share) ** 2
    np.testing.assert_allclose(focus.weights(), raw / raw.sum())
    assert focus.weights()[1] > focus.weights()[0]  # b beat the learner, a lost to it
    assert focus.summary()["b"] == {"win_share": 0.225, "games": 1, "weight": focus.weights()[1]}
    with pytest.raises(ValueError, match="opponent_focus"):
        OpponentFocus({"a": 1.0}, players=2, focus=-1.0)


def test_the_pool_draws_by_the_focused_weights() -> None:
    pool = OpponentPool({"random": 1.0, "heuristic": 1.0}, 0, 5, focus=1.0, players=2)
    pool.focus.share[:] = [1.0, 0.5]  # the learner always beats random: never drawn again
    names, bots = pool.draw_named(40)
    assert set(names) == {"heuristic"} and len(bots) == 40


def test_every_finished_game_is_credited_to_the_entries_that_sat_in_it() -> None:
    rules = RuleSet("classic", num_players=4)
    env = SelfPlayVecEnv(
        8,
        rules,
        {"random": 1.0, "heuristic": 1.0},
        pool_seed=0,
        opponent_focus=1.0,
        odds_features=False,
        action_values=False,
        seed=0,
    )
    drawn: list[list[str]] = []  # every draw, in the order the games were dealt
    draw, record = env.pool.draw_named, env.pool.focus.record

    def watched_draw(n: int):
        names, bots = draw(n)
        drawn.append(names)
        return names, bots

    credited: list[tuple[list[str], float]] = []

    def watched_record(names: list[str], share: float) -> None:
        credited.append((list(names), share))
        record(names, share)

    env.pool.draw_named = watched_draw
    env.pool.focus.record = watched_record
    env.reset()
    # game i's entries: games dealt in order 0..7, then every ended game again, in order
    sitting = list(drawn)
    dealt = len(drawn)
    expected: list[tuple[list[str], float]] = []
    rng = np.random.default_rng(0)
    while len(expected) < 30:
        masks = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        _, _, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones):
            if "win_share" in infos[i]:
                expected.append((sitting[i], infos[i]["win_share"]))
            sitting[i] = drawn[dealt]
            dealt += 1
    assert dealt == len(drawn)
    assert credited == expected
    assert set(env.opponent_focus()) == {"random", "heuristic"}


def test_a_run_records_where_its_draws_lean(tmp_path) -> None:
    import json

    from test_training import tiny

    from training.policy.sb3_trainer import train

    cfg = tiny(tmp_path / "run", opponent_focus=2.0, total_timesteps=512, n_envs=2)
    train(cfg)
    focus = json.loads((tmp_path / "run" / "progress.json").read_text())["opponent_focus"]
    assert set(focus) == set(cfg.opponent_mix)
    assert sum(entry["games"] for entry in focus.values()) > 0
    assert sum(entry["weight"] for entry in focus.values()) == pytest.approx(1.0)
