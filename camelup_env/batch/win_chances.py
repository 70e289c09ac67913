"""The win network's chances of engine states, and the luck covariates that count them.

The network (:mod:`camelup_env.odds.win_network`) reads every seat's ``camelup_v1``
observation; the odds floor cannot make observations, so its chances of a state are read here,
on the batch core: the states become a batch (:meth:`BatchGames.from_states`), the
:class:`~camelup_env.batch.observe.BatchObserver` observes each from every seat - the same rows
the network was trained on - and the network scores them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from camelup_env.batch.games import BatchGames
from camelup_env.batch.observe import BatchObserver
from camelup_env.game.state import GameState
from camelup_env.odds.luck import CovariateFn, values
from camelup_env.odds.win import WinModel
from camelup_env.odds.win_network import WinNetwork

#: one observer per rule set and observer settings (its odds memo serves one caller at a time)
_observers: dict[tuple[object, tuple], BatchObserver] = {}


def seat_observations(states: Sequence[GameState], observer: dict[str, Any]) -> np.ndarray:
    """Every seat's observation of each state by a :class:`BatchObserver` of the settings
    ``observer``, ``(len(states), seats, F)``: the rows the win network reads, of engine
    states (the network's exact-bot games are played on the engine)."""
    rules = states[0].rules
    key = (rules, tuple(sorted(observer.items())))
    batch_observer = _observers.get(key)
    if batch_observer is None:
        batch_observer = _observers[key] = BatchObserver(rules, **observer)
    games = BatchGames.from_states(states)
    return np.stack(
        [batch_observer.observe(games, seat) for seat in range(rules.num_players)], axis=1
    )


def network_observations(network: WinNetwork, states: Sequence[GameState]) -> np.ndarray:
    """Every seat's observation of each state as ``network`` reads it,
    ``(len(states), seats, F)``."""
    network.check_rules(states[0].rules)
    return seat_observations(states, network.observer)


def network_chances(network: WinNetwork, states: Sequence[GameState]) -> np.ndarray:
    """The network's chance of each seat to win each state, ``(len(states), seats)``."""
    return network.probabilities(network_observations(network, states))


def luck_covariates(model: WinModel) -> CovariateFn:
    """The model's luck covariates (:meth:`WinModel.covariates`), then its network's chances
    less the seats' mean where it has a network (a finished game's: its win shares), in the
    order of :attr:`WinModel.covariate_names`."""
    network = model.network
    if network is None:
        return model.covariates

    def covariates(states: Sequence[GameState]) -> np.ndarray:
        chances = values(states, lambda running: network_chances(network, running))
        chances -= chances.mean(axis=1, keepdims=True)
        return np.concatenate([model.covariates(states), chances[:, None]], axis=1)

    return covariates
