# %% [markdown]
# # A class's ladder
#
# A class (or a club) runs one league all term: students hand in bots, hand in better versions
# later, and everyone watches one table. This tutorial builds that ladder from scratch with
# `camelup ladder` ([the ladder's guide](../ladder.md)): three students' bots, one of them a
# program in another language, games played on until the ladder holds 500, the table, a new
# version replacing an old one, and the picture of one bot's rating over its games.

# %%
import os
import sys
import tempfile
from pathlib import Path

from camelup_cli.main import main as camelup

QUICK = os.environ.get("CAMELUP_TUTORIAL_QUICK") == "1"
GAMES = 24 if QUICK else 500  # games the ladder plays in all

ROOT = Path.cwd()  # the project root (the tutorials run from it)
# a new folder each run: from scratch, and apart from any other run of this tutorial
LADDER = Path(tempfile.mkdtemp(prefix="camelup-")) / "class_ladder"
camelup(["ladder", "init", str(LADDER), "--preset", "classic", "--players", "3"])

# %% [markdown]
# ## The students' bots
#
# Any spec a tournament takes can join: Ana hands in the project's `greedy` bot, Ben the
# `heuristic` one, and Cara a program in awk (`examples/line_bot.awk`, a dozen lines that speak
# the line protocol of the [tournaments](../tournaments.md) with no camelup at all). A
# program runs in the tournament's sandbox, as every bot does; the ladder starts each bot once
# when it is added, so a bot that cannot start is refused then, not game after game.

# %%
print(Path("examples/line_bot.awk").read_text())
camelup(["ladder", "add", str(LADDER), "ana", "greedy"])
camelup(["ladder", "add", str(LADDER), "ben", "heuristic"])
camelup(
    [
        "ladder",
        "add",
        str(LADDER),
        "cara",
        f"cmd:awk -W interactive -f {ROOT / 'examples' / 'line_bot.awk'}",
    ]
)

# %% [markdown]
# ## Playing on
#
# `camelup ladder run DIR` plays until it is stopped; here it stops once the ladder holds
# `GAMES` games. Each deal seats the bots whose ratings are least certain, and plays the same
# deal and dice once from every seat; every game is stored with its record and its luck in one
# transaction, so a run stopped at any moment (Ctrl-C, `kill -9`) goes on where it stopped.

# %%
camelup(["ladder", "run", str(LADDER), "--games", str(GAMES), "--workers", "2"])
camelup(["ladder", "table", str(LADDER)])

# %% [markdown]
# The rating is openskill's `mu - 3 sigma`; `mu ± 2 sigma` is its interval. The win share
# beside it has the luck of the dice taken out (each game's luck, measured by replaying it:
# [Skill and luck](../luck.md)), so a bot that won on lucky rolls does not look better for it.

# %% [markdown]
# ## A new version
#
# Ben hands in a better bot. Adding a name again makes a new version, `ben@2`, which starts
# from a fresh rating; `ben@1` is retired, its games and rating kept in the table's history
# (`--all` shows it).

# %%
camelup(["ladder", "add", str(LADDER), "ben", "lookahead"])
camelup(["ladder", "run", str(LADDER), "--games", str(GAMES + GAMES // 5), "--workers", "2"])
camelup(["ladder", "table", str(LADDER), "--all"])

# %% [markdown]
# ## One bot's rating over its games
#
# The database keeps each bot's rating after each of its games; the web page of a bot
# (`camelup serve --ladder DIR`, then `/ladder`) draws the same picture.

# %%
import matplotlib.pyplot as plt

from tournament.ladder.store import Ladder
from tournament.ladder.table import rating_history

ladder = Ladder.open(LADDER)
ana = ladder.entry("ana")
games, mu, sigma = zip(*rating_history(ladder, ana), strict=True)
low = [m - 2 * s for m, s in zip(mu, sigma, strict=True)]
high = [m + 2 * s for m, s in zip(mu, sigma, strict=True)]
plt.figure(figsize=(7, 3))
plt.fill_between(games, low, high, alpha=0.3, label="mu ± 2 sigma")
plt.plot(games, mu, label="mu")
plt.xlabel(f"{ana.label}'s games")
plt.ylabel("rating")
plt.legend()
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Every game, replayable
#
# The games are the tournament's records: `camelup ladder export DIR OUT` writes them all as a
# tournament folder, which `camelup replay OUT --game N` replays step by step.

# %%
camelup(["ladder", "export", str(LADDER), str(LADDER / "export")])
camelup(["replay", str(LADDER / "export"), "--game", "1", "--quiet"])
ladder.close()
print("done", file=sys.stderr)
