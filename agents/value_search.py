"""Decision-time search with a trained policy's value head: ``search:path/to/model.zip``.

A PPO policy picks moves by instinct; its value head estimates how a position will end for the
learner. This agent uses both:

1. **Candidates**: at most ``candidates`` legal actions the policy likes best (its own choice
   first), among those whose logit is within ``margin`` of the best one's (probability at
   least ``exp(-margin)`` times the best's). The value head is a noisy estimate: compared
   over every legal action, its noise overrules moves the policy is sure of (section
   "Search with the value head" of ``docs/agents.md`` has the measurements).
2. **Hidden cards dealt**: the public view hides the other seats' race-bet cards (R10); the
   search plays on :func:`~agents.policy_search.deal_hidden` of it, the hidden colours drawn
   uniformly among the deals consistent with what is public (one colour per card, R4.4), from
   the agent's generator.
3. **Expectimax until the agent's next turn**: each candidate is applied with every chance
   outcome of the engine (:func:`camelup_env.game.engine.chance_outcomes`, exact probabilities);
   the other seats then move as the same policy would in their seat (argmax, batched), their
   dice again by chance outcomes. When the tree would grow past ``max_leaves`` states per
   candidate, a seat's die is sampled (``chance_samples`` draws) instead of enumerated.
4. **Leaves**: a state where the agent is to move again is scored by the value head from the
   agent's own observation; a finished game by the terminal reward. Both add the coin shaping
   earned on the way, with the reward settings the model was trained with (its file records
   them), so the score is the same return the value head was trained to predict.

The action with the best expected score is played (ties: the policy's order). The pure policy
(``ppo:`` of the same file) is always reported next to this agent: the search is a different
agent, registered under its own name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.policy_file import ModelFileError, read_metadata
from agents.policy_search import PolicySearchAgent
from agents.ppo import PolicyAgent, load_agent
from camelup_env.game.engine import apply_outcome, chance_outcomes
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.legality import legal_action_mask
from camelup_env.game.rewards import final_rewards
from camelup_env.game.state import GameState


class ValueSearchAgent(PolicySearchAgent):
    """Expectimax over the policy's candidates to the agent's next turn, scored by the value
    head (module docstring)."""

    description = (
        "a trained policy plus search: expectimax to its next turn, scored by its "
        "value head: search:path/to/model.zip"
    )

    def __init__(
        self,
        policy: PolicyAgent,
        reward_mode: str,
        coin_shaping: float,
        candidates: int = 4,
        margin: float = 1.0,
        max_leaves: int = 64,
        chance_samples: int = 4,
    ) -> None:
        if candidates < 1 or max_leaves < 1 or chance_samples < 1:
            raise ValueError("candidates, max_leaves and chance_samples must be >= 1")
        super().__init__(policy, candidates, margin)
        #: The reward settings the model was trained with (no turn limit: the search stops
        #: at the agent's next turn).
        self.episode = EpisodeSettings(reward_mode, coin_shaping, max_turns=None)
        self.max_leaves = int(max_leaves)
        self.chance_samples = int(chance_samples)

    def scores(self, view: GameState, root: GameState, me: int, moves: list[int]) -> list[float]:
        """Each move's expectimax score from ``root`` (module docstring, steps 3 and 4)."""
        return [self._score(root, me, a) for a in moves]

    # The search ------------------------------------------------------------------------
    def _score(self, root: GameState, me: int, action: int) -> float:
        frontier = self._expand([(1.0, root)], [action])
        leaves: list[tuple[float, GameState]] = []
        while frontier:
            waiting = [(w, s) for w, s in frontier if not s.game_over and s.current != me]
            leaves += [(w, s) for w, s in frontier if s.game_over or s.current == me]
            if not waiting:
                break
            obs = self._observe([(s, s.current) for _, s in waiting])
            masks = np.stack([legal_action_mask(s) for _, s in waiting]).astype(bool)
            moves = self.policy.act_batch(obs, masks, deterministic=True).tolist()
            frontier = self._expand(waiting, moves, budget=self.max_leaves - len(leaves))
        start = root.coins[me]
        total = 0.0
        live = [(w, s) for w, s in leaves if not s.game_over]
        if live:
            values = self.policy.values(self._observe([(s, me) for _, s in live]))
            total += sum(w * float(v) for (w, _), v in zip(live, values, strict=True))
        for w, s in leaves:
            if s.game_over:
                total += w * final_rewards(s.coins, self.episode.reward_mode)[me]
            total += w * self.episode.coin_shaping * (s.coins[me] - start)
        return total

    def _expand(
        self,
        states: Sequence[tuple[float, GameState]],
        actions: Sequence[int],
        budget: int | None = None,
    ) -> list[tuple[float, GameState]]:
        """Every (weight, state) after each state's action, over its chance outcomes: all of
        them while the tree fits ``budget``, else ``chance_samples`` draws for each die."""
        outcomes = [chance_outcomes(s, a) for (_, s), a in zip(states, actions, strict=True)]
        enumerate_all = budget is None or sum(map(len, outcomes)) <= budget
        out = []
        for (w, s), a, chances in zip(states, actions, outcomes, strict=True):
            if enumerate_all or len(chances) == 1:
                picks = [(outcome, float(p)) for outcome, p in chances]
            else:
                probs = np.array([float(p) for _, p in chances])
                drawn = self.rng.choice(len(chances), size=self.chance_samples, p=probs)
                picks = [(chances[k][0], 1.0 / self.chance_samples) for k in drawn]
            out += [(w * p, apply_outcome(s, a, outcome)[0]) for outcome, p in picks]
        return out

    def _observe(self, seats: Sequence[tuple[GameState, int]]) -> np.ndarray:
        """The observation of each (state, seat), with the policy's own settings."""
        observe = self.policy.observer.observe
        return np.stack([observe(s, seat) for s, seat in seats]).astype(np.float32)


def load(rest: str, **kwargs: Any) -> ValueSearchAgent:
    """Loader for the ``search:`` prefix: the model file, and the reward settings it records."""
    config = read_metadata(rest).get("config") or {}
    mode, shaping = config.get("reward_mode"), config.get("coin_shaping", 0.0)
    if mode is None or not isinstance(shaping, (int, float)):
        raise ModelFileError(
            f"{rest}: the model file records no training config "
            "(reward_mode, coin_shaping), which the value head's scale needs"
        )
    try:
        EpisodeSettings(str(mode), shaping, max_turns=None)
    except ValueError as exc:
        raise ModelFileError(f"{rest}: the model file's training config: {exc}") from None
    return ValueSearchAgent(load_agent(rest), str(mode), float(shaping), **kwargs)
