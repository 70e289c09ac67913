"""The shipped models' evaluations replay game for game.

Each shipped model folder keeps the games of its evaluation (``games.csv``). A change to the
engine, the kernels, the observation or the referee that alters how any of those games plays
(a rule copy drifting, a stream consumed in another order) shows up here: the first games
against a scripted opponent are played again through ``camelup evaluate``'s own function and
must give the recorded win share and coins, game for game.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from camelup_env.game.rules import RuleSet
from tournament.evaluate import evaluate

#: Each shipped model's training record: its evaluation's summary and games.
RECORDS = Path(__file__).resolve().parents[1] / "results" / "models"
#: The games replayed per model: one seed's seat rotations at four players, two at two.
REPLAYED = 4


@pytest.mark.parametrize(
    ("model", "opponent"), [("classic4", "greedy"), ("classic2_iterated", "expert")]
)
def test_a_shipped_evaluation_replays_game_for_game(model: str, opponent: str) -> None:
    folder = RECORDS / model
    with open(folder / "evaluation.csv", newline="") as f:
        summary = next(r for r in csv.DictReader(f) if r["opponent"] == opponent)
    with open(folder / "games.csv", newline="") as f:
        recorded = [r for r in csv.DictReader(f) if r["opponent"] == opponent][:REPLAYED]
    rules = RuleSet(summary["preset"], num_players=int(summary["num_players"]))
    result = evaluate(
        f"ppo:{model}",
        opponent,
        rules,
        REPLAYED,
        seed=int(recorded[0]["seed"]),
        workers=1,
        luck=False,
    )
    replayed = [
        (g.game, g.seed, g.seat, g.win_share, g.coins, round(g.opponent_coins, 9))
        for g in result.per_game
    ]
    expected = [
        (
            int(r["game"]),
            int(r["seed"]),
            int(r["seat"]),
            float(r["win_share"]),
            float(r["coins"]),
            round(float(r["opponent_coins"]), 9),
        )
        for r in recorded
    ]
    assert replayed == expected
