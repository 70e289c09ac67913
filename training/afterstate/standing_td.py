"""The standing taught what the next mover takes: a learned correction, TD(0) over the
afterstate expectation.

``camelup train --trainer standing-td configs/train/standing_td_classic4.yaml``

The standing (:class:`agents.afterstate.StandingValue`) values a position by the leg's joint
outcomes with every bet as it lies. It does not see the next seat move: over four champions'
games the next mover's standing chance rises by about five points a move (the bet it takes, the
die it rolls). Which of a mover's afterstates leaves the next seat least to take is what a
value must know to choose well, and what TD(0) teaches: the value of a position is the exact
expectation, over the dice, of the value of what the next mover's move leaves.

The value learned is the standing with a network on top: each seat's chance is the softmax of
the log of its standing chance plus the network's score from the viewer's inputs
(:class:`agents.afterstate_network.AfterstateNetwork` with ``standing_skip``; its last layer
starts at zero, so the start plays as ``afterstate:standing-reading``):

1. **Rows.** ``play_by`` bots play ``label_games`` games. At every move the chosen action's
   outcomes (:func:`camelup_env.batch.afterstates.afterstates`) are valued by the standing,
   and one outcome, drawn by its chance, continues the game. A row is a position a move left,
   seen by the seat that made it: its inputs, the standing's chances there (the skip), and
   the next move's outcomes (their inputs in the same seat's eyes, their standing chances or,
   where the race ended, win shares, and their chances). The trainer is the referee: the
   standing pays the race cards as they lie (at play time the mover pays the hidden ones by
   its reading, R10); the inputs read no other seat's card colour. With ``siblings``, each
   move also leaves rows of the moves the mover did not make: the rows above teach the value
   of what the game's moves left, whose mistakes shift a position's moves alike; a choice
   turns on how the moves differ, which the rows of the others, each with its next mover's
   reply, teach directly. With ``others``, the table is the one the file will face: ``play_by``
   in one seat (the game's seed mod the players: each seat in turn), ``others`` in the rest,
   and a row is kept only where its next mover is one of ``others`` - what the next mover
   takes is what a row teaches, and at play time the next mover is a rival. Shards of
   ``shard_games`` games (:mod:`training.afterstate.label_shards`), kept across a stop.
2. **Fit, sweep by sweep.** A row's target is the expectation over the next move's outcomes of
   the previous sweep's value (sweep 0: the standing's alone), so each sweep looks one move
   further (fitted value iteration, the replay buffer being the rows). Cross-entropy; every
   ``holdout_every``-th shard held out. ``fit.csv`` has each epoch's held-out cross-entropy
   with the skip's alone and the targets' own entropy beside it (how much of what the standing
   misses the network explains); ``snapshots/`` a file per sweep; ``value.npz`` the last
   sweep's epoch with the least held-out cross-entropy.

``docs/afterstate.md`` has the runs and what their files play.
"""

from __future__ import annotations

import argparse
import copy
import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

import agents
from agents.afterstate import StandingValue
from agents.afterstate_network import (
    STANDING_FLOOR,
    save_afterstate_network,
    seats_to_relative,
)
from agents.base import Agent
from camelup_config import ConfigError, setting
from camelup_env.batch import BatchGames
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import Afterstates, afterstates
from camelup_env.game.rewards import win_shares
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.match import observe
from camelup_env.observation import public_view
from training import add_train_arguments, run_trainer
from training.afterstate.label_shards import label_run, open_run, shard_path, split, write_shard
from training.afterstate.value import Value, check_value_settings, exported, new_value
from training.run_folder import (
    name_setting,
    out_dir_setting,
    write_progress,
)

#: the arrays of a shard: one row per position, then the next move's outcomes of all rows
ROW_ARRAYS = ("features", "skip", "outcomes", "game")
NEXT_ARRAYS = ("next_features", "next_skip", "next_probability", "next_ended")


