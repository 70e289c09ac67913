"""Agents: the registry, the protocol (public view only), and baselines that only
ever play legal moves (R4) in both presets."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import agents
from camelup_env import RuleSet, new_game
from camelup_env.game.legality import legal_action_mask
from camelup_env.match import observe, play_game
from camelup_env.observation import LazyObservation, public_view


def test_registry_makes_every_baseline() -> None:
    for name in ("random", "heuristic", "greedy", "lookahead", "human"):
        agent = agents.make(name)
        assert agent.name == name and agent.description


def test_unknown_agent_lists_known_names() -> None:
    with pytest.raises(agents.UnknownAgentError) as info:
        agents.make("grandmaster")
    message = str(info.value)
    for name in ("random", "heuristic", "greedy", "lookahead"):
        assert name in message
    with pytest.raises(agents.UnknownAgentError, match="known agents"):
        agents.make("nosuchprefix:whatever")


def test_python_prefix_and_custom_prefixes(monkeypatch) -> None:
    bot = agents.make("py:agents.random_agent:RandomAgent", seed=3)
    assert bot.name == "py:agents.random_agent:RandomAgent"
    from agents import base

    monkeypatch.setattr(base, "_PREFIXES", dict(base._PREFIXES))  # the registration is undone
    agents.register_prefix("const", lambda rest, **kw: agents.make("random", seed=int(rest)))
    assert agents.make("const:5").name == "const:5"
    names = dict(agents.describe_agents())
    assert "const:..." in names and "py:..." in names


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_scripted_baselines_play_legal_moves(preset: str, players: int) -> None:
    # catch=False: an illegal action or an exception fails the test instead of forfeiting
    rules = RuleSet(preset, num_players=players)
    for game in range(6):
        lineup = [
            agents.make("heuristic") if s % 2 else agents.make("random", seed=s)
            for s in range(players)
        ]
        result = play_game(rules, lineup, seed=game, catch=False)
        assert result.forfeit is None and not result.truncated
        assert len(result.winners) >= 1


@pytest.mark.parametrize("preset,players", [("classic", 4), ("second_edition", 6)])
def test_greedy_and_lookahead_play_legal_moves(preset: str, players: int) -> None:
    rules = RuleSet(preset, num_players=players)
    for game in range(2):
        names = ["greedy", "lookahead", "heuristic", "random", "greedy", "random"][:players]
        lineup = [agents.make(n) for n in names]
        result = play_game(rules, lineup, seed=100 + game, catch=False)
        assert result.forfeit is None and not result.truncated


def test_random_agent_is_seeded() -> None:
    rules = RuleSet("classic", num_players=2)

    def run(seed: int) -> list[int]:
        lineup = [agents.make("random", seed=seed), agents.make("random", seed=seed + 1)]
        return play_game(rules, lineup, seed=7).coins

    assert run(1) == run(1)


class Spy(agents.Agent):
    """Records what it is shown, and tries to rig the game through it."""

    def __init__(self) -> None:
        self.seen = []

    def act(self, observation, public_state) -> int:
        self.seen.append(public_state.copy())
        legal = agents.legal_indices(observation)
        choice = int(legal[-1])  # race bets come last: the piles fill up
        public_state.coins = (99,) * len(public_state.coins)
        public_state.stacks.clear()
        observation["action_mask"][:] = 0
        return choice


def test_agents_see_only_the_public_view_and_cannot_alter_the_game() -> None:
    rules = RuleSet("classic", num_players=2)
    spy, other = Spy(), Spy()
    result = play_game(rules, [spy, other], seed=3, catch=False)
    assert result.forfeit is None
    assert max(result.coins) < 99
    for view in spy.seen:
        assert view.hands[1] == -1 and view.hands[0] >= 0
        assert all(c == -1 for o, c in (*view.winner_pile, *view.loser_pile) if o == 1)
    assert any(c >= 0 for v in spy.seen for o, c in v.winner_pile + v.loser_pile if o == 0)


def test_public_view_hides_other_cards() -> None:
    state = new_game(RuleSet("classic", num_players=3), seed=0).copy()
    state.winner_pile = ((0, 1), (2, 3))
    view = public_view(state, 0)
    assert view.winner_pile == ((0, 1), (2, -1))
    assert view.hands == (state.hands[0], -1, -1)
    assert state.winner_pile == ((0, 1), (2, 3))


def test_lazy_observation_behaves_like_the_dict() -> None:
    state = new_game(RuleSet("classic", num_players=2), seed=0)
    calls = []
    lazy = LazyObservation(legal_action_mask(state), lambda: calls.append(1) or np.ones(3))
    assert "observation" in lazy and len(lazy) == 2
    assert lazy["action_mask"].sum() > 0 and not calls  # the mask alone computes nothing
    assert set(lazy) == {"observation", "action_mask"} and calls == [1]
    assert lazy.get("observation").tolist() == [1, 1, 1] and calls == [1]
    plain = pickle.loads(pickle.dumps(lazy))
    assert type(plain) is dict and set(plain) == {"observation", "action_mask"}
    eager = observe(state, 0, lazy=False)
    assert eager["observation"].dtype == np.float32
    assert np.array_equal(eager["observation"], observe(state, 0)["observation"])
