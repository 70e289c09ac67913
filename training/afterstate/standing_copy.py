"""A learned copy of the standing: the afterstate network fitted to the champion's comparison.

``camelup train --trainer standing-copy configs/train/standing_copy_classic4.yaml``

The standing (:class:`agents.afterstate.StandingValue`) is the afterstate value that plays
above the champion: each joint outcome of the leg and the race scored by the win model, then
averaged. It costs a leg enumeration and a thousand race rows per afterstate board, a quarter
of a second a move; the learned network (:class:`agents.afterstate_network.AfterstateNetwork`)
plays in milliseconds and is what self-play can afford. This trainer makes the second from the
first, supervised, as TD-Gammon's successors started their networks from an expert's
evaluations:

1. **Labels.** ``play_by`` bots (the champion) play ``label_games`` games through the engine.
   At every move the mover's afterstates are listed as the afterstate player lists them
   (:meth:`agents.afterstate.AfterstateAgent.outcome_values`: ``deals`` deals of the hidden
   cards from the mover's reading, every legal action, every roll) and valued by the standing.
   A row is one outcome as the mover sees it: its input features
   (:class:`camelup_env.batch.afterstate_features.AfterstateFeatures`, the mover's own view,
   no other seat's card colour) and its target, each seat's standing chance averaged over the
   deals (the network reads no deal, so its best guess is that mean), in the mover's relative
   seat order. Shards of ``shard_games`` games are written to ``labels/`` by ``workers``
   processes; a run stopped at any moment keeps every finished shard and ``--resume`` labels
   only the rest.
2. **Fit.** The network (from ``init_from``, or new with the equity skip) learns the targets by
   cross-entropy, plus ``spread_weight`` times the squared error of each row's mover chance
   *relative to its position's mean*: the choice compares the moves of one position, so an
   error shared by all of them costs nothing and one that reorders them costs the game. Every
   ``holdout_every``-th shard is held out; after each epoch the network chooses on the held-out
   positions as the player would (:meth:`camelup_env.batch.afterstates.Afterstates.expect`
   over its rows, race-ending rows at their labels) and ``fit.csv`` records the agreement with
   the standing's choice and the **regret**: the standing's chance given up by the network's
   choice, in points. ``value.npz`` is the epoch with the least regret; ``snapshots/`` holds
   every epoch's file.

The labels cost what the standing costs (``benchmarks/afterstates.py --move-value standing``);
the fit takes minutes. ``docs/afterstate.md`` has the runs and what their files play.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

import agents
from agents.afterstate import AfterstateAgent, StandingValue
from agents.afterstate_network import save_afterstate_network, seats_to_relative
from agents.base import Agent, Observation
from camelup_config import ConfigError, setting
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.match import play_game
from training import add_train_arguments, run_trainer
from training.afterstate.label_shards import label_run, open_run, shard_path, split, write_shard
from training.afterstate.value import (
    Value,
    check_value_settings,
    exported,
    new_value,
    start_from,
)
from training.run_folder import (
    name_setting,
    out_dir_setting,
    write_progress,
)

#: the settings that make the labels: a run fitting another's labels must share them
LABEL_SETTINGS = (
    "preset",
    "num_players",
    "seed",
    "shard_games",
    "play_by",
    "deals",
    "race_samples",
    "leg_equity",
    "race_equity",
)
#: the arrays of a label shard, row by row (``features`` and ``target`` are 2-D)
SHARD_ARRAYS = ("features", "target", "position", "action", "probability", "ended")


@dataclass
class StandingCopyConfig:
    """Settings of a standing copy (module docstring)."""

    name: str = name_setting("standing_copy")
    out_dir: str = out_dir_setting("runs/standing_copy")
    preset: str = setting("classic", help="Rule set (the batch core's: classic, second_edition).")
    num_players: int = setting(4, help="Players per game.")
    seed: int = setting(0, help="Seed of the labelled games, the deals and the network.")
    label_games: int = setting(
        200,
        help="Games whose every move is labelled (a resumed run may label more, or fit fewer: "
        "shard k holds the same games whatever the count).",
    )
    shard_games: int = setting(5, help="Games per label shard (the unit a resume keeps).")
    workers: int = setting(2, help="Processes labelling shards side by side.")
    play_by: str = setting(
        "champion", help="The registered bot that plays the labelled games in every seat."
    )
    deals: int = setting(8, help="Deals of the hidden cards per move (the standing player's).")
    race_samples: int = setting(
        1000, help="Rollouts behind the race odds of the race-equity inputs (the learner's)."
    )
    leg_equity: bool = setting(True, help="Each seat's leg equity among the inputs.")
    race_equity: bool = setting(True, help="Each seat's equity counts its race cards too.")
    equity_weight: float = setting(
        3.0,
        help="The scores' skip past the layers at the start (0: none; agents.afterstate_network).",
    )
    hidden: list[int] = setting(
        default_factory=lambda: [256, 256], help="Hidden layers of the value network."
    )
    init_from: str | None = setting(
        None,
        help="A value file (value.npz) to start from; its rule set, inputs and layers must be "
        "this run's.",
    )
    labels_from: str | None = setting(
        None,
        help="Another standing-copy run's folder whose labels this run fits instead of "
        "labelling its own (a second fit of the same games): its label settings must be "
        "this run's and its shards all done.",
    )
    epochs: int = setting(20, help="Passes over the training rows.")
    batch_size: int = setting(4096, help="Rows per minibatch (whole positions).")
    learning_rate: float = setting(3e-4, help="Adam learning rate.")
    spread_weight: float = setting(
        100.0,
        help="Weight of the squared error of each row's mover chance off its position's mean "
        "(what the choice compares) next to the cross-entropy.",
    )
    holdout_every: int = setting(10, help="Every this-many-th shard is held out for the choice.")
    threads: int = setting(1, help="torch threads of the fit.")

    def check(self) -> None:
        check_value_settings(self)
        for name in (
            "label_games",
            "shard_games",
            "workers",
            "deals",
            "race_samples",
            "epochs",
            "batch_size",
            "threads",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.holdout_every < 2:
            raise ConfigError(f"holdout_every must be >= 2, got {self.holdout_every}")
        if self.spread_weight < 0:
            raise ConfigError(f"spread_weight must be >= 0, got {self.spread_weight}")
        agents.check(self.play_by)
        StandingValue().check_rules(RuleSet(self.preset, num_players=self.num_players))

    @property
    def observer(self) -> dict[str, Any]:
        return {"odds_features": False, "race_samples": self.race_samples, "action_values": False}

    @property
    def shards(self) -> int:
        return -(-self.label_games // self.shard_games)

    @property
    def labels(self) -> Path:
        """The folder of the label shards this run fits."""
        return Path(self.labels_from or self.out_dir) / "labels"

    def check_labels_from(self) -> None:
        """``labels_from`` made by the same label settings, every shard done; a one-line
        ConfigError otherwise."""
        if self.labels_from is None:
            return
        record = Path(self.labels_from) / "progress.json"
        if not record.exists():
            raise ConfigError(f"labels_from: {self.labels_from} holds no standing-copy run")
        theirs = json.loads(record.read_text()).get("config", {})
        differ = [k for k in LABEL_SETTINGS if theirs.get(k) != getattr(self, k)]
        if differ:
            raise ConfigError(f"labels_from: {self.labels_from} was labelled with other {differ}")
        missing = [k for k in range(self.shards) if not shard_path(self.labels, k).exists()]
        if missing:
            raise ConfigError(
                f"labels_from: {len(missing)} of {self.shards} shards are not done yet: "
                f"resume {self.labels_from} first"
            )


# Labels ---------------------------------------------------------------------------------------
def label_position(
    standing: AfterstateAgent, features: AfterstateFeatures, view: GameState
) -> dict[str, np.ndarray]:
    """The rows of one move (module docstring, step 1): ``view`` is the mover's public view."""
    me = view.current
    after, values = standing.outcome_values(view)
    per_deal = int(after.offsets[1])
    deals = len(after) // per_deal
    target = values.reshape(deals, per_deal, -1).mean(axis=0)
    rows = np.arange(per_deal)
    return {
        "features": features.rows(after, rows, me),
        "target": seats_to_relative(target, np.full(per_deal, me)).astype(np.float32),
        "action": after.action[rows].astype(np.int16),
        "probability": after.probability[rows].astype(np.float32),
        "ended": after.ended[rows],
    }


