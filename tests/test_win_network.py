"""The learned win network (camelup_env.odds.win_network), its file, its place among the luck
covariates and its training on the batch core (training.odds.win_network)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import agents
from camelup_env import RuleSet, apply_action, legal_actions, new_game
from camelup_env.batch.win_chances import luck_covariates, network_chances, network_observations
from camelup_env.game.state import GameState
from camelup_env.observation import Observer
from camelup_env.odds.luck import win_shares
from camelup_env.odds.win import COVARIATES, NETWORK_COVARIATE, SHIPPED, WinModel, load_win_model
from camelup_env.odds.win_network import load_win_network, save_win_network
from training.odds.mix_games import mix_games
from training.odds.win_network import (
    OBSERVER,
    cached_shard,
    exact_positions,
    fit,
    gather,
    generate,
    main,
)

RULES = RuleSet("classic", num_players=2)
GREEDY2 = "agents/models/greedy_classic2.zip"


def _network(tmp_path: Path, inputs: int, seed: int = 0, name: str = "n.npz") -> Path:
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(size=(inputs, 8)) * 0.1, rng.normal(size=8) * 0.1),
        (rng.normal(size=(8, 1)), rng.normal(size=1)),
    ]
    path = tmp_path / name
    save_win_network(path, "classic", 2, OBSERVER, np.zeros(inputs), np.ones(inputs) * 2.0, layers)
    return path


def _states(n: int, seed: int = 1) -> list[GameState]:
    rng = np.random.default_rng(seed)
    state, out = new_game(RULES, seed=rng), []
    while len(out) < n and not state.game_over:
        out.append(state)
        state, _ = apply_action(state, rng.choice(legal_actions(state)), rng)
    return out


def test_a_network_file_round_trips_and_scores_every_seat_by_its_own_view(tmp_path: Path) -> None:
    """Probabilities are the softmax over the seats of one network's score of each seat's own
    observation, normalisation first; they sum to one."""
    size = Observer(RULES, **OBSERVER).size
    net = load_win_network(_network(tmp_path, size))
    states = _states(6)
    obs = network_observations(net, states)
    assert obs.shape == (len(states), 2, size)
    reference = Observer(RULES, **OBSERVER)
    for state, rows in zip(states, obs, strict=True):
        for seat in range(2):
            np.testing.assert_allclose(rows[seat], reference.observe(state, seat), atol=1e-5)
    p = network_chances(net, states)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
    (w0, b0), (w1, b1) = net.layers
    score = np.maximum((obs / 2.0) @ w0 + b0, 0) @ w1 + b1
    want = np.exp(score[..., 0]) / np.exp(score[..., 0]).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(p, want, rtol=1e-5)


def test_a_network_reads_only_its_own_rule_set(tmp_path: Path) -> None:
    net = load_win_network(_network(tmp_path, Observer(RULES, **OBSERVER).size))
    with pytest.raises(ValueError, match="reads classic games of 2 players, not classic of 4"):
        network_chances(net, _states_of(RuleSet("classic", num_players=4)))


def _states_of(rules: RuleSet) -> list[GameState]:
    return [new_game(rules, seed=np.random.default_rng(0))]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.update(meta=np.array("{}")), "meta must be JSON"),
        (lambda a: a.pop("b1"), "layer 1 must be a matrix w1 and a vector b1"),
        (lambda a: a.update(w1=np.ones((9, 1), np.float32)), r"layer 1's shape \(9, 1\)"),
        (lambda a: a.update(w1=np.ones((8, 2), np.float32), b1=np.ones(2)), "one score"),
        (lambda a: a.update(mean=np.array([np.nan] * 5, np.float32)), "mean must hold finite"),
        (lambda a: a.update(scale=np.zeros(5, np.float32)), "every scale must be positive"),
        (lambda a: a.update(w0=np.array([[object()]], dtype=object)), "not a win-network file"),
    ],
)
def test_a_malformed_network_file_is_refused_in_one_line(
    tmp_path: Path, change, message: str
) -> None:
    """Plain arrays only (an object array would need pickle: refused before anything runs)."""
    path = _network(tmp_path, 5)
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)
    bad = tmp_path / "bad.npz"
    with open(bad, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ValueError, match=message) as err:
        load_win_network(bad)
    assert "\n" not in str(err.value)


def _with_network(tmp_path: Path, key: str = "classic/2", name: str = "classic-2.npz") -> Path:
    """A copy of the shipped model file whose ``key`` entry names a new network (its tables
    dropped, as training.odds.win_network leaves them)."""
    out = tmp_path / "win_models.json"
    doc = json.loads(SHIPPED.read_text())
    for entry in doc["models"].values():  # no other entry has a network: its plain tables
        if entry.pop("network", None) is not None:
            entry["luck_shares"] = entry.pop("luck_shares_plain")
            entry["luck_covariates"] = entry.pop("luck_covariates_plain")
    entry = doc["models"][key]
    for stale in ("luck_shares", "luck_covariates", "luck_shares_fit"):
        entry.pop(stale, None)
    entry["network"] = name
    out.write_text(json.dumps(doc))
    (tmp_path / "win_networks").mkdir(exist_ok=True)
    _network(tmp_path / "win_networks", Observer(RULES, **OBSERVER).size, name=name)
    return out


def test_the_networks_chances_are_the_last_luck_covariate(tmp_path: Path) -> None:
    """A model with a network has one more covariate: the network's chances less the seats'
    mean; a finished game's is its win shares, like the anticipated chances."""
    model = load_win_model(RULES, _with_network(tmp_path))
    assert model.network is not None and model.luck_weights is None
    assert model.covariate_names == (*COVARIATES, NETWORK_COVARIATE)
    states = _states(5)
    covariates = luck_covariates(model)
    u = covariates(states)
    assert u.shape == (len(states), len(COVARIATES) + 1, 2)
    np.testing.assert_allclose(u[:, 4], network_chances(model.network, states) - 0.5, atol=1e-6)
    np.testing.assert_allclose(u[:, :4], model.covariates(states))
    plain = WinModel(model.beta)
    assert luck_covariates(plain) == plain.covariates  # no network: the four alone
    rng = np.random.default_rng(3)
    end = new_game(RULES, seed=rng)
    while not end.game_over:
        end, _ = apply_action(end, rng.choice(legal_actions(end)), rng)
    np.testing.assert_allclose(covariates([end])[0, 4], win_shares(end) - 0.5)


