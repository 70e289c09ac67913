"""The value-search agent (``search:``): hidden cards dealt consistently with the public view
(R10, R4.4), legal and reproducible play, and a model file without its reward settings refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents import shipped
from agents.policy_file import ModelFileError, read_policy_file, save_policy
from agents.policy_search import deal_hidden
from agents.value_search import ValueSearchAgent
from camelup_env.game.rules import RuleSet
from camelup_env.game.sampling import random_positions
from camelup_env.game.state import HIDDEN, GameState
from camelup_env.match import play_game
from camelup_env.observation import public_view

MODEL = shipped.model_path("classic2")


@pytest.mark.parametrize("players", [2, 4])
def test_dealt_cards_are_consistent_with_the_public_view(players: int) -> None:
    rules = RuleSet("classic", num_players=players)
    rng = np.random.default_rng(0)
    hidden_seen = 0
    for state in random_positions(rules, 60, seed=players, keep=0.3):
        seat = state.current
        view = public_view(state, seat)
        dealt = deal_hidden(view, rng)
        GameState.from_dict(dealt.to_dict())  # a valid, complete game (ranges, one card each)
        assert public_view(dealt, seat).to_dict() == view.to_dict()
        full = (1 << rules.n_racing) - 1
        for other in range(players):
            cards = [c for owner, c in dealt.winner_pile + dealt.loser_pile if owner == other]
            assert HIDDEN not in cards and len(set(cards)) == len(cards)
            assert dealt.hands[other] == full & ~sum(1 << c for c in cards)
            hidden_seen += other != seat and bool(cards)
    assert hidden_seen > 10  # the sample did hide cards


def test_search_plays_legal_moves_and_is_reproducible() -> None:
    rules = RuleSet("classic", num_players=2)
    coins = []
    for _ in range(2):
        search, greedy = agents.make(f"search:{MODEL}", candidates=2), agents.make("greedy")
        search.reset(7)
        result = play_game(rules, [search, greedy], seed=3, catch=False)  # illegal: raises
        assert result.forfeit is None
        coins.append(result.coins)
    assert coins[0] == coins[1]


def test_a_model_file_without_its_reward_settings_is_refused(tmp_path: Path) -> None:
    file = read_policy_file(MODEL)
    bare = save_policy(
        file.policy(),
        tmp_path / "bare.zip",
        file.rules,
        observer=file.observer(),
        env_version=file.env_version,
    )
    with pytest.raises(ModelFileError, match="reward_mode"):
        agents.make(f"search:{bare}")


def test_search_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="candidates"):
        ValueSearchAgent(agents.make(f"ppo:{MODEL}"), "win", 0.0, candidates=0)


def test_evaluate_plays_a_search_spec_in_its_model_files_game() -> None:
    """``camelup evaluate search:MODEL`` defaults to the preset and player count the model file
    records, as for ``ppo:``."""
    import argparse

    from tournament.evaluate import _rules

    four = shipped.model_path("classic4")
    args = argparse.Namespace(candidate=f"search:{four}", preset=None, players=None)
    assert _rules(args) == RuleSet("classic", num_players=4)
