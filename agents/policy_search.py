"""What the search agents over a trained policy share: the moves they weigh and the deal they
search on.

Both ``search:`` (:mod:`agents.value_search`: expectimax scored by the value head) and
``rollout:`` (:mod:`agents.rollout_search`: games played out) take a move the same way, as
:class:`PolicySearchAgent` does: with one legal move, play it; else deal the hidden cards
(:func:`deal_hidden`), ask the policy for its best moves (:func:`policy_candidates`) and, if
more than one, play the one the search scores best (ties: the policy's order). Only the score
differs: each agent's :meth:`PolicySearchAgent.scores`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent, Observation, legal_indices
from agents.ppo import PolicyAgent
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
    those whose logit is within ``margin`` of the best one's (probability at least
    ``exp(-margin)`` times the best's)."""
    order = sorted(legal, key=lambda i: -logits[i])
    best = logits[order[0]]
    return [int(i) for i in order[:candidates] if logits[i] >= best - margin]


class PolicySearchAgent(Agent):
    """A trained policy's candidate moves weighed by a search (module docstring).

    Args:
        policy: the policy that proposes the moves (and, in a search, plays the other seats).
        candidates: at most this many moves are weighed.
        margin: only moves whose logit is within this of the best one's are weighed.
    """

    def __init__(self, policy: PolicyAgent, candidates: int, margin: float) -> None:
        if margin < 0:
            raise ValueError(f"margin must be >= 0, got {margin}")
        self.policy = policy
        self.candidates = int(candidates)
        self.margin = float(margin)
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.policy.reset(seed)

    def warmup(self, public_state: GameState) -> None:
        self.policy.warmup(public_state)

    def check(self, state: GameState) -> None:
        """Refuse, naming the reason, a game this agent cannot play (the policy's rule set)."""
        self.policy.check_rules(state.rules)

    def act(self, observation: Observation, public_state: GameState) -> int:
        self.check(public_state)
        legal = legal_indices(observation)
        if len(legal) == 1:
            return int(legal[0])
        me = public_state.current
        root = deal_hidden(public_state, self.rng)
        obs = self.policy.observer.observe(root, me)[None].astype(np.float32)
        chosen = policy_candidates(self.policy.logits(obs)[0], legal, self.candidates, self.margin)
        if len(chosen) == 1:
            return chosen[0]
        scores = self.scores(public_state, root, me, chosen)
        return chosen[int(np.argmax(scores))]  # first of the best: the policy's order

    def scores(
        self, view: GameState, root: GameState, me: int, moves: list[int]
    ) -> Sequence[float] | np.ndarray:
        """The search's score of each of ``moves`` for seat ``me``, from its public ``view``
        (``root``: that view with the hidden cards dealt once)."""
        raise NotImplementedError
