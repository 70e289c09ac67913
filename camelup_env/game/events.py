"""Events: what an applied action did, in order, so replays and players can see *why*.

Every engine step returns a tuple of these dataclasses. They are omniscient (a
:class:`RaceBetPlaced` names the card's colour); :func:`public_view` hides what R10 keeps private
before events are shown to a seat other than the card's owner. Each reads as a line of plain
English through :func:`camelup_env.render.event_text.describe_event`.

Events are records: read them, never change them. They compare and hash by value but are not
``frozen``, because a frozen dataclass is built through ``object.__setattr__`` field by field,
several times slower to build (docs/performance.md has the measurement and its command), and
every engine step builds one to six of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(slots=True, unsafe_hash=True)
class LegBetTaken:
    player: int
    camel: int
    value: int


@dataclass(slots=True, unsafe_hash=True)
class TilePlaced:
    player: int
    space: int
    side: int
    from_space: int | None


@dataclass(slots=True, unsafe_hash=True)
class RaceBetPlaced:
    player: int
    pile: int
    camel: int | None  # None in a view where the colour is hidden (R10)


@dataclass(slots=True, unsafe_hash=True)
class PartnershipFormed:
    player: int
    partner: int


@dataclass(slots=True, unsafe_hash=True)
class PyramidTileTaken:
    player: int


@dataclass(slots=True, unsafe_hash=True)
class DieRevealed:
    die: int
    camel_shown: int
    value: int


@dataclass(slots=True, unsafe_hash=True)
class UnitMoved:
    """A unit moved; ``camels`` bottom -> top.

    ``reason`` says why: ``"die"`` (the die shown moved it), ``"tile"`` (the extra step of a
    desert/spectator tile, R5.3), or, for a grey die that moved the *other* crazy camel than the
    colour shown, ``"carrier"`` (the only crazy camel carrying racing camels, R5.5 rule 1) or
    ``"on top"`` (it sits directly on the other crazy camel, R5.5 rule 2). ``to_space`` beyond
    the track (above L, or below 1 for a backward unit) means the unit crossed the finish line
    (R5.4, R5.6).
    """

    camels: tuple[int, ...]
    from_space: int
    to_space: int
    underneath: bool
    reason: str


@dataclass(slots=True, unsafe_hash=True)
class TilePayout:
    owner: int
    space: int
    coins: int


@dataclass(slots=True, unsafe_hash=True)
class LegScored:
    """R6.2: ``items[seat]`` lists (what, coins) and ``deltas[seat]`` the coins actually paid."""

    leg: int
    ranking: tuple[int, ...]
    items: tuple[tuple[tuple[str, int], ...], ...]
    deltas: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True)
class RaceEnded:
    """R5.4/R5.6: a unit crossed the finish line; ``ranking`` racing camels first to last."""

    ranking: tuple[int, ...]
    backward: bool


@dataclass(slots=True, unsafe_hash=True)
class FinalBetsScored:
    """R7.2: one pile, card by card in placing order as (player, camel, coins paid)."""

    pile: int
    target: int
    cards: tuple[tuple[int, int, int], ...]


@dataclass(slots=True, unsafe_hash=True)
class PhotographerPlaced:
    """R9.2: ``player`` holds the photographer tile with the camera on ``space``."""

    player: int
    space: int


@dataclass(slots=True, unsafe_hash=True)
class PhotoPayout:
    """R9.2: a unit of ``camels`` stopped on the camera space; the tile then returns."""

    owner: int
    space: int
    coins: int


@dataclass(slots=True, unsafe_hash=True)
class PositionBetTaken:
    """R9.3: the position tile covers a (camel, value) leg-bet tile of ``player``."""

    player: int
    position: int
    camel: int
    value: int
    from_stack: bool


@dataclass(slots=True, unsafe_hash=True)
class SupportDieAdded:
    """R9.1.4: ``player`` returned a pyramid tile and put ``camel``'s support die in."""

    player: int
    camel: int


@dataclass(slots=True, unsafe_hash=True)
class ExtraSkipped:
    """R9.1.4: ``player`` declined the extra action."""

    player: int


@dataclass(slots=True, unsafe_hash=True)
class LoserCardPlayed:
    """R14.4: ``player`` played a leg loser card on ``camel``, worth ``value`` if it is last."""

    player: int
    camel: int
    value: int


@dataclass(slots=True, unsafe_hash=True)
class CamelsSwapped:
    """R14.6: with the desert wanderer, ``player`` swapped two camels of the stack on
    ``space``; ``stack`` is the stack after the swap, bottom -> top."""

    player: int
    space: int
    stack: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True)
class CamelSentBack:
    """R14.6: with the desert wanderer, ``player`` sent a lone ``camel`` from ``from_space``
    onto the last camel's stack on ``to_space``."""

    player: int
    camel: int
    from_space: int
    to_space: int


@dataclass(slots=True, unsafe_hash=True)
class WandererMoved:
    """R14.5, R14.6: the desert wanderer moved on, after a leg (``reason="leg"``) or after a
    player used it (``reason="used"``)."""

    from_space: int
    to_space: int
    reason: str


@dataclass(slots=True, unsafe_hash=True)
class GameOver:
    coins: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    LegBetTaken
    | TilePlaced
    | RaceBetPlaced
    | PartnershipFormed
    | PyramidTileTaken
    | DieRevealed
    | UnitMoved
    | TilePayout
    | LegScored
    | RaceEnded
    | FinalBetsScored
    | PhotographerPlaced
    | PhotoPayout
    | PositionBetTaken
    | SupportDieAdded
    | ExtraSkipped
    | LoserCardPlayed
    | CamelsSwapped
    | CamelSentBack
    | WandererMoved
    | GameOver
)


def public_view(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may see it: other players' race-bet colours hidden (R10).

    Final-bet scoring reveals every card, as it does at the table.
    """
    if isinstance(event, RaceBetPlaced) and event.player != viewer:
        return replace(event, camel=None)
    return event
