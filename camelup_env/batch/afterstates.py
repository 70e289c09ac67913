"""Afterstates of many games at once: every legal action's outcome states, with their chances.

Backgammon's learners value the position after a move and take the move whose outcomes are
worth most in exact expectation over the dice. :func:`afterstates` gives what that needs for a
whole :class:`~camelup_env.batch.games.BatchGames`: each game's legal actions, each action's
outcome states (one for a bet, a tile or a partnership; every die left and every distinct face
for a pyramid tile, R4.3) with their exact probabilities, as a new batch of games. The outcomes
are played by the batch core's own rules in compiled code
(:mod:`camelup_env.batch.afterstate_kernels`); ``tests/test_afterstates.py`` checks them state
for state against the reference's :func:`~camelup_env.game.engine.chance_outcomes` and
:func:`~camelup_env.game.engine.apply_outcome`.

:meth:`Afterstates.expect` turns values of the outcome rows into each legal action's expected
value, per game: the 1-ply choice is its argmax.

    from camelup_env.batch import BatchGames
    from camelup_env.batch.afterstates import afterstates

    after = afterstates(games)            # all legal actions of every game, every outcome
    values = my_value(after.games)        # (M, ...) one value per outcome row
    q = after.expect(values)              # (N, A, ...) expected value, -inf where illegal
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from camelup_env.batch import afterstate_kernels as ak
from camelup_env.batch import kernels
from camelup_env.batch.arrays import BatchState
from camelup_env.batch.games import BatchGames


@dataclass(frozen=True)
class Afterstates:
    """The outcome rows of a batch's legal actions (rows laid out game by game, then action by
    action in index order, then roll by roll)."""

    #: the games these rows come from
    source: BatchGames
    #: (M,) games: row ``j`` is the state after ``action[j]`` in game ``game[j]``
    games: BatchGames
    #: (M,) the source game of each row
    game: np.ndarray
    #: (M,) the action played
    action: np.ndarray
    #: (M,) float64 the outcome's chance given the action (1 without chance; sums to 1 per
    #: game and action)
    probability: np.ndarray
    #: (M, 3) the roll as (die, camel shown, number), -1s for an action without chance
    rolls: np.ndarray
    #: (M,) bool: the outcome ended the race
    ended: np.ndarray
    #: (N, A) int8: each source game's legal actions
    legal: np.ndarray
    #: (N + 1,) the first row of each source game (and the total)
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.game)

    def expect(self, values: np.ndarray) -> np.ndarray:
        """Each legal action's expected value: ``values`` (M, ...) of the outcome rows, summed
        with their chances into (N, A, ...); ``-inf`` for an illegal action (and every action
        of a finished game)."""
        values = np.asarray(values, np.float64)
        if len(values) != len(self):
            raise ValueError(f"need one value per outcome row ({len(self)}), got {len(values)}")
        n, a = self.legal.shape
        out = np.zeros((n * a, *values.shape[1:]))
        weights = self.probability.reshape((-1,) + (1,) * (values.ndim - 1))
        np.add.at(out, self.game * a + self.action, values * weights)
        out = out.reshape((n, a, *values.shape[1:]))
        illegal = self.legal == 0
        out[illegal] = -np.inf
        return out


def afterstates(games: BatchGames) -> Afterstates:
    """Every legal action of every game of ``games`` and every state it can lead to (module
    docstring). Finished games contribute no row."""
    n, a = len(games), games.num_actions
    legal = np.empty((n, a), np.int8)
    counts = np.empty(n, np.int64)
    rows = games.state.rows
    ak.count_afterstates.run(games.threads, rows, games.params, legal, counts)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    m = int(offsets[-1])
    out_rows = np.empty((m, kernels.WIDTH), np.int32)
    game = np.empty(m, np.int64)
    action = np.empty(m, np.int64)
    probability = np.empty(m, np.float64)
    die = np.empty(m, np.int64)
    face = np.empty(m, np.int64)
    ended = np.empty(m, np.bool_)
    never_drawn = np.zeros(m, np.uint64)  # every roll is given: no stream is read
    ak.expand_afterstates.run(
        games.threads,
        rows,
        games.params,
        legal,
        offsets[:-1],
        never_drawn,
        out_rows,
        game,
        action,
        probability,
        die,
        face,
        ended,
    )
    state = BatchState(games.rules, out_rows, games.state.rng[game].copy())
    return Afterstates(
        source=games,
        games=BatchGames._wrap(games.rules, state, games.threads),
        game=game,
        action=action,
        probability=probability,
        rolls=_rolls(games.params, die, face),
        ended=ended,
        legal=legal,
        offsets=offsets,
    )


def _rolls(params: np.ndarray, die: np.ndarray, face: np.ndarray) -> np.ndarray:
    """(M, 3) (die, camel shown, number) of each row's roll, -1s where there is none."""
    rolls = np.full((len(die), 3), -1, np.int64)
    rolled = die >= 0
    slot = die[rolled] * kernels.MAX_FACES + face[rolled]
    rolls[rolled, 0] = die[rolled]
    rolls[rolled, 1] = params[kernels.FACE_CAMEL + slot]
    rolls[rolled, 2] = params[kernels.FACE_VALUE + slot]
    return rolls
