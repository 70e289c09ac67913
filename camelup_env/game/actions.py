"""Actions (R4) as small frozen dataclasses, and their stable integer indexing.

For a given :class:`~camelup_env.game.rules.RuleSet` every possible action has a fixed index; the
environment's ``Discrete`` action space and its action mask use it. The layout, in order:

=====================  =====================================  ===========================
block                  actions                                size
=====================  =====================================  ===========================
leg bets (R4.1)        ``TakeLegBet(camel)`` per racing camel  n_racing
pyramid (R4.3)         ``TakePyramidTile()``                   1
track tile (R4.2)      ``PlaceTile(space, side)``, space 2..T  2 (T - 1) or 0
                       side +1 then -1 for each space; T is
                       ``rules.last_tile_space`` (L; 28 in
                       the Cup, C6)
race bets (R4.4)       ``RaceBet(pile, camel)``, winner pile   2 n_racing
                       colours then loser pile colours
partnerships (R9.4)    ``Partner(seat)`` per seat (only when   n_players or 0
                       the rule set has partnerships)
photographer (R9.2)    ``Photograph(space)``, space 1..L        L or 0
position bets (R9.3)   ``PositionBet(position, camel,          2 x tiles x n_racing or 0
                       from_stack)``: per position tile, per
                       camel, own tile then stack bottom
extra action (R9.1.4)  ``SkipExtra()``, then                    1 + n_racing or 0
                       ``AddSupportDie(camel)`` per camel
loser cards (R14.4)    ``PlayLoserCard(camel)`` per camel     n_racing or 0
wanderer (R14.6)       ``WandererSwap(lower, upper)`` per     n_racing (n_racing - 1) / 2
                       pair of camels lower < upper, then     + n_racing or 0
                       ``WandererSendBack(camel)`` per camel
=====================  =====================================  ===========================

With leg cards (the Persian tutorial, R14.3) ``TakeLegBet(camel)`` plays your winner card of
that camel, and ``TakePyramidTile()`` draws and rolls a die (R14.2).

Blocks marked "or 0" exist only when the rule set has that module, so a rule set's indices
never change when another rule set gains a module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from camelup_env.game.rules import RuleSet
from camelup_env.game.state import WINNER_PILE


@dataclass(frozen=True, slots=True)
class TakeLegBet:
    """R4.1: take the top leg-bet tile of a racing camel's stack."""

    camel: int


@dataclass(frozen=True, slots=True)
class TakePyramidTile:
    """R4.3: take a pyramid tile; a die is drawn from the pyramid and its camel moves."""


@dataclass(frozen=True, slots=True)
class PlaceTile:
    """R4.2: place (or move) your desert/spectator tile on ``space`` with ``side`` +1 or -1."""

    space: int
    side: int


@dataclass(frozen=True, slots=True)
class RaceBet:
    """R4.4: put your card of ``camel`` face down on the winner (0) or loser (1) pile."""

    pile: int
    camel: int


@dataclass(frozen=True, slots=True)
class Partner:
    """R9.4: enter a betting partnership with ``seat`` for the rest of the leg."""

    seat: int


@dataclass(frozen=True, slots=True)
class Photograph:
    """R9.2: take (or keep) the photographer tile and point the camera at an empty ``space``."""

    space: int


@dataclass(frozen=True, slots=True)
class PositionBet:
    """R9.3: take the position tile showing ``position`` and cover a ``camel`` leg-bet tile:
    your own lowest uncovered one, or (``from_stack``) the bottom tile of the camel's stack."""

    position: int
    camel: int
    from_stack: bool


@dataclass(frozen=True, slots=True)
class SkipExtra:
    """R9.1.4: decline the optional extra action; the turn passes."""


@dataclass(frozen=True, slots=True)
class AddSupportDie:
    """R9.1.4: return a pyramid tile and put ``camel``'s support die into the pyramid."""

    camel: int


@dataclass(frozen=True, slots=True)
class PlayLoserCard:
    """R14.4: play your leg loser card of ``camel`` (the Persian tutorial)."""

    camel: int


@dataclass(frozen=True, slots=True)
class WandererSwap:
    """R14.6: take the desert wanderer and swap camels ``lower`` < ``upper`` of one stack."""

    lower: int
    upper: int


@dataclass(frozen=True, slots=True)
class WandererSendBack:
    """R14.6: take the desert wanderer and send a lone ``camel`` back onto the last camel."""

    camel: int


Action = (
    TakeLegBet
    | TakePyramidTile
    | PlaceTile
    | RaceBet
    | Partner
    | Photograph
    | PositionBet
    | SkipExtra
    | AddSupportDie
    | PlayLoserCard
    | WandererSwap
    | WandererSendBack
)


