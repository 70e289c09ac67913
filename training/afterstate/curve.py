"""The learning curve of an afterstate run: each snapshot against opponents, luck-adjusted.

``camelup curve runs/afterstate_classic4_tile_once --opponents champion --games 400 --seed 5800000``

The afterstate learner writes ``snapshots/value_<games>.npz`` every ``snapshot_every`` games
(:mod:`training.afterstate.trainer`); this plays each one, alone against the opponent in every
other seat, over ``--games`` paired, seat-rotated games (:func:`tournament.evaluate.evaluate`),
and draws what its play is worth as the run learns. The point that matters is the
luck-adjusted win share (:mod:`tournament.luck`): against three ``champion`` a 400-game raw
share moves by +-0.04, the adjusted one by about half that, and a curve of raw shares shows the
dice more than the learning.

It runs beside the training (one core each) or after it, and again as new snapshots come:
``RUN/curve.csv`` holds one row per snapshot and opponent (the snapshot's games, then
:class:`tournament.eval_result.EvalResult`'s fields), a row already there is not played again,
and ``RUN/curve.png`` is drawn from the whole table. Each snapshot's evaluation is a folder of
its own, ``RUN/curve/value_<games>/``, as ``camelup evaluate --out`` writes it: its games are
saved as they end, so a stopped curve resumes mid-snapshot, and its ``games.csv`` pairs with any
other evaluation of the same seed in ``camelup compare``. ``--every K`` plays only the snapshots
whose games are a multiple of K (and the start), for a long run's coarse curve.
"""

from __future__ import annotations

import argparse
import csv
import functools
import re
import sys
import time
from pathlib import Path

from agents.afterstate_network import load_afterstate_network
from camelup_env.game.rules import RuleSet
from camelup_env.interrupts import interrupts_stop_the_run, stop_requested
from tournament.config import TournamentError, check_workers
from tournament.eval_progress import EvalProgress
from tournament.eval_result import EvalResult
from tournament.evaluate import evaluate, progress_settings, write_report
from tournament.ratings import bracket

CURVE = "curve.csv"
SNAPSHOT = re.compile(r"value_(\d+)\.npz")


def snapshots(run: Path, every: int | None = None) -> list[tuple[int, Path]]:
    """The run's snapshot files with their games, in order; with ``every``, the start and
    the multiples of ``every``."""
    found = []
    for path in (run / "snapshots").glob("value_*.npz"):
        match = SNAPSHOT.fullmatch(path.name)
        if match:
            games = int(match.group(1))
            if every is None or games % every == 0:
                found.append((games, path))
    return sorted(found)


def read_curve(run: Path) -> list[dict[str, str]]:
    """The rows of ``RUN/curve.csv`` (none before the first snapshot is played)."""
    path = run / CURVE
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def add_row(run: Path, games: int, result: EvalResult) -> None:
    """One more point, the table kept in snapshot order."""
    rows = [*read_curve(run), {"snapshot_games": str(games), **result.as_row()}]
    rows.sort(key=lambda r: (int(r["snapshot_games"]), r["opponent"]))
    tmp = run / (CURVE + ".tmp")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[-1]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(run / CURVE)


def evaluate_snapshot(
    path: Path, games: int, opponent: str, rules: RuleSet, args: argparse.Namespace
) -> EvalResult:
    """One snapshot against ``opponent``, resumable in ``RUN/curve/<snapshot>/``."""
    out = Path(args.run) / "curve" / path.stem
    candidate = f"afterstate:{path}"
    settings = progress_settings(candidate, {}, rules, args.seed, luck=True, referee=False)
    progress = EvalProgress(out, settings, rules.num_players)
    try:
        result = evaluate(
            candidate,
            opponent,
            rules,
            args.games,
            args.seed,
            args.workers,
            saved=progress.done(opponent, args.games),
            on_game=functools.partial(progress.save, opponent),
        )
        write_report(out, [result], args.command_line)
    finally:
        progress.close()
    return result


