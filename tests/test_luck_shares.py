"""The luck corrections' shares and covariate weights: the least-squares fit, the model file's
tables, the fitting command, and the shipped tables in evaluations."""

from __future__ import annotations

import json
import shutil
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import agents
from camelup_env import RuleSet
from camelup_env.match import play_game
from camelup_env.odds.luck import SHARE_LEGS
from camelup_env.odds.win import SHIPPED, load_win_model
from tournament.luck import GameLuck
from training.odds.luck_shares import (
    LuckRows,
    fit_shares,
    fit_tables,
    main,
    parallel_rows,
    variances,
)


def test_fit_recovers_the_shares_and_weights_that_made_the_results() -> None:
    """Results built as noise plus the groups' luck at known shares and the covariates' luck
    at known weights: the joint fit finds both, a group no roll fell in keeps the whole
    correction, and each step leaves less variance than the one before."""
    rng = np.random.default_rng(0)
    groups = rng.normal(size=(4000, 6))
    groups[:, 4] = 0.0
    covariates = rng.normal(size=(4000, SHARE_LEGS * 2))
    true = np.array([0.2, 0.5, 0.9, 1.3, 1.0, 0.7])
    true_weights = rng.uniform(-1.0, 1.0, (SHARE_LEGS, 2))
    results = (
        0.3 + groups @ true + covariates @ true_weights.ravel() + rng.normal(scale=0.05, size=4000)
    )
    rows = LuckRows(results, np.zeros(4000), groups, covariates)
    k, w = fit_tables(rows)
    np.testing.assert_allclose(k, true, atol=0.01)
    np.testing.assert_allclose(w, true_weights, atol=0.01)
    assert k[4] == 1.0
    alone = fit_shares(rows.target(), groups)
    v = variances(rows, alone, k, w)
    assert v["covariates"] < v["shares"] < v["whole"] < v["raw"]


def _entry_file(tmp_path: Path, shares: object, name: str = "luck_shares") -> Path:
    """The shipped models with ``shares`` as classic/4's ``name`` table, that entry read
    without its network (its tables fitted without it: four covariates)."""
    doc = json.loads(SHIPPED.read_text())
    entry = doc["models"]["classic/4"]
    del entry["network"]
    entry["luck_shares"] = entry.pop("luck_shares_plain")
    entry["luck_covariates"] = entry.pop("luck_covariates_plain")
    entry[name] = shares
    out = tmp_path / "win_models.json"
    out.write_text(json.dumps(doc))
    return out


def test_the_model_file_carries_a_share_table(tmp_path: Path) -> None:
    table = [[0.5, 0.6, 0.7, 0.8, 0.9]] * SHARE_LEGS
    model = load_win_model(RuleSet("classic", num_players=4), _entry_file(tmp_path, table))
    assert model.luck_shares == tuple(tuple(r) for r in table)


@pytest.mark.parametrize(
    "bad",
    [
        [[0.5] * 5] * (SHARE_LEGS - 1),
        [[0.5] * 5] * (SHARE_LEGS - 1) + [[0.5] * 4],
        [[0.5] * 5] * (SHARE_LEGS - 1) + [[0.5, True, 0.5, 0.5, 0.5]],
        [[0.5] * 5] * (SHARE_LEGS - 1) + [["0.5"] * 5],
        "0.5",
        [[]] * SHARE_LEGS,
    ],
)
def test_a_malformed_share_table_is_refused_in_one_line(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match=r"classic/4: luck_shares must be 4 rows") as info:
        load_win_model(RuleSet("classic", num_players=4), _entry_file(tmp_path, bad))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "bad", [[[0.5] * 4] * (SHARE_LEGS - 1), [[0.5] * 3] * SHARE_LEGS, [[0.5] * 5] * SHARE_LEGS]
)
def test_a_malformed_weight_table_is_refused_in_one_line(tmp_path: Path, bad: object) -> None:
    """One weight per covariate (four) in each of the legs' rows."""
    with pytest.raises(ValueError, match=r"classic/4: luck_covariates must be 4 rows of 4") as e:
        load_win_model(
            RuleSet("classic", num_players=4), _entry_file(tmp_path, bad, "luck_covariates")
        )
    assert "\n" not in str(e.value)


def test_a_non_finite_share_is_refused(tmp_path: Path) -> None:
    out = _entry_file(tmp_path, [[0.5] * 5] * SHARE_LEGS)
    out.write_text(out.read_text().replace("0.5]", "NaN]", 1))
    with pytest.raises(ValueError, match="finite"):
        load_win_model(RuleSet("classic", num_players=4), out)


