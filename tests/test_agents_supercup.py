"""The baselines play Supercup (R9): legal moves under every module combination, greedy's
Supercup values against the odds module and Monte Carlo, and a tiny Supercup tournament."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.greedy import GreedyAgent
from camelup_env import RuleSet, apply_action, legal_action_indices, new_game, odds
from camelup_env.game.actions import (
    AddSupportDie,
    Photograph,
    PositionBet,
    SkipExtra,
    action_table,
)
from camelup_env.game.events import PhotoPayout
from camelup_env.game.payouts import leg_tile_ev
from camelup_env.game.sampling import random_positions
from camelup_env.game.state import GameState
from camelup_env.match import play_game
from camelup_env.observation import public_view
from camelup_env.odds import expected_photo_coins
from camelup_env.odds.action_values import support_die_gain
from tournament.config import tournament_config
from tournament.records import read_games
from tournament.run import run_tournament

BASELINES = ["random", "heuristic", "greedy", "lookahead"]
MODULES = ("support_dice", "photographer", "position_bets", "partnerships")


def _rule_sets() -> list[RuleSet]:
    out = []
    for on in itertools.product((False, True), repeat=4):
        switches = dict(zip(MODULES, on, strict=True))
        extra = {"extra_action": True} if switches["support_dice"] else {}
        out.append(RuleSet("supercup", num_players=6, **switches, **extra))
        if not switches["partnerships"]:
            out.append(RuleSet("supercup", num_players=3, **switches, **extra))
    out.append(RuleSet("supercup", num_players=10, extra_action=True))
    out.append(RuleSet("supercup", num_players=9))
    out.append(RuleSet("supercup", num_players=2, extra_action=True))
    return out


@pytest.mark.parametrize("rules", _rule_sets(), ids=lambda r: str(r.to_dict()))
def test_baselines_play_legal_supercup_games(rules: RuleSet) -> None:
    """Every module combination (partnerships from 6 players, all four at 9-10): a full game of
    the baselines; an illegal move raises (``catch=False``)."""
    n = rules.num_players
    seats = [agents.make(BASELINES[i % 4]) for i in range(n)]
    for i, a in enumerate(seats):
        a.reset(seed=i)
    result = play_game(rules, seats, seed=7, catch=False)
    assert result.forfeit is None and not result.truncated


def _state(**changes) -> GameState:
    """A 4-player Supercup position (support dice, camera, position bets, extra action) with
    blue (0) at 15, green (1) at 12, orange (2) at 10, yellow (3) at 8 and white (4) at 1; only
    white's racing die is left (one reveal): the ranking is certain."""
    rules = RuleSet("supercup", num_players=4, extra_action=True)
    s = new_game(rules, seed=0)
    s.stacks = {15: (0,), 12: (1,), 10: (2,), 8: (3,), 1: (4,)}
    s.pyramid = (4,)
    s.pyramid_tiles_left = 1
    s.hands = (0,) * 4  # no race bets
    s.leg_stacks = ((), *s.leg_stacks[1:])  # no blue 5 to take
    for k, v in changes.items():
        setattr(s, k, v)
    s.validate()
    return s


def _position_values(s: GameState) -> dict[PositionBet, float]:
    table = action_table(s.rules)
    legal = legal_action_indices(s)
    values = GreedyAgent().action_values(s, legal)
    return {
        table.actions[i]: v for i, v in values.items() if isinstance(table.actions[i], PositionBet)
    }


def _random_positions(n: int) -> list[GameState]:
    rules = RuleSet("supercup", num_players=6, extra_action=True)
    return [public_view(s, s.current) for s in random_positions(rules, n, seed=3, keep=0.3)]


def test_position_bet_values_are_the_formula_on_the_exact_odds() -> None:
    """R9.3: 3 P - (1 - P) with P = P(rank = position) from leg_rank_probabilities, minus the
    covered own tile's leg-bet EV (the lowest uncovered one of the colour)."""
    checked = 0
    for s in _random_positions(25):
        probs = odds.leg_rank_probabilities(s)
        for a, v in _position_values(s).items():
            p = probs[a.camel, a.position - 1]
            expected = 3 * p - (1 - p)
            if not a.from_stack:
                mine = [val for c, val in s.leg_bets[s.current] if c == a.camel]
                for owner, _, c, val in s.position_bets:
                    if owner == s.current and c == a.camel:
                        mine.remove(val)
                expected -= leg_tile_ev(probs, a.camel, min(mine))
            assert v == pytest.approx(expected, abs=1e-12)
            checked += 1
    assert checked > 50


