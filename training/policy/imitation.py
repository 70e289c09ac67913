"""Imitation warm start: teach the PPO policy a scripted teacher's moves before self-play.

PPO from a uniform policy spends its first hundreds of thousands of steps discovering what any
baseline already knows (take good leg bets, take pyramid tiles, do not burn race cards). On these
machines that is most of a run (see ``results/models/README.md``). So, optionally, the run starts
by playing ``imitation_games`` games of the teacher against itself, recording at every decision
the acting seat's observation (with the learner's own observation settings), its action mask,
the teacher's move, and the return that seat went on to get (final reward of ``reward_mode`` plus
the coin shaping still to come). The policy is then fitted to the moves (masked cross-entropy)
and the value head to the returns (squared error), and PPO continues from there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import agents
from camelup_env.game.engine import apply_action
from camelup_env.game.legality import legal_action_mask
from camelup_env.game.rewards import final_rewards
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.observation import LazyObservation, Observer, public_view


def known_observation(mask: np.ndarray, features: np.ndarray) -> LazyObservation:
    """The observation dict of a bot's decision whose features are computed already."""
    return LazyObservation(mask, lambda: features)


def collect_demonstrations(
    rules: RuleSet,
    observer: Observer,
    teacher: str,
    games: int,
    seed: int,
    reward_mode: str,
    coin_shaping: float,
    value_of: Callable[[GameState, int], float] | None = None,
) -> dict[str, np.ndarray]:
    """Observations, masks, teacher actions and returns of ``games`` teacher self-play games;
    with ``value_of``, also ``targets``: ``value_of(state, seat)`` at each decision (the value
    warm start's, :mod:`training.policy.value_warmup`)."""
    bot = agents.make(teacher)
    rng = np.random.default_rng(seed)
    obs, masks, actions, returns, targets = [], [], [], [], []
    for g in range(games):
        bot.reset(seed + g)  # a seeded bot (random) draws the same moves on every run
        state = new_game(rules, seed=rng)
        records: list[tuple[int, int]] = []  # (seat, coins before the move)
        while not state.game_over:
            seat = state.current
            mask = legal_action_mask(state)
            features = observer.observe(state, seat)
            action = int(bot(known_observation(mask.copy(), features), public_view(state, seat)))
            obs.append(features)
            if value_of is not None:
                targets.append(value_of(state, seat))
            masks.append(mask.astype(bool))
            actions.append(action)
            records.append((seat, state.coins[seat]))
            state, _ = apply_action(state, action, rng)
        final = final_rewards(state.coins, reward_mode)
        returns += [
            final[seat] + coin_shaping * (state.coins[seat] - coins) for seat, coins in records
        ]
    out = {
        "obs": np.asarray(obs, dtype=np.float32),
        "masks": np.asarray(masks),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
    }
    if value_of is not None:
        out["targets"] = np.asarray(targets, dtype=np.float32)
    return out


def pretrain(
    model, data: dict[str, np.ndarray], epochs: int, batch_size: int, seed: int, lr: float = 1e-3
) -> dict[str, float]:
    """Fit ``model.policy`` to the demonstrations; returns the final accuracy and losses."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    n = len(data["actions"])
    rng = np.random.default_rng(seed)
    tensors = {k: torch.as_tensor(v) for k, v in data.items()}
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(
                tensors["obs"][idx], tensors["actions"][idx], action_masks=tensors["masks"][idx]
            )
            loss = (
                -log_prob.mean() + 0.5 * ((values.flatten() - tensors["returns"][idx]) ** 2).mean()
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        dist = policy.get_distribution(tensors["obs"], action_masks=data["masks"])
        chosen = dist.distribution.probs.argmax(dim=1)
        accuracy = float((chosen == tensors["actions"]).float().mean())
        values = policy.predict_values(tensors["obs"]).flatten()
        value_mse = float(((values - tensors["returns"]) ** 2).mean())
    return {"samples": float(n), "accuracy": accuracy, "value_mse": value_mse}
