# %% [markdown]
# # Your first game
#
# This tutorial plays a game of Camel Up through the PettingZoo environment
# `camelup_env.camelup_v1`: how a turn goes, what an agent observes, and how to draw the board.

# %%
import numpy as np

from camelup_env import camelup_v1

env = camelup_v1.env(preset="classic", num_players=2, render_mode="rgb_array")
env.reset(seed=7)
print(env.agents)

# %% [markdown]
# ## Reading an observation
#
# It is `player_0`'s turn. `env.last()` returns its observation: a dict with the flat
# `"observation"` vector and the `"action_mask"` of legal actions.

# %%
obs, reward, termination, truncation, info = env.last()
print(env.agent_selection, obs["observation"].shape, obs["observation"].dtype)
legal = np.flatnonzero(obs["action_mask"])
print(len(legal), "legal actions of", env.action_space(env.agent_selection).n)

# %% [markdown]
# The vector is made of named slices; `observation_layout` maps each name to its place, and the
# observer cuts one slice out in its documented shape.

# %%
base = env.unwrapped
for name, (start, stop) in list(base.observation_layout.items())[:8]:
    print(f"{name:28s} [{start}:{stop}]")
print(base.observer.view(obs["observation"], next(iter(base.observation_layout))))

# %% [markdown]
# Actions are integers; the engine's action table names them.

# %%
from camelup_env import action_table, describe

actions = action_table(base.state.rules).actions
for index in legal[:6]:
    print(index, describe(actions[index], base.state.rules))

# %% [markdown]
# ## Playing to the end
#
# Random legal moves for both seats until the game is over. A finished agent must step `None`.

# %%
rng = np.random.default_rng(0)
for _agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    done = termination or truncation
    env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
print("coins:", base.state.coins)

# %% [markdown]
# ## Rendering the board
#
# `render_mode="rgb_array"` draws the board with the project's own renderer;
# `"ansi"` gives text.

# %%
import matplotlib.pyplot as plt

picture = env.render()
plt.figure(figsize=(10, 5))
plt.imshow(picture)
plt.axis("off")
plt.show()

# %%
from camelup_env import render_text

print(render_text(base.state))
