"""Play Camel Up in the terminal against scripted agents (camelup play)."""

from __future__ import annotations

import argparse
import re
import secrets
import sys

import agents as registry
from agents.human import HumanAgent, make_console, styled
from camelup_env.game.events import GameOver
from camelup_env.game.events import public_view as hide
from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.game.setup import new_game
from camelup_env.match import QuitGame, play_game
from camelup_env.observation import public_view
from camelup_env.render.event_text import describe_event


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="classic", choices=PRESETS)
    parser.add_argument(
        "--opponents",
        default="greedy,heuristic,random",
        help="comma-separated agent names, one per opponent (camelup agents)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 starts the game)")
    parser.add_argument("--seed", type=int, help="game seed, >= 0 (default: a random one)")
    parser.add_argument("--no-color", action="store_true", help="plain text")


def run(args: argparse.Namespace) -> int:
    console = make_console(color=not args.no_color)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    n = len(opponents) + 1
    try:
        rules = RuleSet(args.preset, num_players=n)
    except ValueError as exc:
        print(f"camelup play: error: {exc}", file=sys.stderr)
        return 2
    if not 0 <= args.seat < n:
        print(f"camelup play: error: --seat must be 0..{n - 1}", file=sys.stderr)
        return 2
    if args.seed is not None and args.seed < 0:
        print(f"camelup play: error: --seed must be >= 0, got {args.seed}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    human = HumanAgent(console=console)
    lineup: list = []
    names: list[str] = []
    others = iter(opponents)
    try:
        for seat in range(n):
            if seat == args.seat:
                lineup.append(human)
                names.append("you")
            else:
                spec = next(others)
                agent = registry.make(spec)
                warm = getattr(agent, "warmup", None)
                if warm is not None:  # what its moves compile, before the game, not during
                    warm(public_view(new_game(rules, seed=0), seat))
                agent.reset(seed * 16 + seat)
                lineup.append(agent)
                names.append(spec)
    except (ImportError, ValueError) as exc:  # an unknown agent, a model for another game
        print(f"camelup play: error: {exc}", file=sys.stderr)
        return 2
    colours = rules.colours

    def named(text: str) -> str:
        return re.sub(r"\bplayer (\d+)", lambda m: f"player {m[1]} ({names[int(m[1])]})", text)

    console.print(f"Camel Up, {args.preset} rules, {n} players, seed {seed}.")
    console.print("Players: " + ", ".join(f"P{s} {name}" for s, name in enumerate(names)))
    console.print(
        "Player 0 starts. Each turn: a leg bet, a tile, a race bet, or roll. "
        "Type h at your prompt for help."
    )
    last = {"state": None}

    def on_step(state, seat, action, events) -> None:
        last["state"] = state
        console.print(styled(f"-- P{seat} ({names[seat]}) --", colours))
        for event in events:
            if isinstance(event, GameOver):
                continue
            text = describe_event(hide(event, args.seat), rules)
            console.print(styled("   " + named(text).replace("\n", "\n   "), colours))

    try:
        result = play_game(rules, lineup, seed, on_step=on_step)
    except (QuitGame, KeyboardInterrupt):
        console.print("\nYou left the game. Goodbye!")
        return 0
    console.print("\nFinal scoreboard" + (" (stopped early)" if result.forfeit else "") + ":")
    if result.forfeit:
        who = result.forfeit["seat"]
        console.print(f"  P{who} ({names[who]}) forfeited: {result.forfeit['reason']}")
    order = sorted(range(n), key=lambda s: (result.ranks[s], s))
    for s in order:
        mark = "  winner" if s in result.winners else ""
        console.print(f"  {result.ranks[s]}. P{s} {names[s]:<12} {result.scores[s]:>3} coins{mark}")
    if args.seat in result.winners:
        console.print(
            "You won! Well played." if len(result.winners) == 1 else "You share the victory!"
        )
    else:
        console.print("Better luck next time.")
    return 0
