"""The bot protocol: one JSON object per line on the bot's stdin (from the referee) and stdout
(to the referee). ``docs/tournaments.md`` is the reference a bot author reads; this is its code.

Referee -> bot, in this order:

* ``{"type": "start", "protocol": 1, "game": G, "seat": S, "seed": N, "rules": {...},
  "colours": [...], "actions": [...]}`` at the start of every game the bot process plays
  (rules as ``RuleSet.to_dict``; ``seed`` for any randomness of the bot; ``colours``: the
  camels' names by index; ``actions``: every action index in words, e.g. ``"take the top blue
  leg-bet tile"``). The bot answers ``{"type": "ready"}``, adding ``"observation": true`` if it
  wants the feature vector in each move. The first start of a process has the loading
  deadline, later ones the move deadline.
* ``{"type": "move", "legal": [indices], "state": {...}}`` (and ``"observation": [floats]``
  if asked) when it is the bot's turn: ``state`` is the public view of the game for this seat
  (``GameState.to_dict`` with other seats' race-bet colours and hands ``-1``). The bot answers
  ``{"action": INDEX}``, an index of ``legal``, or ``{"error": "why"}`` to give up. A Camel
  Up Cup bot (``cup:``) whose own move was refused or raised answers the roll with
  ``"fallback": "why"`` added (C12); the referee counts it in the game record.
* ``{"type": "end", "coins": [...], "ranks": [...], "forfeit": null | {"seat", "reason"}}``:
  the game is over; no answer.
* ``{"type": "quit"}``, or end of input: exit.

Only data crosses: both sides parse JSON, never pickle.
"""

from __future__ import annotations

import json
from typing import Any

from camelup_env.game.actions import action_table, describe
from camelup_env.game.rules import RuleSet

#: Version in every start message; a bot may refuse versions it does not know.
PROTOCOL_VERSION = 1


class ProtocolError(ValueError):
    """A message that is not one JSON object; the text says what was wrong."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of compact JSON."""
    return (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode()


def decode(line: bytes) -> dict[str, Any]:
    """The message in ``line``; :class:`ProtocolError` unless it is one JSON object."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, a 5,000-digit integer
        raise ProtocolError(f"not JSON: {_preview(line)} ({type(exc).__name__})") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {_preview(line)}")
    return message


def start_message(game: int, seat: int, seed: int, rules: RuleSet) -> dict[str, Any]:
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "seat": seat,
        "seed": seed,
        "rules": rules.to_dict(),
        "colours": list(rules.colours),
        "actions": action_names(rules),
    }


def action_names(rules: RuleSet) -> list[str]:
    """Every action index of ``rules`` in words (built once per rule set)."""
    names: list[str] | None = rules._derived.get("action_names")
    if names is None:
        table = action_table(rules).actions
        names = rules._derived["action_names"] = [describe(a, rules) for a in table]
    return names


def move_message(
    legal: list[int], state: dict[str, Any], observation: list[float] | None = None
) -> dict[str, Any]:
    message = {"type": "move", "legal": legal, "state": state}
    if observation is not None:
        message["observation"] = observation
    return message


def end_message(coins: list[int], ranks: list[int], forfeit: dict | None) -> dict[str, Any]:
    return {"type": "end", "coins": coins, "ranks": ranks, "forfeit": forfeit}


QUIT: dict[str, Any] = {"type": "quit"}


def _preview(line: bytes, size: int = 60) -> str:
    text = line[:size].decode("utf-8", "replace")
    return repr(text + ("..." if len(line) > size else ""))
