"""Exact leg odds and Monte Carlo race odds.

Public API (used by the environment and the agents; keep names and signatures):

* :func:`leg_rank_probabilities` ``(state) -> (n_racing, n_racing)`` array ``[camel, rank]``,
  rank 0 = leading: the exact probability that each racing camel ends the **current leg** at each
  rank, given the dice still in ``state.pyramid`` and ``state.pyramid_tiles_left`` more reveals
  (R4.3, R6.1). Tiles move units (R5.3), crazy camels move backward and mirror tiles (R5.5), and a
  race that ends inside the leg (R5.4, R5.6) is ranked at that moment, as the engine ranks it.
* :func:`leg_bet_evs` ``(state) -> (n_racing,)``: expected coins at leg scoring of taking each
  colour's top leg-bet tile now (R6.2: value if first, +1 if second, -1 otherwise); NaN where the
  stack is empty.
* :func:`placement_evs` ``(state, seat) -> {(space, side): coins}``: for every legal
  ``PlaceTile`` of ``seat`` (R4.2), the exact expected tile payouts (R5.3) the owner collects
  before the leg ends, with that tile on the track (it changes movement).
* :func:`expected_landings` ``(state, ignore_tiles_of=None) -> (L + 2,)``: expected die moves
  arriving on each space (before any tile effect) over the rest of the leg, from one
  enumeration: a fast approximate tile value for every space at once (exact up to a unit's
  first landing on the tile; the greedy agent uses it at the start of a leg).
* :func:`expected_photo_coins` ``(state, spaces=None) -> {space: coins}``: the exact expected
  coins this leg of the Supercup camera (R9.2) pointed at each space.
* :func:`race_probabilities` ``(state, n_samples, seed, exact=None) -> RaceOdds``: P(overall
  winner) and P(overall loser) per racing camel by Monte Carlo rollouts of dice to the end of
  the race, with standard errors ``sqrt(p (1 - p) / n)`` (plain Monte Carlo: the high-sample
  reference, and the ``camelup_v0`` observation's estimate); exact near the end of the race
  ("Exact race odds near the end" below).
* :func:`position_odds` ``(state, race_samples=RACE_SAMPLES) -> PositionOdds``: the leg odds,
  the expected landings and a cheaper race estimate of one public position, from one
  enumeration, cached and shared by the observation and the greedy agent (next sections).
* :func:`leg_scenarios` ``(state, race_samples) -> LegScenarios``: the same estimate's samples
  row by row, each a joint outcome (the leg's ranks, the race's winner and loser), for values
  that depend on several camels at once (the risk of a set of bets).

The expected-payout formulas of the betting tiles (R6.2, R9.3, R7.2) live in
:mod:`camelup_env.game.payouts`; the values of whole actions in
:mod:`camelup_env.odds.action_values`.

How the exact odds are computed
-------------------------------
A numba kernel enumerates the rest of the leg level by level (one level per reveal): each board
is expanded by every (die left, distinct face), weighted ``1 / dice left * face multiplicity /
faces`` (a die is drawn uniformly from the pyramid, then a face uniformly from its faces, R4.3),
so sequences are *not* equally likely when dice differ (the grey die has 6 distinct faces, a
racing die 3). Boards reached by several sequences with the same dice left are merged (a DP over
(board, dice left), hash table in numpy arrays), which is exact. From the benchmark's start
position a classic full leg has 29,160 sequences but only 3,396 distinct boards before its last
reveal; a second-edition full leg 320,760 sequences but 16,615 boards. A board is one integer
per camel (``space * 16 + height``); tiles are an array indexed by space; the rule set enters
only as data: the face table ``rules.dice``, the track length and ``pyramid_tiles_left``.
Nothing depends on the preset, so other dice (Supercup support dice), tracks and tile counts
work unchanged (limits: 10 camels, 23 dice, 64 spaces). Results are float64 sums of products;
against exact ``Fraction`` arithmetic the error is below 1e-13.

The kernel reimplements :mod:`camelup_env.game.movement`; ``tests/test_odds.py`` checks it exactly
(to 1e-12) against a brute-force enumeration through the real engine.

Where the code lives: :mod:`~camelup_env.odds.tables` (a position and a rule set as arrays),
:mod:`~camelup_env.odds.kernels` (the compiled movement and enumeration),
:mod:`~camelup_env.odds.leg` (the leg odds, tile and camera values, cached),
:mod:`~camelup_env.odds.race` (the race rollouts), :mod:`~camelup_env.odds.position_estimate`
(one position's odds, shared), :mod:`~camelup_env.odds.lru` (the one cache they all keep, by
position) and :mod:`~camelup_env.odds.warm` (:func:`warm_up`: every kernel compiled before a
timed move). What each costs, with the command that measures it: ``docs/performance.md`` (Odds).

Race odds
---------
:func:`race_probabilities` rolls out whole races in a numba kernel: the current leg continues
with the tiles on the track and the dice left; at each leg end the tiles are removed (R6.4), all
dice return to the pyramid and ``rules.pyramid_tiles`` are revealed per leg (R6.1), until a unit
crosses the line (R5.4, R5.6). With Supercup support dice a new leg's pyramid is the engine's
(:func:`camelup_env.game.setup.leg_start_pyramid`: the racing dice plus the last camel's support
die,
R9.1.1). Supercup's optional extra action (R9.1.4) is a player's choice, not chance: rollouts
never take it, so with ``extra_action`` the race odds are those of players who always skip it.
Photographer and position tiles (R9.2, R9.3) do not move camels and change nothing here.
Draws come from numba's generator seeded with ``seed``, one uniform ``x`` per reveal: the die is
the ``int(x * k)``-th of the ``k`` dice left (ascending), the face comes from the fractional part,
so a call is deterministic. Standard error is ``sqrt(p (1 - p) / n) <= 0.5 / sqrt(n)``. The
default 1,000 samples are cheap enough for every decision of a greedy agent; later in the race
rollouts are shorter and faster.

Exact race odds near the end
----------------------------
Where camels only move forward (no crazy camel, no desert wanderer:
:func:`~camelup_env.odds.race_exact.exact_applies`), :mod:`~camelup_env.odds.race_exact` gives
the race odds exactly: a backward induction over the tile-free states of later legs (the board
up to the colours, and the dice left; :mod:`~camelup_env.odds.exact_kernels`), solved once per
process and rule set, folded with the current leg's enumeration. :func:`race_probabilities` and
:func:`position_odds` use them when the leader has at most ``race_exact.NEAR_END`` spaces to go
(:func:`~camelup_env.odds.race_exact.near_end`: there they cost under a millisecond even with
nothing solved yet, and less than 1,000 rollouts once solved; ``docs/odds.md`` has the
measurements), ``RaceOdds.exact`` set and standard errors 0; ``exact=True`` asks for them
wherever they apply, ``exact=False`` never.

Shared position odds
--------------------
:func:`position_odds` is what the observation (``camelup_v1``) and the greedy agent use. Per
public position (board, tile sides, dice left, reveals left: nothing hidden, R10) it runs the
leg enumeration **once**, which gives the exact leg odds and the expected landings, plus a
race estimate with ``N = race_samples`` samples (:data:`RACE_SAMPLES` = 64 for the
observation, 1,000 for greedy):

* the enumeration also adds up, exactly, the probability that the race ends *inside* the
  current leg with each camel first / last (R5.4, R5.6): that part of the estimate has no
  error, so a race that must end this leg (say, a camel on the last space and its die still in
  the pyramid with every die to be revealed) gets exact odds from any ``N``;
* the rest comes from systematic sampling of the leg's outcomes: the ``i``-th pick point
  ``x_i`` (base-2 van der Corput sequence: the first ``N`` points stratify [0, 1) when ``N``
  is a power of two) selects the outcome whose cumulative weight interval holds it; each
  selected leg-end board (race not over) is rolled out once from a fresh leg (R6.1, R6.4,
  R9.1.1), each adding ``1 / N`` to its winner and loser. Rollouts use one fixed seed
  (``RACE_SEED``, common random numbers), so the estimate is a deterministic function of the
  position and ``N``;
* the picks and rollouts are nested: the estimate with ``N`` reads the first rollouts of one
  with more samples, so an observation (64) and a greedy bot (1,000) of the same game share
  one enumeration and one rollout run per position (the larger run, when the larger request
  comes first; otherwise the small run is repeated inside the large one).

Error bound (tested in ``tests/test_position_odds.py`` against plain Monte Carlo with 20,000
rollouts, on random positions of all three presets): every entry is unbiased up to the
systematic sampling of the first leg, its root-mean-square error over positions is at most
``0.5 / sqrt(N)`` (the worst-case binomial SE), and no entry is off by more than ``2 / sqrt(N)``.
``RaceOdds.*_se`` report ``sqrt(p (1 - p) / N)``, an upper bound of the sampling part. Away
from the end of the race the stratified first leg buys little: the estimate is then about as
accurate as plain Monte Carlo with the same ``N``; what is cheaper is fewer samples, the exact
in-leg part near the end, and one computation shared by the observation and greedy. Cost:
one enumeration plus at most ``N`` rollouts. Measured errors and costs, with their commands,
are in ``docs/observation.md``.
"""

from __future__ import annotations

from camelup_env.odds import lru, wanderer
from camelup_env.odds.leg import (
    PlacementOdds,
    expected_landings,
    expected_photo_coins,
    leg_bet_evs,
    leg_rank_probabilities,
    placement_evs,
    placement_odds,
)
from camelup_env.odds.position_estimate import (
    RACE_SAMPLES,
    LegScenarios,
    PositionOdds,
    leg_scenarios,
    position_odds,
)
from camelup_env.odds.race import RaceOdds, race_probabilities
from camelup_env.odds.warm import warm_up

__all__ = [
    "RACE_SAMPLES",
    "LegScenarios",
    "PlacementOdds",
    "PositionOdds",
    "RaceOdds",
    "clear_cache",
    "expected_landings",
    "expected_photo_coins",
    "leg_bet_evs",
    "leg_rank_probabilities",
    "leg_scenarios",
    "placement_evs",
    "placement_odds",
    "position_odds",
    "race_probabilities",
    "warm_up",
]


def clear_cache() -> None:
    """Forget every cached result (the caches are bounded LRUs, so this is rarely needed)."""
    lru.clear_all()
    wanderer.clear_cache()
