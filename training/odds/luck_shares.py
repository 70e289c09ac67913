"""Fit the luck corrections' shares and covariate weights (:mod:`camelup_env.odds.luck`,
"Shares" and "Covariates") on played games.

``python -m training.odds.luck_shares --preset classic --players 4 --games 1500 --holdout 300
--seed 0``

The shipped win-probability model overstates how far a roll moves the chance to win, most of
all early in the game, so the whole correction leaves more of a result's spread than it could.
Here games of a mix of bots (:func:`training.odds.mix_games.mix_games`) are replayed under the
shipped model with a :class:`~camelup_env.odds.luck.LuckLedger`, which sums each seat's rolls'
luck by group (the leg, and the pyramid tiles left before the draw) and its covariates' luck
(:meth:`~camelup_env.odds.win.WinModel.covariates`) by leg. The shares and the weights are one
least squares fit of each seat's result, less its deal's luck, on those sums: the tables that
leave the least variance. ``--holdout`` games of other seeds measure them: the variance of the
seats' results raw, less the whole correction, less the shares alone (fitted alone), and less
the shares with the covariates.

A share table fixed before the games it corrects keeps every correction's mean at zero, so an
evaluation stays unbiased whatever the table; fitted on other games, it only narrows. The
tables, the command and the held-out figures are written into the model's entry of
``camelup_env/odds/win_models.json`` (``luck_shares``, ``luck_covariates``, ``luck_shares_fit``;
``--out`` for another file). A refit of the model's coefficients (:mod:`training.odds.win_model`)
drops them: they belong to the model they were fitted for.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

import agents
from camelup_env.batch.win_chances import luck_covariates
from camelup_env.game.rules import RuleSet
from camelup_env.odds.luck import SHARE_LEGS
from camelup_env.odds.win import load_win_model
from tournament.luck import GameLuck
from training.odds.mix_games import add_mix_arguments, checked_mix, mix_games

#: the tables' default players: the kinds of agents evaluations measure. Random seats' games
#: are decided by coin gaps no roll moves, and heuristic seats' lopsided games pull the tables
#: away from what evaluations of strong agents need (docs/luck.md has the measurement)
DEFAULT_MIX = "greedy,expert"


@dataclass
class LuckRows:
    """For every seat of every game: its win share, its deal's luck, its rolls' luck summed
    by group (flattened ``SHARE_LEGS * tiles``) and its covariates' luck by leg (flattened
    ``SHARE_LEGS * k``), all before shares and weights."""

    results: np.ndarray
    deals: np.ndarray
    groups: np.ndarray
    covariates: np.ndarray

    def target(self) -> np.ndarray:
        """The results less the deal's luck: what the rolls' corrections are fitted to."""
        return self.results - self.deals


def luck_rows(luck: GameLuck, games: int, seed: int, mix: list[str], first: int = 0) -> LuckRows:
    """The :class:`LuckRows` of ``games`` games of the mix, from game ``first`` on (``luck``
    must measure covariates)."""
    results, deals, groups, covariates = [], [], [], []
    n = luck.rules.num_players
    for game in mix_games(luck.rules, games, seed, mix, first):
        ledger = luck.ledger(game.seed, game.actions)
        assert ledger.by_group is not None and ledger.by_covariate is not None
        results.append(game.shares)
        deals.append(ledger.trace[0])  # GameLuck corrects the deal: its luck comes first
        groups.append(ledger.by_group.reshape(-1, n).T)
        covariates.append(ledger.by_covariate.reshape(-1, n).T)
    return LuckRows(*(np.concatenate(x) for x in (results, deals, groups, covariates)))


def measured_luck(rules: RuleSet, models: Path) -> GameLuck:
    """The whole correction of ``rules``' model in ``models``, its covariates measured: the
    rows are before shares and weights."""
    model = load_win_model(rules, models)
    return GameLuck(rules, model, covariates=luck_covariates(model))


def _chunk(job: tuple[str, int, str, int, int, list[str], int]) -> LuckRows:
    preset, players, models, games, seed, mix, first = job
    rules = RuleSet(preset, num_players=players)
    return luck_rows(measured_luck(rules, Path(models)), games, seed, mix, first)


def parallel_rows(
    rules: RuleSet, models: Path, games: int, seed: int, mix: list[str], workers: int
) -> LuckRows:
    """:func:`luck_rows` of the measured luck, the games split among ``workers`` processes:
    the same rows as one process gives, in the same order."""
    if workers == 1:
        return luck_rows(measured_luck(rules, models), games, seed, mix)
    cuts = np.linspace(0, games, workers + 1).astype(int)
    jobs = [
        (rules.preset, rules.num_players, str(models), int(end), seed, mix, int(start))
        for start, end in itertools.pairwise(cuts)
    ]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(_chunk, jobs))
    return LuckRows(
        *(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(LuckRows))
    )


def fit_shares(target: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The coefficients ``k`` minimising the variance of ``target - groups @ k`` (least
    squares on the centred rows; a column no roll fell in gets 1, the whole correction)."""
    used = np.abs(groups).sum(axis=0) > 0
    k = np.ones(groups.shape[1])
    x = groups[:, used] - groups[:, used].mean(axis=0)
    k[used] = np.linalg.lstsq(x, target - target.mean(), rcond=None)[0]
    return k


