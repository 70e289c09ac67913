"""An evaluation's games and its result: what :mod:`tournament.evaluate` (the referee's games)
and :mod:`tournament.batch_evaluate` (the batch core's) both produce, summarised one way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from camelup_env.game.rules import RuleSet
from tournament.ratings import mean_ci, share_interval


@dataclass(frozen=True)
class CandidateGame:
    """The candidate's result in one evaluation game (a row of ``games.csv``)."""

    game: int
    seed: int  # the rotations of one seed form a group (the interval is clustered by seed)
    seat: int
    win_share: float
    coins: float
    opponent_coins: float  # mean over the other seats
    forfeit: bool
    # the win share less the candidate's luck (tournament.luck); nan without a win model
    win_share_adjusted: float = math.nan


@dataclass(frozen=True)
class EvalResult:
    candidate: str
    opponent: str
    preset: str
    num_players: int
    games: int
    win_share: float
    ci_low: float
    ci_high: float
    mean_coins: float
    mean_opponent_coins: float
    forfeits: int
    per_game: tuple[CandidateGame, ...] = field(default=(), repr=False)
    # the luck-adjusted win share and its interval (docs/luck.md); nan where not measured
    adjusted: float = math.nan
    adjusted_ci_low: float = math.nan
    adjusted_ci_high: float = math.nan

    def as_row(self) -> dict:
        """The summary row (``evaluation.csv``): every field but ``per_game``."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "per_game"}


def evaluation_result(
    candidate: str, opponent: str, rules: RuleSet, rows: list[CandidateGame]
) -> EvalResult:
    """An evaluation's result from its games (the referee's or the batch core's): the win
    share with its clustered Wilson interval, the luck-adjusted one with its normal interval
    (it is not bounded to [0, 1]), both clustered by seed."""
    groups = [r.seed for r in rows]
    mean, low, high = share_interval([r.win_share for r in rows], groups)
    adjusted, adjusted_half = mean_ci([r.win_share_adjusted for r in rows], groups)
    return EvalResult(
        candidate=candidate,
        opponent=opponent,
        preset=rules.preset,
        num_players=rules.num_players,
        games=len(rows),
        win_share=mean,
        ci_low=low,
        ci_high=high,
        mean_coins=sum(r.coins for r in rows) / len(rows),
        mean_opponent_coins=sum(r.opponent_coins for r in rows) / len(rows),
        forfeits=sum(r.forfeit for r in rows),
        per_game=tuple(rows),
        adjusted=adjusted,
        adjusted_ci_low=adjusted - adjusted_half,
        adjusted_ci_high=adjusted + adjusted_half,
    )
