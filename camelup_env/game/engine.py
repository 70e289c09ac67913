"""The rules engine: pure functions from a state and an action to the next state and events.

States are never mutated: :func:`apply_action` and :func:`apply_outcome` return a *new*
:class:`~camelup_env.game.state.GameState` (sharing the unchanged fields with the old one, including
the ``stacks``/``tiles`` dicts until an action changes them) together with the events that
explain it. That makes search (expectimax, MCTS) safe without defensive copies, and makes every
step replayable.

Speed (what an action costs, and the command that measures it, is in docs/performance.md): the
legal indices of a state are computed once and
memoised on it, as is the bit mask of its camel spaces, which successors inherit until a die
moves a camel; an index chosen from the legal ones is applied without re-deriving its rule (any
other action goes through :func:`check_legal`, which names the rule it breaks) by the effect
function of its action type; the per-space legality of tiles and the camera is read from
precomputed tables of free-space indices (:class:`~camelup_env.game.actions.SpaceTable`).

Chance is explicit. The only randomness in a game is the setup (R2) and the die drawn when a
pyramid tile is taken (R4.3). :func:`apply_action` draws it from the ``numpy.random.Generator``
it is given; :func:`chance_outcomes` lists the possible draws with exact probabilities and
:func:`apply_outcome` applies one of them deterministically.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from camelup_env.game.actions import (
    Action,
    ActionTable,
    AddSupportDie,
    Partner,
    Photograph,
    PlaceTile,
    PlayLoserCard,
    PositionBet,
    RaceBet,
    SkipExtra,
    TakeLegBet,
    TakePyramidTile,
    WandererSendBack,
    WandererSwap,
    action_table,
    describe,
)
from camelup_env.game.events import (
    CamelSentBack,
    CamelsSwapped,
    DieRevealed,
    Event,
    ExtraSkipped,
    FinalBetsScored,
    GameOver,
    LegBetTaken,
    LegScored,
    LoserCardPlayed,
    PartnershipFormed,
    PhotographerPlaced,
    PhotoPayout,
    PositionBetTaken,
    PyramidTileTaken,
    RaceBetPlaced,
    RaceEnded,
    SupportDieAdded,
    TilePlaced,
    WandererMoved,
)
from camelup_env.game.movement import crazy_exception, move_unit, ranking
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState

_T = TypeVar("_T")


class IllegalActionError(ValueError):
    """An action that the rules forbid in this state; the message names the rule."""


@dataclass(frozen=True, slots=True)
class DieRoll:
    """A chance outcome of :class:`TakePyramidTile`: which die left the pyramid and its face."""

    die: int
    camel_shown: int
    value: int


# Setup -------------------------------------------------------------------------------------
def new_game(
    rules: RuleSet, seed: int | np.random.Generator | None = None, first_player: int = 0
) -> GameState:
    """A game set up per R2: racing camels on spaces 1-3 in random stack order (R2.1, R11.1),
    crazy camels on 14-16 counted back from the end (R2.2), everything else at its start.
    With the desert wanderer (R14.1) every camel starts on the start line, space 1, in a random
    stack order, and the wanderer lies on space 2."""
    if not 0 <= first_player < rules.num_players:
        raise ValueError(f"first_player must be a seat 0..{rules.num_players - 1}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if rules.wanderer:  # R14.1
        stacks = _racing_setup(rules, (), tuple(int(c) for c in rng.permutation(rules.n_racing)))
    else:
        rolls = tuple(int(rules.racing_die_faces[i]) for i in rng.integers(0, 6, rules.n_racing))
        stacks = _racing_setup(rules, rolls, tuple(int(c) for c in rng.permutation(rules.n_racing)))
    order: list[int] = []
    values: list[int] = []
    for k in rng.permutation(len(rules.crazy_colours)):
        order.append(int(k))
        values.append(int(rules.grey_die_values[rng.integers(0, len(rules.grey_die_values))]))
    return _dealt(rules, _crazy_setup(rules, stacks, tuple(order), tuple(values)), first_player)


def _racing_setup(
    rules: RuleSet, rolls: tuple[int, ...], order: tuple[int, ...]
) -> dict[int, tuple[int, ...]]:
    """R2.1: racing camel ``c`` on space ``rolls[c]``, stacked in ``order`` (bottom to top on a
    shared space). With the desert wanderer (R14.1) all start on space 1 and ``rolls`` is
    empty."""
    stacks: dict[int, tuple[int, ...]] = {}
    for camel in order:
        space = 1 if rules.wanderer else rolls[camel]
        stacks[space] = (*stacks.get(space, ()), camel)
    return stacks


def _crazy_setup(
    rules: RuleSet,
    stacks: dict[int, tuple[int, ...]],
    order: tuple[int, ...],
    values: tuple[int, ...],
) -> dict[int, tuple[int, ...]]:
    """R2.2: the ``order[i]``-th crazy camel, placed ``i``-th, counts ``values[i]`` back from
    the end; a copy of ``stacks`` with them on top."""
    out = dict(stacks)
    for k, value in zip(order, values, strict=True):
        space = rules.track_length + 1 - value
        out[space] = (*out.get(space, ()), rules.n_racing + k)
    return out


#: a deal's stacks as a hashable key: (space, camels bottom to top) by space
_StacksKey = tuple[tuple[int, tuple[int, ...]], ...]


def setup_outcomes(rules: RuleSet, first_player: int = 0) -> list[tuple[GameState, Fraction]]:
    """Every deal :func:`new_game` can make, with its exact probability (sums to 1): the chance
    model of the setup rolls (R2.1, R2.2, R14.1), for callers that take expectations over it.
    A racing camel's space has the probability of its face on the racing die; every stacking
    order is equally likely (a uniform permutation), and likewise for the crazy camels."""
    racing: dict[_StacksKey, Fraction] = {}
    faces = rules.racing_die_faces
    roll_sets = (
        [((), Fraction(1))]
        if rules.wanderer
        else [
            (rolls, _product(Fraction(faces.count(v), len(faces)) for v in rolls))
            for rolls in itertools.product(sorted(set(faces)), repeat=rules.n_racing)
        ]
    )
    orders = list(itertools.permutations(range(rules.n_racing)))
    for rolls, p in roll_sets:
        for order in orders:
            key = tuple(sorted(_racing_setup(rules, rolls, order).items()))
            racing[key] = racing.get(key, Fraction(0)) + p / len(orders)
    n_crazy = len(rules.crazy_colours)
    grey = rules.grey_die_values
    crazy = [
        (order, values, Fraction(1, math.factorial(n_crazy) * len(grey) ** n_crazy))
        for order in itertools.permutations(range(n_crazy))
        for values in itertools.product(grey, repeat=n_crazy)
    ]
    deals: dict[_StacksKey, Fraction] = {}
    for key, p in racing.items():
        for order, values, q in crazy:
            full = tuple(sorted(_crazy_setup(rules, dict(key), order, values).items()))
            deals[full] = deals.get(full, Fraction(0)) + p * q
    return [(_dealt(rules, dict(key), first_player), p) for key, p in deals.items()]


def _product(values: Iterable[Fraction]) -> Fraction:
    out = Fraction(1)
    for v in values:
        out *= v
    return out


def _dealt(rules: RuleSet, stacks: dict[int, tuple[int, ...]], first_player: int) -> GameState:
    """The state at the start of the race once the camels stand on ``stacks`` (R2.3)."""
    n = rules.num_players
    all_cards = (1 << rules.n_racing) - 1
    return GameState(
        rules=rules,
        stacks=stacks,
        tiles={},
        pyramid=leg_start_pyramid(rules, stacks),
        revealed=(),
        leg_stacks=leg_start_stacks(rules),
        pyramid_tiles_left=rules.pyramid_tiles,
        coins=(rules.starting_coins,) * n,
        leg_bets=((),) * n,
        pyramid_tiles=(0,) * n,
        hands=(all_cards,) * n,
        partners=(-1,) * n,
        winner_pile=(),
        loser_pile=(),
        leg=1,
        current=first_player,
        leg_starter=first_player,
        game_over=False,
        wanderer=2 if rules.wanderer else 0,
    )


def leg_start_stacks(rules: RuleSet) -> tuple[tuple[int, ...], ...]:
    """Each camel's leg-bet stack at a leg start (R2.3). With leg cards (R14.3) a camel's
    "stack" is the value its winner card would pay if played now: the first value of the
    order-played table, or empty once a winner card of that camel is out this leg."""
    if rules.leg_cards:
        return ((rules.leg_bet_values[0],),) * rules.n_racing
    return (rules.leg_bet_values,) * rules.n_racing


def leg_start_pyramid(rules: RuleSet, stacks: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
    """The dice in the pyramid when a leg starts: every racing die (and the grey die, R2.3),
    plus, with Supercup support dice, the support die of the last camel (R9.1.1)."""
    if not rules.support_dice:
        return rules.leg_start_dice
    last = ranking(stacks, rules.n_racing)[-1]
    return (*rules.leg_start_dice, rules.first_support_die + last)


# Legal actions -----------------------------------------------------------------------------
def legal_action_indices(state: GameState) -> list[int]:
    """Indices (see :mod:`camelup_env.game.actions`) of the actions the current player may take.

    Memoised on the state (states are values, see :mod:`camelup_env.game.state`), which also lets
    :func:`apply_action` validate an index by a lookup instead of re-deriving the rule.
    """
    legal = state._legal
    if legal is None:
        legal = state._legal = _legal_indices(state)
    return list(legal)


def _legal_indices(state: GameState) -> tuple[int, ...]:
    if state.game_over:
        return ()
    rules = state.rules
    table = action_table(rules)
    p = state.current
    if state.extra_pending:  # R9.1.4: the second decision of the turn
        return (table.extra_offset, *(table.support_index(c) for c in _support_options(state)))
    # R4.1-R4.4 depend on a few bits of the state only: tables answer them per bits.
    bits = table.leg_bits.get(state.leg_stacks)  # R4.1: the stacks with tiles left
    if bits is None:
        bits = table.leg_bits[state.leg_stacks] = sum(
            1 << c for c, stack in enumerate(state.leg_stacks) if stack
        )
    if state.pyramid_tiles_left:  # R4.3 (the pyramid's index follows the leg bets')
        bits |= 1 << len(state.leg_stacks)
    legal = (
        table.leg_indices[bits]
        + table.tile_spaces.free(_blocked_spaces(state, p))  # R4.2
        + table.race_indices[state.hands[p]]
    )  # R4.4
    if rules.partnerships and state.partners[p] < 0:  # R9.4
        legal += tuple(
            table.partner_offset + q
            for q, partner in enumerate(state.partners)
            if partner < 0 and q != p
        )
    if table.module_blocks:  # one flag on the hot path for the blocks below
        legal += _module_indices(state, p, table)
    return legal


def _module_indices(state: GameState, p: int, table: ActionTable) -> tuple[int, ...]:
    """The legal actions of the optional blocks: the Supercup camera (R9.2) and position bets
    (R9.3); the Persian tutorial's loser cards (R14.4, one per camel with none out this leg)
    and the wanderer (R14.6)."""
    rules = state.rules
    legal: tuple[int, ...] = ()
    if rules.photographer:  # R9.2
        legal += _camera_indices(state, p, table)
    if rules.position_bets:  # R9.3
        legal += _position_bet_indices(state, p, table)
    if rules.leg_cards:
        played = {camel for _, camel, _ in state.loser_cards}
        legal += tuple(table.loser_index(c) for c in range(table.n_racing) if c not in played)
    if rules.wanderer:
        legal += _wanderer_indices(state, table)
    return legal


def _wanderer_indices(state: GameState, table: ActionTable) -> tuple[int, ...]:
    """R14.6: the wanderer's two uses, while it has a next space to move on to: swap two
    camels of one stack; send a camel that is alone on its space (and is not the last camel)
    back onto the last camel."""
    if state.wanderer >= state.rules.track_length:
        return ()
    n = table.n_racing
    pairs = []
    for stack in state.stacks.values():
        for i, a in enumerate(stack):
            pairs += [(min(a, b), max(a, b)) for b in stack[i + 1 :]]
    swaps = [table.index[WandererSwap(a, b)] for a, b in pairs]
    last = ranking(state.stacks, n)[-1]
    backs = [
        table.send_back_index(stack[0])
        for stack in state.stacks.values()
        if len(stack) == 1 and stack[0] != last
    ]
    return tuple(sorted(swaps)) + tuple(sorted(backs))


def _camera_indices(state: GameState, seat: int, table: ActionTable) -> tuple[int, ...]:
    """R9.2: where ``seat`` may point the camera: empty spaces (no camel, no track tile), if
    nobody else holds the tile; its holder may only move the camera to a different space."""
    held = state.photographer
    if held is not None and held[0] != seat:
        return ()
    blocked = _camel_spaces(state)
    for space in state.tiles:
        blocked |= 1 << space
    if held is not None:
        blocked |= 1 << held[1]
    return table.photo_spaces.free(blocked)


def uncovered_tiles(state: GameState, seat: int) -> list[tuple[int, int]]:
    """``seat``'s leg-bet tiles ``(camel, value)`` not yet covered by one of its position tiles
    (R9.3), in the order taken: the ones leg scoring pays as leg bets (R6.2), and the ones a
    position bet may cover. The one home of this rule (scoring, legality and the agents)."""
    tiles = list(state.leg_bets[seat])
    for owner, _, camel, value in state.position_bets:
        if owner == seat:
            tiles.remove((camel, value))
    return tiles


def _position_bet_indices(state: GameState, seat: int, table: ActionTable) -> tuple[int, ...]:
    """R9.3: a free position tile, covering an own uncovered leg-bet tile of a colour or the
    bottom tile of a colour's stack."""
    taken = {pos for _, pos, _, _ in state.position_bets}
    rows = [row for row, pos in enumerate(state.rules.position_tiles) if pos not in taken]
    if not rows:
        return ()
    own = {camel for camel, _ in uncovered_tiles(state, seat)}
    out = []
    for row in rows:
        for camel, stack in enumerate(state.leg_stacks):
            if camel in own:
                out.append(table.position_index(row, camel, False))
            if stack:
                out.append(table.position_index(row, camel, True))
    return tuple(out)


