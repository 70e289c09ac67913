"""The champion scripted bot: the expert's values, hidden race cards read, risk chosen by standing.

``expert`` (:mod:`agents.expert`) maximises expected coins move by move. The champion keeps its
values and adds two things the Camel Up Cup's strongest bots measured as worth win rate
(``docs/champion.md`` has what was tried here and what it measured):

* **hidden race cards read** (``infer_bets``): the camel behind each opponent's race card is
  inferred from the race odds when it was placed (:mod:`agents.race_beliefs`), and the
  champion's own race bets are paid by their expected rank among the cards believed to back
  the same camel, instead of greedy's model (every hidden card backs a camel in proportion to
  today's odds, :func:`camelup_env.game.payouts.race_card_ev`). The expert's charge for
  spending a card early stays;
* **risk by standing** (``risk``): among the moves within ``margin`` coins of the best
  expected value, the one with the highest chance to win the game, every seat's holdings
  scored on the same joint outcomes of the leg and the race (:mod:`agents.standing`), the
  opponents' hidden cards as read (or, with ``infer_bets`` off, by greedy's model). The
  margin bounds the expected coins a move may give up: the Cup measured that maximising the
  win chance move by move over all moves over-gambles (here, with these values and exact
  joint outcomes, the unbounded choice measured no worse: ``docs/champion.md``).

* **race-card timing** (``race_timing``, off by default: measured, ``docs/champion.md``): the
  expert's charge for spending a race card early replaced by :mod:`agents.card_timing`'s, the
  late payout read from the piles and the horizon the chance that the race is still on at the
  seat's next turn.

With ``risk``, ``infer_bets`` and ``race_timing`` off the champion plays exactly as the
expert. Rule sets without a fitted win-probability model (``camelup_env/odds/win_models.json``)
or without joint outcomes (the desert wanderer's) play without the risk choice. Deterministic:
the odds are seeded, ties go to the lowest action index, and the memory of the piles is per
seat and per game.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.base import Agent, Observation, best_action, legal_indices
from agents.card_timing import keep_charges
from agents.expert import ExpertAgent
from agents.race_beliefs import RaceCardReader, new_card_payouts, odds_beliefs
from agents.standing import action_outcomes, seat_outcomes, win_chances
from camelup_env import odds
from camelup_env.game.actions import RaceBet, action_table
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.payouts import race_card_ev
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState
from camelup_env.odds.win import WinModel, lead_progress, load_win_model


class ChampionAgent(Agent):
    description = (
        "expert + hidden race cards inferred from when they were placed + "
        "risk chosen by standing among near-best moves"
    )
    per_game = True  # the reader's memory of the piles (agents.race_beliefs)

    def __init__(
        self,
        race_samples: int = 1000,
        risk: bool = True,
        margin: float = 3.0,
        infer_bets: bool = True,
        greed: float = 8.0,
        race_timing: bool = False,
        keep_payout: float | None = None,
        near: float = 4.0,
        far: float = 10.0,
        opponent_weight: float | None = None,
        tile_bets: bool = True,
    ) -> None:
        if margin < 0:
            raise ValueError(f"margin must be >= 0, got {margin}")
        self.expert = ExpertAgent(race_samples, keep_payout, near, far, opponent_weight, tile_bets)
        self.race_samples = int(race_samples)
        self.risk = risk
        self.margin = float(margin)
        self.infer_bets = infer_bets
        self.race_timing = race_timing
        self.reader = RaceCardReader(greed)
        self._models: dict[RuleSet, WinModel | None] = {}

    def reset(self, seed: int | None = None) -> None:
        self.reader.reset()

    def warmup(self, public_state: GameState) -> None:
        self.expert.warmup(public_state)
        self.choose(public_state, legal_action_indices(public_state))
        self.reader.reset()

    def act(self, observation: Observation, public_state: GameState) -> int:
        return self.choose(public_state, legal_indices(observation))

    def shortlist(
        self, s: GameState, legal: Iterable[int]
    ) -> tuple[dict[int, float], list[int], tuple[np.ndarray, np.ndarray]]:
        """The values of ``legal`` (:meth:`action_values`), the moves within ``margin`` of the
        best (the ones the champion chooses among) and the piles' beliefs; once a turn, as it
        reads the piles (``infer_bets``) into the seat's memory."""
        race = self.expert.greedy.race_odds(s)
        if self.infer_bets:
            beliefs = self.reader.update(s, s.current, race.winner, race.loser)
        else:
            beliefs = odds_beliefs(s, race.winner, race.loser)
        values = self.action_values(s, legal, beliefs)
        best = max(values.values())
        return values, sorted(i for i, v in values.items() if v >= best - self.margin), beliefs

    def choose(self, s: GameState, legal: Iterable[int]) -> int:
        """The move of the module docstring among ``legal``."""
        me = s.current
        values, near, beliefs = self.shortlist(s, legal)
        model = self.win_model(s.rules) if self.risk else None
        if model is None or len(near) < 2:
            return best_action(values)
        sc = odds.leg_scenarios(s, self.race_samples)
        if sc is None:
            return best_action(values)
        rules = s.rules
        pay = rules.race_bet_payouts
        base = seat_outcomes(s, sc, beliefs)
        paid = (
            new_card_payouts(s.winner_pile, beliefs[0], pay),
            new_card_payouts(s.loser_pile, beliefs[1], pay),
        )
        actions = action_table(rules).actions
        adds = np.stack([action_outcomes(s, actions[i], values[i], sc, *paid) for i in near])
        chances = win_chances(model, base, me, adds, lead_progress(sc.lead, rules.track_length))
        return near[int(np.argmax(chances))]

    def action_values(
        self,
        s: GameState,
        legal: Iterable[int],
        beliefs: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> dict[int, float]:
        """The expert's values; with ``infer_bets`` and ``beliefs`` (winner pile, loser pile, as
        :class:`agents.race_beliefs.RaceCardReader` reads them), race bets paid by their
        expected rank among the cards believed to back the same camel; with ``race_timing``,
        the charge for spending a card early from :mod:`agents.card_timing`."""
        timed = self.race_timing and beliefs is not None
        values = self.expert.action_values(s, legal, charge_cards=not timed)
        if beliefs is None or not values:
            return values
        table = action_table(s.rules).actions
        race = [i for i in values if isinstance(table[i], RaceBet)]
        if not race:
            return values
        ro = self.expert.greedy.race_odds(s)
        if timed:
            self._charge_by_timing(s, race, values, ro, beliefs)
        if not self.infer_bets:
            return values
        me, pay = s.current, s.rules.race_bet_payouts
        for kind, pile, probs, belief in (
            (WINNER_PILE, s.winner_pile, ro.winner, beliefs[0]),
            (LOSER_PILE, s.loser_pile, ro.loser, beliefs[1]),
        ):
            cards = [i for i in race if table[i].pile == kind]  # type: ignore[union-attr]
            if not cards:
                continue
            ours = probs * new_card_payouts(pile, belief, pay) - (1.0 - probs)
            greedy = race_card_ev(probs, pile, me, pay)
            for i in cards:
                c = table[i].camel  # type: ignore[union-attr]
                values[i] += float(ours[c] - greedy[c])
        return values

    def _charge_by_timing(
        self,
        s: GameState,
        race: list[int],
        values: dict[int, float],
        ro: odds.RaceOdds,
        beliefs: tuple[np.ndarray, np.ndarray],
    ) -> None:
        """Each race bet less the value of keeping its card (:func:`keep_charges`); where the
        position has no joint outcomes (the desert wanderer's rules), the expert's charge."""
        sc = odds.leg_scenarios(s, self.race_samples)
        if sc is None:
            self.expert.charge_race_cards(s, race, values)
            return
        keep = keep_charges(s, ro, beliefs, sc)
        table = action_table(s.rules).actions
        for i in race:
            values[i] -= float(keep[table[i].camel])  # type: ignore[union-attr]

    def win_model(self, rules: RuleSet) -> WinModel | None:
        """The shipped win-probability model of ``rules``, or None where none is fitted."""
        if rules not in self._models:
            try:
                self._models[rules] = load_win_model(rules)
            except ValueError:
                self._models[rules] = None
        return self._models[rules]
