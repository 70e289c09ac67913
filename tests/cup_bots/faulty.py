"""Camel Up Cup bots written for the tests that break the Cup's rules: one answers actions the
Cup's engine refuses, one raises. The Cup rolls for both (C12)."""

from playerinterface import PlayerInterface

#: Action lists the Cup's engine refuses: a trap on space 0, an unknown code, a bet on camel
#: 5, not a list, nothing, a trap of side 2, a trap on a float space.
REFUSED = ([1, 1, 0], [7], [2, 5], "roll", None, [1, 2, 5], [1, 1, 5.0])


class Invalid(PlayerInterface):
    def move(player, g):
        return REFUSED[sum(g.player_money_values) % len(REFUSED)]


class Crasher(PlayerInterface):
    def move(player, g):
        raise RuntimeError("this bot always crashes")