def _support_options(state: GameState) -> list[int]:
    """R9.1.4: camels whose support die may be put into the pyramid: on the pedestal (not in
    the pyramid, not in a crater) and not the leading camel's."""
    rules = state.rules
    leader = ranking(state.stacks, rules.n_racing)[0]
    first = rules.first_support_die
    return [
        c
        for c in range(rules.n_racing)
        if c != leader and first + c not in state.pyramid and not state.crater >> c & 1
    ]


def legal_actions(state: GameState) -> list[Action]:
    """The actions the current player may take (empty once the game is over)."""
    actions = action_table(state.rules).actions
    return [actions[i] for i in legal_action_indices(state)]


def legal_action_mask(state: GameState) -> np.ndarray:
    """A 0/1 ``int8`` vector over the action indices."""
    mask = np.zeros(len(action_table(state.rules)), dtype=np.int8)
    mask.put(legal_action_indices(state), 1)
    return mask


def _camel_spaces(state: GameState) -> int:
    """Bit mask of the track spaces holding a camel, spaces as bit index (memoised on the
    state and inherited by its successors until a die moves a camel)."""
    occupied = state._camels
    if occupied is None:
        occupied = 0
        for space in state.stacks:
            if space > 0:
                occupied |= 1 << space
        state._camels = occupied
    return occupied


