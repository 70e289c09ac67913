"""Value warm start: the critic fitted to the win-probability model before PPO.

At four players most of a return is dice (``docs/luck.md``): a critic fitted to returns, as the
imitation warm start and PPO fit it, learns slowly and explains a third of them. The
win-probability model (:mod:`camelup_env.odds.win`) already says what a position is worth with
the dice averaged out, so ``value_warmup_games`` starts the critic from it: games of the
``imitation_teacher`` against itself are played, at every decision the acting seat's
observation is recorded with its **expected return** by the model - the terminal reward of the
run's ``reward_mode`` at the seats' equities blurred by what is left to play, plus the coin
shaping still expected (:func:`camelup_env.batch.roll_luck.worth`, the same ``W`` the luck
correction uses, less the coins the seat holds now) - and the value head alone (its layers and
output, not the policy's) is fitted to it by squared error. The policy is left as it was
(``init_from``'s, the imitation's or a new one).

The model values the acting seat's public view (R10: other seats' race cards on the piles
hidden, their camels drawn as :mod:`camelup_env.odds.win` says), what that seat's observation
holds, so the critic is not asked for what it cannot see. What the fit reached is
reported on the positions it was fitted on: the squared error to the model, and how much of
the returns the seats then got each critic explains (before and after the fit).
"""

from __future__ import annotations

import numpy as np

from camelup_env.batch.roll_luck import worth
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.observation import Observer, public_view
from camelup_env.odds.win import equity, load_win_model, progress
from training.policy.imitation import collect_demonstrations


def collect_value_targets(
    rules: RuleSet,
    observer: Observer,
    teacher: str,
    games: int,
    seed: int,
    episode: EpisodeSettings,
) -> dict[str, np.ndarray]:
    """Observations of each acting seat in ``games`` teacher self-play games (the imitation's
    own, :func:`training.policy.imitation.collect_demonstrations`), with the model's expected return
    (``targets``) and the return the seat then got (``returns``)."""
    model = load_win_model(rules)  # ValueError where the preset has none

    def expected_return(state: GameState, seat: int) -> float:
        view = public_view(state, seat)  # what the critic can know (R10)
        w = worth(equity(view), np.array(False), progress(view), episode, model)
        return float(w[seat] - episode.coin_shaping * state.coins[seat])

    return collect_demonstrations(
        rules,
        observer,
        teacher,
        games,
        seed,
        episode.reward_mode,
        episode.coin_shaping,
        value_of=expected_return,
    )


def explained(values: np.ndarray, returns: np.ndarray) -> float:
    """The share of the returns' variance the values explain (SB3's ``explained_variance``)."""
    spread = float(np.var(returns))
    return float("nan") if spread == 0 else 1.0 - float(np.var(returns - values)) / spread


def critic_values(model, obs: np.ndarray) -> np.ndarray:
    """``model.policy``'s value of each observation (no gradient)."""
    import torch

    with torch.no_grad():
        return model.policy.predict_values(torch.as_tensor(obs)).flatten().numpy()


def fit_value_head(
    model, data: dict[str, np.ndarray], epochs: int, batch_size: int, seed: int, lr: float = 1e-3
) -> dict[str, float]:
    """Fit ``model.policy``'s value head (its own layers and output) to ``data["targets"]``;
    the policy's layers are not touched. Returns what the fit reached (module docstring)."""
    import torch

    policy = model.policy
    head = [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()]
    optimizer = torch.optim.Adam(head, lr=lr)
    obs = torch.as_tensor(data["obs"])
    targets = torch.as_tensor(data["targets"])
    before = critic_values(model, data["obs"])
    rng = np.random.default_rng(seed)
    n = len(targets)
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            loss = ((policy.predict_values(obs[idx]).flatten() - targets[idx]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    after = critic_values(model, data["obs"])
    returns = data["returns"]
    return {
        "samples": float(n),
        "target_mse": float(np.mean((after - data["targets"]) ** 2)),
        "returns_explained_before": explained(before, returns),
        "returns_explained_after": explained(after, returns),
        "model_explains_returns": explained(data["targets"], returns),
    }
