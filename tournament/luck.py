"""The luck of recorded games: each seat's sum of chance corrections, from a record's seed and
actions, for luck-adjusted win shares (:mod:`camelup_env.odds.luck` has the method).

A game record holds its seed and every action (:mod:`tournament.replay` replays them), so the
referee's game can be played again here, deal and dice included, with a
:class:`~camelup_env.odds.luck.LuckLedger` watching: the corrections need the whole state, hidden
race bets included, which only the referee sees. ``V`` is the shipped win-probability model of
the rule set (:func:`camelup_env.odds.win.load_win_model`), each roll's luck scaled by the
share fitted for it (``luck_shares``) and joined by the model's covariates' weighted luck
(``luck_covariates``; the win network's chances among them where the model has one), where the
model has them; a rule set without a model has no adjusted
figures.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from camelup_env.batch.win_chances import luck_covariates
from camelup_env.game.engine import apply_action
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.match import game_rngs
from camelup_env.odds.luck import CovariateFn, LuckLedger, ValueFn, setup_mean
from camelup_env.odds.win import load_win_model


class GameLuck:
    """Luck of many games of one rule set under one ``V`` (the deal's mean computed once)."""

    def __init__(
        self,
        rules: RuleSet,
        value: ValueFn,
        shares: np.ndarray | None = None,
        covariates: CovariateFn | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        self.rules = rules
        self.value = value
        self.shares = shares
        self.covariates = covariates
        self.weights = weights
        self.deal_mean = setup_mean(rules, value)

    @classmethod
    def shipped(cls, rules: RuleSet) -> GameLuck | None:
        """With the shipped win-probability model of ``rules``, or None where there is none.
        One per rule set and process: the deal's mean takes seconds (every deal is valued)."""
        return _shipped(rules)

    def of_game(self, seed: int, actions: Sequence[int]) -> np.ndarray:
        """Each seat's luck in game ``seed`` played with ``actions`` (the referee's deal and
        dice, :func:`camelup_env.match.game_rngs`)."""
        total = self.ledger(seed, actions).total
        assert total is not None
        return total

    def ledger(self, seed: int, actions: Sequence[int]) -> LuckLedger:
        """The ledger of game ``seed`` replayed with ``actions``: its total, its events, its
        luck by group and by covariate."""
        setup_rng, dice_rng = game_rngs(seed)
        state = new_game(self.rules, seed=setup_rng)
        ledger = LuckLedger(self.value, self.deal_mean, self.shares, self.covariates, self.weights)
        ledger.deal(state)
        for action in actions:
            state, events = apply_action(state, action, dice_rng)
            ledger.step(state, action, events)
        return ledger


@functools.lru_cache(maxsize=16)
def _shipped(rules: RuleSet) -> GameLuck | None:
    try:
        model = load_win_model(rules)
    except ValueError:
        return None
    shares = None if model.luck_shares is None else np.array(model.luck_shares)
    if model.luck_weights is None:
        return GameLuck(rules, model, shares)
    return GameLuck(rules, model, shares, luck_covariates(model), np.array(model.luck_weights))
