"""The learning curve of a training run, as a PNG: win rate against each baseline over time.

Reads ``eval.csv`` (written by the periodic evaluation in :mod:`training.train_ppo`) and draws
one line per opponent with its 95% confidence band, plus the equal-player line (1/n).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path


def plot_learning_curve(run_dir: str | Path, out: str | Path | None = None) -> Path | None:
    """Write ``learning_curve.png`` next to ``eval.csv``; None if there is nothing to plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    table = run_dir / "eval.csv"
    if not table.exists():
        return None
    series: dict[str, list[tuple[int, float, float, float]]] = defaultdict(list)
    players = 2
    with open(table, newline="") as f:
        for row in csv.DictReader(f):
            players = int(row["num_players"])
            series[row["opponent"]].append((int(row["timesteps"]), float(row["win_rate"]),
                                            float(row["ci_low"]), float(row["ci_high"])))
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for opponent, points in sorted(series.items()):
        points.sort()
        steps = [p[0] for p in points]
        ax.plot(steps, [p[1] for p in points], marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, [p[2] for p in points], [p[3] for p in points], alpha=0.15)
    ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1,
               label=f"equal player (1/{players})")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("win share (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{run_dir.name}: periodic evaluation, {players} players")
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(out) if out else run_dir / "learning_curve.png"
    fig.savefig(out)
    plt.close(fig)
    return out
