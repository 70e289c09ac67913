"""The champion bot (agents/champion.py): registered, legal on every preset, deterministic, the
expert's moves with both components off, and each component changing the move in a position
built for it (R7.2 race cards read from when they were placed; R6.2 leg bets chosen by the
standing). Its helpers: the pile beliefs and payouts (agents/race_beliefs.py) and the win
chances of a move (agents/standing.py)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.champion import ChampionAgent
from agents.race_beliefs import RaceCardReader, new_card_payouts, odds_beliefs, pile_payouts
from agents.standing import win_chances
from camelup_env import RuleSet, legal_action_indices, new_game
from camelup_env.game.actions import RaceBet, TakeLegBet, TakePyramidTile, action_table
from camelup_env.game.payouts import pile_evs, race_card_ev
from camelup_env.game.state import GameState
from camelup_env.match import play_game
from camelup_env.observation import public_view
from camelup_env.odds.win import WinModel, load_win_model


def test_registry_makes_the_champion() -> None:
    bot = agents.make("champion", margin=1.0, infer_bets=False)
    assert isinstance(bot, ChampionAgent) and bot.name == "champion" and bot.description
    assert bot.margin == 1.0 and not bot.infer_bets
    assert "champion" in dict(agents.describe_agents())
    with pytest.raises(ValueError, match="margin"):
        ChampionAgent(margin=-1)


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet("classic", num_players=2),
        RuleSet("classic", num_players=4),
        RuleSet("second_edition", num_players=2),
        RuleSet("second_edition", num_players=6),  # partnerships (R9.4)
        RuleSet("supercup", num_players=4, extra_action=True),  # no win model: no risk choice
        RuleSet("persian_tutorial", num_players=3),  # no joint outcomes: no risk choice
        RuleSet("cup", num_players=4),
    ],
    ids=lambda r: f"{r.preset}-{r.num_players}",
)
def test_champion_plays_legal_moves_on_every_preset(rules: RuleSet) -> None:
    # one champion object in every other seat: its memory of the piles is per seat
    champion = agents.make("champion")
    lineup = [champion if s % 2 == 0 else agents.make("greedy") for s in range(rules.num_players)]
    result = play_game(rules, lineup, seed=5, catch=False)
    assert result.forfeit is None and not result.truncated


def _game(**kwargs) -> tuple[list[int], int]:
    rules = RuleSet("classic", num_players=4)
    lineup = [agents.make("champion", **kwargs), *(agents.make("greedy") for _ in range(3))]
    result = play_game(rules, lineup, seed=11, catch=False)
    return result.coins, result.turns


def test_champion_is_deterministic() -> None:
    assert _game() == _game()


def test_both_components_off_play_as_the_expert() -> None:
    rules = RuleSet("classic", num_players=4)
    lineup = [agents.make("expert"), *(agents.make("greedy") for _ in range(3))]
    expert = play_game(rules, lineup, seed=11, catch=False)
    assert _game(risk=False, infer_bets=False) == (expert.coins, expert.turns)


def test_warmup_leaves_nothing_behind() -> None:
    """The warm-up runs the whole move once (every kernel compiled before the first timed move)
    and then forgets the position, so the first real move is the one a cold agent makes."""
    rules = RuleSet("classic", num_players=4)
    s = new_game(rules, seed=3)
    view = public_view(s, s.current)
    warm, cold = ChampionAgent(), ChampionAgent()
    warm.warmup(public_view(new_game(rules, seed=0), 2))
    legal = legal_action_indices(view)
    assert warm.choose(view, legal) == cold.choose(view, legal)
    assert warm.reader.update(view, s.current, np.ones(5) / 5, np.ones(5) / 5)[0].shape == (0, 5)


# Hidden race cards ----------------------------------------------------------------------------
def _caught_up() -> tuple[GameState, GameState]:
    """Classic, 4 players, seat 0 holding only the blue and green race cards. Before: blue (0)
    leads far ahead. After: two opponents have put a winner card each (hidden, R10) and green
    (1) has caught up; every leg-bet tile is taken, so race bets compete with the pyramid tile."""
    rules = RuleSet("classic", num_players=4)
    before = new_game(rules, seed=0).copy()
    before.stacks = {9: (0,), 5: (1,), 2: (2, 3, 4)}
    before.current = 0
    before.hands = (0b11, *before.hands[1:])
    after = before.copy()
    after.stacks = {12: (1, 0), 3: (2, 3, 4)}
    after.winner_pile = ((1, 0), (2, 0))
    after.hands = (0b11, after.hands[1] & ~1, after.hands[2] & ~1, after.hands[3])
    after.leg_stacks = ((),) * 5
    return public_view(before, 0), public_view(after, 0)


def test_cards_placed_while_a_camel_led_are_read_as_backing_it() -> None:
    before, after = _caught_up()
    table = action_table(before.rules).actions
    moves = {}
    for infer in (True, False):
        bot = ChampionAgent(risk=False, infer_bets=infer)
        bot.choose(before, legal_action_indices(before))  # the seat sees blue lead
        moves[infer] = table[bot.choose(after, legal_action_indices(after))]
    # read: both hidden cards back blue, so a green card is first in line for the 8;
    # greedy's model: they back blue or green by today's odds, so blue (the favourite) is best
    assert moves[True] == RaceBet(0, 1)
    assert moves[False] == RaceBet(0, 0)


def test_the_reader_weighs_cards_by_the_odds_when_placed_and_one_card_per_colour() -> None:
    reader = RaceCardReader(greed=1.0)
    s = new_game(RuleSet("classic", num_players=3), seed=0).copy()
    then, now = np.array([0.6, 0.4, 0, 0, 0]), np.array([0.0, 1.0, 0, 0, 0])
    assert reader.update(s, 0, then, then)[0].shape == (0, 5)
    s.winner_pile = ((1, -1), (0, 2), (1, -1))
    win, lose = reader.update(s, 0, now, now)
    assert lose.shape == (0, 5)
    np.testing.assert_allclose(win[0], [0.3, 0.7, 0, 0, 0])  # the mean of then and now
    np.testing.assert_allclose(win[1], np.eye(5)[2])  # seat 0's own card: its camel is seen
    # seat 1's second card cannot back what its first does: weights 0.3 * 0.7, 0.7 * 0.3
    np.testing.assert_allclose(win[2], [0.5, 0.5, 0, 0, 0])
    s2 = new_game(RuleSet("classic", num_players=3), seed=0).copy()
    s2.winner_pile = ((2, -1),)  # not the piles remembered grown: another game
    np.testing.assert_allclose(reader.update(s2, 0, now, now)[0], [[0, 1, 0, 0, 0]])


def test_pile_payouts_match_the_known_colour_scoring() -> None:
    pile = ((0, 1), (1, 1), (2, 3), (1, 0))
    beliefs = np.eye(5)[[c for _, c in pile]]
    pay = RuleSet("classic").race_bet_payouts
    got = pile_payouts(pile, beliefs, pay, 3)
    for camel in range(5):
        np.testing.assert_allclose(got[camel], pile_evs(pile, np.eye(5)[camel], pay, 3))
    # a card on green now is the third on green: paid the third payout
    assert new_card_payouts(pile, beliefs, pay)[1] == pay[2]
    assert new_card_payouts((), np.zeros((0, 5)), pay)[4] == pay[0]


def test_greedys_model_of_hidden_cards_is_the_odds_beliefs() -> None:
    """Without the reading every hidden card backs a camel with today's odds: with one hidden
    card per owner below it, a new card is paid as greedy's race_card_ev pays it."""
    p = np.array([0.5, 0.2, 0.2, 0.1, 0.0])
    s = new_game(RuleSet("classic", num_players=3), seed=0).copy()
    s.winner_pile = ((1, -1), (2, -1), (0, 3))
    pay = s.rules.race_bet_payouts
    win, lose = odds_beliefs(s, p, p[::-1])
    assert lose.shape == (0, 5)
    np.testing.assert_allclose(win[2], np.eye(5)[3])  # seat 0's own card
    ours = p * new_card_payouts(s.winner_pile, win, pay) - (1 - p)
    # seat 0 cannot bet yellow (3) again: its own card there is the only difference
    np.testing.assert_allclose(ours[:3], race_card_ev(p, s.winner_pile, 0, pay)[:3])


