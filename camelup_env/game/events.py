"""Events: what an applied action did, in order, so replays and players can see *why*.

Every engine step returns a tuple of these dataclasses. They are omniscient (a
:class:`RaceBetPlaced` names the card's colour); :func:`public_view` hides what R10 keeps private
before events are shown to a seat other than the card's owner.

Events are records: read them, never change them. They compare and hash by value but are not
``frozen``, because a frozen dataclass is built through ``object.__setattr__`` field by field,
several times slower to build (docs/performance.md has the measurement and its command), and
every engine step builds one to six of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from camelup_env.game.rules import RuleSet


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


#: ``UnitMoved.reason`` in words (``{camel}``: the moving unit's bottom camel).
_MOVE_REASONS = {
    "die": "",
    "tile": " (tile)",
    "carrier": " ({camel} moves whatever colour the grey die shows: it is the only crazy camel "
    "carrying racing camels, R5.5)",
    "on top": " ({camel} moves whatever colour the grey die shows: it sits directly on the "
    "other crazy camel, R5.5)",
}


def describe_event(event: Event, rules: RuleSet) -> str:
    """One line of plain English for the text view and ``camelup play``."""
    col = rules.colours
    if isinstance(event, LegBetTaken):
        if rules.leg_cards:
            return (
                f"player {event.player} played the {col[event.camel]} leg winner card "
                f"(worth {event.value})"
            )
        return f"player {event.player} took the {col[event.camel]} {event.value} leg-bet tile"
    if isinstance(event, LoserCardPlayed):
        return (
            f"player {event.player} played the {col[event.camel]} leg loser card "
            f"(worth {event.value})"
        )
    if isinstance(event, CamelsSwapped):
        stack = ", ".join(col[c] for c in event.stack)
        return (
            f"player {event.player} took the desert wanderer and swapped two camels on "
            f"space {event.space}: [{stack}]"
        )
    if isinstance(event, CamelSentBack):
        return (
            f"player {event.player} took the desert wanderer and sent {col[event.camel]} "
            f"back from space {event.from_space} onto the last camel on space "
            f"{event.to_space}"
        )
    if isinstance(event, WandererMoved):
        why = "the leg is over" if event.reason == "leg" else "it was used"
        return (
            f"the desert wanderer moves from space {event.from_space} to space "
            f"{event.to_space} ({why})"
        )

    if isinstance(event, TilePlaced):
        plus, minus = rules.tile_sides
        side = plus if event.side > 0 else minus
        moved = "" if event.from_space is None else f" (moved from space {event.from_space})"
        article = "an" if side[0] in "aeiou" else "a"
        return f"player {event.player} put {article} {side} tile on space {event.space}{moved}"
    if isinstance(event, RaceBetPlaced):
        what = "a card" if event.camel is None else f"{col[event.camel]}"
        pile = "winner" if event.pile == 0 else "loser"
        return f"player {event.player} placed {what} on the overall-{pile} pile"
    if isinstance(event, PartnershipFormed):
        return f"player {event.player} partnered with player {event.partner}"
    if isinstance(event, PyramidTileTaken):
        if rules.wanderer:
            return f"player {event.player} drew a die from the pyramid"
        return f"player {event.player} took a pyramid tile"
    if isinstance(event, DieRevealed):
        return f"the {rules.die_name(event.die)} die shows {col[event.camel_shown]} {event.value}"
    if isinstance(event, UnitMoved):
        names = ", ".join(col[c] for c in event.camels)
        how = " underneath" if event.underneath else ""
        why = _MOVE_REASONS[event.reason].format(camel=col[event.camels[0]])
        last = rules.track_length
        if event.to_space > last:
            why += f" - over the finish line, {event.to_space - last} past space {last} (R5.4)"
        elif event.to_space < 1:
            why += f" - backward over the finish line, {1 - event.to_space} behind space 1 (R5.6)"
        return f"[{names}] moved {event.from_space} -> {event.to_space}{how}{why}"
    if isinstance(event, TilePayout):
        return f"player {event.owner} earned {event.coins} from the tile on space {event.space}"
    if isinstance(event, LegScored):
        order = ", ".join(col[c] for c in event.ranking)
        parts = [f"leg {event.leg} scored (ranking: {order})"]
        for seat, (items, delta) in enumerate(zip(event.items, event.deltas, strict=True)):
            if items:
                detail = ", ".join(f"{what} {amount:+d}" for what, amount in items)
                parts.append(f"  player {seat}: {detail} => {delta:+d}")
        return "\n".join(parts)
    if isinstance(event, RaceEnded):
        how = "backward" if event.backward else "forward"
        return (
            f"the race is over ({how} crossing): winner {col[event.ranking[0]]}, "
            f"last {col[event.ranking[-1]]}"
        )
    if isinstance(event, FinalBetsScored):
        pile = "winner" if event.pile == 0 else "loser"
        cards = (
            ", ".join(
                f"P{p} {col[c]} {d:+d}"
                + (
                    " (wrong, but no coins left to lose: R8.1)"
                    if c != event.target and d == 0
                    else ""
                )
                for p, c, d in event.cards
            )
            or "no cards"
        )
        return f"overall-{pile} pile ({col[event.target]}): {cards}"
    if isinstance(event, PhotographerPlaced):
        return f"player {event.player} pointed the camera at space {event.space}"
    if isinstance(event, PhotoPayout):
        return (
            f"photo on space {event.space}: player {event.owner} earned {event.coins}; "
            "the photographer tile returns"
        )
    if isinstance(event, PositionBetTaken):
        source = "from the bottom of the stack" if event.from_stack else "of their own"
        return (
            f"player {event.player} put the position-{event.position} tile on a "
            f"{col[event.camel]} {event.value} leg-bet tile {source}"
        )
    if isinstance(event, SupportDieAdded):
        return (
            f"player {event.player} returned a pyramid tile and added the "
            f"{col[event.camel]} support die to the pyramid"
        )
    if isinstance(event, ExtraSkipped):
        return f"player {event.player} skipped the extra action"
    if isinstance(event, GameOver):
        who = ", ".join(f"player {w}" for w in event.winners)
        return f"game over: coins {list(event.coins)}; winner(s): {who}"
    raise TypeError(f"not a camelup event: {event!r}")