def _blocked_spaces(state: GameState, seat: int) -> int:
    """Bit mask of the spaces where ``seat`` may not put its tile (R4.2), spaces as bit index:
    no camel, no tile, no neighbouring tile. The player's own tile is lifted first, so its
    neighbours are free, but its own space is not (a tile moves to a different space)."""
    blocked = _camel_spaces(state)
    same_space = state.rules.tile_same_space
    for space, (owner, _) in state.tiles.items():
        if owner != seat:
            blocked |= 7 << (space - 1)
        elif not same_space:  # C6: in the Cup, the lifted tile may go back on its own space
            blocked |= 1 << space
    if state.photographer is not None:  # no track tile on the camera space (R9.2)
        blocked |= 1 << state.photographer[1]
    return blocked


def check_legal(state: GameState, action: Action) -> None:
    """Raise :class:`IllegalActionError` naming the rule if ``action`` is illegal now."""
    rules = state.rules
    p = state.current

    def fail(why: str) -> None:
        raise IllegalActionError(
            f"illegal action for player {p}: {describe(action, rules)} ({action!r}) - {why}"
        )

    if state.game_over:
        fail("the race is over (R7)")
    if state.extra_pending != isinstance(action, (SkipExtra, AddSupportDie)):
        if state.extra_pending:
            fail("first decide the optional extra action: skip it or add a support die (R9.1.4)")
        fail("there is no extra action to decide now (R9.1.4)")
    if isinstance(action, TakeLegBet):
        if not 0 <= action.camel < rules.n_racing:
            fail(f"leg bets are on racing camels 0..{rules.n_racing - 1} (R4.1)")
        if not state.leg_stacks[action.camel]:
            if rules.leg_cards:
                fail(
                    f"a {rules.colours[action.camel]} leg winner card was already played this "
                    "leg (R14.3)"
                )
            fail(f"no {rules.colours[action.camel]} leg-bet tile is left this leg (R4.1)")
    elif isinstance(action, TakePyramidTile):
        if not state.pyramid_tiles_left:
            fail("no pyramid tile is left (R4.3)")
    elif isinstance(action, PlaceTile):
        s = action.space
        if rules.tile_kind == "none":
            fail("this rule set has no desert or spectator tiles (R14.7)")
        if (
            action.side in (1, -1)
            and 2 <= s <= rules.last_tile_space
            and not _blocked_spaces(state, p) >> s & 1
        ):
            return  # the common, legal case; the checks below only explain a refusal
        own = state.tile_of(p)
        if action.side not in (1, -1):
            fail("the tile's side must be +1 or -1 (R4.2)")
        if not 2 <= s <= rules.last_tile_space:
            rule = "C6" if rules.last_tile_space > rules.track_length else "R4.2"
            fail(f"tiles go on spaces 2..{rules.last_tile_space} ({rule})")
        if s in state.stacks:
            fail(f"space {s} holds a camel (R4.2)")
        if state.photographer is not None and state.photographer[1] == s:
            fail(f"space {s} is the camera space (R9.2)")
        if own is not None and own[0] == s and not rules.tile_same_space:
            fail("a placed tile may only be moved to a different space (R4.2)")
        others = {sp for sp, (o, _) in state.tiles.items() if o != p}
        if s in others:
            fail(f"space {s} already holds a tile (R4.2)")
        if s - 1 in others or s + 1 in others:
            fail(f"space {s} is next to another tile (R4.2)")
    elif isinstance(action, RaceBet):
        if action.pile not in (WINNER_PILE, LOSER_PILE):
            fail("the pile must be 0 (winner) or 1 (loser) (R4.4)")
        if not 0 <= action.camel < rules.n_racing:
            fail(f"race bets are on racing camels 0..{rules.n_racing - 1} (R4.4)")
        if not state.hands[p] >> action.camel & 1:
            fail(f"the {rules.colours[action.camel]} race-betting card was already used (R4.4)")
    elif isinstance(action, Partner):
        if not rules.partnerships:
            fail("this rule set has no betting partnerships (R1.4, R9.4)")
        if not 0 <= action.seat < rules.num_players or action.seat == p:
            fail("the partner must be another player (R9.4)")
        if state.partners[p] >= 0:
            fail("your partnership card is not available this leg (R9.4)")
        if state.partners[action.seat] >= 0:
            fail(f"player {action.seat}'s partnership card is not available (R9.4)")
    elif isinstance(action, Photograph):
        if not rules.photographer:
            fail("this rule set has no photographer (R9.2)")
        if state.photographer is not None and state.photographer[0] != p:
            fail(f"player {state.photographer[0]} holds the photographer tile (R9.2)")
        table = action_table(rules)
        if table.index.get(action) not in _camera_indices(state, p, table):
            fail(
                f"the camera must point at an empty space of 1..{rules.track_length} other "
                "than its current one: no camel, no track tile (R9.2)"
            )
    elif isinstance(action, PositionBet):
        if not rules.position_bets:
            fail("this rule set has no position bets (R9.3)")
        table = action_table(rules)
        if table.index.get(action) not in _position_bet_indices(state, p, table):
            fail("the position tile is taken, or there is no such leg-bet tile to cover (R9.3)")
    elif isinstance(action, AddSupportDie):
        if action.camel not in _support_options(state):
            fail("that support die is not on the pedestal, or its camel leads (R9.1.4)")
    elif isinstance(action, SkipExtra):
        pass
    elif isinstance(action, PlayLoserCard):
        if not rules.leg_cards:
            fail("this rule set has no leg loser cards (R14.4)")
        if not 0 <= action.camel < rules.n_racing:
            fail(f"loser cards are on racing camels 0..{rules.n_racing - 1} (R14.4)")
        if any(camel == action.camel for _, camel, _ in state.loser_cards):
            fail(
                f"a {rules.colours[action.camel]} leg loser card was already played this leg "
                "(R14.4)"
            )
    elif isinstance(action, (WandererSwap, WandererSendBack)):
        _check_wanderer(state, action, fail)
    else:
        raise IllegalActionError(f"not a camelup action: {action!r}")


