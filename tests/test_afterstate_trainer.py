"""The afterstate learner (training/afterstate/trainer.py): a tiny real run, its resume, its
targets and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import agents
from agents.afterstate_network import load_afterstate_network
from agents.batch_player import EngineBatchPlayer
from camelup_cli.main import main as camelup
from camelup_config import ConfigError
from camelup_env import RuleSet, legal_action_indices
from camelup_env.batch import BatchGames, random_streams
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import afterstates
from camelup_env.observation import public_view
from training.afterstate.trainer import AfterstateConfig, draw_outcomes, train
from training.afterstate.value import Value, value_network


def tiny(out: Path, **changes: object) -> AfterstateConfig:
    settings: dict[str, object] = {
        "out_dir": str(out),
        "total_games": 12,
        "games": 8,
        "hidden": [16],
        "batch_size": 64,
        "replay_size": 2_000,
        "snapshot_every": 6,
        "checkpoint_every": 6,
        "opponent_mix": {"self": 0.7, "random": 0.3},
        **changes,
    }
    return AfterstateConfig(**settings)  # type: ignore[arg-type]


def small_value(cfg: AfterstateConfig, skip: float, seed: int, spread: float | None = None):
    """A one-layer value over ``cfg``'s inputs with the equity skip at ``skip``, its weights
    drawn from ``seed``; with ``spread`` its last layer redrawn at that spread, so its scores
    are not the skip's alone."""
    rules = RuleSet(cfg.preset, num_players=cfg.num_players)
    low, high = AfterstateFeatures(rules, cfg.observer, True, True).bounds()
    torch.manual_seed(seed)
    layers = value_network(len(low), [8], cfg.num_players)
    net = Value(layers, (low + high) / 2, (high - low) / 2 + 1e-6, cfg.num_players, skip)
    if spread is not None:
        with torch.no_grad():
            layers[-1].weight.normal_(0, spread)
    return net


def test_a_run_writes_a_playable_value_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    path = train(tiny(out))
    network = load_afterstate_network(path)
    assert (network.preset, network.players) == ("classic", 4)
    assert network.training["games"] >= 12
    progress = json.loads((out / "progress.json").read_text())
    assert progress["games"] >= 12 and progress["decisions"] > 12 * 20
    assert [s["games"] for s in progress["snapshots"]][:3] == [0, 6, 12]  # 0: the start
    before = network.layers[0][0].copy()
    train(tiny(out, total_games=24), resume=True)
    again = json.loads((out / "progress.json").read_text())
    assert again["games"] >= 24
    assert not np.array_equal(load_afterstate_network(path).layers[0][0], before)  # learned on
    agent = agents.make(f"afterstate:{path}")
    rules = RuleSet("classic", num_players=4)
    state = BatchGames(rules, 1, seed=5).to_states()[0]
    assert agent(None, public_view(state, state.current)) in legal_action_indices(state)  # type: ignore[arg-type]


def test_outcomes_are_drawn_by_their_chances() -> None:
    rules = RuleSet("classic", num_players=4)
    games = BatchGames(rules, 1, seed=3)
    streams = random_streams(1, seed=4)
    for _ in range(7):  # some dice out of the pyramid: unequal outcome counts per die
        actions = games.random_actions(streams)
        games.step_unchecked(np.where(games.legal_action_mask()[:, 5] == 1, 5, actions))
    after = afterstates(games.take(np.zeros(4000, np.int64)))
    rolls = np.flatnonzero((after.game == 0) & (after.action == 5))
    assert len(rolls) > 3
    drawn = draw_outcomes(after, np.full(4000, 5), np.random.default_rng(0))
    assert np.all(after.action[drawn] == 5) and np.all(after.game[drawn] == np.arange(4000))
    offsets = drawn - after.offsets[np.arange(4000)]
    first = rolls - after.offsets[0]
    counts = np.array([(offsets == k).sum() for k in first])
    expected = after.probability[rolls] * 4000
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected) + 1)


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--opponent-mix", "{'cup:bot.py': 1.0}", "registered bot's name"),
        ("--preset", "supercup", "batch core"),
        ("--epsilon", "2", "epsilon"),
    ],
)
def test_a_bad_setting_is_one_line_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str
) -> None:
    code = camelup(["train", "--trainer", "afterstate", "--out-dir", str(tmp_path), flag, value])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and "\n" not in err
    assert not (tmp_path / "progress.json").exists()


