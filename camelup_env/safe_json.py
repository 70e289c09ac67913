"""JSON from strangers: size, nesting and number limits checked before and during parsing.

State files, replays and model metadata may come from anyone (see the house rule "untrusted
means untrusted"). Python's :func:`json.loads` on such text can fail in ways no caller expects:
deep nesting raises ``RecursionError``, a number with a million digits costs seconds and then
``int`` arithmetic on it (or ``OverflowError`` in numpy) fails far from the file that caused it,
and ``NaN``/``Infinity`` are accepted. :func:`loads` turns every one of those into a
``ValueError`` that names the document, before any of it reaches the engine:

* the text is at most ``max_bytes`` long (checked first, so nothing large is scanned);
* brackets nest at most ``max_depth`` deep (counted outside strings, *before* the parser runs,
  because the parser is what would overflow the stack);
* integers have at most :data:`MAX_INT_DIGITS` digits, floats are finite, and the constants
  ``NaN``/``Infinity`` are refused.

Callers then check types and ranges of the values themselves (:meth:`GameState.from_dict
<camelup_env.game.state.GameState.from_dict>`, :mod:`agents.policy_file`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: Integers longer than this are refused while parsing: far beyond any count in a game or a
#: model file, and small enough that ``int`` and numpy ``int64`` both hold them.
MAX_INT_DIGITS = 18

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """How deep ``[``/``{`` nest in ``text``, ignoring brackets inside JSON strings."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def loads(text: str | bytes, what: str, *, max_bytes: int, max_depth: int) -> Any:
    """Parse untrusted JSON ``text``; any problem is a ``ValueError`` starting with ``what``."""
    if len(text) > max_bytes:
        raise ValueError(f"{what} is {len(text)} bytes long; at most {max_bytes} are accepted")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{what} is not UTF-8 text: {exc}") from exc
    depth = nesting_depth(text)
    if depth > max_depth:
        raise ValueError(f"{what} nests {depth} levels deep; at most {max_depth} are accepted")

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise ValueError(
                f"{what} holds an integer of {len(digits)} digits (at most "
                f"{MAX_INT_DIGITS} are accepted)"
            )
        return int(digits)

    def parse_float(digits: str) -> float:
        value = float(digits)
        if not math.isfinite(value):
            raise ValueError(f"{what} holds a number out of range: {digits[:40]}")
        return value

    def parse_constant(name: str) -> float:
        raise ValueError(f"{what} holds {name}, which is not a JSON number")

    try:
        return json.loads(
            text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
        )
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON: {exc}") from exc
