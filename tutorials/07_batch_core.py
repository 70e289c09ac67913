# %% [markdown]
# # The batch core: a million steps
#
# `camelup_env.batch` plays many games at once as arrays, stepped by compiled kernels, under
# the same rules and action indices as the engine. This tutorial plays a million random
# actions, steps games with chosen dice, and moves games to and from the engine's `GameState`.

# %%
import os
import time

import numpy as np

from camelup_env import RuleSet, legal_action_indices, render_text
from camelup_env.batch import BatchGames, random_streams

quick = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
rules = RuleSet("classic", num_players=4)
games = BatchGames(rules, 1024, seed=0)  # game i is seeded with 0 + i
streams = random_streams(1024, seed=1)  # the random player's own streams: the dice stay put
games.step(games.random_actions(streams))  # the first call loads (or compiles) the kernels
print(games.legal_action_mask().shape, games.current_player[:8])

# %% [markdown]
# ## A million random actions
#
# One call of `random_actions` and one of `step` move every game of the batch. With
# `autoreset=True` a game that ends is set up again at once, and its final coins come back in
# `result.final_coins`.

# %%
steps = 1_000_000 // len(games)
finished, wins = 0, np.zeros(4)
start = time.perf_counter()
for _ in range(steps):
    result = games.step(games.random_actions(streams), autoreset=True)
    finished += int(result.terminated.sum())
    wins += result.rewards[result.terminated].clip(min=0).sum(axis=0)
elapsed = time.perf_counter() - start
print(
    f"{steps * len(games):,} actions in {elapsed:.2f} s: "
    f"{steps * len(games) / elapsed:,.0f} actions/s, {finished:,} games finished"
)
print("win share by seat:", np.round(wins / finished, 3))

# %% [markdown]
# Random players take the pyramid tile rarely (it is one of about forty actions), so random
# games run long. Seat 0 moves first in every game.
#
# ## Chosen dice
#
# `step(actions, rolls)` takes each game's die as (die, camel shown, number), the batch
# counterpart of `engine.apply_outcome`: here every game takes a pyramid tile and the blue
# die shows 3.

# %%
few = BatchGames(rules, 3, seed=42)
print(render_text(few.to_states([0])[0]))
pyramid = 5  # the index of TakePyramidTile in classic
result = few.step(np.full(3, pyramid), rolls=np.array([[0, 0, 3]] * 3))
print(result.rolls[0], "->")
print(render_text(few.to_states([0])[0]))

# %% [markdown]
# ## To and from the engine
#
# `to_states` gives the engine's `GameState`s, so everything written for the engine (search,
# odds, rendering, replays) works on a game of the batch; `from_states` makes a batch of
# states, for instance to play one position on from many dice streams at once.

# %%
state = few.to_states([1])[0]
print(legal_action_indices(state) == list(np.flatnonzero(few.legal_action_mask()[1])))
same_position = BatchGames.from_states([state] * (200 if quick else 2000), seed=7)
streams = random_streams(len(same_position), seed=3)
while not same_position.game_over.all():
    same_position.step(same_position.random_actions(streams))
coins = same_position.coins
print("mean final coins by seat from this position:", coins.mean(axis=0).round(2))

# %% [markdown]
# ## A full-speed training run
#
# `training.policy.vec_env.CamelUpVecEnv` is SB3's face of the learner-seat loop on the batch core:
# 128 games, the learner in a random seat of each, three random opponents drawn by the batch
# core. With the plain observation (no odds features) nothing but PPO itself costs much, so
# this is about as fast as MaskablePPO trains here.

# %%
import tempfile
from pathlib import Path

from sb3_contrib import MaskablePPO

from agents.ppo import save_policy
from camelup_env.camelup_v1 import ENV_VERSION
from tournament.evaluate import evaluate
from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

plain = {"odds_features": False, "action_values": False}
venv = CamelUpVecEnv(128, rules, fixed_opponents(["random"] * 3), seed=0, **plain)
model = MaskablePPO(
    "MlpPolicy",
    venv,
    n_steps=32,
    batch_size=2048,
    n_epochs=3,
    policy_kwargs={"net_arch": [256, 256]},
    device="cpu",
    seed=0,
)
decisions = 4096 * (10 if quick else 100)
start = time.perf_counter()
model.learn(decisions)
print(
    f"{decisions:,} learner decisions in {time.perf_counter() - start:.1f} s: "
    f"{decisions / (time.perf_counter() - start):,.0f} decisions/s"
)

# %% [markdown]
# The trained policy is a model file like any other; against three random players it plays
# its evaluation on the batch core too (both decide whole batches), 2,000 games in seconds.

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = save_policy(
        model,
        Path(tmp) / "model.zip",
        rules,
        observer=venv.learner.observers[0].metadata,
        env_version=ENV_VERSION,
    )
    result = evaluate(f"ppo:{path}", "random", rules, 400 if quick else 2000, seed=1)
print(
    f"win share against three random players: {result.win_share:.3f} "
    f"[{result.ci_low:.3f}, {result.ci_high:.3f}] over {result.games} games (0.25 is even)"
)