def test_the_fitting_command_writes_the_table_beside_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tiny fit: the table has a row per leg group and a column per pyramid tile, the model's
    coefficients are kept, the command and the held-out variances are recorded."""
    out = tmp_path / "win_models.json"
    shutil.copy(SHIPPED, out)
    shutil.copytree(SHIPPED.parent / "win_networks", tmp_path / "win_networks")
    before = json.loads(out.read_text())["models"]["classic/2"]["beta"]
    argv = ["--preset", "classic", "--players", "2", "--games", "6", "--holdout", "3"]
    assert main([*argv, "--out", str(out)]) == 0
    entry = json.loads(out.read_text())["models"]["classic/2"]
    assert entry["beta"] == before
    assert np.array(entry["luck_shares"]).shape == (SHARE_LEGS, 5)
    model = load_win_model(RuleSet("classic", num_players=2), out)
    assert np.array(entry["luck_covariates"]).shape == (SHARE_LEGS, len(model.covariate_names))
    fit = entry["luck_shares_fit"]
    assert fit["command"].startswith("python -m training.odds.luck_shares --preset classic")
    assert set(fit["holdout_variance"]) == {
        "raw",
        "whole",
        "shares",
        "covariates",
        "covariates_without_network",  # the model has a network: its plain tables too
    }
    assert "held out (3 games)" in capsys.readouterr().out
    model = load_win_model(RuleSet("classic", num_players=2), out)
    assert model.luck_shares is not None and model.luck_weights is not None
    assert model.network is not None
    # another count takes the tables fitted without the network, from the same games
    plain = np.array(entry["luck_covariates_plain"])
    assert plain.shape == (SHARE_LEGS, len(model.covariate_names) - 1)
    doc = json.loads(out.read_text())
    doc["models"] = {"classic/2": doc["models"]["classic/2"]}
    out.write_text(json.dumps(doc))
    three = load_win_model(RuleSet("classic", num_players=3), out)
    assert three.network is None and three.beta == model.beta
    np.testing.assert_array_equal(np.array(three.luck_weights), plain)
    np.testing.assert_array_equal(np.array(three.luck_shares), entry["luck_shares_plain"])


def test_the_fitting_command_refuses_a_rule_set_without_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--preset", "supercup", "--games", "2", "--holdout", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("luck_shares: no win-probability model for the supercup preset")
    assert err.count("\n") == 1


@pytest.mark.parametrize("key", ["classic/4", "classic/2", "second_edition/4", "cup/4"])
def test_every_shipped_model_has_fitted_tables(key: str) -> None:
    preset, players = key.split("/")
    rules = RuleSet(preset, num_players=int(players))
    model = load_win_model(rules)
    assert model.luck_shares is not None and model.luck_weights is not None
    assert np.array(model.luck_shares).shape == (SHARE_LEGS, rules.pyramid_tiles)
    assert np.array(model.luck_weights).shape == (SHARE_LEGS, len(model.covariate_names))
    assert json.loads(SHIPPED.read_text())["models"][key]["luck_shares_fit"]["games"] >= 600


def test_the_referee_counts_the_shipped_shares_and_weights() -> None:
    """The luck ``camelup evaluate`` takes out of a game is its deal's plus each group's rolls
    at the shipped table's share plus each leg's covariates at the shipped weights."""
    rules = RuleSet("classic", num_players=4)
    luck = GameLuck.shipped(rules)
    model = load_win_model(rules)
    assert luck is not None and luck.shares is not None and luck.weights is not None
    np.testing.assert_array_equal(luck.shares, np.array(model.luck_shares))
    np.testing.assert_array_equal(luck.weights, np.array(model.luck_weights))
    actions: list[int] = []
    play_game(
        rules,
        [agents.make("greedy") for _ in range(rules.num_players)],
        seed=3,
        on_step=lambda state, seat, action, events: actions.append(action),
    )
    ledger = luck.ledger(3, actions)
    assert ledger.by_group is not None and ledger.total is not None
    assert ledger.by_covariate is not None
    expected = (
        ledger.trace[0]
        + np.einsum("gt,gts->s", luck.shares, ledger.by_group)
        + np.einsum("gk,gks->s", luck.weights, ledger.by_covariate)
    )
    np.testing.assert_allclose(ledger.total, expected, atol=1e-12)
    assert not np.allclose(ledger.total, ledger.trace[0] + ledger.by_group.sum(axis=(0, 1)))


def test_workers_play_the_same_games_as_one_process() -> None:
    """Split among processes, the fitting games are the ones one process plays, in order."""
    rules = RuleSet("classic", num_players=2)
    one = parallel_rows(rules, SHIPPED, 5, 40, ["greedy", "random"], 1)
    two = parallel_rows(rules, SHIPPED, 5, 40, ["greedy", "random"], 2)
    for f in fields(LuckRows):
        np.testing.assert_allclose(getattr(two, f.name), getattr(one, f.name), atol=1e-12)
