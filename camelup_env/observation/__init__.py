"""What one seat observes (docs/rules.md R10), as a flat ``float32`` vector with named slices.

* :mod:`~camelup_env.observation.slices`: the slice table, each slice's name, shape, bounds and
  meaning, and the layout of a rule set (:func:`layout_of`) - the one place a slice is
  described;
* :class:`ReferenceObserver`: the observation's definition, every slice encoded from scratch;
* :class:`Observer`: the same vector, computed incrementally along a game (what the
  environments use), tested equal to the reference;
* :mod:`~camelup_env.observation.estimates`: the odds and action-value slices;
* :func:`public_view`: a state with what a seat may not see removed;
* :class:`LazyObservation`: the environments' observation dict, computed when first read.

An observer is built once per rule set (OpenSpiel style). ``observer.observe(state, seat)``
writes everything ``seat`` may know into one vector; ``observer.layout`` maps each slice name to
its ``(start, stop)`` and ``observer.shapes`` to its shape before flattening (row-major);
``observer.low`` / ``observer.high`` bound every entry, for a ``gymnasium.spaces.Box``; the
per-seat slices use relative seats (0: the observer). What is hidden (R10): the colour of every
race-betting card of another seat, and which colours another seat still holds.
"""

from camelup_env.observation.estimates import ACTION_VALUE_SCALE, v0_race_seed
from camelup_env.observation.incremental import Observer
from camelup_env.observation.lazy import LazyObservation
from camelup_env.observation.public import HIDDEN, public_view
from camelup_env.observation.reference import ReferenceObserver
from camelup_env.observation.slices import SLICES, Layout, Slice, layout_of, markdown_table

__all__ = [
    "ACTION_VALUE_SCALE",
    "HIDDEN",
    "SLICES",
    "Layout",
    "LazyObservation",
    "Observer",
    "ReferenceObserver",
    "Slice",
    "layout_of",
    "markdown_table",
    "public_view",
    "v0_race_seed",
]
