"""Expert iteration: fit the policy to a stronger player's moves on the positions it reaches.

``camelup iterate CONFIG --teacher expert --student FILE --rounds 4 --games 2000 --out DIR``

Imitation from the teacher's own games (:mod:`training.policy.imitation`) teaches the policy what
the teacher does where the *teacher* goes; once the policy plays by itself it makes its own small
mistakes, reaches positions the teacher never showed it, and its errors compound. Expert
iteration (DAgger's dataset aggregation with a search or scripted player as the expert) closes
that gap: every round

1. **plays**: the current policy (sampled, as PPO plays) in one seat of ``--games`` games on
   the training config's learner-seat loop (:class:`~camelup_env.batch.learner.LearnerGames`:
   the batch core where it plays the preset, the config's opponent mix, ``"self"`` being the
   current policy);
2. **asks the teacher** what it would play at every one of the policy's decisions, on the
   public view of that position (any agent: ``expert``, ``search:FILE``, ...), and records the
   policy's observation, its legal actions, the teacher's move and the return the policy went on
   to get (the config's reward and discount). ``{student}`` in the teacher's spec stands for
   the round's policy file: ``--teacher 'search:{student}'`` is expert iteration proper, each
   round's teacher the search on the policy it improves, so the teacher rises with the student
   (a fixed teacher can only be copied);
3. **fits** the policy to every round's data so far (masked cross-entropy to the teacher's moves,
   the value head to the returns: :func:`training.policy.imitation.pretrain`), starting from its
   current weights, and writes it as ``DIR/round_K/model.zip``.

Before each fit the round's **agreement** (the share of the new decisions where the policy's most
likely move is the teacher's) measures how far the policy still is from its teacher on its own
positions; it is the number to watch. ``DIR/progress.json`` records every round (agreement, fit,
samples, seconds) and the command; the rounds' data (``DIR/data/``, run bulk, not for git) lets
``--resume`` continue a stopped run from its last finished round.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from camelup_config import ConfigError, load_config
from training.run_folder import write_progress

#: Each round's games are seeded this far apart.
ROUND_SEED_STRIDE = 1_000_003


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "config",
        help="training config: the game, observation, network, reward, discount and opponent mix",
    )
    parser.add_argument(
        "--teacher",
        required=True,
        help="the agent whose moves are the targets (camelup agents); {student} stands for the "
        "round's policy file, e.g. 'search:{student}'",
    )
    parser.add_argument(
        "--student",
        required=True,
        help="the policy to improve: a camelup model file of the config's game and observation",
    )
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000, help="games played per round")
    parser.add_argument("--envs", type=int, default=64, help="games played side by side")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the data per round")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--lr", type=float, default=3e-4, help="learning rate of the fits")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch's threads (small batches gain nothing from more)",
    )
    parser.add_argument("--out", required=True, help="run folder")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out from its last finished round",
    )


def run(args: argparse.Namespace) -> int:
    from training.policy.sb3_trainer import TrainConfig
    from training.policy.settings import check_agents

    cfg = load_config(TrainConfig, args.config, {})
    check_agents("--teacher", [teacher_spec(args.teacher, args.student)])
    for name in ("rounds", "games", "envs", "epochs", "batch_size"):
        if getattr(args, name) < 1:
            raise ConfigError(
                f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}"
            )
    if not args.lr > 0:
        raise ConfigError(f"--lr must be positive, got {args.lr}")
    out = Path(args.out)
    if (out / "progress.json").exists() and not args.resume:
        raise ConfigError(f"{out / 'progress.json'} exists; pass --resume to continue that run")
    if args.resume and not (out / "progress.json").exists():
        raise ConfigError(f"--resume: {out} holds no run (no progress.json)")
    import torch

    torch.set_num_threads(max(1, args.torch_threads))
    model = _build_model(cfg, args.student, args.seed)
    progress = iterate(cfg, model, args, out, command=getattr(args, "command_line", ""))
    last = progress["rounds"][-1] if progress["rounds"] else None
    if last:
        print(
            f"expert iteration: {len(progress['rounds'])} rounds; last agreement "
            f"{last['agreement']:.3f} on {last['decisions']} decisions, fit "
            f"{last['fit_accuracy']:.3f} on {last['samples']}; {last['model']}"
        )
    return 0


def teacher_spec(teacher: str, student: str) -> str:
    """The teacher's agent spec for a round whose policy file is ``student``."""
    return teacher.replace("{student}", student)


