"""Fit the luck corrections' shares (:mod:`camelup_env.odds.luck`, "Shares") on played games.

``python -m training.luck_shares --preset classic --players 4 --games 1500 --holdout 300 --seed 0``

The shipped win-probability model overstates how far a roll moves the chance to win, most of
all early in the game, so the whole correction leaves more of a result's spread than it could.
Here games of a mix of bots (:func:`training.win_model.mix_games`) are replayed under the
shipped model with a :class:`~camelup_env.odds.luck.LuckLedger`, which sums each seat's rolls'
luck by group (the leg, and the pyramid tiles left before the draw). The shares are the least
squares fit of each seat's result, less its deal's luck, on those sums: the table that leaves
the least variance. ``--holdout`` games of other seeds measure it: the variance of the seats'
results raw, less the whole correction, and less the shared one.

A share table fixed before the games it corrects keeps every correction's mean at zero, so an
evaluation stays unbiased whatever the table; fitted on other games, it only narrows. The
table, the command and the held-out figures are written into the model's entry of
``camelup_env/odds/win_models.json`` (``luck_shares``, ``luck_shares_fit``; ``--out`` for another
file). A refit of the model's coefficients (:mod:`training.win_model`) drops them: they belong
to the model they were fitted for.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time

import numpy as np

import agents
from camelup_env.odds.luck import SHARE_LEGS
from camelup_env.odds.win import load_win_model
from tournament.luck import GameLuck
from training.win_model import add_mix_arguments, checked_mix, mix_games

#: the shares' default players: the kinds of agents evaluations measure (random seats' games are
#: decided by coin gaps no roll moves)
DEFAULT_MIX = "greedy,expert,heuristic"


def luck_rows(
    luck: GameLuck, games: int, seed: int, mix: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every seat of every game of the mix: its win share, its deal's luck, and its rolls'
    luck summed by group (flattened ``SHARE_LEGS * tiles``), all before shares."""
    results, deals, groups = [], [], []
    n = luck.rules.num_players
    for game in mix_games(luck.rules, games, seed, mix):
        ledger = luck.ledger(game.seed, game.actions)
        assert ledger.by_group is not None
        results.append(game.shares)
        deals.append(ledger.trace[0])  # GameLuck corrects the deal: its luck comes first
        groups.append(ledger.by_group.reshape(-1, n).T)
    return np.concatenate(results), np.concatenate(deals), np.concatenate(groups)


def fit_shares(target: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The shares ``k`` minimising the variance of ``target - groups @ k`` (least squares on
    the centred rows; a group no roll fell in gets 1, the whole correction)."""
    used = np.abs(groups).sum(axis=0) > 0
    k = np.ones(groups.shape[1])
    x = groups[:, used] - groups[:, used].mean(axis=0)
    k[used] = np.linalg.lstsq(x, target - target.mean(), rcond=None)[0]
    return k


def variances(
    results: np.ndarray, deals: np.ndarray, groups: np.ndarray, shares: np.ndarray
) -> dict[str, float]:
    """The seats' results' variance raw, less the whole correction, less the shared one."""
    return {
        "raw": float(results.var()),
        "whole": float((results - deals - groups.sum(axis=1)).var()),
        "shares": float((results - deals - groups @ shares).var()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.luck_shares", description=__doc__)
    add_mix_arguments(parser, games=1500, holdout=300, mix=DEFAULT_MIX)
    args = parser.parse_args(argv)
    try:
        rules, mix = checked_mix(args)
        model = load_win_model(rules, args.out)
        doc = json.loads(args.out.read_text())
        key = f"{args.preset}/{args.players}"
        if key not in doc["models"]:
            raise ValueError(f"{args.out} has no model fitted at {key}: fit it first")
    except (ValueError, agents.UnknownAgentError) as exc:
        print(f"luck_shares: {exc}", file=sys.stderr)
        return 2
    start = time.time()
    luck = GameLuck(rules, model)  # the whole correction: the rows are before shares
    fitted = luck_rows(luck, args.games, args.seed, mix)
    shares = fit_shares(fitted[0] - fitted[1], fitted[2])
    held = variances(*luck_rows(luck, args.holdout, args.seed + 1_000_000, mix), shares)
    table = shares.reshape(SHARE_LEGS, rules.pyramid_tiles)
    doc["models"][key]["luck_shares"] = [[round(float(v), 4) for v in row] for row in table]
    doc["models"][key]["luck_shares_fit"] = {
        "command": "python -m training.luck_shares " + shlex.join(argv or sys.argv[1:]),
        "mix": mix,
        "games": args.games,
        "holdout_games": args.holdout,
        "seconds": round(time.time() - start),
        "holdout_variance": {k: round(v, 5) for k, v in held.items()},
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{key}: shares by leg (rows 1, 2, 3, later) and tiles left (columns 1..):")
    for row in table:
        print("  " + " ".join(f"{v:5.2f}" for v in row))
    print(
        f"held out ({args.holdout} games): variance raw {held['raw']:.4f}, whole correction "
        f"{held['whole']:.4f} ({held['whole'] / held['raw']:.2f}), shares {held['shares']:.4f} "
        f"({held['shares'] / held['raw']:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
