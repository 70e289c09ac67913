"""The ``cup`` preset against the Camel Up Cup's own engine, side by side, on the same actions.

Give it a checkout of the Cup (``git clone https://github.com/trbarron/Camel_Up_Cup_2K18``);
CI has no internet, so this is a check to run by hand, not a test:

    .venv/bin/python benchmarks/cup_side_by_side.py /path/to/Camel_Up_Cup_2K18 --games 2000

Each game starts from the Cup's own setup (its ``GameState`` with a seeded ``random.Random``),
copied into this engine (Cup space ``s`` is space ``s + 1`` here, C1). Then, turn by turn, a
random player picks one of this engine's legal actions (a roll with probability
``--roll-share``, else a trap, a round bet or a game bet, each kind equally likely, then any
legal action of that kind), which both engines apply: rolls go through the
Cup's ``MoveCamel`` with its ``dice_fn`` hook and through
:func:`camelup_env.game.engine.apply_outcome`
with the same camel and number; the other actions through the Cup's ``PlaceTrap`` / ``MoveTrap``
/ ``PlaceRoundWinnerBet`` / ``PlaceGameWinnerBet`` / ``PlaceGameLoserBet``, dispatched as its
game loop does, as :func:`agents.cup_compat.cup_action` translates them. After every step it
compares the coins, every camel's space and stack position, the traps, the camels still to move
this round, whether the game is over, and at the end the winners (when a game ends the Cup's
engine also runs its round clean-up, which pays nothing and empties the traps; this engine
keeps the final board, so traps and camels to move are not compared then). In the first
``--legality-games`` games it also asks, at every step, both engines about every action list
the Cup accepts the shape of (every trap side and space -1..29, every bet on camels -1..5):
the Cup accepts it exactly when :func:`agents.cup_compat.our_action` gives an action this
engine calls legal. It prints one summary line (and the first disagreements); exit status 1 if
there was any.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import random
import shlex
import sys
import time
from pathlib import Path
from types import ModuleType

from agents.cup_compat import CUP_SLOTS, cup_action, our_action
from camelup_env import RuleSet, apply_outcome, legal_action_indices, legal_actions, new_game
from camelup_env.game.actions import Action, TakePyramidTile, action_table
from camelup_env.game.engine import DieRoll, winners
from camelup_env.game.state import GameState

#: Every Cup action list whose shape the Cup's engine reads (the legality comparison).
CANDIDATES = [[1, side, space] for side in (-1, 1) for space in range(-1, CUP_SLOTS + 1)] + [
    [code, camel] for code in (2, 3, 4) for camel in range(-1, 6)
]


def load_cup_engine(checkout: Path) -> ModuleType:
    """The Cup's ``camelup.py`` from ``checkout``, imported under its own name."""
    path = checkout / "camelup.py"
    if not path.is_file():
        sys.exit(f"{checkout} is not a Camel Up Cup checkout (no camelup.py)")
    spec = importlib.util.spec_from_file_location("cup_engine", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cup_apply(cup: ModuleType, g: object, action: list, player: int) -> None:
    """A non-roll action list applied as the Cup's game loop dispatches it (an error is the
    Cup refusing it)."""
    if action[0] == 1:
        place = cup.MoveTrap if g.player_has_placed_trap[player] else cup.PlaceTrap
        place(g, action[1], action[2], player)
    elif action[0] == 2:
        cup.PlaceRoundWinnerBet(g, action[1], player)
    elif action[0] == 3:
        cup.PlaceGameWinnerBet(g, action[1], player)
    elif action[0] == 4:
        cup.PlaceGameLoserBet(g, action[1], player)
    else:
        raise ValueError(f"not a bet or trap: {action}")


def light_copy(g: object) -> object:
    """A copy of the Cup's state that its bet and trap functions may change freely."""
    h = copy.copy(g)
    for name in (
        "trap_track",
        "player_has_placed_trap",
        "round_bets",
        "game_winner_bets",
        "game_loser_bets",
    ):
        setattr(h, name, list(getattr(g, name)))
    h.player_game_bets = [list(bets) for bets in g.player_game_bets]
    return h


def differences(g: object, s: GameState) -> list[str]:
    """What differs between the Cup's state ``g`` and this engine's ``s``."""
    out = []
    if list(g.player_money_values) != list(s.coins):
        out.append(f"coins: cup {g.player_money_values}, here {list(s.coins)}")
    track = {i + 1: tuple(stack) for i, stack in enumerate(g.camel_track) if stack}
    if track != s.stacks:
        out.append(f"camels: cup {track}, here {s.stacks}")
    if g.active_game == s.game_over:
        out.append(f"game over: cup {not g.active_game}, here {s.game_over}")
    if s.game_over:  # the Cup also runs its round clean-up then; this engine keeps the board
        return out
    traps = {i + 1: (trap[1], trap[0]) for i, trap in enumerate(g.trap_track) if trap}
    if traps != s.tiles:
        out.append(f"traps: cup {traps}, here {s.tiles}")
    to_move = [c in s.pyramid for c in range(5)]
    if list(g.camel_yet_to_move) != to_move:
        out.append(f"camels to move: cup {g.camel_yet_to_move}, here {to_move}")
    return out


def legality_differences(cup: ModuleType, g: object, s: GameState) -> list[str]:
    """Every candidate action list the two engines disagree on (module docstring)."""
    legal = set(legal_action_indices(s))
    index = action_table(s.rules).index
    out = []
    for action in CANDIDATES:
        try:
            cup_apply(cup, light_copy(g), action, s.current)
            cup_ok = True
        except Exception:
            cup_ok = False
        ours = our_action(action)
        here_ok = ours is not None and index.get(ours) in legal
        if cup_ok != here_ok:
            out.append(f"legality of {action}: cup {cup_ok}, here {here_ok}")
    return out


def play(
    cup: ModuleType, rules: RuleSet, seed: int, roll_share: float, check_legality: bool
) -> tuple[int, int, list[str]]:
    """One game side by side: (steps, legality checks, disagreements)."""
    pick = random.Random(seed)
    g = cup.GameState(rng=random.Random(seed))
    s = new_game(rules, seed=0).copy()
    s.stacks = {i + 1: tuple(stack) for i, stack in enumerate(g.camel_track) if stack}
    found = differences(g, s)
    steps = checks = 0
    while not found and not s.game_over and g.active_game:
        player = steps % 4
        if s.current != player:
            found.append(f"turn: cup player {player}, here {s.current}")
            break
        if check_legality:
            found += legality_differences(cup, g, s)
            checks += len(CANDIDATES)
        kinds: dict[type, list[Action]] = {}
        for a in legal_actions(s):
            kinds.setdefault(type(a), []).append(a)
        options = [kinds[kind] for kind in sorted(kinds, key=str) if kind is not TakePyramidTile]
        if pick.random() < roll_share or not options:
            camel, value = pick.choice(s.pyramid), pick.randint(1, 3)
            cup.MoveCamel(g, player, dice_fn=lambda _g, c=camel, v=value: (c, v))
            s, _ = apply_outcome(s, TakePyramidTile(), DieRoll(camel, camel, value))
            what = f"roll {camel} {value}"
        else:
            action = pick.choice(pick.choice(options))
            what = str(cup_action(action))
            try:
                cup_apply(cup, g, cup_action(action), player)
            except Exception as exc:
                found.append(f"the cup refused {what}: {exc}")
                break
            s, _ = apply_outcome(s, action, None)
        steps += 1
        found += [f"after step {steps} ({what}): {d}" for d in differences(g, s)]
    if not found and sorted(g.game_winner) != list(winners(s)):
        found.append(f"winners: cup {g.game_winner}, here {list(winners(s))}")
    return steps, checks, [f"game {seed}: {d}" for d in found]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of the Camel Up Cup repository")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="first game's seed")
    parser.add_argument("--roll-share", type=float, default=0.3)
    parser.add_argument(
        "--legality-games",
        type=int,
        default=200,
        help="games in which every candidate action's legality is compared",
    )
    args = parser.parse_args(argv)
    cup = load_cup_engine(args.checkout)
    rules = RuleSet("cup")
    start = time.perf_counter()
    steps = checks = 0
    problems: list[str] = []
    for i in range(args.games):
        n, c, found = play(cup, rules, args.seed + i, args.roll_share, i < args.legality_games)
        steps, checks, problems = steps + n, checks + c, problems + found
    for line in problems[:20]:
        print(line)
    print(
        f"cup side by side: {args.games} games, {steps} steps, {checks} legality checks, "
        f"{len(problems)} disagreements ({time.perf_counter() - start:.0f} s)"
    )
    print(
        "command: python benchmarks/cup_side_by_side.py CHECKOUT "
        + shlex.join(sys.argv[2:] if argv is None else argv[1:])
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
