"""A learned value of afterstates: every seat's chance to win, read from one seat's observation.

The afterstate player (:mod:`agents.afterstate`) compares the positions its moves lead to by
every seat's chance to win there. This network gives those chances: it reads the ``camelup_v1``
observation of a position **from the seat that is choosing** (its public view and its own cards:
another seat's race-card colours are never in it, R10) and gives one score per seat, in the
observation's relative order (slot 0 the viewer, then the others in turn order); a softmax over
the slots gives the chances. One network serves every seat, as the observation is relative.

With ``leg_equity`` the inputs also hold each seat's leg equity
(:mod:`camelup_env.batch.afterstate_features`; with ``race_equity`` each seat's counts its race
cards too, another seat's hidden ones by their expectation), and a non-zero ``equity_weight``
adds that equity, times the weight, straight to each seat's score: a skip past the layers, so
that a network whose last layer is still zero already ranks moves as the equity win model
(:mod:`camelup_env.odds.win`) does - a coin more is a better chance - and the layers learn only
what the next seats will take of it. With ``standing_skip`` the skip is the standing's
instead (:class:`agents.afterstate.StandingValue` by the mover's reading): each seat's score
adds to the log of its standing chance, so a last layer at zero plays as the standing and the
layers learn what it misses (:mod:`training.afterstate.standing_td`). With ``captures`` the
inputs also hold each seat's next capture. It is learned by :mod:`training.afterstate`
(self-play on the batch core with exact-expectation targets) and stored with
:mod:`camelup_env.odds.network_file` (plain arrays and a JSON header, nothing that runs);
its header says which rule set and player count it reads, with which observer settings
(:data:`camelup_env.odds.win_network.OBSERVER_KEYS`) and inputs, and how it was trained.
Inference is numpy: a bot needs no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from camelup_env.game.rules import RuleSet
from camelup_env.odds.network_file import forward, read_network, save_network, softmax
from camelup_env.odds.win_network import OBSERVER_KEYS

#: the header's ``kind``: a file of another kind of network is refused by name
KIND = "afterstate-value"
#: the floor under a standing chance before its log (a seat the standing gives no chance)
STANDING_FLOOR = 1e-6


@dataclass(frozen=True, eq=False)
class AfterstateNetwork:
    """Every seat's chance to win from one seat's observation (module docstring)."""

    preset: str
    players: int
    observer: dict[str, Any]
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    #: whether each seat's leg equity follows the observation in the inputs
    #: (:class:`camelup_env.batch.afterstate_features.AfterstateFeatures`)
    leg_equity: bool = False
    #: whether each seat's equity counts its race cards at the race odds too
    race_equity: bool = False
    #: each score's skip: this weight times the seat's leg-equity input (tens of coins off
    #: the seats' mean); 0 without one
    equity_weight: float = 0.0
    #: how the file was made (trainer settings, games seen): shown, never executed
    training: dict[str, Any] = field(default_factory=dict)
    #: whether the scores add to the log of the standing's chances (module docstring)
    standing_skip: bool = False
    #: whether each seat's next capture is among the inputs (before the leg equities)
    captures: bool = False
    #: the champion's shortlist the file plays on unless told otherwise (coins; None: every
    #: legal move): a file whose value ranks the champion's near-best moves better than it
    #: ranks them all carries the margin it was measured at (agents.afterstate)
    margin: float | None = None

    def chances(self, obs: np.ndarray, standing: np.ndarray | None = None) -> np.ndarray:
        """``(B, players)`` chances to win, slot ``k`` the seat ``k`` places after the
        viewer, of observations ``(B, F)`` (each row from its viewer's seat); with
        ``standing_skip``, ``standing`` holds the rows' standing chances in the same order."""
        scores = forward(obs, self.mean, self.scale, self.layers)
        if self.equity_weight:
            scores = scores + self.equity_weight * np.asarray(obs, np.float32)[:, -self.players :]
        if self.standing_skip:
            if standing is None:
                raise ValueError("this network adds to the standing's chances: give them")
            scores = scores + np.log(np.asarray(standing, np.float32) + STANDING_FLOOR)
        return softmax(scores)

    def check_rules(self, rules: RuleSet) -> None:
        if rules.preset != self.preset or rules.num_players != self.players:
            raise ValueError(
                f"this afterstate network reads {self.preset} games of {self.players} "
                f"players, not {rules.preset} of {rules.num_players}"
            )


def save_afterstate_network(
    path: Path,
    network: AfterstateNetwork,
) -> None:
    """Write ``network`` to ``path`` (:func:`load_afterstate_network` reads it back)."""
    meta = {
        "kind": KIND,
        "preset": network.preset,
        "players": network.players,
        "observer": network.observer,
        "leg_equity": network.leg_equity,
        "race_equity": network.race_equity,
        "equity_weight": network.equity_weight,
        "training": network.training,
        "standing_skip": network.standing_skip,
        "captures": network.captures,
        "margin": network.margin,
    }
    save_network(path, meta, network.mean, network.scale, network.layers)


def load_afterstate_network(path: Path) -> AfterstateNetwork:
    """An :class:`AfterstateNetwork` from ``path``, checked; a one-line ValueError naming the
    file and what is wrong otherwise. Plain arrays only: a file cannot run code."""
    meta, mean, scale, layers = read_network(path, "an afterstate-network")
    if not (
        meta is not None
        and meta.get("kind") == KIND
        and isinstance(meta.get("preset"), str)
        and isinstance(meta.get("players"), int)
        and isinstance(meta.get("observer"), dict)
        and set(meta["observer"]) == set(OBSERVER_KEYS)
        and isinstance(meta.get("training", {}), dict)
        and isinstance(meta.get("leg_equity", False), bool)
        and isinstance(meta.get("race_equity", False), bool)
        and (meta.get("leg_equity", False) or not meta.get("race_equity", False))
        and isinstance(meta.get("equity_weight", 0.0), float)
        and np.isfinite(meta.get("equity_weight", 0.0))
        and (meta.get("leg_equity", False) or not meta.get("equity_weight", 0.0))
        and isinstance(meta.get("standing_skip", False), bool)
        and isinstance(meta.get("captures", False), bool)
        and not (meta.get("standing_skip", False) and meta.get("equity_weight", 0.0))
        and _is_margin(meta.get("margin"))
    ):
        raise ValueError(
            f"{path}: meta must be JSON with kind {KIND!r}, preset, players and observer "
            f"({', '.join(OBSERVER_KEYS)}); race_equity and a finite equity_weight only "
            "with leg_equity, not both an equity_weight and standing_skip; a margin null or a "
            "finite number of coins >= 0"
        )
    width = layers[-1][0].shape[1]
    if width != meta["players"]:
        raise ValueError(
            f"{path}: the last layer must give one score per seat ({meta['players']}), not {width}"
        )
    return AfterstateNetwork(
        meta["preset"],
        meta["players"],
        meta["observer"],
        mean,
        scale,
        layers,
        meta.get("leg_equity", False),
        meta.get("race_equity", False),
        meta.get("equity_weight", 0.0),
        meta.get("training", {}),
        meta.get("standing_skip", False),
        meta.get("captures", False),
        None if meta.get("margin") is None else float(meta["margin"]),
    )


def _is_margin(margin: object) -> bool:
    return margin is None or (
        isinstance(margin, int | float)
        and not isinstance(margin, bool)
        and bool(np.isfinite(margin))
        and margin >= 0
    )


def relative_to_seats(chances: np.ndarray, viewers: np.ndarray | Sequence[int]) -> np.ndarray:
    """Rows of chances in relative order (slot ``k``: ``k`` seats after the row's viewer)
    rearranged into seat order."""
    chances = np.asarray(chances)
    n = chances.shape[1]
    seats = (np.asarray(viewers)[:, None] + np.arange(n)) % n
    out = np.empty_like(chances)
    np.put_along_axis(out, seats, chances, axis=1)
    return out


def seats_to_relative(values: np.ndarray, viewers: np.ndarray | Sequence[int]) -> np.ndarray:
    """Rows in seat order rearranged into each row's viewer's relative order."""
    values = np.asarray(values)
    n = values.shape[1]
    seats = (np.asarray(viewers)[:, None] + np.arange(n)) % n
    return np.take_along_axis(values, seats, axis=1)
