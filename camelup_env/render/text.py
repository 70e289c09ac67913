"""A text view of a game state that a person can read in a terminal, and the environments'
``render()``.

``render_text(state, viewer=seat)`` shows what that seat may see (R10): other players' race-bet
cards are shown as owner only. ``viewer=None`` is the omniscient view (demos, debugging).
:func:`render_state` is what ``render()`` does in every environment (the AEC ``camelup_v1`` and
the single-agent one), so their render modes and viewers mean one thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from camelup_env.game.movement import ranking
from camelup_env.game.state import GameState

if TYPE_CHECKING:
    import numpy as np

#: ``render_mode``: print the text view, return it, or return an HxWx3 image (Pillow).
RENDER_MODES = ("human", "ansi", "rgb_array")


def check_render_settings(
    render_mode: str | None, render_viewer: int | str | None, num_players: int
) -> None:
    """Refuse, saying why, a render mode or viewer that :func:`render_state` cannot show."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {list(RENDER_MODES)}, got {render_mode!r}")
    if not (
        render_viewer in (None, "current")
        or (isinstance(render_viewer, int) and 0 <= render_viewer < num_players)
    ):
        raise ValueError(f"render_viewer must be 'current', None or a seat, got {render_viewer!r}")


def render_state(
    state: GameState, render_mode: str, render_viewer: int | str | None = "current"
) -> str | np.ndarray | None:
    """``state`` in ``render_mode`` (:data:`RENDER_MODES`; ``"human"`` prints and returns
    ``None``) as ``render_viewer`` sees it: ``"current"`` the seat on move (everything once the
    race is over), a seat, or ``None`` (omniscient)."""
    # any other string was refused by check_render_settings
    viewer = (
        (None if state.game_over else state.current)
        if render_viewer == "current"
        else cast("int | None", render_viewer)
    )
    if render_mode == "rgb_array":
        from camelup_env.render.image import render_image

        return render_image(state, viewer=viewer)
    text = render_text(state, viewer=viewer)
    if render_mode == "human":
        print(text + "\n")
        return None
    return text


def render_text(state: GameState, viewer: int | None = None) -> str:
    rules = state.rules
    col = rules.colours
    L = rules.track_length
    lines = []
    status = "race over" if state.game_over else f"player {state.current} to play"
    revealed = ", ".join(f"{rules.die_name(d)}:{col[c]} {v}" for d, c, v in state.revealed)
    lines.append(
        f"{rules.preset} · leg {state.leg} · {status} · leg starter P{state.leg_starter} · "
        f"pyramid tiles left {state.pyramid_tiles_left} · dice out: {revealed or 'none'}"
    )
    lines.append("track (stacks bottom -> top):")
    plus, minus = rules.tile_sides
    spaces = sorted(set(state.stacks) | set(state.tiles) | ({state.wanderer} - {0}))
    for space in spaces:
        # One marker column for every space, so numbers line up past the line too.
        label = f"{space:>3}" + (" " if 1 <= space <= L else "*" if space > L else "<")
        wanderer = "  <- desert wanderer (R14.5)" if space == state.wanderer else ""
        if space in state.tiles:
            owner, side = state.tiles[space]
            name = plus if side > 0 else minus
            lines.append(f"  {label} | [{name} {side:+d} of P{owner}]")
        else:
            camels = " ".join(col[c] for c in state.stacks.get(space, ()))
            lines.append(f"  {label} | {camels}{wanderer}")
    if any(s > L or s < 1 for s in state.stacks):
        lines.append("  (* past the finish line, < carried backward over it)")
    order = ranking(state.stacks, rules.n_racing)
    lines.append("ranking: " + " > ".join(col[c] for c in order))
    stacks = "  ".join(
        f"{col[c]}: {' '.join(map(str, s)) or '-'}" for c, s in enumerate(state.leg_stacks)
    )
    if rules.leg_cards:  # R14.3, R14.4
        lines.append(f"winner card values now: {stacks}")
        out = {camel for _, camel, _ in state.loser_cards}
        following = (*rules.loser_bet_values, 0)[len(state.loser_cards)]
        free = " ".join(col[c] for c in range(rules.n_racing) if c not in out) or "-"
        lines.append(f"loser cards: next one pays {following} · still free: {free}")
    else:
        lines.append(f"leg-bet tiles left: {stacks}")
    if rules.support_dice:  # Supercup module 1 (R9.1)
        first = rules.first_support_die
        inside = [col[d - first] for d in state.pyramid if d >= first]
        crater = [col[c] for c in range(rules.n_racing) if state.crater >> c & 1]
        lines.append(
            f"support dice in the pyramid: {', '.join(inside) or 'none'}"
            + (f" · in craters: {', '.join(crater) or 'none'}" if rules.extra_action else "")
        )
    if state.extra_pending:
        lines.append(
            f"player {state.current} may return a pyramid tile and add a support die "
            "(extra action, R9.1.4)"
        )
    if rules.photographer:  # module 2 (R9.2)
        photo = state.photographer
        lines.append(
            "photographer: "
            + (f"P{photo[0]}, camera on space {photo[1]}" if photo else "tile free")
        )
    if rules.position_bets and state.position_bets:  # module 3 (R9.3)
        lines.append(
            "position tiles: "
            + ", ".join(f"{pos} by P{o} on {col[c]}{v}" for o, pos, c, v in state.position_bets)
        )
    for name, pile in (("winner", state.winner_pile), ("loser", state.loser_pile)):
        cards = ", ".join(
            f"P{o}:{col[c]}" if viewer is None or viewer == o else f"P{o}:?" for o, c in pile
        )
        lines.append(f"overall-{name} pile (first placed first): {cards or 'empty'}")
    lines.append("players:")
    for seat in range(rules.num_players):
        bets = " ".join(f"{col[c]}{v}" for c, v in state.leg_bets[seat]) or "-"
        tile = state.tile_of(seat)
        tile_text = f" · tile {f'space {tile[0]} {tile[1]:+d}' if tile else 'in hand'}"
        if rules.tile_kind == "none":  # R14.7
            tile_text = ""
        if rules.leg_cards:  # R14.4
            losers = " ".join(f"{col[c]}{v}" for o, c, v in state.loser_cards if o == seat)
            bets += f" · loser cards {losers or '-'}"
        if viewer is None or viewer == seat:
            hand = [col[c] for c in range(rules.n_racing) if state.hands[seat] >> c & 1]
            cards = " ".join(hand) or "none"
        else:
            cards = f"{bin(state.hands[seat]).count('1')} hidden"
        partner = state.partners[seat]
        extra = f" · partner P{partner}" if partner >= 0 else ""
        me = " (you)" if seat == viewer else ""
        lines.append(
            f"  P{seat}{me}: {state.coins[seat]:>3} coins · leg bets {bets} · pyramid tiles "
            f"{state.pyramid_tiles[seat]}{tile_text} · race cards in hand {cards}{extra}"
        )
    return "\n".join(lines)
