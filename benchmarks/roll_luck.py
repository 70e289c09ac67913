"""How much of a learner's return the dice's luck is, and what measuring it costs, in one run.

    python benchmarks/roll_luck.py [--games 1000] [--preset classic] [--players 4]
        [--learner ppo:classic4]
        [--opponent ppo:greedy_classic4] [--max-dice 4]

Plays ``--games`` episodes of the training loop (:class:`camelup_env.batch.learner.LearnerGames`,
the learner in a random seat, every other seat the opponent, the rewards of
``configs/train/ppo_luck_4p.yaml``: win, coin shaping 0.02) with each roll's luck measured
(:mod:`camelup_env.batch.roll_luck`; rolls with at most ``--max-dice`` dice left, as the
training default), and prints the variance of the learner's return with a share
``c`` of its luck taken out, against the raw return's: ``c = 1`` is the whole correction, and the
best ``c`` of these games (in-sample; a config fixes its share in advance). Then the same
episodes' cost: seconds in the games (with and without the measurement) per learner decision.
The last line: ``roll luck: corrected variance = V1 of raw (c = 1), Vc at c = C; +T us a
decision``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path and its tournament.py would
# hide the tournament package: look in the project root instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np  # noqa: E402

import agents  # noqa: E402
from camelup_env.batch.learner import LearnerGames  # noqa: E402
from camelup_env.batch.roll_luck import MAX_DICE_LEFT  # noqa: E402
from camelup_env.game.rules import RuleSet  # noqa: E402

SHARES = (0.2, 0.4, 0.6, 0.8, 1.0)


def episodes(args: argparse.Namespace, luck: float) -> tuple[np.ndarray, np.ndarray, float, int]:
    """The learner's returns and luck in ``args.games`` episodes (``luck``: the correction's
    share, 0 to play without measuring), the seconds in the games and the decisions."""
    rules = RuleSet(args.preset, num_players=args.players)
    learner = agents.make(args.learner)
    opponent = agents.make(args.opponent)
    games = LearnerGames(
        rules,
        args.games,
        lambda: [opponent] * (rules.num_players - 1),
        reward_mode="win",
        coin_shaping=0.02,
        seed=args.seed,
        autoreset=False,
        luck_correction=luck,
        luck_dice=args.max_dice,
        odds_features=True,  # the shipped policies' observation (configs/train/ppo_luck_4p.yaml)
        race_samples=64,
        action_values=True,
    )
    observations = games.reset()
    returns, lucks = np.zeros(args.games), np.zeros(args.games)
    decisions = 0
    while not games.over.all():
        masks = games.action_masks()
        live = ~games.over
        actions = np.zeros(args.games, np.int64)
        actions[live] = learner.act_batch(observations[live], masks[live])
        decisions += int(live.sum())
        observations, rewards, done, infos = games.step(actions)
        returns += rewards
        for i in np.flatnonzero(done):
            lucks[i] = infos[i].get("episode_luck", 0.0)
    return returns + luck * lucks, lucks, games.timers["env"], decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--learner", default="ppo:classic4")
    parser.add_argument("--opponent", default="ppo:greedy_classic4")
    parser.add_argument("--seed", type=int, default=9_100_000)
    parser.add_argument("--max-dice", type=int, default=MAX_DICE_LEFT)
    args = parser.parse_args()
    for spec in (args.learner, args.opponent):
        agents.check(spec)
    raw, luck, with_luck, decisions = episodes(args, 1.0)
    _, _, without, decisions_plain = episodes(args, 0.0)
    base = raw.var()
    print(
        f"{args.games} episodes, {args.preset} {args.players}p, learner {args.learner}, "
        f"opponents {args.opponent}: raw return mean {raw.mean():.3f}, variance {base:.4f}"
    )
    for c in SHARES:
        print(f"  c = {c:.1f}: corrected variance {(raw - c * luck).var() / base:.3f} of raw")
    best = float(np.cov(raw, luck)[0, 1] / luck.var())
    cost = (with_luck / decisions - without / decisions_plain) * 1e6
    print(
        f"  seconds in the games: {with_luck:.1f} with the measurement, {without:.1f} without "
        f"({decisions:,} and {decisions_plain:,} learner decisions)"
    )
    print(
        f"roll luck: corrected variance = {(raw - luck).var() / base:.2f} of raw (c = 1), "
        f"{(raw - best * luck).var() / base:.2f} at c = {best:.2f}; +{cost:.0f} us a decision"
    )


if __name__ == "__main__":
    main()
