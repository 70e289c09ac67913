"""Decision-time search with a trained policy's value head: ``search:path/to/model.zip``.

A PPO policy picks moves by instinct; its value head estimates how a position will end for the
learner. This agent uses both:

1. **Candidates**: at most ``candidates`` legal actions the policy likes best (its own choice
   first), among those whose logit is within ``margin`` of the best one's (probability at
   least ``exp(-margin)`` times the best's). The value head is a noisy estimate: compared
   over every legal action, its noise overrules moves the policy is sure of (section
   "Search with the value head" of ``docs/agents.md`` has the measurements).
2. **Hidden cards dealt**: the public view hides the other seats' race-bet cards (R10); the
   search plays on :func:`deal_hidden` of it, the hidden colours drawn uniformly among the deals
   consistent with what is public (one colour per card, R4.4), from the agent's generator.
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

from agents.base import Agent, Observation, legal_indices
from agents.policy_file import ModelFileError, read_metadata
from agents.ppo import PolicyAgent, load_agent
from camelup_env.game.engine import apply_outcome, chance_outcomes
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.legality import legal_action_mask
from camelup_env.game.rewards import final_rewards
from camelup_env.game.state import HIDDEN, GameState


def deal_hidden(view: GameState, rng: np.random.Generator) -> GameState:
    """A complete game consistent with a seat's public view: each hidden race-bet card gets a
    colour its owner has not placed yet, each hidden hand the colours its owner has left.

    Every consistent deal is equally likely: a seat's hidden cards are a uniform draw without
    replacement from the colours (R4.4: one card per colour), in pile order.
    """
    n = view.rules.n_racing
    piles = {"winner": list(view.winner_pile), "loser": list(view.loser_pile)}
    hands = list(view.hands)
    for seat in range(view.rules.num_players):
        if hands[seat] != HIDDEN:
            continue
        slots = [
            (name, k)
            for name in piles
            for k, (owner, camel) in enumerate(piles[name])
            if owner == seat and camel == HIDDEN
        ]
        colours = rng.permutation(n)[: len(slots)]
        for (name, k), colour in zip(slots, colours, strict=True):
            piles[name][k] = (seat, int(colour))
        hands[seat] = ((1 << n) - 1) & ~sum(1 << int(c) for c in colours)
    dealt = view.copy()
    dealt.winner_pile, dealt.loser_pile = tuple(piles["winner"]), tuple(piles["loser"])
    dealt.hands = tuple(hands)
    return dealt


def policy_candidates(
    logits: np.ndarray, legal: Sequence[int] | np.ndarray, candidates: int, margin: float
) -> list[int]:
    """The moves a search weighs: at most ``candidates`` legal actions in the policy's order,
    those whose logit is within ``margin`` of the best one's (module docstring, step 1)."""
    order = sorted(legal, key=lambda i: -logits[i])
    best = logits[order[0]]
    return [int(i) for i in order[:candidates] if logits[i] >= best - margin]


class ValueSearchAgent(Agent):
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
        if margin < 0:
            raise ValueError(f"margin must be >= 0, got {margin}")
        self.margin = float(margin)
        self.policy = policy
        #: The reward settings the model was trained with (no turn limit: the search stops
        #: at the agent's next turn).
        self.episode = EpisodeSettings(reward_mode, coin_shaping, max_turns=None)
        self.candidates = int(candidates)
        self.max_leaves = int(max_leaves)
        self.chance_samples = int(chance_samples)
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.policy.reset(seed)

    def warmup(self, public_state: GameState) -> None:
        self.policy.warmup(public_state)

    def act(self, observation: Observation, public_state: GameState) -> int:
        self.policy.check_rules(public_state.rules)
        legal = legal_indices(observation)
        if len(legal) == 1:
            return legal[0]
        me = public_state.current
        root = deal_hidden(public_state, self.rng)
        logits = self.policy.logits(self._observe([(root, me)]))[0]
        chosen = policy_candidates(logits, legal, self.candidates, self.margin)
        if len(chosen) == 1:
            return chosen[0]
        scores = [self._score(root, me, a) for a in chosen]
        return chosen[int(np.argmax(scores))]  # first of the best: the policy's order

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
            values = self._values(self._observe([(s, me) for _, s in live]))
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

    def _values(self, obs: np.ndarray) -> np.ndarray:
        """The value head's estimate of each observation."""
        import torch

        net = self.policy.policy
        with torch.no_grad():
            return net.predict_values(torch.as_tensor(obs, device=net.device)).cpu().numpy()[:, 0]


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
