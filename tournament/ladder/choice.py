"""Which bots sit at the next table: where a game teaches the ratings the most.

A game moves a rating most where it is least certain, and tells most about two bots whose
ratings are close (their order is then the open question). So the first seat goes to the bot
whose rating is least certain (openskill's ``sigma``), newcomers before anyone (a bot with fewer
than ``newcomer_games`` games: its first games place it), and each other seat is drawn at
random with weight ``sigma^2`` times the chance that the two are a close match,
``exp(-(mu_a - mu_b)^2 / (2 (2 beta^2 + sigma_a^2 + sigma_b^2)))`` (TrueSkill's match quality
of two players), so uncertain and close opponents come often and no bot is left out for long.

A table's seats are then played as the tournament pairs them (:mod:`tournament.schedule`,
``pairing: order``): one deal and dice stream, the line-up in each of its ``players``
rotations, so every bot of the table meets the same race from every seat and seat luck
cancels within the deal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from tournament.ladder.store import START_SIGMA, Entry

#: openskill's performance spread (``beta = sigma / 2`` of a new rating).
BETA = START_SIGMA / 2.0


def closeness(a: Entry, b: Entry) -> float:
    """TrueSkill's match quality of ``a`` and ``b`` (module docstring), in (0, 1]."""
    spread = 2.0 * BETA * BETA + a.sigma * a.sigma + b.sigma * b.sigma
    return math.exp(-((a.mu - b.mu) ** 2) / (2.0 * spread))


def choose_table(
    candidates: Sequence[Entry], players: int, newcomer_games: int, rng: random.Random
) -> list[Entry]:
    """``players`` distinct bots of ``candidates`` (module docstring), in seat order of the
    first rotation; ``ValueError`` when there are too few."""
    if len(candidates) < players:
        raise ValueError(f"{len(candidates)} active bots; a game needs {players}")
    pool = list(candidates)
    rng.shuffle(pool)  # ties broken at random
    first = min(pool, key=lambda e: (e.games >= newcomer_games, -e.sigma))
    table = [first]
    pool.remove(first)
    for _ in range(players - 1):
        newcomers = [e for e in pool if e.games < newcomer_games]
        if newcomers:
            pick = newcomers[0]
        else:
            weights = [e.sigma**2 * min(closeness(e, t) for t in table) for e in pool]
            pick = rng.choices(pool, weights=weights)[0]
        table.append(pick)
        pool.remove(pick)
    rng.shuffle(table)
    return table


def rotations(table: Sequence[int]) -> list[tuple[int, ...]]:
    """The seats of each game of a deal: rotation ``r`` puts member ``(i + r) mod p`` in seat
    ``i`` (:mod:`tournament.schedule`)."""
    p = len(table)
    return [tuple(table[(i + r) % p] for i in range(p)) for r in range(p)]
