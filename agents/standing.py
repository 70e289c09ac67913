"""Risk by standing: which of a few near-equal moves most raises the chance to win the game.

Expected coins rank moves as if only the mean mattered. Near the top of that ranking, two moves
worth the same coins can differ in what they do to the chance of *winning*: a leader gains by
bets that pay when the rivals' bets pay (the lead holds whatever the dice do), a seat behind by
bets that pay when the leader's fail. Every seat's coins are scored on the same joint outcomes
(:func:`camelup_env.odds.leg_scenarios`: the leg's ranks with the race's winner and loser),
so the covariances between all the bets on the table are exact up to the sampling:

* :func:`seat_outcomes`: ``(N, seats)``, the coins each seat holds after each outcome is scored:
  its coins, its leg-bet tiles paid by the outcome's leg ranks (R6.2), the race piles paid by
  the outcome's winner and loser with hidden cards' camels drawn from beliefs
  (:mod:`agents.race_beliefs`), and the expected value of everything else it holds (pyramid
  tiles, position bets, loser cards);
* :func:`row_outcomes`: the same for many games of the batch core at once (one position's
  joint outcomes, each game's bets and piles its own), as the afterstate player's standing
  values thousands of a move's afterstates;
* :func:`action_outcomes`: ``(N,)``, what one move adds to the mover in each outcome: its
  expected value (the agent's own, so corrections such as a kept card's worth stay in) plus the
  zero-mean swing of the bet it takes (a leg-bet tile or a race card); other moves add their
  value alone;
* :func:`win_chances`: the mean over outcomes of the win-probability model
  (:mod:`camelup_env.odds.win`) of the resulting coins, at the progress the leg leaves the race.

The model's softmax is concave in a leader's coins and convex in a trailer's, so the mean over
outcomes spreads risk when ahead and concentrates it when behind. The Cup measured this
choice, made over all moves with a cruder model of the outcomes, as over-gambling (a long-shot
bet clears every rival at once), so the agent offers it only the moves within a margin of the
best expected value.
"""

from __future__ import annotations

import numpy as np

from agents.race_beliefs import pile_payouts
from camelup_env.batch.arrays import BatchState
from camelup_env.game.actions import Action, RaceBet, TakeLegBet
from camelup_env.game.legality import uncovered_tiles
from camelup_env.game.payouts import loser_card_ev, position_tile_ev
from camelup_env.game.state import WINNER_PILE, GameState
from camelup_env.odds import LegScenarios, leg_rank_probabilities
from camelup_env.odds.win import WinModel


def leg_tile_outcomes(ranks: np.ndarray, value: int) -> np.ndarray:
    """A leg-bet tile's payout for each leg rank in ``ranks`` (R6.2): ``value`` first, 1 second
    (nothing for a Cup tile of value 0, C5), -1 otherwise."""
    return np.where(ranks == 0, float(value), np.where(ranks == 1, float(min(value, 1)), -1.0))


