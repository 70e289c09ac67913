"""The reference observer: the observation's definition, written slice by slice.

:class:`ReferenceObserver` encodes every slice of :data:`~camelup_env.observation.slices.SLICES`
from the state on every call, for the observing seat, one small function per slice, in the
slice's documented shape (OpenSpiel's observers are the model). It is what the observation *is*;
:class:`~camelup_env.observation.Observer` computes the same vector incrementally and the batch
kernels compute it for many games at once, and both are tested equal to this one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from camelup_env.game.movement import ranking
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.observation.estimates import action_value_slice, odds_slices, race_samples_of
from camelup_env.observation.slices import layout_of


@dataclass(frozen=True)
class Seen:
    """One observation being made: the state, who looks, and the numbers every slice needs."""

    state: GameState
    seat: int
    rules: RuleSet
    dims: dict[str, int]

    def rel(self, absolute: int) -> int:
        """The relative seat of an absolute one (0: the observing seat)."""
        return (absolute - self.seat) % self.rules.num_players

    @property
    def top_leg_value(self) -> float:
        return float(max(self.rules.leg_bet_values))


Encoder = Callable[[np.ndarray, Seen], None]


def _camel_space(v: np.ndarray, s: Seen) -> None:
    for space, stack in s.state.stacks.items():
        if 1 <= space <= s.dims["L"]:
            for camel in stack:
                v[camel, space - 1] = 1.0


def _camel_progress(v: np.ndarray, s: Seen) -> None:
    for space, stack in s.state.stacks.items():
        for camel in stack:
            v[camel] = min(max(space / s.dims["L"], -0.5), 1.5)


def _camel_height(v: np.ndarray, s: Seen) -> None:
    top = s.dims["C"] - 1
    for stack in s.state.stacks.values():
        for height, camel in enumerate(stack):
            v[camel] = height / top if top else 0.0


def _camel_crossed(v: np.ndarray, s: Seen) -> None:
    for space, stack in s.state.stacks.items():
        if not 1 <= space <= s.dims["L"]:
            for camel in stack:
                v[camel, 0 if space > s.dims["L"] else 1] = 1.0


def _racing_rank(v: np.ndarray, s: Seen) -> None:
    for rank, camel in enumerate(ranking(s.state.stacks, s.dims["R"])):
        v[camel, rank] = 1.0


def _tiles(v: np.ndarray, s: Seen) -> None:
    for space, (owner, side) in s.state.tiles.items():
        v[space - 2, s.rel(owner)] = 1.0
        v[space - 2, s.dims["n"] + (0 if side > 0 else 1)] = 1.0


def _dice_revealed(v: np.ndarray, s: Seen) -> None:
    for die, _, number in s.state.revealed:
        v[die, 0] = 1.0
        v[die, number] = 1.0


def _grey_die_shown(v: np.ndarray, s: Seen) -> None:
    racing = s.dims["R"]
    for die, camel_shown, _ in s.state.revealed:
        if racing <= die < s.rules.first_support_die:  # the grey die; support dice follow it
            v[camel_shown - racing] = 1.0


def _pyramid_tiles_left(v: np.ndarray, s: Seen) -> None:
    v[0] = s.state.pyramid_tiles_left / s.rules.pyramid_tiles


def _leg_stacks(v: np.ndarray, s: Seen) -> None:
    for camel, stack in enumerate(s.state.leg_stacks):
        if stack:
            v[camel] = (stack[0] / s.top_leg_value, len(stack) / len(s.rules.leg_bet_values))


def _leg_number(v: np.ndarray, s: Seen) -> None:
    v[0] = min(s.state.leg, 20) / 20.0


def _coins(v: np.ndarray, s: Seen) -> None:
    for seat, coins in enumerate(s.state.coins):
        v[s.rel(seat)] = min(max(coins, -100), 100) / 20.0


def _coin_margin(v: np.ndarray, s: Seen) -> None:
    own = s.state.coins[s.seat]
    for seat, coins in enumerate(s.state.coins):
        v[s.rel(seat)] = min(max((coins - own) / 20.0, -5.0), 5.0)


def _leg_bets_held(v: np.ndarray, s: Seen) -> None:
    values = sorted(set(s.rules.leg_bet_values), reverse=True)
    for seat, bets in enumerate(s.state.leg_bets):
        for camel, value in bets:
            per_stack = s.rules.leg_bet_values.count(value)
            cell = (s.rel(seat), camel, values.index(value))
            v[cell] = min(v[cell] + 1.0 / per_stack, 1.0)


def _pyramid_tiles_held(v: np.ndarray, s: Seen) -> None:
    for seat, held in enumerate(s.state.pyramid_tiles):
        v[s.rel(seat)] = held / s.rules.pyramid_tiles


def _tile_on_track(v: np.ndarray, s: Seen) -> None:
    for owner, _ in s.state.tiles.values():
        v[s.rel(owner)] = 1.0


def _race_cards_in_hand(v: np.ndarray, s: Seen) -> None:
    racing = s.dims["R"]
    placed = [owner for owner, _ in s.state.winner_pile + s.state.loser_pile]
    for seat in range(s.dims["n"]):
        v[s.rel(seat)] = (racing - placed.count(seat)) / racing


def _is_current(v: np.ndarray, s: Seen) -> None:
    v[s.rel(s.state.current)] = 1.0


def _is_leg_starter(v: np.ndarray, s: Seen) -> None:
    v[s.rel(s.state.leg_starter)] = 1.0


def _partner(v: np.ndarray, s: Seen) -> None:
    for seat, partner in enumerate(s.state.partners):
        if partner >= 0:
            v[s.rel(seat), s.rel(partner)] = 1.0


def _partner_card_available(v: np.ndarray, s: Seen) -> None:
    for seat, partner in enumerate(s.state.partners):
        if partner < 0:
            v[s.rel(seat)] = 1.0


def _winner_pile(v: np.ndarray, s: Seen) -> None:
    for slot, (owner, _) in enumerate(s.state.winner_pile):
        v[slot, s.rel(owner)] = 1.0


def _loser_pile(v: np.ndarray, s: Seen) -> None:
    for slot, (owner, _) in enumerate(s.state.loser_pile):
        v[slot, s.rel(owner)] = 1.0


def _own_cards(v: np.ndarray, s: Seen) -> None:
    slots = s.dims["K"] - 1
    for camel in range(s.dims["R"]):
        v[camel, 0] = s.state.hands[s.seat] >> camel & 1
    for column, pile in ((1, s.state.winner_pile), (2, s.state.loser_pile)):
        for slot, (owner, camel) in enumerate(pile):
            if owner == s.seat:
                v[camel, column] = 1.0
                v[camel, 3] = slot / slots if slots else 0.0


def _support_dice(v: np.ndarray, s: Seen) -> None:
    first = s.rules.first_support_die
    for die in s.state.pyramid:
        if die >= first:
            v[die - first, 0] = 1.0
    for camel in range(s.dims["R"]):
        if s.state.crater >> camel & 1:
            v[camel, 1] = 1.0


def _extra_pending(v: np.ndarray, s: Seen) -> None:
    v[0] = float(s.state.extra_pending)


def _photographer(v: np.ndarray, s: Seen) -> None:
    if s.state.photographer is not None:
        v[s.rel(s.state.photographer[0])] = 1.0


def _camera_space(v: np.ndarray, s: Seen) -> None:
    if s.state.photographer is not None:
        v[s.state.photographer[1] - 1] = 1.0


def _position_bets(v: np.ndarray, s: Seen) -> None:
    n, racing = s.dims["n"], s.dims["R"]
    for owner, position, camel, value in s.state.position_bets:
        row = v[s.rules.position_tiles.index(position)]
        row[0] = 1.0
        row[1 + s.rel(owner)] = 1.0
        row[1 + n + camel] = 1.0
        row[1 + n + racing] = value / s.top_leg_value


def _wanderer(v: np.ndarray, s: Seen) -> None:
    v[s.state.wanderer - 1] = 1.0


def _loser_cards(v: np.ndarray, s: Seen) -> None:
    top = float(max(s.rules.loser_bet_values))
    for seat, camel, value in s.state.loser_cards:
        v[s.rel(seat), camel] = value / top


def _loser_card_value(v: np.ndarray, s: Seen) -> None:
    values, played = s.rules.loser_bet_values, s.state.loser_cards
    if len(played) < len(values):
        out = {camel for _, camel, _ in played}
        for camel in range(s.dims["R"]):
            if camel not in out:
                v[camel] = values[len(played)] / float(max(values))


#: The encoder of every slice that is not an estimate (those come from
#: :mod:`camelup_env.observation.estimates`).
ENCODERS: dict[str, Encoder] = {
    "camel_space": _camel_space,
    "camel_progress": _camel_progress,
    "camel_height": _camel_height,
    "camel_crossed": _camel_crossed,
    "racing_rank": _racing_rank,
    "tiles": _tiles,
    "dice_revealed": _dice_revealed,
    "grey_die_shown": _grey_die_shown,
    "pyramid_tiles_left": _pyramid_tiles_left,
    "leg_stacks": _leg_stacks,
    "leg_number": _leg_number,
    "coins": _coins,
    "coin_margin": _coin_margin,
    "leg_bets_held": _leg_bets_held,
    "pyramid_tiles_held": _pyramid_tiles_held,
    "tile_on_track": _tile_on_track,
    "race_cards_in_hand": _race_cards_in_hand,
    "is_current": _is_current,
    "is_leg_starter": _is_leg_starter,
    "partner": _partner,
    "partner_card_available": _partner_card_available,
    "winner_pile": _winner_pile,
    "loser_pile": _loser_pile,
    "own_cards": _own_cards,
    "support_dice": _support_dice,
    "extra_pending": _extra_pending,
    "photographer": _photographer,
    "camera_space": _camera_space,
    "position_bets": _position_bets,
    "wanderer": _wanderer,
    "loser_cards": _loser_cards,
    "loser_card_value": _loser_card_value,
}
#: The odds slices, written together from one estimate, in this order.
ODDS_SLICES = (
    "leg_rank_prob",
    "leg_bet_ev",
    "leg_bet_available",
    "race_winner_prob",
    "race_loser_prob",
)


class ReferenceObserver:
    """Observes any seat of a game under ``rules``, every slice from scratch.

    The arguments are :class:`~camelup_env.observation.Observer`'s, with the same defaults and
    the same layout; this one is plain and slow, the definition the fast ones are tested against.
    """

    def __init__(
        self,
        rules: RuleSet,
        odds_features: bool = True,
        race_samples: int | None = None,
        action_values: bool = True,
    ) -> None:
        self.rules = rules
        self.action_values = action_values
        self.race_samples = race_samples_of(race_samples, action_values)
        self.layout = layout_of(rules, odds_features, action_values)

    def observe(self, state: GameState, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (a new ``float32`` array)."""
        layout = self.layout
        vec = np.zeros(layout.size, dtype=np.float32)
        seen = Seen(state, seat, self.rules, layout.dims)
        for piece in layout.slices:
            if piece.name in ENCODERS:
                ENCODERS[piece.name](self.view(vec, piece.name), seen)
        if ODDS_SLICES[0] in layout.spans:
            start, stop = layout.spans[ODDS_SLICES[0]][0], layout.spans[ODDS_SLICES[-1]][1]
            vec[start:stop] = odds_slices(state, self.rules, self.race_samples, self.action_values)
        if "action_values" in layout.spans:
            self.view(vec, "action_values")[:] = action_value_slice(state, seat, self.race_samples)
        return vec

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named slice of an observation vector in its documented shape (a view)."""
        start, stop = self.layout.spans[name]
        return obs[..., start:stop].reshape(*obs.shape[:-1], *self.layout.shapes[name])
