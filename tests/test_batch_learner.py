"""The learner-seat loop on the batch core (camelup_env.batch.learner)."""

from __future__ import annotations

import numpy as np
import pytest

from camelup_env import RuleSet
from camelup_env.batch import BatchGames, random_streams
from camelup_env.batch.engine_games import EngineGames
from camelup_env.batch.learner import LearnerGames
from camelup_env.envs.single_agent import RandomOpponent
from camelup_env.game.state import HIDDEN

CLASSIC4 = RuleSet("classic", num_players=4)
PLAIN = {"odds_features": False, "action_values": False}


def first_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(axis=1)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def test_learner_games_stop_at_the_learners_turn_and_rotate_seats() -> None:
    n = 32
    opponents = RandomOpponent()
    env = LearnerGames(CLASSIC4, n, lambda: [opponents] * 3, seed=0, **PLAIN)
    obs = env.reset()
    assert obs.shape == (n, env.observation_size)
    rng = np.random.default_rng(0)
    seats, episodes = set(), 0
    for _ in range(300):
        assert (env.games.current_player == env.seats).all() and not env.games.game_over.any()
        seats.update(env.seats.tolist())
        _, _, dones, infos = env.step(random_legal(env.action_masks(), rng))
        episodes += dones.sum()
        assert all(
            "terminal_observation" in info for info, d in zip(infos, dones, strict=True) if d
        )
    assert seats == {0, 1, 2, 3} and episodes > n


def test_learner_return_is_its_coin_shaping_plus_its_terminal_reward() -> None:
    """Seat 0 moves first, so every coin of the learner's game is in its return: coins won
    (from the 3 it starts with) plus R7's coin margin over the best opponent / 10."""
    n = 16
    opponents = RandomOpponent()
    env = LearnerGames(
        CLASSIC4,
        n,
        lambda: [opponents] * 3,
        learner_seat=0,
        seed=3,
        reward_mode="coins",
        coin_shaping=1.0,
        **PLAIN,
    )
    env.reset()
    observer = env.observers[0]
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 40:
        _, _, dones, infos = env.step(random_legal(env.action_masks(), rng))
        for i in np.flatnonzero(dones):
            coins = observer.view(infos[i]["terminal_observation"], "coins") * 20
            expected = (coins[0] - 3) + (coins[0] - coins[1:].max()) / 10
            assert infos[i]["episode_return"] == pytest.approx(expected, abs=1e-4)
            assert not infos[i]["TimeLimit.truncated"]
            best = coins == coins.max()  # R7.3: the richest seats share the win
            assert infos[i]["win_share"] == pytest.approx(best[0] / best.sum())
            checked += 1


def test_learner_games_are_reproduced_by_seed_whatever_the_batch_size() -> None:
    def run(n: int, seed: int, rounds: int) -> list:
        opponents = RandomOpponent()
        env = LearnerGames(CLASSIC4, n, lambda: [opponents] * 3, seed=seed, **PLAIN)
        out = [env.reset()]
        for _ in range(rounds):
            obs, rewards, dones, _ = env.step(first_legal(env.action_masks()))
            out.append((obs, rewards, dones))
        return out

    together = run(4, 10, 60)
    alone = run(1, 12, 60)  # game 2 of the batch: seed 10 + 2
    assert np.array_equal(together[0][2], alone[0][0])
    for (obs, rewards, dones), (obs1, rewards1, dones1) in zip(
        together[1:], alone[1:], strict=True
    ):
        assert np.array_equal(obs[2], obs1[0])
        assert rewards[2] == rewards1[0] and dones[2] == dones1[0]


class Scripted:
    """An agent that checks it is shown the public view of its own seat (R10)."""

    calls = 0

    def __call__(self, observation: dict, public_state) -> int:
        Scripted.calls += 1
        seat = public_state.current
        assert all(h == HIDDEN for s, h in enumerate(public_state.hands) if s != seat)
        assert all(c[1] == HIDDEN for c in public_state.winner_pile if c[0] != seat)
        return int(np.flatnonzero(observation["action_mask"])[-1])


class Batched:
    """A frozen-policy stand-in: one call decides every game where it is on move."""

    def __init__(self, size: int) -> None:
        self.size, self.calls, self.rows = size, 0, 0

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert obs.shape[1] == self.size and masks.any(axis=1).all()
        self.calls += 1
        self.rows += len(obs)
        return first_legal(masks)


def test_learner_games_ask_scripted_agents_and_batched_policies() -> None:
    n = 12
    env = LearnerGames(CLASSIC4, n, lambda: [], seed=5, **PLAIN)
    batched = Batched(env.observation_size)
    env.sources = [lambda: [Scripted(), batched, batched]] * n
    env.reset()
    for _ in range(40):
        env.step(first_legal(env.action_masks()))
    assert Scripted.calls > 100 and batched.rows > 2 * batched.calls  # several games per call


