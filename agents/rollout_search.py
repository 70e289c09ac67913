"""Decision-time search by playing the game out: ``rollout:path/to/model.zip``.

The value head that :mod:`agents.value_search` scores with is a noisy estimate: its errors are
about the size of the differences between the moves it compares. A game played to its end is
not an estimate. This agent weighs the policy's candidate moves by playing each of them out,
many times, on the batch core (Tesauro's rollouts: one step of policy iteration at decision
time):

1. **Candidates**: the policy's best moves, as :func:`agents.policy_search.policy_candidates`
   chooses them (at most ``candidates``, logits within ``margin`` of the best).
2. **Rollouts**: ``rollouts`` complete games are dealt from the public view
   (:func:`agents.policy_search.deal_hidden`: the hidden race-bet cards drawn anew for each
   rollout); each candidate is played in each of them, then every seat plays the policy's most
   likely move until the race ends, all games of all candidates side by side
   (:class:`~camelup_env.batch.games.BatchGames`, one forward pass a step).
3. **Common dice**: rollout ``k`` of every candidate draws its dice from the same stream, so the
   candidates meet the same luck as far as their games stay alike, and the comparison measures
   the move, not the dice (common random numbers).
4. **Score**: the agent's win share at the end (1/k for a k-way tie), averaged over the
   rollouts; the best candidate is played (ties: the policy's order).

The pure policy (``ppo:`` of the same file) is the baseline this agent is measured against.
It plays the rule sets of the batch core only (``camelup_env.batch.arrays.BATCH_PRESETS``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.policy_search import PolicySearchAgent, deal_hidden
from agents.ppo import PolicyAgent, load_agent
from camelup_env.batch.arrays import BATCH_PRESETS
from camelup_env.batch.games import BatchGames
from camelup_env.batch.playout import play_to_end
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.rewards import win_shares
from camelup_env.game.state import GameState

#: A rollout still running after this many further actions is scored as it stands. Whole games
#: of a shipped policy against itself took 76 actions (median) and at most 136 in 512 games; but
#: a deterministic policy can also loop (moving desert tiles to and fro) and never end: 1 in 512
#: did, and one such rollout kept the search stepping for 1,000 actions, 1.7 s of a move.
ROLLOUT_TURNS = 200


class RolloutSearchAgent(PolicySearchAgent):
    """The policy's candidates weighed by complete games played out with the policy (module
    docstring)."""

    description = (
        "a trained policy plus rollouts: each candidate played out to the end with the "
        "policy, on common dice: rollout:path/to/model.zip"
    )

    def __init__(
        self,
        policy: PolicyAgent,
        candidates: int = 4,
        margin: float = 1.0,
        rollouts: int = 32,
    ) -> None:
        if candidates < 1 or rollouts < 1:
            raise ValueError("candidates and rollouts must be >= 1")
        super().__init__(policy, candidates, margin)
        self.rollouts = int(rollouts)

    def warmup(self, public_state: GameState) -> None:
        super().warmup(public_state)
        self.check(public_state)
        # a short play-out reaches every batch-core kernel a move's play-outs call
        self.play_out(public_state, public_state.current, legal_action_indices(public_state)[:2])

    def check(self, state: GameState) -> None:
        super().check(state)
        if state.rules.preset not in BATCH_PRESETS:
            raise ValueError(
                f"rollout: plays out games on the batch core, which does not play preset "
                f"{state.rules.preset!r} (it plays {', '.join(BATCH_PRESETS)})"
            )

    def scores(self, view: GameState, root: GameState, me: int, moves: list[int]) -> np.ndarray:
        """Each move played out from fresh deals of ``view`` (module docstring, steps 2-4)."""
        return self.play_out(view, me, moves)

    def play_out(self, view: GameState, me: int, moves: list[int]) -> np.ndarray:
        """Each move's mean win share for ``me`` over the rollouts (module docstring)."""
        k = self.rollouts
        deals = [deal_hidden(view, self.rng) for _ in range(k)]
        streams = self.rng.integers(0, 2**62, size=k)
        # row c * k + j: move c in rollout j
        games = BatchGames.from_states(deals * len(moves), seed=np.tile(streams, len(moves)))
        games.step_unchecked(np.repeat(np.asarray(moves, np.int64), k))
        final = play_to_end(
            games,
            self.policy.act_games,
            max_turns=int(games.state.turns.max()) + ROLLOUT_TURNS,
            check=False,
        )
        share = win_shares(final)[:, me]
        return share.reshape(len(moves), k).mean(axis=1)


def load(rest: str, **kwargs: Any) -> RolloutSearchAgent:
    """Loader for the ``rollout:`` prefix: the model file and the search's settings."""
    return RolloutSearchAgent(load_agent(rest), **kwargs)
