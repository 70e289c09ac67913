"""The standing taught what the next mover takes (training.afterstate.standing_td) and the file
it makes, a network on the standing's skip (agents.afterstate_network ``standing_skip``):

* a row's next outcomes are the outcomes of the action the next mover chose, at the engine's
  own chances, valued in the eyes of the seat whose row it is; each row starts where one of
  the previous row's outcomes left the game, at that outcome's value;
* a row's skip is the standing of its position, the champion's formula over the leg's joint
  outcomes (agents.standing), the cards as they lie;
* the targets average the next outcomes' values; a network at zero plays as
  ``afterstate:standing-reading`` and, like it, reads no other seat's hidden card (R10);
* with ``others``, ``play_by`` sits in one seat (the game's seed mod the players), ``others``
  in the rest, and only the decisions of ``others`` make rows;
* with ``siblings``, the game's rows stay as they were and each move adds rows of the mover's
  other moves that the standing ranks best, best first, each with its next mover's reply;
* a run plays, fits, resumes a lost shard identically; bad settings are refused in one line;
* the next-capture inputs are camelup_env.odds.win.next_captures in the viewer's order.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
from test_afterstate_agent import position_with_hidden_cards, swapped_card

import agents
from agents.afterstate import AfterstateAgent, NetworkValue, StandingValue
from agents.afterstate_network import (
    AfterstateNetwork,
    load_afterstate_network,
    save_afterstate_network,
    seats_to_relative,
)
from agents.base import Agent, Observation
from agents.champion import ChampionAgent
from agents.standing import seat_outcomes
from camelup_config import ConfigError
from camelup_env import RuleSet, apply_outcome, chance_outcomes, odds
from camelup_env.batch import BatchGames
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import afterstates
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.state import HIDDEN, GameState
from camelup_env.match import play_game
from camelup_env.observation import public_view
from camelup_env.odds.win import lead_progress, load_win_model, next_captures
from training.afterstate.standing_td import (
    Rows,
    StandingTDConfig,
    chances,
    play_rows,
    shard_path,
    targets,
    train,
)
from training.afterstate.value import Value, value_network

#: what the recording bot saw and chose, move by move
SEEN: list[tuple[GameState, int]] = []


class Recorder(Agent):
    """The champion, recording each public view it is shown and its choice."""

    def __init__(self) -> None:
        self.champion = ChampionAgent()

    def reset(self, seed: int | None = None) -> None:
        self.champion.reset(seed)

    def act(self, observation: Observation, public_state: GameState) -> int:
        action = self.champion(observation, public_state)
        SEEN.append((public_state, action))
        return action


def tiny(out: Path, **changes: object) -> StandingTDConfig:
    settings: dict[str, object] = {
        "out_dir": str(out),
        "num_players": 2,
        "label_games": 4,
        "shard_games": 1,
        "workers": 1,
        "hidden": [8],
        "epochs": 1,
        "sweeps": 2,
        "holdout_every": 2,
        "threads": 1,
    }
    settings.update(changes)
    return StandingTDConfig(**settings)  # type: ignore[arg-type]


def in_seats(values: np.ndarray, viewer: int) -> np.ndarray:
    """Relative-order values of ``viewer`` back in seat order."""
    n = values.shape[-1]
    return np.roll(values, viewer, axis=-1) if n else values


def standing_of(s: GameState) -> np.ndarray:
    """The oracle: the standing's formula on a position whose cards are all known."""
    sc = odds.leg_scenarios(s, 1000)
    assert sc is not None
    R = s.rules.n_racing
    piles = tuple(
        np.eye(R)[[c for _, c in p]].reshape(len(p), R) for p in (s.winner_pile, s.loser_pile)
    )
    coins = seat_outcomes(s, sc, piles)
    model = load_win_model(s.rules)
    return model.from_features(coins, lead_progress(sc.lead, s.rules.track_length)).mean(axis=0)


Played = tuple[list[dict[str, np.ndarray]], list[tuple[GameState, int]]]


def recorded(siblings: int) -> Played:
    """One 2-player game's rows, the champions (and the copies that reply to the siblings)
    recording what they saw."""
    SEEN.clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(agents, "make", lambda name: Recorder())
        rows = play_rows(StandingTDConfig(num_players=2, siblings=siblings), 11)
    return rows, list(SEEN)