def _check_wanderer(
    state: GameState, action: WandererSwap | WandererSendBack, fail: Callable[[str], None]
) -> None:
    """R14.6: why a use of the desert wanderer is refused (the legal ones are listed by
    :func:`_wanderer_indices`)."""
    rules = state.rules
    if not rules.wanderer:
        fail("this rule set has no desert wanderer (R14.6)")
    if state.wanderer >= rules.track_length:
        fail(f"the wanderer on space {state.wanderer} has no next space to move on to (R14.6)")
    camels = (action.lower, action.upper) if isinstance(action, WandererSwap) else (action.camel,)
    if any(not 0 <= c < rules.n_racing for c in camels):
        fail(f"the wanderer moves racing camels 0..{rules.n_racing - 1} (R14.6)")
    if isinstance(action, WandererSwap):
        if action.lower >= action.upper:
            fail("name the two camels to swap as lower < upper (R14.6)")
        if state.camel_space(action.lower) != state.camel_space(action.upper):
            fail("the wanderer swaps two camels of one space (R14.6)")
        return
    if len(state.stacks[state.camel_space(action.camel)]) != 1:
        fail("the wanderer sends back only a camel that is alone on its space (R14.6)")
    if ranking(state.stacks, rules.n_racing)[-1] == action.camel:
        fail("the last camel cannot be sent back onto itself (R14.6)")


