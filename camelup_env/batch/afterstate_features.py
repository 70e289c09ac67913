"""What an afterstate value reads of a position: the viewer's observation, and what each seat
holds at the exact leg odds.

A value of afterstates (:mod:`agents.afterstate`) judges positions through the eyes of the seat
that is choosing. Its inputs are that seat's ``camelup_v1`` observation (the observer settings
its file records: raw board encodings by default, the odds slices optionally) and, with
``leg_equity``, each seat's **leg equity** - its coins plus what its leg bets, pyramid tiles
and desert tile are expected to pay at the leg's end at the exact leg odds, the quantity the
scripted bots and the luck measure compute (:func:`camelup_env.batch.afterstate_kernels.
leg_equities`) - in the observation's relative seat order, less the seats' mean, in tens of
coins. A bet's worth changes the moment it is taken, in this number, where the raw board
would leave the network to learn the leg's odds from the stacks.

With ``race_equity`` as well, each seat's equity also counts what its race cards on the piles
are expected to pay at the race's end (R7.2), at the race odds of the row's source position
(the observation's shared estimate, exact near the end): a race bet's worth shows the moment
it is taken, as a leg bet's does. The viewer's own cards are valued by their camels; another
seat's, whose colours the viewer may not see (R10), by their expectation over the camels. Every
seat's cards count, so that a position's worth does not change with who is looking at it but
for what that seat alone knows: a value learned by bootstrapping from the next mover's view
(TD) would otherwise learn that a seat's race cards are worth nothing once it has moved.

With ``captures``, each seat's **next capture** comes before the equities: what the seats in
turn from the one on move are likely to take from the leg-bet stacks next
(:func:`camelup_env.odds.win.next_captures`), the same way, in tens of coins off the seats'
mean. It is what a value of the position after a move needs to see the next seat's gain: a
roll that uncovers a rich tile hands it to the next mover. It is computed position by position
(the batch core has no kernel for it), a few times the cost of the rest of a row.

None of it reads another seat's race-card colours (R10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from camelup_env.batch import afterstate_kernels as ak
from camelup_env.batch.afterstates import Afterstates
from camelup_env.batch.games import BatchGames
from camelup_env.batch.kernels import N_RACING as ROLL  # the pyramid tile's action index
from camelup_env.batch.observe import BatchObserver
from camelup_env.game.rules import RuleSet
from camelup_env.odds.tables import _tables_of
from camelup_env.odds.win import next_captures

#: the range the leg-equity inputs are scaled from (tens of coins off the seats' mean)
EQUITY_RANGE = 5.0
#: the range the next-capture inputs are scaled from (a capture is a leg-bet tile's worth, a
#: few coins: tens of coins off the seats' mean)
CAPTURE_RANGE = 1.0


class AfterstateFeatures:
    """The input rows of an afterstate value (module docstring)."""

    def __init__(
        self,
        rules: RuleSet,
        observer: dict[str, Any],
        leg_equity: bool,
        race_equity: bool = False,
        captures: bool = False,
    ) -> None:
        if race_equity and not leg_equity:
            raise ValueError("race_equity adds to the leg equities: it needs leg_equity")
        self.rules = rules
        self.batch_observer = BatchObserver(rules, **observer)
        self.leg_equity = leg_equity
        self.race_equity = race_equity
        self.captures = captures
        # the race equity's race odds, in the observation's shared estimate (the greedy bot's)
        self._race_observer = (
            BatchObserver(
                rules,
                odds_features=True,
                race_samples=observer.get("race_samples"),
                action_values=True,
            )
            if race_equity
            else None
        )
        t = _tables_of(rules)
        self._tables = (t.face_camel, t.face_value, t.face_weight, t.n_faces)

    @property
    def size(self) -> int:
        blocks = int(self.leg_equity) + int(self.captures)
        return self.batch_observer.size + blocks * self.rules.num_players

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Each input's low and high (the observation's bounds, the captures'
        :data:`CAPTURE_RANGE`, the equities' :data:`EQUITY_RANGE`): the scaling a network
        applies first."""
        ob = self.batch_observer.observer
        n = self.rules.num_players
        ranges = [CAPTURE_RANGE] * n * self.captures + [EQUITY_RANGE] * n * self.leg_equity
        high = np.concatenate([ob.high, np.array(ranges, np.float32)])
        low = np.concatenate([ob.low, -np.array(ranges, np.float32)])
        return low.astype(np.float32), high.astype(np.float32)

    def rows(self, after: Afterstates, idx: np.ndarray, viewers: np.ndarray | int) -> np.ndarray:
        """``(len(idx), size)`` float32: outcome row ``idx[j]`` of ``after`` seen from
        ``viewers[j]``. The leg equities of a row whose action leaves the board as it was (a
        bet, a partnership) read its source position's odds, computed once per source; a
        desert tile's row reads them too (its tile's own push on the leg's odds is left out:
        placements would cost one full enumeration each, as much as all the rest); a roll's
        row, one die fewer, its own exact odds."""
        idx = np.asarray(idx, np.int64)
        seats = np.broadcast_to(np.asarray(viewers, np.int64), idx.shape)
        games = after.games
        obs = self.batch_observer.observe(games, seats, idx)
        if self.captures:
            obs = np.concatenate([obs, self._captures(games, idx, seats)], axis=1)
        if not self.leg_equity:
            return obs
        rules, n = self.rules, self.rules.num_players
        sources = after.source
        game, roll = after.game[idx], after.action[idx] == ROLL
        # the source positions whose odds these rows read (a roll's row reads its own)
        shared = _running(sources, game[~roll])
        leg = np.zeros((shared.size, rules.n_racing, rules.n_racing))
        arrivals = np.zeros((shared.size, rules.track_length + 2))
        ak.leg_odds.run(
            sources.threads,
            sources.state.rows,
            sources.params,
            shared,
            *self._tables,
            leg,
            arrivals,
        )
        odds_of = np.where(roll, -1, slots(len(sources), shared)[game])
        equity = np.zeros((idx.size, n))
        ak.leg_equities.run(
            games.threads,
            games.state.rows,
            games.params,
            idx,
            odds_of,
            leg,
            arrivals,
            *self._tables,
            equity,
        )
        if self.race_equity:
            equity += self._race_cards(after, idx, seats)
        return np.concatenate([obs, _relative(equity, seats)], axis=1)

    def _captures(self, games: BatchGames, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(len(idx), players)``: each seat's next capture (module docstring); 0 where the
        race has ended. Rows alike in all that :func:`next_captures` reads (the board, the
        tiles, the dice left, the leg-bet stacks and the seat to move) share one computation:
        the replies a 2-ply choice values are ten to a position."""
        g = games.state
        key = np.column_stack(
            [g.leg_position(idx), g.leg_taken[idx], g.current[idx], g.game_over[idx]]
        )
        _, first, alike = np.unique(key, axis=0, return_index=True, return_inverse=True)
        found = np.zeros((first.size, self.rules.num_players))
        for j, state in enumerate(games.to_states(idx[first])):
            if not state.game_over:
                found[j] = next_captures(state)
        return _relative(found[alike.reshape(-1)], seats)

    def _race_cards(self, after: Afterstates, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(len(idx), players)``: each seat's race cards' expected pay, as the row's viewer
        judges them, at its source position's race odds (finished rows: 0, their cards paid).
        A move changes the board by one roll at most and the odds after a roll average to the
        odds before, so one estimate per source serves every outcome row of it."""
        sources, games = after.source, after.games
        running = _running(sources, after.game[idx])
        race_observer = self._race_observer
        assert race_observer is not None  # built with race_equity
        odds = race_observer.observe(sources, 0, running)
        layout = race_observer.layout
        n_racing = self.rules.n_racing
        race = np.zeros((running.size, 2, n_racing))
        for pile, name in enumerate(("race_winner_prob", "race_loser_prob")):
            start, end = layout[name]
            race[:, pile] = odds[:, start:end]
        live = np.flatnonzero(~after.ended[idx])
        out = np.zeros((idx.size, self.rules.num_players))
        found = np.zeros((live.size, self.rules.num_players))
        ak.race_equities.run(
            games.threads,
            games.state.rows,
            games.params,
            idx[live],
            seats[live],
            slots(len(sources), running)[after.game[idx[live]]],
            race,
            found,
        )
        out[live] = found
        return out


def _relative(values: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Rows of per-seat coins less their mean, in each row's viewer's relative order, in tens
    of coins (the inputs' unit)."""
    n = values.shape[1]
    values = values - values.mean(axis=1, keepdims=True)
    order = (seats[:, None] + np.arange(n)) % n
    return (np.take_along_axis(values, order, axis=1) / 10.0).astype(np.float32)


def _running(sources: BatchGames, games: np.ndarray) -> np.ndarray:
    """The distinct games of ``games`` whose race is still on, sorted."""
    distinct = np.unique(games)
    return distinct[sources.state.game_over[distinct] == 0]


def slots(n: int, games: np.ndarray) -> np.ndarray:
    """``(n,)``: each game's place in ``games``, -1 for the others."""
    slot = np.full(n, -1, np.int64)
    slot[games] = np.arange(games.size)
    return slot
