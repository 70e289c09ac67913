"""Modules that moved, and the error that says where: ``import camelup_env.engine`` names
``camelup_env.game.engine`` instead of only failing.

Code written against an earlier layout fails at its first import; a bare "No module named"
sends its author searching. :data:`MOVED` maps each former module to its present one
(``CHANGELOG.md`` says when and why), and :func:`install` puts a finder at the end of
``sys.meta_path`` that answers a former name - and only once every other finder has found
nothing - with a :class:`MovedModuleError` naming the new module. Nothing is re-exported under
the old names: an alias would keep two spellings of one module alive for good, and a half-moved
import (one old name, one new) would load two copies of the same classes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

#: former module -> present module (CHANGELOG.md: when each moved, 0.2.0 unless marked). Names
#: of packages that import camelup_env (so that the finder is in place when they are imported).
MOVED = {
    "camelup_env.actions": "camelup_env.game.actions",
    "camelup_env.engine": "camelup_env.game.engine",
    "camelup_env.events": "camelup_env.game.events",
    "camelup_env.movement": "camelup_env.game.movement",
    "camelup_env.payouts": "camelup_env.game.payouts",
    "camelup_env.position": "camelup_env.game.notation",
    "camelup_env.rewards": "camelup_env.game.rewards",
    "camelup_env.rules": "camelup_env.game.rules",
    "camelup_env.sampling": "camelup_env.game.sampling",
    "camelup_env.state": "camelup_env.game.state",
    "camelup_env.action_values": "camelup_env.odds.action_values",
    "camelup_env.luck": "camelup_env.odds.luck",
    "camelup_env.wanderer_odds": "camelup_env.odds.wanderer",
    "camelup_env.render_image": "camelup_env.render.image",
    "camelup_env.render_svg": "camelup_env.render.svg",
    "camelup_env.wrappers": "camelup_env.envs.single_agent",
    "camelup_env.vector_env": "camelup_env.envs.vector",
    "camelup_env.registration": "camelup_env.envs.registration",
    "camelup_env.demo": "camelup_env.cli.demo",
    "camelup_env.odds_cli": "camelup_env.cli.odds",
    "camelup_env.batch.stale_cache": "camelup_env.stale_cache",
    "agents.arena": "camelup_env.match",
    "training.train_ppo": "training.policy.sb3_trainer",
    "training.rllib_selfplay": "training.policy.rllib_trainer",
    "training.evaluate": "tournament.evaluate",
    "training.tournament": "tournament.run",
    "training.config": "camelup_config",
    # 0.3.0: training's parts in their own folders (the policy-gradient line, the odds files'
    # fitting); ``name_setting`` and ``out_dir_setting`` left training.settings for
    # training.run_folder
    "training.sb3_trainer": "training.policy.sb3_trainer",
    "training.rllib_trainer": "training.policy.rllib_trainer",
    "training.vec_env": "training.policy.vec_env",
    "training.sharded_vec_env": "training.policy.sharded_vec_env",
    "training.selfplay": "training.policy.selfplay",
    "training.opponent_focus": "training.policy.opponent_focus",
    "training.imitation": "training.policy.imitation",
    "training.value_warmup": "training.policy.value_warmup",
    "training.distill": "training.policy.distill",
    "training.expert_iteration": "training.policy.expert_iteration",
    "training.curves": "training.policy.curves",
    "training.settings": "training.policy.settings",
    "training.win_model": "training.odds.win_model",
    "training.win_network": "training.odds.win_network",
    "training.luck_shares": "training.odds.luck_shares",
    "training.mix_games": "training.odds.mix_games",
}


class MovedModuleError(ModuleNotFoundError):
    """A module of an earlier camelup layout: the message names where it is now."""


class _MovedFinder(MetaPathFinder):
    """Last on ``sys.meta_path``: consulted only for a name no other finder found."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        raise MovedModuleError(
            f"No module named {fullname!r}: it moved to {new!r} (import that instead; "
            "camelup's CHANGELOG.md lists every moved module)"
        )  # no ``name``: ``from camelup_env import engine`` would swallow an error that has it


def install() -> None:
    """Answer the former names with :class:`MovedModuleError` in this process (idempotent)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
