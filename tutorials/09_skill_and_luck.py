# %% [markdown]
# # Skill apart from luck
#
# Most of what decides a game of Camel Up is the dice. This tutorial measures the luck of each
# roll exactly, takes it out of a game's result, and uses that to tell two bots apart in a few
# hundred games instead of thousands (the method: [Skill and luck](../luck.md)).

# %%
import os

from camelup_env import RuleSet, TakePyramidTile, apply_outcome, chance_outcomes, new_game
from camelup_env.odds.luck import roll_luck
from camelup_env.odds.win import load_win_model

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
GAMES = 40 if QUICK else 400  # evaluation games (seat-rotated, paired)

rules = RuleSet("classic", num_players=2)
V = load_win_model(rules)  # each seat's chance to win a state
state = new_game(rules, seed=3)
print("chance to win at the deal:", V([state])[0].round(3))

# %% [markdown]
# ## The luck of one roll
#
# Taking a pyramid tile has 15 possible outcomes in classic (5 dice, 3 distinct faces each).
# The luck of the outcome that happened is how much it moved each seat's chance to win compared
# with the average over all the outcomes that could have happened, weighted by their exact
# probabilities. Averaged over the outcomes, the luck is exactly zero.

# %%
outcomes = chance_outcomes(state, TakePyramidTile())
for roll, p in outcomes[:4]:
    after, _ = apply_outcome(state, TakePyramidTile(), roll)
    print(f"{roll}  p={float(p):.3f}  V(after)={V([after])[0].round(3)}")
mean = sum(float(p) * roll_luck(state, roll, V) for roll, p in outcomes)
print("expected luck:", mean.round(12))

# %% [markdown]
# ## Two bots, raw and luck-adjusted
#
# Expert against greedy, seat-rotated on paired seeds (the two seatings of a seed see the same
# dice), played in this process. Each game's luck is measured afterwards by replaying its seed
# and actions (`tournament.luck.GameLuck.shipped`, what `camelup evaluate` does for every game
# the referee plays: each roll's luck scaled by the share fitted for its leg and the tiles left,
# which the model's overstated swings need, plus the luck of a few covariates - the seats'
# leg and race coins apart, and the bets the next seats are about to take - at weights fitted
# per leg). The adjusted win share has the same expectation as the raw one; its interval,
# clustered by seed like the raw one, is narrower.

# %%
import agents
from camelup_env.match import observe, run_game
from tournament.luck import GameLuck
from tournament.ratings import mean_ci

expert, greedy = agents.make("expert"), agents.make("greedy")
luck = GameLuck.shipped(rules)
assert luck is not None  # classic has a fitted model
shares, adjusted_shares, seeds = [], [], []
for game in range(GAMES):
    seed, seat = 800_000 + game // 2, game % 2  # expert's seat rotates; the seed repeats
    seats = [expert, greedy] if seat == 0 else [greedy, expert]
    result, actions = run_game(
        rules, seed, lambda s, _, seats=seats: seats[s.current](observe(s, s.current), s)
    )
    share = 1 / len(result.winners) if seat in result.winners else 0.0
    shares.append(share)
    adjusted_shares.append(share - luck.of_game(seed, actions)[seat])
    seeds.append(seed)
raw_mean, raw_half = mean_ci(shares, seeds)
adj_mean, adj_half = mean_ci(adjusted_shares, seeds)
print(f"expert vs greedy, {GAMES} games")
print(f"raw      {raw_mean:.3f} ± {raw_half:.3f}")
print(f"adjusted {adj_mean:.3f} ± {adj_half:.3f}")
print(
    f"the adjusted interval is {adj_half / raw_half:.2f} of the raw one: the same precision "
    f"from {(adj_half / raw_half) ** 2:.2f} of the games"
)

# %% [markdown]
# ## One game, drawn
#
# Seat 0's chance to win move by move (raw), and the same less the luck so far (adjusted): the
# raw line jumps with the dice, the adjusted one moves only where a decision moved it.

# %%
import matplotlib.pyplot as plt

from camelup_env.odds.luck import LuckLedger, values

bots = [expert, greedy]
ledger = LuckLedger(V, luck.deal_mean, luck.shares, luck.covariates, luck.weights)
raw, adjusted = [], []


def record(state):
    value = values([state], V)[0][0]  # V, or the actual win share once the game is over
    raw.append(value)
    adjusted.append(value - ledger.total[0])


def on_deal(state):
    ledger.deal(state)
    record(state)


def on_step(state, seat, action, events):
    ledger.step(state, action, events)
    record(state)


run_game(
    rules,
    11,
    lambda s, _: bots[s.current](observe(s, s.current), s),
    on_deal=on_deal,
    on_step=on_step,
)
plt.figure(figsize=(7, 3))
plt.plot(raw, label="raw: V(state)")
plt.plot(adjusted, label="adjusted: V(state) - luck so far")
plt.xlabel("move")
plt.ylabel("seat 0's chance to win")
plt.legend()
plt.tight_layout()
plt.show()
