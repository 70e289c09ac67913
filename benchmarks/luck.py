"""How much narrower the luck-adjusted win share's interval is than the raw one's, same games.

    python benchmarks/luck.py [--games4 2000] [--games2 2000] [--seed 7000000] [--workers 2]

Evaluates, on the same seat-rotated games (``camelup evaluate``'s, through the referee), the
shipped classic 4-player agent alone against three greedy and the shipped classic 2-player agent
against expert; each game's luck is measured by the shipped win-probability model
(:mod:`tournament.luck`). Prints, per line-up, the raw and the adjusted win share with their
95% intervals (clustered by seed) and ends with

    luck: adjusted interval = Q4 of raw (classic 4p, N games); Q2 of raw (classic 2p, N games)

``Q`` is the adjusted half-width over the raw one: an interval of ``Q`` times the width, the
precision of ``1 / Q**2`` times the games. The seed is one the project's evaluations and fits do
not use.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path and its tournament.py would
# hide the tournament package: look in the project root instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from camelup_env.game.rules import RuleSet  # noqa: E402
from tournament.eval_result import EvalResult  # noqa: E402
from tournament.evaluate import evaluate  # noqa: E402

LINEUPS = (
    ("classic 4p", "ppo:classic4", "greedy", 4),
    ("classic 2p", "ppo:classic2", "expert", 2),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games4", type=int, default=2000)
    parser.add_argument("--games2", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7_000_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    ratios = []
    for (label, candidate, opponent, players), games in zip(
        LINEUPS, (args.games4, args.games2), strict=True
    ):
        start = time.time()
        r = evaluate(
            candidate,
            opponent,
            RuleSet("classic", num_players=players),
            games,
            args.seed,
            args.workers,
            referee=True,
        )
        q = _half(r.adjusted_ci_low, r.adjusted_ci_high) / _half(r.ci_low, r.ci_high)
        print(
            f"{label}: {candidate} vs {opponent}, {r.games} games ({time.time() - start:.0f} s): "
            f"raw {r.win_share:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}], adjusted "
            f"{r.adjusted:.3f} [{r.adjusted_ci_low:.3f}, {r.adjusted_ci_high:.3f}]; "
            f"difference {r.adjusted - r.win_share:+.3f} (raw half-width "
            f"{_half(r.ci_low, r.ci_high):.3f}): {_agree(r)}",
            flush=True,
        )
        ratios.append((q, r.games))
    (q4, n4), (q2, n2) = ratios
    print(
        f"luck: adjusted interval = {q4:.3f} of raw (classic 4p, {n4} games); "
        f"{q2:.3f} of raw (classic 2p, {n2} games)"
    )


def _half(low: float, high: float) -> float:
    return (high - low) / 2


def _agree(r: EvalResult) -> str:
    inside = r.ci_low <= r.adjusted <= r.ci_high
    return "the means agree within the raw interval" if inside else "OUTSIDE the raw interval"


if __name__ == "__main__":
    main()
