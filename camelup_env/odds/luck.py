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

**Shares.** A real ``V`` overstates how far an early roll moves the chance to win, so each roll's
``c`` may be multiplied by a share ``k(g)`` of its *group* ``g``: the leg (1, 2, 3, later) and the
pyramid tiles left when the die is drawn (:func:`luck_group`). The group is known before the
roll, so ``k(g) c`` keeps mean zero and the adjusted result stays unbiased for any fixed table;
fitted on other games (:mod:`training.odds.luck_shares`) it leaves less of the result's variance
than the whole correction does.

**Covariates.** Any other statistic ``u(state)`` of the seats gives a correction of the same
form, ``u(after) - E_o[u(after o)]``, with mean zero for the same reason. A ledger may be given
a few (``covariates``: the win model's, :meth:`camelup_env.odds.win.WinModel.covariates`) and a
fixed weight for each per leg (``weights``): each roll's correction is then its share of ``V``'s
luck plus the weighted luck of the covariates. They carry what ``V``'s single number cannot:
the leg's and the race's coins apart, and the bets the next seats are about to take.
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
#: statistics of every seat whose luck each roll also measures: ``(len(states), k, players)``
CovariateFn = Callable[[Sequence[GameState]], np.ndarray]
#: the legs a share table (and a covariate weight table) tells apart: 1, 2, 3 and every later one
SHARE_LEGS = 4


def luck_group(state: GameState, tiles: int) -> tuple[int, int]:
    """The group of a roll drawn in ``state`` in a share table ``tiles`` columns wide: the leg
    (row: 1, 2, 3, later) and the pyramid tiles left before the draw (column ``k - 1`` for
    ``k`` left; more than ``tiles`` left share the last column). Read before the die is drawn,
    so a share of it never depends on the outcome."""
    return min(state.leg, SHARE_LEGS) - 1, min(state.pyramid_tiles_left, tiles) - 1


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


def roll_outcomes(state: GameState, roll: DieRoll) -> tuple[list[GameState], np.ndarray, int]:
    """Every state a pyramid tile taken in ``state`` can lead to, their exact probabilities,
    and which of them ``roll`` is."""
    outcomes = chance_outcomes(state, TakePyramidTile())
    after = [apply_outcome(state, TakePyramidTile(), o)[0] for o, _ in outcomes]
    realized = next(i for i, (o, _) in enumerate(outcomes) if o == roll)
    return after, np.array([float(q) for _, q in outcomes]), realized


def roll_luck(state: GameState, roll: DieRoll, value: ValueFn) -> np.ndarray:
    """Each seat's luck when taking a pyramid tile in ``state`` shows ``roll``:
    ``V(after roll) - E[V(after)]`` over every roll possible now."""
    after, p, realized = roll_outcomes(state, roll)
    return _luck(values(after, value), p, realized)


def _luck(u: np.ndarray, p: np.ndarray, realized: int) -> np.ndarray:
    """The one home of the correction's formula: ``u`` of the outcome rolled less its
    expectation over every outcome (``u``'s first axis, ``p`` their probabilities)."""
    return u[realized] - np.tensordot(p, u, axes=1)


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
    not corrected (its luck then stays in the result, still unbiased). ``shares``, a
    ``(SHARE_LEGS, tiles)`` table, scales each roll's luck by its group's share (module
    docstring); without it every roll counts whole. ``covariates`` adds their luck, each
    weighted by its leg's row of ``weights`` ``(SHARE_LEGS, k)``; without weights it is only
    measured. :attr:`by_group` keeps the rolls' luck before the shares, summed by group, and
    :attr:`by_covariate` the covariates' luck by leg, unweighted: what fitting the tables
    needs."""

    def __init__(
        self,
        value: ValueFn,
        deal_mean: np.ndarray | None = None,
        shares: np.ndarray | None = None,
        covariates: CovariateFn | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        if weights is not None and covariates is None:
            raise ValueError("covariate weights without covariates")
        self.value = value
        self.deal_mean = deal_mean
        self.shares = None if shares is None else np.asarray(shares, dtype=float)
        self.covariates = covariates
        self.weights = None if weights is None else np.asarray(weights, dtype=float)
        self.total: np.ndarray | None = None
        self.trace: list[np.ndarray] = []  # each chance event's luck as counted, in order
        self.by_group: np.ndarray | None = None  # (SHARE_LEGS, tiles, seats), before shares
        self.by_covariate: np.ndarray | None = None  # (SHARE_LEGS, k, seats), unweighted
        self._state: GameState | None = None

    def deal(self, state: GameState) -> None:
        """The game starts from ``state``."""
        n = state.rules.num_players
        self.total = np.zeros(n)
        tiles = state.rules.pyramid_tiles if self.shares is None else self.shares.shape[1]
        self.by_group = np.zeros((SHARE_LEGS, tiles, n))
        self.by_covariate = None
        if self.covariates is not None:
            k = np.asarray(self.covariates([state])).shape[1]
            self.by_covariate = np.zeros((SHARE_LEGS, k, n))
        self._state = state
        if self.deal_mean is not None:
            self._add(values([state], self.value)[0] - self.deal_mean)

    def step(self, state: GameState, action: Action | int, events: Sequence[Event]) -> None:
        """``action`` was taken and led to ``state`` with ``events``."""
        before = self._state
        if before is None or self.by_group is None:
            raise RuntimeError("LuckLedger.step before LuckLedger.deal")
        if isinstance(to_action(before, action), TakePyramidTile):
            shown = next(e for e in events if isinstance(e, DieRevealed))
            roll = DieRoll(shown.die, shown.camel_shown, shown.value)
            after, p, realized = roll_outcomes(before, roll)
            luck = _luck(values(after, self.value), p, realized)
            group = luck_group(before, self.by_group.shape[1])
            self.by_group[group] += luck
            counted = luck if self.shares is None else self.shares[group] * luck
            if self.covariates is not None and self.by_covariate is not None:
                extra = _luck(np.asarray(self.covariates(after), dtype=float), p, realized)
                self.by_covariate[group[0]] += extra
                if self.weights is not None:
                    counted = counted + self.weights[group[0]] @ extra
            self._add(counted)
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