def _build_model(cfg: Any, student: str, seed: int) -> Any:
    """A MaskablePPO of the config's network holding ``student``'s weights."""
    from sb3_contrib import MaskablePPO

    from agents.policy_file import load_into
    from training.policy.settings import check_model_file
    from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

    rules = cfg.rules()
    check_model_file(cfg, student, "--student")
    spaces = CamelUpVecEnv(
        1, rules, fixed_opponents(["random"] * (rules.num_players - 1)), **cfg.observer_settings()
    )
    model = MaskablePPO(
        "MlpPolicy", spaces, policy_kwargs={"net_arch": list(cfg.net_arch)}, seed=seed, device="cpu"
    )
    load_into(model, student, weights_only=True)
    return model


def iterate(cfg: Any, model: Any, args: argparse.Namespace, out: Path, command: str = "") -> dict:
    """The rounds of ``args`` (see the module docstring); returns the progress record."""
    import torch

    import agents
    from agents.policy_file import load_into
    from agents.ppo import load_agent, save_policy
    from camelup_env.camelup_v1 import ENV_VERSION
    from training.policy.imitation import pretrain

    out.mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(exist_ok=True)
    progress: dict[str, Any] = {
        "teacher": args.teacher,
        "student": args.student,
        "config": cfg.name,
        "games_per_round": args.games,
        "epochs": args.epochs,
        "lr": args.lr,
        "seed": args.seed,
        "command": command,
        "rounds": [],
    }
    current = args.student
    if args.resume:
        progress = json.loads((out / "progress.json").read_text())
        print(
            f"resuming the run in {out}/: {len(progress['rounds'])} of {args.rounds} rounds done",
            flush=True,
        )
        if progress["rounds"]:
            current = progress["rounds"][-1]["model"]
            load_into(model, current, weights_only=True)
    rules = cfg.rules()
    settings = cfg.observer_settings()
    made: tuple[str, Any] | None = None  # the teacher's spec and agent
    torch.manual_seed(args.seed + len(progress["rounds"]))
    for k in range(len(progress["rounds"]), args.rounds):
        start = time.perf_counter()
        seed = args.seed + k * ROUND_SEED_STRIDE
        student = load_agent(current, deterministic=False, trust_observation=True)
        spec = teacher_spec(args.teacher, current)
        if made is None or made[0] != spec:
            made = (spec, agents.make(spec))
        teacher = made[1]
        data = collect(cfg, student, teacher, current, args.games, args.envs, seed)
        agreement = _agreement(model, data)
        # numpy's stub would let a key of **data stand for its allow_pickle flag
        np.savez_compressed(out / "data" / f"round_{k}.npz", **data)  # type: ignore[arg-type]
        everything = _concatenate(
            [dict(np.load(out / "data" / f"round_{j}.npz")) for j in range(k + 1)]
        )
        fit = pretrain(model, everything, args.epochs, args.batch_size, seed, lr=args.lr)
        current = str(out / f"round_{k}" / "model.zip")
        save_policy(
            model,
            current,
            rules,
            observer=settings,
            env_version=ENV_VERSION,
            optimizer=False,
            expert_iteration={"teacher": spec, "round": k},
            config=asdict(cfg),  # the reward the value head was fitted to (search: reads it)
        )
        progress["rounds"].append(
            {
                "round": k,
                "teacher": spec,
                "seed": seed,
                "decisions": len(data["actions"]),
                "agreement": agreement,
                "samples": int(fit["samples"]),
                "fit_accuracy": fit["accuracy"],
                "value_mse": fit["value_mse"],
                "seconds": time.perf_counter() - start,
                "model": current,
            }
        )
        write_progress(out, progress)
        print(
            f"round {k}: agreement {agreement:.3f} on {len(data['actions'])} decisions; fit "
            f"{fit['accuracy']:.3f} on {int(fit['samples'])} ({time.perf_counter() - start:.0f}"
            " s)",
            flush=True,
        )
    return progress