# Applying actions --------------------------------------------------------------------------
def _checked(state: GameState, action: Action | int) -> Action:
    """``action`` (an action or its index) as an action, if the rules allow it now; otherwise
    :class:`IllegalActionError`. An index found among the state's memoised legal indices
    needs no rule check."""
    legal = state._legal
    if legal is not None and type(action) is int and action in legal:
        return action_table(state.rules).actions[action]
    action = to_action(state, action)
    check_legal(state, action)
    return action


def to_action(state: GameState, action: Action | int) -> Action:
    """Accept an action or its index."""
    if type(action) is int or isinstance(action, np.integer):
        actions = action_table(state.rules).actions
        if not 0 <= action < len(actions):
            raise IllegalActionError(
                f"action index {int(action)} is out of range 0..{len(actions) - 1}"
            )
        return actions[action]
    # an int left here (a bool, an int subclass) is no action either
    if isinstance(action, int) or (
        type(action) not in _EFFECTS and type(action) is not TakePyramidTile
    ):
        raise IllegalActionError(f"not a camelup action: {action!r}")
    return action


def apply_action(
    state: GameState, action: Action | int, rng: np.random.Generator
) -> tuple[GameState, tuple[Event, ...]]:
    """The state after the current player takes ``action``, and what happened.

    For :class:`TakePyramidTile` the die is drawn from ``rng`` (uniform over the dice left, then
    over the die's faces); everything else is deterministic.
    """
    action = _checked(state, action)
    if type(action) is TakePyramidTile:
        # One uniform draw picks the die (integer part) and its face (fractional part).
        x = rng.random() * len(state.pyramid)
        i = int(x)
        die = state.pyramid[i]
        faces = state.rules.dice[die]
        camel, value = faces[int((x - i) * len(faces))]
        return _roll(state, die, camel, value)
    return _apply_deterministic(state, action)


def chance_outcomes(
    state: GameState, action: Action | int
) -> list[tuple[DieRoll | None, Fraction]]:
    """Every die roll ``action`` can lead to, with its exact probability (sums to 1).

    Only :class:`TakePyramidTile` has chance; any other action has the single outcome ``None``
    with probability 1, so callers can treat every action alike.
    """
    action = _checked(state, action)
    if not isinstance(action, TakePyramidTile):
        return [(None, Fraction(1))]
    k = len(state.pyramid)
    out: dict[DieRoll, Fraction] = {}
    for die in state.pyramid:
        faces = state.rules.dice[die]
        for camel, value in faces:
            roll = DieRoll(die, camel, value)
            out[roll] = out.get(roll, Fraction(0)) + Fraction(1, k * len(faces))
    return list(out.items())


