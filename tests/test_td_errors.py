"""A value's one-step errors by the kind of move (training/afterstate/td_errors.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.afterstate_network import save_afterstate_network
from training.afterstate.td_errors import TURN, main, td_errors
from training.afterstate.trainer import AfterstateConfig
from training.afterstate.value import exported, new_value


def test_a_value_that_says_even_errs_only_where_the_race_ended(tmp_path: Path) -> None:
    """Every position worth 1/2 to each of two seats: a row's target is 1/2 too unless the
    next move may end the race (there the win shares weigh in by their chance), so an error
    is 0 but for the rows before a game's end, at most 1/2 either way."""
    cfg = AfterstateConfig(
        out_dir=str(tmp_path),
        num_players=2,
        games=8,
        hidden=[8],
        equity_weight=0.0,
        opponent_mix={"self": 0.5, "random": 0.5},
    )
    net, _ = new_value(cfg)
    with torch.no_grad():
        net.layers[-1].weight.zero_()
        net.layers[-1].bias.zero_()
    path = tmp_path / "even.npz"
    save_afterstate_network(path, exported(net, cfg, 0))
    cfg.init_from = str(path)
    errors = td_errors(cfg, steps=150)
    assert np.all(errors.pop(TURN) == 0.0)  # a constant value reads no turn
    assert "TakePyramidTile" in errors and "TakeLegBet" in errors
    every = np.concatenate(list(errors.values()))
    assert np.all(np.abs(every) <= 0.5 + 1e-6)
    assert 0 < np.sum(~np.isclose(every, 0.0, atol=1e-6)) < len(every) / 10


def test_the_command_prints_a_line_a_kind_and_refuses_a_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("num_players: 2\nhidden: [8]\nopponent_mix: {self: 0.5, random: 0.5}\n")
    assert main([str(config), "--steps", "20", "--games", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all("mean error" in line for line in lines[:-1]) and lines[-1].startswith(TURN)
    assert main([str(config), "--value", str(tmp_path / "none.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("td_errors: error:") and "\n" not in err