def seat_outcomes(
    s: GameState, sc: LegScenarios, beliefs: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """``(N, seats)`` coins of every seat after each outcome is scored (module docstring).
    ``beliefs``: the winner and the loser pile's cards, ``(cards, R)`` each, as
    :class:`agents.race_beliefs.RaceCardReader` gives them (a known card's row its camel);
    each pile pays as :func:`agents.race_beliefs.pile_payouts` says given its camel."""
    rules = s.rules
    n = rules.num_players
    pay = rules.race_bet_payouts
    winner_pays = pile_payouts(s.winner_pile, beliefs[0], pay, n)
    loser_pays = pile_payouts(s.loser_pile, beliefs[1], pay, n)
    out = np.tile(np.array(s.coins, dtype=float), (len(sc.winner), 1))
    for seat in range(n):
        for camel, value in uncovered_tiles(s, seat):
            out[:, seat] += leg_tile_outcomes(sc.ranks[:, camel], value)
    if rules.pyramid_tile_value and not rules.roll_pays_at_once:
        out += rules.pyramid_tile_value * np.array(s.pyramid_tiles, dtype=float)
    if s.position_bets or s.loser_cards:
        probs = leg_rank_probabilities(s)
        for owner, pos, camel, _ in s.position_bets:
            out[:, owner] += position_tile_ev(probs, pos, camel)
        for owner, camel, value in s.loser_cards:
            out[:, owner] += loser_card_ev(probs, camel, value)
    out += winner_pays[sc.winner] + loser_pays[sc.loser]
    return out


def row_outcomes(
    games: BatchState,
    rows: np.ndarray,
    sc: LegScenarios,
    winner_pays: np.ndarray,
    loser_pays: np.ndarray,
) -> np.ndarray:
    """``(len(rows), N, seats)``: :func:`seat_outcomes` of the batch core's games ``rows``,
    which all stand where ``sc`` was drawn (the same board, tiles and dice left), with one
    product for all of them instead of a tile-by-tile loop per game: each game's leg-bet tiles
    as a table of what they pay by rank class (first, second, other), times the outcomes'
    classes. ``*_pays``: ``(len(rows), R, seats)``, each game's piles paid by the pile's
    camel (:func:`agents.race_beliefs.pile_payouts`). The batch core plays no rule set with
    position tiles or loser cards (Supercup's, R9), so neither is counted."""
    rules = games.rules
    R, n, values = rules.n_racing, rules.num_players, rules.leg_bet_values
    by_class = np.stack([leg_tile_outcomes(np.arange(3), v) for v in values])  # (tiles, 3)
    held = np.arange(len(values)) < games.leg_taken[rows, :R, None]  # (rows, R, tiles)
    k, camel, tile = np.nonzero(held)
    owner = games.leg_owner[rows[k], camel, tile]
    paid = np.zeros((len(rows), n, R, 3))  # what each seat's tiles on each camel pay by class
    np.add.at(paid, (k, owner, camel), by_class[tile])
    classes = (np.minimum(sc.ranks, 2)[:, :, None] == np.arange(3)).reshape(len(sc.ranks), -1)
    out = (classes @ paid.reshape(len(rows) * n, -1).T).reshape(len(sc.ranks), len(rows), n)
    out = out.transpose(1, 0, 2) + games.coins[rows, None, :]
    if rules.pyramid_tile_value and not rules.roll_pays_at_once:
        out += rules.pyramid_tile_value * games.pyramid_held[rows, None, :]
    return out + winner_pays[:, sc.winner] + loser_pays[:, sc.loser]


def action_outcomes(
    s: GameState,
    action: Action,
    value: float,
    sc: LegScenarios,
    winner_paid: np.ndarray,
    loser_paid: np.ndarray,
) -> np.ndarray:
    """``(N,)`` what ``action`` adds to its taker in each outcome: ``value`` plus the zero-mean
    swing of the bet it takes. ``*_paid``: ``(R,)`` a new card's payout if its camel is the
    pile's (:func:`agents.race_beliefs.new_card_payouts`)."""
    swing: np.ndarray | None = None
    if isinstance(action, TakeLegBet) and s.leg_stacks[action.camel]:
        swing = leg_tile_outcomes(sc.ranks[:, action.camel], s.leg_stacks[action.camel][0])
    elif isinstance(action, RaceBet):
        winner = action.pile == WINNER_PILE
        camel = sc.winner if winner else sc.loser
        paid = (winner_paid if winner else loser_paid)[action.camel]
        swing = np.where(camel == action.camel, paid, -1.0)
    if swing is None:
        return np.full(len(sc.winner), float(value))
    return value + swing - swing.mean()


def win_chances(
    model: WinModel, base: np.ndarray, seat: int, adds: np.ndarray, progress: np.ndarray
) -> np.ndarray:
    """``(K,)`` the mean over outcomes of ``seat``'s win probability when it adds ``adds[k]``
    ``(K, N)`` to its coins ``base[:, seat]`` (``base``: ``(N, seats)``), at ``progress``
    ``(N,)`` (the leading camel's space over the track length when the leg ends)."""
    beta = model.sharpness(progress)  # (N,)
    coins = np.broadcast_to(base, (len(adds), *base.shape)).copy()
    coins[:, :, seat] += adds
    z = beta[None, :, None] * (coins - coins.max(axis=2, keepdims=True))
    e = np.exp(z)
    return (e[:, :, seat] / e.sum(axis=2)).mean(axis=1)