def apply_outcome(
    state: GameState, action: Action | int, outcome: DieRoll | None
) -> tuple[GameState, tuple[Event, ...]]:
    """Deterministic :func:`apply_action`: the chance outcome is given, not drawn."""
    action = _checked(state, action)
    if isinstance(action, TakePyramidTile):
        if not isinstance(outcome, DieRoll):
            raise ValueError(f"taking a pyramid tile needs a DieRoll outcome, got {outcome!r}")
        faces = state.rules.dice[outcome.die] if 0 <= outcome.die < state.rules.n_dice else ()
        if outcome.die not in state.pyramid or (outcome.camel_shown, outcome.value) not in faces:
            raise ValueError(f"{outcome!r} is not a possible roll now (dice left {state.pyramid})")
        return _roll(state, outcome.die, outcome.camel_shown, outcome.value)
    if outcome is not None:
        raise ValueError(f"{action!r} has no chance outcome; pass None, got {outcome!r}")
    return _apply_deterministic(state, action)


def _next_turn(state: GameState) -> GameState:
    new = state.successor()  # shares stacks/tiles: copied below only where they change
    new.current = (state.current + 1) % state.rules.num_players
    new.extra_pending = False
    return new


def _offer_extra(state: GameState, seat: int) -> None:
    """Keep the turn with ``seat`` for the optional extra action when it is due (R9.1.4): it
    holds a pyramid tile and a support die may go in. Never called when the turn took the
    leg's last pyramid tile or ended the race."""
    if state.rules.extra_action and state.pyramid_tiles[seat] >= 1 and _support_options(state):
        state.current = seat
        state.extra_pending = True


