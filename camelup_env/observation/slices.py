"""The observation's slices: the one table of what each entry of the vector holds (R10).

Every observer of the project - :class:`~camelup_env.observation.ReferenceObserver` (the
definition, written slice by slice), :class:`~camelup_env.observation.Observer` (the incremental
accelerator) and the batched kernels (:mod:`camelup_env.batch.observe`) - lays its vector out
from :data:`SLICES` through :func:`layout_of`, and the documentation's slice table is rendered
from it (:func:`markdown_table`), so a slice is described in exactly one place.

Shapes are written in symbols, evaluated per rule set (:func:`dimensions`): ``C`` camels (racing
first, then crazy), ``R`` racing camels, ``L`` track length, ``n`` players, ``D`` dice (racing,
then grey, then Supercup support dice), ``M`` highest die number, ``X`` crazy camels, ``U``
distinct leg-bet values (descending; classic 5, 3, 2), ``K = n R`` race-bet card slots per pile,
``P`` position tiles (Supercup), ``T`` the last space a track tile may go on (``L``, or 28 in
the Cup, C6), ``A`` actions.

Seats are **relative**: relative seat 0 is the observing seat, then the others in turn order
(relative seat ``k`` is absolute seat ``(seat + k) % n``). A slice's ``seat_axes`` say which of
its axes run over relative seats, so that one policy can play any seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from camelup_env.game.actions import action_table
from camelup_env.game.rules import RuleSet


@dataclass(frozen=True)
class Features:
    """What an observer is asked to include beyond the game itself."""

    rules: RuleSet
    odds_features: bool
    action_values: bool


def _always(_: Features) -> bool:
    return True


@dataclass(frozen=True)
class Slice:
    """One named piece of the observation vector.

    ``shape`` holds symbol sums (``"n + 2"``, ``"T - 1"``) evaluated by :func:`dimensions`;
    ``low``/``high`` bound every entry (``low`` may depend on the rules); ``seat_axes`` lists
    ``(axis, first index)`` of every run of ``n`` relative-seat entries; ``per_observer`` marks
    the slices that depend on who looks beyond that reordering; ``when`` says in words which
    rule sets or settings have the slice and ``present`` decides it.
    """

    name: str
    shape: tuple[str, ...]
    meaning: str
    low: float | Callable[[RuleSet], float] = 0.0
    high: float = 1.0
    seat_axes: tuple[tuple[int, int], ...] = ()
    per_observer: bool = False
    when: str = ""
    present: Callable[[Features], bool] = _always


# Named functions, not lambdas: observers holding the table are pickled with the envs.
def _has_crazy_camels(f: Features) -> bool:
    return bool(f.rules.crazy_colours)


def _has_partnerships(f: Features) -> bool:
    return bool(f.rules.partnerships)


def _has_support_dice(f: Features) -> bool:
    return bool(f.rules.support_dice)


def _has_extra_action(f: Features) -> bool:
    return bool(f.rules.extra_action)


def _has_photographer(f: Features) -> bool:
    return bool(f.rules.photographer)


def _has_position_bets(f: Features) -> bool:
    return bool(f.rules.position_bets)


def _has_wanderer(f: Features) -> bool:
    return bool(f.rules.wanderer)


def _has_leg_cards(f: Features) -> bool:
    return bool(f.rules.leg_cards)


def _has_odds(f: Features) -> bool:
    return bool(f.odds_features)


def _has_action_values(f: Features) -> bool:
    return bool(f.action_values)


def _coins_low(rules: RuleSet) -> float:
    return 0.0 if rules.money_floor else -5.0


def _leg_bet_ev_low(rules: RuleSet) -> float:
    return -1.0 / max(rules.leg_bet_values)


_SEATS = ((0, 0),)

#: The slices, in the order of the vector. Models record the vector, not this table: a change
#: of order or size is a new observation version.
SLICES: tuple[Slice, ...] = (
    Slice(
        "camel_space",
        ("C", "L"),
        "one-hot of the space 1..L each camel stands on (all zero once it has crossed the "
        "finish line)",
    ),
    Slice(
        "camel_progress",
        ("C",),
        "space / L, clipped to [-0.5, 1.5] (past the line: > 1 or <= 0)",
        low=-0.5,
        high=1.5,
    ),
    Slice("camel_height", ("C",), "height in its stack / (C - 1); 0 = bottom (R0.2)"),
    Slice(
        "camel_crossed",
        ("C", "2"),
        "[crossed the line forward (R5.4), carried backward over it (R5.6)]",
    ),
    Slice("racing_rank", ("R", "R"), "one-hot [camel, rank] of the current ranking (R0.4)"),
    Slice(
        "tiles",
        ("T - 1", "n + 2"),
        "per space 2..T: the tile owner's relative seat one-hot (n), then [+1 side, -1 side] "
        "(R4.2, R5.3)",
        seat_axes=((1, 0),),
    ),
    Slice(
        "dice_revealed",
        ("D", "1 + M"),
        "per die: [revealed this leg, one-hot of the number shown 1..M] (R4.3)",
    ),
    Slice(
        "grey_die_shown",
        ("X",),
        "the colour the grey die showed this leg, one-hot over the crazy camels",
        when="second edition",
        present=_has_crazy_camels,
    ),
    Slice("pyramid_tiles_left", ("1",), "pyramid tiles left / pyramid tiles per leg (R6.1)"),
    Slice(
        "leg_stacks",
        ("R", "2"),
        "per racing camel: [top leg-bet tile value / highest value (0 if empty), tiles left / "
        "tiles per stack] (R4.1)",
    ),
    Slice("leg_number", ("1",), "min(leg, 20) / 20"),
    Slice(
        "coins",
        ("n",),
        "per relative seat: coins clipped to [-100, 100] / 20 (R8.2: public; below 0 only "
        "without the floor, C10)",
        low=_coins_low,
        high=5.0,
        seat_axes=_SEATS,
    ),
    Slice(
        "coin_margin",
        ("n",),
        "per relative seat: (its coins - own coins) / 20, clipped to [-5, 5] (0 for self)",
        low=-5.0,
        high=5.0,
        per_observer=True,
    ),
    Slice(
        "leg_bets_held",
        ("n", "R", "U"),
        "per relative seat and racing camel: leg-bet tiles held of each value / tiles of that "
        "value per stack (at most 1: the Cup's endless 0-valued tiles, C5)",
        seat_axes=_SEATS,
    ),
    Slice(
        "pyramid_tiles_held",
        ("n",),
        "per relative seat: pyramid tiles held this leg / pyramid tiles per leg",
        seat_axes=_SEATS,
    ),
    Slice(
        "tile_on_track",
        ("n",),
        "per relative seat: 1 if its track tile is on the track",
        seat_axes=_SEATS,
    ),
    Slice(
        "race_cards_in_hand",
        ("n",),
        "per relative seat: race-betting cards still in hand / R (a count only: the colours "
        "of other seats' cards are hidden, R10)",
        seat_axes=_SEATS,
    ),
    Slice("is_current", ("n",), "one-hot: the seat to act", seat_axes=_SEATS),
    Slice(
        "is_leg_starter",
        ("n",),
        "one-hot: the seat holding the starting-player marker",
        seat_axes=_SEATS,
    ),
    Slice(
        "partner",
        ("n", "n"),
        "per relative seat: its partner's relative seat one-hot (R9.4)",
        seat_axes=((0, 0), (1, 0)),
        when="partnerships",
        present=_has_partnerships,
    ),
    Slice(
        "partner_card_available",
        ("n",),
        "per relative seat: 1 if its partnership card is still available",
        seat_axes=_SEATS,
        when="partnerships",
        present=_has_partnerships,
    ),
    Slice(
        "winner_pile",
        ("K", "n"),
        "the overall-winner pile, one row per card slot in placing order (first placed "
        "first): the card owner's relative seat one-hot; empty slots all zero. Never a colour",
        seat_axes=((1, 0),),
    ),
    Slice(
        "loser_pile",
        ("K", "n"),
        "the overall-loser pile, likewise (R4.4, R10)",
        seat_axes=((1, 0),),
    ),
    Slice(
        "own_cards",
        ("R", "4"),
        "the observer's own card of each racing colour: [in hand, on the winner pile, on the "
        "loser pile, its slot in that pile / (K - 1)]",
        per_observer=True,
    ),
    Slice(
        "support_dice",
        ("R", "2"),
        "per racing camel's support die: [in the pyramid, in its crater] (neither: on the "
        "pedestal; R9.1, craters only with the extra action, R9.1.4)",
        when="Supercup module 1",
        present=_has_support_dice,
    ),
    Slice(
        "extra_pending",
        ("1",),
        "1 while the current player decides the optional extra action (R9.1.4)",
        when="extra_action",
        present=_has_extra_action,
    ),
    Slice(
        "photographer",
        ("n",),
        "relative seat one-hot of the photographer-tile holder (all zero: the tile is free; R9.2)",
        seat_axes=_SEATS,
        when="Supercup module 2",
        present=_has_photographer,
    ),
    Slice(
        "camera_space",
        ("L",),
        "one-hot of the space 1..L the camera points at",
        when="Supercup module 2",
        present=_has_photographer,
    ),
    Slice(
        "position_bets",
        ("P", "2 + n + R"),
        "per position tile (2nd, 3rd, 4th, 5th): [taken, owner's relative seat one-hot (n), "
        "camel of the covered leg-bet tile one-hot (R), covered tile value / highest leg-bet "
        "value] (R9.3)",
        seat_axes=((1, 1),),
        when="Supercup module 3",
        present=_has_position_bets,
    ),
    Slice(
        "wanderer",
        ("L",),
        "one-hot of the space 1..L the desert wanderer lies on (R14.1)",
        when="Persian tutorial",
        present=_has_wanderer,
    ),
    Slice(
        "loser_cards",
        ("n", "R"),
        "per relative seat and racing camel: the value of the leg loser card it played this "
        "leg / highest loser value (R14.4)",
        seat_axes=_SEATS,
        when="Persian tutorial",
        present=_has_leg_cards,
    ),
    Slice(
        "loser_card_value",
        ("R",),
        "per racing camel: what its loser card would pay if played now / highest loser value "
        "(0 once it is out)",
        when="Persian tutorial",
        present=_has_leg_cards,
    ),
    Slice(
        "leg_rank_prob",
        ("R", "R"),
        "exact P(camel ends this leg at rank r) [camel, rank] (R6.2)",
        when="odds_features",
        present=_has_odds,
    ),
    Slice(
        "leg_bet_ev",
        ("R",),
        "expected coins of taking the top leg-bet tile / highest leg-bet value (0 where the "
        "stack is empty)",
        low=_leg_bet_ev_low,
        when="odds_features",
        present=_has_odds,
    ),
    Slice(
        "leg_bet_available",
        ("R",),
        "1 where the colour's leg-bet stack is not empty",
        when="odds_features",
        present=_has_odds,
    ),
    Slice(
        "race_winner_prob",
        ("R",),
        "estimated P(camel wins the race)",
        when="odds_features",
        present=_has_odds,
    ),
    Slice(
        "race_loser_prob",
        ("R",),
        "estimated P(camel is last at the end of the race)",
        when="odds_features",
        present=_has_odds,
    ),
    Slice(
        "action_values",
        ("A",),
        "per action index: the observing seat's immediate expected coins of that action / 10, "
        "clipped to [-1, 1]; 0 for every action the seat may not take",
        low=-1.0,
        per_observer=True,
        when="action_values",
        present=_has_action_values,
    ),
)

#: Every slice name, in vector order (those a rule set lacks included).
SLICE_NAMES: tuple[str, ...] = tuple(s.name for s in SLICES)


def dimensions(rules: RuleSet) -> dict[str, int]:
    """The value of every shape symbol under ``rules`` (see the module docstring)."""
    crazy = len(rules.crazy_colours)
    top_die = max(
        max(rules.racing_die_faces),
        max(rules.grey_die_values) if crazy else 0,
        max(rules.support_die_faces) if rules.support_dice else 0,
    )
    return {
        "C": rules.n_camels,
        "R": rules.n_racing,
        "L": rules.track_length,
        "n": rules.num_players,
        "D": rules.n_dice,
        "X": crazy,
        "M": top_die,
        "U": len(set(rules.leg_bet_values)),
        "K": rules.num_players * rules.n_racing,
        "P": len(rules.position_tiles),
        "T": rules.last_tile_space,
        "A": len(action_table(rules)),
    }


def _evaluate(expression: str, dims: dict[str, int]) -> int:
    """A sum such as ``"2 + n + R"`` or ``"T - 1"`` of integers and symbols."""
    total, sign = 0, 1
    for token in expression.split():
        if token in "+-":
            sign = 1 if token == "+" else -1
        else:
            total += sign * (int(token) if token.isdigit() else dims[token])
    return total


@dataclass(frozen=True)
class Layout:
    """Where each slice lies in one observer's vector (``start``, ``stop``) and its shape."""

    slices: tuple[Slice, ...]
    spans: dict[str, tuple[int, int]]
    shapes: dict[str, tuple[int, ...]]
    low: np.ndarray
    high: np.ndarray
    dims: dict[str, int]

    @property
    def size(self) -> int:
        return int(self.low.size)