def test_learner_illegal_action_and_truncation_end_the_episode() -> None:
    opponents = RandomOpponent()
    env = LearnerGames(
        CLASSIC4, 2, lambda: [opponents] * 3, seed=0, illegal_reward=-3.0, max_turns=9, **PLAIN
    )
    env.reset()
    masks = env.action_masks()
    actions = first_legal(masks)
    actions[0] = np.flatnonzero(~masks[0])[0]
    _, rewards, dones, infos = env.step(actions)
    assert dones[0] and rewards[0] == -3.0 and infos[0]["illegal_action"]
    assert not infos[0]["TimeLimit.truncated"]
    for _ in range(3):
        _, _, dones, infos = env.step(first_legal(env.action_masks()))
        if dones[1]:
            break
    assert dones[1] and infos[1]["TimeLimit.truncated"]


def test_learner_games_play_supercup_on_the_engine() -> None:
    rules = RuleSet("supercup", num_players=3, extra_action=True)
    opponents = RandomOpponent()
    env = LearnerGames(rules, 3, lambda: [opponents] * 2, seed=1, **PLAIN)
    assert isinstance(env.games, EngineGames)
    env.reset()
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        assert (env.games.current_player == env.seats).all()
        ended += env.step(random_legal(env.action_masks(), rng))[2].sum()
    assert ended > 0


def test_engine_games_random_player_picks_what_the_batch_core_picks() -> None:
    batch = BatchGames(RuleSet("second_edition", num_players=6), 64, seed=3)
    streams = random_streams(64, 4)
    for _ in range(30):
        batch.step(batch.random_actions(streams), autoreset=True)
    engine = EngineGames(batch.rules, 64)
    engine.states = batch.to_states()
    a, b = random_streams(64, 9), random_streams(64, 9)
    assert np.array_equal(batch.random_actions(a), engine.random_actions(b))
    assert np.array_equal(a, b)
    some = [3, 7, 40]
    assert np.array_equal(batch.random_actions(a, some), engine.random_actions(b, some))


def test_learner_games_refuse_bad_settings() -> None:
    with pytest.raises(ValueError, match="learner_seat"):
        LearnerGames(CLASSIC4, 2, lambda: [], learner_seat=4)
    with pytest.raises(ValueError, match="reward_mode"):
        LearnerGames(CLASSIC4, 2, lambda: [], reward_mode="money")
    env = LearnerGames(CLASSIC4, 2, lambda: [RandomOpponent()], **PLAIN)
    with pytest.raises(ValueError, match="returned 1 opponents; 3 are needed"):
        env.reset()


def test_one_legality_pass_per_position_of_the_games(monkeypatch) -> None:
    """The masks are computed once after each move of the games and handed to the learner's
    check, the opponents and ``action_masks()``; moves drawn from them are not checked again."""
    from agents.heuristic import HeuristicAgent

    heuristic = HeuristicAgent()
    env = LearnerGames(CLASSIC4, 16, lambda: [RandomOpponent(), heuristic, heuristic], seed=2)
    games = env.games
    counts = {"masks": 0, "moves": 0}
    masks, unchecked = games.legal_action_mask, games.step_unchecked

    def count_masks():
        counts["masks"] += 1
        return masks()

    def count_moves(*args, **kwargs):
        counts["moves"] += 1
        return unchecked(*args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("a second legality pass")

    monkeypatch.setattr(games, "legal_action_mask", count_masks)
    monkeypatch.setattr(games, "step_unchecked", count_moves)
    monkeypatch.setattr(games, "step", refuse)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        before = dict(counts)
        legal = env.action_masks()
        again = env.action_masks()
        np.testing.assert_array_equal(legal, again)
        env.step(random_legal(legal, rng))
        # one mask per position: the learner's (before its move) and one per opponents' round
        assert counts["masks"] - before["masks"] <= counts["moves"] - before["moves"]
        assert counts["masks"] - before["masks"] >= 1
    with pytest.raises(ValueError, match="read-only"):
        env.legal_masks()[0, 0] = 1


@pytest.mark.parametrize("engine", [False, True], ids=["batch core", "engine"])
def test_both_backends_offer_the_games_interface(engine: bool) -> None:
    """Every member of the declared interface is there (mypy checks their signatures)."""
    from camelup_env.batch.engine_games import make_games
    from camelup_env.batch.interface import Games

    games = make_games(RuleSet("classic", num_players=3), 2, seed=0, engine=engine)
    assert isinstance(games, Games)
    assert games.legal_action_mask().shape == (2, games.num_actions)
