"""The agent protocol and the registry of agents by name.

An agent is a callable ``agent(observation, public_state) -> int``:

* ``observation`` is the dict every environment hands a seat: ``{"observation": float32 array,
  "action_mask": int8 array}`` (see :mod:`camelup_env.observation`);
* ``public_state`` is :func:`camelup_env.observation.public_view` of the game for the acting seat:
  a *copy* in which other players' race-bet cards show camel ``-1`` and their ``hands`` are
  ``-1`` (R10). An agent can read it freely but never reaches the real game;
* the return value is an action index of ``camelup_env.game.actions.action_table(rules)`` whose
  ``action_mask`` entry is 1. Anything else forfeits the game in a tournament.

Agents are made by name: ``agents.make("greedy")``. A spec ``"prefix:rest"`` is handed to the
loader registered for ``prefix`` (``register_prefix``); ``py:package.module:Attr`` is built in
and imports any agent class or factory, ``cup:PATH.py[:Class]`` loads a Camel Up Cup bot
(:mod:`agents.cup_bot`), and a trained-policy loader can add, say, ``ppo:``. The model-file
prefixes (``ppo:``, ``search:``, ``rollout:``) take a shipped model's name as well as a path:
``ppo:classic4`` (:mod:`agents.shipped`).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents import shipped
from camelup_env.game.state import GameState

Observation = dict[str, np.ndarray]


class Agent:
    """Base class of every camelup agent. Subclasses override :meth:`act` (or ``__call__``)."""

    #: Registry name (set by :func:`make` to the spec the agent was made from).
    name: str = "agent"
    #: One line for ``camelup agents``.
    description: str = ""
    #: True for an agent that remembers a game's earlier moves (the champion reads when each
    #: race card was placed): a runner that plays several games at once with one agent object
    #: would mix their memories, so it makes one object per game and seat instead.
    per_game: bool = False

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` makes any randomness in the agent reproducible."""

    def warmup(self, public_state: GameState) -> None:
        """Optional: compile or cache whatever the first move would (not timed in tournaments)."""

    def act(self, observation: Observation, public_state: GameState) -> int:
        raise NotImplementedError

    def __call__(self, observation: Observation, public_state: GameState) -> int:
        return self.act(observation, public_state)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def legal_indices(observation: Observation) -> np.ndarray:
    """The legal action indices of an observation, ascending."""
    return np.flatnonzero(observation["action_mask"])


#: Values this close to the best count as tied (float sums of the same odds may differ by ulps).
TIE = 1e-12


def best_action(values: dict[int, float]) -> int:
    """The action of highest value, the lowest index among ties (within :data:`TIE`): how
    every agent that scores actions chooses, so equal scores never depend on dict order."""
    best = max(values.values())
    return min(i for i, v in values.items() if v >= best - TIE)


# Registry ----------------------------------------------------------------------------------
#: name -> the agent class or factory, or its "module:attribute" (imported on first use)
_AGENTS: dict[str, str | Callable[..., Agent]] = {
    "random": "agents.random_agent:RandomAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "greedy": "agents.greedy:GreedyAgent",
    "lookahead": "agents.lookahead:LookaheadAgent",
    "expert": "agents.expert:ExpertAgent",
    "champion": "agents.champion:ChampionAgent",
    "human": "agents.human:HumanAgent",
}
#: prefix -> (loader(rest, **kwargs) -> Agent, one-line description, model_file(rest) or None)
_PREFIXES: dict[str, tuple[Callable[..., Agent], str, Callable[[str], Path] | None]] = {}


class UnknownAgentError(ValueError):
    """No agent is registered under that name."""


def register(name: str, target: str | Callable[..., Agent]) -> None:
    """Register an agent factory (a class, callable or ``"module:attr"`` string) under ``name``."""
    if ":" in name:
        raise ValueError(f"agent names cannot contain ':' (reserved for prefixes), got {name!r}")
    _AGENTS[name] = target


def register_prefix(
    prefix: str,
    loader: Callable[..., Agent],
    description: str = "",
    model_file: Callable[[str], Path] | None = None,
) -> None:
    """Route specs ``"prefix:rest"`` to ``loader(rest, **kwargs)`` (e.g. ``ppo:path.zip``).

    ``model_file(rest)``, for prefixes whose agents play a camelup model file, finds that file:
    it records the game the agent was trained for, which commands read to set up that game
    (:func:`model_file`)."""
    _PREFIXES[prefix] = (loader, description, model_file)


def model_file(spec: str) -> Path | None:
    """The camelup model file that ``spec`` plays (``None`` for an agent without one); a spec
    whose file cannot be found raises the loader's error."""
    prefix, sep, rest = spec.partition(":")
    find = _PREFIXES[prefix][2] if sep and prefix in _PREFIXES else None
    if find is None:
        return None
    return Path(find(rest))


def model_prefixes() -> list[str]:
    """The prefixes whose specs name a model file to play (``ppo``, ``search``...), which load
    data, not code; every other prefix imports or runs the code its spec names."""
    return [p for p, (_, _, find) in _PREFIXES.items() if find is not None]