def layout_of(rules: RuleSet, odds_features: bool, action_values: bool) -> Layout:
    """The vector layout of an observer of ``rules`` with these settings."""
    features = Features(rules, odds_features, action_values)
    dims = dimensions(rules)
    slices = tuple(s for s in SLICES if s.present(features))
    spans: dict[str, tuple[int, int]] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    lows, highs = [], []
    start = 0
    for piece in slices:
        shape = tuple(_evaluate(axis, dims) for axis in piece.shape)
        size = int(np.prod(shape))
        low = piece.low(rules) if callable(piece.low) else piece.low
        spans[piece.name] = (start, start + size)
        shapes[piece.name] = shape
        lows.append(np.full(size, low, dtype=np.float32))
        highs.append(np.full(size, piece.high, dtype=np.float32))
        start += size
    return Layout(slices, spans, shapes, np.concatenate(lows), np.concatenate(highs), dims)


def markdown_table(layout: Layout | None = None) -> str:
    """The slice table as Markdown: every slice with its symbolic shape and when it exists,
    or, given a ``layout``, that observer's slices with their concrete shapes and spans."""
    if layout is None:
        rows = ["| slice | shape | only with | meaning |", "|---|---|---|---|"]
        for s in SLICES:
            rows.append(f"| `{s.name}` | ({', '.join(s.shape)}) | {s.when} | {s.meaning} |")
    else:
        rows = ["| slice | shape | entries | meaning |", "|---|---|---|---|"]
        for s in layout.slices:
            a, b = layout.spans[s.name]
            rows.append(f"| `{s.name}` | {layout.shapes[s.name]} | [{a}:{b}] | {s.meaning} |")
    return "\n".join(rows)
