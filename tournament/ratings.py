"""Statistics of a set of games: win shares, coins, ranks, openskill ratings, head to head.

One home for the interval formula (:func:`mean_ci`, clustered by seed), used by tournaments and
evaluation alike.
Ratings are openskill Plackett-Luce over the games in id order (so a resumed run rates exactly
as an uninterrupted one); win rates count a shared victory as ``1/k``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from typing import Any


def mean_ci(
    values: Sequence[float], groups: Sequence[Hashable] | None = None
) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal-approximation interval (nan if undefined).

    ``groups`` labels the values that are not independent of each other: games played on one
    seed (the seat rotations of an evaluation or of a tournament's seating) see the same
    dice, so their results move together, and treating them as independent understates the
    spread (in four-player classic, one agent against three greedy, by about a sixth:
    ``docs/tournaments.md``). The variance is then the cluster-robust one over the group sums,

        var(mean) = G / (G - 1) * sum_g (sum_{i in g} (v_i - mean))^2 / n^2,

    which with every value its own group (the default) is exactly ``s^2 / n``.
    """
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    residuals: dict[Hashable, float] = defaultdict(float)
    for i, v in enumerate(values):
        residuals[i if groups is None else groups[i]] += v - mean
    g = len(residuals)
    if g < 2:
        return mean, float("nan")
    var = g / (g - 1) * sum(r * r for r in residuals.values()) / (n * n)
    return mean, 1.96 * math.sqrt(var)


def win_share(record: dict, seat: int) -> float:
    """1/k if ``seat`` is one of the game's k winners, else 0."""
    winners = record["winner_seats"]
    return 1.0 / len(winners) if seat in winners else 0.0


def summarise(records: list[dict], labels: list[str]) -> dict[str, Any]:
    """Per-agent statistics, openskill ratings and the head-to-head matrix."""
    from openskill.models import PlackettLuce

    records = sorted(records, key=lambda r: r["game"])
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    shares: dict[str, list[float]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    ranks: dict[str, list[float]] = defaultdict(list)
    forfeits: dict[str, int] = defaultdict(int)
    fallbacks: dict[str, int] = defaultdict(int)  # Cup bots' rolls in place of their move (C12)
    fallback_reasons: dict[str, Counter[str]] = defaultdict(Counter)
    ahead: dict[tuple[str, str], float] = defaultdict(float)
    met: dict[tuple[str, str], int] = defaultdict(int)
    seat_shares: dict[int, list[float]] = defaultdict(list)
    seeds: dict[str, list[int]] = defaultdict(list)  # the seed group of each value above
    seat_seeds: dict[int, list[int]] = defaultdict(list)
    for rec in records:
        agents, rk = rec["agents"], rec["ranks"]
        for seat, label in enumerate(agents):
            share = win_share(rec, seat)
            shares[label].append(share)
            seat_shares[seat].append(share)
            seeds[label].append(rec["seed"])
            seat_seeds[seat].append(rec["seed"])
            scores[label].append(rec["scores"][seat])
            ranks[label].append(rk[seat])
        if rec["forfeit"]:
            forfeits[rec["forfeit"]["agent"] or agents[rec["forfeit"]["seat"]]] += 1
        for label, count in zip(agents, rec.get("fallbacks") or (), strict=False):
            fallbacks[label] += count
        for label, why in zip(agents, rec.get("fallback_reasons") or (), strict=False):
            for reason, count in why.items():
                fallback_reasons[label][reason] += count
        for i, j in itertools.permutations(range(len(agents)), 2):
            a, b = agents[i], agents[j]
            if a == b:
                continue
            met[a, b] += 1
            ahead[a, b] += 1.0 if rk[i] < rk[j] else 0.5 if rk[i] == rk[j] else 0.0
        teams = [[ratings[label]] for label in agents]
        rated = model.rate(teams, ranks=list(rk))
        updates: dict[str, list] = defaultdict(list)
        for label, team in zip(agents, rated, strict=True):
            updates[label].append(team[0])
        for label, new in updates.items():
            mu = sum(r.mu for r in new) / len(new)
            sigma = sum(r.sigma for r in new) / len(new)
            ratings[label] = model.rating(mu=mu, sigma=sigma, name=label)
    rows: list[dict[str, Any]] = []
    for label in labels:
        win, win_ci = mean_ci(shares[label], seeds[label])
        coins, coins_ci = mean_ci(scores[label], seeds[label])
        rank, _ = mean_ci(ranks[label])
        r = ratings[label]
        rows.append(
            {
                "agent": label,
                "games": len(shares[label]),
                "win_share": win,
                "win_ci": win_ci,
                "mean_coins": coins,
                "coins_ci": coins_ci,
                "mean_rank": rank,
                "ordinal": r.ordinal(),
                "mu": r.mu,
                "sigma": r.sigma,
                "forfeits": forfeits[label],
            }
        )
    rows.sort(key=lambda row: -row["ordinal"])
    h2h = {a: {b: (ahead[a, b] / met[a, b] if met[a, b] else None) for b in labels} for a in labels}
    seats = {seat: mean_ci(v, seat_seeds[seat]) for seat, v in sorted(seat_shares.items())}
    forfeit_list = [
        (r["game"], r["forfeit"]["agent"], r["forfeit"]["reason"]) for r in records if r["forfeit"]
    ]
    return {
        "rows": rows,
        "h2h": h2h,
        "h2h_games": {f"{a} vs {b}": n for (a, b), n in met.items()},
        "seats": seats,
        "games": len(records),
        "seeds": len({r["seed"] for r in records}),
        "forfeits": forfeit_list,
        "fallbacks": {label: n for label, n in fallbacks.items() if n},
        "fallback_reasons": {label: dict(c.most_common()) for label, c in fallback_reasons.items()},
        "truncated": sum(1 for r in records if r.get("truncated")),
    }