@dataclass(frozen=True)
class SpaceTable:
    """The action indices of the *free* track spaces, given a bit mask of blocked ones.

    Legality often reads "any space that is not blocked" (R4.2 tiles, R9.2 camera). Spaces
    ``first..last`` are split into chunks of 8; for each chunk and each 8-bit pattern of
    blocked spaces the indices of the free ones are precomputed, so the answer for any mask is
    a few tuple lookups instead of a loop over the track.
    """

    first: int
    chunks: tuple[tuple[tuple[int, ...], ...], ...]

    @classmethod
    def build(cls, first: int, last: int, indices: Callable[[int], tuple[int, ...]]) -> SpaceTable:
        """``indices(space)``: the action indices a free ``space`` contributes, in order."""
        chunks = []
        for start in range(first, last + 1, 8):
            spaces = range(start, min(start + 8, last + 1))
            chunks.append(
                tuple(
                    tuple(
                        i for k, s in enumerate(spaces) if not blocked >> k & 1 for i in indices(s)
                    )
                    for blocked in range(256)
                )
            )
        return cls(first, tuple(chunks))

    def free(self, blocked: int) -> tuple[int, ...]:
        """The indices of every space not in ``blocked`` (bit ``s`` set = space ``s`` blocked)."""
        blocked >>= self.first
        out: tuple[int, ...] = ()
        for chunk in self.chunks:
            out += chunk[blocked & 255]
            blocked >>= 8
        return out


@dataclass(frozen=True)
class ActionTable:
    """The bijection between actions and indices for one rule set (see the module docstring)."""

    actions: tuple[Action, ...]
    index: dict[Action, int]
    pyramid: int
    tile_offset: int
    race_offset: int
    partner_offset: int
    photo_offset: int
    position_offset: int
    extra_offset: int
    loser_offset: int
    wanderer_offset: int
    #: Any of the camera, position-bet, loser-card or wanderer blocks exists: one flag for the
    #: legal-action hot path.
    module_blocks: bool
    n_racing: int
    #: Race-bet indices for each hand (bit mask of cards still held).
    race_indices: tuple[tuple[int, ...], ...]
    #: Leg-bet and pyramid indices per bit mask of the leg-bet stacks with tiles left (bits
    #: 0..n_racing-1) and a pyramid tile left (bit n_racing: the pyramid's index is n_racing).
    leg_indices: tuple[tuple[int, ...], ...]
    #: ``PlaceTile`` indices of the free spaces, per blocked-space bit mask (see SpaceTable).
    tile_spaces: SpaceTable
    #: ``Photograph`` indices of the free spaces (empty without the photographer module).
    photo_spaces: SpaceTable
    #: Memo: bit mask of the leg-bet stacks with tiles left (bit c: camel c), per
    #: ``GameState.leg_stacks`` value seen (one per reachable value: 1,024 in classic).
    leg_bits: dict[tuple[tuple[int, ...], ...], int] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __len__(self) -> int:
        return len(self.actions)

    def tile_index(self, space: int, side: int) -> int:
        return self.tile_offset + 2 * (space - 2) + (0 if side > 0 else 1)

    def race_index(self, pile: int, camel: int) -> int:
        return self.race_offset + pile * self.n_racing + camel

    def photo_index(self, space: int) -> int:
        return self.photo_offset + space - 1

    def position_index(self, row: int, camel: int, from_stack: bool) -> int:
        """``row``: the position tile's place in ``rules.position_tiles``."""
        return self.position_offset + 2 * (row * self.n_racing + camel) + from_stack

    def support_index(self, camel: int) -> int:
        return self.extra_offset + 1 + camel

    def loser_index(self, camel: int) -> int:
        return self.loser_offset + camel

    def send_back_index(self, camel: int) -> int:
        """``WandererSendBack(camel)``: after the n (n - 1) / 2 swaps of the wanderer block."""
        return self.wanderer_offset + self.n_racing * (self.n_racing - 1) // 2 + camel


def action_table(rules: RuleSet) -> ActionTable:
    """The action table of a rule set (built once per rule set object)."""
    # the engine asks on every step: one dict lookup
    table: ActionTable | None = rules._derived.get("actions")
    if table is None:
        table = rules._derived["actions"] = _build_action_table(rules)
    return table