def is_prefix(prefix: str) -> bool:
    """Whether ``prefix:...`` specs have a loader."""
    return prefix in _PREFIXES


def _import(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"expected 'package.module:Attribute', got {target!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _load_python(rest: str, **kwargs: Any) -> Agent:
    return _import(rest)(**kwargs)


register_prefix("py", _load_python, "py:package.module:Class - any importable agent factory")


def _loader(target: str) -> Callable[..., Agent]:
    """A prefix loader that imports ``target`` (``module:load``) on first use, so that
    registering the prefix imports nothing heavy."""

    def load(rest: str, **kwargs: Any) -> Agent:
        return _import(target)(rest, **kwargs)

    return load


def _model_loader(target: str) -> Callable[..., Agent]:
    """A prefix loader of a model file: a shipped model's name (``classic4``) or a path."""
    load = _loader(target)

    def load_model(rest: str, **kwargs: Any) -> Agent:
        return load(str(shipped.model_path(rest)), **kwargs)

    return load_model


_load_rllib = _loader("agents.rllib:load")  # reads no pickle, imports no Ray
_load_cup = _loader("agents.cup_bot:load")

register_prefix(
    "ppo",
    _model_loader("agents.ppo:load"),  # torch is imported only here
    "ppo:NAME or ppo:path/to/model.zip - a trained MaskablePPO policy (NAME: a shipped one)",
    model_file=shipped.model_path,
)
register_prefix(
    "search",
    _model_loader("agents.value_search:load"),
    "search:NAME or search:path/to/model.zip - a ppo: policy plus expectimax scored by its "
    "value head",
    model_file=shipped.model_path,
)
register_prefix(
    "rollout",
    _model_loader("agents.rollout_search:load"),
    "rollout:NAME or rollout:path/to/model.zip - a ppo: policy plus its candidates played out "
    "to the end",
    model_file=shipped.model_path,
)
# A value file, not a policy file: no model_file (the game is named with --preset/--players).
register_prefix(
    "afterstate",
    _loader("agents.afterstate:load"),
    "afterstate:NAME or afterstate:path/to/value.npz (or afterstate:equity, afterstate:standing, "
    "afterstate:standing-reading, afterstate:win-network) - each move's outcomes valued by "
    "every seat's chance to win, exact over the dice (NAME: a shipped value file)",
)


def _rllib_policy_file(rest: str) -> Path:
    return _import("agents.rllib:policy_file")(rest)


register_prefix("cup", _load_cup, "cup:PATH.py[:Class] - a Camel Up Cup bot (preset cup only)")


register_prefix(
    "rllib",
    _load_rllib,
    "rllib:path/to/checkpoint - a policy trained by camelup train --trainer rllib",
    model_file=_rllib_policy_file,
)


def names() -> list[str]:
    """The registered agent names (prefix loaders not included)."""
    return list(_AGENTS)


def factory(name: str) -> Callable[..., Agent]:
    """The class or factory registered under ``name`` (imported now)."""
    if name not in _AGENTS:
        raise UnknownAgentError(_unknown_message(name))
    target = _AGENTS[name]
    return _import(target) if isinstance(target, str) else target


def _unknown_message(spec: str) -> str:
    known = ", ".join(names())
    prefixes = ", ".join(f"{p}:..." for p in _PREFIXES)
    return f"unknown agent {spec!r}; known agents: {known} (or a prefix spec: {prefixes})"


def check(spec: str) -> None:
    """Raise :class:`UnknownAgentError` unless ``spec`` names a registered agent (imported, not
    built) or a registered prefix."""
    prefix, sep, _ = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not spec or (sep and prefix not in _PREFIXES):
        raise UnknownAgentError(_unknown_message(str(spec)))
    if not sep:
        factory(spec)


def make(spec: str, **kwargs: Any) -> Agent:
    """An agent from its registry name or ``prefix:rest`` spec, with keyword arguments."""
    if not isinstance(spec, str) or not spec:
        raise UnknownAgentError(_unknown_message(str(spec)))
    prefix, sep, rest = spec.partition(":")
    if sep:
        if prefix not in _PREFIXES:
            raise UnknownAgentError(_unknown_message(spec))
        agent = _PREFIXES[prefix][0](rest, **kwargs)
    else:
        agent = factory(spec)(**kwargs)
    if not callable(agent):
        raise TypeError(f"agent {spec!r} is not callable: {agent!r}")
    with contextlib.suppress(AttributeError):  # a slotted object keeps its own name
        agent.name = spec
    return agent


def describe_agents() -> list[tuple[str, str]]:
    """(name, one-line description) for every registered name and prefix."""
    rows = []
    for name in names():
        try:
            obj = factory(name)
            doc = getattr(obj, "description", "") or (obj.__doc__ or "").strip().split("\n")[0]
        except Exception as exc:  # an optional dependency may be missing
            doc = f"(unavailable: {type(exc).__name__}: {exc})"
        rows.append((name, doc))
    rows += [(f"{p}:...", desc) for p, (_, desc, _) in _PREFIXES.items()]
    return rows
