"""Fit the win-probability model (:mod:`camelup_env.odds.win`) on positions of played games.

``python -m training.odds.win_model --preset classic --players 4 --games 400 --seed 0``

Games are played in this process by a mix of scripted bots drawn seat by seat (``--mix``), so
the model sees the positions of strong and weak play alike. Every ``--every``-th position of a
game is a sample: its seats' equities and race progress, and the game's final win shares as
the target. The three sharpness coefficients maximise the likelihood of the winners (one
optimiser call: the problem is tiny). ``--holdout`` games of other seeds measure the fit: Brier
score and log loss by leg of the game, beside two baselines - the coin leader (the game shared
by the seats with the most coins now) and equal chances - and, with ``--value-head FILE``, a
trained policy's own value head (:func:`value_head_chances`); ``--measure`` scores a model's
learned win network (:mod:`training.odds.win_network`) beside them too.

The coefficients, the command and the measured quality are written into the shipped
``camelup_env/odds/win_models.json`` under ``preset/players`` (``--out`` for another file).
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import agents
from camelup_env.batch.win_chances import network_chances
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.odds.luck import coin_leader
from camelup_env.odds.win import WinModel, equity, load_win_model, progress
from tournament.ratings import mean_ci, plus_minus
from training.odds.mix_games import add_mix_arguments, checked_mix, mix_games

DEFAULT_MIX = "greedy,expert,heuristic,random"


@dataclass
class Samples:
    """Positions as features and targets: ``equities (k, n)``, ``progress (k,)``,
    ``shares (k, n)`` (the game's final win shares), ``leg (k,)``, the coin leader's
    shares ``leaders (k, n)`` (a baseline) and the game each position comes from, ``games
    (k,)`` (``None``: each position its own game), which clusters the intervals: positions of
    one game share its winner, so they are not independent samples."""

    equities: np.ndarray
    progress: np.ndarray
    shares: np.ndarray
    leg: np.ndarray
    leaders: np.ndarray
    games: np.ndarray | None = None
    states: list[GameState] = field(default_factory=list)  # the positions themselves


def play_samples(rules: RuleSet, games: int, seed: int, mix: list[str], every: int = 3) -> Samples:
    """Play :func:`mix_games` and sample every ``every``-th position of each."""
    rows: list[tuple[GameState, int]] = []
    shares: list[np.ndarray] = []
    for game in mix_games(rules, games, seed, mix):
        rows += [(s, len(shares)) for s in game.states[::every]]
        shares.append(game.shares)
    return _features(rows, shares)


def _features(rows: list[tuple[GameState, int]], shares: list[np.ndarray]) -> Samples:
    states = [s for s, _ in rows]
    return Samples(
        equities=np.stack([equity(s) for s in states]),
        progress=np.array([progress(s) for s in states]),
        shares=np.stack([shares[g] for _, g in rows]),
        leg=np.array([s.leg for s in states]),
        leaders=coin_leader(states),
        games=np.array([g for _, g in rows]),
        states=states,
    )


def value_head_chances(path: str, samples: Samples) -> np.ndarray:
    """Each seat's chance to win by the value head of the policy file at ``path`` (a baseline):
    the value of each seat's own observation read as its expected ``"win"`` reward, 1 to a sole
    winner and ``-1/(n-1)`` to each loser (the coin shaping's small part ignored), so ``P = (V
    (n-1) + 1) / n``, clipped to [0, 1] and normalised over the seats. ``ValueError`` for a file
    trained on another reward or game."""
    from agents.ppo import load_agent, read_metadata

    config = read_metadata(path).get("config") or {}
    if config.get("reward_mode") != "win":
        raise ValueError(f"{path}: a value head of the 'win' reward is needed, got {config}")
    agent = load_agent(path)
    states = samples.states
    n = samples.shares.shape[1]
    agent.check_rules(states[0].rules)
    obs = np.stack([agent.observer.observe(s, seat) for s in states for seat in range(n)])
    p = np.clip((agent.values(obs).reshape(len(states), n) * (n - 1) + 1) / n, 0.0, 1.0)
    total = p.sum(axis=1, keepdims=True)
    return np.where(total > 0, p / np.maximum(total, 1e-12), 1.0 / n)


def fit(samples: Samples) -> WinModel:
    """The sharpness coefficients of maximum likelihood (cross-entropy against the shares)."""
    import torch

    eq = torch.tensor(samples.equities - samples.equities.max(axis=1, keepdims=True))
    x = torch.tensor(samples.progress)
    y = torch.tensor(samples.shares)
    beta = torch.tensor([-1.6, 0.0, 0.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([beta], max_iter=200, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        opt.zero_grad()
        sharp = torch.exp(beta[0] + beta[1] * x + beta[2] * x * x)
        logp = torch.log_softmax(sharp[:, None] * eq, dim=1)
        value = -(y * logp).sum(dim=1).mean()
        value.backward()
        return value

    opt.step(loss)
    b = [float(v) for v in beta.detach()]
    return WinModel((b[0], b[1], b[2]))


def quality(
    model: WinModel, samples: Samples, others: dict[str, np.ndarray] | None = None
) -> list[dict]:
    """Brier score and log loss by leg, for the model, the coin leader, equal chances and any
    ``others`` (name: chances per position and seat). Brier: the mean over positions of the
    squared error summed over seats; log loss: minus the log probability of the winner(s),
    shares-weighted (probabilities floored at 1e-6). Beside each baseline, the model's Brier
    less the baseline's, position by position on the same positions, with the half-width of
    its 95% interval clustered by game (``brier_model_minus_NAME``, ``..._half``): "the model
    beats the coin leader at this leg" is a claim only where the interval lies below zero."""
    n = samples.shares.shape[1]
    predictions = {
        "model": model.from_features(samples.equities, samples.progress),
        "coin_leader": samples.leaders,
        "equal": np.full_like(samples.shares, 1.0 / n),
        **(others or {}),
    }
    games = np.arange(len(samples.leg)) if samples.games is None else samples.games
    rows = []
    for leg in sorted(set(samples.leg.tolist())):
        at = samples.leg == leg
        row: dict = {"leg": leg, "positions": int(at.sum())}
        errors = {}
        for name, p in predictions.items():
            errors[name] = ((p[at] - samples.shares[at]) ** 2).sum(axis=1)
            ll = -(samples.shares[at] * np.log(np.maximum(p[at], 1e-6))).sum(axis=1).mean()
            row[f"brier_{name}"] = round(float(errors[name].mean()), 4)
            row[f"logloss_{name}"] = round(float(ll) + 0.0, 4)  # + 0.0: no "-0.0" for a certain leg
        for name in [other for other in predictions if other != "model"]:
            diff, half = mean_ci((errors["model"] - errors[name]).tolist(), games[at].tolist())
            row[f"brier_model_minus_{name}"] = round(diff, 4)
            row[f"brier_model_minus_{name}_half"] = round(half, 4)
        rows.append(row)
    return rows


def reliability(
    model: WinModel,
    samples: Samples,
    path: Path,
    title: str,
    others: dict[str, np.ndarray] | None = None,
) -> dict[str, tuple[list[float], list[float]]]:
    """A reliability diagram of ``samples`` (held-out positions) at ``path`` (PNG): every seat's
    predicted chance to win, in ten bins of equal width, against the share of the game it won,
    for the model, the coin leader and any ``others`` (name: chances per position and seat: the
    win network, a value head); a calibrated model lies on the diagonal. Returns each curve's
    points (mean prediction, share won) by name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 5.2), dpi=110)
    ax.plot([0, 1], [0, 1], color="#999999", linewidth=1, label="calibrated")
    predictions = {
        "win-probability model": model.from_features(samples.equities, samples.progress),
        "coin leader": samples.leaders,
        **{name.replace("_", " "): p for name, p in (others or {}).items()},
    }
    curves = {}
    for (name, p), marker in zip(predictions.items(), itertools.cycle("os^vDP"), strict=False):
        flat, won = p.ravel(), samples.shares.ravel()
        bins = np.minimum((flat * 10).astype(int), 9)
        xs, ys = [], []
        for b in range(10):
            at = bins == b
            if at.sum() >= 20:  # a bin of fewer positions says little
                xs.append(flat[at].mean())
                ys.append(won[at].mean())
        curves[name] = (xs, ys)
        ax.plot(xs, ys, marker=marker, label=f"{name} (Brier {_brier(p, samples):.3f})")
    ax.set_xlabel("predicted chance to win (mean of the bin)")
    ax.set_ylabel("share of the game won")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return curves


def _brier(p: np.ndarray, samples: Samples) -> float:
    return float(((p - samples.shares) ** 2).sum(axis=1).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.odds.win_model", description=__doc__)
    add_mix_arguments(parser, games=400, holdout=100, mix=DEFAULT_MIX)
    parser.add_argument("--every", type=int, default=3, help="sample every k-th position")
    parser.add_argument(
        "--reliability", type=Path, default=None, help="also draw the held-out reliability (PNG)"
    )
    parser.add_argument(
        "--value-head",
        action="append",
        default=[],
        metavar="FILE",
        help="also score this policy file's value head on the held-out games (repeatable)",
    )
    parser.add_argument(
        "--measure",
        action="store_true",
        help="measure the model in --out on the held-out games (no fit, nothing written but "
        "the --reliability picture)",
    )
    args = parser.parse_args(argv)
    try:
        rules, mix = checked_mix(args)
        if args.every < 1:
            raise ValueError("--every must be at least 1")
        heads = {f"value_head_{Path(f).parent.name}": f for f in args.value_head}
        for f in heads.values():
            agents.make(f"ppo:{f}")  # a file that does not load fails here, in one line
    except (ValueError, agents.UnknownAgentError) as exc:
        print(f"win_model: {exc}", file=sys.stderr)
        return 2
    start = time.time()
    held = play_samples(rules, args.holdout, args.seed + 1_000_000, mix, args.every)
    try:
        others = {name: value_head_chances(f, held) for name, f in heads.items()}
    except ValueError as exc:
        print(f"win_model: {exc}", file=sys.stderr)
        return 2
    if args.measure:
        try:
            model = load_win_model(rules, args.out)
        except ValueError as exc:
            print(f"win_model: {exc}", file=sys.stderr)
            return 2
        if model.network is not None:  # the learned network, scored beside the baselines
            others["network"] = network_chances(model.network, held.states)
        _report(args, model, quality(model, held, others), held, others)
        return 0
    train = play_samples(rules, args.games, args.seed, mix, args.every)
    model = fit(train)
    table = quality(model, held, others)
    doc = json.loads(args.out.read_text()) if args.out.exists() else {"models": {}}
    doc["models"][f"{args.preset}/{args.players}"] = {
        "beta": list(model.beta),
        "command": "python -m training.odds.win_model " + shlex.join(argv or sys.argv[1:]),
        "train_positions": len(train.progress),
        "holdout_positions": len(held.progress),
        "seconds": round(time.time() - start),
        "holdout_by_leg": table,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    _report(args, model, table, held, others)
    return 0


def _report(
    args: argparse.Namespace,
    model: WinModel,
    table: list[dict],
    held: Samples,
    others: dict[str, np.ndarray],
) -> None:
    """Print the coefficients and the held-out table; draw the reliability when asked."""
    if args.reliability is not None:
        reliability(
            model,
            held,
            args.reliability,
            f"{args.preset}, {args.players} players: {len(held.progress):,} held-out positions "
            f"of {args.holdout} games",
            others,
        )
    print(f"{args.preset}/{args.players}: beta {model.beta}")
    for row in table:
        names = [k[len("logloss_") :] for k in row if k.startswith("logloss_")]
        parts = [
            f"{name} {row[f'brier_{name}']:.3f} (model - it {row[f'brier_model_minus_{name}']:+.3f}"
            f" {plus_minus(row[f'brier_model_minus_{name}_half'], '.3f')})"
            for name in names
            if name != "model"
        ]
        losses = ", ".join(f"{name} {row[f'logloss_{name}']:.3f}" for name in names)
        print(
            f"leg {row['leg']}, {row['positions']:,} positions: Brier model "
            f"{row['brier_model']:.3f}; " + "; ".join(parts) + f"; log loss: {losses}"
        )


if __name__ == "__main__":
    sys.exit(main())
