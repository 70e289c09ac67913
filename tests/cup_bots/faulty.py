"""Camel Up Cup bots written for the tests that break the Cup's rules: one answers actions the
Cup's engine refuses, one raises. The Cup rolls for both (C12)."""

from playerinterface import PlayerInterface


class Invalid(PlayerInterface):
    def move(player, g):
        return [[1, 1, 0], [7], [2, 5], "roll", None, [1, 2, 5]][sum(map(len, g.camel_track)) % 6
                                                                 + len(g.round_bets) % 1]


class Crasher(PlayerInterface):
    def move(player, g):
        raise RuntimeError("this bot always crashes")
