"""A casual player's rules of thumb; no odds are computed.

In order, the first rule that applies:

1. **Late race bets.** When the leader is within 5 spaces of the finish and clearly ahead
   (2+ spaces, or 1+ space within 2 of the finish), bet on it as overall winner; likewise bet on
   a clearly last camel (2+ spaces behind the rest) as overall loser.
2. **Back the leader early.** Take the leader's leg-bet tile if it is a 5, or a 3 while the
   leader is at least one space ahead.
3. **Partner up** (second edition, 6+ players): with an available player holding 2+ leg bets.
4. **Tile in front.** If the desert/spectator tile is still in hand, put it +1 side up on the
   first free space 1-3 ahead of the leading stack.
5. **Roll** (take a pyramid tile) if any is left; otherwise take a leg bet on the leader, on the
   second, or on anything.
"""

from __future__ import annotations

from agents.base import Agent, Observation, legal_indices
from camelup_env.game.actions import action_table
from camelup_env.game.movement import ranking
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState


class HeuristicAgent(Agent):
    description = "casual rules of thumb, no odds: back the leader, tile in front, roll otherwise"

    def act(self, observation: Observation, public_state: GameState) -> int:
        s = public_state
        rules = s.rules
        table = action_table(rules)
        legal = set(int(i) for i in legal_indices(observation))
        me = s.current
        L = rules.track_length
        order = ranking(s.stacks, rules.n_racing)
        space = {c: sp for sp, stack in s.stacks.items() for c in stack}
        leader, second, last, second_last = order[0], order[1], order[-1], order[-2]
        gap = space[leader] - space[second]

        # 1. late race bets
        to_go = L - space[leader]
        if to_go <= 5 and (gap >= 2 or (gap >= 1 and to_go <= 2)):
            i = table.race_index(WINNER_PILE, leader)
            if i in legal:
                return i
        if to_go <= 5 and space[second_last] - space[last] >= 2:
            i = table.race_index(LOSER_PILE, last)
            if i in legal:
                return i
        # 2. back the leader early
        if s.leg_stacks[leader] and leader in legal:
            top = s.leg_stacks[leader][0]
            if top >= 5 or (top >= 3 and gap >= 1):
                return leader
        # 3. partnerships
        if rules.partnerships:
            options = [
                q
                for q in range(rules.num_players)
                if table.partner_offset + q in legal and len(s.leg_bets[q]) >= 2
            ]
            if options:
                best = max(options, key=lambda q: len(s.leg_bets[q]))
                return table.partner_offset + best
        # 4. tile in front of the leading stack (a rule set may have no tiles, R14.7)
        if rules.tile_kind != "none" and s.tile_of(me) is None:
            for ahead in (1, 2, 3):
                i = table.tile_index(space[leader] + ahead, 1) if space[leader] + ahead <= L else -1
                if i in legal:
                    return i
        # 5. roll, else bet
        if table.pyramid in legal:
            return table.pyramid
        for camel in (leader, second, *order[2:]):
            if camel in legal:
                return camel
        return min(legal)