def test_greedy_takes_a_sure_position_bet_and_declines_losing_ones() -> None:
    s = _state()
    greedy = GreedyAgent()
    values = _position_values(s)
    assert values[PositionBet(2, 1, True)] == pytest.approx(3.0)  # green is surely 2nd
    assert PositionBet(2, 0, True) not in values  # blue's stack is empty
    assert values[PositionBet(3, 1, True)] == pytest.approx(-1.0)
    table = action_table(s.rules)
    obs = {"action_mask": np.zeros(len(table), np.int8)}
    obs["action_mask"][legal_action_indices(s)] = 1
    chosen = table.actions[greedy.act(obs, s)]
    assert isinstance(chosen, PositionBet) and values[chosen] == pytest.approx(3.0)
    # Covering my own green 5 (which pays +1 for a sure 2nd) with the 2nd tile gains 3 - 1.
    mine = _state(
        leg_bets=(((1, 5),), (), (), ()),
        leg_stacks=((), (3, 2, 2), (5, 3, 2, 2), (5, 3, 2, 2), (5, 3, 2, 2)),
    )
    assert _position_values(mine)[PositionBet(2, 1, False)] == pytest.approx(2.0)
    # Position tiles 2-4 taken by seat 1, white's stack empty: every 5th-place bet loses.
    taken = _state(
        leg_bets=((), ((1, 5), (2, 5), (3, 5)), (), ()),
        leg_stacks=((), (3, 2, 2), (3, 2, 2), (3, 2, 2), ()),
        position_bets=((1, 2, 1, 5), (1, 3, 2, 5), (1, 4, 3, 5)),
    )
    values = _position_values(taken)
    assert values and all(v == pytest.approx(-1.0) for v in values.values())
    obs["action_mask"][:] = 0
    obs["action_mask"][legal_action_indices(taken)] = 1
    assert not isinstance(table.actions[greedy.act(obs, taken)], PositionBet)


def _photo_monte_carlo(s: GameState, space: int, n: int, seed: int) -> tuple[float, float]:
    """Mean and SE of the camera's coins over the rest of the leg, through the engine."""
    rules = RuleSet("supercup", num_players=s.rules.num_players)  # no extra-action stops
    probe = s.copy()
    probe.rules = rules
    probe.crater, probe.extra_pending = 0, False
    probe.photographer = (0, space)
    pyramid = action_table(rules).pyramid
    rng = np.random.default_rng(seed)
    coins = np.zeros(n)
    for k in range(n):
        st, leg = probe, probe.leg
        while st.leg == leg and not st.game_over:
            st, events = apply_action(st, pyramid, rng)
            coins[k] += sum(e.coins for e in events if isinstance(e, PhotoPayout))
    return coins.mean(), coins.std() / np.sqrt(n)


def test_photographer_value_matches_a_monte_carlo_of_the_engine() -> None:
    """R9.2: expected_photo_coins (exact) against the engine's photos, within 4 SE."""
    rules = RuleSet("supercup", num_players=4)
    s = new_game(rules, seed=3)
    s.stacks = {2: (3, 2), 3: (1,), 4: (0, 4)}
    s.tiles = {6: (2, -1)}  # a mirage: units landing on 6 end on 5 (under)
    s.pyramid, s.pyramid_tiles_left = (0, 1, 2, 3, 4, 5 + 3), 4
    s.validate()
    values = expected_photo_coins(s)
    assert set(values) == set(range(1, 21)) - {2, 3, 4, 6}
    assert values[1] == 0.0 and values[20] == 0.0  # behind every camel; out of reach
    for space in (5, 7, 8):
        mean, se = _photo_monte_carlo(s, space, 3000, space)
        assert abs(values[space] - mean) < 4 * se + 1e-9, (space, values[space], mean, se)


def test_greedy_camera_values_and_repointing() -> None:
    s = _state()
    table = action_table(s.rules)
    greedy = GreedyAgent()
    photo = expected_photo_coins(s)
    assert photo[2] == pytest.approx(1 / 3) and photo[16] == 0.0
    values = greedy.action_values(s, legal_action_indices(s))
    for i, v in values.items():
        if isinstance(table.actions[i], Photograph):
            assert v == pytest.approx(photo[table.actions[i].space])
    held = _state(photographer=(0, 3))
    values = greedy.action_values(held, legal_action_indices(held))
    assert values[table.index[Photograph(2)]] == pytest.approx(0.0)  # 1/3 - 1/3
    assert values[table.index[Photograph(5)]] == pytest.approx(-1 / 3)


