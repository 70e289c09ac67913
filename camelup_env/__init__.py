"""camelup: the reference reinforcement-learning environment for the board game Camel Up.

The rules engine is a set of pure functions over plain-data states::

    import numpy as np
    from camelup_env import RuleSet, new_game, legal_actions, apply_action

    rng = np.random.default_rng(0)
    state = new_game(RuleSet("classic", num_players=4), seed=0)
    while not state.game_over:
        state, events = apply_action(state, rng.choice(legal_actions(state)), rng)

The PettingZoo environment is :mod:`camelup_env.camelup_v1` (its ``ENV_VERSION`` names the
version a trained model records); the per-action expected values shared by the greedy agent
and the observation are :func:`camelup_env.odds.action_values.action_values`.

The single-agent Gymnasium environment is registered under ``camelup/<Preset><n>p-v0``::

    import gymnasium
    import camelup_env  # registers the ids

    env = gymnasium.make("camelup/Classic2p-v0")
"""

from camelup_env import moved
from camelup_env.envs.registration import register_envs
from camelup_env.game.actions import (
    Action,
    AddSupportDie,
    Partner,
    Photograph,
    PlaceTile,
    PlayLoserCard,
    PositionBet,
    RaceBet,
    SkipExtra,
    TakeLegBet,
    TakePyramidTile,
    WandererSendBack,
    WandererSwap,
    action_table,
    describe,
)
from camelup_env.game.engine import DieRoll, apply_action, apply_outcome, chance_outcomes, winners
from camelup_env.game.legality import (
    IllegalActionError,
    check_legal,
    legal_action_indices,
    legal_action_mask,
    legal_actions,
)
from camelup_env.game.movement import ranking
from camelup_env.game.notation import PositionError, parse_position
from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.game.setup import leg_start_pyramid, new_game
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState
from camelup_env.observation import Observer, public_view
from camelup_env.render.text import render_text

#: The release (pyproject.toml reads it from here); CHANGELOG.md says what each one changed.
__version__ = "0.3.9"

# gymnasium.make("camelup/Classic2p-v0") etc. (camelup_env.envs.registration)
register_envs()
# an import of a module's former place says where it went (camelup_env.moved)
moved.install()

__all__ = [
    "LOSER_PILE",
    "PRESETS",
    "WINNER_PILE",
    "Action",
    "AddSupportDie",
    "DieRoll",
    "GameState",
    "IllegalActionError",
    "Observer",
    "Partner",
    "Photograph",
    "PlaceTile",
    "PlayLoserCard",
    "PositionBet",
    "PositionError",
    "RaceBet",
    "RuleSet",
    "SkipExtra",
    "TakeLegBet",
    "TakePyramidTile",
    "WandererSendBack",
    "WandererSwap",
    "action_table",
    "apply_action",
    "apply_outcome",
    "chance_outcomes",
    "check_legal",
    "describe",
    "leg_start_pyramid",
    "legal_action_indices",
    "legal_action_mask",
    "legal_actions",
    "new_game",
    "parse_position",
    "public_view",
    "ranking",
    "render_text",
    "winners",
]
