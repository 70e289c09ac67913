"""Statistics of a set of games: win shares, coins, ranks, openskill ratings, head to head.

One home for the interval formulas, used by tournaments, evaluation and training alike: the
clustered normal interval of a mean (:func:`mean_ci`: coins, differences) and the clustered
Wilson interval of a win share (:func:`share_interval`, which stays inside [0, 1] and is not a
point at 0% or 100%); fewer than two seeds measure no spread at all, which the reports print
as :data:`TOO_FEW_SEEDS` (:func:`bracket`, :func:`plus_minus`) instead of a nan.
Ratings are openskill Plackett-Luce over the games in id order (so a resumed run rates exactly
as an uninterrupted one); win rates count a shared victory as ``1/k``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

#: The two-sided 95% quantile of the standard normal distribution (rounded as usual: the
#: intervals of every published result use it).
Z95 = 1.96
#: What a report prints for an interval that one seed (or none) cannot measure.
TOO_FEW_SEEDS = "too few seeds"


def mean_ci(
    values: Sequence[float], groups: Sequence[Hashable] | None = None
) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal-approximation interval (nan if undefined:
    no values, or fewer than two groups, whose spread cannot be measured).

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
    return mean, Z95 * math.sqrt(var)


def share_interval(
    shares: Sequence[float], groups: Sequence[Hashable] | None = None
) -> tuple[float, float, float]:
    """Mean of win shares (each in [0, 1]) and its 95% interval ``(mean, low, high)``: Wilson's
    score interval at the effective number of games of the clustered variance.

    The clustered variance of :func:`mean_ci` says how many independent games the games are
    worth: ``n_eff = n / deff``, where the design effect ``deff`` is that variance over the
    variance of ``n`` independent games, ``p (1 - p) / (n - 1)`` (both with their small-sample
    factor, so that ``n_eff = n`` when each game is its own group), and ``n_eff`` is capped at
    ``n`` (the games of a seed never count for more than as many independent games).
    Wilson's interval at ``n_eff`` stays in [0, 1] and is not a point at 0% or 100%, where
    the normal interval is ``p ± 0`` or crosses 0. When the variance says nothing (every seed
    scores alike, say every game lost) each seed counts as one game: ``n_eff`` = the number
    of groups, the cautious case of games that always end alike. Fewer than two groups:
    ``(mean, nan, nan)``, too few seeds.
    """
    mean, half = mean_ci(shares, groups)
    if math.isnan(half):
        return mean, math.nan, math.nan
    n = len(shares)
    spread = mean * (1.0 - mean)
    var = (half / Z95) ** 2
    seeds = len(set(range(n) if groups is None else groups))
    n_eff = min(float(n), n * spread / ((n - 1) * var)) if var > 0 and spread > 0 else seeds
    z2 = Z95 * Z95 / n_eff
    centre = (mean + z2 / 2) / (1 + z2)
    width = Z95 / (1 + z2) * math.sqrt(spread / n_eff + z2 / (4 * n_eff))
    # Wilson's interval holds its share; at a share of exactly 0 or 1 the rounding of
    # centre -/+ width can put that end a hair past it (1 - 1e-16), so the ends are held to it
    return mean, min(mean, max(0.0, centre - width)), max(mean, min(1.0, centre + width))


def bracket(low: float, high: float, form: str = ".3f") -> str:
    """``[low, high]`` in ``form``, or :data:`TOO_FEW_SEEDS` where the interval is not known."""
    if math.isnan(low) or math.isnan(high):
        return f"({TOO_FEW_SEEDS})"
    return f"[{low:{form}}, {high:{form}}]"


def plus_minus(half: float, form: str = ".2f") -> str:
    """``± half`` in ``form``, or :data:`TOO_FEW_SEEDS` where it is not known."""
    return f"({TOO_FEW_SEEDS})" if math.isnan(half) else f"± {half:{form}}"


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
    adjusted: dict[str, list[float]] = defaultdict(list)  # shares minus luck (tournament.luck)
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
            if "luck" in rec:
                adjusted[label].append(share - rec["luck"][seat])
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
        win, win_low, win_high = share_interval(shares[label], seeds[label])
        # every game's luck, or no adjusted figure (a half-measured mean would mislead)
        lucky = len(adjusted[label]) == len(shares[label]) > 0
        adj, adj_ci = mean_ci(adjusted[label], seeds[label]) if lucky else (math.nan, math.nan)
        coins, coins_ci = mean_ci(scores[label], seeds[label])
        rank, _ = mean_ci(ranks[label])
        r = ratings[label]
        rows.append(
            {
                "agent": label,
                "games": len(shares[label]),
                "win_share": win,
                "win_low": win_low,
                "win_high": win_high,
                "win_share_adjusted": adj,
                "adjusted_ci": adj_ci,
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
    seats = {seat: share_interval(v, seat_seeds[seat]) for seat, v in sorted(seat_shares.items())}
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
