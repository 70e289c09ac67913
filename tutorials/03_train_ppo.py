# %% [markdown]
# # Train MaskablePPO in five minutes
#
# This tutorial trains sb3-contrib's `MaskablePPO` against fixed opponents **outside**
# `camelup train`, saves it as a camelup model file (the one-line "bring your own model" step),
# evaluates it against the baselines with the referee, and plots its learning curve.
#
# The full budget (`STEPS` below, about five minutes on 2 cores) is what you run at home. The
# project's CI executes this notebook with `CAMELUP_TUTORIAL_QUICK=1`, which shrinks the budget
# to a few seconds of training: the quick run shows that every step works, not a trained agent.

# %%
import os

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
STEPS = 4_096 if QUICK else 100_000  # learner decisions
EVAL_GAMES = 10 if QUICK else 400
print(f"{'quick' if QUICK else 'full'} run: {STEPS} steps, {EVAL_GAMES} evaluation games")

# %% [markdown]
# ## The environment
#
# `training.policy.vec_env.CamelUpVecEnv` plays many games side by side in one process, one
# learner seat per game (a random seat every episode) and scripted opponents in the others. It
# answers MaskablePPO's `action_masks()`. The observer settings are the learner's observation;
# here the plain board without the odds features, which makes every step cheap.
# (`gymnasium.make("camelup/Classic2p-v0")` gives the same game as a single `gymnasium.Env`.)

# %%
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from camelup_env import RuleSet
from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

torch.set_num_threads(1)  # a small network: more threads only fight over the cores
rules = RuleSet("classic", num_players=2)
OBSERVER = {"odds_features": False, "race_samples": 200, "action_values": False}
venv = VecMonitor(
    CamelUpVecEnv(4, rules, opponents=fixed_opponents(["random"]), seed=0, **OBSERVER)
)
print(venv.observation_space.shape, venv.action_space)

# %% [markdown]
# ## Training
#
# A callback records the return (1 for a win, 0 for a loss) of every finished episode with the
# step it ended at: the learning curve.

# %%
import time

from stable_baselines3.common.callbacks import BaseCallback


class Curve(BaseCallback):
    def __init__(self):
        super().__init__()
        self.points = []  # (timestep, episode return)

    def _on_step(self):
        for info in self.locals["infos"]:
            if "episode" in info:
                self.points.append((self.num_timesteps, info["episode"]["r"]))
        return True


curve = Curve()
model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, seed=0, verbose=0)
start = time.perf_counter()
model.learn(STEPS, callback=curve)
print(
    f"{model.num_timesteps} steps in {time.perf_counter() - start:.0f} s, "
    f"{len(curve.points)} episodes"
)

# %% [markdown]
# ## Bring your own model: one line
#
# `agents.ppo.save_policy` writes any `MaskablePPO` as a camelup model file: the policy's tensors
# plus `camelup.json` with the rule set, the observer settings and the environment version
# (see *Model files*). Nothing in the file is executed when it is loaded, so the referee accepts
# it from strangers.

# %%
from pathlib import Path
from tempfile import mkdtemp

from agents.ppo import save_policy
from camelup_env.camelup_v1 import ENV_VERSION

path = save_policy(
    model, Path(mkdtemp()) / "my_model.zip", rules, observer=OBSERVER, env_version=ENV_VERSION
)
print(path)

# %% [markdown]
# The model is now the agent `ppo:<path>`: `camelup evaluate ppo:<path> --opponents
# random,heuristic` from the shell, or `tournament.evaluate.evaluate` from Python, plays
# seat-rotated games in the referee's sandbox and gives the win share with its 95% interval.
# The same spec enters it in a tournament (`agents: [ppo:<path>, greedy, ...]`).

# %%
from tournament.evaluate import evaluate

for opponent in ("random", "heuristic"):
    result = evaluate(f"ppo:{path}", opponent, rules, games=EVAL_GAMES, seed=0, workers=1)
    print(
        f"vs {opponent:9s} win share {result.win_share:.2f} "
        f"[{result.ci_low:.2f}, {result.ci_high:.2f}]  coins {result.mean_coins:.1f}"
        f" vs {result.mean_opponent_coins:.1f}"
    )

# %% [markdown]
# ## The learning curve
#
# The win share over the last 200 episodes against the step count. On the quick budget it is
# flat noise around the untrained policy's level; on the full one it rises.

# %%
import matplotlib.pyplot as plt
import numpy as np

if not curve.points:  # the quick budget may end before any game does
    curve.points = [(0, 0.0)]
steps, returns = np.array(curve.points).T
window = min(200, len(returns))
smooth = np.convolve(returns, np.ones(window) / window, mode="valid")
plt.figure(figsize=(7, 3.5))
plt.plot(steps[window - 1 :], smooth)
plt.xlabel("learner decisions")
plt.ylabel(f"win share (last {window} episodes)")
plt.title("MaskablePPO against random, classic 2 players")
plt.grid(alpha=0.3)
plt.show()
