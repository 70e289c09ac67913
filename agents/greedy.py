"""The greedy baseline: take the action with the highest immediate expected coins.

Every legal action gets a value in coins from what the seat can see (the public view, R10):

* **leg bet** on camel ``c`` (R4.1, R6.2): ``odds.leg_bet_evs(state)[c]`` from the exact leg odds;
* **pyramid tile** (R4.3): ``+1``. Rolling does not change the expected value of anything already
  held: leg-rank probabilities are a martingale over the die drawn, whoever draws it;
* **tile placement** (R4.2, R5.3): ``odds.placement_evs`` (exact expected payouts this leg) of
  the new spot, minus the expected payouts of the seat's tile where it lies now (computed in the
  same call, with the tile lifted). The effect of the tile on the seat's own leg bets is ignored.
  ``placement_evs`` costs one leg enumeration per spot, so with ``tile_odds="auto"`` and 5 or
  more reveals left (4 with the grey die) the value is :func:`camelup_env.odds.expected_landings`
  instead: one enumeration, exact up to the first landing (mean error about 0.01 coin);
* **race bet** on camel ``c`` on a pile (R4.4, R7.2): with ``p`` = P(c wins / is last) from
  ``odds.race_probabilities`` (Monte Carlo, fixed seed, so cached across seats),
  ``EV = p * E[payout(X)] - (1 - p)``. The card goes on top of the pile, so it is paid by its
  rank among the *correct* cards: ``payout(X) = race_bet_payouts[min(X, 4)]`` where ``X`` is
  the number of correct cards already below it. Only the owners of those cards are visible, not
  their colours. Model: each other player ``o`` with ``j`` hidden cards on the pile holds a card
  of ``c`` there with probability ``1 - (1 - p) ** j`` (players back a camel in proportion to
  its current odds, and hold one card per colour); players are independent, so ``X`` is
  Poisson-binomial. The seat's own earlier cards are known and never show ``c`` (one card per
  colour). Coins lost to the 0 floor (R8.1) and the option value of keeping a card for later
  are ignored: the greedy player is myopic by definition;
* **partnership** with seat ``q`` (R9.4, second edition with 6+ players): the best expected
  reward among ``q``'s tiles held now (leg bets by the exact odds, pyramid tiles +1), floored at
  0 (the engine skips a negative copy). Tiles ``q`` takes later this leg and what ``q`` copies
  from us are ignored.

Supercup (R9), all from the exact leg odds of :mod:`camelup_env.odds` (support dice included):

* **position bet** (R9.3) with position tile ``p`` on camel ``c``: with ``P = P(rank of c = p)``
  the covered tile pays ``3 P - (1 - P)`` (:func:`position_bet_ev`). Covering one's own tile
  (the lowest-valued uncovered one of that colour, as the engine does) gives up that tile's
  leg-bet EV, so that is subtracted; a tile taken from the bottom of the stack was not ours, so
  only the position payoff counts. What taking the bottom tile does to the others is ignored;
* **photographer** (R9.2): :func:`camelup_env.odds.expected_photo_coins`, the exact expected
  coins of the camera on the space (E[size of the first unit that ends a move there]), minus
  the value of the camera where it now points when the seat already holds it (re-pointing
  gives that up; keeping it is the 0 of doing something else);
* **extra action** (R9.1.4): ``SkipExtra`` is 0; ``AddSupportDie(c)`` is the change in the
  expected leg scoring of the seat's own leg bets and position bets when die ``c`` joins the
  pyramid with one more reveal (:func:`support_die_gain`), minus the returned pyramid tile's 1
  coin. Tile, camera and race-bet effects of the extra die are ignored;
* **partnership** (R9.4): as above, with covered tiles valued as position bets.

Ties go to the lowest action index. ``action_values`` exposes the numbers (tests compare them
with the odds module; ``lookahead`` builds on them).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.base import Agent, Observation, legal_indices
from camelup_env import odds
from camelup_env.actions import (
    ActionTable,
    AddSupportDie,
    Partner,
    Photograph,
    PlaceTile,
    PositionBet,
    RaceBet,
    SkipExtra,
    TakeLegBet,
    TakePyramidTile,
    action_table,
)
from camelup_env.state import LOSER_PILE, WINNER_PILE, GameState


def race_bet_ev(p, pile: tuple[tuple[int, int], ...], seat: int,
                payouts: tuple[int, ...]):
    """Expected coins of putting a card of probability ``p`` on top of ``pile`` (module doc).

    ``p`` may be a float or an array (one value per camel); the result has its shape.
    """
    scalar = np.ndim(p) == 0
    probs = [float(p)] if scalar else [float(x) for x in p]
    hidden: dict[int, int] = {}
    for owner, _camel in pile:
        if owner != seat:
            hidden[owner] = hidden.get(owner, 0) + 1
    last = len(payouts) - 1
    out = []
    for q0 in probs:
        # dist[x] = P(X = x correct hidden cards below ours | our camel is the right one)
        dist = [1.0]
        for j in hidden.values():
            q = 1.0 - (1.0 - q0) ** j
            dist = [a * (1 - q) + b * q for a, b in zip([*dist, 0.0], [0.0, *dist], strict=True)]
        paid = sum(d * payouts[min(x, last)] for x, d in enumerate(dist))
        out.append(q0 * paid - (1.0 - q0))
    return out[0] if scalar else np.array(out)


class GreedyAgent(Agent):
    description = "max immediate expected coins: exact leg odds, tile EVs, Monte Carlo race odds"

    def __init__(self, race_samples: int = 1000, race_seed: int = 0,
                 place_tiles: bool = True, tile_odds: str = "auto",
                 photographer: bool = True) -> None:
        if tile_odds not in ("auto", "exact", "approx"):
            raise ValueError(f"tile_odds must be 'auto', 'exact' or 'approx', got {tile_odds!r}")
        self.race_samples = int(race_samples)
        self.race_seed = int(race_seed)
        self.place_tiles = place_tiles
        self.tile_odds = tile_odds
        #: value camera actions (R9.2; one leg enumeration per reachable space) or give them -1
        self.photographer = photographer

    def warmup(self, public_state: GameState) -> None:
        self.action_values(public_state, range(len(action_table(public_state.rules))))

    def act(self, observation: Observation, public_state: GameState) -> int:
        legal = legal_indices(observation)
        values = self.action_values(public_state, legal)
        best = max(values.values())
        return min(i for i, v in values.items() if v >= best - 1e-12)

    # ---------------------------------------------------------------------------------------
    def action_values(self, s: GameState, legal: Iterable[int], seat: int | None = None,
                      race_samples: int | None = None, place_tiles: bool | None = None,
                      ) -> dict[int, float]:
        """Expected immediate coins of each legal action index for ``seat`` (default: to move).

        Only the indices given are valued (pass the legal ones).
        """
        rules = s.rules
        table = action_table(rules)
        me = s.current if seat is None else seat
        legal = [int(i) for i in legal]
        out: dict[int, float] = {}
        if s.game_over:
            return out
        leg_evs = None
        place = None
        race = None
        photo = None
        do_tiles = self.place_tiles if place_tiles is None else place_tiles
        actions = table.actions
        for i in legal:
            a = actions[i]
            if isinstance(a, TakeLegBet):
                if leg_evs is None:
                    leg_evs = odds.leg_bet_evs(s)
                if not np.isnan(leg_evs[a.camel]):
                    out[i] = float(leg_evs[a.camel])
            elif isinstance(a, TakePyramidTile):
                if s.pyramid_tiles_left:
                    out[i] = 1.0
            elif isinstance(a, PlaceTile):
                if place is None:
                    place = self._placement_gains(s, me, table) if do_tiles else {}
                out[i] = place.get(i, 0.0 if do_tiles else -1e9)
            elif isinstance(a, RaceBet):
                if race is None:
                    race = self._race_values(s, me, table, race_samples or self.race_samples)
                out[i] = race.get(i, -1e9)
            elif isinstance(a, Partner):
                out[i] = self._partner_value(s, a.seat)
            elif isinstance(a, PositionBet):
                out[i] = position_bet_value(s, me, a)
            elif isinstance(a, Photograph):
                if not self.photographer:
                    out[i] = -1.0
                    continue
                if photo is None:
                    photo = photo_gains(s, me)
                out[i] = photo.get(a.space, 0.0)
            elif isinstance(a, AddSupportDie):
                out[i] = support_die_gain(s, me, a.camel) - 1.0
            elif isinstance(a, SkipExtra):
                out[i] = 0.0
            else:  # pragma: no cover - every action kind is valued above
                out[i] = -1.0
        return out

    def _exact_tiles(self, s: GameState) -> bool:
        if self.tile_odds != "auto":
            return self.tile_odds == "exact"
        rolls = min(s.pyramid_tiles_left, len(s.pyramid))
        return rolls <= 3 or (rolls == 4 and s.rules.n_dice <= 5)

    def _placement_gains(self, s: GameState, me: int, table: ActionTable) -> dict[int, float]:
        current = s.tile_of(me)
        if not self._exact_tiles(s):
            landings = odds.expected_landings(s, ignore_tiles_of=me)
            base = landings[current[0]] if current is not None else 0.0
            first, last = table.tile_offset, table.race_offset
            return {i: float(landings[table.actions[i].space] - base) for i in range(first, last)}
        probe = s
        if current is not None:
            probe = s.copy()
            probe.tiles = {sp: t for sp, t in s.tiles.items() if t[0] != me}
        evs = odds.placement_evs(probe, me)
        base = evs.get(current, 0.0) if current is not None else 0.0
        return {table.tile_index(space, side): v - base for (space, side), v in evs.items()}

    def race_odds(self, s: GameState, samples: int | None = None) -> odds.RaceOdds:
        return odds.race_probabilities(s, samples or self.race_samples, self.race_seed)

    def _race_values(self, s: GameState, me: int, table: ActionTable,
                     samples: int) -> dict[int, float]:
        ro = self.race_odds(s, samples)
        payouts = s.rules.race_bet_payouts
        out = {}
        held = [c for c in range(s.rules.n_racing) if s.hands[me] >> c & 1]
        if not held:
            return out
        for pile, probs, cards in ((WINNER_PILE, ro.winner, s.winner_pile),
                                   (LOSER_PILE, ro.loser, s.loser_pile)):
            evs = race_bet_ev(probs, cards, me, payouts)
            for c in held:
                out[table.race_index(pile, c)] = float(evs[c])
        return out

    def _partner_value(self, s: GameState, q: int) -> float:
        return max(0.0, max(held_rewards(s, q), default=0.0))


def held_rewards(s: GameState, seat: int) -> list[float]:
    """Expected leg-scoring reward of each tile ``seat`` holds: uncovered leg bets, position
    bets (R9.3, replacing the leg bets they cover), then pyramid tiles."""
    out: list[float] = []
    if s.leg_bets[seat]:
        probs = odds.leg_rank_probabilities(s)
        bets = list(s.leg_bets[seat])
        for owner, pos, camel, value in s.position_bets:
            if owner == seat:
                bets.remove((camel, value))
                out.append(position_bet_ev(probs, pos, camel))
        out = [leg_tile_ev(probs, camel, value) for camel, value in bets] + out
    out += [1.0] * s.pyramid_tiles[seat]
    return out


def leg_tile_ev(probs: np.ndarray, camel: int, value: int) -> float:
    """Expected payout of a leg-bet tile (R6.2) from rank probabilities ``[camel, rank]``."""
    p1, p2 = probs[camel, 0], probs[camel, 1]
    return float(value * p1 + p2 - (1.0 - p1 - p2))


def position_bet_ev(probs: np.ndarray, position: int, camel: int) -> float:
    """Expected payout of a position tile (R9.3): +3 if ``camel`` ends the leg exactly at
    ``position`` (1 = leading), else -1: ``3 P - (1 - P)``."""
    p = float(probs[camel, position - 1])
    return 3.0 * p - (1.0 - p)


def position_bet_value(s: GameState, seat: int, action: PositionBet) -> float:
    """Greedy value of a position bet (module docstring): the tile's EV, minus the leg-bet EV of
    the own tile it covers (the engine covers the lowest-valued uncovered one of the colour)."""
    probs = odds.leg_rank_probabilities(s)
    value = position_bet_ev(probs, action.position, action.camel)
    if not action.from_stack:
        uncovered = list(s.leg_bets[seat])
        for owner, _pos, camel, v in s.position_bets:
            if owner == seat:
                uncovered.remove((camel, v))
        lowest = min((v for camel, v in uncovered if camel == action.camel), default=None)
        if lowest is None:  # not legal: no such tile to cover
            return -1e9
        value -= leg_tile_ev(probs, action.camel, lowest)
    return value


def photo_gains(s: GameState, seat: int) -> dict[int, float]:
    """Greedy value of pointing the camera at each empty space (R9.2): its expected coins this
    leg, minus those of the camera where ``seat`` already points it (re-pointing gives it up)."""
    values = odds.expected_photo_coins(s)
    base = 0.0
    if s.photographer is not None and s.photographer[0] == seat:
        base = odds.expected_photo_coins(s, [s.photographer[1]])[s.photographer[1]]
    return {space: v - base for space, v in values.items()}


def support_die_gain(s: GameState, seat: int, camel: int) -> float:
    """Change in the expected leg scoring of ``seat``'s leg bets and position bets when the
    support die of ``camel`` joins the pyramid with one more reveal (R9.1.4). The returned
    pyramid tile (-1) is not included; pyramid tiles held are unchanged otherwise."""
    if not s.leg_bets[seat]:
        return 0.0
    before = sum(held_rewards(s, seat)) - s.pyramid_tiles[seat]
    probe = s.copy()
    probe.pyramid = tuple(sorted((*s.pyramid, s.rules.first_support_die + camel)))
    probe.pyramid_tiles_left = s.pyramid_tiles_left + 1
    after = sum(held_rewards(probe, seat)) - probe.pyramid_tiles[seat]
    return after - before
