"""Reports of games that one agent sweeps: win shares of exactly 0 and 1, with and without a
win model (the luck-adjusted share is nan where the rule set has none).

A tournament whose favourite won every game used to stop at its chart: the Wilson interval's
upper end of a share of 1 came out as 1 - 1e-16, and matplotlib refuses the negative error bar
that made. Every summary and chart is drawn here from real records of such games.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from camelup_env.game.rules import RuleSet
from tournament.config import tournament_config
from tournament.eval_result import CandidateGame, evaluation_result
from tournament.evaluate import write_report
from tournament.ratings import share_interval, summarise
from tournament.report import write_summary

AGENTS = ["greedy", "random", "heuristic", "random#2"]  # as the tournament labels them


def _swept(seeds: int, luck: bool) -> list[dict]:
    """``seeds`` seeds of the four rotations of AGENTS, every game won by greedy alone (as
    greedy, random, heuristic, random did on persian_tutorial, seed 4711: 24 of 24)."""
    records = []
    for game in range(4 * seeds):
        shift = game % 4
        agents = AGENTS[shift:] + AGENTS[:shift]
        winner = agents.index("greedy")
        ranks = [1 if seat == winner else 2 + (seat - winner) % 4 - 1 for seat in range(4)]
        record = {
            "game": game,
            "round": game // 4,
            "seed": 4711 + game // 4,
            "agents": agents,
            "scores": [30 if seat == winner else 10 + seat for seat in range(4)],
            "ranks": ranks,
            "winner_seats": [winner],
            "forfeit": None,
        }
        if luck:
            record["luck"] = [0.1 if seat == winner else -0.1 / 3 for seat in range(4)]
        records.append(record)
    return records


@pytest.mark.parametrize("seeds", [2, 6, 11, 25])
def test_a_share_of_zero_or_one_lies_inside_its_interval(seeds: int) -> None:
    """6 and 11 seeds are ones where rounding put the interval's end past the share."""
    groups = [g // 4 for g in range(4 * seeds)]
    mean, low, high = share_interval([1.0] * (4 * seeds), groups)
    assert low < mean == high == 1.0
    mean, low, high = share_interval([0.0] * (4 * seeds), groups)
    assert low == mean == 0.0 < high


@pytest.mark.parametrize("luck", [True, False], ids=["win-model", "no-win-model"])
def test_a_swept_tournament_writes_every_summary_and_its_chart(tmp_path: Path, luck: bool) -> None:
    summary = summarise(_swept(6, luck), AGENTS)
    rows = {r["agent"]: r for r in summary["rows"]}
    assert rows["greedy"]["win_share"] == 1.0 and rows["random"]["win_share"] == 0.0
    assert math.isnan(rows["greedy"]["win_share_adjusted"]) is not luck
    config = tournament_config(
        None,
        {
            "agents": ["greedy", "random", "heuristic", "random"],
            "players": 4,
            "games": 24,
            "preset": "persian_tutorial",
            "seed": 4711,
        },
    )
    write_summary(tmp_path, config, summary, "camelup tournament ...")

    text = (tmp_path / "summary.md").read_text()
    assert "| greedy | 24 | 100.0% [" in text and "nan" not in text
    assert ("luck-adjusted" in text) is luck
    with open(tmp_path / "summary.csv") as fh:
        table = {row["agent"]: row for row in csv.DictReader(fh)}
    assert float(table["greedy"]["win_high"]) == 1.0 and float(table["random"]["win_low"]) == 0.0
    assert (tmp_path / "summary.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("share", [0.0, 1.0])
@pytest.mark.parametrize("luck", [True, False], ids=["win-model", "no-win-model"])
def test_an_evaluation_lost_or_won_throughout_reports(tmp_path: Path, share: float, luck) -> None:
    games = [
        CandidateGame(
            game=g,
            seed=g // 4,
            seat=g % 4,
            win_share=share,
            coins=20.0,
            opponent_coins=15.0,
            forfeit=False,
            win_share_adjusted=share - 0.05 if luck else math.nan,
        )
        for g in range(24)
    ]
    rules = RuleSet.from_dict({"preset": "persian_tutorial", "num_players": 4})
    result = evaluation_result("greedy", "random", rules, games)
    assert result.ci_low <= result.win_share == share <= result.ci_high
    write_report(tmp_path, [result], "camelup evaluate ...")
    text = (tmp_path / "evaluation.md").read_text()
    assert f"| {share:.3f} | [" in text and "nan" not in text
    assert ("| - | - |" in text) is not luck
