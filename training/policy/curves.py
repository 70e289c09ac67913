"""The learning curve of a training run, as a PNG.

Left: the mean episode reward of the learner (``rollout/ep_rew_mean`` from the run's
TensorBoard log: the reward mode plus coin shaping, against the self-play opponent mixture).
Right: the win share against each baseline at every periodic evaluation (``eval.csv``), with
its 95% confidence band and the equal-player line (1/n).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path


def episode_rewards(run_dir: Path) -> list[tuple[int, float]]:
    """(step, mean episode reward) from the run's TensorBoard logs, if any."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError:
        return []
    points: dict[int, float] = {}
    for events in sorted(run_dir.glob("tensorboard/*/events.out.tfevents.*")):
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        if "rollout/ep_rew_mean" in accumulator.Tags()["scalars"]:
            points.update((e.step, e.value) for e in accumulator.Scalars("rollout/ep_rew_mean"))
    return sorted(points.items())


def plot_learning_curve(run_dir: str | Path, out: str | Path | None = None) -> Path | None:
    """Write ``learning_curve.png`` in the run folder; None if there is nothing to plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    table = run_dir / "eval.csv"
    series: dict[str, list[tuple[int, float, float, float]]] = defaultdict(list)
    players = 2
    if table.exists():
        with open(table, newline="") as f:
            for row in csv.DictReader(f):
                players = int(row["num_players"])
                series[row["opponent"]].append(
                    (
                        int(row["timesteps"]),
                        float(row["win_share"]),
                        float(row["ci_low"]),
                        float(row["ci_high"]),
                    )
                )
    rewards = episode_rewards(run_dir)
    if not series and not rewards:
        return None
    fig, (left, ax) = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    if rewards:
        left.plot([p[0] for p in rewards], [p[1] for p in rewards], linewidth=1)
    # Each new frozen snapshot makes the "self" opponents stronger (before the first one they
    # play randomly), so the training reward drops there by design.
    for i, snap in enumerate(
        sorted(run_dir.glob("snapshots/step_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
    ):
        left.axvline(
            int(snap.stem.split("_")[1]),
            color="grey",
            linestyle=":",
            linewidth=1,
            label="snapshot added to the opponent pool" if i == 0 else None,
        )
    if left.get_legend_handles_labels()[0]:
        left.legend(loc="best", fontsize=8)
    left.set_xlabel("training steps (learner decisions)")
    left.set_ylabel("mean episode reward (self-play mixture)")
    left.set_title("training reward")
    left.grid(alpha=0.3)
    for opponent, points in sorted(series.items()):
        points.sort()
        steps = [p[0] for p in points]
        ax.plot(steps, [p[1] for p in points], marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, [p[2] for p in points], [p[3] for p in points], alpha=0.15)
    ax.axhline(
        1 / players, color="grey", linestyle="--", linewidth=1, label=f"equal player (1/{players})"
    )
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("win share (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"periodic evaluation, {players} players")
    fig.suptitle(run_dir.name)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(out) if out else run_dir / "learning_curve.png"
    fig.savefig(out)
    plt.close(fig)
    return out