def label_shard(cfg: StandingCopyConfig, shard: int) -> Path:
    """Play and label shard ``shard``'s games; its file written whole, last."""
    rules = RuleSet(cfg.preset, num_players=cfg.num_players)
    features = AfterstateFeatures(rules, cfg.observer, cfg.leg_equity, cfg.race_equity)
    standing = AfterstateAgent(StandingValue(), deals=cfg.deals)
    positions: list[dict[str, np.ndarray]] = []

    def labelled(bot: Agent) -> Callable[[Observation, GameState], int]:
        def move(observation: Observation, view: GameState) -> int:
            positions.append(label_position(standing, features, view))
            return bot(observation, view)

        return move

    for g in range(cfg.shard_games):
        seed = cfg.seed * 1_000_003 + shard * cfg.shard_games + g
        standing.reset(seed)
        bots = [agents.make(cfg.play_by) for _ in range(rules.num_players)]
        for seat, bot in enumerate(bots):
            bot.reset(seed * 8 + seat)
        play_game(rules, [labelled(b) for b in bots], seed, catch=False)
    out = {k: np.concatenate([p[k] for p in positions]) for k in SHARD_ARRAYS if k != "position"}
    out["position"] = np.repeat(np.arange(len(positions)), [len(p["action"]) for p in positions])
    return write_shard(shard_path(cfg.labels, shard), out)


