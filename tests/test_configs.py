"""Every shipped config under ``configs/`` loads, validates and names agents that can be built.

A config is documentation users copy and the command the README tells them to run: one that
fails its own checks, names an agent the registry does not know, or points at a model file that
is not in the repository would be found by a user an hour into a run (or at its first game).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import agents
from camelup_config import load_config
from tournament.config import agent_entries, check_spec, tournament_config
from training.policy.sb3_trainer import TrainConfig

ROOT = Path(__file__).resolve().parents[1]
TRAIN_CONFIGS = sorted((ROOT / "configs" / "train").glob("*.yaml"))
TOURNAMENT_CONFIGS = sorted((ROOT / "configs" / "tournament").glob("*.yaml"))


def test_the_shipped_configs_are_found() -> None:
    assert len(TRAIN_CONFIGS) >= 4 and len(TOURNAMENT_CONFIGS) >= 4


@pytest.mark.parametrize("path", TRAIN_CONFIGS, ids=lambda p: p.name)
def test_training_config_loads_and_validates(path: Path) -> None:
    if "rllib" in path.name:
        rllib = pytest.importorskip("training.policy.rllib_trainer", reason="the distributed extra")
        load_config(rllib.RLlibConfig, path, {})
    elif path.name.startswith("standing_copy_"):  # camelup train --trainer standing-copy
        from training.afterstate.standing_copy import StandingCopyConfig

        load_config(StandingCopyConfig, path, {}).check()
    elif path.name.startswith("standing_td_"):  # camelup train --trainer standing-td
        from training.afterstate.standing_td import StandingTDConfig

        load_config(StandingTDConfig, path, {}).check()
    elif path.name.startswith("afterstate_"):  # camelup train --trainer afterstate
        from training.afterstate.trainer import AfterstateConfig

        load_config(AfterstateConfig, path, {}).check()
    else:  # loading validates: the rule set, numbers, every agent named (check_game_settings)
        load_config(TrainConfig, path, {})


@pytest.mark.parametrize("path", TOURNAMENT_CONFIGS, ids=lambda p: p.name)
def test_tournament_config_agents_can_be_built(path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # model paths in the configs are relative to the repository
    fetched = ROOT / "external"  # other projects' bots, fetched at run time (docs/cup.md)
    if "external/" in path.read_text() and not fetched.is_dir():
        pytest.skip(f"{path.name} plays bots fetched at run time into {fetched.name}/")
    config = tournament_config(str(path), {})
    config.ruleset()
    for entry in agent_entries(list(config.agents)):
        check_spec(entry.spec)
        agents.make(entry.spec, **entry.kwargs)
