"""The greedy baseline: take the action with the highest immediate expected coins.

Every legal action gets a value in coins from what the seat can see (the public view, R10):

* **leg bet** on camel ``c`` (R4.1, R6.2): ``odds.leg_bet_evs(state)[c]`` from the exact leg odds;
* **pyramid tile** (R4.3): ``+1``. Rolling does not change the expected value of anything already
  held: leg-rank probabilities are a martingale over the die drawn, whoever draws it;
* **tile placement** (R4.2, R5.3): ``odds.placement_evs`` (exact expected payouts this leg) of
  the new spot, minus the expected payouts of the seat's tile where it lies now (computed in the
  same call, with the tile lifted). The effect of the tile on the seat's own leg bets is ignored.
  ``placement_evs`` costs one leg enumeration per spot, so with ``tile_odds="auto"`` and 5 or
  more reveals left (4 with the grey die) the value is :func:`agents.landings.expected_landings`
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

Supercup module actions (photographer, position bets, the extra action) are not modelled: they
get -1 (declining the extra action 0), so the agent plays them only when nothing else is legal.
Ties go to the lowest action index. ``action_values`` exposes the numbers (tests compare them
with the odds module; ``lookahead`` builds on them).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.base import Agent, Observation, legal_indices
from agents.landings import expected_landings
from camelup_env import odds
from camelup_env.actions import (
    ActionTable,
    Partner,
    PlaceTile,
    RaceBet,
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
                 place_tiles: bool = True, tile_odds: str = "auto") -> None:
        if tile_odds not in ("auto", "exact", "approx"):
            raise ValueError(f"tile_odds must be 'auto', 'exact' or 'approx', got {tile_odds!r}")
        self.race_samples = int(race_samples)
        self.race_seed = int(race_seed)
        self.place_tiles = place_tiles
        self.tile_odds = tile_odds

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
            else:  # Supercup module actions are not modelled: declined unless nothing else
                out[i] = 0.0 if type(a).__name__ == "SkipExtra" else -1.0
        return out

    def _exact_tiles(self, s: GameState) -> bool:
        if self.tile_odds != "auto":
            return self.tile_odds == "exact"
        rolls = min(s.pyramid_tiles_left, len(s.pyramid))
        return rolls <= 3 or (rolls == 4 and s.rules.n_dice <= 5)

    def _placement_gains(self, s: GameState, me: int, table: ActionTable) -> dict[int, float]:
        current = s.tile_of(me)
        if not self._exact_tiles(s):
            landings = expected_landings(s, ignore_tiles_of=me)
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
    """Expected leg-scoring reward of each tile ``seat`` holds (leg bets, then pyramid tiles)."""
    out: list[float] = []
    if s.leg_bets[seat]:
        probs = odds.leg_rank_probabilities(s)
        for camel, value in s.leg_bets[seat]:
            p1, p2 = probs[camel, 0], probs[camel, 1]
            out.append(float(value * p1 + p2 - (1.0 - p1 - p2)))
    out += [1.0] * s.pyramid_tiles[seat]
    return out
