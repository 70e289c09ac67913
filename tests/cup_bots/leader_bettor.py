"""A small Camel Up Cup bot written for the tests (the Cup's interface, not one of its bots):
bets on the camel leading now while it pays, backs it to win the race late, else rolls."""

from playerinterface import PlayerInterface


def leader(g):
    for stack in reversed(g.camel_track):
        if stack:
            return stack[-1]
    return 0


class LeaderBettor(PlayerInterface):
    def move(player, g):
        camel = leader(g)
        if sum(1 for c, _ in g.round_bets if c == camel) < 3 and sum(g.camel_yet_to_move) > 2:
            return [2, camel]
        farthest = max(i for i, stack in enumerate(g.camel_track) if stack)
        if farthest >= 12 and not g.player_game_bets[player]:
            return [3, camel]
        return [0]