@pytest.fixture(scope="module")
def game() -> Played:
    return recorded(0)


@pytest.fixture(scope="module")
def sibling_game() -> Played:
    return recorded(2)


@pytest.mark.parametrize("played", ["game", "sibling_game"])
def test_a_rows_next_outcomes_are_the_next_movers_choice_at_the_engines_chances(
    played: str, request: pytest.FixtureRequest
) -> None:
    """Every decision after the first (the game's, or a reply to a sibling) made one row."""
    rows, seen = request.getfixturevalue(played)
    assert len(rows) == len(seen) - 1  # every move but the first leaves a row before the next
    for row, (view, action) in zip(rows, seen[1:], strict=True):
        engine = sorted(float(p) for _, p in chance_outcomes(view, action))
        assert row["outcomes"][0] == len(engine)
        np.testing.assert_allclose(sorted(row["next_probability"]), engine, atol=1e-6)


def test_each_row_starts_where_an_outcome_of_the_last_left_it(game) -> None:
    rows, seen = game
    movers = [view.current for view, _ in seen]
    for k in range(1, len(rows)):
        mine = in_seats(rows[k]["skip"][0], movers[k])
        left = in_seats(rows[k - 1]["next_skip"], movers[k - 1])
        assert np.min(np.abs(left - mine).max(axis=1)) < 1e-6
    assert rows[-1]["next_ended"].any()  # the game's last move ended the race


def test_a_rows_skip_is_the_standing_of_its_position(game) -> None:
    """Where nothing lies hidden on the piles, the mover's public view is the truth: the skip
    (the position the last move left, in that mover's eyes) is the standing's formula on it."""
    rows, seen = game
    checked = 0
    for k in range(len(rows)):
        view = seen[k + 1][0]
        if any(c == HIDDEN for _, c in (*view.winner_pile, *view.loser_pile)):
            continue
        got = in_seats(rows[k]["skip"][0], seen[k][0].current)
        np.testing.assert_allclose(got, standing_of(view), atol=1e-9)
        checked += 1
    assert checked > 5


class Named(Agent):
    """A registered bot that records its name, its seat and what it saw and chose."""

    def __init__(self, name: str, seen: list[tuple[str, GameState, int]]) -> None:
        self.name, self.bot, self.seen = name, MAKE(name), seen

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, observation: Observation, public_state: GameState) -> int:
        action = self.bot(observation, public_state)
        self.seen.append((self.name, public_state, action))
        return action


MAKE = agents.make


@pytest.mark.parametrize("game_seed", [11, 13])
def test_with_others_play_by_takes_one_rotating_seat_and_only_others_decisions_make_rows(
    game_seed: int,
) -> None:
    seen: list[tuple[str, GameState, int]] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(agents, "make", lambda name: Named(name, seen))
        cfg = StandingTDConfig(num_players=3, play_by="champion", others="greedy")
        rows = play_rows(cfg, game_seed)
    learner = game_seed % 3
    assert {(name, view.current == learner) for name, view, _ in seen} == {
        ("champion", True),
        ("greedy", False),
    }
    teaching = [(view, action) for name, view, action in seen[1:] if name == "greedy"]
    assert 0 < len(rows) == len(teaching) < len(seen) - 1
    for row, (view, action) in zip(rows, teaching, strict=True):
        engine = sorted(float(p) for _, p in chance_outcomes(view, action))
        np.testing.assert_allclose(sorted(row["next_probability"]), engine, atol=1e-6)


def test_siblings_add_rows_and_leave_the_games_rows_as_they_were(game, sibling_game) -> None:
    plain, _ = game
    more, _ = sibling_game
    k = 0
    for row in more:  # the plain game's rows, in order, among the others
        if k < len(plain) and all(np.array_equal(row[a], plain[k][a]) for a in row):
            k += 1
    assert k == len(plain)
    moves = len(plain) + 1
    assert moves < len(more) - len(plain) <= 2 * moves


