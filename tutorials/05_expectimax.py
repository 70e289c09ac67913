# %% [markdown]
# # Search with the chance API: expectimax
#
# The engine makes chance explicit: `chance_outcomes(state, action)` lists every die roll an
# action can lead to with its exact probability, and `apply_outcome(state, action, roll)` applies
# one without drawing. That is all a search needs. This tutorial writes a depth-limited
# expectimax bot in about 40 lines and plays it against the greedy agent.

# %%
from camelup_env import (
    RuleSet,
    TakeLegBet,
    TakePyramidTile,
    action_table,
    apply_outcome,
    chance_outcomes,
    legal_actions,
    new_game,
)

state = new_game(RuleSet("classic", num_players=2), seed=0)
for roll, p in chance_outcomes(state, TakePyramidTile())[:5]:
    print(roll, p)
print(
    len(chance_outcomes(state, TakePyramidTile())),
    "outcomes, total probability",
    sum(p for _, p in chance_outcomes(state, TakePyramidTile())),
)

# %% [markdown]
# ## The bot
#
# The value of a position for seat `me` is its coin lead over the best other seat. At our turn we
# take the best action, at the opponent's the worst for us (a two-player game), and a pyramid tile
# averages over its die rolls. Depth counts moves; at depth 0 the coin lead is the estimate.
# Leg bets pay at the leg's end, which a shallow search rarely reaches, so the estimate adds the
# exact expected value of the leg-bet tiles each seat holds (`odds.leg_rank_probabilities`).
# To keep the tree small the bot only considers pyramid tiles and leg bets.

# %%
from agents.base import Agent
from camelup_env import odds
from camelup_env.game.payouts import leg_tile_ev


def estimate(s, me):
    """Coins plus the expected pay of held leg-bet tiles, as a lead over the other seat."""
    if s.game_over:
        return s.coins[me] - max(c for i, c in enumerate(s.coins) if i != me)
    leg = odds.leg_rank_probabilities(s)
    worth = [float(c) for c in s.coins]
    for seat, tiles in enumerate(s.leg_bets):
        for camel, value in tiles:
            worth[seat] += leg_tile_ev(leg, camel, value)
    return worth[me] - max(w for i, w in enumerate(worth) if i != me)


def candidates(s):
    """Pyramid tiles and leg bets only: a smaller tree (race bets and tiles left to greedy)."""
    chosen = [a for a in legal_actions(s) if isinstance(a, (TakePyramidTile, TakeLegBet))]
    return chosen or legal_actions(s)


def search(s, me, depth):
    if depth == 0 or s.game_over:
        return estimate(s, me)
    values = []
    for action in candidates(s):
        outcomes = chance_outcomes(s, action)
        values.append(
            sum(
                float(p) * search(apply_outcome(s, action, roll)[0], me, depth - 1)
                for roll, p in outcomes
            )
        )
    return max(values) if s.current == me else min(values)


class ExpectimaxBot(Agent):
    name = "expectimax"

    def __init__(self, depth=2):
        self.depth = depth

    def act(self, observation, public_state):
        s, me = public_state, public_state.current
        table = action_table(s.rules)
        best = max(
            candidates(s),
            key=lambda a: sum(
                float(p) * search(apply_outcome(s, a, roll)[0], me, self.depth - 1)
                for roll, p in chance_outcomes(s, a)
            ),
        )
        return table.index[best]


# %% [markdown]
# ## Against greedy
#
# A few games, seats rotated. A handful of games says nothing about strength (that needs
# hundreds of paired games, see the tournaments page); it shows the bot plays legal, whole games.

# %%
import os
import time

from agents import make
from camelup_env.match import play_game

rules = RuleSet("classic", num_players=2)
games = 2 if os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1" else 20
bot, greedy = ExpectimaxBot(depth=2), make("greedy")
start = time.perf_counter()
for seed in range(games):
    seats = [bot, greedy] if seed % 2 == 0 else [greedy, bot]
    result = play_game(rules, seats, seed=seed)
    me = seed % 2
    print(f"game {seed}: expectimax {result.coins[me]} coins, greedy {result.coins[1 - me]}")
print(f"{time.perf_counter() - start:.0f} s")
