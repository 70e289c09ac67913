"""Afterstates on the batch core: what valuing every move's outcomes costs, and what self-play
with it makes an hour.

Three figures, measured in one run on the same machine:

* **rows/s (features and values)**: positions of ``--games`` random classic games side by
  side; each round lists every legal action's outcomes with their chances
  (:func:`camelup_env.batch.afterstates.afterstates`), observes each outcome row from the
  mover's seat (the inputs the learner reads by default: the raw ``camelup_v1`` observation,
  each seat's leg equity at the exact leg odds and its race cards at the race odds) and scores
  it with a value network of the learner's default shape and skip (numpy, one BLAS thread as
  bots run), then takes the expectation; outcome rows per second, the best of ``--rounds``
  rounds (the race odds of a position are remembered between rounds, as they are between a
  game's bets);
* **the baseline**: the batch core's uniformly random actions per second on the same games
  (``random_actions`` and ``step_unchecked``), the same rounds: the ratio says what the
  value of every outcome costs against playing the game at all;
* **self-play G games/h**: the learner itself (``camelup train --trainer afterstate`` at its
  default settings: features, values, the replay buffer and the updates included) for
  ``--self-play-games`` games from the deal, after a warm-up run, with ``--threads`` torch
  threads (2: the two cores), classic 4p; read from the run's own progress record.

Last line: ``afterstates: N rows/s (features and values) = X of the batch core's random
actions/s; self-play G games/h (classic 4p)``.

    OMP_NUM_THREADS=1 python benchmarks/afterstates.py

``--move-times`` measures instead what a move of the shipped ``afterstate:afterstate_classic4``
(or of ``--move-value``, e.g. ``standing``) costs at 1 and 2 plies (seat 0 of ``--move-games``
classic games of ``--move-players`` players, 4 by default, against random seats, the first
game a warm-up), against the limits 50 ms and 1 s (set for classic 4 players). A value
file plays on its own shortlist (``AfterstateNetwork.margin``) where it has one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# Run as a script, this file's own folder comes first on sys.path and its training.py would
# hide the package of that name: the repository comes first instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from agents.afterstate_network import AfterstateNetwork  # noqa: E402
from camelup_env import RuleSet  # noqa: E402
from camelup_env.batch import BatchGames, random_streams  # noqa: E402
from camelup_env.batch.afterstate_features import AfterstateFeatures  # noqa: E402
from camelup_env.batch.afterstates import afterstates  # noqa: E402
from training.afterstate.trainer import AfterstateConfig, train  # noqa: E402


def positions(rules: RuleSet, n: int, seed: int) -> BatchGames:
    """``n`` running games, each played at random for its own number of steps."""
    games = BatchGames(rules, n, seed=seed)
    streams = random_streams(n, seed + 1)
    rng = np.random.default_rng(seed)
    for step in range(60):
        actions = games.random_actions(streams)
        actions[rng.random(n) < step / 120] = -1  # games stop at different points
        games.step_unchecked(actions)
    return games.take(np.flatnonzero(~games.game_over))


def network(width: int, players: int, cfg: AfterstateConfig) -> AfterstateNetwork:
    """A network of the learner's default shape, inputs and skip (random weights)."""
    rng = np.random.default_rng(0)
    sizes = [width, *cfg.hidden, players]
    layers = tuple(
        (rng.normal(0, 0.05, (a, b)).astype(np.float32), np.zeros(b, np.float32))
        for a, b in itertools.pairwise(sizes)
    )
    mean, scale = np.zeros(width, np.float32), np.ones(width, np.float32)
    return AfterstateNetwork(
        "classic",
        players,
        cfg.observer,
        mean,
        scale,
        layers,
        cfg.leg_equity,
        cfg.race_equity,
        cfg.equity_weight,
    )


def value_rows(games: BatchGames, features: AfterstateFeatures, net: AfterstateNetwork) -> int:
    """One round: every outcome of every legal action, its inputs, valued and expected."""
    after = afterstates(games)
    viewers = games.current_player[after.game]
    running = np.flatnonzero(~after.ended)
    values = np.zeros((len(after), net.players))
    values[running] = net.chances(features.rows(after, running, viewers[running]))
    after.expect(values)
    return len(after)


