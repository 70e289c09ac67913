"""Train a Camel Up agent with RLlib's PPO in self-play (``camelup train --trainer rllib CONFIG``).

Read top to bottom: the configuration (every field documented and checked before Ray starts),
the multi-agent environment, the masked actor-critic network, the PPO algorithm built from
them, the checkpoints, and the main loop. RLlib's new API stack throughout (``RLModule``,
``EnvRunner``, ``Learner``).

* **Seats and policies.** Every game has one seat played by the RLlib module ``"learner"`` (the
  one trained) at a random seat; every other seat draws an opponent from ``opponent_mix``:
  ``"self"`` is the module ``"frozen"``, a copy of the learner's weights refreshed every
  ``snapshot_every`` iterations and never trained, any other key a scripted agent from
  :func:`agents.make`. The environment names its agents by role (``"learner"``,
  ``"opponent_1"`` ...), so the policy mapping is a fixed function of the name
  (:func:`module_for`) and the environment owns the draw, as :mod:`training.policy.selfplay` does
  for the SB3 trainer.
* **Why scripted bots play inside the environment**, not as RLlib modules: a camelup agent
  decides from the public game state (the bots read the board, not the feature vector), which
  an RLlib module never sees. So :class:`SelfPlayMultiAgentEnv` is a thin face over the one
  learner-seat loop, :class:`camelup_env.batch.learner.LearnerGames` (the loop of
  ``SingleAgentEnv`` and of the SB3 ``VecEnv``): scripted seats are its opponents, played
  between two decisions of RLlib's agents, and "self" seats are its external seats, handed
  back to RLlib like the learner's. RLlib's ``PettingZooEnv`` wrapper would expose the fixed
  seat names ``player_k`` as agents, and here the agent behind a seat changes every game; the turn
  semantics are the AEC environment's: only the agent to move gets an observation, and each
  agent's reward is what it gained since its own previous observation (the AEC ``last()``
  reward, the loop's ``pending`` rewards).
* **Action masking.** Observations are camelup's ``{"observation", "action_mask"}`` dict;
  :class:`MaskedActorCritic` sets the logits of illegal actions to a large negative number
  before RLlib builds the action distribution, in sampling and in the PPO loss alike.
* **Files.** Every ``checkpoint_every`` iterations (and at the end, and on Ctrl-C) an RLlib
  checkpoint goes to ``checkpoints/iter_NNNNNN/`` (``Algorithm.save_to_path``, used by
  ``--resume``), with ``camelup_policy.zip`` inside it: the learner's weights as a camelup
  model file (tensors and JSON, :mod:`agents.policy_file`; the network has the parameter
  names and shapes of sb3-contrib's ``MaskableActorCriticPolicy``, so one safe reader serves
  both trainers). ``agents.make("rllib:CHECKPOINT")`` plays it (:mod:`agents.rllib`) reading
  only that file; ``model.zip`` in ``out_dir`` is the final one (``ppo:OUT_DIR/model.zip``).
  TensorBoard scalars go to ``out_dir/tensorboard``, ``progress.json`` records the run.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np
import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import AgentID, MultiAgentDict
from torch import nn

from agents.rllib import CHECKPOINT_PREFIX, POLICY_FILE
from camelup_config import (
    ConfigError,
    setting,
)
from camelup_env.batch.engine_games import EngineGames
from camelup_env.batch.learner import EXTERNAL, LearnerGames
from camelup_env.camelup_v1 import ENV_VERSION, observation_space
from camelup_env.game.episode import DEFAULT_COIN_SHAPING, DEFAULT_REWARD_MODE
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.interrupts import stop_requested
from training.policy.opponent_focus import OpponentFocus
from training.policy.settings import SelfPlaySettings, check_positive
from training.run_folder import (
    name_setting,
    open_progress,
    out_dir_setting,
    resume_command,
    write_progress,
)

#: The policies: the one trained, and the frozen copy of it that "self" opponents play.
LEARNER, FROZEN = "learner", "frozen"


# 1. Configuration --------------------------------------------------------------------------
@dataclass
class RLlibConfig(SelfPlaySettings):
    """Every setting of an RLlib run (the shared ones:
    :class:`training.policy.settings.SelfPlaySettings`); YAML files and ``--field-name`` flags set
    them."""

    name: str = name_setting("rllib_selfplay")
    iterations: int = setting(
        200, help="PPO iterations: each plays train_batch_size decisions, then updates the learner."
    )
    train_batch_size: int = setting(
        4000,
        help="Environment steps (decisions of the learner and the frozen copies) per iteration.",
    )
    minibatch_size: int = setting(512, help="Minibatch size of the updates.")
    num_epochs: int = setting(4, help="Passes over each iteration's batch.")
    snapshot_every: int = setting(
        5, help="Iterations between copies of the learner's weights into the frozen opponent."
    )
    checkpoint_every: int = setting(10, help="Iterations between checkpoints.")
    env_runners: int = setting(
        1, help="Ray actors playing the games (0: the training process plays them itself)."
    )
    address: str | None = setting(
        None,
        help="Ray cluster to train on (HOST:PORT of `ray start --head`); null starts a local "
        "Ray instance.",
    )
    num_cpus: int = setting(0, help="CPUs of the local Ray instance (0: all of this machine's).")
    out_dir: str = out_dir_setting("runs/rllib_selfplay")

    def validate(self) -> None:
        """Every value checked up front, before Ray starts."""
        super().validate()
        check_positive(
            self,
            (
                "iterations",
                "train_batch_size",
                "minibatch_size",
                "num_epochs",
                "snapshot_every",
                "checkpoint_every",
            ),
        )
        if self.minibatch_size > self.train_batch_size:
            raise ConfigError(
                f"minibatch_size ({self.minibatch_size}) must be at most "
                f"train_batch_size ({self.train_batch_size})"
            )
        if self.env_runners < 0 or self.num_cpus < 0:
            raise ConfigError("env_runners and num_cpus must be >= 0")
        if self.address is not None and not self.address.strip():
            raise ConfigError("address must be HOST:PORT (or null for a local Ray instance)")

    def env_config(self) -> dict[str, Any]:
        """What :class:`SelfPlayMultiAgentEnv` is built from (plain data: it travels to Ray
        actors)."""
        return {
            "rules": self.rules().to_dict(),
            "observer": self.observer_settings(),
            "reward_mode": self.reward_mode,
            "coin_shaping": self.coin_shaping,
            "luck_correction": self.luck_correction,
            "opponent_mix": dict(self.opponent_mix),
            "opponent_focus": self.opponent_focus,
            "seed": self.seed,
        }


# 2. Environment ----------------------------------------------------------------------------
class SelfPlayMultiAgentEnv(MultiAgentEnv):
    """Camel Up as an RLlib multi-agent env: agents by role, scripted seats played inside.

    A thin face over :class:`~camelup_env.batch.learner.LearnerGames` with one game (on the
    engine: one game gains nothing from the compiled batch core): a seat that drew ``"self"``
    is an :data:`~camelup_env.batch.learner.EXTERNAL` opponent, so the loop hands it back
    here as it does the learner's seat, and scripted seats are the loop's opponents. The
    draw comes from the game's generator, as everything else in the episode.

    ``config`` is :meth:`RLlibConfig.env_config` (RLlib passes it as an ``EnvContext``, whose
    ``worker_index`` and ``vector_index`` make each copy's games different). Agents:
    ``"learner"`` and ``"opponent_k"`` (k = 1..n-1, the k-th seat after the learner's); an
    ``opponent_k`` exists in a game only when that seat drew ``"self"``.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = config or {}
        rules = RuleSet.from_dict(config["rules"])
        observer = config.get("observer", {})
        mix = config.get("opponent_mix", {"self": 1.0})
        #: the mix's draw weights, moved toward what beats the learner with opponent_focus
        self.focus = OpponentFocus(mix, rules.num_players, config.get("opponent_focus", 0.0))
        self._entries: list[str] = []  # this game's draws from the mix
        self.race_samples = (
            observer.get("race_samples") if observer.get("odds_features", True) else None
        )
        self.bots: dict[str, Any] = {}  # scripted agents by name, made once
        self.n = rules.num_players
        # Strict: RLlib's modules mask illegal actions, so one is a bug (named by the engine).
        self.learner = LearnerGames(
            rules,
            1,
            self._draw_opponents,
            reward_mode=config.get("reward_mode", DEFAULT_REWARD_MODE),
            coin_shaping=config.get("coin_shaping", DEFAULT_COIN_SHAPING),
            luck_correction=config.get("luck_correction", 0.0),
            illegal_reward=None,
            autoreset=False,
            engine=True,
            **observer,
        )
        self.learner.np_random[0] = np.random.default_rng(
            [
                int(config.get("seed", 0)),
                int(getattr(config, "worker_index", 0)),
                int(getattr(config, "vector_index", 0)),
            ]
        )
        self.possible_agents = [LEARNER, *(f"opponent_{k}" for k in range(1, self.n))]
        self.agents = []
        space = observation_space(self.learner.observers[0], self.learner.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, gymnasium.spaces.Discrete(self.learner.num_actions)
        )
        self.agent_at: dict[int, str] = {}  # seat -> RLlib agent this game
        self._game = np.zeros(1, np.int64)  # the one game's index, for the loop's arrays

    @property
    def state(self) -> GameState:
        """The engine's omniscient state of the game (debugging only; never give it to bots)."""
        return cast(EngineGames, self.learner.games).states[0]  # engine=True in __init__

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.learner.np_random[0] = np.random.default_rng(seed)
        self.learner.reset()
        learner = int(self.learner.seats[0])
        self.agent_at = {
            (learner + k) % self.n: LEARNER if k == 0 else f"opponent_{k}"
            for k in range(self.n)
            if self.learner.external[0, (learner + k) % self.n]
        }
        self.agents = list(self.agent_at.values())
        self.seen: set[str] = set()
        obs, _, _, _, infos = self._outputs(False, False)
        return obs, infos

    def step(self, action_dict: MultiAgentDict):
        agent = self.agent_at[self.state.current]
        done, truncated, _ = self.learner.play(np.array([action_dict[agent]]))
        return self._outputs(bool(done[0]), bool(truncated[0]))

    # Internals ------------------------------------------------------------------------------
    def _draw_opponents(self) -> list[Any]:
        """This game's opponents (the loop calls it at every deal): per seat a draw from the
        mix, ``"self"`` an RLlib agent (EXTERNAL), any other name its scripted agent."""
        rng = self.learner.np_random[0]
        names, weights = self.focus.names, self.focus.weights()
        self._entries = [names[int(rng.choice(len(names), p=weights))] for _ in range(self.n - 1)]
        return [EXTERNAL if name == "self" else self._bot(name) for name in self._entries]

    def _bot(self, name: str) -> Any:
        from training.policy.selfplay import make_opponent

        if name not in self.bots:
            self.bots[name] = make_opponent(name, self.race_samples)
        return self.bots[name]

    def _observation(self, seat: int, to_move: bool) -> dict[str, np.ndarray]:
        mask = (
            self.learner.action_masks()[0] if to_move else np.zeros(self.learner.num_actions, bool)
        )
        return {
            "observation": self.learner.observe(self._game, np.array([seat]))[0],
            "action_mask": mask.astype(np.int8),
        }

    def _reward(self, seat: int) -> float:
        return float(self.learner.take_rewards(self._game, np.array([seat]))[0])

    def _outputs(self, done: bool, truncated: bool):
        """This step's dicts: the agent to move gets its observation and its reward since its
        previous one; at the end, every agent that has played gets its last observation and
        reward."""
        if done:
            if self.focus.focus and self.learner.games.game_over[0]:
                share = float(self.learner.learner_win_shares(self._game)[0])
                self.focus.record(self._entries, share)
            seat_of = {a: s for s, a in self.agent_at.items()}
            ended = [a for a in self.agents if a in self.seen]
            obs = {a: self._observation(seat_of[a], False) for a in ended}
            rewards = {a: self._reward(seat_of[a]) for a in ended}
            ends = {**dict.fromkeys(ended, not truncated), "__all__": not truncated}
            cuts = {**dict.fromkeys(ended, truncated), "__all__": truncated}
            return obs, rewards, ends, cuts, {}
        seat = self.state.current
        agent = self.agent_at[seat]
        self.seen.add(agent)
        return (
            {agent: self._observation(seat, True)},
            {agent: self._reward(seat)},
            {"__all__": False},
            {"__all__": False},
            {},
        )


def module_for(agent_id: AgentID, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping: the learner's seat to ``"learner"``, "self" seats to ``"frozen"``."""
    return LEARNER if agent_id == LEARNER else FROZEN


# 3. Network --------------------------------------------------------------------------------
#: The logit of an illegal action (as sb3-contrib's masking: finite, so no NaN in the loss).
MASKED_LOGIT = -1e8


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), nn.Tanh()]
    return nn.Sequential(*layers)


class _Extractor(nn.Module):
    """sb3-contrib's ``mlp_extractor``: the policy and the value MLP."""

    def __init__(self, widths: list[int]) -> None:
        super().__init__()
        self.policy_net = _mlp(widths)
        self.value_net = _mlp(widths)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """Separate policy and value MLPs (tanh) over the observation vector, masked logits.

    Parameter names and shapes are sb3-contrib's ``MaskableActorCriticPolicy``'s with
    ``net_arch`` for both heads (``mlp_extractor.policy_net``, ``mlp_extractor.value_net``,
    ``action_net``, ``value_net``), so the learner's ``state_dict`` is a camelup model file's
    weights as it is. ``model_config``: ``{"net_arch": [widths]}``.
    """

    # as RLlib sets them before setup: the env's spaces and the RLModuleSpec's model_config
    observation_space: gymnasium.spaces.Dict
    action_space: gymnasium.spaces.Discrete
    model_config: dict[str, Any]

    def setup(self) -> None:
        size = gymnasium.spaces.flatdim(self.observation_space["observation"])
        widths = [size, *self.model_config["net_arch"]]
        self.mlp_extractor = _Extractor(widths)
        self.action_net = nn.Linear(widths[-1], int(self.action_space.n))
        self.value_net = nn.Linear(widths[-1], 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.action_net(self.mlp_extractor.policy_net(obs["observation"]))
        legal = obs["action_mask"] > 0
        return {
            Columns.ACTION_DIST_INPUTS: torch.where(
                legal, logits, torch.full_like(logits, MASKED_LOGIT)
            )
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        features = self.mlp_extractor.value_net(batch[Columns.OBS]["observation"])
        return self.value_net(features).squeeze(-1)


# 4. The algorithm --------------------------------------------------------------------------
def algorithm_config(cfg: RLlibConfig) -> Any:
    """RLlib's ``PPOConfig`` for ``cfg``: two modules of one network, only the learner trained."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    network = RLModuleSpec(
        module_class=MaskedActorCritic, model_config={"net_arch": list(cfg.net_arch)}
    )
    return (
        PPOConfig()
        # RLlib's env pre-check steps the env with actions sampled from the whole action
        # space, ignoring the mask; an illegal move is an error here (it names the rule), so
        # that check fails at random. The env is tested instead (tests/test_rllib.py).
        .environment(SelfPlayMultiAgentEnv, env_config=cfg.env_config(), disable_env_checking=True)
        .env_runners(num_env_runners=cfg.env_runners, num_cpus_per_env_runner=1)
        .multi_agent(
            policies={LEARNER, FROZEN}, policy_mapping_fn=module_for, policies_to_train=[LEARNER]
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: network, FROZEN: network})
        )
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_range,
            entropy_coeff=cfg.ent_coef,
        )
        .learners(num_learners=0)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )


def learner_weights(algo: Any) -> dict[str, Any]:
    """The learner module's ``state_dict`` (tensors), from the learner group."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{LEARNER}")
    return state["learner"]["rl_module"][LEARNER]


def refresh_frozen(algo: Any) -> None:
    """Copy the learner's weights into the frozen module, on the learner and every env runner.
    (RLlib syncs only the trained modules to the env runners after an update.)"""
    algo.learner_group.set_state({"learner": {"rl_module": {FROZEN: learner_weights(algo)}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, policies=[FROZEN], inference_only=True
    )


# 5. Checkpoints ----------------------------------------------------------------------------
def save_policy_file(algo: Any, cfg: RLlibConfig, path: Path, iteration: int) -> Path:
    """The learner's weights as a camelup model file (read by ``rllib:`` and ``ppo:``)."""
    from agents.policy_file import Architecture, write_policy_file
    from camelup_env.game.actions import action_table
    from camelup_env.observation import Observer

    weights = {k: torch.as_tensor(np.asarray(v)) for k, v in learner_weights(algo).items()}
    rules = cfg.rules()
    arch = Architecture(
        Observer(rules, **cfg.observer_settings()).size,
        len(action_table(rules)),
        tuple(cfg.net_arch),
        tuple(cfg.net_arch),
        "Tanh",
        True,
    )
    return write_policy_file(
        path,
        weights,
        arch,
        rules,
        observer=cfg.observer_settings(),
        env_version=ENV_VERSION,
        trainer="rllib",
        trained_iterations=iteration,
        config=asdict(cfg),
    )


def checkpoint(algo: Any, cfg: RLlibConfig, out: Path, progress: dict) -> Path:
    """An RLlib checkpoint with the camelup policy file inside; recorded in progress.json."""
    iteration = int(algo.iteration)
    folder = (out / "checkpoints" / f"{CHECKPOINT_PREFIX}{iteration:06d}").resolve()
    algo.save_to_path(str(folder))
    save_policy_file(algo, cfg, folder / POLICY_FILE, iteration)
    progress.update(iteration=iteration, checkpoint=str(folder.relative_to(out.resolve())))
    write_progress(out, progress)
    return folder


# 6. Main loop ------------------------------------------------------------------------------
#: Settings a ``--resume`` may change: train longer, move the folder, or the cluster.
RESUME_MAY_CHANGE = frozenset({"iterations", "out_dir", "address", "num_cpus", "env_runners"})


def open_run(cfg: RLlibConfig, resume: bool) -> dict:
    """The run's progress record: new, or the interrupted run's (same config required)."""
    return open_progress(
        cfg,
        resume,
        RESUME_MAY_CHANGE,
        fresh={"iteration": 0, "checkpoint": None},
        has_checkpoint=lambda out, progress: (
            bool(progress["checkpoint"]) and (out / progress["checkpoint"]).is_dir()
        ),
        done=lambda p: f"{p['iteration']} of {cfg.iterations} iterations",
    )


#: result key (path through RLlib's result dict) -> TensorBoard tag
SCALARS = {
    ("env_runners", "module_episode_returns_mean", LEARNER): "rollout/learner_return_mean",
    ("env_runners", "episode_len_mean"): "rollout/episode_len_mean",
    ("env_runners", "num_env_steps_sampled_lifetime"): "rollout/env_steps",
    ("learners", LEARNER, "policy_loss"): "train/policy_loss",
    ("learners", LEARNER, "vf_loss"): "train/value_loss",
    ("learners", LEARNER, "entropy"): "train/entropy",
    ("learners", LEARNER, "mean_kl_loss"): "train/mean_kl",
    ("time_this_iter_s",): "time/iteration_seconds",
}


def scalars(result: dict[str, Any]) -> dict[str, float]:
    """The TensorBoard scalars of one ``algo.train()`` result (those it holds)."""
    out = {}
    for path, tag in SCALARS.items():
        value: Any = result
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, (int, float, np.floating, np.integer)):
            out[tag] = float(value)
    return out


def start_ray(cfg: RLlibConfig) -> bool:
    """Join ``cfg.address`` or start a local Ray; True if this call started it (and so ends
    it). An unreachable cluster is a one-line :class:`ConfigError`."""
    from tournament.config import TournamentError
    from tournament.ray_pool import connect

    if ray.is_initialized():
        return False
    try:
        connect(cfg.address, cfg.num_cpus or None)
    except TournamentError as exc:
        raise ConfigError(str(exc)) from exc
    return True


def train(cfg: RLlibConfig, resume: bool = False, command: str | None = None) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    progress = open_run(cfg, resume)
    started = start_ray(cfg)  # an unreachable cluster is refused before anything is written
    out = Path(cfg.out_dir)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
    algo = algorithm_config(cfg).build_algo()
    writer = SummaryWriter(str(out / "tensorboard"))
    start = time.time()
    try:
        if resume:
            algo.restore_from_path(str((out / progress["checkpoint"]).resolve()))
        else:
            refresh_frozen(algo)
        while algo.iteration < cfg.iterations:
            result = algo.train()
            for tag, value in scalars(result).items():
                writer.add_scalar(tag, value, algo.iteration)
            line = ", ".join(f"{t.split('/')[1]} {v:.3g}" for t, v in scalars(result).items())
            print(f"iteration {algo.iteration}/{cfg.iterations}: {line}", flush=True)
            if algo.iteration % cfg.snapshot_every == 0:
                refresh_frozen(algo)
            if algo.iteration % cfg.checkpoint_every == 0:
                checkpoint(algo, cfg, out, progress)
        if progress["iteration"] != algo.iteration:
            checkpoint(algo, cfg, out, progress)
        final = save_policy_file(algo, cfg, out / "model.zip", int(algo.iteration))
    except BaseException as exc:
        if not stop_requested(exc):
            raise
        checkpoint(algo, cfg, out, progress)
        again = resume_command(
            command, f"camelup train --trainer rllib CONFIG --out-dir {shlex.quote(str(out))}"
        )
        print(
            f"\ninterrupted after iteration {algo.iteration}; checkpoint saved. Resume with:\n"
            f"  {again}",
            file=sys.stderr,
        )
        raise KeyboardInterrupt from exc
    finally:
        writer.close()
        algo.stop()
        if started:
            ray.shutdown()
    print(
        f"trained {algo.iteration} iterations in {time.time() - start:.0f} s -> {final} "
        f"(rllib:{out / progress['checkpoint']})"
    )
    return final


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from training import add_train_arguments

    add_train_arguments(parser, RLlibConfig, "configs/train/rllib_*.yaml")


def run(args: argparse.Namespace) -> int:
    """``camelup train --trainer rllib``."""
    from training import run_trainer

    return run_trainer(args, RLlibConfig, train)
