"""A picture of a game state drawn with Pillow: ``render_image(state, viewer) -> HxWx3 uint8``.

The track is a row of squares 1..L (finish line after L); stacks stand on their squares as
coloured blocks, bottom -> top, each labelled with its colour; desert/spectator tiles show their
side and owner. Below: dice revealed this leg, leg-bet stacks, both race-bet piles (colours of
cards not owned by ``viewer`` are shown as ``?``, R10; ``viewer=None`` shows everything) and one
line per player. Supercup (R9): the camera on its space (``CAM`` and its holder), revealed support
dice in the dice row (camel colour, marked ``+``), and one line with the support dice in the
pyramid and in craters and the position tiles taken. The Persian tutorial (R14): the desert
wanderer on its space (``WAND``) and one line with the leg loser cards played. Good enough for
notebooks and videos (``camelup_v1`` ``render_mode="rgb_array"``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from camelup_env.game.movement import ranking
from camelup_env.game.state import GameState
from camelup_env.render.supercup_notes import supercup_notes

RGB = {
    "blue": (52, 101, 164),
    "green": (78, 154, 6),
    "orange": (245, 121, 0),
    "yellow": (237, 212, 0),
    "white": (250, 250, 250),
    "red": (204, 0, 0),
    "purple": (117, 80, 123),
    "black": (30, 30, 30),
    "grey": (150, 150, 150),
}
BG, SAND, INK, HIDDEN = (246, 236, 214), (222, 196, 140), (40, 32, 24), (190, 180, 165)
CELL, BLOCK = 52, 20


def track_x(space: int, left: int, cell: int, track_length: int, finish_gap: int) -> int:
    """Left edge of ``space``'s column in a drawing whose space 1 starts at ``left``: spaces
    1..L side by side, camels past the finish (R5.4) ``finish_gap`` after space L, camels
    carried backward over the line (R5.6) one column before space 1. Shared by the picture and
    the web app's SVG."""
    if space < 1:
        return left - cell
    if space > track_length:
        return left + track_length * cell + finish_gap
    return left + (space - 1) * cell


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow < 10.1: fixed-size bitmap font
        return ImageFont.load_default()


def _rgb(name: str) -> tuple[int, int, int]:
    return RGB.get(name, (120, 120, 120))


