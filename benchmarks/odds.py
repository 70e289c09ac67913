"""Benchmark: exact leg odds (numba kernel) against a plain-Python enumeration.

Run with::

    .venv/bin/python benchmarks/odds.py

For the start of a leg (a new game's position, seed 1) of ``classic`` (5 dice, 5! x 3^5 = 29,160
outcome sequences) and ``second_edition`` (6 dice, 5 drawn, sequences weighted by the dice left)
it times :func:`camelup_env.odds.leg_rank_probabilities` uncached (cache cleared before every
call) and cached, against the textbook method written here in plain Python (copy the board,
move, recurse; its own small movement code on Python lists, no numba; which crazy camel
moves is the engine's :func:`camelup_env.game.movement.crazy_camel_to_move`), checks that both agree
(max abs difference), and prints the speed-up measured in this run. numba compile time is
excluded: every kernel is warmed up first (and numba's on-disk cache is used). It also times
:func:`placement_evs`, prints the ``n_samples`` / standard error / time table of
:func:`race_probabilities`, and the mean uncached cost per call of both on the positions an
environment step sees (400 states of random 4-player classic games, 200 race samples).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from camelup_env import RuleSet, new_game, odds
from camelup_env.game.movement import crazy_camel_to_move  # R5.5 has one home


# The textbook way: plain Python, self-contained ------------------------------------------------
def _py_move(stacks, tiles, camel, steps, track_length):
    """Move ``camel`` and the camels on it ``steps`` (negative: backward); return the end space."""
    src = next(s for s, st in stacks.items() if camel in st)
    stack = stacks[src]
    h = stack.index(camel)
    unit = stack[h:]
    del stack[h:]
    if not stack:
        del stacks[src]
    dst = src + steps
    under = False
    if 1 <= dst <= track_length and dst in tiles:
        side = tiles[dst]
        under = side < 0
        dst += side if steps > 0 else -side
    below = stacks.get(dst, [])
    stacks[dst] = unit + below if under else below + unit
    return dst


def py_leg_rank_probabilities(stacks, tiles, pyramid, reveals, dice, n_racing, track_length):
    """``[camel][rank]`` by recursive enumeration of every (die, distinct face) sequence."""
    out = [[0.0] * n_racing for _ in range(n_racing)]
    distinct = []
    for faces in dice:
        counts = {}
        for face in faces:
            counts[face] = counts.get(face, 0) + 1
        distinct.append([(c, v, k / len(faces)) for (c, v), k in counts.items()])

    def rank(board, weight):
        order = [c for s in sorted(board, reverse=True) for c in reversed(board[s]) if c < n_racing]
        for r, camel in enumerate(order):
            out[camel][r] += weight

    def recurse(board, left_dice, left, weight):
        for die in left_dice:
            for camel, value, p in distinct[die]:
                w = weight * p / len(left_dice)
                new = {s: list(st) for s, st in board.items()}
                if camel >= n_racing:
                    dst = _py_move(
                        new, tiles, crazy_camel_to_move(new, camel, n_racing), -value, track_length
                    )
                else:
                    dst = _py_move(new, tiles, camel, value, track_length)
                if dst > track_length or dst < 1 or left == 1:
                    rank(new, w)
                else:
                    recurse(new, [d for d in left_dice if d != die], left - 1, w)

    recurse({s: list(st) for s, st in stacks.items()}, list(pyramid), reveals, 1.0)
    return np.array(out)


# Timing ----------------------------------------------------------------------------------------
def _best(fn, repeat: int) -> tuple[float, object]:
    """Best wall time of ``repeat`` calls, and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def bench_leg(preset: str) -> None:
    state = new_game(RuleSet(preset), seed=1)
    rules = state.rules
    tiles = {s: side for s, (_, side) in state.tiles.items()}

    def python():
        return py_leg_rank_probabilities(
            state.stacks,
            tiles,
            state.pyramid,
            state.pyramid_tiles_left,
            rules.dice,
            rules.n_racing,
            rules.track_length,
        )

    def kernel():
        odds.clear_cache()
        return odds.leg_rank_probabilities(state)

    kernel()  # warm-up: numba compile (or cache load) is excluded from the timings
    t_py, slow = _best(python, 3 if preset == "classic" else 1)
    t_nb, exact = _best(kernel, 50)
    t_cached, _ = _best(lambda: odds.leg_rank_probabilities(state), 1000)
    diff = float(np.abs(slow - exact).max())
    print(
        f"{preset:15s} plain Python {t_py * 1e3:8.1f} ms | numba {t_nb * 1e3:6.2f} ms | "
        f"speed-up {t_py / t_nb:5.0f}x | cached repeat {t_cached * 1e6:4.1f} us | "
        f"max abs diff {diff:.1e}"
    )


