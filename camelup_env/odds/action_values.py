"""The immediate expected coins of every action: the one home of each action's value.

:func:`action_values` gives, for a state and a seat, a ``float64`` array over **all** action
indices of :func:`camelup_env.game.actions.action_table` (``len(action_table(rules))``): for each
action in ``legal`` (default: the actions ``seat`` may take now) the coins it is expected to earn
its taker, from what the seat can see (the public view, R10, is enough; the seat's own race
cards are the only private input). Every other entry (illegal actions) is **0**, so read the
array together with the legal-action mask. The greedy agent (:mod:`agents.greedy`) plays the
argmax of these values; the observation's ``action_values`` slice
(:mod:`camelup_env.observation`) holds them scaled, so a policy can represent greedy as an
argmax and learn corrections. The leg, landing and race odds come from
:func:`camelup_env.odds.position_odds`, computed once per public position and shared by both.

Each action's value (scoring formulas from :mod:`camelup_env.game.payouts`):

* **leg bet** on camel ``c`` (R4.1, R6.2): :func:`~camelup_env.game.payouts.leg_tile_ev` of the top
  tile of ``c``'s stack, from the exact leg odds;
* **pyramid tile** (R4.3): ``+1`` (``rules.pyramid_tile_value``: 0 in the Persian tutorial,
  R14.2). Rolling does not change the expected value of anything already held: leg-rank
  probabilities are a martingale over the die drawn, whoever draws it;
* **leg loser card** (R14.4): :func:`~camelup_env.game.payouts.loser_card_ev` of the value the next
  loser card played pays;
* **desert wanderer** (R14.6): the change in the expected leg scoring of the seat's own leg
  cards (:func:`held_rewards`) when the swap or send-back is made and the wanderer moves on
  (:func:`wanderer_gain`, one exact leg enumeration per use). Other seats' cards are ignored;
* **tile placement** (R4.2, R5.3): the expected payouts this leg of the tile on the new spot
  (:func:`camelup_env.odds.placement_evs`, exact) minus those of the seat's tile where it lies
  now (computed in the same call, with the tile lifted). The effect of the tile on the seat's own
  leg bets is ignored. ``placement_evs`` costs one leg enumeration per spot, so with
  ``tile_odds="approx"``, and with ``"auto"`` when 5 or more reveals are left (4 with more than
  5 dice), the value is the expected arrivals on the new space minus those on the tile's
  current space, both from :func:`camelup_env.odds.expected_landings` of the position as it
  stands (the leg odds' own enumeration, no extra cost): exact for the tile where it lies, and
  for the new space exact up to the first landing on it or on the old space (mean error about
  0.01 coin);
* **race bet** on camel ``c`` on a pile (R4.4, R7.2): :func:`~camelup_env.game.payouts.race_card_ev`
  with ``p`` = P(c wins / is last) from the position's race estimate
  (:func:`camelup_env.odds.position_odds` with ``race_samples``);
* **partnership** with seat ``q`` (R9.4): the best expected reward among ``q``'s tiles held now
  (:func:`held_rewards`), floored at 0 (the engine skips a negative copy). Tiles ``q`` takes
  later this leg and what ``q`` copies from us are ignored;
* **position bet** (R9.3) with position tile ``p`` on camel ``c``: the covered tile pays
  :func:`~camelup_env.game.payouts.position_tile_ev`. Covering one's own tile (the lowest-valued
  :func:`~camelup_env.game.legality.uncovered_tiles` one of that colour, as the engine does)
  gives up that tile's leg-bet value, so that is subtracted; a tile taken from the bottom of the
  stack was not ours, so only the position payoff counts;
* **photographer** (R9.2): :func:`camelup_env.odds.expected_photo_coins` of the space, minus the
  value of the camera where it now points when the seat already holds it (re-pointing gives that
  up);
* **extra action** (R9.1.4): ``SkipExtra`` is 0; ``AddSupportDie(c)`` is the change in the
  expected leg scoring of the seat's own leg bets and position bets when die ``c`` joins the
  pyramid with one more reveal (:func:`support_die_gain`), minus the returned pyramid tile's 1
  coin. Tile, camera and race-bet effects of the extra die are ignored.

These are *immediate* values: coins lost to the 0 floor (R8.1), the option value of keeping a
card or a tile for later, and what a move hands the next player are all ignored (a myopic
player, by definition).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import numpy as np

from camelup_env import odds
from camelup_env.game.actions import (
    ActionTable,
    AddSupportDie,
    Partner,
    Photograph,
    PlaceTile,
    PlayLoserCard,
    PositionBet,
    RaceBet,
    SkipExtra,
    TakeLegBet,
    TakePyramidTile,
    WandererSendBack,
    WandererSwap,
    action_table,
)
from camelup_env.game.engine import apply_outcome
from camelup_env.game.legality import legal_action_indices, uncovered_tiles
from camelup_env.game.payouts import leg_tile_ev, loser_card_ev, position_tile_ev, race_card_ev
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState

TILE_ODDS = ("auto", "exact", "approx")


def action_values(
    state: GameState,
    seat: int | None = None,
    legal: Iterable[int] | None = None,
    race_samples: int = odds.RACE_SAMPLES,
    tile_odds: str = "auto",
) -> np.ndarray:
    """Expected immediate coins of each action index for ``seat`` (module docstring).

    Args:
        state: the game, or any seat's public view of it (R10) when ``seat`` is that seat.
        seat: whose values (default: the seat to act).
        legal: the indices to value (default: those ``seat`` may take now: the legal actions
            when it is ``seat``'s turn, else those of its next normal turn in this position).
            Every other entry of the result is 0.
        race_samples: samples of the race estimate (:func:`camelup_env.odds.position_odds`).
        tile_odds: tile placements by ``"exact"`` enumeration, the one-enumeration
            ``"approx"``imation, or ``"auto"`` (exact with few reveals left, module docstring).
    """
    if tile_odds not in TILE_ODDS:
        raise ValueError(f"tile_odds must be one of {TILE_ODDS}, got {tile_odds!r}")
    table = action_table(state.rules)
    out = np.zeros(len(table))
    if state.game_over:
        return out
    me = state.current if seat is None else seat
    legal = _legal_for(state, me) if legal is None else [int(i) for i in legal]
    if not legal:
        return out
    # First, so that every later odds call of this position hits its caches: one enumeration.
    shared = odds.position_odds(state, race_samples)
    actions = table.actions
    place = photo = race = None
    for i in legal:
        a = actions[i]
        if type(a) is TakeLegBet:
            stack = state.leg_stacks[a.camel]
            if stack:
                out[i] = leg_tile_ev(shared.leg, a.camel, stack[0])
        elif type(a) is TakePyramidTile:
            if state.pyramid_tiles_left:
                out[i] = state.rules.pyramid_tile_value
        elif type(a) is PlaceTile:
            if place is None:
                place = _placement_gains(state, me, table, tile_odds)
            out[i] = place.get(i, 0.0)
        elif type(a) is RaceBet:
            if race is None:
                race = _race_values(state, me, table, shared.race)
            out[i] = race.get(i, 0.0)
        elif type(a) is Partner:
            out[i] = max(0.0, max(held_rewards(state, a.seat), default=0.0))
        elif type(a) is PositionBet:
            out[i] = position_bet_value(state, me, a)
        elif type(a) is Photograph:
            if photo is None:
                photo = photo_gains(state, me)
            out[i] = photo.get(a.space, 0.0)
        elif type(a) is AddSupportDie:
            out[i] = support_die_gain(state, me, a.camel) - 1.0
        elif type(a) is PlayLoserCard:
            value = state.rules.loser_bet_values[len(state.loser_cards)]
            out[i] = loser_card_ev(shared.leg, a.camel, value)
        elif type(a) is WandererSwap or type(a) is WandererSendBack:
            out[i] = wanderer_gain(state, me, a)
        elif type(a) is not SkipExtra:  # pragma: no cover - every action kind is valued above
            raise TypeError(f"no value for {a!r}")
    return out


def _legal_for(state: GameState, seat: int) -> list[int]:
    """The actions ``seat`` may take now, or on its next normal turn in this position."""
    if seat == state.current:
        return legal_action_indices(state)
    probe = state.copy()
    probe.current = seat
    probe.extra_pending = False
    return legal_action_indices(probe)


def exact_tiles(state: GameState, tile_odds: str) -> bool:
    """Whether tile placements are valued exactly (``tile_odds``; module docstring)."""
    if tile_odds != "auto":
        return tile_odds == "exact"
    rolls = min(state.pyramid_tiles_left, len(state.pyramid))
    return rolls <= 3 or (rolls == 4 and state.rules.n_dice <= 5)


def _placement_gains(s: GameState, me: int, table: ActionTable, tile_odds: str) -> dict[int, float]:
    current = s.tile_of(me)
    if not exact_tiles(s, tile_odds):  # the position's own enumeration: no extra cost
        landings = odds.expected_landings(s)
        base = landings[current[0]] if current is not None else 0.0
        first, last = table.tile_offset, table.race_offset
        tiles = cast("tuple[PlaceTile, ...]", table.actions[first:last])  # the table's tile block
        return {first + k: float(landings[a.space] - base) for k, a in enumerate(tiles)}
    probe = s
    if current is not None:
        probe = s.copy()
        probe.tiles = {sp: t for sp, t in s.tiles.items() if t[0] != me}
    evs = odds.placement_evs(probe, me)
    base = evs.get(current, 0.0) if current is not None else 0.0
    return {table.tile_index(space, side): v - base for (space, side), v in evs.items()}


def _race_values(s: GameState, me: int, table: ActionTable, ro: odds.RaceOdds) -> dict[int, float]:
    held = [c for c in range(s.rules.n_racing) if s.hands[me] >> c & 1]
    out: dict[int, float] = {}
    if not held:
        return out
    payouts = s.rules.race_bet_payouts
    for pile, probs, cards in (
        (WINNER_PILE, ro.winner, s.winner_pile),
        (LOSER_PILE, ro.loser, s.loser_pile),
    ):
        evs = race_card_ev(probs, cards, me, payouts)
        for c in held:
            out[table.race_index(pile, c)] = float(evs[c])
    return out


def held_rewards(s: GameState, seat: int, leg: np.ndarray | None = None) -> list[float]:
    """Expected leg-scoring reward of each tile ``seat`` holds: uncovered leg bets (R6.2),
    position bets (R9.3, replacing the leg bets they cover), leg loser cards (R14.4), then
    pyramid tiles.

    ``leg``: the leg-rank probabilities to score them with (default: those of ``s``); a caller
    asking "what if a tile stood elsewhere" passes :func:`camelup_env.odds.placement_odds`'.
    """
    out: list[float] = []
    if s.leg_bets[seat]:
        probs = odds.leg_rank_probabilities(s) if leg is None else leg
        out = [leg_tile_ev(probs, camel, value) for camel, value in uncovered_tiles(s, seat)]
        out += [
            position_tile_ev(probs, pos, camel)
            for owner, pos, camel, _ in s.position_bets
            if owner == seat
        ]
    cards = [(camel, value) for owner, camel, value in s.loser_cards if owner == seat]
    if cards:
        probs = odds.leg_rank_probabilities(s) if leg is None else leg
        out += [loser_card_ev(probs, camel, value) for camel, value in cards]
    if not s.rules.roll_pays_at_once:  # C4: the Cup paid the roll's coin already
        out += [float(s.rules.pyramid_tile_value)] * s.pyramid_tiles[seat]
    return out


def position_bet_value(s: GameState, seat: int, action: PositionBet) -> float:
    """Value of a position bet (module docstring): the tile's EV, minus the leg-bet EV of the own
    tile it covers (the engine covers the lowest-valued uncovered one of the colour)."""
    probs = odds.leg_rank_probabilities(s)
    value = position_tile_ev(probs, action.position, action.camel)
    if not action.from_stack:
        lowest = min(
            (v for camel, v in uncovered_tiles(s, seat) if camel == action.camel), default=None
        )
        if lowest is None:  # not legal: no such tile to cover
            return 0.0
        value -= leg_tile_ev(probs, action.camel, lowest)
    return value


def photo_gains(s: GameState, seat: int) -> dict[int, float]:
    """Value of pointing the camera at each empty space (R9.2): its expected coins this leg,
    minus those of the camera where ``seat`` already points it (re-pointing gives it up)."""
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


def wanderer_gain(s: GameState, seat: int, action: WandererSwap | WandererSendBack) -> float:
    """Change in the expected leg scoring of ``seat``'s leg cards (winner and loser, R14.3,
    R14.4) when ``seat`` uses the desert wanderer so (R14.6): the camels move and the wanderer
    moves on, which changes who is ranked where when the leg ends."""
    if not s.leg_bets[seat] and not any(owner == seat for owner, _, _ in s.loser_cards):
        return 0.0
    probe = s.copy()
    probe.current = seat
    after = apply_outcome(probe, action, None)[0]  # the cards stay: a leg ends only on a roll
    return sum(held_rewards(after, seat)) - sum(held_rewards(s, seat))
