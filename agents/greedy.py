"""The greedy baseline: take the action with the highest immediate expected coins.

The values are :func:`camelup_env.odds.action_values.action_values` of the public view (R10): that
module documents every action's value and is their one home, shared with the observation's
``action_values`` slice. Greedy plays their argmax over the legal actions; **ties go to the
lowest action index** (values within 1e-12 of the best count as tied).

Options that change what greedy plays (not the values themselves):

* ``race_samples``: samples of the race estimate (:func:`camelup_env.odds.position_odds`,
  default 1,000). A greedy opponent and a learner's observation of the same game share each
  position's enumeration and rollouts whatever their sample counts (the smaller estimate reads
  the first rollouts of the larger);
* ``tile_odds``: ``"auto"`` / ``"exact"`` / ``"approx"`` tile-placement values (see
  :mod:`camelup_env.odds.action_values`);
* ``place_tiles=False``: never place a tile (tile actions get -1e9, and are not valued);
* ``photographer=False``: do not value the camera (R9.2; one leg enumeration per reachable space):
  camera actions get -1.

``action_values`` exposes the numbers as a dict over the legal indices (``lookahead`` builds on
them).
"""

from __future__ import annotations

from collections.abc import Iterable

from agents.base import Agent, Observation, best_action, legal_indices
from camelup_env import odds
from camelup_env.game.actions import Photograph, PlaceTile, action_table
from camelup_env.game.state import GameState
from camelup_env.odds.action_values import TILE_ODDS, action_values


class GreedyAgent(Agent):
    description = "max immediate expected coins: exact leg odds, tile EVs, estimated race odds"

    def __init__(
        self,
        race_samples: int = 1000,
        place_tiles: bool = True,
        tile_odds: str = "auto",
        photographer: bool = True,
    ) -> None:
        if tile_odds not in TILE_ODDS:
            raise ValueError(f"tile_odds must be 'auto', 'exact' or 'approx', got {tile_odds!r}")
        self.race_samples = int(race_samples)
        self.place_tiles = place_tiles
        self.tile_odds = tile_odds
        self.photographer = photographer

    def warmup(self, public_state: GameState) -> None:
        # every odds kernel a later move may call (the exact tile values of a started leg
        # too), then this agent's own path through them
        odds.warm_up(public_state)
        self.action_values(public_state, range(len(action_table(public_state.rules))))

    def act(self, observation: Observation, public_state: GameState) -> int:
        legal = legal_indices(observation)
        return best_action(self.action_values(public_state, legal))

    def action_values(
        self,
        s: GameState,
        legal: Iterable[int],
        seat: int | None = None,
        race_samples: int | None = None,
        place_tiles: bool | None = None,
    ) -> dict[int, float]:
        """Expected immediate coins of each index in ``legal`` for ``seat`` (default: to move),
        with this agent's options applied (module docstring). Only the indices given are valued
        (pass the legal ones)."""
        legal = [int(i) for i in legal]
        if s.game_over:
            return {}
        actions = action_table(s.rules).actions
        do_tiles = self.place_tiles if place_tiles is None else place_tiles
        fixed: dict[int, float] = {}
        for i in legal:
            kind = type(actions[i])
            if kind is PlaceTile and not do_tiles:
                fixed[i] = -1e9
            elif kind is Photograph and not self.photographer:
                fixed[i] = -1.0
        values = action_values(
            s,
            seat,
            [i for i in legal if i not in fixed],
            race_samples or self.race_samples,
            self.tile_odds,
        )
        return {i: fixed[i] if i in fixed else float(values[i]) for i in legal}

    def race_odds(self, s: GameState, samples: int | None = None) -> odds.RaceOdds:
        """The race estimate greedy's race-bet values use."""
        return odds.position_odds(s, samples or self.race_samples).race
