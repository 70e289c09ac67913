"""Opponent draws weighted toward the opponents the learner loses to.

A fixed ``opponent_mix`` spends the same share of games on an opponent the learner already beats
as on one that beats it. With ``opponent_focus = p > 0`` each entry ``k`` of the mix is drawn
with weight

    w_k = mix_k * (1 - s_k) ** p,

renormalised, where ``s_k`` is the learner's recent share of the win in the games where ``k``
held a seat: an exponential moving average over those games (``memory`` games), starting from an
even share ``1 / players``. ``p = 0`` is the mix as given. (Prioritised fictitious self-play, in
the manner of AlphaStar's league: there the weight is ``(1 - P(learner beats k)) ** p`` per
opponent; with more than two players a game is credited to every entry that sat in it.)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class OpponentFocus:
    """The draw weights of a mix's entries, moved by the learner's results against each."""

    def __init__(
        self, mix: dict[str, float], players: int, focus: float = 0.0, memory: float = 500.0
    ) -> None:
        if focus < 0:
            raise ValueError(f"opponent_focus must be >= 0, got {focus}")
        if memory < 1:
            raise ValueError(f"the focus's memory must be at least one game, got {memory}")
        self.names = list(mix)
        base = np.array([mix[n] for n in self.names], dtype=float)
        self.base = base / base.sum()
        self.focus = float(focus)
        self.rate = 1.0 / float(memory)
        #: The learner's recent win share in games with each entry (even share until played).
        self.share = np.full(len(self.names), 1.0 / players)
        self.games = np.zeros(len(self.names), np.int64)  # games credited to each entry

    def weights(self) -> np.ndarray:
        """Each entry's draw probability now (the mix itself when ``focus`` is 0)."""
        if not self.focus:
            return self.base
        w = self.base * (1.0 - self.share) ** self.focus
        total = w.sum()
        return w / total if total > 0 else self.base

    def record(self, names: Iterable[str], win_share: float) -> None:
        """One finished game: the learner won ``win_share`` of it against the entries
        ``names`` (each entry counted once, however many seats it held)."""
        for name in set(names):
            k = self.names.index(name)
            self.share[k] += self.rate * (win_share - self.share[k])
            self.games[k] += 1

    def summary(self) -> dict[str, dict[str, float]]:
        """Per entry: the learner's recent win share, the games credited, the draw weight."""
        w = self.weights()
        return {
            n: {
                "win_share": float(self.share[k]),
                "games": int(self.games[k]),
                "weight": float(w[k]),
            }
            for k, n in enumerate(self.names)
        }
