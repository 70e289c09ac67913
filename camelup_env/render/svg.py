"""The board as SVG markup: ``render_svg(state, viewer) -> str``, for web pages.

The same picture as :mod:`camelup_env.render.image` (and its colours), drawn as vector markup
a browser scales and a test can read: the track 1..L with the finish line, stacks bottom -> top,
desert/spectator tiles with their side and owner, the camera (Supercup, R9.2); below it the
dice out this leg and what is left in the pyramid, the leg-bet tiles left on each stack, and both
race-bet piles in placing order. The players' coins and hands are not drawn: a page lists them.

Hidden information (R10): a race-bet card is drawn with its colour only when ``viewer`` owns it
or ``viewer`` is None (omniscient, e.g. a finished game's replay), and never when the state is
already a public view that hides it (camel ``-1``). Each card is a ``<g class="card">`` with
``data-owner`` and ``data-camel`` (the colour, or ``hidden``), so the hiding can be checked in
the markup itself. Every name is escaped: a rule set may carry any colour names.
"""

from __future__ import annotations

from html import escape

from camelup_env.game.state import GameState
from camelup_env.render.image import BG, HIDDEN, INK, RGB, SAND, track_x
from camelup_env.render.supercup_notes import supercup_notes

CELL, BLOCK, PAD = 48, 18, 12


def _css(rgb: tuple[int, int, int]) -> str:
    red, green, blue = rgb
    return f"#{red:02x}{green:02x}{blue:02x}"


_HEX_HIDDEN = _css(HIDDEN)


def _hex(name: str) -> str:
    return _css(RGB.get(name, (120, 120, 120)))


def _ink_on(name: str) -> str:
    """Dark text on light camels, white on dark ones (as ``render_image``)."""
    return _css(INK) if sum(RGB.get(name, (120, 120, 120))) > 420 else "#ffffff"


def _text(
    x: float,
    y: float,
    text: str,
    size: int = 12,
    fill: str = "#281e18",
    anchor: str = "start",
    weight: str = "normal",
) -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
        f'font-weight="{weight}">{escape(text)}</text>'
    )


def _rect(x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="3" fill="{fill}" '
        f'stroke="#281e18"{extra}/>'
    )


