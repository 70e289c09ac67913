"""A Camel Up Cup bot written for the tests that never answers: a hang forfeits (C12)."""

import time

from playerinterface import PlayerInterface


class Sleeper(PlayerInterface):
    def move(player, g):
        time.sleep(60)
        return [0]
