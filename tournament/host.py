"""A bot process for an in-project agent: ``python -m tournament.host '{"spec": "greedy"}'``.

It speaks the same line protocol as a ``cmd:`` bot (:mod:`tournament.protocol`), so the referee
has one way to talk to every bot. The agent is built at the first ``start`` (and warmed up
there, under the loading deadline); each ``move`` rebuilds the public view with
``GameState.from_dict`` and hands the agent the same observation dict a seat gets in-process
(the feature vector is computed from the public view, lazily, and equals the one computed from
the real game, ``tests/test_referee.py``). What the agent does to these copies stays here.
The view is type-checked but not re-validated (``validate=False``): it is the referee's own
game, and the rebuild is this process's largest cost after the agent's own.

The protocol keeps its own copy of stdout; ``print`` in an agent goes to stderr (the bot's
log), so it cannot break the protocol by accident. An exception from the agent - any
``BaseException``, ``SystemExit`` and ``KeyboardInterrupt`` too - is answered with
``{"error": "raised ..."}`` and the process exits, its traceback written to the bot's log.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import IO, Any

import numpy as np

from tournament import protocol

#: the action of a bot must fit here to be an index at all (and to be sent as JSON)
_MAX_INDEX = 2**31


def describe_failure(exc: BaseException) -> str:
    """The forfeit reason of an agent that raised ``exc``."""
    if isinstance(exc, MemoryError):
        return "memory limit: raised MemoryError"
    return f"raised {type(exc).__name__}: {exc}"[:300]


def action_reply(action: object) -> dict[str, Any]:
    """The reply for what the agent returned: an int index, or why it is not one."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        if -_MAX_INDEX < int(action) < _MAX_INDEX:
            return {"action": int(action)}
        digits = len(str(abs(int(action)))) if abs(int(action)) < 10**4000 else "over 4000"
        return {"error": f"illegal action: returned an int of {digits} digits, not an index"}
    return {
        "error": f"illegal action: returned {type(action).__name__} "
        f"{repr(action)[:60]}, not an int index"
    }


class Host:
    """The agent and the game it is playing, driven by protocol messages."""

    def __init__(self, spec: str, kwargs: dict[str, Any], channel: IO[bytes]) -> None:
        self.spec, self.kwargs, self.channel = spec, kwargs, channel
        self.agent: Any = None
        self.rules: Any = None
        self.features: Any = None  # the rule set's observer, looked up once a game
        self.n_actions = 0
        self.seat = 0

    def send(self, message: dict[str, Any]) -> None:
        self.channel.write(protocol.encode(message))
        self.channel.flush()

    def start(self, message: dict[str, Any]) -> None:
        from camelup_env.game.actions import action_table
        from camelup_env.game.rules import RuleSet
        from camelup_env.match import observer

        rules = RuleSet.from_dict(message["rules"])
        self.seat = int(message["seat"])
        if self.agent is None:
            import agents as registry
            from camelup_env.game.setup import new_game
            from camelup_env.observation import public_view

            self.agent = registry.make(self.spec, **self.kwargs)
            warm = getattr(self.agent, "warmup", None)
            if warm is not None:
                warm(public_view(new_game(rules, seed=0), self.seat))
        self.rules = rules
        self.features = observer(rules)
        self.n_actions = len(action_table(rules))
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset(int(message["seed"]))
        self.send({"type": "ready"})

    def move(self, message: dict[str, Any]) -> None:
        from camelup_env.game.state import GameState
        from camelup_env.observation import LazyObservation

        state = GameState.from_dict(message["state"], validate=False)  # the referee's own game
        mask = np.zeros(self.n_actions, dtype=np.int8)
        mask[message["legal"]] = 1
        features, seat = self.features, self.seat
        observation = LazyObservation(mask, lambda: features(state, seat))
        reply = action_reply(self.agent(observation, state))
        fallback = getattr(self.agent, "fallback", None)
        if fallback and "action" in reply:  # a Cup bot's roll instead of its move (C12)
            reply["fallback"] = str(fallback)[:200]
        self.send(reply)

    def serve(self, lines: IO[bytes]) -> int:
        for line in lines:
            message = protocol.decode(line)
            kind = message.get("type")
            if kind == "quit":
                return 0
            try:
                if kind == "start":
                    self.start(message)
                elif kind == "move":
                    self.move(message)
            except BaseException as exc:  # the agent's failure is its forfeit, reported
                # the whole traceback goes to the bot's log (stderr), where its author looks
                traceback.print_exc(file=sys.stderr)
                sys.stderr.flush()
                self.send({"error": describe_failure(exc)})
                return 1
        return 0


def main(argv: list[str]) -> int:
    doc = json.loads(argv[1])
    channel = os.fdopen(os.dup(1), "wb")  # the protocol's stdout ...
    os.dup2(2, 1)  # ... and the agent's: its log
    sys.stdout = sys.stderr
    return Host(doc["spec"], doc.get("kwargs") or {}, channel).serve(sys.stdin.buffer)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