def _build_action_table(rules: RuleSet) -> ActionTable:
    acts: list[Action] = [TakeLegBet(c) for c in range(rules.n_racing)]
    pyramid = len(acts)
    acts.append(TakePyramidTile())
    tile_offset = len(acts)
    last_tile_space = rules.last_tile_space if rules.tile_kind != "none" else 1
    acts += [PlaceTile(s, side) for s in range(2, last_tile_space + 1) for side in (1, -1)]
    race_offset = len(acts)
    acts += [RaceBet(pile, c) for pile in (0, 1) for c in range(rules.n_racing)]
    partner_offset = len(acts)
    if rules.partnerships:
        acts += [Partner(seat) for seat in range(rules.num_players)]
    photo_offset = len(acts)
    if rules.photographer:
        acts += [Photograph(s) for s in range(1, rules.track_length + 1)]
    position_offset = len(acts)
    if rules.position_bets:
        acts += [
            PositionBet(pos, c, from_stack)
            for pos in rules.position_tiles
            for c in range(rules.n_racing)
            for from_stack in (False, True)
        ]
    extra_offset = len(acts)
    if rules.extra_action:
        acts.append(SkipExtra())
        acts += [AddSupportDie(c) for c in range(rules.n_racing)]
    loser_offset = len(acts)
    if rules.leg_cards:
        acts += [PlayLoserCard(c) for c in range(rules.n_racing)]
    wanderer_offset = len(acts)
    if rules.wanderer:
        acts += [
            WandererSwap(a, b) for a in range(rules.n_racing) for b in range(a + 1, rules.n_racing)
        ]
        acts += [WandererSendBack(c) for c in range(rules.n_racing)]
    actions = tuple(acts)
    return ActionTable(
        actions=actions,
        index={a: i for i, a in enumerate(actions)},
        pyramid=pyramid,
        tile_offset=tile_offset,
        race_offset=race_offset,
        partner_offset=partner_offset,
        photo_offset=photo_offset,
        position_offset=position_offset,
        extra_offset=extra_offset,
        loser_offset=loser_offset,
        wanderer_offset=wanderer_offset,
        module_blocks=bool(
            rules.photographer or rules.position_bets or rules.leg_cards or rules.wanderer
        ),
        n_racing=rules.n_racing,
        race_indices=tuple(
            tuple(
                race_offset + pile * rules.n_racing + c
                for pile in (0, 1)
                for c in range(rules.n_racing)
                if hand >> c & 1
            )
            for hand in range(1 << rules.n_racing)
        ),
        tile_spaces=SpaceTable.build(
            2,
            last_tile_space,
            lambda s: (tile_offset + 2 * (s - 2), tile_offset + 2 * (s - 2) + 1),
        ),
        photo_spaces=SpaceTable.build(
            1,
            rules.track_length if rules.photographer else 0,
            lambda s: (photo_offset + s - 1,),
        ),
        leg_indices=tuple(
            tuple(c for c in range(rules.n_racing + 1) if bits >> c & 1)
            for bits in range(1 << (rules.n_racing + 1))
        ),
    )


def describe(action: Action, rules: RuleSet) -> str:
    """The action in plain words, e.g. ``"bet on blue winning the leg"``."""

    # Camel numbers out of range (illegal actions being reported) are named, never wrapped.
    def name(camel: int) -> str:
        return rules.colours[camel] if 0 <= camel < rules.n_camels else f"camel {camel}"

    if isinstance(action, TakeLegBet):
        if rules.leg_cards:
            return f"play your {name(action.camel)} leg winner card"
        return f"take the top {name(action.camel)} leg-bet tile"
    if isinstance(action, TakePyramidTile):
        return "draw and roll a die" if rules.wanderer else "take a pyramid tile and roll a die"
    if isinstance(action, PlaceTile):
        plus, minus = rules.tile_sides
        side = f"{plus} (+1)" if action.side > 0 else f"{minus} (-1)"
        return f"put your {rules.tile_kind} tile on space {action.space}, {side} side up"
    if isinstance(action, RaceBet):
        which = "winner" if action.pile == WINNER_PILE else "loser"
        return f"bet on {name(action.camel)} as overall {which}"
    if isinstance(action, Partner):
        return f"form a betting partnership with player {action.seat}"
    if isinstance(action, Photograph):
        return f"become the photographer and point the camera at space {action.space}"
    if isinstance(action, PositionBet):
        which = (
            f"the bottom {name(action.camel)} leg-bet tile"
            if action.from_stack
            else f"your lowest uncovered {name(action.camel)} leg-bet tile"
        )
        return f"take the position-{action.position} tile and cover {which}"
    if isinstance(action, SkipExtra):
        return "end your turn without the extra action"
    if isinstance(action, AddSupportDie):
        return (
            f"return a pyramid tile and put the {name(action.camel)} support die into the pyramid"
        )
    if isinstance(action, PlayLoserCard):
        return f"play your {name(action.camel)} leg loser card"
    if isinstance(action, WandererSwap):
        return f"take the desert wanderer and swap {name(action.lower)} and {name(action.upper)}"
    if isinstance(action, WandererSendBack):
        return f"take the desert wanderer and send {name(action.camel)} back onto the last camel"
    raise TypeError(f"not a camelup action: {action!r}")
