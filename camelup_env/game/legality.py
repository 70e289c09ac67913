"""Which actions the rules allow (R4, R9, R14): legal indices, masks, and the check that
names the rule an action breaks.

The legal indices of a state are computed once and memoised on it (with the bit mask of its
camel spaces, which successors inherit until a die moves a camel); the per-space legality of
tiles and the camera is read from precomputed tables of free-space indices
(:class:`~camelup_env.game.actions.SpaceTable`). :func:`check_legal` is the slow path that
explains a refusal; the engine applies an index chosen from the legal ones without it.
"""

from __future__ import annotations

from collections.abc import Callable

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
from camelup_env.game.movement import ranking
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState


class IllegalActionError(ValueError):
    """An action that the rules forbid in this state; the message names the rule."""


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
        return (table.extra_offset, *(table.support_index(c) for c in support_options(state)))
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


def support_options(state: GameState) -> list[int]:
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
        if action.camel not in support_options(state):
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
