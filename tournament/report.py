"""Tournament summaries: ``summary.csv`` (one row per agent), ``summary.md`` (the tables a person
reads, with the command that made them) and ``summary.png`` (win rates and coins with their 95%
intervals, :mod:`tournament.ratings`)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from tournament.config import TournamentConfig
from tournament.ratings import bracket, plus_minus

#: Characters of an agent's label per line under its bar in ``summary.png``.
LABEL_WIDTH = 14


def _pct(x: float, low: float, high: float) -> str:
    """A win rate and its interval in percent, ``47.5% [45.3, 49.7]``."""
    return f"{100 * x:.1f}% {bracket(100 * low, 100 * high, '.1f')}"


def write_summary(
    out: Path, config: TournamentConfig, summary: dict[str, Any], command: str | None = None
) -> None:
    rows = summary["rows"]
    labels = [row["agent"] for row in rows]
    with open(out / "summary.csv", "w") as fh:
        cols = [
            "agent",
            "games",
            "win_share",
            "win_low",
            "win_high",
            "win_share_adjusted",
            "adjusted_ci",
            "mean_coins",
            "coins_ci",
            "mean_rank",
            "ordinal",
            "mu",
            "sigma",
            "forfeits",
        ]
        fh.write(",".join(cols) + "\n")
        for row in rows:
            fh.write(
                ",".join(
                    f"{row[c]:.4f}" if isinstance(row[c], float) else str(row[c]) for c in cols
                )
                + "\n"
            )
    n = config.players
    lines = [f"# Tournament `{config.name}`", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += [
        f"{summary['games']} games · preset `{config.preset}` · {n} players per game · "
        f"seed {config.seed} · move time limit {config.move_timeout} s · "
        f"forfeits {len(summary['forfeits'])} · stopped at the turn cap {summary['truncated']}",
        "",
        "Win rate counts a shared victory as 1/k, with its 95% interval (Wilson's, clustered "
        "by seed: the games of one seed play the same race); ± is the 95% interval of the mean "
        f"coins (normal approximation, clustered by seed; {summary['seeds']} seeds, pairing "
        f"`{config.pairing}`). "
        "Ordinal = mu - 3 sigma (openskill Plackett-Luce). "
        f"An equal player wins {100 / n:.1f}% of its games.",
        "",
    ]
    lucky = any(not math.isnan(r["win_share_adjusted"]) for r in rows)
    if lucky:
        lines += [
            "Luck-adjusted: each game's result minus its seats' luck, the chance corrections "
            "of the win-probability model (docs/luck.md): the same mean in expectation, a "
            "narrower interval (95%, normal, clustered by seed).",
            "",
        ]
    adjusted_head = " luck-adjusted |" if lucky else ""
    lines += [
        f"| agent | games | win rate |{adjusted_head} mean coins | mean rank | ordinal | mu | "
        "sigma | forfeits |",
        "|---|---:|---:|" + ("---:|" if lucky else "") + "---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        adjusted = (
            f" {100 * r['win_share_adjusted']:.1f}% {plus_minus(100 * r['adjusted_ci'], '.1f')} |"
            if lucky
            else ""
        )
        lines.append(
            f"| {r['agent']} | {r['games']} | "
            f"{_pct(r['win_share'], r['win_low'], r['win_high'])} |{adjusted} "
            f"{r['mean_coins']:.2f} {plus_minus(r['coins_ci'])} | {r['mean_rank']:.2f} | "
            f"{r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['forfeits']} |"
        )
    lines += [
        "",
        "Head to head: the share of games in which the row agent finished ahead of "
        "the column agent when both played (ties count 1/2).",
        "",
        "| | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for a in labels:
        cells = [
            "—" if a == b or summary["h2h"][a][b] is None else f"{100 * summary['h2h'][a][b]:.1f}%"
            for b in labels
        ]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Win rate by seat (all agents; seat 0 starts): "
        + ", ".join(f"seat {s}: {_pct(*share)}" for s, share in summary["seats"].items()),
    ]
    if summary.get("fallbacks"):
        lines += [
            "",
            "Rolls in place of an invalid or failed move of a Camel Up Cup bot (rule "
            "C12): " + ", ".join(f"{a}: {n}" for a, n in summary["fallbacks"].items()),
        ]
        for agent, reasons in summary.get("fallback_reasons", {}).items():
            shown = list(reasons.items())[:5]
            more = sum(reasons.values()) - sum(n for _, n in shown)
            lines.append(
                f"- {agent}: "
                + ", ".join(f"{why} ({n})" for why, n in shown)
                + (f", other reasons ({more})" if more else "")
            )
    if summary["forfeits"]:
        lines += ["", "Forfeits (game, agent, reason):", ""]
        lines += [f"- game {g}: {a}: {why}" for g, a, why in summary["forfeits"][:50]]
        if len(summary["forfeits"]) > 50:
            lines.append(f"- ... and {len(summary['forfeits']) - 50} more")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    _chart(out / "summary.png", config, rows)


def _chart(path: Path, config: TournamentConfig, rows: list[dict]) -> None:
    # A Figure of its own, not pyplot's: the caller's backend and figures are left alone (a
    # notebook that runs a tournament still shows its plots).
    from matplotlib.figure import Figure

    # long labels wrap onto lines of their own instead of running into their neighbours
    labels = [_wrapped(r["agent"]) for r in rows]
    wins = [100 * r["win_share"] for r in rows]
    # side by side up to four agents; more are stacked, each chart as wide as its bars need
    stacked = len(rows) > 4
    height = 3.8 + 0.25 * max(lab.count("\n") for lab in labels)
    fig = Figure(
        figsize=(max(10.0, 1.2 * len(rows) + 1.5), 2 * height) if stacked else (10, height)
    )
    axes = fig.subplots(2 if stacked else 1, 1 if stacked else 2, squeeze=False).ravel()
    axes[0].bar(
        labels,
        wins,
        yerr=[
            [_known(w - 100 * r["win_low"]) for w, r in zip(wins, rows, strict=True)],
            [_known(100 * r["win_high"] - w) for w, r in zip(wins, rows, strict=True)],
        ],
        capsize=4,
        color="#c8913a",
    )
    axes[0].axhline(100 / config.players, color="grey", ls="--", lw=1)
    axes[0].set_ylabel("win rate (%), 95% CI")
    axes[1].bar(
        labels,
        [r["mean_coins"] for r in rows],
        yerr=[_known(r["coins_ci"]) for r in rows],
        capsize=4,
        color="#4a7fb5",
    )
    axes[1].set_ylabel("mean final coins, 95% CI")
    for ax in axes:
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle(
        f"{config.name}: {config.preset}, {config.players} players, "
        f"{sum(r['games'] for r in rows) // config.players} games"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _wrapped(label: str) -> str:
    """``label`` on lines of at most :data:`LABEL_WIDTH` characters, broken after a space, a
    ``/`` or a ``:`` where it can (a model file's path stays readable), else anywhere."""
    lines, line = [], ""
    for part in re.findall(r"[^/:\s]*[/:\s]?", label):
        if line and len(line) + len(part.rstrip()) > LABEL_WIDTH:
            lines.append(line.rstrip())
            line = ""
        line += part
        while len(line.rstrip()) > LABEL_WIDTH:
            lines.append(line[:LABEL_WIDTH])
            line = line[LABEL_WIDTH:]
    return "\n".join([*lines, line.rstrip()] if line.strip() else lines)


def _known(error: float) -> float:
    """An error bar's length, 0 (no bar) where the interval is not known (one seed); never
    negative, which matplotlib refuses: an interval's end that rounding puts a hair inside its
    share (a share of exactly 0 or 1) is no bar on that side."""
    return 0.0 if math.isnan(error) else max(0.0, error)
