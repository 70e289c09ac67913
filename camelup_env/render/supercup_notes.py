"""The Supercup state a board picture writes out in words, shared by the PNG and the SVG board.

Both pictures draw the track, the leg and the piles as shapes; the Supercup modules' state that
has no shape of its own (the support dice in the pyramid and in craters, R9.1; the position
tiles taken, R9.3; in the PNG the camera too, R9.2) goes on one line of text under the track,
in the same words in both pictures.
"""

from __future__ import annotations

from camelup_env.game.state import GameState


def supercup_notes(state: GameState, camera: bool) -> list[str]:
    """The phrases of the Supercup line for ``state``, in order (none for a rule set without
    those modules); ``camera``: include the camera's space, for a picture that does not draw
    the camera on the track."""
    rules = state.rules
    col = rules.colours
    parts = []
    if rules.support_dice:
        first = rules.first_support_die
        inside = [col[d - first] + "+" for d in state.pyramid if d >= first]
        parts.append("support dice in the pyramid: " + (", ".join(inside) or "none"))
        if rules.extra_action:
            crater = [col[c] for c in range(rules.n_racing) if state.crater >> c & 1]
            parts.append("in craters: " + (", ".join(crater) or "none"))
    if camera and rules.photographer:
        cam = state.photographer
        parts.append(f"camera: space {cam[1]} (P{cam[0]})" if cam else "camera: free")
    if rules.position_bets:
        taken = [
            f"{pos} by P{owner} on {col[camel]} {value}"
            for owner, pos, camel, value in state.position_bets
        ]
        parts.append("position tiles: " + (", ".join(taken) or "none taken"))
    return parts
