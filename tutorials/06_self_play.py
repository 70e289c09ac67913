# %% [markdown]
# # Self-play: opponent pools, snapshots, and what the shipped agents' curves show
#
# `camelup train` does not train against one fixed opponent. Every episode draws its opponents
# from a *pool*: frozen snapshots of the learner itself and scripted bots, in the proportions of
# the config's `opponent_mix`. This tutorial builds a pool, adds a snapshot, watches what a batch
# of games draws, and then reads the curves and evaluations of the shipped agents.

# %%
import os

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"

# %% [markdown]
# ## A pool
#
# `training.policy.selfplay.OpponentPool(mix, seed, max_snapshots)` draws opponents by weight.
# `"self"` means a frozen snapshot of the learner, picked uniformly among the kept ones (so old
# strategies are not forgotten); before the first snapshot exists it falls back to `random`. Any
# other key is an agent name.

# %%
from collections import Counter

from training.policy.selfplay import OpponentPool

mix = {"self": 0.4, "greedy": 0.3, "heuristic": 0.2, "random": 0.1}
pool = OpponentPool(mix, seed=0, max_snapshots=3)
print(Counter(type(o).__name__ for o in pool.draw(1000)))

# %% [markdown]
# ## A snapshot joins the pool
#
# During training a snapshot is saved every `snapshot_every` decisions (a camelup model file,
# tensors only) and added with `pool.add_snapshot(path)`. Here an untrained policy stands in
# for one. A snapshot plays as a `PolicyAgent`: in the batched training env
# (`training.policy.vec_env.CamelUpVecEnv`) all the games where the same snapshot must move are
# decided by one forward pass (`act_batch`).

# %%
import tempfile
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO

from agents.ppo import save_policy
from camelup_env import RuleSet
from camelup_env.camelup_v1 import ENV_VERSION
from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

torch.set_num_threads(1)
rules = RuleSet("classic", num_players=2)
settings = {"odds_features": False, "race_samples": 64, "action_values": False}
venv = CamelUpVecEnv(2, rules, fixed_opponents(["random"]), seed=0, **settings)
policy = MaskablePPO(
    "MlpPolicy", venv, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [32]}, device="cpu"
)
snapshot = save_policy(
    policy, Path(tempfile.mkdtemp()) / "step_0", rules, observer=settings, env_version=ENV_VERSION
)
pool.add_snapshot(str(snapshot))
print(Counter(type(o).__name__ for o in pool.draw(1000)))

# %% [markdown]
# Games in the batched env draw from the pool at every episode start, so the learner meets a
# new mixture each game. A short run with this pool as the opponent source:

# %%
learner_env = CamelUpVecEnv(8, rules, lambda: pool.draw(1), seed=1, **settings)
learner_env.reset()
for _ in range(40 if QUICK else 400):
    masks = learner_env.action_masks()
    learner_env.step(masks.argmax(axis=1))  # the first legal action: a stand-in learner
print({kind: f"{seconds:.2f} s" for kind, seconds in learner_env.timers.items()})

# %% [markdown]
# ## What the shipped agents' curves show
#
# Each run writes `eval.csv` (win share against each evaluation opponent, with a 95% interval)
# and `learning_curve.png`. Both shipped agents were trained on this pipeline: `classic2` with
# 500-game periodic evaluations against greedy and expert, `classic4`'s last run (6M decisions
# with the dice's luck taken out of its rewards) with 200-game ones against greedy (one agent
# against three copies in the 4-player game, where 0.25 is even). Each one's final 2,000-game
# evaluation is `evaluation.md`.

# %%
import csv

import matplotlib.pyplot as plt

ROOT = Path.cwd()
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
for ax, name in zip(axes, ("classic2", "classic4"), strict=True):
    rows = list(csv.DictReader((ROOT / "results" / "models" / name / "eval.csv").open()))
    for opponent in sorted({r["opponent"] for r in rows}):
        mine = [r for r in rows if r["opponent"] == opponent]
        steps = [int(r["timesteps"]) for r in mine]
        ax.errorbar(
            steps,
            [float(r["win_share"]) for r in mine],
            yerr=[
                [float(r["win_share"]) - float(r["ci_low"]) for r in mine],
                [float(r["ci_high"]) - float(r["win_share"]) for r in mine],
            ],
            marker="o",
            capsize=3,
            label=opponent,
        )
    ax.axhline(1 / int(rows[0]["num_players"]), color="grey", ls=":", label="equal player")
    ax.set_title(f"{name}: periodic evaluations ({rows[0]['games']} games each)")
    ax.set_xlabel("learner decisions")
axes[0].set_ylabel("win share")
axes[1].legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# The 500-game intervals are about ±0.04 wide, the 200-game ones about ±0.07. Earlier runs
# used 40-game evaluations, about ±0.15 wide: a 2-player run's 0.64 against greedy at 200k
# decisions measured 0.47 over 2,000 games (`results/models/README.md`, attempt 4). That is
# why `camelup train` evaluates with
# 500 paired, seat-rotated games in a background process. The final evaluations:

# %%
for name in ("classic2", "classic4"):
    print((ROOT / "results" / "models" / name / "evaluation.md").read_text())
