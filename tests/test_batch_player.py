"""Batch players: a registered bot deciding a batch through the engine keeps one memory per
game and seat, and forgets a game when it is dealt anew."""

from __future__ import annotations

import numpy as np
import pytest

from agents.batch_player import EngineBatchPlayer, scripted
from camelup_env.batch import BatchGames
from camelup_env.game.rules import RuleSet


def play(games: BatchGames, player: EngineBatchPlayer, moves: int) -> list[np.ndarray]:
    """``moves`` decisions of every game by ``player``, each step's actions (-1: over)."""
    taken = []
    for _ in range(moves):
        actions = np.full(len(games), -1, np.int64)
        idx = np.flatnonzero(~games.game_over)
        actions[idx] = player.act(games, idx)
        games.step(actions)
        taken.append(actions)
    return taken


def test_the_champion_decides_each_game_of_a_batch_as_if_alone() -> None:
    """Whole games (70 moves): one champion object for all games and seats fails this."""
    rules = RuleSet("classic", num_players=3)
    together = play(BatchGames(rules, 4, seed=10), EngineBatchPlayer("champion", 4, 10), 70)
    for i in range(4):
        alone = play(
            BatchGames(rules, 1, seed=10 + i), EngineBatchPlayer("champion", 1, 10 + i), 70
        )
        assert [a[i] for a in together] == [a[0] for a in alone]


def test_a_game_dealt_anew_meets_a_champion_without_its_memory() -> None:
    rules = RuleSet("classic", num_players=3)
    games = BatchGames(rules, 2, seed=20)
    player = EngineBatchPlayer("champion", 2, 20)
    play(games, player, 12)
    games.reset(np.array([1]), seed=np.array([77]))
    player.deal(np.array([1]), np.array([77]))
    assert all(game != 1 for game, _ in player.objects)
    again = [a[1] for a in play(games, player, 60)]
    alone = EngineBatchPlayer("champion", 1, 77)
    assert again == [a[0] for a in play(BatchGames(rules, 1, seed=77), alone, 60)]


@pytest.mark.parametrize("spec", ["py:os:system", "cup:bot.py", "ppo:greedy_classic4", "nobody"])
def test_only_a_registered_name_plays_through_the_engine(spec: str) -> None:
    assert not scripted(spec)
    with pytest.raises(ValueError, match="registered agent"):
        EngineBatchPlayer(spec, 1, 0)