def test_lambda_returns_mix_the_next_worth_with_the_rest_of_the_game(tmp_path: Path) -> None:
    from training.afterstate.trainer import SelfPlay

    cfg = tiny(tmp_path, td_lambda=0.5, num_players=2, opponent_mix={"self": 1.0})
    play = SelfPlay(cfg, value_network(4, [2], 2), first_seed=0)
    rows = [np.full(3, k, np.float32) for k in range(3)]
    nexts = [np.array([0.2, 0.8]), np.array([0.6, 0.4]), np.array([1.0, 0.0])]
    episode = [(rows[k], k % 2, nexts[k]) for k in range(3)]  # seats take turns viewing
    x, y = play._returns(episode, final={-1: np.array([0.0, 1.0])})
    g2 = 0.5 * nexts[2] + 0.5 * np.array([0.0, 1.0])  # seat order
    g1 = 0.5 * nexts[1] + 0.5 * g2
    g0 = 0.5 * nexts[0] + 0.5 * g1
    np.testing.assert_allclose(y, [g0, g1[::-1], g2], atol=1e-6)  # row 1 seen by seat 1
    np.testing.assert_array_equal(x, np.stack(rows))
    cfg0 = tiny(tmp_path, td_lambda=0.0, num_players=2, opponent_mix={"self": 1.0})
    play0 = SelfPlay(cfg0, value_network(4, [2], 2), first_seed=0)
    _, y0 = play0._returns(episode, final={-1: np.array([0.0, 1.0])})
    np.testing.assert_allclose(y0, [nexts[0], nexts[1][::-1], nexts[2]], atol=1e-6)  # TD(0)
    # every seat's view: each seat's rows make a chain of their own
    cfg_all = tiny(tmp_path, td_lambda=0.5, num_players=2, opponent_mix={"self": 1.0})
    cfg_all.all_views = True
    play_all = SelfPlay(cfg_all, value_network(4, [2], 2), first_seed=0)
    ends = {0: np.array([0.0, 1.0]), 1: np.array([0.3, 0.7])}
    _, y_all = play_all._returns(episode, final=ends)
    h2 = 0.5 * nexts[2] + 0.5 * ends[0]  # seat 0's chain: rows 2, 0
    h0 = 0.5 * nexts[0] + 0.5 * h2
    h1 = 0.5 * nexts[1] + 0.5 * ends[1]  # seat 1's: row 1 alone
    np.testing.assert_allclose(y_all, [h0, h1[::-1], h2], atol=1e-6)


def test_a_run_starts_from_a_value_file_and_refuses_a_foreign_one(tmp_path: Path) -> None:
    first = train(tiny(tmp_path / "first"))
    second = train(tiny(tmp_path / "second", init_from=str(first), total_games=1))
    before, after = load_afterstate_network(first), load_afterstate_network(second)
    assert before.layers[0][0].shape == after.layers[0][0].shape
    # a few updates from the file's weights stay near them; a fresh start would not
    fresh = train(tiny(tmp_path / "fresh", total_games=1))
    near = np.abs(after.layers[0][0] - before.layers[0][0]).mean()
    far = np.abs(load_afterstate_network(fresh).layers[0][0] - before.layers[0][0]).mean()
    assert near < far / 2
    with pytest.raises(ConfigError, match="other layers"):
        train(tiny(tmp_path / "wide", init_from=str(first), hidden=[32]))
    with pytest.raises(ConfigError, match="init_from"):
        train(tiny(tmp_path / "two", init_from=str(first), num_players=2))


def test_the_equity_skip_starts_as_the_equity_and_learns_on(tmp_path: Path) -> None:
    out = tmp_path / "skip"
    path = train(tiny(out, equity_weight=3.0))
    start = load_afterstate_network(out / "snapshots" / "value_0.npz")
    assert start.equity_weight == 3.0 and not start.layers[-1][0].any()
    obs = np.random.default_rng(2).random((5, start.mean.size)).astype(np.float32)
    scores = 3.0 * obs[:, -4:]
    expected = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(start.chances(obs), expected, rtol=1e-5)  # the equity alone
    learned = load_afterstate_network(path)
    assert learned.equity_weight != 3.0 and learned.layers[-1][0].any()
    train(tiny(out, equity_weight=3.0, total_games=24), resume=True)
    resumed = json.loads((out / "progress.json").read_text())["games"]
    assert resumed >= 24 and load_afterstate_network(path).equity_weight != learned.equity_weight
    with pytest.raises(ConfigError, match="need leg_equity"):
        train(tiny(tmp_path / "no", equity_weight=3.0, leg_equity=False))


