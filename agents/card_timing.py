"""When to spend a race card: the value of keeping it, from the race's end and the piles as read.

A race card is used once (R4.4), so betting it now gives up betting it later, when the winner or
loser is clearer. The expert (:func:`agents.expert.keep_value`) charges each race bet
``8 * (P(win) + P(last)) * horizon``, ``horizon`` linear in the spaces the leader still needs:
a fixed late payout and a fixed shape, both tuned. :func:`keep_charges` takes both from the
position instead:

* **the late card's payout** is what a card on the camel would be paid on top of each pile now,
  the cards already there read as the seat reads them
  (:func:`agents.race_beliefs.new_card_payouts`), not the first payout;
* **the horizon** is the chance that the race is still on at the seat's next turn:
  ``1 - P(the race ends inside this leg) * share``, where the first factor comes from the
  position's joint leg outcomes (:func:`camelup_env.odds.leg_scenarios`: a sampled leg end
  past the finish line) and ``share = min(1, (seats - 1) / reveals left)`` is the part of the
  leg's reveals the other seats can make before our turn comes back (as if each rolled).

    keep(c) = horizon * (P(c wins) * pay_winner(c) + P(c last) * pay_loser(c))
"""

from __future__ import annotations

import numpy as np

from agents.race_beliefs import new_card_payouts
from camelup_env.game.state import GameState
from camelup_env.odds import LegScenarios, RaceOdds


def next_turn_horizon(s: GameState, scenarios: LegScenarios) -> float:
    """The chance that the race is still on when the seat to move moves again (module doc)."""
    rules = s.rules
    reveals = min(s.pyramid_tiles_left, len(s.pyramid))
    if reveals <= 0:
        return 1.0  # the leg is over at once; the race goes on (a finished race has no turn)
    ends = float(np.mean(scenarios.lead > rules.track_length))
    share = min(1.0, (rules.num_players - 1) / reveals)
    return 1.0 - ends * share


def keep_charges(
    s: GameState,
    race: RaceOdds,
    beliefs: tuple[np.ndarray, np.ndarray],
    scenarios: LegScenarios,
) -> np.ndarray:
    """``(R,)``: the expected coins of keeping the card of each racing camel (module doc);
    ``beliefs`` are the winner and loser piles' cards as read."""
    pay = s.rules.race_bet_payouts
    late = race.winner * new_card_payouts(s.winner_pile, beliefs[0], pay) + race.loser * (
        new_card_payouts(s.loser_pile, beliefs[1], pay)
    )
    return next_turn_horizon(s, scenarios) * late
