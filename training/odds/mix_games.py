"""Games of a mix of bots drawn seat by seat, on the engine: the positions the win-probability
model (:mod:`training.odds.win_model`), the luck tables (:mod:`training.odds.luck_shares`) and
the win network's exact-bot slice (:mod:`training.odds.win_network`) are fitted on.

The bots are any agent specs (``greedy``, ``expert``, ``ppo:FILE``, ...). Each game draws its
seats from the mix with a stream of its own run's seed, so the same arguments give the same
games, and a worker that starts at game ``first`` plays the same games as the whole run there.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import agents
from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.game.state import GameState
from camelup_env.match import observe, run_game
from camelup_env.odds.win import SHIPPED


@dataclass
class MixGame:
    """One game of :func:`mix_games`: its seed, the position before every move, every action,
    and each seat's share of the win (R7.3)."""

    seed: int
    states: list[GameState]
    actions: list[int]
    shares: np.ndarray


def mix_games(
    rules: RuleSet, games: int, seed: int, mix: list[str], first: int = 0
) -> Iterator[MixGame]:
    """Play ``games`` games (seeds ``seed``, ``seed + 1``, ...), each seat's bot drawn from
    ``mix`` (the same draws for the same arguments); from game ``first`` on, the same games as
    the whole run plays there (workers split a run this way)."""
    bots = {spec: agents.make(spec) for spec in mix}
    pick = np.random.default_rng([seed, 7])
    for g in range(games):
        drawn = pick.integers(0, len(mix), rules.num_players)
        if g < first:
            continue
        for bot in bots.values():  # a seeded bot (random) draws the same moves on every run
            bot.reset(seed + g)
        seats = [bots[mix[i]] for i in drawn]
        states: list[GameState] = []

        def move(state: GameState, thinking: list[float], seats=seats, states=states) -> int:
            states.append(state)
            return int(seats[state.current](observe(state, state.current), state))

        result, actions = run_game(rules, seed + g, move)
        share = np.zeros(rules.num_players)
        share[result.winners] = 1.0 / len(result.winners)
        yield MixGame(seed + g, states, actions, share)


def add_mix_arguments(parser: argparse.ArgumentParser, games: int, holdout: int, mix: str) -> None:
    """The arguments of a fit on :func:`mix_games` (the win model's, the luck tables'): the
    rule set, the fitting and held-out games, the seed, the mix and the model file."""
    parser.add_argument("--preset", default="classic", choices=PRESETS)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=games, help="fitting games")
    parser.add_argument("--holdout", type=int, default=holdout, help="games of other seeds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mix", default=mix, help="bots drawn seat by seat")
    parser.add_argument("--out", type=Path, default=SHIPPED)


def checked_mix(args: argparse.Namespace) -> tuple[RuleSet, list[str]]:
    """The rule set and the mix of :func:`add_mix_arguments`' arguments, each checked before
    any game is played (``ValueError`` or ``agents.UnknownAgentError``, one line)."""
    rules = RuleSet(args.preset, num_players=args.players)
    if args.games < 1 or args.holdout < 1:
        raise ValueError("--games and --holdout must be at least 1")
    mix = [m for m in args.mix.split(",") if m]
    for spec in mix:
        agents.make(spec)
    return rules, mix