def fit_tables(rows: LuckRows) -> tuple[np.ndarray, np.ndarray]:
    """The shares (flattened) and the covariates' weights ``(SHARE_LEGS, k)``, fitted
    together."""
    both = fit_shares(rows.target(), np.concatenate([rows.groups, rows.covariates], axis=1))
    shares = both[: rows.groups.shape[1]]
    return shares, both[rows.groups.shape[1] :].reshape(SHARE_LEGS, -1)


def without_network(rows: LuckRows) -> LuckRows:
    """``rows`` less the win network's covariate (the last of each leg's)."""
    covariates = rows.covariates.reshape(len(rows.covariates), SHARE_LEGS, -1)[:, :, :-1]
    return LuckRows(
        rows.results, rows.deals, rows.groups, covariates.reshape(len(rows.results), -1)
    )


def _rounded(table: np.ndarray) -> list[list[float]]:
    return [[round(float(v), 4) for v in row] for row in table]


def variances(
    rows: LuckRows, shares_alone: np.ndarray, shares: np.ndarray, weights: np.ndarray
) -> dict[str, float]:
    """The seats' results' variance raw, less the whole correction, less the shares fitted
    alone, and less the shares with the covariates."""
    target = rows.target()
    return {
        "raw": float(rows.results.var()),
        "whole": float((target - rows.groups.sum(axis=1)).var()),
        "shares": float((target - rows.groups @ shares_alone).var()),
        "covariates": float(
            (target - rows.groups @ shares - rows.covariates @ weights.ravel()).var()
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.odds.luck_shares", description=__doc__
    )
    add_mix_arguments(parser, games=1500, holdout=300, mix=DEFAULT_MIX)
    parser.add_argument("--workers", type=int, default=1, help="processes playing the games")
    args = parser.parse_args(argv)
    try:
        rules, mix = checked_mix(args)
        if args.workers < 1:
            raise ValueError("--workers must be at least 1")
        model = load_win_model(rules, args.out)
        doc = json.loads(args.out.read_text())
        key = f"{args.preset}/{args.players}"
        if key not in doc["models"]:
            raise ValueError(f"{args.out} has no model fitted at {key}: fit it first")
    except (ValueError, agents.UnknownAgentError) as exc:
        print(f"luck_shares: {exc}", file=sys.stderr)
        return 2
    start = time.time()
    fitted = parallel_rows(rules, args.out, args.games, args.seed, mix, args.workers)
    shares, weights = fit_tables(fitted)
    alone = fit_shares(fitted.target(), fitted.groups)
    held_rows = parallel_rows(
        rules, args.out, args.holdout, args.seed + 1_000_000, mix, args.workers
    )
    held = variances(held_rows, alone, shares, weights)
    table = shares.reshape(SHARE_LEGS, rules.pyramid_tiles)
    doc = json.loads(args.out.read_text())  # again: another fit may have written meanwhile
    entry = doc["models"][key]
    entry["luck_shares"], entry["luck_covariates"] = _rounded(table), _rounded(weights)
    if model.network is not None:  # the tables other player counts read (win.load_win_model)
        plain_shares, plain_weights = fit_tables(without_network(fitted))
        entry["luck_shares_plain"] = _rounded(plain_shares.reshape(SHARE_LEGS, -1))
        entry["luck_covariates_plain"] = _rounded(plain_weights)
        plain = variances(without_network(held_rows), alone, plain_shares, plain_weights)
        held["covariates_without_network"] = plain["covariates"]
    entry["luck_shares_fit"] = {
        "command": "python -m training.odds.luck_shares " + shlex.join(argv or sys.argv[1:]),
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
    print(f"covariate weights by leg ({', '.join(model.covariate_names)}):")
    for row in weights:
        print("  " + " ".join(f"{v:6.2f}" for v in row))
    left = ", ".join(
        f"{name} {held[name]:.4f} ({held[name] / held['raw']:.2f})"
        for name in ("whole", "shares", "covariates")
    )
    print(f"held out ({args.holdout} games): variance raw {held['raw']:.4f}, less {left}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
