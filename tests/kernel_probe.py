"""Which kernels a workload compiles after its warm-up: ``python -m tests.kernel_probe WHAT``.

Run in a fresh process (a process that has called a kernel keeps it): the warm-up named by
``WHAT`` runs first, then the play it is meant to prepare; the output is one JSON object, each
kernel that gained argument types during the play with those types. A kernel found in numba's
disk cache counts as much as a compiled one (both add its types to the process), so the answer
does not depend on what the cache holds. ``tests/test_compile_kernels.py`` runs it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import numpy as np


def _bot_game(
    spec: str, preset: str, players: int, turns: int = 2000, **kwargs: object
) -> Callable[[], None]:
    """A bot's warm-up (as a tournament's bot process does it), then a game against random
    (its first ``turns`` turns)."""
    import agents
    from camelup_env.game.rules import RuleSet
    from camelup_env.game.setup import new_game
    from camelup_env.match import play_game
    from camelup_env.observation import public_view

    rules = RuleSet(preset, num_players=players)
    bot = agents.make(spec, **kwargs)
    bot.warmup(public_view(new_game(rules, seed=0), 0))

    def play() -> None:
        lineup = [bot, *(agents.make("random") for _ in range(players - 1))]
        play_game(rules, lineup, seed=5, max_turns=turns, catch=False)

    return play


def _installed() -> Callable[[], None]:
    """What ``make install`` compiles, then an evaluation on the batch core, the vector env and
    the single env of another preset than the one compiled."""
    from camelup_cli.compile_kernels import compile_all

    compile_all()

    def play() -> None:
        from camelup_env.envs.vector import SingleAgentVectorEnv
        from camelup_env.game.rules import RuleSet
        from tournament.batch_evaluate import evaluate_on_batch

        rules = RuleSet("second_edition", num_players=4)
        evaluate_on_batch("ppo:second4", "random", rules, 4, 0, 300)
        rng = np.random.default_rng(0)
        vector = SingleAgentVectorEnv(3, rules=rules)
        _, info = vector.reset(seed=0)
        for _ in range(30):
            mask = info["action_mask"]
            _, _, _, _, info = vector.step(
                np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
            )

    return play


WORKLOADS: dict[str, Callable[[], Callable[[], None]]] = {
    "greedy": lambda: _bot_game("greedy", "classic", 4),
    "ppo": lambda: _bot_game("ppo:classic4", "classic", 4),
    "rollout": lambda: _bot_game(
        "rollout:classic2", "classic", 2, 12, candidates=2, rollouts=2
    ),  # a dozen turns: the leg started, and each move plays games out to the end
    "installed": _installed,
}


def new_signatures(what: str) -> dict[str, list[str]]:
    """The kernels (and their new argument types) that the play of ``what`` called with types
    its warm-up had not."""
    from camelup_env import kernel_cache

    play = WORKLOADS[what]()
    before = kernel_cache.signatures()
    play()
    after = kernel_cache.signatures()
    return {
        k: sorted(v - before.get(k, set())) for k, v in after.items() if v - before.get(k, set())
    }


if __name__ == "__main__":
    print(json.dumps(new_signatures(sys.argv[1])))
