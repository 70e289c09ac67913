"""The rules engine: pure functions from a state and an action to the next state and events.

The setup is :mod:`camelup_env.game.setup` and which actions are legal is
:mod:`camelup_env.game.legality`; this module applies them.

States are never mutated: :func:`apply_action` and :func:`apply_outcome` return a *new*
:class:`~camelup_env.game.state.GameState` (sharing the unchanged fields with the old one, including
the ``stacks``/``tiles`` dicts until an action changes them) together with the events that
explain it. That makes search (expectimax, MCTS) safe without defensive copies, and makes every
step replayable.

Speed (what an action costs, and the command that measures it, is in docs/performance.md): an
index chosen from the legal ones (memoised on the state by :mod:`camelup_env.game.legality`)
is applied without re-deriving its rule (any other action goes through
:func:`~camelup_env.game.legality.check_legal`, which names the rule it breaks) by the effect
function of its action type.

Chance is explicit. The only randomness in a game is the setup (R2) and the die drawn when a
pyramid tile is taken (R4.3). :func:`apply_action` draws it from the ``numpy.random.Generator``
it is given; :func:`chance_outcomes` lists the possible draws with exact probabilities and
:func:`apply_outcome` applies one of them deterministically.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from camelup_env.game.actions import (
    Action,
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
from camelup_env.game.legality import (
    IllegalActionError,
    check_legal,
    support_options,
    uncovered_tiles,
)
from camelup_env.game.movement import crazy_exception, move_unit, ranking
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import leg_start_pyramid, leg_start_stacks
from camelup_env.game.state import LOSER_PILE, WINNER_PILE, GameState

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class DieRoll:
    """A chance outcome of :class:`TakePyramidTile`: which die left the pyramid and its face."""

    die: int
    camel_shown: int
    value: int


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
    if state.rules.extra_action and state.pyramid_tiles[seat] >= 1 and support_options(state):
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
