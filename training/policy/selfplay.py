"""Self-play opponents: each episode's opponents drawn from frozen snapshots and baselines.

An :class:`OpponentPool` draws from a mixture such as ``{"self": 0.6, "greedy": 0.3,
"random": 0.1}``: ``"self"`` picks one of the learner's frozen snapshots (uniformly, so old
strategies are not forgotten), any other key is an agent name for :func:`agents.make`.
:class:`SelfPlayVecEnv` (what ``camelup train`` uses) is the batched env with such a pool;
:class:`SelfPlaySingleAgentEnv` is the same for one
:class:`~camelup_env.envs.single_agent.SingleAgentEnv` (the old path, kept for the training
benchmark).
The training process adds a snapshot with ``vec_env.env_method("add_snapshot", path)``; each
worker process loads it once. With ``focus > 0`` the mix's weights move toward the entries the
learner loses to (:mod:`training.policy.opponent_focus`): :class:`SelfPlayVecEnv` credits every
finished game to the entries that sat in it.
"""

from __future__ import annotations

import inspect
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.ppo import load_agent
from camelup_env.envs.single_agent import SingleAgentEnv
from camelup_env.game.rules import RuleSet
from training.policy.opponent_focus import OpponentFocus
from training.policy.vec_env import CamelUpVecEnv


def make_opponent(name: str, race_samples: int | None = None) -> Any:
    """The agent ``name`` (a registered name or a spec such as ``ppo:FILE``); a scripted one that
    estimates race odds uses ``race_samples`` (when given), so it shares the learner's cached
    odds of a position."""
    kwargs = {}
    if race_samples is not None and ":" not in name:
        takes = inspect.signature(agents.factory(name)).parameters
        if "race_samples" in takes:
            kwargs["race_samples"] = race_samples
    return agents.make(name, **kwargs)


class OpponentPool:
    """Draws opponents from a mixture of snapshots (``"self"``) and named agents, weighted as
    :class:`~training.policy.opponent_focus.OpponentFocus` says (``focus`` 0: the mix as given)."""

    def __init__(
        self,
        mix: dict[str, float],
        seed: int,
        max_snapshots: int,
        race_samples: int | None = None,
        focus: float = 0.0,
        players: int = 2,
    ):
        if not mix or any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0:
            raise ValueError(
                f"opponent_mix needs non-negative weights with a positive sum, got {mix}"
            )
        self.focus = OpponentFocus(mix, players, focus)
        self._scripted: dict[str, Any] = {}
        for name in mix:  # unknown names and unreadable model files fail now, not mid-training
            if ":" in name:  # a spec such as ppo:FILE (a distilled bot): made once, here
                self._scripted[name] = make_opponent(name)
            elif name != "self":
                agents.factory(name)
        self.names = self.focus.names
        self.rng = np.random.default_rng(seed)
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []
        self._loaded: dict[str, Any] = {}
        #: Scripted opponents that estimate race odds use the learner's sample count, so the
        #: cached odds of a position (camelup_env.odds.position_odds) serve both.
        self.race_samples = race_samples

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(str(path))
        while len(self.snapshots) > self.max_snapshots:
            self._loaded.pop(self.snapshots.pop(0), None)

    def _snapshot(self) -> Any:
        path = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
        if path not in self._loaded:
            # Sampled, not argmax: a frozen self is a population of strategies, not one line.
            self._loaded[path] = load_agent(path, deterministic=False, trust_observation=True)
        return self._loaded[path]

    def draw(self, n: int) -> list[Any]:
        return self.draw_named(n)[1]

    def draw_named(self, n: int) -> tuple[list[str], list[Any]]:
        """``n`` opponents, and the mix entry each was drawn as (``"self"`` before the first
        snapshot plays as ``"random"``)."""
        names, out = [], []
        weights = self.focus.weights()
        for _ in range(n):
            entry = self.names[int(self.rng.choice(len(self.names), p=weights))]
            names.append(entry)
            name = "random" if entry == "self" and not self.snapshots else entry
            if name == "self":
                out.append(self._snapshot())
            else:
                if name not in self._scripted:
                    self._scripted[name] = make_opponent(name, self.race_samples)
                agent = self._scripted[name]
                # one object per game and seat for an agent that remembers a game's moves
                out.append(make_opponent(name, self.race_samples) if agent.per_game else agent)
        return names, out


class SelfPlaySingleAgentEnv(SingleAgentEnv):
    """A :class:`SingleAgentEnv` that redraws its opponents from an :class:`OpponentPool`."""

    def __init__(
        self,
        opponent_mix: dict[str, float],
        pool_seed: int,
        max_snapshots: int = 20,
        snapshots: list[str] | None = None,
        **kwargs: Any,
    ):
        self.pool = OpponentPool(opponent_mix, pool_seed, max_snapshots)
        for path in snapshots or []:
            self.pool.add_snapshot(path)
        super().__init__(learner_seat=None, **kwargs)

    def add_snapshot(self, path: str | Path) -> None:
        self.pool.add_snapshot(str(path))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.set_opponents(self.pool.draw(self.num_players - 1))
        return super().reset(seed=seed, options=options)


class SelfPlayVecEnv(CamelUpVecEnv):
    """A :class:`~training.policy.vec_env.CamelUpVecEnv` whose games draw each episode's opponents
    from one :class:`OpponentPool` (``pool_seed``; scripted opponents that estimate race odds
    use the observation's ``race_samples`` when odds features are on, so they share its cached
    odds). With ``opponent_focus > 0`` each finished game's win share for the learner is
    credited to the mix entries that sat in it, and the draws follow
    (:mod:`training.policy.opponent_focus`)."""

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet,
        opponent_mix: dict[str, float],
        pool_seed: Any,
        max_snapshots: int = 20,
        snapshots: list[str] | None = None,
        opponent_focus: float = 0.0,
        **kwargs: Any,
    ):
        odds_on = kwargs.get("odds_features", True)
        self.pool = OpponentPool(
            opponent_mix,
            pool_seed,
            max_snapshots,
            race_samples=kwargs.get("race_samples") if odds_on else None,
            focus=opponent_focus,
            players=rules.num_players,
        )
        for path in snapshots or []:
            self.pool.add_snapshot(path)
        self._n_opponents = rules.num_players - 1
        #: each game's mix entries: this episode's, and the one before (the episode an
        #: autoreset just ended, read back when its result comes out of the step)
        self._entries: list[list[str]] = [[] for _ in range(num_envs)]
        self._ended: list[list[str]] = [[] for _ in range(num_envs)]
        sources = [partial(self._draw, i) for i in range(num_envs)]
        super().__init__(num_envs, rules, sources, **kwargs)

    def _draw(self, game: int) -> list[Any]:
        self._ended[game] = self._entries[game]
        self._entries[game], opponents = self.pool.draw_named(self._n_opponents)
        return opponents

    def step_wait(self):
        obs, rewards, dones, infos = super().step_wait()
        if self.pool.focus.focus:
            for i in np.flatnonzero(dones):
                if "win_share" in infos[i]:
                    self.pool.focus.record(self._ended[i], infos[i]["win_share"])
        return obs, rewards, dones, infos

    def add_snapshot(self, path: str | Path) -> None:
        self.pool.add_snapshot(str(path))

    def opponent_focus(self) -> dict[str, dict[str, float]]:
        """The pool's entries: the learner's recent win share against each, the games
        credited and the draw weight now (:meth:`OpponentFocus.summary`)."""
        return self.pool.focus.summary()