def test_siblings_are_the_movers_best_other_moves_by_the_standing(sibling_game) -> None:
    """Oracle, on the moves before any race card lies hidden: each move's sibling rows stand
    where an outcome of one of the mover's other actions left the game, the two the standing's
    expectation (the engine's outcomes, the formula of agents.standing) ranks best, best first.
    """
    rows, seen = sibling_game
    checked = 0
    for k in range(9):
        view, chosen = seen[k]
        replies = seen[k + 1 : k + 3]  # a move's siblings' replies, by the next seat
        if any(v.current == view.current for v, _ in replies):
            continue
        if any(c == HIDDEN for _, c in (*view.winner_pile, *view.loser_pile)):
            continue
        worth: dict[int, float] = {}
        reach: dict[int, list[np.ndarray]] = {}
        for action in legal_action_indices(view):
            reach[action], worth[action] = [], 0.0
            for outcome, p in chance_outcomes(view, action):
                after, _ = apply_outcome(view, action, outcome)
                value = standing_of(after)
                reach[action].append(value)
                worth[action] += float(p) * value[view.current]
        best = sorted((a for a in worth if a != chosen), key=lambda a: -worth[a])[:2]
        for action, row in zip(best, rows[k : k + 2], strict=True):
            mine = in_seats(row["skip"][0], view.current)
            assert min(np.abs(v - mine).max() for v in reach[action]) < 1e-6
        checked += 1
    assert checked >= 2


def test_targets_average_the_next_values_and_a_zero_network_is_the_standing() -> None:
    rows = Rows(
        features=np.zeros((2, 3), np.float32),
        skip=np.array([[0.5, 0.5], [0.3, 0.7]], np.float32),
        outcomes=np.array([2, 1]),
        game=np.zeros(2, np.int64),
        next_features=np.zeros((3, 3), np.float32),
        next_skip=np.array([[0.2, 0.8], [0.6, 0.4], [1.0, 0.0]], np.float32),
        next_probability=np.array([0.25, 0.75, 1.0], np.float32),
        next_ended=np.array([False, False, True]),
    )
    want = [[0.25 * 0.2 + 0.75 * 0.6, 0.25 * 0.8 + 0.75 * 0.4], [1.0, 0.0]]
    np.testing.assert_allclose(targets(rows, None), want, atol=1e-6)
    net = Value(value_network(3, [4], 2), np.zeros(3, np.float32), np.ones(3, np.float32), 2, 0.0)
    with torch.no_grad():
        net.layers[-1].weight.zero_()
        net.layers[-1].bias.zero_()
    np.testing.assert_allclose(chances(net, rows.features, rows.skip), rows.skip, atol=1e-5)


def zero_network(rules: RuleSet, captures: bool = False) -> AfterstateNetwork:
    """A standing-skip file whose last layer is zero: the standing itself."""
    features = AfterstateFeatures(rules, StandingTDConfig().observer, True, True, captures=captures)
    width = features.size
    layers = (
        (np.full((width, 4), 0.01, np.float32), np.zeros(4, np.float32)),
        (np.zeros((4, rules.num_players), np.float32), np.zeros(rules.num_players, np.float32)),
    )
    return AfterstateNetwork(
        rules.preset,
        rules.num_players,
        StandingTDConfig().observer,
        np.zeros(width, np.float32),
        np.ones(width, np.float32),
        layers,
        True,
        True,
        0.0,
        {"trainer": "test"},
        standing_skip=True,
        captures=captures,
    )


def test_a_network_at_zero_plays_as_the_standing_by_the_reading_and_reads_no_hidden_card(
    tmp_path: Path,
) -> None:
    rules = RuleSet("classic", num_players=4)
    path = tmp_path / "value.npz"
    save_afterstate_network(path, zero_network(rules, captures=True))
    network = load_afterstate_network(path)
    assert network.standing_skip and network.captures
    s = position_with_hidden_cards(rules)
    view = public_view(s, s.current)
    mine = AfterstateAgent(NetworkValue(network), seed=2).action_chances(view)
    standing = AfterstateAgent(StandingValue(by_reading=True), seed=2).action_chances(view)
    legal = np.isfinite(standing[:, 0])
    np.testing.assert_allclose(mine[legal], standing[legal], atol=1e-4)
    assert np.argmax(mine[:, s.current]) == np.argmax(standing[:, s.current])
    # R10: whichever camel another seat's hidden card backs, the same chances
    t = swapped_card(s)
    again = AfterstateAgent(NetworkValue(network), seed=2).action_chances(public_view(t, s.current))
    np.testing.assert_array_equal(mine, again)
    # the spec plays it
    player = agents.make(f"afterstate:{path}")
    assert isinstance(player.value, NetworkValue) and player.value.standing is not None