def _text_on(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    return INK if sum(fill) > 420 else (255, 255, 255)


def render_image(state: GameState, viewer: int | None = None) -> np.ndarray:
    """The board as an ``(H, W, 3)`` ``uint8`` array (see the module docstring)."""
    rules = state.rules
    col = rules.colours
    L, n = rules.track_length, rules.num_players
    left = 60
    width = max(960, left + (L + 2) * CELL + 40)
    stack_h = rules.n_camels * BLOCK
    track_y = 70 + stack_h
    per_row = (width - 150) // 38
    pile_rows = sum(max(1, -(-len(p) // per_row)) for p in (state.winner_pile, state.loser_pile))
    supercup = rules.support_dice or rules.photographer or rules.position_bets
    extra_line = supercup or rules.leg_cards
    height = track_y + CELL + 92 + 24 * pile_rows + 22 * n + 20 + (24 if extra_line else 0)
    img = Image.new("RGB", (width, height), BG)
    d = ImageDraw.Draw(img)
    f, fs, fb = _font(14), _font(11), _font(18)

    status = "race over" if state.game_over else f"player {state.current} to play"
    d.text(
        (16, 10),
        f"Camel Up ({rules.preset}) · leg {state.leg} · {status} · "
        f"pyramid tiles left {state.pyramid_tiles_left} · leg starter P{state.leg_starter}",
        fill=INK,
        font=fb,
    )
    order = ranking(state.stacks, rules.n_racing)
    d.text((16, 36), "ranking: " + " > ".join(col[c] for c in order), fill=INK, font=f)

    # Track: squares 1..L, plus one column past the line each side for crossed camels.
    def x_of(space: int) -> int:
        return track_x(space, left, CELL, L, finish_gap=8)

    for space in range(1, L + 1):
        x = x_of(space)
        d.rectangle([x, track_y, x + CELL - 3, track_y + CELL - 3], fill=SAND, outline=INK)
        d.text((x + 4, track_y + 2), str(space), fill=INK, font=fs)
        if space in state.tiles:
            owner, side = state.tiles[space]
            fill = (120, 190, 90) if side > 0 else (210, 110, 90)
            d.rectangle([x + 3, track_y + 16, x + CELL - 6, track_y + CELL - 6], fill=fill)
            d.text((x + 6, track_y + 18), f"{side:+d}", fill=INK, font=f)
            d.text((x + 6, track_y + 32), f"P{owner}", fill=INK, font=fs)
    if state.photographer is not None:  # R9.2: the camera on its (empty) space
        owner, space = state.photographer
        x = x_of(space)
        d.rectangle([x + 3, track_y + 16, x + CELL - 6, track_y + CELL - 6], fill=(60, 60, 70))
        d.ellipse([x + 33, track_y + 33, x + 42, track_y + 42], outline=(255,) * 3)
        d.text((x + 6, track_y + 18), "CAM", fill=(255, 255, 255), font=fs)
        d.text((x + 6, track_y + 32), f"P{owner}", fill=(255, 255, 255), font=fs)
    if state.wanderer:  # R14.1: the desert wanderer card on its space
        x = x_of(state.wanderer)
        d.rectangle([x + 3, track_y + 16, x + CELL - 6, track_y + CELL - 6], fill=(150, 100, 50))
        d.text((x + 6, track_y + 18), "WAND", fill=(255, 255, 255), font=fs)
    fx = left + L * CELL + 2
    d.line([fx, track_y - stack_h - 6, fx, track_y + CELL], fill=(200, 30, 30), width=3)
    d.text((fx + 4, track_y + CELL + 2), "finish", fill=(200, 30, 30), font=fs)
    for space, stack in state.stacks.items():
        x = x_of(space)
        for h, camel in enumerate(stack):
            y = track_y - 4 - (h + 1) * BLOCK
            fill = _rgb(col[camel])
            d.rectangle([x, y, x + CELL - 3, y + BLOCK - 2], fill=fill, outline=INK)
            label = col[camel][:6] + ("*" if rules.is_crazy(camel) else "")
            d.text((x + 3, y + 3), label, fill=_text_on(fill), font=fs)

    # Dice, leg-bet stacks, piles, players.
    y = track_y + CELL + 18
    d.text((16, y), "dice out:", fill=INK, font=f)
    x = 100
    for die, camel, value in state.revealed:
        support = rules.support_dice and die >= rules.first_support_die
        fill = _rgb(col[camel] if support else rules.die_name(die))
        d.rectangle([x, y - 2, x + 22, y + 18], fill=fill, outline=INK)
        d.text((x + 7, y), str(value), fill=_text_on(fill), font=f)
        if support:  # R9.1: a support die, in its camel's colour
            d.text((x + 25, y), "+", fill=INK, font=f)
            x += 12
        if rules.is_crazy(camel):
            d.text((x + 25, y), col[camel][:2], fill=INK, font=fs)
            x += 16
        x += 30
    if not state.revealed:
        d.text((x, y), "none", fill=INK, font=f)
    x = 420
    d.text((x, y), "leg-bet tiles:", fill=INK, font=f)
    x += 100
    for camel, stack in enumerate(state.leg_stacks):
        fill = _rgb(col[camel])
        d.rectangle([x, y - 2, x + 50, y + 18], fill=fill if stack else HIDDEN, outline=INK)
        text = f"{stack[0]} ({len(stack)})" if stack else "-"
        d.text((x + 4, y), text, fill=_text_on(fill) if stack else INK, font=fs)
        x += 56
    y += 28
    if supercup:  # R9.1 support dice, R9.2 camera, R9.3 position tiles
        d.text((16, y), " · ".join(supercup_notes(state, camera=True)), fill=INK, font=f)
        y += 24
    if rules.leg_cards:  # R14.4
        cards = ", ".join(f"P{o} {col[c]} {v}" for o, c, v in state.loser_cards) or "none"
        d.text((16, y), f"leg loser cards played: {cards}", fill=INK, font=f)
        y += 24
    for name, pile in (("winner", state.winner_pile), ("loser", state.loser_pile)):
        d.text((16, y), f"overall {name}:", fill=INK, font=f)
        x = 130
        for i, (owner, camel) in enumerate(pile):
            if i and i % per_row == 0:
                x, y = 130, y + 24
            shown = viewer is None or viewer == owner
            fill = _rgb(col[camel]) if shown else HIDDEN
            d.rectangle([x, y - 2, x + 34, y + 18], fill=fill, outline=INK)
            d.text((x + 4, y), f"P{owner}" if shown else f"P{owner}?", fill=_text_on(fill), font=fs)
            x += 38
        if not pile:
            d.text((x, y), "empty", fill=INK, font=f)
        y += 24
    y += 6
    for seat in range(n):
        you = " (you)" if seat == viewer else ""
        turn = " <" if seat == state.current and not state.game_over else ""
        tile = state.tile_of(seat)
        tile_text = f"tile {tile[0]}{tile[1]:+d}" if tile else "tile in hand"
        if viewer is None or viewer == seat:
            cards = (
                ",".join(col[c][:3] for c in range(rules.n_racing) if state.hands[seat] >> c & 1)
                or "-"
            )
        else:
            cards = f"{bin(state.hands[seat]).count('1')} hidden"
        partner = state.partners[seat]
        extra = f" · partner P{partner}" if partner >= 0 else ""
        d.text(
            (16, y),
            f"P{seat}{you}{turn}: {state.coins[seat]:>3} coins · pyramid "
            f"{state.pyramid_tiles[seat]} · {tile_text} · cards {cards}{extra} · leg bets:",
            fill=INK,
            font=f,
        )
        x = (
            16
            + int(
                d.textlength(
                    f"P{seat}{you}{turn}: {state.coins[seat]:>3} coins · pyramid "
                    f"{state.pyramid_tiles[seat]} · {tile_text} · cards {cards}{extra} · leg bets:",
                    font=f,
                )
            )
            + 6
        )
        for camel, value in state.leg_bets[seat]:
            fill = _rgb(col[camel])
            d.rectangle([x, y - 1, x + 18, y + 16], fill=fill, outline=INK)
            d.text((x + 5, y + 1), str(value), fill=_text_on(fill), font=fs)
            x += 21
        y += 22
    return np.asarray(img, dtype=np.uint8)