def test_a_rows_target_is_judged_by_its_own_seat(tmp_path: Path) -> None:
    """The row a seat's move left learns what the next mover's choice is worth through that
    seat's eyes: the chosen action's outcomes valued from its view, weighed by their chances."""
    from agents.afterstate_network import relative_to_seats
    from training.afterstate.trainer import SelfPlay

    cfg = tiny(tmp_path, race_equity=True, equity_weight=2.0, opponent_mix={"self": 1.0})
    play = SelfPlay(cfg, small_value(cfg, skip=2.0, seed=0, spread=0.3), first_seed=3)
    for _ in range(25):  # race cards on the piles, rows waiting
        play.step()
    after = afterstates(play.games)
    waiting = np.flatnonzero(play.has_pending)
    actions = np.argmax(after.legal, axis=1)
    got = play.own_view_worth(after, actions, waiting, play.pending_viewer[waiting, 0])
    judge = play.pending_viewer[after.game, 0]
    _, values = play.values(after, np.arange(len(after)), judge)
    q = after.expect(relative_to_seats(values, judge))
    np.testing.assert_allclose(got, q[waiting, actions[waiting]], atol=1e-6)
    movers = play.games.current_player[after.game].astype(np.int64)
    _, theirs = play.values(after, np.arange(len(after)), movers)
    q_mover = after.expect(relative_to_seats(theirs, movers))
    assert not np.allclose(got, q_mover[waiting, actions[waiting]])  # the views differ


def test_every_view_learns_its_own_target(tmp_path: Path, chosen: list[np.ndarray]) -> None:
    """With ``all_views`` the position a move leaves is a row for every seat, read from that
    seat's observation, and each row learns the next choice's worth through its own seat's
    eyes: the targets read positions with every seat on move, as the rows do."""
    from agents.afterstate_network import relative_to_seats
    from training.afterstate.trainer import SelfPlay

    cfg = tiny(
        tmp_path,
        race_equity=False,
        equity_weight=2.0,
        opponent_mix={"self": 1.0},
        all_views=True,
        epsilon=0.3,
    )
    play = SelfPlay(cfg, small_value(cfg, skip=2.0, seed=0, spread=0.3), first_seed=3)
    for _ in range(20):  # into the game, rows waiting
        play.step()
    waiting = np.flatnonzero(play.has_pending)
    views = play.pending_viewer[waiting]
    last_mover = (play.games.current_player[waiting].astype(np.int64) - 1) % 4
    assert waiting.size and (views == (last_mover[:, None] + np.arange(4)) % 4).all()
    observer = play.features.batch_observer
    size = observer.observer.size
    for j in range(4):  # its seat's observation; the leg equities in that seat's order
        seen = observer.observe(play.games, views[:, j], waiting)
        np.testing.assert_array_equal(play.pending[waiting, j, :size], seen)
        np.testing.assert_allclose(
            play.pending[waiting, j, size:], np.roll(play.pending[waiting, 0, size:], -j, axis=1)
        )
    before = play.games.state.rows.copy()
    pending = play.pending[waiting].reshape(-1, play.features.size).copy()
    targets: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    play.on_targets = lambda rows, viewers, _, worth: targets.append((rows, viewers, worth))
    play.step()
    rows, viewers, worth = targets[0]
    np.testing.assert_array_equal(rows, pending)
    np.testing.assert_array_equal(viewers, views.ravel())
    games = BatchGames(play.rules, cfg.games, seed=0)
    games.state.rows[:] = before
    after = afterstates(games)  # the step's afterstates, again
    actions = chosen[-1]
    for j in range(4):
        judge = np.zeros(cfg.games, np.int64)
        judge[waiting] = views[:, j]
        _, values = play.values(after, np.arange(len(after)), judge[after.game])
        q = after.expect(relative_to_seats(values, judge[after.game]))
        np.testing.assert_allclose(worth[j::4], q[waiting, actions[waiting]], atol=1e-6)


def test_a_stalled_game_is_no_outcome(tmp_path: Path) -> None:
    """A game stopped at max_turns teaches no win: its last row leaves, and the rows before it
    learn (at lambda 1) that last position's own value, never the coins' win shares."""
    from training.afterstate.trainer import SelfPlay

    cfg = tiny(tmp_path, max_turns=4, td_lambda=1.0, num_players=2, opponent_mix={"self": 1.0})
    play = SelfPlay(cfg, small_value(cfg, skip=0.0, seed=1, spread=0.3), first_seed=5)
    x = y = np.zeros((0, 2))
    for _ in range(4):
        x, y, ended = play.step()
    assert play.truncated == 8 and ended == 0  # every game stopped at its 4th action
    assert len(x) == 3 * 8  # three rows a game: the fourth, the last, left
    for game in range(8):
        rows = y[3 * game : 3 * game + 3]
        # one vector in seat order, seen from seats 0, 1, 0 in turn (lambda 1: the same return)
        np.testing.assert_allclose(rows[0], rows[2], atol=1e-6)
        np.testing.assert_allclose(rows[1], rows[0][::-1], atol=1e-6)
        assert 0.0 < rows[0][0] < 1.0  # a value, not a coins' win share


