"""Who plays whom, in which seat, with which seed: the games of a tournament in id order.

With ``k`` agents and ``p`` players per game, the *line-ups* are every combination of ``p``
agents in config order (``p <= k``), or the agent list repeated to ``p`` seats (``p > k``, ``p``
a multiple of ``k``). Each line-up is seated in every cyclic order (``seating: orders``: the
first member fixed, the others permuted, ``(p - 1)!`` orders) and each order in its ``p``
rotations (rotation ``r`` puts member ``(i + r) mod p`` of the order in seat ``i``), so every
agent sits in every seat equally often *and* plays right after every other agent equally often.
``seating: rotations`` keeps only the line-up's own order: every seat is still balanced, but an
agent always moves right after the same opponent, which biases the result badly (two identical
greedy players finished 70.6% / 29.4% against each other that way, because the one moving first
takes the leg bets that the other's turn would have found; ``results/tournaments/
classic4_rotations_bias``). A *round* is every line-up in every seating; ``games`` is rounded up
to whole rounds.

Games that share a seed share the setup and the dice stream
(:func:`camelup_env.match.game_rngs`), and so, traps aside, the whole race: the camels' rolls
come out of the pyramid in the same order whatever the players do. ``pairing: order`` (the
default) gives the ``p`` rotations of each
cyclic order of a line-up a seed of their own (``seed * 1_000_000`` plus the order's number,
counted over the rounds): every seat sees the same race, so seat luck is paired, and a round of
many line-ups plays many races. ``pairing: round`` gives every game of a round one seed
(``seed * 1_000_000 + round``): every line-up plays the same race, which pairs the luck of
different line-ups but makes a round one race; with few rounds an interval clustered by seed
(:func:`tournament.ratings.mean_ci`) then rests on a handful of races. It suits many rounds of
few line-ups (a two-agent match).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the config checks its games with round_size: no import cycle at run time
    from tournament.config import TournamentConfig

#: Game seeds are ``base seed * SEED_STRIDE + group`` (module docstring).
SEED_STRIDE = 1_000_000


@dataclass(frozen=True)
class GameSpec:
    game: int
    round: int
    lineup: int
    rotation: int
    seed: int
    seats: tuple[int, ...]  # agent index per seat
    order: int = 0  # which cyclic order of the line-up (seating "orders")


def lineups(k: int, p: int) -> list[tuple[int, ...]]:
    if p <= k:
        return list(itertools.combinations(range(k), p))
    return [tuple(i % k for i in range(p))]


def cyclic_orders(lineup: tuple[int, ...], seating: str) -> list[tuple[int, ...]]:
    """The seating orders of a line-up up to rotation: just the line-up (``rotations``), or
    every order with its first member fixed (``orders``: (p - 1)! of them)."""
    if seating == "rotations":
        return [lineup]
    head, rest = lineup[0], lineup[1:]
    found: dict[tuple[int, ...], None] = {}
    for perm in itertools.permutations(rest):
        found.setdefault((head, *perm), None)
    return list(found)


def round_size(k: int, p: int, seating: str = "orders") -> int:
    """The games of a round, counted without listing them (the config checks a tournament's
    size with it before anything is built): line-ups times their cyclic orders times ``p``."""
    if p <= k:  # C(k, p) line-ups of distinct agents, (p - 1)! orders each
        ups, orders = math.comb(k, p), math.factorial(p - 1)
    else:  # one line-up, each agent m = p / k times: the orders of the rest as a multiset
        m = p // k
        ups = 1
        orders = math.factorial(p - 1) // (math.factorial(m - 1) * math.factorial(m) ** (k - 1))
    return ups * (orders if seating == "orders" else 1) * p


def schedule(config: TournamentConfig) -> list[GameSpec]:
    """Every game of the tournament in id order (module docstring)."""
    k, p = len(config.entries()), config.players
    ups = [(up, cyclic_orders(up, config.seating)) for up in lineups(k, p)]
    size = sum(len(orders) for _, orders in ups) * p
    rounds = math.ceil(config.games / size)
    games: list[GameSpec] = []
    for r in range(rounds):
        for li, (_, orders) in enumerate(ups):
            for oi, up in enumerate(orders):
                group = len(games) // p if config.pairing == "order" else r
                seed = config.seed * SEED_STRIDE + group
                for rot in range(p):
                    seats = tuple(up[(i + rot) % p] for i in range(p))
                    games.append(GameSpec(len(games), r, li, rot, seed, seats, oi))
    return games