def main() -> int:
    print("$ " + " ".join([".venv/bin/python", *sys.argv]))
    print("leg_rank_probabilities at the start of a leg (new_game seed 1); best of several runs;")
    print("numba compile excluded (warmed up first); numba = uncached (cache cleared each call)")
    for preset in ("classic", "second_edition"):
        bench_leg(preset)

    print(
        "\nplacement_evs(state, seat 0) at the start of a leg, uncached (one enumeration per "
        "legal placement)"
    )
    for preset in ("classic", "second_edition"):
        state = new_game(RuleSet(preset), seed=1)
        odds.placement_evs(state, 0)

        def place(state=state):
            odds.clear_cache()
            return odds.placement_evs(state, 0)

        t, evs = _best(place, 3)
        print(f"{preset:15s} {len(evs)} placements: {t * 1e3:7.1f} ms")

    print("\nrace_probabilities at the start of a game (new_game seed 1), uncached")
    print("| preset | n_samples | worst-case SE 0.5/sqrt(n) | largest SE seen | time |")
    print("|---|---:|---:|---:|---:|")
    for preset in ("classic", "second_edition"):
        state = new_game(RuleSet(preset), seed=1)
        odds.race_probabilities(state, 10)
        for n in (100, 1_000, 10_000, 100_000):

            def race(n=n, state=state):
                odds.clear_cache()
                return odds.race_probabilities(state, n, seed=7)

            t, r = _best(race, 5 if n <= 10_000 else 2)
            se = max(r.winner_se.max(), r.loser_se.max())
            print(f"| {preset} | {n:,} | {0.5 / np.sqrt(n):.4f} | {se:.4f} | {t * 1e3:.2f} ms |")

    print(
        "\nper call on 400 states of random 4-player classic games (uncached, best of 5 per "
        "state, then the mean); reveals left = min(pyramid tiles, dice) in the leg"
    )
    from camelup_env import apply_action, legal_action_indices

    rng = np.random.default_rng(123)
    states, game = [], 0
    while len(states) < 400:
        s = new_game(RuleSet("classic", num_players=4), seed=game)
        game += 1
        while not s.game_over and len(states) < 400:
            states.append(s)
            s, _ = apply_action(s, int(rng.choice(legal_action_indices(s))), rng)
    left = np.array([min(s.pyramid_tiles_left, len(s.pyramid)) for s in states])

    def per_state(fn):
        out = np.empty(len(states))
        for i, s in enumerate(states):
            out[i] = min(_best(lambda s=s: (odds.clear_cache(), fn(s)), 5)[0], 1.0)
        return out

    leg = per_state(odds.leg_rank_probabilities)
    race = per_state(lambda s: odds.race_probabilities(s, 200, seed=5))
    for label, sel in (("all", left >= 0), ("<= 2 left", left <= 2), (">= 4 left", left >= 4)):
        print(
            f"{label:10s} ({sel.sum():3d} states): leg_rank_probabilities "
            f"{leg[sel].mean() * 1e6:6.1f} us | race_probabilities(200) "
            f"{race[sel].mean() * 1e6:6.1f} us"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