def plot_curve(run: Path) -> Path | None:
    """``RUN/curve.png``: the luck-adjusted win share of each snapshot with its 95% interval,
    the raw share beside it, one line per opponent; None before the first point."""
    rows = read_curve(run)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2), dpi=110)
    players = int(rows[0]["num_players"])
    for opponent in sorted({r["opponent"] for r in rows}):
        mine = [r for r in rows if r["opponent"] == opponent]
        x = [int(r["snapshot_games"]) for r in mine]
        adjusted = [float(r["adjusted"]) for r in mine]
        low = [float(r["adjusted_ci_low"]) for r in mine]
        high = [float(r["adjusted_ci_high"]) for r in mine]
        (line,) = ax.plot(x, adjusted, marker="o", label=f"vs {opponent}, luck-adjusted")
        ax.fill_between(x, low, high, alpha=0.15, color=line.get_color())
        ax.plot(
            x,
            [float(r["win_share"]) for r in mine],
            marker=".",
            linestyle=":",
            color=line.get_color(),
            label=f"vs {opponent}, raw",
        )
    ax.axhline(
        1 / players, color="grey", linestyle="--", linewidth=1, label=f"equal player (1/{players})"
    )
    ax.set_xlabel("self-play games learned from")
    ax.set_ylabel("win share alone against the opponent (95% CI)")
    ax.set_title(f"{run.name}: {rows[0]['preset']}, {players} players, {rows[0]['games']} games")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    out = run / "curve.png"
    fig.savefig(out)
    plt.close(fig)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="an afterstate run folder (it holds snapshots/)")
    parser.add_argument(
        "--opponents",
        default="champion",
        help="comma-separated agent specs (each fills every other seat)",
    )
    parser.add_argument("--games", type=int, default=400, help="games per snapshot and opponent")
    parser.add_argument(
        "--seed", type=int, default=0, help="first seed (one not used for choosing the model)"
    )
    parser.add_argument(
        "--every",
        type=int,
        default=None,
        help="only the snapshots of multiples of this many "
        "games, and the start (default: every snapshot)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")


def run(args: argparse.Namespace) -> int:
    """``camelup curve``: the unplayed points, then the table's picture."""
    run_dir = Path(args.run)
    try:
        check_workers(args.workers, "--workers")
        if args.every is not None and args.every < 1:
            raise TournamentError(f"--every must be >= 1, got {args.every}")
        found = snapshots(run_dir, args.every)
        if not found:
            raise TournamentError(f"{run_dir} holds no snapshots/value_<games>.npz")
        network = load_afterstate_network(found[0][1])
        rules = RuleSet(network.preset, num_players=network.players)
        opponents = [o for o in args.opponents.split(",") if o]
        if not opponents:
            raise TournamentError("--opponents names no agent")
        done = {(int(r["snapshot_games"]), r["opponent"]) for r in read_curve(run_dir)}
        todo = [(g, p, o) for g, p in found for o in opponents if (g, o) not in done]
        with interrupts_stop_the_run():
            for games, path, opponent in todo:
                start = time.time()
                result = evaluate_snapshot(path, games, opponent, rules, args)
                add_row(run_dir, games, result)
                plot_curve(run_dir)
                print(
                    f"{path.name} vs {opponent}: luck-adjusted {result.adjusted:.3f} "
                    f"{bracket(result.adjusted_ci_low, result.adjusted_ci_high)}, raw "
                    f"{result.win_share:.3f} ({result.games} games, {time.time() - start:.0f} s)",
                    flush=True,
                )
    except (TournamentError, ValueError) as exc:
        print(f"camelup curve: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as exc:
        if not stop_requested(exc):
            raise
        print(
            f"\ninterrupted: the games played are saved under {run_dir / 'curve'}; run the same "
            "command again to resume",
            file=sys.stderr,
        )
        return 130
    plot_curve(run_dir)
    print(f"{len(todo)} new points; the curve: {run_dir / CURVE}, {run_dir / 'curve.png'}")
    return 0
