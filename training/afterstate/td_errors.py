"""A value's one-step errors on a table's games, by the kind of move each row is the outcome of.

``python -m training.afterstate.td_errors CONFIG [--value FILE] [--steps 120]``

The games are the config's (its ``opponent_mix``: ``{champion: 1.0}`` is four champions'
play), the value the run's start or ``--value`` (a snapshot of a run with the config's inputs
and layers). Each row waits for the next mover's choice, as in training; its error is the
trainer's TD(0) target (that choice's outcomes in exact expectation, judged by the row's own
seat) less the value's chance for that seat now. Nothing is learned. Grouped by the kind of
the move whose outcome the row is, a mean error away from zero is a bias the learning will
move: the start's equity overrates the position after a roll, for one (docs/afterstate.md,
"Where the targets stand"). Under a fixed table a value that fits its games has mean errors
near zero in every group that its inputs tell apart.

Without ``all_views`` every training row has the seat after its viewer on move and every
target reads a position with the seat after that on move, an input the value never trained on
(``all_views`` trains every seat's view). The last line says how far the value's chance moves
on that alone (``is_current`` moved on, nothing else changed).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import numpy as np
import torch

from agents.afterstate_network import seats_to_relative
from camelup_config import ConfigError, load_config
from camelup_env.game.actions import action_table
from training.afterstate.trainer import AfterstateConfig, SelfPlay
from training.afterstate.value import new_value, start_from

#: the key of :func:`td_errors`' rows: how far the value's own-seat chance moves when only the
#: seat on move does, one seat further (from a mover's row to its target's input, without
#: ``all_views``)
TURN = "turn moved on"


def td_errors(cfg: AfterstateConfig, steps: int, first_seed: int = 0) -> dict[str, np.ndarray]:
    """Each row's error (target less value, for the row's own seat) over ``steps`` decisions
    of ``cfg.games`` games, by the class name of the action the row is an outcome of, and
    under :data:`TURN` each row's change of chance with the turn moved on; the value starts
    from ``cfg.init_from`` when it is set."""
    net, features = new_value(cfg)
    first, last = features.batch_observer.layout["is_current"]
    if cfg.init_from is not None:
        start_from(net, cfg)
    play = SelfPlay(cfg, net, first_seed=first_seed)
    kinds = [type(a).__name__ for a in action_table(play.rules).actions]
    errors: dict[str, list[float]] = defaultdict(list)

    def record(
        rows: np.ndarray, viewers: np.ndarray, actions: np.ndarray, worth: np.ndarray
    ) -> None:
        with torch.no_grad():
            now = torch.softmax(net(torch.from_numpy(rows)), dim=1).numpy()[:, 0]
        target = seats_to_relative(worth, viewers)[:, 0]
        for kind, error in zip(actions.tolist(), (target - now).tolist(), strict=True):
            if kind >= 0:  # a row of a game's first move has its action
                errors[kinds[kind]].append(error)
        on = rows[:, first:last].argmax(axis=1)
        moved = rows.copy()
        moved[:, first:last] = 0.0
        moved[np.arange(len(rows)), first + (on + 1) % (last - first)] = 1.0
        with torch.no_grad():
            then = torch.softmax(net(torch.from_numpy(moved)), dim=1).numpy()[:, 0]
        errors[TURN].extend((then - now).tolist())

    play.on_targets = record
    for _ in range(steps):
        play.step()
    return {k: np.array(v) for k, v in sorted(errors.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="an afterstate config (its table, inputs and layers)")
    parser.add_argument("--value", help="a value file of that config (default: its start)")
    parser.add_argument("--steps", type=int, default=120, help="decisions of every game")
    parser.add_argument("--games", type=int, default=64, help="games side by side")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.games < 1:
        parser.error("--steps and --games must be >= 1")
    overrides = {"games": args.games, "init_from": args.value}
    try:
        cfg = load_config(AfterstateConfig, args.config, overrides)
        cfg.check()
        errors = td_errors(cfg, args.steps)
    except (ConfigError, OSError) as exc:
        print(f"td_errors: error: {exc}", file=sys.stderr)
        return 2
    turn = errors.pop(TURN)
    for kind, err in errors.items():
        half = 2 * err.std() / np.sqrt(len(err))
        print(f"{kind:16s} {len(err):6d} rows  mean error {err.mean():+.4f} ± {half:.4f}")
    print(
        f"{TURN}: the own chance moves by {np.abs(turn).mean():.4f} on average "
        f"({turn.mean():+.4f} in the mean) with the seat on move one further from the viewer"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
