"""Train the win network (:mod:`camelup_env.odds.win_network`) on the batch core's games.

``python -m training.odds.win_network --preset classic --players 2 --shards 4 --seed 4``

Games of a mix of policy files (the shipped policies and the distilled bots, ``--mix``) and a
slice of uniformly random seats (``--random``) are played on the batch core, every seat drawn
from the mix per game; at a ``--keep`` share of the positions, every seat's observation is
recorded, and each game's win shares (R7.3) label its positions. Positions of one game share
their label, so what the network can learn grows with the games more than with the positions:
many games, few positions of each. A game that reaches ``--max-turns`` (two deterministic
policies can move their desert tiles round for ever, R5.1) is truncated and left out. A slice
of ``--exact-games`` games a shard is played on the engine by exact bots (``--exact``: greedy and
expert by default, drawn seat by seat, :func:`training.odds.mix_games.mix_games`), whose
positions are observed as the batch games' are
(:func:`~camelup_env.batch.win_chances.seat_observations`): the play of the bots the learned
policies were distilled from, not only of their copies.

Shards of ``--games-per-shard`` games (shard ``k``: seed ``seed + k``) are written to
``--cache`` as they finish and read back on a rerun, so a stopped run resumes; ``--holdout``
games of seed ``seed + 1000`` measure the fit. The network (one score per seat from that seat's
observation, a softmax over the seats) is fitted for the log likelihood of the win shares and
kept at its best held-out epoch; it is written to ``camelup_env/odds/win_networks/`` and named in
the model's entry of ``win_models.json`` (``network``, ``network_fit``), whose luck tables are
dropped: they must be fitted again with the network as a covariate
(:mod:`training.odds.luck_shares`).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.batch_player import BatchPlayer, mixed_actions
from agents.ppo import PolicyAgent
from camelup_env.batch import BATCH_PRESETS, BatchGames, BatchObserver
from camelup_env.batch.win_chances import seat_observations
from camelup_env.game.rewards import win_shares
from camelup_env.game.rules import RuleSet
from camelup_env.odds.win import SHIPPED
from camelup_env.odds.win_network import save_win_network
from training.odds.mix_games import mix_games

#: the default mix at classic 2 players: the shipped policies and the distilled bots
DEFAULT_MIX = (
    "agents/models/classic2.zip,agents/models/classic2_iterated.zip,"
    "agents/models/expert_classic2.zip,"
    "agents/models/greedy_classic2.zip"
)
#: the observation the network reads: the shipped policies' (``camelup_v1``)
OBSERVER: dict[str, Any] = {"odds_features": True, "race_samples": 64, "action_values": True}
#: games stepped side by side while generating
BATCH = 512


def _positions(
    rules: RuleSet,
    xs: list[np.ndarray],
    gids: list[np.ndarray],
    ys: list[np.ndarray],
    cut: np.ndarray,
) -> dict[str, np.ndarray]:
    """The arrays of a shard from its chunks: a small ``keep`` of a few games may keep no
    position at all, and a concatenation of nothing has no shape to give (an observer is
    built for the rows' width only then)."""
    if not xs:
        xs = [np.empty((0, rules.num_players, BatchObserver(rules, **OBSERVER).size), np.float16)]
    return {
        "x": np.concatenate(xs),
        "gid": np.concatenate([np.empty(0, np.int64), *gids]),
        "y": np.concatenate(ys),
        "truncated": cut,
    }


def generate(
    rules: RuleSet,
    policies: list[PolicyAgent],
    games: int,
    seed: int,
    keep: float,
    random_share: float,
    max_turns: int,
) -> dict[str, np.ndarray]:
    """Positions of ``games`` games (module docstring): ``x`` every seat's observation at the
    kept positions ``(P, seats, F)`` float16, ``gid`` each position's game, ``y`` each game's
    win shares, ``truncated`` whether the game hit ``max_turns``. The same arguments give the
    same arrays (the game seeds, the seats' draws and the kept positions all come from
    ``seed``)."""
    n_seats, observer = rules.num_players, BatchObserver(rules, **OBSERVER)
    dice = agents.make("random")
    rng = np.random.default_rng(seed)
    xs, gids, ys, cut = [], [], [], []
    for first in range(0, games, BATCH):
        n = min(BATCH, games - first)
        board = BatchGames(rules, n, seed=seed * 10_000_000 + first + np.arange(n))
        drawn = rng.random((n, n_seats)) < random_share
        who = np.where(drawn, len(policies), rng.integers(0, len(policies), size=(n, n_seats)))
        players = [BatchPlayer(agent, rules, n, seed * 7 + first) for agent in (*policies, dice)]
        final = np.zeros((n, n_seats), np.int64)
        done, truncated = np.zeros(n, bool), np.zeros(n, bool)
        while not done.all():
            idx = np.flatnonzero(~done)
            kept = idx[rng.random(len(idx)) < keep]
            if kept.size:
                seats = [observer.observe(board, seat, kept) for seat in range(n_seats)]
                xs.append(np.stack(seats, axis=1).astype(np.float16))
                gids.append(first + kept)
            actions = np.full(n, -1, np.int64)
            actions[idx] = mixed_actions(players, who, board, idx)
            step = board.step(actions, max_turns=max_turns)
            ended = (step.terminated | step.truncated) & ~done
            final[ended], truncated[ended] = step.final_coins[ended], step.truncated[ended]
            done |= ended
        ys.append(win_shares(final))
        cut.append(truncated)
    return _positions(rules, xs, gids, ys, np.concatenate(cut))


def exact_positions(
    rules: RuleSet, bots: list[str], games: int, seed: int, keep: float
) -> dict[str, np.ndarray]:
    """Positions of ``games`` engine games between the exact ``bots`` (drawn seat by seat), a
    ``keep`` share of each game's, as :func:`generate`'s arrays; no game is truncated (the
    engine's games between scripted bots end). Game seeds ``seed * 10_000_000 + 5_000_000 + g``:
    apart from the batch games of the same shard seed."""
    rng = np.random.default_rng([seed, 11])
    states, gids, ys = [], [], []
    for g, game in enumerate(mix_games(rules, games, seed * 10_000_000 + 5_000_000, bots)):
        kept = np.flatnonzero(rng.random(len(game.states)) < keep)
        states += [game.states[i] for i in kept]
        gids.append(np.full(len(kept), g))
        ys.append(game.shares[None])
    x = [
        seat_observations(states[i : i + BATCH], OBSERVER).astype(np.float16)
        for i in range(0, len(states), BATCH)
    ]
    return _positions(rules, x, gids, ys, np.zeros(games, bool))


def cached_shard(cache: Path, name: str, make) -> Path:
    """The file of the shard ``name`` in ``cache``, ``make()`` written there first if absent."""
    path = cache / f"{name}.npz"
    if not path.exists():
        shard = make()
        cache.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial.npz")
        np.savez(partial, **shard)
        partial.replace(path)
    return path


def gather(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """The observations of every shard's positions and their games' win shares (float32), games
    cut at ``max_turns`` left out, in one pair of arrays filled shard by shard: a concatenation
    would hold the data twice (a four-player shard of 40,000 games is 2.9 GB)."""
    total = 0
    for path in paths:  # an npz member is read when asked for: the labels only, here
        with np.load(path, allow_pickle=False) as data:
            total += int((~data["truncated"][data["gid"]]).sum())
    x, y, at = np.empty(0, np.float16), np.empty(0, np.float32), 0
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            gid, kept = data["gid"], ~data["truncated"][data["gid"]]
            rows, labels = data["x"], data["y"][gid[kept]].astype(np.float32)
        if not at:  # the shape of the rows: from the first shard that has any
            x = np.empty((total, *rows.shape[1:]), rows.dtype)
            y = np.empty((total, labels.shape[1]), labels.dtype)
        n = len(labels)
        np.compress(kept, rows, axis=0, out=x[at : at + n])  # no copy of the kept rows first
        y[at : at + n] = labels
        at += n
        del rows
    return x, y


def fit(
    x: np.ndarray,
    y: np.ndarray,
    x_held: np.ndarray,
    y_held: np.ndarray,
    hidden: int,
    epochs: int,
    seed: int,
    log=print,
):
    """The network fitted by Adam for the log likelihood of the win shares, kept at its best
    held-out epoch: ``(mean, scale, layers, held-out log loss, Brier)``."""
    import torch

    torch.manual_seed(seed)
    sample = x[::7].astype(np.float32).reshape(-1, x.shape[2])
    mean, scale = sample.mean(axis=0), sample.std(axis=0) + 1e-3
    body = torch.nn.Sequential(
        torch.nn.Linear(x.shape[2], hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, 1),
    )
    mu, sd = torch.tensor(mean), torch.tensor(scale)

    def log_probs(batch: np.ndarray):
        z = body((torch.tensor(batch.astype(np.float32)) - mu) / sd)[..., 0]
        return torch.log_softmax(z, dim=1)

    def held_out() -> tuple[float, float]:
        with torch.no_grad():
            lp = torch.cat([log_probs(x_held[i : i + 65536]) for i in range(0, len(x_held), 65536)])
        lp_np = lp.numpy()
        return float(-(y_held * lp_np).sum(1).mean()), float(
            ((np.exp(lp_np) - y_held) ** 2).sum(1).mean()
        )

    opt = torch.optim.Adam(body.parameters(), lr=1e-3)
    best: tuple[float, float, list[tuple[np.ndarray, np.ndarray]] | None] = (np.inf, np.inf, None)
    for epoch in range(epochs):
        order = np.random.default_rng(seed + epoch).permutation(len(x))
        for group in opt.param_groups:
            group["lr"] = 1e-3 * 0.5 ** max(0, epoch - 1)
        for i in range(0, len(order), 1024):
            rows = order[i : i + 1024]
            loss = -(torch.tensor(y[rows]) * log_probs(x[rows])).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        logloss, brier = held_out()
        log(f"epoch {epoch + 1}: held-out log loss {logloss:.4f}, Brier {brier:.4f}")
        if logloss < best[0]:
            layers = [
                (m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                for m in body
                if isinstance(m, torch.nn.Linear)
            ]
            best = (logloss, brier, layers)
    return mean, scale, best[2], best[0], best[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.odds.win_network", description=__doc__
    )
    parser.add_argument("--preset", default="classic", choices=BATCH_PRESETS)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--mix", default=DEFAULT_MIX, help="policy model files, comma-separated")
    parser.add_argument("--random", type=float, default=0.05, help="share of random seats")
    parser.add_argument("--exact", default="greedy,expert", help="exact bots, comma-separated")
    parser.add_argument(
        "--exact-games", type=int, default=2000, help="engine games of the exact bots a shard"
    )
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--games-per-shard", type=int, default=40_000)
    parser.add_argument("--holdout", type=int, default=2048)
    parser.add_argument("--keep", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--max-turns", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--cache", type=Path, default=Path("runs/win_network"))
    parser.add_argument("--models", type=Path, default=SHIPPED)
    args = parser.parse_args(argv)
    key = f"{args.preset}/{args.players}"
    try:
        rules = RuleSet(args.preset, num_players=args.players)
        if not 0 < args.keep <= 1 or not 0 <= args.random < 1:
            raise ValueError("--keep must be in (0, 1] and --random in [0, 1)")
        if args.exact_games < 0:
            raise ValueError("--exact-games must be at least 0")
        exact = [spec for spec in args.exact.split(",") if spec]
        for spec in exact:
            agents.make(spec)  # an unknown bot fails here, in one line
        if key not in json.loads(args.models.read_text())["models"]:
            raise ValueError(f"{args.models} has no model fitted at {key}: fit it first")
        policies = []
        for path in args.mix.split(","):
            agent = agents.make(f"ppo:{path}")
            assert isinstance(agent, PolicyAgent)
            agent.check_rules(rules)
            if agent.observer.metadata != OBSERVER:
                raise ValueError(f"{path} observes with {agent.observer.metadata}, not {OBSERVER}")
            policies.append(agent)
    except (ValueError, agents.UnknownAgentError) as exc:
        print(f"win_network: {exc}", file=sys.stderr)
        return 2
    start = time.time()
    cache = args.cache / f"{args.preset}-{args.players}"
    tag = f"{args.games_per_shard}g_keep{args.keep}_random{args.random}_turns{args.max_turns}"

    def shard(seed: int, games: int) -> Path:
        def make() -> dict[str, np.ndarray]:
            return generate(rules, policies, games, seed, args.keep, args.random, args.max_turns)

        name = f"seed{seed}_{tag if games == args.games_per_shard else f'{games}g'}"
        path = cached_shard(cache, name, make)
        with np.load(path, allow_pickle=False) as data:
            print(f"shard {name}: {len(data['gid'])} positions ({time.time() - start:.0f} s)")
        return path

    def exact_shard(seed: int) -> Path:
        def make() -> dict[str, np.ndarray]:
            return exact_positions(rules, exact, args.exact_games, seed, args.keep)

        bots = re.sub(r"[^A-Za-z0-9]+", "-", "_".join(exact))  # a spec may name a file
        name = f"exact_seed{seed}_{args.exact_games}g_keep{args.keep}_{bots}"
        path = cached_shard(cache, name, make)
        with np.load(path, allow_pickle=False) as data:
            print(f"shard {name}: {len(data['gid'])} positions ({time.time() - start:.0f} s)")
        return path

    paths = [shard(args.seed + k, args.games_per_shard) for k in range(args.shards)]
    if exact and args.exact_games:
        paths += [exact_shard(args.seed + k) for k in range(args.shards)]
    x, y = gather(paths)
    x_held, y_held = gather([shard(args.seed + 1000, args.holdout)])
    mean, scale, layers, logloss, brier = fit(
        x, y, x_held, y_held, args.hidden, args.epochs, args.seed
    )
    name = f"{args.preset}-{args.players}.npz"
    save_win_network(
        args.models.parent / "win_networks" / name,
        args.preset,
        args.players,
        OBSERVER,
        mean,
        scale,
        layers,
    )
    doc = json.loads(args.models.read_text())
    entry = doc["models"][key]
    for stale in ("luck_shares", "luck_covariates", "luck_shares_fit"):
        entry.pop(stale, None)  # fitted without the network: fit them again
    entry["network"] = name
    entry["network_fit"] = {
        "command": "python -m training.odds.win_network " + shlex.join(argv or sys.argv[1:]),
        "mix": args.mix.split(","),
        "random_seats": args.random,
        "exact_bots": exact if args.exact_games else [],
        "games": args.shards * args.games_per_shard,
        "exact_games": args.shards * args.exact_games if exact else 0,
        "positions": len(x),
        "holdout_positions": len(x_held),
        "holdout_log_loss": round(logloss, 4),
        "holdout_brier": round(brier, 4),
        "seconds": round(time.time() - start),
    }
    args.models.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{key}: {len(x)} positions; held-out log loss {logloss:.4f}, Brier {brier:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
