"""Luck: the part of a game's result that the dice decided, measured exactly and taken out.

Camel Up's only chance is the deal (R2.1, R2.2, R14.1) and the dice drawn from the pyramid
(R4.1: which die, then its face; a crazy camel's grey die is one of them, R5.5). The engine
knows the exact distribution of each (:func:`~camelup_env.game.setup.setup_outcomes`,
:func:`~camelup_env.game.engine.chance_outcomes`), so given any estimate ``V(state)`` of every
seat's
win share, the luck of one chance event is

    c = V(state after the event) - E_o[ V(state after outcome o) ],

the expectation taken over the event's exact outcome distribution. A seat's *luck-adjusted*
result is its result minus the sum of its ``c`` over the game's chance events (control variates
in the manner of AIVAT). Each ``c`` has mean zero given everything before it, so the adjusted
result has the same expectation as the raw one whatever ``V`` is: a poor ``V`` cannot bias an
evaluation, only fail to narrow it. With a ``V`` equal to the true win probability under the
players' policies, and deterministic players, the adjusted result is the same in every game.

``V`` may read the whole state, hidden race bets included: the referee computes the corrections,
no player sees them. Finished states are valued by their actual win shares (R7.3), so the last
roll's correction is exact whatever ``V`` says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from camelup_env.game.actions import Action, TakePyramidTile
from camelup_env.game.engine import DieRoll, apply_outcome, chance_outcomes, to_action, winners
from camelup_env.game.events import DieRevealed, Event
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import setup_outcomes
from camelup_env.game.state import GameState

#: every seat's estimated win share in each state: ``(len(states), num_players)``
ValueFn = Callable[[Sequence[GameState]], np.ndarray]


def win_shares(state: GameState) -> np.ndarray:
    """Each seat's share of the win of a finished game: ``1/k`` for each of ``k`` tied
    winners (R7.3), 0 for the others."""
    out = np.zeros(state.rules.num_players)
    best = winners(state)
    out[list(best)] = 1.0 / len(best)
    return out


def values(states: Sequence[GameState], value: ValueFn) -> np.ndarray:
    """``value`` on the states still running, the actual win shares on the finished ones."""
    out = np.empty((len(states), states[0].rules.num_players))
    running = [i for i, s in enumerate(states) if not s.game_over]
    for i, s in enumerate(states):
        if s.game_over:
            out[i] = win_shares(s)
    if running:
        out[running] = np.asarray(value([states[i] for i in running]), dtype=float)
    return out


def roll_luck(state: GameState, roll: DieRoll, value: ValueFn) -> np.ndarray:
    """Each seat's luck when taking a pyramid tile in ``state`` shows ``roll``:
    ``V(after roll) - E[V(after)]`` over every roll possible now."""
    outcomes = chance_outcomes(state, TakePyramidTile())
    after = [apply_outcome(state, TakePyramidTile(), o)[0] for o, _ in outcomes]
    v = values(after, value)
    p = np.array([float(q) for _, q in outcomes])
    realized = next(i for i, (o, _) in enumerate(outcomes) if o == roll)
    return v[realized] - p @ v


def setup_mean(rules: RuleSet, value: ValueFn, first_player: int = 0) -> np.ndarray:
    """``E[V(deal)]`` over every deal of ``rules`` (exact: all of them, weighted). It depends
    only on the rules and ``V``: compute it once and pass it to every game's ledger."""
    deals = setup_outcomes(rules, first_player)
    p = np.array([float(q) for _, q in deals])
    return p @ values([s for s, _ in deals], value)


class LuckLedger:
    """The luck of one game, event by event: feed it the deal and each move as a game loop
    makes them (the hooks of :func:`camelup_env.match.run_game` fit), then subtract
    :attr:`total` from the seats' results.

    ``deal_mean`` is :func:`setup_mean` of the same rules and ``V``; without it the deal is
    not corrected (its luck then stays in the result, still unbiased)."""

    def __init__(self, value: ValueFn, deal_mean: np.ndarray | None = None) -> None:
        self.value = value
        self.deal_mean = deal_mean
        self.total: np.ndarray | None = None
        self.trace: list[np.ndarray] = []  # each chance event's luck, in order
        self._state: GameState | None = None

    def deal(self, state: GameState) -> None:
        """The game starts from ``state``."""
        self.total = np.zeros(state.rules.num_players)
        self._state = state
        if self.deal_mean is not None:
            self._add(values([state], self.value)[0] - self.deal_mean)

    def step(self, state: GameState, action: Action | int, events: Sequence[Event]) -> None:
        """``action`` was taken and led to ``state`` with ``events``."""
        before = self._state
        if before is None:
            raise RuntimeError("LuckLedger.step before LuckLedger.deal")
        if isinstance(to_action(before, action), TakePyramidTile):
            shown = next(e for e in events if isinstance(e, DieRevealed))
            self._add(
                roll_luck(before, DieRoll(shown.die, shown.camel_shown, shown.value), self.value)
            )
        self._state = state

    def _add(self, luck: np.ndarray) -> None:
        assert self.total is not None
        self.trace.append(luck)
        self.total = self.total + luck


def coin_leader(states: Sequence[GameState]) -> np.ndarray:
    """The simplest ``V``: the game shared among the seats with the most coins now, as if the
    race ended here. A baseline for the win-probability model, and enough to take the luck of
    the coins each roll pays at once out of a result."""
    return np.stack([_leaders(s) for s in states])


def _leaders(state: GameState) -> np.ndarray:
    coins = np.asarray(state.coins)
    top = coins == coins.max()
    return top / top.sum()
