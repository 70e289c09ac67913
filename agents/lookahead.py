"""One ply of lookahead on top of the greedy values: what does my move hand the next player?

The greedy player (:mod:`agents.greedy`) values each action by the coins it expects to earn and
ignores what the move gives away: rolling the die reveals a camel's move, after which the next
player may find a much better leg bet; taking the 5 tile leaves the 3 tile to the next player.
This agent scores each candidate action ``a`` (the ``candidates`` best by greedy value, plus the
pyramid tile when legal) by

    value(a) = greedy_ev(a) - reply_weight * E[ best greedy value of the next player after a ]

where the expectation is an exact expectimax over the coming die (``chance_outcomes`` /
``apply_outcome`` of the engine, run on the public view) when ``a`` takes a pyramid tile, and a
single state otherwise. The next player's best value comes from a cheap greedy evaluation (leg
bets, pyramid tile, race bets with ``reply_race_samples`` rollouts, partnerships, Supercup
position bets and support dice; tile placements and the camera skipped). When the move leaves
us the Supercup extra decision (R9.1.4), the reply is taken after we skip it.

A race card is used once (R4.4), so betting it now forgoes betting it later, when the race is
clearer. Greedy ignores that; with ``later_payout > 0`` each race bet is charged the value of
keeping the card: ``later_payout * max(P(win), P(last)) * horizon`` - a late, near-certain bet
on the same camel - where ``horizon`` is :func:`agents.expert.race_horizon` with ``near=4,
far=10``: it falls linearly from 1 when the leader needs 10+ spaces to finish to 0 at 4 (the
race may end before the next turn). The expert agent charges race bets on the same horizon.
It is off here by default (``later_payout=0``): a first measurement seemed to show it cost
coins, but that tournament seated the players in one cyclic order only (see
``results/tournaments/classic4_rotations_bias``), so it is untested, not refuted.

``reply_weight`` is 1 with two players (the next player is the only opponent: my coins minus
theirs); there it beats greedy head to head (``results/tournaments/classic2_h2h``). With more
players it defaults to 0, which makes this agent play exactly as greedy: with ``reply_weight =
1 / (players - 1)`` (my coins minus the opponents' mean) it was even with greedy at a 4-player
table of the four baselines (finished ahead of greedy in 47.3% of 240 games, every seat and
cyclic order) at several times greedy's cost. Pass ``reply_weight`` to use it anyway.

Hidden information: the next player's hand is unknown in the public
view, so every colour is treated as still in their hand; the colours of hidden cards already in
the piles are modelled as in :func:`camelup_env.game.payouts.race_card_ev`.
"""

from __future__ import annotations

from agents.base import Agent, Observation, best_action, legal_indices
from agents.expert import race_horizon
from agents.greedy import GreedyAgent
from camelup_env.game.actions import SkipExtra, action_table
from camelup_env.game.engine import apply_outcome, chance_outcomes
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.state import GameState


class LookaheadAgent(Agent):
    description = (
        "2 players: greedy values minus the next player's best reply (expectimax "
        "over the die); more players: as greedy"
    )

    def __init__(
        self,
        candidates: int = 4,
        reply_weight: float | None = None,
        race_samples: int = 1000,
        reply_race_samples: int = 100,
        later_payout: float = 0.0,
    ) -> None:
        self.candidates = int(candidates)
        self.reply_weight = reply_weight
        self.later_payout = float(later_payout)
        self.greedy = GreedyAgent(race_samples=race_samples)
        self.reply = GreedyAgent(
            race_samples=reply_race_samples, place_tiles=False, photographer=False
        )

    def warmup(self, public_state: GameState) -> None:
        self.greedy.warmup(public_state)

    def act(self, observation: Observation, public_state: GameState) -> int:
        return self.best(public_state, legal_indices(observation))[0]

    def best(self, s: GameState, legal) -> tuple[int, dict[int, float]]:
        """The chosen action and the lookahead value of every candidate considered."""
        values = self.greedy.action_values(s, legal)
        self._charge_cards(s, values)
        pyramid = action_table(s.rules).pyramid
        ranked = sorted(values, key=lambda i: (-values[i], i))
        chosen = ranked[: self.candidates]
        if pyramid in values and pyramid not in chosen:
            chosen.append(pyramid)
        n = s.rules.num_players
        weight = self.reply_weight if self.reply_weight is not None else (1.0 if n == 2 else 0.0)
        if weight == 0:  # no reply term: the (charged) greedy values decide
            scores = {a: values[a] for a in chosen}
            return best_action(scores), scores
        sim = _simulation_state(s)
        scores = {}
        for a in chosen:
            expected = 0.0
            for outcome, prob in chance_outcomes(sim, a):
                after, _ = apply_outcome(sim, a, outcome)
                expected += float(prob) * self._reply_value(after)
            scores[a] = values[a] - weight * expected
        return best_action(scores), scores

    def _charge_cards(self, s: GameState, values: dict[int, float]) -> None:
        """Subtract the value of keeping a race card for later (module docstring)."""
        table = action_table(s.rules)
        race = [i for i in values if table.race_offset <= i < table.partner_offset]
        if not race or self.later_payout <= 0:
            return
        odds_ = self.greedy.race_odds(s)
        horizon = race_horizon(s, near=4, far=10)
        for i in race:
            c = (i - table.race_offset) % s.rules.n_racing
            keep = self.later_payout * max(odds_.winner[c], odds_.loser[c]) * horizon
            values[i] -= keep

    def _reply_value(self, s: GameState) -> float:
        if s.extra_pending:  # R9.1.4: our own extra decision comes first; assume we skip it
            s, _ = apply_outcome(s, action_table(s.rules).index[SkipExtra()], None)
        if s.game_over:
            return 0.0
        values = self.reply.action_values(s, legal_action_indices(s))
        return max(values.values(), default=0.0)


def _simulation_state(s: GameState) -> GameState:
    """The public view made playable: unknown hands are taken to be full (module docstring)."""
    sim = s.copy()
    full = (1 << s.rules.n_racing) - 1
    sim.hands = tuple(full if h < 0 else h for h in s.hands)
    return sim
