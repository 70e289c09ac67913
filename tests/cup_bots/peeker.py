"""A Camel Up Cup bot written for the tests that checks what it is shown (C13): it raises
(so the Cup rolls for it, and the referee counts a fallback) if an opponent's game-bet camel is
visible or its own bets do not decode; otherwise it bets on every camel to win, one per turn,
then rolls."""

import hashlib

from playerinterface import PlayerInterface


def check_bet(hashed_bet, user_bet):
    bet, salt = hashed_bet.split(":")
    return bet == hashlib.sha256(salt.encode() + user_bet.encode()).hexdigest()


class Peeker(PlayerInterface):
    def move(player, g):
        for camel, owner in g.game_winner_bets + g.game_loser_bets:
            if (owner == player) == (camel is None):
                raise AssertionError(f"game bet {camel!r} of player {owner} shown to {player}")
        for other, bets in enumerate(g.player_game_bets):
            if other != player and any(b is not None for b in bets):
                raise AssertionError(f"player {other}'s game bets shown to {player}")
        mine = [c for h in g.player_game_bets[player] for c in g.camels if check_bet(h, str(c))]
        if len(mine) != len(g.player_game_bets[player]):
            raise AssertionError("an own game bet does not decode")
        free = [c for c in g.camels if c not in mine]
        return [3 + len(mine) % 2, free[0]] if free else [0]