@pytest.fixture
def chosen(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """Each self-play step's chosen actions, recorded as the step draws their outcomes (the
    draw itself is the real one)."""
    from training.afterstate import trainer

    moves: list[np.ndarray] = []

    def spy(after, actions, rng):
        moves.append(actions.copy())
        return draw_outcomes(after, actions, rng)

    monkeypatch.setattr(trainer, "draw_outcomes", spy)
    return moves


@pytest.mark.parametrize("epsilon", [0.0, 1.0])
def test_after_a_round_of_passes_a_seat_must_roll_or_bet(
    tmp_path: Path, chosen: list[np.ndarray], epsilon: float
) -> None:
    """``pass_rounds``' house rule: a seat after a round of tile moves only plays the best of
    its other moves by the value (or, epsilon, one of them at random); a seat after fewer
    passes chooses among all; a roll or a bet ends the count."""
    from training.afterstate import trainer

    cfg = tiny(tmp_path, epsilon=epsilon, opponent_mix={"self": 1.0}, pass_rounds=1, games=64)
    play = trainer.SelfPlay(cfg, small_value(cfg, skip=0.0, seed=2, spread=1.0), first_seed=3)
    after = afterstates(play.games)
    movers = play.games.current_player.astype(np.int64)
    _, values = play.values(after, np.arange(len(after)), movers[after.game])
    q = after.expect(values)[:, :, 0]
    play.passes[:32] = 4  # half the games: a round of passes behind them
    play.step()
    tile = play.is_tile[chosen[-1]]
    assert not tile[:32].any() and play.forced == 32
    assert (play.passes[:32] == 0).all() and (play.passes[32:][tile[32:]] == 1).all()
    if epsilon == 0.0:
        np.testing.assert_array_equal(chosen[-1][32:], np.argmax(q[32:], axis=1))
        assert play.is_tile[np.argmax(q[:32], axis=1)].any()  # some would have passed
        q[:, play.is_tile] = -np.inf
        np.testing.assert_array_equal(chosen[-1][:32], np.argmax(q[:32], axis=1))
    else:
        assert tile[32:].any()  # at random, the unforced seats do pass


def test_with_tile_once_a_tile_on_the_track_stays(tmp_path: Path, chosen: list[np.ndarray]) -> None:
    """``tile_once``: a seat whose desert tile is on the track plays anything but a tile move
    (at random here, where tile moves are most of the legal actions); a seat without one may
    place it."""
    from training.afterstate import trainer

    cfg = tiny(tmp_path, epsilon=1.0, opponent_mix={"self": 1.0}, tile_once=True, games=64)
    play = trainer.SelfPlay(cfg, small_value(cfg, skip=0.0, seed=3), first_seed=4)
    placed_moves = free_tiles = 0
    for _ in range(12):
        movers = play.games.current_player.astype(np.int64)
        placed = play.games.state.tile_space[np.arange(64), movers] > 0
        play.step()
        tile = play.is_tile[chosen[-1]]
        assert not tile[placed].any()
        placed_moves += int(placed.sum())
        free_tiles += int(tile[~placed].sum())
    assert placed_moves > 0 and free_tiles > 0  # both cases came up


def test_pass_rounds_refuses_a_negative(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="pass_rounds must be >= 0"):
        tiny(tmp_path, pass_rounds=-1).check()


def test_a_registered_bot_sits_through_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every seat a champion: each decision of the run is the champion's, asked through the
    engine."""
    asked: list[int] = []
    act = EngineBatchPlayer.act

    def spy(self: EngineBatchPlayer, games: BatchGames, idx: np.ndarray) -> np.ndarray:
        asked.append(len(idx))
        return act(self, games, idx)

    monkeypatch.setattr(EngineBatchPlayer, "act", spy)
    cfg = tiny(tmp_path, num_players=2, games=2, total_games=2, opponent_mix={"champion": 1.0})
    train(cfg)
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress["games"] >= 2 and sum(asked) == progress["decisions"] > 20


def test_a_weight_of_zero_seats_the_value_once_a_game(tmp_path: Path) -> None:
    """``{"self": 0, "random": 1}``: one seat of each game the value's, the evaluation's table."""
    from training.afterstate.trainer import SelfPlay

    cfg = tiny(tmp_path, games=64, opponent_mix={"self": 0.0, "random": 1.0})
    play = SelfPlay(cfg, value_network(4, [2], 4), first_seed=0)
    me = play.specs.index("self")
    assert np.all((play.seating == me).sum(axis=1) == 1)
    assert len({int(np.flatnonzero(row == me)[0]) for row in play.seating}) == 4  # every seat
