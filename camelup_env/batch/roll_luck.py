"""Each seat's luck of the dice, in reward units: what training subtracts to see through them.

A pyramid tile's roll is chance (R4.1, R4.3). For a value ``W`` of the seats, the **luck** of one
roll for seat ``i`` is ``W_i(after) - sum_o p(o) W_i(after o)``: how much better the roll went
for the seat than the rolls it could have been, on average. Its mean over the roll's exact
outcomes is zero whatever ``W`` is, so subtracting it from a seat's reward changes no
expectation (the policy gradient stays unbiased), and with a ``W`` that follows the game it
takes the dice's share out of the return a learner sees (docs/luck.md, "Training").

``W`` here must be cheap, since every roll of every training game pays for it: each seat's
**leg equity** after the roll (its coins plus the expected pay of its leg bets, pyramid tiles
and desert tile at the exact leg odds; the final coins when the roll ends the race), turned
into the episode's reward units by the win-probability model's softmax (:func:`worth`). The
outcomes and equities come from the batch core's own rules and the odds' own enumeration
(:func:`camelup_env.batch.luck_kernels.roll_outcomes`): every die left, every face.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from camelup_env.batch import luck_kernels
from camelup_env.batch.arrays import rule_vector
from camelup_env.batch.convert import from_states
from camelup_env.batch.games import BatchGames
from camelup_env.batch.interface import Games
from camelup_env.batch.kernels import N_RACING
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.rewards import final_rewards_batch
from camelup_env.game.rule_kernels import STACK_KEYS
from camelup_env.game.rules import RuleSet
from camelup_env.odds.tables import _tables_of
from camelup_env.odds.win import WinModel, lead_progress, load_win_model

#: The action index of taking a pyramid tile (R4.3) in the batch core: the one chance action.
ROLL = N_RACING
#: The rolls measured: those with at most this many dice left. Each outcome of a leg's first
#: roll (five dice left) needs a leg enumeration of four dice: milliseconds a roll, more than
#: the rest of a training step (docs/luck.md, "Training"). Any subset of the rolls keeps the
#: correction's mean at zero; this one keeps most of what it narrows.
MAX_DICE_LEFT = 4


def check_luck_correction(value: float) -> float:
    """``value`` if it is a share in [0, 1] (of each roll's luck to subtract), else
    ``ValueError``."""
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"luck_correction must be between 0 and 1, got {value}")
    return float(value)


class Rolls(NamedTuple):
    """The games about to roll: their indices, their rows and the race's progress."""

    games: np.ndarray
    rows: np.ndarray
    progress: np.ndarray


def worth(
    equity: np.ndarray,
    ended: np.ndarray,
    progress: np.ndarray | float,
    episode: EpisodeSettings,
    model: WinModel,
) -> np.ndarray:
    """``W``: (..., P) each seat's expected reward from the seats' equities.

    The terminal reward is that of the episode's ``reward_mode`` at equities blurred by what is
    left to play: each seat wins with the win-probability model's softmax of the equities at the
    race's ``progress`` (``"win"``: ``P - (1 - P) / (n - 1)``; ``"rank"``: one minus twice the
    expected number of seats ahead over ``n - 1``, each pair by the same logistic; ``"coins"``:
    as the mode has it). Where the roll ended the race (``ended``, the equities are the final
    coins) the reward is the exact terminal one. Coin shaping adds ``coin_shaping`` per coin.
    Any ``W`` keeps the luck's mean at zero; this one only has to follow the game closely
    enough to narrow the returns."""
    coins = np.asarray(equity, np.float64)
    n = coins.shape[-1]
    beta = model.sharpness(progress)[..., None]  # progress has the shape of coins[..., 0]
    if episode.reward_mode == "win":
        z = beta * (coins - coins.max(axis=-1, keepdims=True))
        p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
        blurred = p - (1.0 - p) / (n - 1)
    elif episode.reward_mode == "rank":
        gap = coins[..., None, :] - coins[..., :, None]  # [..., i, j]: j's lead over i
        ahead = 1.0 / (1.0 + np.exp(-beta[..., None] * gap))
        blurred = 1.0 - 2.0 * (ahead.sum(axis=-1) - 0.5) / (n - 1)
    else:  # "coins"
        blurred = final_rewards_batch(coins.reshape(-1, n), "coins").reshape(coins.shape)
    final = np.rint(coins).astype(np.int64).reshape(-1, n)  # integral where ended
    exact = final_rewards_batch(final, episode.reward_mode).reshape(coins.shape)
    return np.where(ended[..., None], exact, blurred) + episode.coin_shaping * coins


class RollLuck:
    """Each seat's luck of the rolls in one step of a batch of games (module docstring).

    ``before`` keeps the rows of the games whose action is a roll; ``after`` (with the dice the
    step rolled) returns every seat's luck, (N, P) in reward units, zero in the other games.
    Rule sets without a win-probability model are refused (``ValueError``), as are those the
    batch core does not play (its rows and rules are what the outcomes are played on; games on
    the engine are copied into rows).
    """

    def __init__(
        self,
        rules: RuleSet,
        episode: EpisodeSettings,
        threads: int = 1,
        max_dice: int = MAX_DICE_LEFT,
    ) -> None:
        #: Rolls with more dice left in the pyramid are not measured (their luck stays in).
        self.max_dice = max_dice
        self.model = load_win_model(rules)
        self.params = rule_vector(rules)
        t = _tables_of(rules)
        self.tables = (t.face_camel, t.face_value, t.face_weight, t.n_faces)
        self.episode = episode
        self.threads = threads
        self.players = rules.num_players
        self.n_racing = rules.n_racing
        self.track = rules.track_length

    def before(self, games: Games, actions: np.ndarray) -> Rolls | None:
        """The games of ``games`` about to roll with ``actions`` (``None``: none) with at most
        :attr:`max_dice` dice left; games on the engine are copied into the batch core's rows
        first."""
        rolling = np.flatnonzero(np.asarray(actions) == ROLL)
        if not rolling.size:
            return None
        if isinstance(games, BatchGames):
            rows, camels = games.state.rows[rolling], games.state.camel[rolling]
        else:
            state = from_states(games.to_states(rolling))
            rows, camels = state.rows, state.camel
        kept = np.bitwise_count(rows[:, luck_kernels.PYRAMID]) <= self.max_dice
        if not kept.any():
            return None
        lead = (camels[kept, : self.n_racing] // STACK_KEYS).max(axis=1)  # spaces of the keys
        return Rolls(rolling[kept], rows[kept].copy(), lead_progress(lead, self.track))

    def after(self, rolls: Rolls | None, rolled: np.ndarray, n: int) -> np.ndarray:
        """(n, P) every seat's luck of the rolls kept by :meth:`before`, which the step rolled
        as ``rolled`` ((n, 3): die, camel shown, number)."""
        luck = np.zeros((n, self.players))
        if rolls is None:
            return luck
        m, slots = len(rolls.games), luck_kernels.MAX_OUTCOMES
        probability = np.empty((m, slots))
        equity = np.zeros((m, slots, self.players))
        ended = np.empty((m, slots), np.bool_)
        realised = np.empty(m, np.int64)
        luck_kernels.roll_outcomes.run(
            self.threads,
            rolls.rows,
            self.params,
            np.ascontiguousarray(rolled[rolls.games], np.int64),
            *self.tables,
            np.empty_like(rolls.rows),
            probability,
            equity,
            ended,
            realised,
        )
        w = worth(equity, ended, rolls.progress[:, None], self.episode, self.model)
        expected = np.einsum("jo,jop->jp", probability, w)
        luck[rolls.games] = w[np.arange(m), realised] - expected
        return luck
