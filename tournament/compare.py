"""Compare two candidates game by game on the evaluation games both played.

``camelup compare A B`` reads the ``games.csv`` of two ``camelup evaluate --out`` runs (a folder
or the file) and prints, per opponent, each candidate's win share and their **paired
difference** with its 95% interval. Two evaluations with the same ``--games``, ``--seed``, rule
set and opponent play the same seeds in the same seats, so the luck of the dice is common to
both and drops out of the difference: the paired interval is narrower than the two separate
intervals suggest (both are clustered by seed, :func:`tournament.ratings.mean_ci`). Games are
matched by opponent and game id and must agree on seed and seat; anything else is refused. A
shorter evaluation from the same ``--seed`` plays the first games of a longer one, so the two
are compared on the games both played (the command says so when that is fewer than either
played).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from tournament.ratings import bracket, mean_ci

COLUMNS = ("opponent", "game", "seed", "seat", "win_share")


class CompareError(Exception):
    """Two evaluations that cannot be compared (one line for the user)."""


@dataclass(frozen=True)
class Comparison:
    opponent: str
    games: int
    share_a: float
    share_b: float
    difference: float  # share_a - share_b
    half_width: float  # of the difference's 95% interval
    # the same for the luck-adjusted win shares (docs/luck.md); nan unless both have them
    adjusted_difference: float = math.nan
    adjusted_half_width: float = math.nan


def read_evaluation_games(path: Path) -> dict[tuple[str, int], tuple[int, int, float, float]]:
    """``(opponent, game) -> (seed, seat, win share, luck-adjusted win share)`` from an
    evaluation's ``games.csv`` (the last nan where the file has none)."""
    file = path / "games.csv" if path.is_dir() else path
    try:
        with open(file, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise CompareError(
                    f"{file}: not an evaluation's games.csv (no column {', '.join(missing)})"
                )
            return {
                (row["opponent"], int(row["game"])): (
                    int(row["seed"]),
                    int(row["seat"]),
                    _share(row["win_share"]),
                    float(row.get("win_share_adjusted") or "nan"),
                )
                for row in reader
            }
    except OSError as exc:
        raise CompareError(f"cannot read {file}: {exc.strerror}") from None
    except ValueError as exc:
        raise CompareError(f"{file}: malformed row ({exc})") from None


def _share(text: str) -> float:
    """A win share: 1/k of a game's k winners, so from 0 to 1 (NaN is not)."""
    share = float(text)
    if not 0 <= share <= 1:
        raise ValueError(f"win_share {text!r} is not from 0 to 1")
    return share


def compare(a: dict, b: dict) -> list[Comparison]:
    """Per opponent (in ``a``'s order), the paired difference of ``a`` over ``b`` on the games
    both played."""
    shared = a.keys() & b.keys()
    if not shared:
        raise CompareError(
            f"the two evaluations share no game ({len(a)} and {len(b)} rows; run both with "
            "the same --opponents and --seed)"
        )
    results = []
    for opponent in dict.fromkeys(key[0] for key in a if key in shared):
        keys = sorted(key for key in shared if key[0] == opponent)
        for key in keys:
            if a[key][:2] != b[key][:2]:
                raise CompareError(
                    f"game {key[1]} against {opponent} has seed/seat {a[key][:2]} "
                    f"in one evaluation and {b[key][:2]} in the other (run "
                    "both with the same --seed and rule set)"
                )
        seeds = [a[key][0] for key in keys]
        difference, half = mean_ci([a[key][2] - b[key][2] for key in keys], seeds)
        adjusted = [a[key][3] - b[key][3] for key in keys]
        adjusted_difference, adjusted_half = (
            (math.nan, math.nan)
            if any(math.isnan(d) for d in adjusted)
            else mean_ci(adjusted, seeds)
        )
        results.append(
            Comparison(
                opponent=opponent,
                games=len(keys),
                share_a=sum(a[key][2] for key in keys) / len(keys),
                share_b=sum(b[key][2] for key in keys) / len(keys),
                difference=difference,
                half_width=half,
                adjusted_difference=adjusted_difference,
                adjusted_half_width=adjusted_half,
            )
        )
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="an evaluation's --out folder (or its games.csv)")
    parser.add_argument("b", help="the other evaluation, on the same games")


def run(args: argparse.Namespace) -> int:
    try:
        a, b = read_evaluation_games(Path(args.a)), read_evaluation_games(Path(args.b))
        rows = compare(a, b)
    except CompareError as exc:
        print(f"camelup compare: error: {exc}", file=sys.stderr)
        return 2
    paired = sum(r.games for r in rows)
    if paired < max(len(a), len(b)):
        print(f"compared on the {paired} games both played (A played {len(a)}, B {len(b)})")
    for r in rows:
        print(
            f"vs {r.opponent:<10} A {r.share_a:.3f}  B {r.share_b:.3f}  A - B "
            f"{r.difference:+.3f} {_interval(r.difference, r.half_width)}  "
            f"({r.games} paired games)"
            + (
                ""
                if math.isnan(r.adjusted_difference)
                else f"; luck-adjusted A - B {r.adjusted_difference:+.3f} "
                f"{_interval(r.adjusted_difference, r.adjusted_half_width)}"
            )
        )
    return 0


def _interval(difference: float, half: float) -> str:
    """``[low, high]`` of a difference, or "too few seeds" with one seed."""
    return bracket(difference - half, difference + half, "+.3f")
