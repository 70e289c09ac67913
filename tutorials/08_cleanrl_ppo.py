# %% [markdown]
# # PPO in plain torch on the vector env
#
# Most single-file reinforcement-learning code (CleanRL's `ppo.py` and its kin) is written on
# Gymnasium's vector API: `envs.reset()`, `envs.step(actions)`, batched arrays. This tutorial
# trains such a PPO, written here in plain torch with no training library, on
# `gymnasium.make_vec("camelup/Classic2p-v0", ...)`: many games stepped together by the
# compiled batch core, with **invalid-action masking** from `info["action_mask"]`. It then saves
# the torch network as a camelup model file and evaluates it with `camelup evaluate`.
#
# The full budget (`TOTAL_STEPS` below, about five minutes on a busy 2-core machine; it reached
# a win share of 0.98 against random there) is what you run at home. The project's CI executes
# this notebook with `CAMELUP_TUTORIAL_QUICK=1`, which shrinks it to a few seconds: the quick
# run shows that every step works, not a trained agent.

# %%
import os

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
NUM_ENVS = 8 if QUICK else 32  # games stepped together
NUM_STEPS = 64  # decisions per game between two updates
TOTAL_STEPS = 2 * NUM_ENVS * NUM_STEPS if QUICK else 300_000  # learner decisions
EVAL_GAMES = 10 if QUICK else 400
print(f"{'quick' if QUICK else 'full'} run: {TOTAL_STEPS} steps, {EVAL_GAMES} evaluation games")

# %% [markdown]
# ## The vector env
#
# Every registered id has a vector entry point: `make_vec` builds `SingleAgentVectorEnv`, the
# batch core behind Gymnasium's `VectorEnv`. Each game seats the learner against a random
# opponent, as `gymnasium.make` does; keyword arguments are the single env's. Here the plain
# board, without the odds features and action values, which makes every step cheap. Game `i`
# of `reset(seed=s)` is the single env's game after `reset(seed=s + i)`.
#
# It resets a finished game in the same step (`metadata["autoreset_mode"]` is
# `AutoresetMode.SAME_STEP`): the observation and mask returned for that game already belong
# to the next episode, which is exactly what CleanRL's loop expects.

# %%
import gymnasium
import numpy as np
import torch

import camelup_env  # noqa: F401  (registers the ids)

torch.set_num_threads(1)  # a small network: more threads only fight over the cores
OBSERVER = {"odds_features": False, "action_values": False}
envs = gymnasium.make_vec(
    "camelup/Classic2p-v0", num_envs=NUM_ENVS, vectorization_mode="vector_entry_point", **OBSERVER
)
print(envs)
print(
    envs.metadata["autoreset_mode"], envs.single_observation_space.shape, envs.single_action_space
)

# %% [markdown]
# ## The agent
#
# CleanRL's actor-critic: two MLPs with orthogonal initialisation. Masking sets the logits of
# illegal actions to a large negative number, so the policy never samples them and the
# log-probabilities and entropy are those of the legal actions.

# %%
from torch import nn
from torch.distributions import Categorical


def layer_init(layer, std=2**0.5, bias_const=0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_size, n_actions, hidden=64):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e8)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


obs_size = envs.single_observation_space.shape[0]
n_actions = int(envs.single_action_space.n)
torch.manual_seed(0)  # the initial weights and every sampled action
agent = Agent(obs_size, n_actions)
optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)

# %% [markdown]
# ## The PPO loop
#
# CleanRL's `ppo.py`, step for step: collect `NUM_STEPS` decisions in every game, compute
# generalised advantages, then several epochs of clipped updates on minibatches. The masks are
# stored with the observations, so the update evaluates each action under the mask it was
# chosen with. The return of every finished episode (1 for a win, 0 for a loss) is the
# learning curve; `info["_final_obs"]` marks the games that finished in a step.

# %%
import time

GAMMA, GAE_LAMBDA, CLIP, ENT_COEF, VF_COEF, MAX_GRAD_NORM = 0.99, 0.95, 0.2, 0.01, 0.5, 0.5
UPDATE_EPOCHS, NUM_MINIBATCHES = 4, 4
batch_size = NUM_ENVS * NUM_STEPS
minibatch_size = batch_size // NUM_MINIBATCHES
num_updates = TOTAL_STEPS // batch_size

obs = torch.zeros((NUM_STEPS, NUM_ENVS, obs_size))
masks = torch.zeros((NUM_STEPS, NUM_ENVS, n_actions), dtype=torch.bool)
actions = torch.zeros((NUM_STEPS, NUM_ENVS), dtype=torch.long)
logprobs = torch.zeros((NUM_STEPS, NUM_ENVS))
rewards = torch.zeros((NUM_STEPS, NUM_ENVS))
dones = torch.zeros((NUM_STEPS, NUM_ENVS))
values = torch.zeros((NUM_STEPS, NUM_ENVS))

