"""The episode settings (``reward_mode``, ``coin_shaping``, ``max_turns``) are checked in one
place, :mod:`camelup_env.game.episode`, and every entry point that takes them refuses a bad one
with the same one-line error naming it, before any game is dealt."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from camelup_env import camelup_v0, camelup_v1
from camelup_env.batch.engine_games import make_games
from camelup_env.batch.learner import LearnerGames
from camelup_env.envs.single_agent import SingleAgentEnv
from camelup_env.envs.vector import SingleAgentVectorEnv
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.rules import RuleSet

CLASSIC = RuleSet("classic", num_players=2)

#: A bad value of each setting, and the start of the error it gives.
BAD = [
    ("reward_mode", "money", "reward_mode must be one of win, rank, coins, got 'money'"),
    ("coin_shaping", -0.5, "coin_shaping must be a finite number >= 0, got -0.5"),
    ("coin_shaping", math.nan, "coin_shaping must be a finite number >= 0, got nan"),
    ("coin_shaping", "lots", "coin_shaping must be a finite number >= 0, got 'lots'"),
    ("max_turns", 0, "max_turns must be a positive whole number or None (no limit), got 0"),
    ("max_turns", 2.5, "max_turns must be a positive whole number or None (no limit), got 2.5"),
]


def _step(engine: bool) -> Callable[..., Any]:
    def step(**settings: Any) -> Any:
        games = make_games(CLASSIC, 2, engine=engine)
        return games.step(np.full(2, -1), **settings)

    return step


#: Every entry point that takes the settings, called with them as keywords.
ENTRY_POINTS: dict[str, Callable[..., Any]] = {
    "camelup_v1": lambda **kw: camelup_v1.raw_env(rules=CLASSIC, **kw),
    "camelup_v0": lambda **kw: camelup_v0.raw_env(rules=CLASSIC, **kw),
    "single agent env": lambda **kw: SingleAgentEnv(rules=CLASSIC, **kw),
    "vector env": lambda **kw: SingleAgentVectorEnv(2, rules=CLASSIC, **kw),
    "learner games": lambda **kw: LearnerGames(CLASSIC, 2, lambda: [], **kw),
    "batch core step": _step(engine=False),
    "engine games step": _step(engine=True),
    "settings": lambda **kw: EpisodeSettings(**kw),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize(("name", "value", "message"), BAD)
def test_every_entry_point_refuses_a_bad_setting_naming_it(
    entry: str, name: str, value: Any, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        ENTRY_POINTS[entry](**{name: value})
    assert str(caught.value) == message


def test_the_sb3_vector_env_refuses_a_bad_setting_naming_it() -> None:
    from training.policy.vec_env import CamelUpVecEnv

    with pytest.raises(ValueError, match=r"^max_turns must be a positive whole number"):
        CamelUpVecEnv(2, CLASSIC, lambda: [], max_turns=-3)


def test_the_settings_are_normalised_once() -> None:
    settings = EpisodeSettings("rank", 1, np.int64(7))
    assert settings == EpisodeSettings("rank", 1.0, 7)
    assert type(settings.coin_shaping) is float and type(settings.max_turns) is int
    assert settings.turn_limit == 7 and EpisodeSettings(max_turns=None).turn_limit == 0
    assert settings.truncates(7) and not settings.truncates(6)
    assert not EpisodeSettings(max_turns=None).truncates(10**9)


def test_train_command_refuses_a_bad_setting_in_one_line(tmp_path, capsys) -> None:
    from camelup_cli.main import main

    out = tmp_path / "r"
    assert main(["train", "--coin-shaping=-1", "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "camelup train: error: command line: coin_shaping must be a finite number >= 0, got -1.0"
    )
    assert not out.exists()