@dataclass
class StandingTDConfig:
    """Settings of a standing-TD run (module docstring)."""

    name: str = name_setting("standing_td")
    out_dir: str = out_dir_setting("runs/standing_td")
    preset: str = setting("classic", help="Rule set (the batch core's: classic, second_edition).")
    num_players: int = setting(4, help="Players per game.")
    seed: int = setting(0, help="Seed of the games, their dice and the network.")
    label_games: int = setting(
        600,
        help="Games whose positions are rows (a resumed run may play more: shard k holds the "
        "same games whatever the count).",
    )
    shard_games: int = setting(25, help="Games per shard (the unit a resume keeps).")
    workers: int = setting(2, help="Processes playing shards side by side.")
    play_by: str = setting(
        "champion", help="The registered bot that plays in every seat (in one, with others)."
    )
    others: str | None = setting(
        None,
        help="The registered bot of every seat but one (play_by's, which rotates game by game); "
        "only the rows whose next mover is one of these are kept.",
    )
    race_samples: int = setting(
        1000, help="Rollouts behind the race odds of the race-equity inputs."
    )
    leg_equity: bool = setting(True, help="Each seat's leg equity among the inputs.")
    race_equity: bool = setting(True, help="Each seat's equity counts its race cards too.")
    captures: bool = setting(
        False,
        help="Each seat's next capture among the inputs (camelup_env.odds.win.next_captures: "
        "the leg-bet tiles the seats in turn are likely to take next).",
    )
    hidden: list[int] = setting(
        default_factory=lambda: [256, 256], help="Hidden layers of the network."
    )
    siblings: int = setting(
        0,
        help="Rows of the moves not made, per move: the best others by the standing, one "
        "outcome each with its next mover's reply.",
    )
    sweeps: int = setting(1, help="Fitted TD(0) sweeps: each looks one move further.")
    epochs: int = setting(6, help="Passes over the rows per sweep.")
    batch_size: int = setting(512, help="Rows per minibatch.")
    learning_rate: float = setting(5e-4, help="Adam learning rate.")
    holdout_every: int = setting(4, help="Every this-many-th shard is held out.")
    threads: int = setting(1, help="torch threads of the fit.")

    def check(self) -> None:
        check_value_settings(self)
        for name in (
            "label_games",
            "shard_games",
            "workers",
            "race_samples",
            "sweeps",
            "epochs",
            "batch_size",
            "threads",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.holdout_every < 2:
            raise ConfigError(f"holdout_every must be >= 2, got {self.holdout_every}")
        if self.shards < self.holdout_every:
            raise ConfigError(
                f"{self.shards} shards hold none out (holdout_every {self.holdout_every}): "
                "play more games or make shard_games smaller"
            )
        agents.check(self.play_by)
        if self.others is not None:
            agents.check(self.others)
        StandingValue().check_rules(RuleSet(self.preset, num_players=self.num_players))

    @property
    def observer(self) -> dict[str, Any]:
        return {"odds_features": False, "race_samples": self.race_samples, "action_values": False}

    @property
    def equity_weight(self) -> float:
        """No equity skip: the skip is the standing's."""
        return 0.0

    @property
    def init_from(self) -> str | None:
        """Every run starts from the standing itself (the last layer at zero)."""
        return None

    @property
    def shards(self) -> int:
        return -(-self.label_games // self.shard_games)

    @property
    def table(self) -> str:
        """Who played the games, in words (the value file's training record)."""
        if self.others is None:
            return self.play_by
        return f"{self.play_by} among {self.others}"

    @property
    def labels(self) -> Path:
        return Path(self.out_dir) / "labels"

    def features(self) -> AfterstateFeatures:
        rules = RuleSet(self.preset, num_players=self.num_players)
        return AfterstateFeatures(
            rules, self.observer, self.leg_equity, self.race_equity, self.captures
        )


# Rows -----------------------------------------------------------------------------------------
def outcome_values(
    standing: StandingValue, after: Afterstates, rows: np.ndarray, viewer: int
) -> np.ndarray:
    """``(len(rows), players)`` in seat order: the standing's chances of the outcome rows, the
    win shares of those that end the race."""
    values = win_shares(after.games.state.coins[rows])
    running = ~after.ended[rows]
    if running.any():
        values[running] = standing.chances(after, rows[running], viewer)
    return values


def reply(
    standing: StandingValue, state: GameState, bot: Agent
) -> tuple[Afterstates, np.ndarray, np.ndarray]:
    """What the mover of ``state`` does there: every action's afterstates, the rows of the one
    ``bot`` chose, and their values (:func:`outcome_values`, in the mover's eyes)."""
    me = state.current
    after = afterstates(BatchGames.from_states([state]))
    action = bot(observe(state, me), public_view(state, me))
    rows = np.flatnonzero(after.action == action)
    return after, rows, outcome_values(standing, after, rows, me)


def td_row(
    features: AfterstateFeatures,
    left: tuple[Afterstates, int, int, np.ndarray],
    nxt: tuple[Afterstates, np.ndarray, np.ndarray],
) -> dict[str, np.ndarray]:
    """The row of the position ``left`` (its afterstates, the row that is it, the seat that
    made it, its standing chances), its next move ``nxt`` (:func:`reply`)."""
    source, row, viewer, value = left
    after, rows, values = nxt
    views = np.full(len(rows), viewer)
    return {
        "features": features.rows(source, np.array([row]), viewer),
        "skip": seats_to_relative(value[None], [viewer]),
        "outcomes": np.array([len(rows)]),
        "next_features": features.rows(after, rows, views),
        "next_skip": seats_to_relative(values, views),
        "next_probability": after.probability[rows],
        "next_ended": after.ended[rows],
    }


def sibling_rows(
    cfg: StandingTDConfig,
    standing: StandingValue,
    features: AfterstateFeatures,
    after: Afterstates,
    chosen: int,
    bots: list[Agent],
    rng: np.random.Generator,
    learner: int | None,
) -> list[dict[str, np.ndarray]]:
    """Rows of the moves the mover did not make (module docstring, step 1): the ``siblings``
    best others by the standing's expectation in the mover's eyes, one outcome of each drawn
    by its chance, its next mover's reply made by a copy of that seat's bot (its memory of the
    game as it is; the game goes on without it); none whose next mover is the ``learner``
    seat (:func:`play_rows`)."""
    me = int(after.source.current_player[0])
    values = outcome_values(standing, after, np.arange(len(after)), me)
    worth = after.expect(values)[0, :, me]
    legal = np.flatnonzero(after.legal[0])
    rest = legal[legal != chosen]
    out = []
    for action in rest[np.argsort(-worth[rest], kind="stable")][: cfg.siblings]:
        rows = np.flatnonzero(after.action == action)
        chance = after.probability[rows]
        row = int(rows[rng.choice(len(rows), p=chance / chance.sum())])
        if after.ended[row]:  # a race it ends is worth its win shares: nothing to learn
            continue
        state = after.games.to_states(np.array([row]))[0]
        if state.current == learner:
            continue
        bot = copy.deepcopy(bots[state.current])
        out.append(td_row(features, (after, row, me, values[row]), reply(standing, state, bot)))
    return out


def play_rows(cfg: StandingTDConfig, game_seed: int) -> list[dict[str, np.ndarray]]:
    """One game's rows (module docstring, step 1), in move order (each move's siblings after
    the row of the move before it)."""
    rules = RuleSet(cfg.preset, num_players=cfg.num_players)
    features = cfg.features()
    standing = StandingValue()
    rng = np.random.default_rng(game_seed)
    sibling_rng = np.random.default_rng([game_seed, 1])  # the game's dice stay as they were
    learner = None if cfg.others is None else game_seed % rules.num_players
    bots = [
        agents.make(cfg.play_by if learner in (None, seat) else str(cfg.others))
        for seat in range(rules.num_players)
    ]
    for seat, bot in enumerate(bots):
        bot.reset(game_seed * 8 + seat)
    state = new_game(rules, seed=game_seed)
    out: list[dict[str, np.ndarray]] = []
    left = None  # what the last move left: (its afterstates, the row that happened, mover, value)
    while not state.game_over:
        me = state.current
        after, rows, values = nxt = reply(standing, state, bots[me])
        if left is not None and me != learner:
            out.append(td_row(features, left, nxt))
        if cfg.siblings:
            chosen = int(after.action[rows[0]])
            out += sibling_rows(cfg, standing, features, after, chosen, bots, sibling_rng, learner)
        chance = after.probability[rows]
        k = int(rng.choice(len(rows), p=chance / chance.sum()))
        left = (after, int(rows[k]), me, values[k])
        state = after.games.to_states(rows[k : k + 1])[0]
    return out


def label_shard(cfg: StandingTDConfig, shard: int) -> Path:
    """Play shard ``shard``'s games; its rows written whole, last."""
    parts: list[dict[str, np.ndarray]] = []
    games: list[int] = []
    for g in range(cfg.shard_games):
        game = shard * cfg.shard_games + g
        rows = play_rows(cfg, cfg.seed * 1_000_003 + game)
        parts += rows
        games += [game] * len(rows)
    out = {
        k: np.concatenate([p[k] for p in parts]).astype(np.float32)
        for k in (*ROW_ARRAYS, *NEXT_ARRAYS)
        if k not in ("outcomes", "game", "next_ended")
    }
    out["outcomes"] = np.concatenate([p["outcomes"] for p in parts]).astype(np.int64)
    out["next_ended"] = np.concatenate([p["next_ended"] for p in parts])
    out["game"] = np.array(games, np.int64)
    return write_shard(shard_path(cfg.labels, shard), out)


# The fit --------------------------------------------------------------------------------------
@dataclass
class Rows:
    """Rows gathered from shards; ``row_of_next`` says whose outcome each next row is."""

    features: np.ndarray
    skip: np.ndarray
    outcomes: np.ndarray
    game: np.ndarray
    next_features: np.ndarray
    next_skip: np.ndarray
    next_probability: np.ndarray
    next_ended: np.ndarray

    @classmethod
    def load(cls, paths: list[Path]) -> Rows:
        parts: dict[str, list[np.ndarray]] = {k: [] for k in (*ROW_ARRAYS, *NEXT_ARRAYS)}
        for path in paths:
            with np.load(path, allow_pickle=False) as f:
                for k in parts:
                    parts[k].append(f[k])
        return cls(**{k: np.concatenate(v) for k, v in parts.items()})

    @property
    def row_of_next(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.outcomes)), self.outcomes)