# Risk by standing -----------------------------------------------------------------------------
def test_win_chances_spread_risk_ahead_and_concentrate_it_behind() -> None:
    model = WinModel((0.0, 0.0, 0.0))  # sharpness 1
    sure, gamble = np.zeros(2), np.array([-4.0, 4.0])  # the same mean
    adds = np.stack([sure, gamble])
    x = np.full(2, 0.5)
    ahead = win_chances(model, np.array([[10.0, 0.0], [10.0, 0.0]]), 0, adds, x)
    behind = win_chances(model, np.array([[0.0, 10.0], [0.0, 10.0]]), 0, adds, x)
    assert ahead[0] > ahead[1] and behind[1] > behind[0]


def _rival_on_blue(coins: tuple[int, ...]) -> GameState:
    """Classic, 4 players: seat 1 holds the blue 5 and 3; the last tile of each colour is the
    2 (green's 3), so the pyramid tile (+1) and the leg bets are worth about the same to seat 0,
    which holds no race card."""
    s = new_game(RuleSet("classic", num_players=4), seed=0).copy()
    s.stacks = {11: (0,), 10: (1,), 7: (2, 3, 4)}
    s.current = 0
    s.hands = (0, *s.hands[1:])
    s.leg_stacks = ((2,), (3,), (2,), (2,), (2,))
    s.leg_bets = ((), ((0, 5), (0, 3)), (), ())
    s.coins = coins
    return public_view(s, 0)