def test_support_die_values_and_skipping() -> None:
    """R9.1.4: the change of my leg bets' EV with the die added and one more reveal, minus 1."""
    s = _state(
        leg_bets=(((2, 5),), (), (), ()),
        pyramid_tiles=(1, 0, 0, 0),
        pyramid_tiles_left=1,
        extra_pending=True,
        leg_stacks=((), (5, 3, 2, 2), (3, 2, 2), (5, 3, 2, 2), (5, 3, 2, 2)),
    )
    table = action_table(s.rules)
    legal = legal_action_indices(s)
    values = GreedyAgent().action_values(s, legal)
    assert values[table.index[SkipExtra()]] == 0.0
    for i in legal:
        a = table.actions[i]
        if isinstance(a, AddSupportDie):
            probe = s.copy()
            probe.pyramid = tuple(sorted((*s.pyramid, s.rules.first_support_die + a.camel)))
            probe.pyramid_tiles_left += 1
            before = leg_tile_ev(odds.leg_rank_probabilities(s), 2, 5)
            after = leg_tile_ev(odds.leg_rank_probabilities(probe), 2, 5)
            assert values[i] == pytest.approx(after - before - 1.0, abs=1e-12)
            assert support_die_gain(s, 0, a.camel) == pytest.approx(after - before, abs=1e-12)
    # Nothing here gains a coin: orange (3rd) cannot catch up with one support-die move.
    obs = {"action_mask": np.zeros(len(table), np.int8)}
    obs["action_mask"][legal] = 1
    assert table.actions[GreedyAgent().act(obs, s)] == SkipExtra()


@pytest.mark.parametrize("players", [6, 10])
def test_partnership_values_count_position_bets(players: int) -> None:
    """R9.4 with Supercup module 4: a partner's covered tile is valued as its position bet."""
    rules = RuleSet("supercup", num_players=players)
    s = new_game(rules, seed=0)
    s.stacks = {15: (0,), 12: (1,), 10: (2,), 8: (3,), 1: (4,)}
    s.pyramid, s.pyramid_tiles_left = (4,), 1
    bets = [()] * players
    bets[1] = ((1, 5),)
    s.leg_bets = tuple(bets)
    s.leg_stacks = (s.leg_stacks[0], (3, 2, 2), *s.leg_stacks[2:])
    table = action_table(rules)
    greedy = GreedyAgent()
    assert greedy.action_values(s, [table.partner_offset + 1])[table.partner_offset + 1] == 1.0
    s.position_bets = ((1, 2, 1, 5),)  # green is surely 2nd: the covered tile pays +3
    s.validate()
    assert greedy.action_values(s, [table.partner_offset + 1])[table.partner_offset + 1] == 3.0
    assert greedy.action_values(s, [table.partner_offset + 2])[table.partner_offset + 2] == 0.0


def test_a_tiny_supercup_tournament_runs(tmp_path: Path) -> None:
    cfg = tournament_config(
        None,
        {
            "agents": ["random", "heuristic", "greedy"],
            "preset": "supercup",
            "players": 6,
            "games": 6,
            "seating": "rotations",
            "name": "sc",
            "rules": {"extra_action": True},
            "move_timeout": 10.0,
            "workers": 1,
        },
    )
    run_tournament(cfg, tmp_path, progress=False)
    records = read_games(tmp_path / "games.jsonl")
    assert len(records) == 6
    assert all(r["forfeit"] is None and not r["truncated"] for r in records)


def test_the_board_image_draws_the_camera_position_tiles_and_support_dice() -> None:
    from camelup_env.render.image import render_image

    s = _state(
        leg_bets=(((1, 5),), (), (), ()), position_bets=((0, 2, 1, 5),), revealed=((5 + 2, 2, 1),)
    )
    plain = render_image(s)
    with_camera = s.copy()
    with_camera.photographer = (3, 5)
    image = render_image(with_camera)
    assert image.shape == plain.shape and image.dtype == np.uint8
    assert (image != plain).any()  # the camera square and the camera text