def _apply_deterministic(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    p = state.current
    new = _next_turn(state)
    events = _EFFECTS[type(action)](state, new, p, action)
    if new.rules.extra_action and not state.extra_pending:
        _offer_extra(new, p)
    return new, events


# The effect of each chance-free action of player ``p``, written into ``new`` (turn passed);
# each returns the events. Dispatched on the action's type (see _EFFECTS).
def _take_leg_bet(state: GameState, new: GameState, p: int, action: TakeLegBet) -> tuple[Event]:
    c = action.camel
    stack = state.leg_stacks[c]
    # C5: an endless stack keeps its last tile (the Cup's bets are unlimited).
    rest = stack[1:] if len(stack) > 1 or not state.rules.endless_leg_bets else stack
    new.leg_stacks = _set(state.leg_stacks, c, rest)
    if state.rules.leg_cards:  # R14.3: the next winner card played pays the next value
        new.leg_stacks = _next_card_values(state.rules, new.leg_stacks)
    new.leg_bets = _set(state.leg_bets, p, (*state.leg_bets[p], (c, stack[0])))
    return (LegBetTaken(p, c, stack[0]),)


def _next_card_values(
    rules: RuleSet, stacks: tuple[tuple[int, ...], ...]
) -> tuple[tuple[int, ...], ...]:
    """R14.3: after a winner card is played, every camel whose winner card is still free shows
    the value of the next card in the order played."""
    played = sum(1 for stack in stacks if not stack)
    value = rules.leg_bet_values[min(played, len(rules.leg_bet_values) - 1)]
    return tuple((value,) if stack else () for stack in stacks)


def _play_loser_card(
    state: GameState, new: GameState, p: int, action: PlayLoserCard
) -> tuple[Event]:
    """R14.4: the card's value is set by how many loser cards were played before it."""
    value = state.rules.loser_bet_values[len(state.loser_cards)]
    new.loser_cards = (*state.loser_cards, (p, action.camel, value))
    return (LoserCardPlayed(p, action.camel, value),)


def _wanderer_swap(
    state: GameState, new: GameState, p: int, action: WandererSwap
) -> tuple[Event, ...]:
    """R14.6: the two camels trade places in their stack; the others stay."""
    space = state.camel_space(action.lower)
    swap = {action.lower: action.upper, action.upper: action.lower}
    stack = tuple(swap.get(c, c) for c in state.stacks[space])
    new.stacks = {**state.stacks, space: stack}
    return (CamelsSwapped(p, space, stack), _move_wanderer(new, "used"))


def _wanderer_send_back(
    state: GameState, new: GameState, p: int, action: WandererSendBack
) -> tuple[Event, ...]:
    """R14.6: a lone camel goes onto the top of the last camel's stack (R5.2)."""
    src = state.camel_space(action.camel)
    last = ranking(state.stacks, state.rules.n_racing)[-1]
    dst = state.camel_space(last)
    new.stacks = stacks = dict(state.stacks)
    del stacks[src]
    stacks[dst] = (*stacks[dst], action.camel)
    new._camels = None
    return (CamelSentBack(p, action.camel, src, dst), _move_wanderer(new, "used"))


def _move_wanderer(state: GameState, reason: str) -> WandererMoved:
    """R14.5, R14.6: the wanderer moves on to the next space."""
    state.wanderer += 1
    return WandererMoved(state.wanderer - 1, state.wanderer, reason)


def _place_tile(state: GameState, new: GameState, p: int, action: PlaceTile) -> tuple[Event]:
    new.tiles = tiles = dict(state.tiles)
    old = None
    for space, tile in state.tiles.items():  # a placed tile moves (R4.2)
        if tile[0] == p:
            old = space
            del tiles[space]
            break
    tiles[action.space] = (p, action.side)
    return (TilePlaced(p, action.space, action.side, old),)


def _race_bet(state: GameState, new: GameState, p: int, action: RaceBet) -> tuple[Event]:
    card = (p, action.camel)
    if action.pile == WINNER_PILE:
        new.winner_pile = (*state.winner_pile, card)
    else:
        new.loser_pile = (*state.loser_pile, card)
    new.hands = _set(state.hands, p, state.hands[p] & ~(1 << action.camel))
    return (RaceBetPlaced(p, action.pile, action.camel),)


def _partner(state: GameState, new: GameState, p: int, action: Partner) -> tuple[Event]:
    partners = list(state.partners)
    partners[p], partners[action.seat] = action.seat, p
    new.partners = tuple(partners)
    return (PartnershipFormed(p, action.seat),)


def _photograph(state: GameState, new: GameState, p: int, action: Photograph) -> tuple[Event]:
    new.photographer = (p, action.space)
    return (PhotographerPlaced(p, action.space),)


def _position_bet(state: GameState, new: GameState, p: int, action: PositionBet) -> tuple[Event]:
    c = action.camel
    if action.from_stack:  # the bottom tile of the stack becomes the player's, covered
        value = state.leg_stacks[c][-1]
        new.leg_stacks = _set(state.leg_stacks, c, state.leg_stacks[c][:-1])
        new.leg_bets = _set(state.leg_bets, p, (*state.leg_bets[p], (c, value)))
    else:  # the lowest-valued uncovered own tile of that colour (R11.4)
        value = min(v for camel, v in uncovered_tiles(state, p) if camel == c)
    new.position_bets = (*state.position_bets, (p, action.position, c, value))
    return (PositionBetTaken(p, action.position, c, value, action.from_stack),)


def _add_support_die(
    state: GameState, new: GameState, p: int, action: AddSupportDie
) -> tuple[Event]:
    new.pyramid_tiles = _set(state.pyramid_tiles, p, state.pyramid_tiles[p] - 1)
    new.pyramid_tiles_left = state.pyramid_tiles_left + 1
    new.pyramid = tuple(sorted((*state.pyramid, state.rules.first_support_die + action.camel)))
    return (SupportDieAdded(p, action.camel),)


def _skip_extra(state: GameState, new: GameState, p: int, action: SkipExtra) -> tuple[Event]:
    return (ExtraSkipped(p),)


_EFFECTS: dict[type, Callable[[GameState, GameState, int, Any], tuple[Event, ...]]] = {
    TakeLegBet: _take_leg_bet,
    PlaceTile: _place_tile,
    RaceBet: _race_bet,
    Partner: _partner,
    Photograph: _photograph,
    PositionBet: _position_bet,
    AddSupportDie: _add_support_die,
    SkipExtra: _skip_extra,
    PlayLoserCard: _play_loser_card,
    WandererSwap: _wanderer_swap,
    WandererSendBack: _wanderer_send_back,
}


def _roll(
    state: GameState, die: int, shown: int, value: int
) -> tuple[GameState, tuple[Event, ...]]:
    """R4.3 + R5: take a pyramid tile, reveal ``die`` showing camel ``shown`` and ``value``,
    move, and end the leg or race if due."""
    rules = state.rules
    p = state.current
    new = _next_turn(state)
    events: list[Event] = [PyramidTileTaken(p), DieRevealed(die, shown, value)]
    new.pyramid_tiles_left = state.pyramid_tiles_left - 1
    new.pyramid_tiles = _set(state.pyramid_tiles, p, state.pyramid_tiles[p] + 1)
    pyramid = list(state.pyramid)
    pyramid.remove(die)
    new.pyramid = tuple(pyramid)
    new.revealed = (*state.revealed, (die, shown, value))
    reason = "die"
    if rules.is_crazy(shown):  # R5.5: backward, and R5.5 picks the crazy camel
        exception = crazy_exception(state.stacks, rules.n_racing)
        camel = shown
        if exception is not None and exception[0] != shown:
            camel, reason = exception  # the events say why the other crazy camel moves
        steps = -value
    else:
        camel, steps = shown, value
    if rules.extra_action and die >= rules.first_support_die:  # into its crater (R9.1.4)
        new.crater = state.crater | 1 << (die - rules.first_support_die)
    new.stacks = dict(state.stacks)
    new._camels = None
    dst, paid, unit = move_unit(
        new.stacks, state.tiles, camel, steps, rules.last_tile_space, events, reason
    )
    if rules.roll_pays_at_once:  # C4: the Cup pays the roll's coin now, not at leg scoring
        paid = paid + [p] * rules.pyramid_tile_value
    if state.photographer is not None and state.photographer[1] == dst:  # R9.2
        owner = state.photographer[0]
        paid = paid + [owner] * len(unit)
        events.append(PhotoPayout(owner, dst, len(unit)))
        new.photographer = None
    if paid:
        coins = list(state.coins)
        for owner in paid:
            coins[owner] += 1
        new.coins = tuple(coins)
    if dst > rules.track_length or dst < 1:  # R5.4, R5.6: the race ends at once
        return _end_race(new, events, backward=dst < 1)
    if new.pyramid_tiles_left == 0 or (rules.wanderer and dst > state.wanderer):  # R6.1, R14.5
        _score_leg(new, events)
        _clean_up_leg(new, p, events)
    else:
        _offer_extra(new, p)
    return new, tuple(events)


def _score_leg(state: GameState, events: list[Event]) -> None:
    """R6.2 (with R9.4's partner copy and R8.1's floor), written into ``state``."""
    rules = state.rules
    order = ranking(state.stacks, rules.n_racing)
    first, second = order[0], order[1]
    colours = rules.colours

    rank = {camel: i + 1 for i, camel in enumerate(order)}
    last, second_last = order[-1], order[-2]
    tile_value = rules.pyramid_tile_value

    def rewards(seat: int) -> list[tuple[str, int]]:
        out = [  # C5: a 0-valued tile (a late Cup bet) pays nothing on the second camel
            (f"{colours[c]} {v} leg bet", v if c == first else min(v, 1) if c == second else -1)
            for c, v in uncovered_tiles(state, seat)
        ]
        out += [  # R9.3: a covered tile pays +3 or -1 instead
            (f"position-{pos} tile on {colours[c]}", 3 if rank[c] == pos else -1)
            for owner, pos, c, _ in state.position_bets
            if owner == seat
        ]
        if state.loser_cards:  # R14.4: R6.2 mirrored, from the last camel
            out += [
                (f"{colours[c]} {v} loser card", v if c == last else 1 if c == second_last else -1)
                for owner, c, v in state.loser_cards
                if owner == seat
            ]
        if tile_value and not rules.roll_pays_at_once:  # R14.2: nothing; C4: paid already
            out += [("pyramid tile", tile_value)] * state.pyramid_tiles[seat]
        return out

    all_items = []
    coins = list(state.coins)
    deltas = []
    floor = _money_floor(rules)
    for seat in range(rules.num_players):
        items = rewards(seat)
        partner = state.partners[seat]
        if partner >= 0:
            best = max(rewards(partner), key=lambda item: item[1], default=None)
            if best is not None and best[1] > 0:
                items.append((f"partner {partner}'s {best[0]}", best[1]))
        new_coins = floor(coins[seat] + sum(amount for _, amount in items))
        deltas.append(new_coins - coins[seat])
        coins[seat] = new_coins
        all_items.append(tuple(items))
    state.coins = tuple(coins)
    events.append(LegScored(state.leg, tuple(order), tuple(all_items), tuple(deltas)))


def _clean_up_leg(state: GameState, last_taker: int, events: list[Event]) -> None:
    """R6.3 and R6.4: return tiles, dice and cards; the next player starts the new leg. The
    desert wanderer moves on (R14.5)."""
    rules = state.rules
    n = rules.num_players
    state.leg_stacks = leg_start_stacks(rules)
    state.loser_cards = ()  # R14.4
    if rules.wanderer and state.wanderer < rules.track_length:  # R14.5: on, if there is room
        events.append(_move_wanderer(state, "leg"))
    state.leg_bets = ((),) * n
    state.pyramid_tiles = (0,) * n
    state.pyramid_tiles_left = rules.pyramid_tiles
    state.pyramid = leg_start_pyramid(rules, state.stacks)
    state.revealed = ()
    state.crater = 0  # R9.1.4: support dice back to the pedestal
    state.photographer = None  # R9.2
    state.position_bets = ()  # R9.3
    state.tiles = {}
    state.partners = (-1,) * n
    state.leg += 1
    state.leg_starter = (last_taker + 1) % n


def _end_race(
    state: GameState, events: list[Event], backward: bool
) -> tuple[GameState, tuple[Event, ...]]:
    """R7: final leg scoring, then the final bets card by card, then the winners."""
    rules = state.rules
    order = tuple(ranking(state.stacks, rules.n_racing))
    events.append(RaceEnded(order, backward))
    _score_leg(state, events)
    coins = list(state.coins)
    floor = _money_floor(rules)
    for pile, cards, target in (
        (WINNER_PILE, state.winner_pile, order[0]),
        (LOSER_PILE, state.loser_pile, order[-1]),
    ):
        paid = []
        correct = 0
        for owner, camel in cards:
            if camel == target:
                payouts = rules.race_bet_payouts
                amount = payouts[min(correct, len(payouts) - 1)]
                correct += 1
            else:
                amount = -1
            new_coins = floor(coins[owner] + amount)  # R8.1, card by card
            paid.append((owner, camel, new_coins - coins[owner]))
            coins[owner] = new_coins
        events.append(FinalBetsScored(pile, target, tuple(paid)))
    state.coins = tuple(coins)
    state.game_over = True
    best = max(coins)
    events.append(GameOver(state.coins, tuple(s for s, c in enumerate(coins) if c == best)))
    return state, tuple(events)


def _money_floor(rules: RuleSet) -> Callable[[int], int]:
    """R8.1: coins stop at 0; C10: the Cup has no floor."""
    return _floor_at_zero if rules.money_floor else int


def _floor_at_zero(coins: int) -> int:
    return max(0, coins)


def winners(state: GameState) -> tuple[int, ...]:
    """Seats with the most coins (R7.3); meaningful once ``state.game_over``."""
    best = max(state.coins)
    return tuple(s for s, c in enumerate(state.coins) if c == best)


def _set(values: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*values[:index], value, *values[index + 1 :])
