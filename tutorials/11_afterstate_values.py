# %% [markdown]
# # Learn a value of afterstates
#
# A policy says which move to make. A value says how good a position is; with the dice's
# chances known exactly, the best move is the one whose outcomes are worth most in
# expectation. That is how backgammon's learners played (TD-Gammon), and this tutorial trains
# one for two-player Camel Up in minutes, then plays it against the `greedy` bot
# (the method, the gate and every attempt: [Afterstate values](../afterstate.md)).

# %%
import os

from camelup_env import RuleSet
from camelup_env.batch import BatchGames
from camelup_env.batch.afterstates import afterstates

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
TRAIN_GAMES = 40 if QUICK else 2_000  # self-play games (two players)
EVAL_GAMES = 20 if QUICK else 400  # evaluation games against greedy (seat-rotated, paired)

rules = RuleSet("classic", num_players=2)

# %% [markdown]
# ## Every move's outcomes, with their chances
#
# `afterstates` lists every legal action of every game of a batch and every state it can lead
# to: one for a bet or a tile, each die left and each of its faces for a pyramid tile. Their
# chances sum to one per action, so any value of the outcome rows becomes each action's
# expected value.

# %%
games = BatchGames(rules, 4, seed=0)
after = afterstates(games)
print(f"{len(after)} outcome rows for {len(games)} positions")
pyramid = (after.game == 0) & (after.action == 5)  # game 0 taking a pyramid tile
for (die, camel, number), p in zip(after.rolls[pyramid], after.probability[pyramid], strict=True):
    print(f"die {die} shows camel {camel}, {number}: chance {p:.4f}")
held = after.games.state.pyramid_held.astype(float)  # pyramid tiles each seat holds
print("pyramid tiles seat 0 expects to hold after each action of game 0:")
print(after.expect(held)[0, :8, 0])

# %% [markdown]
# ## Learning the value
#
# The learner plays itself on the batch core: every seat takes the move whose outcomes its
# network values most, and each position after a move learns what the next mover's choice is
# worth to it (TD(0) over the exact expectation of the dice). Its inputs are the seat's own
# observation and each seat's equity: its coins and what its bets are expected to pay, at the
# exact leg odds and the race odds. The network does not start blank: each seat's score starts
# as its equity times a weight (the *equity skip*, 2.0 for two players), so the first games are
# already played as a coin counter would, and the layers learn what the equity misses. A third
# of the seats are the distilled `greedy`, so the value also meets a player that does not think
# like it. Self-play keeps a house rule of its own: after a round in which both seats only
# moved their desert tiles (a pass), the next must roll or bet; left alone, two values that
# each prefer the other to roll learn to pass for ever.

# %%
from tempfile import mkdtemp

from training.afterstate.trainer import AfterstateConfig, train

config = AfterstateConfig(
    name="tutorial_afterstate",
    out_dir=mkdtemp(prefix="camelup-"),  # a new folder: from scratch, apart from other runs
    preset="classic",
    num_players=2,
    total_games=TRAIN_GAMES,
    games=32 if QUICK else 256,
    hidden=[32] if QUICK else [256, 256],
    equity_weight=2.0,
    opponent_mix={"self": 0.7, "ppo:greedy_classic2": 0.3},
    snapshot_every=10**9,
    checkpoint_every=1_000,
)
value_file = train(config)

# %% [markdown]
# ## Against greedy
#
# The learned file plays as the agent `afterstate:PATH`; so does the run's first snapshot, the
# equity skip before any learning (`snapshots/value_0.npz`). Seat-rotated games on paired seeds
# (each seed played from both seats, so both see the same dice): a share above 0.5 beats
# greedy, and the two files' difference is what the learning added.

# %%
from pathlib import Path

import agents
from camelup_env.match import observe, run_game
from tournament.ratings import mean_ci

greedy = agents.make("greedy")
files = {"start": Path(config.out_dir) / "snapshots" / "value_0.npz", "learned": value_file}
for label, path in files.items():
    player = agents.make(f"afterstate:{path}")
    shares, seeds = [], []
    for game in range(EVAL_GAMES):
        seed, seat = 900_000 + game // 2, game % 2
        player.reset(seed)
        seats = [player, greedy] if seat == 0 else [greedy, player]
        result, _ = run_game(
            rules, seed, lambda s, _, seats=seats: seats[s.current](observe(s, s.current), s)
        )
        shares.append(1 / len(result.winners) if seat in result.winners else 0.0)
        seeds.append(seed)
    mean, half = mean_ci(shares, seeds)
    print(f"{label} against greedy, {EVAL_GAMES} games: {mean:.3f} ± {half:.3f}")