def render_svg(state: GameState, viewer: int | None = None) -> str:
    """The board of ``state`` as seen by ``viewer`` (module docstring), one ``<svg>`` element."""
    rules = state.rules
    col = rules.colours
    L = rules.track_length
    left = PAD + CELL  # one column before space 1: camels carried backward over the line
    width = left + (L + 1) * CELL + PAD + 30
    stack_h = rules.n_camels * BLOCK
    track_y = PAD + stack_h + 6
    rows_y = track_y + CELL + 28
    parts: list[str] = []

    def x_of(space: int) -> int:
        return track_x(space, left, CELL, L, finish_gap=12)

    for space in range(1, L + 1):
        x = x_of(space)
        parts.append(_rect(x, track_y, CELL - 3, CELL - 3, _css(SAND)))
        parts.append(_text(x + 4, track_y + 13, str(space), size=11))
        if space in state.tiles:
            owner, side = state.tiles[space]
            name = rules.tile_sides[0] if side > 0 else rules.tile_sides[1]
            fill = "#78be5a" if side > 0 else "#d26e5a"
            parts.append(
                f'<g class="tile" data-space="{space}" data-side="{side:+d}" '
                f'data-owner="{owner}"><title>{escape(name)} tile of P{owner}</title>'
                + _rect(x + 4, track_y + 17, CELL - 11, CELL - 24, fill)
                + _text(
                    x + CELL / 2 - 1,
                    track_y + 30,
                    f"{side:+d}",
                    size=12,
                    anchor="middle",
                    weight="bold",
                )
                + _text(x + CELL / 2 - 1, track_y + 40, f"P{owner}", size=9, anchor="middle")
                + "</g>"
            )
    if state.photographer is not None:  # R9.2: the camera on its (empty) space
        owner, space = state.photographer
        x = x_of(space)
        parts.append(
            f'<g class="camera"><title>camera of P{owner}</title>'
            + _rect(x + 4, track_y + 17, CELL - 11, CELL - 24, "#3c3c46")
            + _text(x + CELL / 2 - 1, track_y + 31, "CAM", size=10, fill="#ffffff", anchor="middle")
            + _text(
                x + CELL / 2 - 1, track_y + 40, f"P{owner}", size=9, fill="#ffffff", anchor="middle"
            )
            + "</g>"
        )
    finish = left + L * CELL + 4
    parts.append(
        f'<line x1="{finish}" y1="{PAD}" x2="{finish}" y2="{track_y + CELL}" '
        'stroke="#c81e1e" stroke-width="3"/>'
    )
    parts.append(_text(finish + 4, track_y + CELL + 12, "finish", size=10, fill="#c81e1e"))
    for space, stack in sorted(state.stacks.items()):
        x = x_of(space)
        parts.append(f'<g class="stack" data-space="{space}">')
        for h, camel in enumerate(stack):
            y = track_y - 3 - (h + 1) * BLOCK
            name = col[camel]
            crazy = rules.is_crazy(camel)
            parts.append(
                f'<g class="camel" data-camel="{escape(name)}"><title>{escape(name)}'
                f"{' (crazy, moves backward)' if crazy else ''}</title>"
                + _rect(x, y, CELL - 3, BLOCK - 2, _hex(name))
                + _text(
                    x + (CELL - 3) / 2,
                    y + 12,
                    name[:6] + ("*" if crazy else ""),
                    size=10,
                    fill=_ink_on(name),
                    anchor="middle",
                )
                + "</g>"
            )
        parts.append("</g>")

    y = rows_y
    parts.append(_text(PAD, y + 14, "dice out:", size=13, weight="bold"))
    x = PAD + 70
    for die, camel, value in state.revealed:
        support = rules.support_dice and die >= rules.first_support_die
        name = col[camel] if support else rules.die_name(die)
        parts.append(
            f'<g class="die"><title>{escape(rules.die_name(die))} die: '
            f"{escape(col[camel])} {value}</title>"
            + _rect(x, y, 22, 22, _hex(name))
            + _text(
                x + 11,
                y + 16,
                str(value) + ("+" if support else ""),
                size=13,
                fill=_ink_on(name),
                anchor="middle",
                weight="bold",
            )
            + "</g>"
        )
        x += 28
    if not state.revealed:
        parts.append(_text(x, y + 14, "none", size=12))
        x += 40
    pyramid = f"pyramid: {len(state.pyramid)} dice, {state.pyramid_tiles_left} pyramid tiles left"
    parts.append(_text(x + 14, y + 14, pyramid, size=12))

    if rules.support_dice or rules.position_bets:  # Supercup modules 1 and 3 (R9.1, R9.3)
        y += 30
        parts.append(_text(PAD, y + 14, " · ".join(supercup_notes(state, camera=False)), size=12))
    y += 34
    parts.append(_text(PAD, y + 16, "leg bets:", size=13, weight="bold"))
    x = PAD + 70
    for camel, stack in enumerate(state.leg_stacks):
        name = col[camel]
        fill = _hex(name) if stack else _HEX_HIDDEN
        ink = _ink_on(name) if stack else "#281e18"
        label = f"{stack[0]}" if stack else "-"
        more = f"({len(stack)})" if stack else ""
        parts.append(
            f'<g class="leg-stack" data-camel="{escape(name)}" data-top="{label}"><title>'
            f"{escape(name)} leg-bet tiles left: {', '.join(map(str, stack)) or 'none'}</title>"
            + _rect(x, y, 50, 24, fill)
            + _text(x + 17, y + 17, label, size=15, fill=ink, anchor="middle", weight="bold")
            + _text(x + 37, y + 16, more, size=10, fill=ink, anchor="middle")
            + "</g>"
        )
        x += 56

    per_row = max(1, (width - PAD - 110) // 40)
    for pile_name, pile in (("winner", state.winner_pile), ("loser", state.loser_pile)):
        y += 34
        parts.append(_text(PAD, y + 15, f"overall {pile_name}:", size=13, weight="bold"))
        x = PAD + 110
        for i, (owner, camel) in enumerate(pile):
            if i and i % per_row == 0:
                x, y = PAD + 110, y + 28
            shown = camel >= 0 and (viewer is None or viewer == owner)
            name = col[camel] if shown else "hidden"
            fill = _hex(name) if shown else _HEX_HIDDEN
            ink = _ink_on(name) if shown else "#281e18"
            title = f"P{owner}: {name}" if shown else f"P{owner}: a card (colour hidden, R10)"
            parts.append(
                f'<g class="card" data-pile="{pile_name}" data-owner="{owner}" '
                f'data-camel="{escape(name)}"><title>{escape(title)}</title>'
                + _rect(x, y, 36, 22, fill)
                + _text(
                    x + 18,
                    y + 15,
                    f"P{owner}" + ("" if shown else "?"),
                    size=11,
                    fill=ink,
                    anchor="middle",
                )
                + "</g>"
            )
            x += 40
        if not pile:
            parts.append(_text(x, y + 15, "empty", size=12))
    height = y + 22 + PAD
    body = "".join(parts)
    background = _css(BG)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} '
        f'{height}" width="{width}" height="{height}" font-family="sans-serif" role="img" '
        f'aria-label="the board"><rect width="100%" height="100%" fill="{background}"/>'
        f"{body}</svg>"
    )
