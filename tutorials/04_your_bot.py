# %% [markdown]
# # Write your own bot and enter it in a tournament
#
# A bot is any callable `bot(observation, public_state) -> action index` (an `agents.Agent`
# subclass is the usual form). This tutorial writes one into its own module, enters it in a
# tournament against the baselines, and reads the ratings, the table and the chart. The
# tournament runs every bot in its own sandboxed process (see *Tournaments*), so a bug in your
# bot costs it the game, never the tournament.
#
# The CI run of this notebook (`CAMELUP_TUTORIAL_QUICK=1`) plays a handful of games; at home,
# play a few hundred before believing a ranking.

# %%
import os

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
GAMES = 24 if QUICK else 288  # whole rounds: 6 seat orders x 4 rotations
print(f"{'quick' if QUICK else 'full'} run: {GAMES} games")

# %% [markdown]
# ## The bot
#
# It bets on the camel in the lead while that camel's top leg-bet tile is worth at least 2
# coins, and otherwise rolls. `public_state` is the state as this seat may see it (other
# players' race cards are hidden); `observation["action_mask"]` lists the legal actions.
# The module must be importable by the bot's process, so it goes in a folder on `PYTHONPATH`.

# %%
import sys
import tempfile
from pathlib import Path

BOT = """
from agents import Agent, legal_indices
from camelup_env import TakeLegBet, TakePyramidTile, action_table, odds


class LeaderBot(Agent):
    description = "bets on the leader while its tile is worth 2+ coins, else rolls"

    def act(self, observation, public_state):
        legal = set(int(i) for i in legal_indices(observation))
        table = action_table(public_state.rules)
        evs = odds.leg_bet_evs(public_state)       # expected coins of each top leg-bet tile
        best = int(evs.argmax())
        bet = table.index[TakeLegBet(best)]
        if bet in legal and evs[best] >= 2.0:
            return bet
        roll = table.index[TakePyramidTile()]
        return roll if roll in legal else min(legal)
"""
folder = Path(tempfile.mkdtemp())
(folder / "my_bots.py").write_text(BOT)
sys.path.insert(0, str(folder))  # for this kernel
os.environ["PYTHONPATH"] = os.pathsep.join(  # for the bots' own processes
    p for p in (str(folder), os.environ.get("PYTHONPATH")) if p
)

import agents

bot = agents.make("py:my_bots:LeaderBot")
print(bot, "-", bot.description)

# %% [markdown]
# ## The tournament
#
# `py:my_bots:LeaderBot` is the bot's agent spec; from the shell the same tournament is
# `camelup tournament --agents py:my_bots:LeaderBot,greedy,heuristic,random --players 4 --games
# 300 --out runs/mine`. Every seat and every cyclic order is played, and all games of a round
# share their dice (paired seeds). The results go to a folder of their own, away from the bot's
# folder: a folder on `PYTHONPATH` named like a package (`tournament`, say) would hide it.

# %%
from tournament.config import tournament_config
from tournament.run import run_tournament

out = Path(tempfile.mkdtemp()) / "my-bot"
config = tournament_config(
    None,
    {
        "name": "my-bot",
        "agents": ["py:my_bots:LeaderBot", "greedy", "heuristic", "random"],
        "players": 4,
        "games": GAMES,
        "seed": 0,
        "workers": 1,
    },
)
run_tournament(config, out=out, progress=False)
print(out, sorted(p.name for p in out.iterdir()))

# %% [markdown]
# ## Reading the results
#
# `summary.md` has the ratings (openskill, with their uncertainty), each agent's win share with
# a 95% interval, mean coins and forfeits; `summary.png` draws them. Every game is in
# `games.jsonl` with its seed and moves: `camelup replay OUT --game N` plays it back.

# %%
print((out / "summary.md").read_text())

# %%
import matplotlib.pyplot as plt

chart = plt.imread(out / "summary.png")
plt.figure(figsize=(chart.shape[1] / 100, chart.shape[0] / 100))
plt.imshow(chart)
plt.axis("off")
plt.show()