def random_actions(games: BatchGames, streams: np.ndarray, steps: int) -> int:
    """``steps`` steps of uniformly random actions in every game (ended ones dealt again)."""
    for _ in range(steps):
        games.step_unchecked(games.random_actions(streams), autoreset=True)
    return steps * len(games)


def best_rate(work: list, rounds: int) -> float:
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        done = work[0]()
        best = max(best, done / (time.perf_counter() - start))
    return best


def self_play_rate(games: int, threads: int) -> float:
    """Games an hour of the learner's own run (``camelup train --trainer afterstate`` at its
    default settings, classic 4p) for ``games`` games from the deal, after a short warm-up
    run (torch and the kernels loaded); read from the run's own progress record."""
    with tempfile.TemporaryDirectory() as tmp:
        train(AfterstateConfig(out_dir=f"{tmp}/warm", total_games=50, threads=threads))
        train(AfterstateConfig(out_dir=f"{tmp}/run", total_games=games, threads=threads))
        progress = json.loads(Path(f"{tmp}/run/progress.json").read_text())
    return progress["games"] / progress["seconds"] * 3600


#: the move-time limits per ply, in seconds (the afterstate learner's targets)
LIMITS = {1: 0.05, 2: 1.0}


def move_times(
    games: int,
    value: str = "afterstate_classic4",
    plies: tuple[int, ...] = (1, 2),
    players: int = 4,
) -> None:
    """Median and 90th percentile of the moves of ``afterstate:value`` (the shipped classic
    4-player file by default) in classic games of ``players``, per ply."""
    import agents
    from camelup_env import legal_action_indices
    from camelup_env.game.engine import apply_action
    from camelup_env.game.setup import new_game
    from camelup_env.observation import public_view

    rules = RuleSet("classic", num_players=players)
    for ply in plies:
        limit = LIMITS[ply]
        agent = agents.make(f"afterstate:{value}", plies=ply)
        rng = np.random.default_rng(0)
        times: list[float] = []
        for game in range(games):
            state = new_game(rules, seed=50 + game)
            agent.reset(game)
            while not state.game_over:
                if state.current == 0:
                    start = time.perf_counter()
                    action = agent(None, public_view(state, 0))  # type: ignore[arg-type]
                    if game > 0:
                        times.append(time.perf_counter() - start)
                else:
                    action = int(rng.choice(legal_action_indices(state)))
                state, _ = apply_action(state, action, rng)
        median, p90 = np.median(times), np.percentile(times, 90)
        print(
            f"{ply}-ply move: median {median * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms "
            f"({len(times)} moves) = {median / limit:.2f} of the {limit * 1000:.0f} ms limit"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--self-play-games", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--move-times", action="store_true")
    parser.add_argument("--move-games", type=int, default=4)
    parser.add_argument("--move-value", default="afterstate_classic4", help="afterstate:VALUE")
    parser.add_argument("--move-plies", default="1,2", help="the plies to time, e.g. 1")
    parser.add_argument("--move-players", type=int, default=4, help="players of the games")
    args = parser.parse_args()
    if args.move_times:
        plies = tuple(int(p) for p in args.move_plies.split(","))
        if not set(plies) <= set(LIMITS):
            parser.error(f"--move-plies: each of {sorted(LIMITS)}, got {args.move_plies}")
        move_times(args.move_games, args.move_value, plies, args.move_players)
        return
    rules = RuleSet("classic", num_players=4)
    games = positions(rules, args.games, seed=0)
    cfg = AfterstateConfig()
    features = AfterstateFeatures(rules, cfg.observer, cfg.leg_equity, cfg.race_equity)
    net = network(features.size, rules.num_players, cfg)
    value_rows(games, features, net)  # compiled before timing
    rows = best_rate([lambda: value_rows(games, features, net)], args.rounds)
    board = games.copy()
    streams = random_streams(len(board), 9)
    random_actions(board, streams, 2)
    actions = best_rate([lambda: random_actions(board, streams, 50)], args.rounds)
    print(f"outcome rows per position: {value_rows(games, features, net) / len(games):.1f}")
    print(f"features and values: {rows:,.0f} rows/s; random actions: {actions:,.0f}/s")
    rate = self_play_rate(args.self_play_games, args.threads)
    print(
        f"afterstates: {rows:,.0f} rows/s (features and values) = {rows / actions:.4f} of the "
        f"batch core's random actions/s; self-play {rate:,.0f} games/h (classic 4p)"
    )


if __name__ == "__main__":
    main()
