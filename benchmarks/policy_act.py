"""Deciding with a loaded policy: ``PolicyAgent.act_batch`` against SB3's ``predict``, one run.

    python benchmarks/policy_act.py [--model agents/models/classic4.zip] [--batch 256]
                                    [--rounds 5]

Both sides use the same weights. The baseline is a ``MaskablePPO`` built with the file's network
(``predict`` with ``action_masks``, deterministic, the call ``PolicyAgent`` made before model
files were loaded safely). Two rows: one decision at a time (``act_batch`` on a batch of one,
which is what ``PolicyAgent.act`` does) and ``--batch`` decisions (``predict`` called once per
decision, against a single ``act_batch`` forward pass, as the training vector env uses it).
Observations and masks are random, since only the cost is measured here. The machine may be
shared, so the two sides are timed in alternation and each one's best round is kept.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.ppo import load_agent


def best(fn, rounds: int, number: int) -> float:
    """Seconds per call: the best of ``rounds`` rounds of ``number`` calls."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="agents/models/classic4.zip")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from camelup_env.envs.single_agent import SingleAgentEnv

    agent = load_agent(args.model)
    arch = agent.policy.net_arch
    baseline = MaskablePPO(
        "MlpPolicy",
        make_vec_env(
            lambda: SingleAgentEnv(rules=agent.rules, odds_features=agent.observer.odds_features)
        ),
        device="cpu",
        policy_kwargs={"net_arch": arch},
    )
    baseline.policy.load_state_dict(agent.policy.state_dict())
    rng = np.random.default_rng(0)
    n_actions = agent.policy.action_space.n
    obs = rng.random((args.batch, agent.observer.size), dtype=np.float32)
    masks = rng.random((args.batch, n_actions)) < 0.4
    masks[:, 0] = True
    expected = [
        int(baseline.predict(o, action_masks=m, deterministic=True)[0])
        for o, m in zip(obs, masks, strict=True)
    ]
    assert list(agent.act_batch(obs, masks)) == expected, "the two sides disagree"

    one_sb3 = one_own = many_sb3 = many_own = float("inf")
    for _ in range(args.rounds):  # alternate, so a busy moment hits both sides
        one_sb3 = min(
            one_sb3,
            best(
                lambda: baseline.predict(obs[0], action_masks=masks[0], deterministic=True), 1, 200
            ),
        )
        one_own = min(one_own, best(lambda: agent.act_batch(obs[:1], masks[:1]), 1, 200))
        many_sb3 = min(
            many_sb3,
            best(
                lambda: [
                    baseline.predict(o, action_masks=m, deterministic=True)
                    for o, m in zip(obs, masks, strict=True)
                ],
                1,
                1,
            ),
        )
        many_own = min(many_own, best(lambda: agent.act_batch(obs, masks), 1, 3))
    print(
        f"model {args.model}: {agent.observer.size} features, {n_actions} actions, net_arch {arch}"
    )
    print(f"{'decisions':>10} {'SB3 predict':>14} {'act_batch':>14} {'ratio':>7}")
    print(f"{1:>10} {one_sb3 * 1e6:>11.0f} us {one_own * 1e6:>11.0f} us {one_sb3 / one_own:>6.2f}x")
    print(
        f"{args.batch:>10} {many_sb3 * 1e3:>11.1f} ms {many_own * 1e3:>11.1f} ms "
        f"{many_sb3 / many_own:>6.1f}x"
    )


if __name__ == "__main__":
    main()