def test_a_file_with_both_skips_is_refused(tmp_path: Path) -> None:
    rules = RuleSet("classic", num_players=2)
    network = zero_network(rules)
    both = dataclasses.replace(network, equity_weight=3.0)
    path = tmp_path / "both.npz"
    save_afterstate_network(path, both)
    with pytest.raises(ValueError, match="not both an equity_weight and standing_skip"):
        load_afterstate_network(path)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_the_captures_inputs_are_each_seats_next_capture_in_the_viewers_order(preset: str) -> None:
    """Every row's own next captures, also where many rows are alike in all that the captures
    read and share one computation (the replies to a move's outcomes, a 2-ply choice's rows)."""
    rules = RuleSet(preset, num_players=4)
    s = position_with_hidden_cards(rules)
    turned = s.copy()  # the same board with another seat to move: the same rows but the mover
    turned.current = (s.current + 1) % rules.num_players
    moves = afterstates(BatchGames.from_states([s, turned]))
    after = afterstates(moves.games.take(np.flatnonzero(~moves.ended)))
    running = np.flatnonzero(~after.ended)
    plain = AfterstateFeatures(rules, StandingTDConfig().observer, True, True)
    more = AfterstateFeatures(rules, StandingTDConfig().observer, True, True, captures=True)
    a, b = plain.rows(after, running, 2), more.rows(after, running, 2)
    assert b.shape[1] == a.shape[1] + 4 == more.size
    obs = plain.batch_observer.size
    np.testing.assert_array_equal(a[:, :obs], b[:, :obs])
    np.testing.assert_array_equal(a[:, obs:], b[:, obs + 4 :])  # the equities stay last
    for j, state in enumerate(after.games.to_states(running)):
        c = next_captures(state)
        want = seats_to_relative((c - c.mean())[None], [2])[0] / 10.0
        np.testing.assert_allclose(b[j, obs : obs + 4], want, atol=1e-6)


def test_a_run_plays_fits_and_resumes_a_lost_shard_alike(tmp_path: Path) -> None:
    cfg = tiny(tmp_path / "run")
    path = train(cfg)
    network = load_afterstate_network(path)
    assert network.standing_skip and network.training["trainer"] == "standing-td"
    assert network.training["played_by"] == "champion" and network.margin is None
    log = (tmp_path / "run" / "fit.csv").read_text().splitlines()
    assert len(log) == 1 + cfg.sweeps * cfg.epochs
    assert all((tmp_path / "run" / "snapshots" / f"value_sweep{k}.npz").exists() for k in (0, 1))
    result = play_game(
        RuleSet("classic", num_players=2),
        [agents.make(f"afterstate:{path}"), agents.make("random")],
        5,
    )
    assert result.forfeit is None
    kept, lost = shard_path(cfg.labels, 0), shard_path(cfg.labels, 1)
    before, kept_time = np.load(lost)["next_skip"], kept.stat().st_mtime_ns
    lost.unlink()
    train(cfg, resume=True)
    np.testing.assert_array_equal(np.load(lost)["next_skip"], before)
    assert kept.stat().st_mtime_ns == kept_time


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"play_by": "nobody"}, "nobody"),
        ({"others": "nobody"}, "nobody"),
        ({"preset": "persian_tutorial", "num_players": 4}, "batch core"),
        ({"holdout_every": 1}, "holdout_every"),
        ({"label_games": 1}, "hold none out"),
        ({"sweeps": 0}, "sweeps"),
        ({"race_equity": True, "leg_equity": False}, "leg_equity"),
    ],
)
def test_bad_settings_are_refused_in_one_line(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    with pytest.raises((ConfigError, ValueError), match=message):
        train(tiny(tmp_path / "bad", **changes))
    assert not (tmp_path / "bad").exists()
