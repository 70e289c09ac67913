"""Between the batch core's arrays and the reference engine's :class:`GameState`.

The one place that knows how each array of :class:`~camelup_env.batch.arrays.BatchState` maps
onto a ``GameState`` field: search code, replays and the differential tests move games across
with :func:`to_state` and :func:`from_states`, and ``from_states`` of a batch's states plays on
exactly as ``b`` would (the random streams travel separately, see
:meth:`camelup_env.batch.games.BatchGames.from_states`).
"""

from __future__ import annotations

from collections.abc import Sequence

from camelup_env.batch import kernels as k
from camelup_env.batch.arrays import BatchState, rule_vector
from camelup_env.game.rule_kernels import STACK_KEYS
from camelup_env.game.state import GameState


def to_state(s: BatchState, i: int) -> GameState:
    """Game ``i`` of the batch as the reference engine's state. Read from the row as one Python
    list (``k.*`` are the column offsets): scripted opponents of a batched env need a state for
    every move, and numpy scalar access cost ten times more."""
    rules = s.rules
    n_racing, n_camels, n = rules.n_racing, rules.n_camels, rules.num_players
    g = s.rows[i].tolist()
    spaces: dict[int, list[tuple[int, int]]] = {}
    for c in range(n_camels):
        space, height = divmod(g[k.CAMEL + c], STACK_KEYS)  # the key's space and height
        spaces.setdefault(space, []).append((height, c))
    stacks = {space: tuple(c for _, c in sorted(camels)) for space, camels in spaces.items()}
    tiles = {
        g[k.TILE_SPACE + q]: (q, g[k.TILE_SIDE + q]) for q in range(n) if g[k.TILE_SPACE + q] > 0
    }
    values = rules.leg_bet_values
    tile = [
        (c, t, c * k.MAX_LEG_TILES + t) for c in range(n_racing) for t in range(g[k.LEG_TAKEN + c])
    ]
    taken = sorted((g[k.LEG_ORDER + j], g[k.LEG_OWNER + j], c, values[t]) for c, t, j in tile)
    leg_bets: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for _, owner, c, value in taken:
        leg_bets[owner].append((c, value))
    piles = tuple(
        tuple(
            (g[k.PILE_OWNER + pile * k.MAX_CARDS + j], g[k.PILE_CAMEL + pile * k.MAX_CARDS + j])
            for j in range(g[k.PILE_LEN + pile])
        )
        for pile in (0, 1)
    )
    revealed = g[k.REVEALED : k.REVEALED + 3 * g[k.N_REVEALED]]
    return GameState(
        rules=rules,
        stacks=stacks,
        tiles=tiles,
        pyramid=tuple(d for d in range(rules.n_dice) if g[k.PYRAMID] >> d & 1),
        revealed=tuple(tuple(revealed[j : j + 3]) for j in range(0, len(revealed), 3)),
        leg_stacks=tuple(values[g[k.LEG_TAKEN + c] :] for c in range(n_racing)),
        pyramid_tiles_left=g[k.PYRAMID_LEFT],
        coins=tuple(g[k.COINS : k.COINS + n]),
        leg_bets=tuple(tuple(bets) for bets in leg_bets),
        pyramid_tiles=tuple(g[k.PYRAMID_HELD : k.PYRAMID_HELD + n]),
        hands=tuple(g[k.HANDS : k.HANDS + n]),
        partners=tuple(g[k.PARTNERS : k.PARTNERS + n]),
        winner_pile=piles[0],
        loser_pile=piles[1],
        leg=g[k.LEG],
        current=g[k.CURRENT],
        leg_starter=g[k.LEG_STARTER],
        game_over=bool(g[k.GAME_OVER]),
    )


def from_states(states: Sequence[GameState]) -> BatchState:
    """Arrays holding ``states`` (one rule set, a preset the batch core plays). A state the
    batch cannot hold is a ``ValueError`` naming the game and the field; the random streams
    are left at zero for the caller to seed."""
    if not states:
        raise ValueError("from_states needs at least one state")
    rules = states[0].rules
    rule_vector(rules)  # refuses what the core does not play, saying why
    s = BatchState.empty(rules, len(states))
    for i, state in enumerate(states):
        if state.rules != rules:
            raise ValueError(
                f"states[{i}] has other rules than states[0]; a batch plays one rule set"
            )
        _fill(s, i, state)
    return s


def _fill(s: BatchState, i: int, state: GameState) -> None:
    rules = state.rules
    values = rules.leg_bet_values
    if state.extra_pending or state.crater or state.photographer or state.position_bets:
        raise ValueError(f"states[{i}] uses Supercup fields the batch core does not hold")
    if min(state.hands) < 0:
        raise ValueError(
            f"states[{i}] is a public view with hidden race-bet cards (R10); the "
            f"batch core plays full states"
        )
    for space, stack in state.stacks.items():
        for h, camel in enumerate(stack):
            s.camel[i, camel] = space * STACK_KEYS + h
    s.tile_side[i] = 1
    for space, (owner, side) in state.tiles.items():
        s.tile_space[i, owner] = space
        s.tile_side[i, owner] = side
    s.pyramid[i] = sum(1 << d for d in state.pyramid)
    s.revealed[i] = -1
    for j, row in enumerate(state.revealed):
        s.revealed[i, j] = row
    s.n_revealed[i] = len(state.revealed)
    s.leg_owner[i] = -1
    s.leg_order[i] = -1
    for c, stack in enumerate(state.leg_stacks):
        taken = len(values) - len(stack)
        if tuple(stack) != values[taken:]:
            raise ValueError(
                f"states[{i}].leg_stacks[{c}] {stack} is not what is left of "
                f"{values} after taking from the top (R4.1)"
            )
        s.leg_taken[i, c] = taken
    order = 0
    for seat, bets in enumerate(state.leg_bets):
        for c, value in bets:
            slots = [
                t
                for t in range(int(s.leg_taken[i, c]))
                if values[t] == value and s.leg_owner[i, c, t] < 0
            ]
            if not slots:
                raise ValueError(
                    f"states[{i}].leg_bets[{seat}] holds a {value} tile of camel "
                    f"{c} that its stack does not miss (R4.1)"
                )
            s.leg_owner[i, c, slots[0]] = seat
            s.leg_order[i, c, slots[0]] = order
            order += 1
    if (s.leg_owner[i] >= 0).sum() != s.leg_taken[i].sum():
        raise ValueError(
            f"states[{i}]: leg-bet tiles are missing from the stacks that no seat holds (R4.1)"
        )
    s.pyramid_left[i] = state.pyramid_tiles_left
    s.coins[i] = state.coins
    s.pyramid_held[i] = state.pyramid_tiles
    s.hands[i] = state.hands
    s.partners[i] = state.partners
    s.pile_owner[i] = -1
    s.pile_camel[i] = -1
    for pile, cards in enumerate((state.winner_pile, state.loser_pile)):
        s.pile_len[i, pile] = len(cards)
        for j, (owner, camel) in enumerate(cards):
            if camel < 0:
                raise ValueError(
                    f"states[{i}] is a public view with hidden race-bet cards "
                    f"(R10); the batch core plays full states"
                )
            s.pile_owner[i, pile, j] = owner
            s.pile_camel[i, pile, j] = camel
    s.leg[i] = state.leg
    s.current[i] = state.current
    s.leg_starter[i] = state.leg_starter
    s.game_over[i] = state.game_over
