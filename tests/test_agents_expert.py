"""The expert baseline (agents/expert.py): registered, legal on every preset (R4, R9),
deterministic, and each of its two corrections to greedy's values checked by hand (R4.4 race-card
timing; R5.3/R6.2 a tile's effect on the leg bets held)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from engine_positions import random_positions

import agents
from agents.expert import ExpertAgent, keep_value, race_horizon, tile_bet_effects
from agents.greedy import GreedyAgent
from camelup_env import RuleSet, legal_action_indices, new_game, odds
from camelup_env.game.actions import PlaceTile, RaceBet, action_table
from camelup_env.game.payouts import leg_tile_ev
from camelup_env.match import play_game
from camelup_env.observation import public_view
from camelup_env.odds.action_values import held_rewards


def test_registry_makes_the_expert() -> None:
    bot = agents.make("expert")
    assert isinstance(bot, ExpertAgent) and bot.name == "expert" and bot.description
    assert "expert" in dict(agents.describe_agents())


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet("classic", num_players=2),
        RuleSet("classic", num_players=4),
        RuleSet("second_edition", num_players=2),
        RuleSet("second_edition", num_players=6),  # partnerships (R9.4)
        RuleSet("supercup", num_players=4, extra_action=True),
        RuleSet("supercup", num_players=6),
    ],
    ids=lambda r: f"{r.preset}-{r.num_players}",
)
def test_expert_plays_legal_moves_on_every_preset(rules: RuleSet) -> None:
    # catch=False: an illegal action or an exception fails the test instead of forfeiting
    lineup = [agents.make("expert" if s % 2 == 0 else "greedy") for s in range(rules.num_players)]
    result = play_game(rules, lineup, seed=5, catch=False)
    assert result.forfeit is None and not result.truncated


def test_expert_is_deterministic() -> None:
    rules = RuleSet("classic", num_players=3)

    def run() -> tuple[list[int], int]:
        result = play_game(rules, [agents.make("expert") for _ in range(3)], seed=11)
        return result.coins, result.turns

    assert run() == run()


def _race_state(lead: int):
    """Classic, 2 players: blue leads alone on ``lead``, the others far behind; seat 0 to move."""
    s = new_game(RuleSet("classic", num_players=2), seed=0).copy()
    s.stacks = {lead: (0,), 3: (1,), 2: (2, 3, 4)}
    return s


def test_race_horizon_falls_to_zero_as_the_leader_nears_the_finish() -> None:
    L = RuleSet("classic").track_length
    horizons = [race_horizon(_race_state(lead), near=4, far=10) for lead in range(4, L + 1)]
    assert horizons[0] == 1.0 and horizons[-1] == 0.0
    assert all(a >= b for a, b in itertools.pairwise(horizons))
    # 4 or fewer spaces to cross the line (R5.4): the card may never be bet later
    assert race_horizon(_race_state(L + 1 - 4), near=4, far=10) == 0.0
    assert race_horizon(_race_state(L + 1 - 7), near=4, far=10) == pytest.approx(0.5)
    assert keep_value(0.6, 0.1, 0.0, 5.0) == 0.0
    assert keep_value(0.6, 0.1, 0.5, 5.0) == pytest.approx(5 * 0.7 * 0.5)


@pytest.mark.parametrize("lead", [5, 10, 14])
def test_race_bets_are_charged_the_value_of_keeping_the_card(lead: int) -> None:
    s = public_view(_race_state(lead), 0)
    legal = legal_action_indices(s)
    expert, greedy = ExpertAgent(race_samples=300), GreedyAgent(race_samples=300)
    mine, plain = expert.action_values(s, legal), greedy.action_values(s, legal)
    race = expert.greedy.race_odds(s)  # the estimate greedy's race values use
    horizon = race_horizon(s, expert.near, expert.far)
    payout = s.rules.race_bet_payouts[0]  # the default late payout
    table = action_table(s.rules)
    for i in legal:
        a = table.actions[i]
        charge = 0.0
        if isinstance(a, RaceBet):
            charge = keep_value(race.winner[a.camel], race.loser[a.camel], horizon, payout)
        elif isinstance(a, PlaceTile):
            continue  # no leg bet is held: tiles are greedy's (checked below)
        assert mine[i] == pytest.approx(plain[i] - charge, abs=1e-12)
    blue = table.race_index(0, 0)
    if lead == 14:  # 3 spaces to go: bet now, no charge
        assert mine[blue] == plain[blue]
    else:
        assert mine[blue] < plain[blue] - 0.5


def _tile_state(holder: int):
    """Classic, 2 players, last reveal of the leg: only green's die is left. Blue leads alone on
    10, green is on 7 and moves 1-3: it passes blue only by landing on 10 (on top, R5.2).
    ``holder`` holds the blue 5 leg-bet tile (R6.2)."""
    s = new_game(RuleSet("classic", num_players=2), seed=0).copy()
    s.stacks = {10: (0,), 7: (1,), 2: (2, 3, 4)}
    s.pyramid, s.pyramid_tiles_left = (1,), 1
    s.leg_stacks = ((3, 2), *s.leg_stacks[1:])
    bets = [(), ()]
    bets[holder] = ((0, 5),)
    s.leg_bets = tuple(bets)
    return public_view(s, 0)


@pytest.mark.parametrize("holder", [0, 1])
def test_a_tile_is_valued_by_its_effect_on_the_leg_bets_held(holder: int) -> None:
    s = _tile_state(holder)
    table = action_table(s.rules)
    legal = legal_action_indices(s)
    mine = ExpertAgent().action_values(s, legal)
    plain = GreedyAgent().action_values(s, legal)
    oasis = table.tile_index(9, +1)  # green landing on 9 steps on to 10, on top of blue
    assert oasis in legal
    probs_now = odds.leg_rank_probabilities(s)
    probe = s.copy()
    probe.tiles = {9: (0, +1)}
    probs_tile = odds.leg_rank_probabilities(probe)
    change = leg_tile_ev(probs_tile, 0, 5) - leg_tile_ev(probs_now, 0, 5)
    # blue first 2/3 -> 1/3 of the time (second 1/3 -> 2/3): the blue 5 tile loses 4/3
    assert change == pytest.approx((5 * 1 / 3 + 2 / 3) - (5 * 2 / 3 + 1 / 3))
    sign = 1.0 if holder == 0 else -1.0  # two players: the opponent's loss is our gain
    assert mine[oasis] == pytest.approx(plain[oasis] + sign * change, abs=1e-12)
    if holder == 0:  # the tile that hurts our bet is now worth less than doing nothing
        assert mine[oasis] < plain[oasis] - 1.0
    effects = tile_bet_effects(s, 0, [(9, 1), (9, -1)], {0: 1.0, 1: -1.0})
    assert effects[(9, 1)] == pytest.approx(sign * change)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_tile_bet_effects_equal_the_held_rewards_with_the_tile_moved(preset: str) -> None:
    """R5.3/R6.2 oracle: each placement's effect is the weighted held rewards of the position
    with the seat's tile moved there (a state copy scored afresh) minus those of now."""
    checked = 0
    for s in random_positions(RuleSet(preset, num_players=3), 12, seed=4, reveals=(1, 2, 3)):
        me = s.current
        if not any(s.leg_bets):
            continue
        weights = ExpertAgent().weights(s, me)
        table = action_table(s.rules)
        places = [
            (table.actions[i].space, table.actions[i].side)
            for i in legal_action_indices(s)
            if isinstance(table.actions[i], PlaceTile)
        ]
        effects = tile_bet_effects(s, me, places, weights)

        def weighted(state, weights=weights):
            return sum(w * sum(held_rewards(state, q)) for q, w in weights.items())

        others = {sp: t for sp, t in s.tiles.items() if t[0] != me}
        for space, side in places:
            probe = s.copy()
            probe.tiles = {**others, space: (me, side)}
            assert effects[(space, side)] == pytest.approx(weighted(probe) - weighted(s), abs=1e-12)
            checked += 1
    assert checked > 20


def test_no_leg_bets_held_means_greedy_tile_values() -> None:
    s = public_view(_race_state(8), 0)
    assert tile_bet_effects(s, 0, [(12, 1)], {0: 1.0, 1: -1.0}) == {}
    legal = legal_action_indices(s)
    mine = ExpertAgent().action_values(s, legal)
    plain = GreedyAgent().action_values(s, legal)
    table = action_table(s.rules)
    tiles = [i for i in legal if isinstance(table.actions[i], PlaceTile)]
    assert tiles and all(mine[i] == plain[i] for i in tiles)
    assert np.isfinite(list(mine.values())).all()
