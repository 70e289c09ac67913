# %% [markdown]
# # Odds and a greedy bot
#
# `camelup_env.odds` computes the leg odds of a position exactly (every remaining die order and
# value) and estimates the race odds by simulation. This tutorial reads both for one position,
# then writes a greedy bot in about 30 lines that bets when a leg-bet tile is worth more than
# the one coin a pyramid tile pays.

# %%
import numpy as np

from camelup_env import (
    RuleSet,
    TakeLegBet,
    TakePyramidTile,
    apply_action,
    new_game,
    odds,
    render_text,
)

rng = np.random.default_rng(3)
state = new_game(RuleSet("classic", num_players=3), seed=3)
for _ in range(3):  # three dice revealed
    state, _ = apply_action(state, TakePyramidTile(), rng)
print(render_text(state))

# %% [markdown]
# ## Leg odds (exact)
#
# `leg_rank_probabilities(state)[camel, rank]` is the probability that a camel ends this leg at
# each rank (rank 0 leads). `leg_bet_evs` turns it into the expected coins of each colour's top
# leg-bet tile.

# %%
colours = state.rules.colours
leg = odds.leg_rank_probabilities(state)
evs = odds.leg_bet_evs(state)
for camel, colour in enumerate(colours[: len(evs)]):
    print(
        f"{colour:7s} P(first)={leg[camel, 0]:.3f}  P(second)={leg[camel, 1]:.3f}"
        f"  leg bet EV={evs[camel]:+.2f}"
    )

# %% [markdown]
# ## Race odds (Monte Carlo)
#
# `race_probabilities` plays the rest of the race many times; it returns the probability of each
# racing camel finishing first or last overall, with standard errors.

# %%
race = odds.race_probabilities(state, n_samples=2000, seed=0)
for camel, colour in enumerate(colours[: len(race.winner)]):
    print(
        f"{colour:7s} wins {race.winner[camel]:.3f} ± {1.96 * race.winner_se[camel]:.3f}"
        f"   loses {race.loser[camel]:.3f}"
    )

# %% [markdown]
# ## A greedy bot in 30 lines
#
# An agent is a callable `(observation, public_state) -> action index`. Ours takes the leg-bet
# tile with the best expected value when it beats the sure coin of a pyramid tile, else rolls.
# (The shipped `greedy` agent does the same over *every* action: tiles, race bets, photographs.)

# %%
from agents.base import Agent, legal_indices
from camelup_env import action_table


class LegBetBot(Agent):
    """Best leg bet if worth more than a pyramid tile's coin, else take a pyramid tile."""

    name = "leg-bet-bot"

    def act(self, observation, public_state):
        legal = set(int(i) for i in legal_indices(observation))
        table = action_table(public_state.rules)
        evs = odds.leg_bet_evs(public_state)
        best, best_value = None, 1.0  # a pyramid tile pays 1 coin for sure
        for camel, value in enumerate(evs):
            index = table.index[TakeLegBet(camel)] if not np.isnan(value) else None
            if index in legal and value > best_value:
                best, best_value = index, value
        if best is not None:
            return best
        roll = table.pyramid
        return roll if roll in legal else min(legal)


bot = LegBetBot()

# %% [markdown]
# ## Playing it against random
#
# `camelup_env.match.play_game` plays one game between agents, one per seat. Seats are rotated
# so that neither bot always starts.

# %%
from agents import make
from camelup_env.match import play_game

rules = RuleSet("classic", num_players=2)
games = 6 if __import__("os").environ.get("CAMELUP_TUTORIAL_QUICK") == "1" else 100
wins = 0
for seed in range(games):
    seats = [bot, make("random")] if seed % 2 == 0 else [make("random"), bot]
    result = play_game(rules, seats, seed=seed)
    wins += (0 if seed % 2 == 0 else 1) in result.winners
print(f"LegBetBot won {wins} of {games} games against random")