def test_risk_follows_the_rival_when_ahead_and_bets_against_it_when_behind() -> None:
    table = action_table(RuleSet("classic", num_players=4)).actions
    ahead, behind = _rival_on_blue((40, 10, 10, 10)), _rival_on_blue((10, 30, 10, 10))
    assert load_win_model(ahead.rules) is not None

    def move(s: GameState, **kwargs) -> object:
        return table[ChampionAgent(infer_bets=False, **kwargs).choose(s, legal_action_indices(s))]

    assert move(ahead, risk=False) == move(behind, risk=False) == TakePyramidTile()
    assert move(ahead, margin=3.0) == TakeLegBet(0)  # hedge: blue pays us when it pays seat 1
    assert move(behind, margin=3.0) == TakeLegBet(1)  # green pays when seat 1's blue fails
    assert move(behind, margin=0.0) == TakePyramidTile()  # the margin bounds the gamble


def test_a_training_pool_gives_each_game_and_seat_its_own_champion() -> None:
    """The champion remembers when each race card of a game was placed, so the games a
    learner plays side by side must not share one: the pool makes a new champion for every
    seat it fills, and keeps sharing the agents that remember nothing."""
    from training.policy.selfplay import OpponentPool

    assert ChampionAgent.per_game and not agents.make("greedy").per_game
    pool = OpponentPool({"champion": 1.0, "greedy": 1.0}, seed=0, max_snapshots=1, players=4)
    names, bots = pool.draw_named(40)
    champions = [b for n, b in zip(names, bots, strict=True) if n == "champion"]
    greedys = [b for n, b in zip(names, bots, strict=True) if n == "greedy"]
    assert champions and greedys
    assert all(isinstance(b, ChampionAgent) for b in champions)
    assert len({id(b) for b in champions}) == len(champions)
    assert len({id(b) for b in greedys}) == 1