def chances(net: Value | None, features: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """The value's chances (relative order) of rows: the skip alone without ``net``."""
    if net is None:
        return skip
    with torch.no_grad():
        out = [
            torch.softmax(
                torch.log(torch.from_numpy(skip[i : i + 65536]) + STANDING_FLOOR)
                + net(torch.from_numpy(features[i : i + 65536])),
                dim=1,
            ).numpy()
            for i in range(0, len(features), 65536)
        ]
    return np.concatenate(out) if out else skip


def targets(rows: Rows, net: Value | None) -> np.ndarray:
    """Each row's target: the expectation over the next move's outcomes of ``net``'s value
    (the standing's without one); a race-ending outcome at its win shares."""
    running = ~rows.next_ended
    values = rows.next_skip.copy()
    values[running] = chances(net, rows.next_features[running], rows.next_skip[running])
    out = np.zeros_like(rows.skip)
    np.add.at(out, rows.row_of_next, rows.next_probability[:, None] * values)
    return out / out.sum(axis=1, keepdims=True)


def cross_entropy(p: np.ndarray, target: np.ndarray) -> float:
    return float(-(target * np.log(p + STANDING_FLOOR)).sum(axis=1).mean())


def fit(cfg: StandingTDConfig, progress: dict[str, Any]) -> Path:
    """The network fitted sweep by sweep (module docstring, step 2)."""
    out = Path(cfg.out_dir)
    trained, held = split(cfg)
    train_rows = Rows.load(trained)
    check_rows = Rows.load(held)
    print(f"fit: {len(train_rows.skip):,} rows, {len(check_rows.skip):,} held out", flush=True)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    net, _ = new_value(cfg, captures=cfg.captures)
    last = net.layers[-1]
    assert isinstance(last, torch.nn.Linear)
    with torch.no_grad():  # the start is the standing itself
        last.weight.zero_()
        last.bias.zero_()
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(cfg.seed)
    log = out / "fit.csv"
    with log.open("w", newline="") as f:
        csv.writer(f).writerow(
            ["sweep", "epoch", "train_loss", "heldout_ce", "skip_ce", "target_entropy", "explained"]
        )
    previous: Value | None = None
    for sweep in range(cfg.sweeps):
        y_train, y_check = targets(train_rows, previous), targets(check_rows, previous)
        skip_ce = cross_entropy(check_rows.skip, y_check)
        floor = cross_entropy(y_check, y_check)
        best = np.inf
        for epoch in range(1, cfg.epochs + 1):
            net.train()
            losses = []
            order = rng.permutation(len(y_train))
            for i in range(0, len(order), cfg.batch_size):
                b = order[i : i + cfg.batch_size]
                scores = torch.log(torch.from_numpy(train_rows.skip[b]) + STANDING_FLOOR) + net(
                    torch.from_numpy(train_rows.features[b])
                )
                loss = -(torch.from_numpy(y_train[b]) * torch.log_softmax(scores, 1)).sum(1).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            net.eval()
            ce = cross_entropy(chances(net, check_rows.features, check_rows.skip), y_check)
            explained = (skip_ce - ce) / max(skip_ce - floor, 1e-12)
            with log.open("a", newline="") as f:
                row = [np.mean(losses), ce, skip_ce, floor]
                csv.writer(f).writerow(
                    [sweep, epoch, *(f"{v:.5f}" for v in row), f"{explained:.4f}"]
                )
            print(
                f"sweep {sweep} epoch {epoch}: held-out cross-entropy {ce:.5f} (the standing's "
                f"{skip_ce:.5f}, the targets' entropy {floor:.5f}: {explained:.1%} explained)",
                flush=True,
            )
            network = exported(
                net,
                cfg,
                cfg.label_games,
                trainer="standing-td",
                standing_skip=True,
                captures=cfg.captures,
                played_by=cfg.table,
            )
            if sweep == cfg.sweeps - 1 and ce < best:
                best = ce
                save_afterstate_network(out / "value.npz", network)
                progress["best"] = {"sweep": sweep, "epoch": epoch, "explained": explained}
        save_afterstate_network(out / "snapshots" / f"value_sweep{sweep}.npz", network)
        previous = copy.deepcopy(net)
    write_progress(out, progress)
    return out / "value.npz"


def train(cfg: StandingTDConfig, resume: bool = False, command: str | None = None) -> Path:
    cfg.check()
    progress = open_run(cfg, resume)
    label_run(label_shard, cfg, progress, command, "standing-td")
    path = fit(cfg, progress)
    print(f"done: the value file is {path} (play it as afterstate:{path})", flush=True)
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_train_arguments(parser, StandingTDConfig, "configs/train/standing_td_*.yaml")


def run(args: argparse.Namespace) -> int:
    """``camelup train --trainer standing-td``."""
    return run_trainer(args, StandingTDConfig, train)