# The fit --------------------------------------------------------------------------------------
@dataclass
class Rows:
    """Label rows gathered from shards, positions numbered apart."""

    features: np.ndarray
    target: np.ndarray
    position: np.ndarray
    action: np.ndarray
    probability: np.ndarray
    ended: np.ndarray

    @classmethod
    def load(cls, paths: list[Path]) -> Rows:
        parts: dict[str, list[np.ndarray]] = {k: [] for k in SHARD_ARRAYS}
        first = 0
        for path in paths:
            with np.load(path, allow_pickle=False) as f:
                for k in SHARD_ARRAYS:
                    a = f[k]
                    parts[k].append(a + first if k == "position" else a)
            if len(parts["position"][-1]):
                first = int(parts["position"][-1].max()) + 1
        return cls(**{k: np.concatenate(v) for k, v in parts.items()})

    @property
    def positions(self) -> int:
        return int(self.position.max()) + 1 if len(self.position) else 0


def choice_quality(rows: Rows, chances: np.ndarray, actions: int) -> tuple[float, float]:
    """``(agreement, regret)``: how often the 1-ply choice on ``chances`` (each row's chances
    in its mover's relative order; race-ending rows are taken at their labels) is the
    standing's, and the mover's standing chance it gives up on average, in points."""
    mine = np.where(rows.ended, rows.target[:, 0], chances[:, 0])
    key = rows.position.astype(np.int64) * actions + rows.action
    n = rows.positions
    flat_net = np.zeros(n * actions)
    flat_label = np.zeros(n * actions)
    np.add.at(flat_net, key, mine * rows.probability)
    np.add.at(flat_label, key, rows.target[:, 0] * rows.probability)
    legal = np.zeros(n * actions, bool)
    legal[key] = True
    q_net = np.where(legal, flat_net, -np.inf).reshape(n, actions)
    q_label = np.where(legal, flat_label, -np.inf).reshape(n, actions)
    pick, best = q_net.argmax(axis=1), q_label.argmax(axis=1)
    regret = q_label[np.arange(n), best] - q_label[np.arange(n), pick]
    return float(np.mean(pick == best)), float(np.mean(regret) * 100)


