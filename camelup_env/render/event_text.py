"""Events in words: one line of plain English per engine event (:mod:`camelup_env.game.events`).

``camelup play``, the demo, a replay's text and the web app's move list all show a game's events
this way, so a change of wording is one edit here.
"""

from __future__ import annotations

from camelup_env.game.events import (
    CamelSentBack,
    CamelsSwapped,
    DieRevealed,
    Event,
    ExtraSkipped,
    FinalBetsScored,
    GameOver,
    LegBetTaken,
    LegScored,
    LoserCardPlayed,
    PartnershipFormed,
    PhotographerPlaced,
    PhotoPayout,
    PositionBetTaken,
    PyramidTileTaken,
    RaceBetPlaced,
    RaceEnded,
    SupportDieAdded,
    TilePayout,
    TilePlaced,
    UnitMoved,
    WandererMoved,
)
from camelup_env.game.rules import RuleSet

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
    """One line of plain English (a scored leg: one line per seat paid) for ``event``."""
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