next_obs, info = envs.reset(seed=0)
next_obs = torch.as_tensor(next_obs)
next_mask = torch.as_tensor(info["action_mask"])
next_done = torch.zeros(NUM_ENVS)
episode_return = np.zeros(NUM_ENVS)
curve = []  # (decisions so far, return of an episode that just ended)
start = time.perf_counter()
for update in range(num_updates):
    optimizer.param_groups[0]["lr"] = 2.5e-4 * (1.0 - update / num_updates)
    for step in range(NUM_STEPS):
        obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
        actions[step], logprobs[step], values[step] = action, logprob, value.flatten()
        next_obs, reward, terminated, truncated, info = envs.step(action.numpy())
        rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
        episode_return += reward
        ended = terminated | truncated
        for i in np.flatnonzero(ended):
            curve.append(((update * NUM_STEPS + step + 1) * NUM_ENVS, episode_return[i]))
            episode_return[i] = 0.0
        next_obs = torch.as_tensor(next_obs)
        next_mask = torch.as_tensor(info["action_mask"])
        next_done = torch.as_tensor(ended, dtype=torch.float32)

    with torch.no_grad():  # generalised advantage estimation
        next_value = agent.get_value(next_obs).flatten()
        advantages = torch.zeros_like(rewards)
        last = 0.0
        for t in reversed(range(NUM_STEPS)):
            not_done = 1.0 - (next_done if t == NUM_STEPS - 1 else dones[t + 1])
            after = next_value if t == NUM_STEPS - 1 else values[t + 1]
            delta = rewards[t] + GAMMA * after * not_done - values[t]
            advantages[t] = last = delta + GAMMA * GAE_LAMBDA * not_done * last
        returns = advantages + values

    b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, n_actions)
    b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
    b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
    for _ in range(UPDATE_EPOCHS):
        order = torch.randperm(batch_size)
        for first in range(0, batch_size, minibatch_size):
            mb = order[first : first + minibatch_size]
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                b_obs[mb], b_masks[mb], b_actions[mb]
            )
            ratio = (newlogprob - b_logprobs[mb]).exp()
            adv = b_advantages[mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
            v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
            loss = pg_loss - ENT_COEF * entropy.mean() + VF_COEF * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), MAX_GRAD_NORM)
            optimizer.step()

elapsed = time.perf_counter() - start
print(
    f"{num_updates * batch_size} decisions in {elapsed:.0f} s "
    f"({num_updates * batch_size / elapsed:,.0f} per second, updates included), "
    f"{len(curve)} episodes"
)

# %% [markdown]
# ## The learning curve
#
# The win share over the last episodes, at a few points of the run. On the quick budget it is
# noise around the untrained policy's level; on the full one it rises well above one half.

# %%
if curve:
    done_at, won = np.array(curve).T
    window = max(1, min(500, len(won) // 5))
    for k in np.linspace(window, len(won), 5).astype(int):
        print(f"{int(done_at[k - 1]):>9,} decisions: win share {won[k - window : k].mean():.2f}")

# %% [markdown]
# ## Save the torch network as a camelup model file
#
# `agents.actor_critic_file.save_actor_critic` writes the actor and critic MLPs as a camelup
# model file: their tensors plus `camelup.json` (rule set, observer settings, environment
# version, layer sizes), the safe format the referee loads from strangers (see *Model files*).
# It needs no training library: the layers are renamed to the names the loader expects.

# %%
from pathlib import Path
from tempfile import mkdtemp

from agents.actor_critic_file import save_actor_critic
from camelup_env import RuleSet
from camelup_env.camelup_v1 import ENV_VERSION

work = Path(mkdtemp())
path = save_actor_critic(
    work / "cleanrl_ppo.zip",
    agent.actor,
    agent.critic,
    RuleSet("classic", num_players=2),
    observer=envs.observer,  # the observation settings the network learned on
    env_version=ENV_VERSION,
    trained_steps=num_updates * batch_size,
)
print(path)

# %% [markdown]
# ## Evaluate it with `camelup evaluate`
#
# The file is now the agent `ppo:<path>`. `camelup evaluate` plays seat-rotated, paired games
# against the opponents and prints the win share with its 95% interval. Here the command runs
# in this process (`camelup_cli.main.main` is the `camelup` command, arguments as in a shell:
# `camelup evaluate ppo:<path> --opponents random ...`); `--out` keeps its tables in our
# scratch folder.

# %%
from camelup_cli.main import main as camelup

status = camelup(
    [
        "evaluate",
        f"ppo:{path}",
        "--opponents",
        "random",
        "--games",
        str(EVAL_GAMES),
        "--workers",
        "1",
        "--out",
        str(work / "evaluation"),
    ]
)
assert status == 0