def network_chances(net: Value, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        out = [
            torch.softmax(net(torch.from_numpy(x[i : i + 65536])), dim=1).numpy()
            for i in range(0, len(x), 65536)
        ]
    return np.concatenate(out) if out else np.zeros((0, net.players), np.float32)


def batches(rows: Rows, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The running rows in minibatches of whole positions, positions in a random order."""
    running = np.flatnonzero(~rows.ended)
    order = rng.permutation(rows.positions)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    by_position = running[np.argsort(rank[rows.position[running]], kind="stable")]
    cuts = np.arange(batch_size, len(by_position), batch_size)
    return np.split(by_position, cuts)


def fit_loss(net: Value, rows: Rows, idx: np.ndarray, spread_weight: float) -> torch.Tensor:
    """Cross-entropy to the targets plus ``spread_weight`` times the squared error of the mover
    chance off each position's mean (module docstring, step 2)."""
    x = torch.from_numpy(rows.features[idx])
    y = torch.from_numpy(rows.target[idx])
    logp = torch.log_softmax(net(x), dim=1)
    loss = -(y * logp).sum(dim=1).mean()
    if spread_weight:
        _, group = np.unique(rows.position[idx], return_inverse=True)
        g = torch.from_numpy(group)
        d = logp[:, 0].exp() - y[:, 0]
        size = torch.zeros(int(group.max()) + 1).index_add_(0, g, torch.ones_like(d))
        mean = torch.zeros_like(size).index_add_(0, g, d) / size
        loss = loss + spread_weight * ((d - mean[g]) ** 2).mean()
    return loss


def fit(cfg: StandingCopyConfig, progress: dict[str, Any]) -> Path:
    """The network fitted to the labels, each epoch scored on the held-out shards."""
    out = Path(cfg.out_dir)
    trained, held = split(cfg)
    train_rows = Rows.load(trained)
    check_rows = Rows.load(held)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    net, _ = new_value(cfg)
    if cfg.init_from is not None:
        start_from(net, cfg)
    actions = int(max(train_rows.action.max(), check_rows.action.max())) + 1
    optimizer = torch.optim.Adam(
        [p for p in net.parameters() if p.requires_grad], lr=cfg.learning_rate
    )
    rng = np.random.default_rng(cfg.seed)
    games = cfg.label_games
    print(
        f"fit: {len(train_rows.action):,} rows of {train_rows.positions:,} positions, "
        f"{check_rows.positions:,} positions held out",
        flush=True,
    )
    log = out / "fit.csv"
    with log.open("w", newline="") as f:
        csv.writer(f).writerow(["epoch", "train_loss", "agreement", "regret_points", "file"])
    best = np.inf
    for epoch in range(cfg.epochs + 1):
        losses = []
        if epoch:  # epoch 0: the start, scored as it is
            net.train()
            for idx in batches(train_rows, cfg.batch_size, rng):
                loss = fit_loss(net, train_rows, idx, cfg.spread_weight)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
        net.eval()
        agree, regret = choice_quality(
            check_rows, network_chances(net, check_rows.features), actions
        )
        path = out / "snapshots" / f"value_epoch{epoch}.npz"
        network = exported(net, cfg, games, trainer="standing-copy")
        save_afterstate_network(path, network)
        train_loss = float(np.mean(losses)) if losses else float("nan")
        with log.open("a", newline="") as f:
            csv.writer(f).writerow(
                [epoch, f"{train_loss:.5f}", f"{agree:.4f}", f"{regret:.4f}", str(path)]
            )
        print(
            f"epoch {epoch}: loss {train_loss:.5f}, held-out choice = the standing's "
            f"{agree:.1%}, regret {regret:.3f} points",
            flush=True,
        )
        if regret < best:
            best = regret
            save_afterstate_network(out / "value.npz", network)
            progress["best"] = {"epoch": epoch, "agreement": agree, "regret_points": regret}
    write_progress(out, progress)
    return out / "value.npz"


def train(cfg: StandingCopyConfig, resume: bool = False, command: str | None = None) -> Path:
    cfg.check()
    cfg.check_labels_from()
    progress = open_run(cfg, resume)
    label_run(label_shard, cfg, progress, command, "standing-copy")
    path = fit(cfg, progress)
    print(f"done: the value file is {path} (play it as afterstate:{path})", flush=True)
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_train_arguments(parser, StandingCopyConfig, "configs/train/standing_copy_*.yaml")


def run(args: argparse.Namespace) -> int:
    """``camelup train --trainer standing-copy``."""
    return run_trainer(args, StandingCopyConfig, train)
