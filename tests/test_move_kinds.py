"""The count of a player's kinds of move: its own moves only, by the class of each action."""

from __future__ import annotations

import numpy as np
import pytest

import agents.base
from agents.base import Agent, Observation, legal_indices
from camelup_env.game.actions import TakePyramidTile, action_table
from camelup_env.game.state import GameState
from training.afterstate.move_kinds import main, move_kinds


class Roller(Agent):
    """Takes a pyramid tile whenever it may, else the first legal move."""

    def act(self, observation: Observation, public_state: GameState) -> int:
        table = action_table(public_state.rules).actions
        legal = legal_indices(observation)
        rolls = [int(a) for a in legal if isinstance(table[a], TakePyramidTile)]
        return rolls[0] if rolls else int(np.min(legal))


@pytest.fixture
def roller(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(agents.base._AGENTS, "roller", Roller)
    return "roller"


def test_the_count_is_of_the_players_own_moves(roller: str) -> None:
    mine = move_kinds(roller, "greedy", games=4, players=2)
    assert set(mine) == {"TakePyramidTile"} and mine["TakePyramidTile"] > 20
    theirs = move_kinds("greedy", roller, games=4, players=2)
    assert theirs["TakeLegBet"] > 0  # greedy's bets, none of the roller's tiles


def test_the_command_prints_the_shares(roller: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([roller, "--opponent", "greedy", "--games", "2", "--players", "2"]) == 0
    assert capsys.readouterr().out.startswith("roller: TakePyramidTile 100.0% (")
