"""What a seat may not see (R10): the colour of every race-betting card of another seat, and
which colours another seat still holds. :func:`public_view` removes exactly that."""

from __future__ import annotations

from camelup_env.game.state import HIDDEN, GameState

__all__ = ["HIDDEN", "public_view"]


def public_view(state: GameState, seat: int | None) -> GameState:
    """A copy of ``state`` with what ``seat`` may not see removed (R10).

    * every race-bet card of another seat has camel ``-1`` (owner and pile order stay visible);
    * ``hands`` of every other seat are ``-1`` (unknown; how many cards a seat still holds is
      ``n_racing`` minus its cards in the piles).

    ``seat=None`` hides every seat's cards (a spectator's view). Everything else is public. The
    view is for reading only: the engine cannot continue a game from it.
    """
    # Built from copy() rather than dataclasses.replace: every opponent move of a training game
    # makes one view, and replace() (which re-runs __init__ on 22 fields) cost three times more.
    view = state.copy()
    if state.winner_pile:
        view.winner_pile = tuple(c if c[0] == seat else (c[0], HIDDEN) for c in state.winner_pile)
    if state.loser_pile:
        view.loser_pile = tuple(c if c[0] == seat else (c[0], HIDDEN) for c in state.loser_pile)
    view.hands = tuple(h if s == seat else HIDDEN for s, h in enumerate(state.hands))
    return view
