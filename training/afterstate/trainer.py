"""Learn every seat's chance to win from self-play on the batch core, TD-Gammon's way.

``camelup train --trainer afterstate configs/train/afterstate_classic4.yaml``

What is learned is a value, not a policy: :class:`agents.afterstate_network.AfterstateNetwork`,
each seat's chance to win a position as the seat that just moved sees it (its own
``camelup_v1`` observation: its public view and its own cards). Every seat plays the same
rule (:class:`agents.afterstate.AfterstateAgent`'s, max^n): list every legal action's outcomes
with their exact chances (:func:`camelup_env.batch.afterstates.afterstates`), value each by the
network (an outcome that ends the race by its win shares), and take the action whose outcomes
are worth most to the mover in exact expectation over the dice.

**Targets: TD(0) over the afterstate expectation (the default), or TD(lambda).** A seat moves
in game ``i`` and one of its action's outcomes happens: that position, seen by that seat, is a
training row.
Its one-step target is what the next mover's choice is worth in exact expectation over that
choice's dice - the outcomes of the chosen action, judged again through the eyes of the seat
whose row it is (the next mover chose by its own view; a target in its eyes would teach a seat
that what only it knows, its race cards' colours, is worth what the others can guess) - or the
win shares when the outcome ended the race. The expectation is exact, so a target carries no noise
of the next roll, only that of the network (backgammon's learners measured this as what made
afterstate values learnable). With ``td_lambda`` above 0 a row's target mixes in the return of
the rest of the game (TD-Gammon's lambda-returns: 0.7), so the outcome reaches the first moves
without waiting for the values in between to learn it. A game's rows are kept until it ends,
then wait in a replay buffer, each turned into its viewer's relative order; each step of the
games is followed by ``updates`` minibatches of cross-entropy between the network's chances
and the targets.

**Exploration**: with probability ``epsilon`` a seat plays a uniformly random legal action
(its row still learns the value of what follows). **Opponents**: ``opponent_mix`` seats
batch-deciding players (``ppo:`` files such as the distilled ``greedy`` and ``expert``,
``random``) in some seats of some games, so the value does not learn only its own habits;
their moves are valued and learned from the same way.

Hidden cards: a seat's value reads no other seat's card colour (its observation has none), but
an outcome that ends the race is scored by the cards as they lie - the truth. At play time the
agent deals the hidden cards from its reading instead (:mod:`agents.afterstate`); only the
choice of race-ending moves during training sees more than a player would.

A run folder holds ``value.npz`` (the latest network, the file the agent plays), ``snapshots/``
(one file every ``snapshot_every`` games: the learning curve's points), ``checkpoint.pt`` (the
network and optimizer, weights only) and ``progress.json``; ``--resume`` continues from the
last checkpoint, new games dealt from the seed and the games already played.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import agents
from agents.afterstate_network import (
    relative_to_seats,
    save_afterstate_network,
    seats_to_relative,
)
from agents.batch_player import BatchPlayer, EngineBatchPlayer, batch_capable, scripted
from camelup_config import ConfigError, setting
from camelup_env.batch import BatchGames
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import Afterstates, afterstates
from camelup_env.game.actions import PlaceTile, action_table
from camelup_env.game.rewards import win_shares
from camelup_env.game.rules import RuleSet
from training import add_train_arguments, run_trainer
from training.afterstate.value import (
    Value,
    check_value_settings,
    exported,
    new_value,
    start_from,
)
from training.run_folder import (
    name_setting,
    open_progress,
    out_dir_setting,
    resume_command,
    write_progress,
)


@dataclass
class AfterstateConfig:
    """Settings of an afterstate run (module docstring)."""

    name: str = name_setting("afterstate")
    out_dir: str = out_dir_setting("runs/afterstate")
    preset: str = setting("classic", help="Rule set (the batch core's: classic, second_edition).")
    num_players: int = setting(4, help="Players per game.")
    seed: int = setting(0, help="Seed of the games, the choices and the network.")
    total_games: int = setting(20_000, help="Stop after this many finished games.")
    games: int = setting(256, help="Games played side by side.")
    hidden: list[int] = setting(
        default_factory=lambda: [256, 256], help="Hidden layers of the value network."
    )
    learning_rate: float = setting(1e-4, help="Adam learning rate.")
    batch_size: int = setting(4096, help="Rows per minibatch.")
    updates: int = setting(1, help="Minibatches after each step of the games.")
    replay_size: int = setting(200_000, help="Rows the replay buffer keeps (the newest).")
    epsilon: float = setting(0.02, help="Chance of a uniformly random legal move.")
    td_lambda: float = setting(
        0.0,
        help="Each row's target mixes the next choice's exact worth (1 - lambda) with the "
        "return of the rest of the game (lambda): 0 is TD(0), 1 the game's outcome. From the "
        "equity skip TD(0) kept the start's play where lambda 0.7 fitted who happened to win; "
        "from scratch TD(0) learned a flat value (docs/afterstate.md, attempts).",
    )
    odds_features: bool = setting(
        False,
        help="The observation's exact leg odds and race odds (costly per outcome row: "
        "docs/afterstate.md measures it).",
    )
    action_values: bool = setting(False, help="The observation's per-action expected coins.")
    leg_equity: bool = setting(
        True,
        help="Each seat's leg equity at the exact leg odds among the inputs "
        "(camelup_env.batch.afterstate_features).",
    )
    race_equity: bool = setting(
        True,
        help="Each seat's equity counts its race cards at the race odds too, another seat's "
        "hidden ones by their expectation over the camels "
        "(camelup_env.batch.afterstate_features). Needs leg_equity.",
    )
    equity_weight: float = setting(
        3.0,
        help="Start the scores' skip past the layers at this weight times each seat's leg "
        "equity (tens of coins), the last layer zero, so the first games are played as the "
        "equity win model would (agents.afterstate_network); learned from there. 0: no skip. "
        "Needs leg_equity.",
    )
    race_samples: int = setting(
        1000,
        help="Rollouts behind the race odds (the race equity's, and the observation's with "
        "odds_features): at 64 the noisy odds made the best-looking race bet look better than "
        "it is, and the equity skip bet on the race half again as often as greedy.",
    )
    opponent_mix: dict[str, float] = setting(
        default_factory=lambda: {"self": 1.0},
        help="Draw weights of each seat's player per game: 'self' (the value's own choice), "
        "a batch-deciding spec (ppo:FILE, random) or a registered bot's name (champion, "
        "expert...: played through the engine, game by game, at its speed). A game holds one "
        "'self' seat at least when the mix names it: 'self' at 0 seats the value once a game.",
    )
    max_turns: int = setting(
        300,
        help="Actions after which a game stops (a value can move its tile for ever): its last "
        "position is worth its own value, not an outcome (scored by the coins, a leader "
        "learned to stall).",
    )
    pass_rounds: int = setting(
        1,
        help="Rounds in which every move was a tile's (no die, no bet) after which a self-play "
        "seat must do something else - a training house rule, not the game's: moving one's "
        "tile is a pass, and four seats that each preferred the others to roll learned to "
        "pass for ever, unscored (attempt 11) or scored a draw (attempt 12). 0: off.",
    )
    tile_once: bool = setting(
        False,
        help="A second house rule of self-play, read from the board alone: a seat whose desert "
        "tile is on the track may not move it (it places it at most once a leg), so a pass "
        "cannot come round again. pass_rounds' count of passes is not in the value's inputs; "
        "this rule's state is.",
    )
    all_views: bool = setting(
        False,
        help="A row for every seat's view of each position (its own target, judged by that "
        "seat), not the mover's alone: the mover's row always has the next seat on move, "
        "while its target reads positions with the seat after that on move, which no row "
        "trained (training.afterstate.td_errors measures the flip). With TD(lambda) each "
        "seat's rows make their own chain of returns.",
    )
    init_from: str | None = setting(
        None,
        help="An afterstate value file (value.npz) whose network this run starts from, with a "
        "fresh optimizer: a run whose checkpoint is gone goes on from its committed snapshot. "
        "Its rule set, inputs and layers must be this run's.",
    )
    snapshot_every: int = setting(2_000, help="Games between snapshots (curve points).")
    checkpoint_every: int = setting(500, help="Games between checkpoints.")
    threads: int = setting(1, help="torch threads.")

    def check(self) -> None:
        check_value_settings(self)
        for name in ("total_games", "games", "batch_size", "updates", "replay_size", "max_turns"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.pass_rounds < 0:
            raise ConfigError(f"pass_rounds must be >= 0, got {self.pass_rounds}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ConfigError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 <= self.td_lambda <= 1.0:
            raise ConfigError(f"td_lambda must be in [0, 1], got {self.td_lambda}")
        if not self.opponent_mix or min(self.opponent_mix.values()) < 0:
            raise ConfigError("opponent_mix needs non-negative weights")
        for spec in self.opponent_mix:
            if spec != "self" and not (batch_capable(spec) or scripted(spec)):
                raise ConfigError(
                    f"opponent {spec!r} is not 'self', ppo:FILE, random or a registered "
                    "bot's name (camelup agents)"
                )
            if spec != "self":
                agents.check(spec)

    @property
    def observer(self) -> dict[str, Any]:
        return {
            "odds_features": self.odds_features,
            "race_samples": self.race_samples,
            "action_values": self.action_values,
        }


# Self-play ------------------------------------------------------------------------------------
class SelfPlay:
    """``cfg.games`` games side by side, every seat choosing by the value (or an opponent of
    ``opponent_mix``), yielding training rows (module docstring)."""

    def __init__(self, cfg: AfterstateConfig, net: nn.Module, first_seed: int) -> None:
        self.cfg = cfg
        self.rules = RuleSet(cfg.preset, num_players=cfg.num_players)
        self.net = net
        self.games = BatchGames(self.rules, cfg.games, seed=first_seed)
        self.next_seed = first_seed + cfg.games
        self.features = AfterstateFeatures(
            self.rules, cfg.observer, cfg.leg_equity, cfg.race_equity
        )
        self.rng = np.random.default_rng(first_seed)
        n = cfg.games
        #: the views each position is learned from: the mover's, or every seat's from it on
        self.views = self.rules.num_players if cfg.all_views else 1
        self.pending = np.zeros((n, self.views, self.features.size), np.float32)
        self.pending_viewer = np.zeros((n, self.views), np.int64)
        self.has_pending = np.zeros(n, bool)
        specs = list(cfg.opponent_mix)
        weights = np.array([cfg.opponent_mix[s] for s in specs], float)
        self.specs, self.weights = specs, weights / weights.sum()
        self.players = {
            spec: (
                EngineBatchPlayer(spec, n, first_seed)
                if scripted(spec)
                else BatchPlayer(agents.make(spec), self.rules, n, cfg.seed)
            )
            for spec in specs
            if spec != "self"
        }
        self.seating = np.zeros((n, self.rules.num_players), np.int64)
        self._seat_games(np.arange(n), first_seed + np.arange(n))
        #: each game's rows so far: (inputs, viewer, the next choice's worth in seat order)
        self.episodes: list[list[tuple[np.ndarray, int, np.ndarray]]] = [[] for _ in range(n)]
        #: games dealt anew after ``max_turns`` actions
        self.truncated = 0
        #: moves made under :attr:`AfterstateConfig.pass_rounds`' house rule
        self.forced = 0
        table = action_table(self.rules)
        self.is_tile = np.array([isinstance(a, PlaceTile) for a in table.actions])
        self.passes = np.zeros(n, np.int64)  # each game's tile moves in a row
        self.pending_action = np.full(n, -1, np.int64)  # the action each waiting row is of
        #: called with each step's waiting rows, their viewers, the actions they are outcomes
        #: of, and their one-step targets in seat order (for measures such as
        #: :mod:`training.afterstate.td_errors`; the training needs none)
        self.on_targets: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], None] | None
        self.on_targets = None

    def _seat_games(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """Each seat of the games ``idx`` (dealt from ``seeds``): an index of ``specs``, drawn
        by weight; a game holds at least one 'self' seat when the mix has one, so every game
        teaches the value its own play. The opponents forget the games' former deals."""
        draw = self.rng.choice(
            len(self.specs), size=(len(idx), self.rules.num_players), p=self.weights
        )
        if "self" in self.specs:
            me = self.specs.index("self")
            draw[np.arange(len(idx)), self.rng.integers(self.rules.num_players, size=len(idx))] = me
        self.seating[idx] = draw
        for player in self.players.values():
            player.deal(idx, seeds)

    def values(
        self, after: Afterstates, idx: np.ndarray, viewers: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Outcome rows ``idx`` seen by ``viewers``: their inputs (zeros where the race
        ended) and values in each viewer's relative order - the network's chances, the win
        shares where the race ended."""
        running = np.flatnonzero(~after.ended[idx])
        obs = np.zeros((idx.size, self.features.size), np.float32)
        obs[running] = self.features.rows(after, idx[running], viewers[running])
        values = seats_to_relative(win_shares(after.games.state.coins[idx]), viewers)
        if running.size:
            with torch.no_grad():
                logits = self.net(torch.from_numpy(obs[running]))
                values[running] = torch.softmax(logits, dim=1).numpy()
        return obs, values

    def own_view_worth(
        self, after: Afterstates, actions: np.ndarray, games: np.ndarray, judges: np.ndarray
    ) -> np.ndarray:
        """``(len(games), players)`` in seat order: what game ``games[k]``'s chosen action is
        worth in exact expectation over its dice, judged by seat ``judges[k]`` (a waiting
        row's own) rather than by the mover: a target read through another seat's eyes would
        teach a seat that what only it knows (its race cards' colours) is worth what the
        others can guess of it."""
        lo, hi = outcome_rows(after, games, actions[games])
        # each (game, judge) pair's outcome rows, one after the other
        reps = hi - lo
        pair = np.repeat(np.arange(games.size), reps)
        idx = np.repeat(lo - (np.cumsum(reps) - reps), reps) + np.arange(reps.sum())
        judge = judges[pair]
        _, values = self.values(after, idx, judge)
        worth = np.zeros((games.size, self.rules.num_players))
        np.add.at(worth, pair, relative_to_seats(values, judge) * after.probability[idx, None])
        return worth

    def step(self) -> tuple[np.ndarray, np.ndarray, int]:
        """One decision in every game: the rows of the games it finished with their targets
        (inputs, targets) and how many games ended (a game stopped at ``max_turns`` is not
        counted: :attr:`truncated`)."""
        games, n = self.games, self.cfg.games
        movers = games.current_player.astype(np.int64)
        after = afterstates(games)
        viewers = movers[after.game]
        obs, values = self.values(after, np.arange(len(after)), viewers)
        q = after.expect(values)[:, :, 0]  # (N, A): each action's worth to its mover
        legal = after.legal == 1
        # After pass_rounds rounds of passes the next seat must roll or bet (where it can).
        limit = self.cfg.pass_rounds * self.rules.num_players
        can_act = (legal & ~self.is_tile).any(axis=1)
        forced = (limit > 0) & (self.passes >= limit) & can_act
        seat_specs = self.seating[np.arange(n), movers]
        if "self" in self.specs:  # the house rule binds the value's own choices only
            self.forced += int((forced & (seat_specs == self.specs.index("self"))).sum())
        if self.cfg.tile_once:  # a tile on the track stays where it is
            forced |= (games.state.tile_space[np.arange(n), movers] > 0) & can_act
        no_pass = forced[:, None] & self.is_tile[None, :]
        q[no_pass] = -np.inf
        legal[no_pass] = False
        actions = np.argmax(q, axis=1)
        explore = self.rng.random(n) < self.cfg.epsilon
        for i in np.flatnonzero(explore):
            actions[i] = self.rng.choice(np.flatnonzero(legal[i]))
        for k, spec in enumerate(self.specs):
            idx = np.flatnonzero(seat_specs == k)
            if spec != "self" and idx.size:
                actions[idx] = self.players[spec].act(games, idx)
        # The rows waiting for this move learn what the chosen action is worth to their seat.
        waiting = np.repeat(np.flatnonzero(self.has_pending), self.views)
        judges = self.pending_viewer[self.has_pending].ravel()
        worth = self.own_view_worth(after, actions, waiting, judges)
        inputs = self.pending[self.has_pending].reshape(-1, self.features.size)
        if self.on_targets is not None and waiting.size:
            self.on_targets(inputs, judges, self.pending_action[waiting], worth)
        for k, i in enumerate(waiting.tolist()):
            self.episodes[i].append((inputs[k], int(judges[k]), worth[k]))
        # The outcome that happens, drawn by its chance; its rows wait for the next move.
        realised = draw_outcomes(after, actions, self.rng)
        games.state.rows[:] = after.games.state.rows[realised]
        ended = after.ended[realised]
        self.pending_viewer[:] = (movers[:, None] + np.arange(self.views)) % self.rules.num_players
        self.pending[:, 0] = obs[realised]  # the mover's view, read for its choice
        if self.views > 1:
            others = np.flatnonzero(~ended)
            self.pending[:, 1:] = 0.0
            self.pending[others, 1:] = self.features.rows(
                after,
                np.repeat(realised[others], self.views - 1),
                self.pending_viewer[others, 1:].ravel(),
            ).reshape(others.size, self.views - 1, -1)
        self.pending_action[:] = actions
        self.passes = np.where(self.is_tile[actions], self.passes + 1, 0)
        stalled = ~ended & (games.state.turns >= self.cfg.max_turns)
        self.truncated += int(stalled.sum())
        self.has_pending[:] = ~ended & ~stalled
        done = np.flatnonzero(ended | stalled)
        self.passes[done] = 0
        # An ended game's rows learn the win shares. A stalled game did not end: what follows
        # its last position is that position's own value to each view (a time limit is no
        # outcome), so its last rows teach nothing and leave; scored by its coins, a leader
        # learned to stall.
        final = win_shares(games.state.coins[done])
        stop = done[stalled[done]]
        own = dict(zip(stop.tolist(), self.pending_values(stop), strict=True))
        rows, targets = [], []
        for k, i in enumerate(done.tolist()):
            views = self.pending_viewer[i]
            last = own[i] if stalled[i] else np.repeat(final[k][None], self.views, axis=0)
            if self.episodes[i]:
                chains = {self._chain(int(v)): last[j] for j, v in enumerate(views)}
                x, y = self._returns(self.episodes[i], chains)
                rows.append(x)
                targets.append(y)
            self.episodes[i] = []
        if done.size:
            seeds = np.arange(self.next_seed, self.next_seed + done.size)
            self.next_seed += done.size
            games.reset(done, seed=seeds)
            self._seat_games(done, seeds)
        width, players = self.features.size, self.rules.num_players
        return (
            np.concatenate(rows) if rows else np.zeros((0, width), np.float32),
            np.concatenate(targets) if targets else np.zeros((0, players), np.float32),
            int(ended.sum()),
        )

    def pending_values(self, games: np.ndarray) -> np.ndarray:
        """``(len(games), views, players)`` in seat order: each waiting row's value to its
        own viewer."""
        rows = self.pending[games].reshape(-1, self.features.size)
        with torch.no_grad():
            chances = torch.softmax(self.net(torch.from_numpy(rows)), dim=1).numpy()
        seats = relative_to_seats(chances, self.pending_viewer[games].ravel())
        return seats.reshape(games.size, self.views, self.rules.num_players)

    def _chain(self, viewer: int) -> int:
        """The chain of returns a viewer's rows belong to: every row one chain when only the
        mover views (its rows alternate seats), each seat its own with ``all_views``."""
        return viewer if self.cfg.all_views else -1

    def _returns(
        self, episode: list[tuple[np.ndarray, int, np.ndarray]], final: dict[int, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """One finished game's rows and their lambda-returns, each in its viewer's order:
        ``G_k = (1 - lambda) * next_k + lambda * G_{k'}``, ``next_k`` the exact expectation
        of the next mover's choice, ``k'`` the next row of ``k``'s chain (:meth:`_chain`),
        ``G`` after a chain's last row its ``final`` entry in seat order: the game's shares,
        or a stalled game's last values (TD(0) at ``td_lambda`` 0, the game's outcome at 1)."""
        lam = self.cfg.td_lambda
        later = dict(final)
        targets = []
        for _, viewer, next_value in reversed(episode):
            chain = self._chain(viewer)
            later[chain] = (1.0 - lam) * next_value + lam * later[chain]
            targets.append(seats_to_relative(later[chain][None], [viewer])[0])
        rows = np.stack([row for row, _, _ in episode])
        return rows, np.stack(targets[::-1]).astype(np.float32)


def outcome_rows(
    after: Afterstates, games: np.ndarray, actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Where the outcome rows of action ``actions[k]`` in game ``games[k]`` lie: rows
    ``lo[k]`` to ``hi[k]`` (exclusive; the rows of one game and action are consecutive, in
    :func:`afterstates`' order)."""
    a = after.legal.shape[1]
    key = after.game * a + after.action
    want = games * a + actions
    return np.searchsorted(key, want, side="left"), np.searchsorted(key, want, side="right")


def draw_outcomes(after: Afterstates, actions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The row of each game's outcome of ``actions[i]``, drawn by the outcomes' chances."""
    n = len(after.legal)
    lo, hi = outcome_rows(after, np.arange(n), actions)
    cum = np.cumsum(after.probability)
    before = np.where(lo > 0, cum[np.maximum(lo - 1, 0)], 0.0)
    picked = np.searchsorted(cum, before + rng.random(n), side="right")
    return np.clip(picked, lo, hi - 1)


class ReplayBuffer:
    """The newest ``size`` training rows, sampled uniformly."""

    def __init__(self, size: int, width: int, players: int) -> None:
        self.x = np.zeros((size, width), np.float32)
        self.y = np.zeros((size, players), np.float32)
        self.size, self.count, self.at = size, 0, 0

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        for k in range(len(x)):
            self.x[self.at], self.y[self.at] = x[k], y[k]
            self.at = (self.at + 1) % self.size
        self.count = min(self.count + len(x), self.size)

    def sample(self, rng: np.random.Generator, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        idx = rng.integers(self.count, size=k)
        return torch.from_numpy(self.x[idx]), torch.from_numpy(self.y[idx])


# The run -------------------------------------------------------------------------------------
def train(cfg: AfterstateConfig, resume: bool = False, command: str | None = None) -> Path:
    cfg.check()
    out = Path(cfg.out_dir)
    progress = open_progress(
        cfg,
        resume,
        may_change=frozenset({"total_games", "out_dir", "threads"}),
        fresh={"games": 0, "decisions": 0, "seconds": 0.0, "snapshots": []},
        has_checkpoint=lambda folder, _: (folder / "checkpoint.pt").exists(),
        done=lambda p: f"{p['games']:,} of {cfg.total_games:,} games",
    )
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rules = RuleSet(cfg.preset, num_players=cfg.num_players)
    net, features = new_value(cfg)
    layers = net.layers
    learned = [p for p in net.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(learned, lr=cfg.learning_rate)
    if resume:
        saved = torch.load(out / "checkpoint.pt", weights_only=True)
        layers.load_state_dict(saved["net"])
        if net.skip:
            net.equity_weight.data.fill_(float(saved["equity_weight"]))
        optimizer.load_state_dict(saved["optimizer"])
    elif cfg.init_from is not None:
        start_from(net, cfg)
    play = SelfPlay(cfg, net, first_seed=cfg.seed * 1_000_003 + progress["games"])
    buffer = ReplayBuffer(cfg.replay_size, features.size, cfg.num_players)
    rng = np.random.default_rng(cfg.seed + progress["games"])
    start, last_report = time.time() - progress["seconds"], time.time()
    next_checkpoint = progress["games"] + cfg.checkpoint_every
    next_snapshot = (progress["games"] // cfg.snapshot_every + 1) * cfg.snapshot_every
    losses: list[float] = []
    if progress["games"] == 0:  # the curve's first point: the start, unlearned or loaded
        path = out / "snapshots" / "value_0.npz"
        save_afterstate_network(path, exported(net, cfg, 0))
        progress["snapshots"].append({"games": 0, "file": str(path)})
    print(
        f"afterstate learner: {cfg.name}, {rules.preset} {rules.num_players}p, "
        f"{features.size} inputs -> {cfg.hidden} -> {cfg.num_players}",
        flush=True,
    )
    while progress["games"] < cfg.total_games:
        x, y, ended = play.step()
        buffer.add(x, y)
        progress["games"] += ended
        progress["decisions"] += cfg.games
        progress["truncated"] = progress.get("truncated", 0) + play.truncated
        progress["forced"] = progress.get("forced", 0) + play.forced
        play.truncated = play.forced = 0
        if buffer.count >= cfg.batch_size:
            for _ in range(cfg.updates):
                bx, by = buffer.sample(rng, cfg.batch_size)
                loss = -(by * torch.log_softmax(net(bx), dim=1)).sum(dim=1).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
        if time.time() - last_report > 60:
            last_report = time.time()
            rate = progress["games"] / max(time.time() - start, 1e-9) * 3600
            mean_loss = float(np.mean(losses[-200:])) if losses else float("nan")
            print(
                f"{progress['games']:,} games, {progress['decisions']:,} decisions, "
                f"{rate:,.0f} games/h, {progress['truncated']:,} stopped at max_turns, "
                f"{progress['forced']:,} moves forced after a round of passes, "
                f"loss {mean_loss:.4f}",
                flush=True,
            )
        if progress["games"] >= next_snapshot:
            path = out / "snapshots" / f"value_{next_snapshot}.npz"
            save_afterstate_network(path, exported(net, cfg, progress["games"]))
            progress["snapshots"].append({"games": next_snapshot, "file": str(path)})
            next_snapshot += cfg.snapshot_every
        if progress["games"] >= next_checkpoint or progress["games"] >= cfg.total_games:
            next_checkpoint = progress["games"] + cfg.checkpoint_every
            progress["seconds"] = time.time() - start
            progress["loss"] = float(np.mean(losses[-200:])) if losses else None
            checkpoint(out, net, optimizer, cfg, progress)
    print(
        f"done: {progress['games']:,} games in {progress['seconds']:.0f} s; "
        f"the value file is {out / 'value.npz'} (play it as afterstate:{out / 'value.npz'}); "
        f"continue with {resume_command(command, 'camelup train --trainer afterstate ...')}",
        flush=True,
    )
    return out / "value.npz"


def checkpoint(
    out: Path,
    net: Value,
    optimizer: torch.optim.Optimizer,
    cfg: AfterstateConfig,
    progress: dict[str, Any],
) -> None:
    """The value file, then the weights and optimizer, then the progress record (the record
    last: a run killed in between resumes from the checkpoint before)."""
    save_afterstate_network(out / "value.npz", exported(net, cfg, progress["games"]))
    tmp = out / "checkpoint.pt.tmp"
    saved = {
        "net": net.layers.state_dict(),
        "equity_weight": float(net.equity_weight.item()),
        "optimizer": optimizer.state_dict(),
    }
    torch.save(saved, tmp)
    tmp.replace(out / "checkpoint.pt")
    progress["config"] = asdict(cfg)
    write_progress(out, progress)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_train_arguments(parser, AfterstateConfig, "configs/train/afterstate_*.yaml")


def run(args: argparse.Namespace) -> int:
    """``camelup train --trainer afterstate``."""
    return run_trainer(args, AfterstateConfig, train)
