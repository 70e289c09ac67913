"""``cup:PATH.py[:Class]``: an unmodified Camel Up Cup bot as a camelup agent.

The bot file is imported as the Cup would import it, with ``playerinterface`` (the one module
Cup bots import from the Cup) provided by :mod:`agents.cup_compat`, and the file's own folder
on the import path for its helpers. On each turn the bot's class gets ``move(seat, g)`` with
``g`` the Cup's redacted view of the game (:class:`agents.cup_compat.CupView`), and its action
list is read as the Cup's engine reads it. The Cup's conventions hold (C12): an action the Cup
would refuse, or an exception from the bot, is a roll instead, and :attr:`CupBotAgent.fallback`
says why (the tournament host reports it to the referee, which counts it in the game record).
A bot that hangs misses the move deadline and forfeits, like any bot.

Like every tournament agent it runs in its own sandboxed process (:mod:`tournament.host` under
:mod:`tournament.sandbox`): the referee never imports the bot. It plays the ``cup`` preset only.
"""

from __future__ import annotations

import importlib.util
import inspect
import random
import sys
import types
from pathlib import Path
from typing import Any

from agents import cup_compat
from agents.base import Agent, Observation
from camelup_env.game.actions import action_table
from camelup_env.game.state import GameState


def _install_playerinterface() -> None:
    """Make ``import playerinterface`` (and ``from playerinterface import PlayerInterface``)
    give this project's :class:`~agents.cup_compat.PlayerInterface`."""
    module = types.ModuleType("playerinterface")
    module.__dict__["PlayerInterface"] = cup_compat.PlayerInterface
    sys.modules["playerinterface"] = module


def load_bot_class(path: str, name: str | None = None) -> type[Any]:
    """The bot class of the Cup bot file ``path``: the class ``name``, or else the one class
    deriving from ``PlayerInterface`` that the file defines (the one named like the file when
    there are several)."""
    file = Path(path)
    if file.suffix != ".py" or not file.is_file():
        raise ValueError(f"cup:{path}: expected the path of a Cup bot's .py file")
    _install_playerinterface()
    folder = str(file.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"cup_bot_{file.stem}", file)
    if spec is None or spec.loader is None:  # not for a .py file: Python's source loader
        raise ValueError(f"cup:{path}: Python cannot load the file as a module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if name is not None:
        found = getattr(module, name, None)
        if not inspect.isclass(found):
            raise ValueError(f"cup:{path}:{name}: the file defines no class {name!r}")
        return found
    defined = [
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if issubclass(c, cup_compat.PlayerInterface)
        and c is not cup_compat.PlayerInterface
        and c.__module__ == module.__name__
    ]
    if len(defined) > 1:
        defined = [c for c in defined if c.__name__ == file.stem] or defined
    if len(defined) != 1:
        names = [c.__name__ for c in defined]
        raise ValueError(
            f"cup:{path}: name the bot class (cup:{path}:Class); the file defines "
            f"{names or 'no PlayerInterface subclass'}"
        )
    return defined[0]


class CupBotAgent(Agent):
    description = "cup:PATH.py[:Class] - a Camel Up Cup bot (its move(player, g) interface)"

    def __init__(self, path: str, cls: str | None = None) -> None:
        self.bot = load_bot_class(path, cls)
        self.view: cup_compat.CupView | None = None
        #: Why the last move was a roll the bot did not ask for (C12), else None.
        self.fallback: str | None = None

    def reset(self, seed: int | None = None) -> None:
        """A new game; Cup bots draw from Python's ``random``, seeded here for repeatability."""
        self.view = None
        if seed is not None:
            random.seed(seed)

    def warmup(self, public_state: GameState) -> None:
        _check_cup(public_state)

    def act(self, observation: Observation, public_state: GameState) -> int:
        _check_cup(public_state)
        seat = public_state.current
        if self.view is None or self.view.seat != seat or public_state.leg < self.view.leg:
            self.view = cup_compat.CupView(seat)
        self.view.update(public_state)
        table = action_table(public_state.rules)
        roll = table.pyramid
        self.fallback = None
        try:
            result = self.bot.move(seat, self.view.game_state(public_state))
        except Exception as exc:  # the Cup rolls for a crashing bot (C12)
            self.fallback = f"raised {type(exc).__name__}: {exc}"[:200]
            return roll
        action = cup_compat.our_action(result)
        index = table.index.get(action) if action is not None else None
        if index is None or not observation["action_mask"][index]:
            self.fallback = f"invalid action {_preview(result)}"
            return roll
        return index


def _check_cup(state: GameState) -> None:
    if state.rules.preset != "cup":
        raise ValueError(
            f"a cup: bot plays the Camel Up Cup's rules only (C1): use preset cup, "
            f"not {state.rules.preset}"
        )


def _preview(result: object) -> str:
    try:
        text = repr(result)
    except Exception:
        text = f"<{type(result).__name__}>"
    return text[:60]


def load(rest: str) -> CupBotAgent:
    """The ``cup:`` prefix loader: ``PATH.py`` or ``PATH.py:Class``."""
    path, sep, cls = rest.rpartition(":")
    if not sep or not path.endswith(".py"):  # no class named (a ':' may be part of the path)
        path, cls = rest, ""
    return CupBotAgent(path, cls or None)
