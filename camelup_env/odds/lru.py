"""One small least-recently-used cache, the kind every odds function keeps by position.

The odds of a position are a function of the position alone, and the environment, the agents and
the observation ask for the same positions again and again (a bet leaves the board as it was).
Each odds function keeps an :class:`LRU` of its results; :func:`camelup_env.odds.clear_cache`
empties all of them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

#: Entries a cache keeps before it drops its least recently used one.
SIZE = 4096

#: Every cache made, so that all can be cleared at once.
CACHES: list[LRU] = []


class LRU:
    """A dict bounded to ``size`` entries that drops the least recently used one first."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        CACHES.append(self)

    def get(self, key: Hashable) -> Any:
        """The entry of ``key`` (now the most recently used), or None."""
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: Hashable, value: Any) -> None:
        self._entries[key] = value
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()


def clear_all() -> None:
    """Empty every cache."""
    for cache in CACHES:
        cache.clear()