def test_a_network_entry_serves_only_its_own_player_count(tmp_path: Path) -> None:
    """Three players take the nearest entry without a network (classic/4 here); a rule set
    whose only nearest entry has one gets no network and no tables (they go together)."""
    models = _with_network(tmp_path)
    three = load_win_model(RuleSet("classic", num_players=3), models)
    four = load_win_model(RuleSet("classic", num_players=4), models)
    assert three == four and three.network is None
    doc = json.loads(models.read_text())
    doc["models"] = {"classic/2": doc["models"]["classic/2"]}
    models.write_text(json.dumps(doc))
    three = load_win_model(RuleSet("classic", num_players=3), models)
    assert three.network is None and three.luck_shares is None and three.luck_weights is None


def test_a_network_named_outside_its_folder_is_refused(tmp_path: Path) -> None:
    models = _with_network(tmp_path)
    doc = json.loads(models.read_text())
    doc["models"]["classic/2"]["network"] = "../classic-2.npz"
    models.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"network must be a \.npz file name in win_networks/"):
        load_win_model(RULES, models)


def test_generation_is_seeded_and_truncated_games_are_left_out(tmp_path: Path) -> None:
    """The same arguments give the same positions; a game cut at ``max_turns`` keeps its
    flag and :func:`gather` drops it; every position carries every seat's observation."""
    policies = [agents.make(f"ppo:{GREEDY2}")]
    a = generate(RULES, policies, 6, 11, 0.5, 0.3, 400)
    b = generate(RULES, policies, 6, 11, 0.5, 0.3, 400)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert a["x"].shape[1:] == (2, Observer(RULES, **OBSERVER).size)
    np.testing.assert_allclose(a["y"].sum(axis=1), 1.0)
    cut = generate(RULES, policies, 6, 11, 1.0, 0.3, 10)
    assert cut["truncated"].all()
    x, y = gather([cached_shard(tmp_path, "cut", lambda: cut)])
    assert len(x) == len(y) == 0


def test_the_exact_bots_slice_is_seeded_and_observed_as_the_reference_observer_does() -> None:
    """Engine games of the exact bots, observed on the batch core: each kept position's rows
    equal the engine observer's of the same state (rebuilt from the game's seed and actions),
    every game labelled by its win shares, none truncated."""
    a = exact_positions(RULES, ["greedy", "random"], 3, 5, 0.3)
    b = exact_positions(RULES, ["greedy", "random"], 3, 5, 0.3)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert a["x"].shape[1:] == (2, Observer(RULES, **OBSERVER).size)
    assert set(a["gid"].tolist()) <= {0, 1, 2} and not a["truncated"].any()
    np.testing.assert_allclose(a["y"].sum(axis=1), 1.0)
    reference, rng = Observer(RULES, **OBSERVER), np.random.default_rng([5, 11])
    games = mix_games(RULES, 3, 5 * 10_000_000 + 5_000_000, ["greedy", "random"])
    states = []
    for g, game in enumerate(games):
        kept = np.flatnonzero(rng.random(len(game.states)) < 0.3)
        states += [game.states[i] for i in kept]
        assert (a["gid"] == g).sum() == len(kept)
        np.testing.assert_array_equal(a["y"][g], game.shares)
    for state, rows in zip(states, a["x"], strict=True):
        for seat in range(2):
            want = reference.observe(state, seat).astype(np.float16)
            np.testing.assert_allclose(rows[seat], want, atol=2e-3)


