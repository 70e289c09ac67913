"""The expert baseline: greedy's values, corrected where greedy is measurably wrong.

The greedy player (:mod:`agents.greedy`) values each action by the coins it expects from it now.
Two of its blind spots cost it games (``docs/expert.md`` has the measurements):

* **Race cards spent early.** A race card is used once (R4.4). Greedy bets it as soon as its
  expected payout beats a pyramid tile, often in the first leg, on a camel whose chance of
  winning is 0.3. Kept, the same card can be bet near the end of the race, when the winner (or
  loser) is nearly certain. Each race bet is therefore charged the value of keeping the card
  (:func:`keep_value`):

      keep = keep_payout * (P(win) + P(last)) * horizon,

  the expected coins of a late bet of that colour on whichever pile it turns out to belong
  (paid ``keep_payout``), times ``horizon``, the chance there is still a turn to bet it.
  ``horizon`` (:func:`race_horizon`) falls linearly from 1 when the leading racing camel needs
  ``far`` or more spaces to cross the finish line to 0 when it needs ``near`` or fewer (the race
  may end before our next turn). ``keep_payout`` defaults to the first pile payout
  (``race_bet_payouts[0]``, 8). A late card is rarely the first correct one, so this overstates
  the coins of the late bet; it stands in for what the crude model leaves out (a late bet is
  made only when it is clearly good, and a kept card can go on either pile). It was tuned, not
  derived: of the late payouts tried, 8 won most often (``docs/expert.md``).

* **Tiles that ignore the leg bets on the table.** A desert/spectator tile changes where the
  camels end the leg, so it changes what every leg-bet tile already taken will pay (R5.3,
  R6.2). Greedy values a placement only by the coins the tile itself collects. Here a placement
  also gets (:func:`tile_bet_effects`)

      sum over seats of weight(seat) * (held(seat, tile there) - held(seat, now)),

  where ``held`` is the expected reward of the seat's leg bets and position bets
  (:func:`camelup_env.odds.action_values.held_rewards`, exact leg odds with the tile moved),
  ``weight`` is +1 for us and ``-opponent_weight`` for each opponent (default
  ``1 / (players - 1)``: our coins minus the opponents' mean, i.e. exactly minus the opponent
  in two-player games). A partner's rewards (R9.4) count with weight 0: the copy we get is
  decided at leg end and ignored here.

Everything else is greedy's value unchanged (leg bets, pyramid tile, Supercup camera, position
bets, support dice, partnerships), so the agent plays every preset, Supercup included.
Deterministic: greedy's race odds use a fixed seed and ties go to the lowest action index.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.base import Agent, Observation, best_action, legal_indices
from agents.greedy import GreedyAgent
from camelup_env.game.actions import PlaceTile, RaceBet, action_table
from camelup_env.game.state import GameState
from camelup_env.odds import placement_odds
from camelup_env.odds.action_values import held_rewards


def race_horizon(s: GameState, near: float, far: float) -> float:
    """How likely a card kept now can still be bet later: 1 while the leading racing camel needs
    ``far`` or more spaces to finish, 0 at ``near`` or fewer, linear in between."""
    rules = s.rules
    lead = max(sp for sp, stack in s.stacks.items() if any(c < rules.n_racing for c in stack))
    to_go = rules.track_length + 1 - lead  # spaces to move to cross the finish (R5.4)
    if far <= near:
        return 1.0 if to_go > near else 0.0
    return min(1.0, max(0.0, (to_go - near) / (far - near)))


def keep_value(p_win: float, p_last: float, horizon: float, payout: float) -> float:
    """Expected coins of keeping a race card to bet it late (module docstring)."""
    return payout * (p_win + p_last) * horizon


def tile_bet_effects(
    s: GameState, seat: int, places: Iterable[tuple[int, int]], weights: dict[int, float]
) -> dict[tuple[int, int], float]:
    """Change of the weighted expected leg-bet rewards of every seat when ``seat`` puts its tile
    on ``(space, side)``, for each legal placement of ``places`` (its tile lifted from where it
    lies).

    ``weights`` maps seat -> weight; seats holding no leg bet are skipped (their held value is
    the pyramid tiles only, which no tile changes). The leg odds with the tile on each spot
    come from :func:`camelup_env.odds.placement_odds`: the enumerations greedy's exact tile
    values use, so the two share them.
    """
    bettors = {q: w for q, w in weights.items() if w and s.leg_bets[q]}
    if not bettors or s.game_over:
        return {}

    def weighted(leg: np.ndarray | None) -> float:
        return sum(w * sum(held_rewards(s, q, leg)) for q, w in bettors.items())

    now = weighted(None)
    spots = placement_odds(s, seat)
    return {place: weighted(spots[place].leg) - now for place in places if place in spots}


class ExpertAgent(Agent):
    description = (
        "greedy values + a charge for spending race cards early + tile placements "
        "valued by their effect on the leg bets held"
    )

    def __init__(
        self,
        race_samples: int = 1000,
        keep_payout: float | None = None,
        near: float = 4.0,
        far: float = 10.0,
        opponent_weight: float | None = None,
        tile_bets: bool = True,
    ) -> None:
        self.greedy = GreedyAgent(race_samples=race_samples)
        self.keep_payout = keep_payout
        self.near = float(near)
        self.far = float(far)
        self.opponent_weight = opponent_weight
        self.tile_bets = tile_bets

    def warmup(self, public_state: GameState) -> None:
        self.greedy.warmup(public_state)

    def act(self, observation: Observation, public_state: GameState) -> int:
        legal = legal_indices(observation)
        return best_action(self.action_values(public_state, legal))

    def action_values(
        self,
        s: GameState,
        legal: Iterable[int],
        seat: int | None = None,
        charge_cards: bool = True,
    ) -> dict[int, float]:
        """Greedy's values of the legal actions with the two corrections of the module doc
        (``charge_cards=False``: without the race-card charge, for a caller that charges its
        own)."""
        me = s.current if seat is None else seat
        values = self.greedy.action_values(s, legal, seat=me)
        if not values:
            return values
        table = action_table(s.rules)
        race = [i for i in values if isinstance(table.actions[i], RaceBet)]
        if race and charge_cards:
            self.charge_race_cards(s, race, values)
        tiles = {i: a for i in values if isinstance(a := table.actions[i], PlaceTile)}
        if tiles and self.tile_bets:
            places = {i: (a.space, a.side) for i, a in tiles.items()}
            effects = tile_bet_effects(s, me, places.values(), self.weights(s, me))
            for i, place in places.items():
                values[i] += effects.get(place, 0.0)
        return values

    def late_payout(self, s: GameState) -> float:
        """The payout assumed for a race card bet late (module docstring)."""
        if self.keep_payout is not None:
            return self.keep_payout
        return float(s.rules.race_bet_payouts[0])

    def weights(self, s: GameState, me: int) -> dict[int, float]:
        """Weight of each seat's leg-bet rewards in a tile's value: +1 us, -w each opponent."""
        n = s.rules.num_players
        w = self.opponent_weight if self.opponent_weight is not None else 1.0 / (n - 1)
        partner = s.partners[me]
        return {q: 1.0 if q == me else (0.0 if q == partner else -w) for q in range(n)}

    def charge_race_cards(self, s: GameState, race: list[int], values: dict[int, float]) -> None:
        """Each race bet of ``race`` (action indices) less :func:`keep_value` of its card."""
        horizon = race_horizon(s, self.near, self.far)
        if horizon <= 0:
            return
        ro = self.greedy.race_odds(s)
        payout = self.late_payout(s)
        actions = action_table(s.rules).actions
        for i in race:
            c = actions[i].camel  # type: ignore[union-attr]
            values[i] -= keep_value(float(ro.winner[c]), float(ro.loser[c]), horizon, payout)
