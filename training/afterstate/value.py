"""The afterstate value as torch trains it: the network, its start, and the file it becomes.

Both ways of learning an afterstate value share it: self-play with exact-expectation targets
(:mod:`training.afterstate.trainer`) and the fit to the standing's chances
(:mod:`training.afterstate.standing_copy`). The file is
:class:`agents.afterstate_network.AfterstateNetwork`, which plays without torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from agents.afterstate_network import AfterstateNetwork, load_afterstate_network
from camelup_config import ConfigError
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.game.rules import RuleSet


class ValueSettings(Protocol):
    """The settings of a run's value: its game, its inputs and its layers."""

    name: str
    preset: str
    num_players: int
    seed: int
    hidden: list[int]
    leg_equity: bool
    race_equity: bool

    @property
    def equity_weight(self) -> float: ...

    @property
    def init_from(self) -> str | None: ...

    @property
    def observer(self) -> dict[str, Any]: ...


def check_value_settings(cfg: ValueSettings) -> None:
    """The checks every afterstate run's value settings take, each a one-line ConfigError:
    a rule set of the batch core (its afterstates), inputs that exist, layers."""
    rules = RuleSet(cfg.preset, num_players=cfg.num_players)  # its own clear errors
    if rules.preset not in ("classic", "second_edition"):
        raise ConfigError(f"afterstates are the batch core's, not {cfg.preset}'s")
    if (cfg.equity_weight or cfg.race_equity) and not cfg.leg_equity:
        raise ConfigError(
            "equity_weight and race_equity need leg_equity: they read the leg equities"
        )
    if not cfg.hidden or min(cfg.hidden) < 1:
        raise ConfigError(f"hidden must list positive layer widths, got {cfg.hidden}")


def value_network(inputs: int, hidden: list[int], players: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, players))
    return nn.Sequential(*layers)


class Value(nn.Module):
    """Scores per relative seat of raw input rows: the inputs' fixed scaling (the ``mean`` and
    ``scale`` the file records), the layers, and with ``equity_weight`` the skip of
    :class:`agents.afterstate_network.AfterstateNetwork` (the last layer then starts at zero:
    the first scores are the skip's alone)."""

    def __init__(
        self,
        layers: nn.Sequential,
        mean: np.ndarray,
        scale: np.ndarray,
        players: int,
        equity_weight: float,
    ) -> None:
        super().__init__()
        self.layers = layers
        self.mean = torch.from_numpy(mean)
        self.scale = torch.from_numpy(scale)
        self.players = players
        self.skip = equity_weight != 0.0
        self.equity_weight = nn.Parameter(torch.tensor(float(equity_weight)))
        self.equity_weight.requires_grad_(self.skip)
        if self.skip:
            last = layers[-1]
            assert isinstance(last, nn.Linear)
            with torch.no_grad():
                last.weight.zero_()
                last.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.layers((x - self.mean) / self.scale)
        if self.skip:
            scores = scores + self.equity_weight * x[:, -self.players :]
        return scores


def exported(
    value: Value,
    cfg: ValueSettings,
    games: int,
    trainer: str = "afterstate",
    standing_skip: bool = False,
    captures: bool = False,
    played_by: str | None = None,
) -> AfterstateNetwork:
    """The torch network as the numpy file the agent plays; ``trainer`` and ``games`` (the
    games it learned from, and who ``played_by`` them where bots did) go into its header,
    with its skip (the standing's where ``standing_skip``) and whether it reads the next
    captures."""
    linear = [m for m in value.layers if isinstance(m, nn.Linear)]
    layers = tuple(
        (m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear
    )
    training = {"trainer": trainer, "name": cfg.name, "games": games, "seed": cfg.seed}
    if played_by is not None:
        training["played_by"] = played_by
    return AfterstateNetwork(
        cfg.preset,
        cfg.num_players,
        cfg.observer,
        value.mean.numpy(),
        value.scale.numpy(),
        layers,
        cfg.leg_equity,
        cfg.race_equity,
        float(value.equity_weight.item()) if value.skip else 0.0,
        training,
        standing_skip,
        captures,
    )


def new_value(cfg: ValueSettings, captures: bool = False) -> tuple[Value, AfterstateFeatures]:
    """The run's value at its start (the skip's alone where ``equity_weight`` is set) and the
    inputs it reads (with the next captures where ``captures``)."""
    rules = RuleSet(cfg.preset, num_players=cfg.num_players)
    features = AfterstateFeatures(rules, cfg.observer, cfg.leg_equity, cfg.race_equity, captures)
    # Every input is bounded (the observation's low/high, the equities' range): into [-1, 1].
    low, high = features.bounds()
    mean = ((low + high) / 2).astype(np.float32)
    scale = np.maximum((high - low) / 2, 1e-6).astype(np.float32)
    layers = value_network(features.size, cfg.hidden, cfg.num_players)
    return Value(layers, mean, scale, cfg.num_players, cfg.equity_weight), features


def start_from(net: Value, cfg: ValueSettings) -> None:
    """``net``'s weights from the value file ``cfg.init_from``, which must read this run's
    game and inputs with this run's layers; a one-line ConfigError otherwise."""
    path = Path(str(cfg.init_from))
    try:
        start = load_afterstate_network(path)
        start.check_rules(RuleSet(cfg.preset, num_players=cfg.num_players))
    except ValueError as exc:
        raise ConfigError(f"init_from: {exc}") from None
    linear = [m for m in net.layers if isinstance(m, nn.Linear)]
    shapes = [tuple(m.weight.shape[::-1]) for m in linear]
    same = (
        start.observer == cfg.observer
        and start.leg_equity == cfg.leg_equity
        and start.race_equity == cfg.race_equity
        and [w.shape for w, _ in start.layers] == shapes
        and np.array_equal(start.mean, net.mean.numpy())
        and np.array_equal(start.scale, net.scale.numpy())
    )
    if not same:
        raise ConfigError(
            f"init_from: {path} reads other inputs or has other layers than this run "
            f"({[w.shape for w, _ in start.layers]} against {shapes})"
        )
    with torch.no_grad():
        for m, (w, b) in zip(linear, start.layers, strict=True):
            m.weight.copy_(torch.from_numpy(w.T))
            m.bias.copy_(torch.from_numpy(b))
        if net.skip:
            net.equity_weight.fill_(start.equity_weight or cfg.equity_weight)