def test_a_shard_that_keeps_no_position_has_its_shape_and_its_labels() -> None:
    """A small ``keep`` of a few games can keep nothing: the shard is still written, with no
    rows of the right width and every game's label, and gathers to nothing."""
    policies = [agents.make(f"ppo:{GREEDY2}")]
    width = Observer(RULES, **OBSERVER).size
    for shard in (
        generate(RULES, policies, 2, 3, 1e-12, 0.5, 400),
        exact_positions(RULES, ["greedy", "random"], 2, 5, 1e-12),
    ):
        assert shard["x"].shape == (0, 2, width) and shard["gid"].shape == (0,)
        assert shard["y"].shape == (2, 2) and not shard["truncated"].any()
        np.testing.assert_allclose(shard["y"].sum(axis=1), 1.0)


def test_shards_are_gathered_as_their_concatenation(tmp_path: Path) -> None:
    """Shards written once, read back by file, filled into one array: the rows of the games
    that were not cut, in order, each labelled with its game's win shares."""
    policies = [agents.make(f"ppo:{GREEDY2}")]
    cut = generate(RULES, policies, 4, 4, 1.0, 0, 12)  # every game cut: no rows
    shards = [cut, generate(RULES, policies, 4, 3, 0.5, 0.3, 400), cut]
    assert cut["truncated"].all() and not shards[1]["truncated"].any()
    paths = [cached_shard(tmp_path, f"s{i}", lambda s=s: s) for i, s in enumerate(shards)]
    assert cached_shard(tmp_path, "s0", lambda: pytest.fail("made twice")) == paths[0]
    x, y = gather(paths)
    middle = shards[1]
    np.testing.assert_array_equal(x, middle["x"])
    np.testing.assert_array_equal(y, middle["y"][middle["gid"]].astype(np.float32))


def test_fit_learns_which_seat_wins_from_its_observation() -> None:
    """A feature that says who won: the held-out log loss falls well below log 2, where a
    network that learnt nothing stays."""
    rng = np.random.default_rng(0)

    def data(n: int) -> tuple[np.ndarray, np.ndarray]:
        x = rng.normal(size=(n, 2, 6)).astype(np.float16)
        winner = (x[:, 0, 0] > x[:, 1, 0]).astype(int)
        y = np.eye(2, dtype=np.float32)[1 - winner]
        return x, y

    x, y = data(40_000)
    xh, yh = data(500)
    _, _, layers, logloss, brier = fit(x, y, xh, yh, 16, 4, 0, log=lambda _: None)
    assert logloss < 0.5 < np.log(2) and brier < 0.35
    assert [w.shape for w, _ in layers] == [(6, 16), (16, 16), (16, 1)]


def test_the_training_command_writes_the_network_and_drops_the_stale_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = tmp_path / "win_models.json"
    shutil.copy(SHIPPED, models)
    argv = ["--mix", GREEDY2, "--shards", "1", "--games-per-shard", "4", "--holdout", "2"]
    argv += ["--keep", "1", "--epochs", "1", "--hidden", "8", "--cache", str(tmp_path / "c")]
    argv += ["--exact", "greedy", "--exact-games", "2"]
    assert main([*argv, "--models", str(models)]) == 0
    entry = json.loads(models.read_text())["models"]["classic/2"]
    assert entry["network"] == "classic-2.npz" and "luck_shares" not in entry
    assert entry["network_fit"]["exact_games"] == 2 and entry["network_fit"]["exact_bots"] == [
        "greedy"
    ]
    assert len(list((tmp_path / "c" / "classic-2").glob("exact_seed4_2g_*greedy.npz"))) == 1
    assert entry["network_fit"]["command"].startswith("python -m training.odds.win_network --mix")
    model = load_win_model(RULES, models)
    assert model.network is not None and model.luck_weights is None
    assert "held-out log loss" in capsys.readouterr().out
    assert main([*argv, "--models", str(models)]) == 0  # the shards are read back


def test_the_training_command_refuses_bad_input_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--keep", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("win_network: --keep must be in (0, 1]") and err.count("\n") == 1
    assert main(["--mix", "agents/models/classic4.zip"]) == 2
    assert capsys.readouterr().err.startswith("win_network: ")
    assert main(["--exact-games", "-1"]) == 2
    assert capsys.readouterr().err == "win_network: --exact-games must be at least 0\n"
    assert main(["--exact", "greedy,nosuchbot"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("win_network: ") and "nosuchbot" in err and err.count("\n") == 1
