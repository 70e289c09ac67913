"""What every self-play trainer is configured with, documented and checked in one place.

Both trainers (``camelup train``: sb3-contrib's MaskablePPO, and ``--trainer rllib``: RLlib's
PPO) play the same game with the same observation, network, reward and opponents, and write a
run folder: :class:`SelfPlaySettings` holds those fields, each with its help text (which is its
``--field-name`` flag's help, :mod:`camelup_config`), and checks them before anything starts.
Each trainer's config is a subclass that adds its own fields (rollouts, workers, iterations).
The checks that other commands reuse on their own inputs (agent specs, model files) are
functions here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from camelup_config import ConfigError, setting
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.rules import RuleSet, preset_list
from training.run_folder import name_setting, out_dir_setting


@dataclass
class SelfPlaySettings:
    """The game, observation, reward, network, PPO and opponent settings of a self-play run."""

    name: str = name_setting("selfplay")
    preset: str = setting("classic", help=f"Rule set: {preset_list()}.")
    num_players: int = setting(
        4, help="Players per game (the learner and num_players - 1 opponents)."
    )
    reward_mode: str = setting(
        "win", help="Terminal reward: win (zero-sum), rank or coins (see camelup_v1)."
    )
    odds_features: bool = setting(
        True, help="Exact leg odds, leg-bet values and race odds in the observation."
    )
    action_values: bool = setting(
        True, help="Per-action expected coins in the observation (camelup_v1's action_values)."
    )
    race_samples: int = setting(
        64, help="Monte Carlo rollouts behind the race odds of the observation."
    )
    coin_shaping: float = setting(
        0.0, help="Dense reward: this much per coin the learner gains or loses during the game."
    )
    luck_correction: float = setting(
        0.0,
        help="Share (0-1) of each roll's luck subtracted from every seat's rewards: the dice's "
        "part of the return, measured exactly and with zero mean (docs/luck.md, Training). "
        "Classic and second edition.",
    )
    seed: int = setting(0, help="Seed of the games, the opponent draws and the network.")
    learning_rate: float = setting(3e-4, help="Adam learning rate.")
    gamma: float = setting(0.995, help="Discount factor.")
    gae_lambda: float = setting(0.95, help="GAE lambda.")
    clip_range: float = setting(0.2, help="PPO clip range.")
    ent_coef: float = setting(0.01, help="Entropy bonus.")
    net_arch: list[int] = setting(
        default_factory=lambda: [256, 256], help="Hidden layers of the policy and value networks."
    )
    opponent_mix: dict[str, float] = setting(
        default_factory=lambda: {"self": 0.5, "greedy": 0.3, "heuristic": 0.1, "random": 0.1},
        help="Opponent draw weights per seat: 'self' (a frozen copy of the learner) or any "
        "agent spec.",
    )
    opponent_focus: float = setting(
        0.0,
        help="Draw opponent_mix's entries toward those the learner loses to: each entry's "
        "weight times (1 - the learner's recent win share in games with it) ** opponent_focus "
        "(0: the mix as given; training/policy/opponent_focus.py).",
    )
    out_dir: str = out_dir_setting("runs/selfplay")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Every value checked up front: a bad config fails in a second, not after an hour."""
        try:
            self.rules()
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        check_positive(self, ("race_samples", "learning_rate"))
        try:
            self.episode()
            if self.luck_correction:
                from camelup_env.batch.roll_luck import RollLuck, check_luck_correction

                check_luck_correction(self.luck_correction)
                RollLuck(self.rules(), self.episode())  # a rule set it can measure
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        if not 0 < self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ConfigError("gamma must be in (0, 1] and gae_lambda in [0, 1]")
        if self.clip_range <= 0 or self.ent_coef < 0:
            raise ConfigError("clip_range must be positive, ent_coef >= 0")
        if not self.net_arch or any(w <= 0 for w in self.net_arch):
            raise ConfigError(f"net_arch must be positive layer widths, got {self.net_arch}")
        mix = self.opponent_mix
        if not mix or any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0:
            raise ConfigError(
                f"opponent_mix needs non-negative weights with a positive sum, got {mix}"
            )
        check_agents("opponent_mix", [n for n in mix if n != "self"])
        if self.opponent_focus < 0:
            raise ConfigError(f"opponent_focus must be >= 0, got {self.opponent_focus}")
        out = Path(self.out_dir)
        if out.exists() and not out.is_dir():
            raise ConfigError(f"out_dir {self.out_dir} exists and is not a folder")

    def rules(self) -> RuleSet:
        return RuleSet(self.preset, num_players=self.num_players)

    def episode(self) -> EpisodeSettings:
        """The learner's episode settings (the environments' default ``max_turns``)."""
        return EpisodeSettings(self.reward_mode, self.coin_shaping)

    def observer_settings(self) -> dict[str, Any]:
        """The learner's observation (keyword arguments of ``Observer``)."""
        return {
            "odds_features": self.odds_features,
            "race_samples": self.race_samples,
            "action_values": self.action_values,
        }


def check_positive(cfg: Any, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(cfg, name) <= 0:
            raise ConfigError(f"{name} must be positive, got {getattr(cfg, name)}")


def check_agents(field_name: str, specs: list[str]) -> None:
    """Every spec names an agent that can be made (a ``ppo:`` file is read now)."""
    import agents

    for spec in specs:
        try:
            agents.factory(spec) if ":" not in spec else agents.make(spec)
        except (ValueError, ImportError, OSError) as exc:
            raise ConfigError(f"{field_name}: {exc}") from exc


def check_model_file(cfg: SelfPlaySettings, path: str, field_name: str) -> None:
    """``path`` (the setting ``field_name``) is a readable model file for exactly this run's
    game, observation and network (read without its tensors: a second, not a load)."""
    from agents.policy_file import ModelFileError, read_policy_file

    try:
        file = read_policy_file(path, tensors=False)
    except ModelFileError as exc:
        raise ConfigError(f"{field_name}: {exc}") from exc
    mismatch = [
        what
        for what, mine, theirs in (
            ("rules", cfg.rules().to_dict(), file.rules.to_dict()),
            ("observation", cfg.observer_settings(), file.observer_settings),
            (
                "net_arch",
                [list(cfg.net_arch)] * 2,
                [list(file.architecture.pi), list(file.architecture.vf)],
            ),
        )
        if mine != theirs
    ]
    if mismatch:
        raise ConfigError(
            f"{field_name}: {path} was trained with other {', '.join(mismatch)} than this config"
        )