def collect(
    cfg: Any, student: Any, teacher: Any, student_file: str, games: int, envs: int, seed: int
) -> dict[str, np.ndarray]:
    """``games`` finished episodes of ``student`` in the learner seat: its observations and
    legal actions at each of its decisions, the teacher's move there and the discounted return
    the student went on to get."""
    from camelup_env.batch.learner import LearnerGames
    from camelup_env.observation import public_view
    from training.policy.imitation import known_observation
    from training.policy.selfplay import OpponentPool

    rules = cfg.rules()
    settings = cfg.observer_settings()
    pool = OpponentPool(
        cfg.opponent_mix,
        seed,
        max_snapshots=1,
        race_samples=settings["race_samples"] if settings["odds_features"] else None,
    )
    pool.add_snapshot(student_file)
    n_opponents = rules.num_players - 1
    learner = LearnerGames(
        rules,
        min(envs, games),
        lambda: pool.draw(n_opponents),
        reward_mode=cfg.reward_mode,
        coin_shaping=cfg.coin_shaping,
        seed=seed,
        **settings,
    )
    if hasattr(teacher, "reset"):
        teacher.reset(seed)
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    open_rows: list[list[tuple[int, float]]] = [[] for _ in range(len(learner))]
    finished = 0
    observations = learner.reset()
    while finished < games:
        legal = learner.action_masks()
        states = learner.games.to_states()
        for i, state in enumerate(states):
            seat = int(learner.seats[i])
            features = observations[i]
            move = int(
                teacher(known_observation(legal[i].copy(), features), public_view(state, seat))
            )
            open_rows[i].append((len(actions), 0.0))
            obs.append(features)
            masks.append(legal[i])
            actions.append(move)
            returns.append(0.0)
        chosen = student.act_batch(observations, legal, rng_seed=rng)
        observations, rewards, dones, _ = learner.step(chosen)
        for i in range(len(learner)):
            row, _ = open_rows[i][-1]
            open_rows[i][-1] = (row, float(rewards[i]))
            if dones[i]:
                if finished < games:
                    future = 0.0
                    for row, reward in reversed(open_rows[i]):
                        future = reward + cfg.gamma * future
                        returns[row] = future
                    finished += 1
                else:  # beyond the episodes asked for: dropped below
                    for row, _ in open_rows[i]:
                        returns[row] = np.nan
                open_rows[i] = []
    keep = [r for rows in open_rows for r, _ in rows]  # unfinished episodes: no return
    drop = np.zeros(len(actions), bool)
    drop[keep] = True
    drop |= np.isnan(np.asarray(returns))
    sel = ~drop
    return {
        "obs": np.asarray(obs, np.float32)[sel],
        "masks": np.asarray(masks, bool)[sel],
        "actions": np.asarray(actions, np.int64)[sel],
        "returns": np.asarray(returns, np.float32)[sel],
    }


def _agreement(model: Any, data: dict[str, np.ndarray]) -> float:
    """The share of ``data``'s decisions where the policy's most likely move is the teacher's."""
    import torch

    with torch.no_grad():
        dist = model.policy.get_distribution(
            torch.as_tensor(data["obs"]), action_masks=data["masks"]
        )
        chosen = dist.distribution.probs.argmax(dim=1).numpy()
    return float(np.mean(chosen == data["actions"]))


def _concatenate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
