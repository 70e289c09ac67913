"""List the agents that play, tournament and evaluation accept, with one-line descriptions.

After the registered names and prefixes come the trained agents every install ships
(:mod:`agents.shipped`, package data): each as the spec that plays it (``ppo:classic4``) and
the game it was trained for, read from its model file without its tensors (an afterstate
value file, small, from its header and arrays).
"""

from __future__ import annotations

import argparse

from agents import shipped
from agents.afterstate_network import load_afterstate_network
from agents.base import describe_agents
from agents.policy_file import ModelFileError, read_metadata
from camelup_env.game.rules import RuleSet


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--names", action="store_true", help="print the names only")


def shipped_models() -> list[tuple[str, str]]:
    """(spec, description) of every shipped model file, in name order."""
    rows = []
    for name in shipped.names():
        spec = f"ppo:{name}"
        try:
            meta = read_metadata(shipped.model_path(name))
        except ModelFileError as exc:
            rows.append((spec, f"(unreadable: {exc})"))
            continue
        rules = RuleSet.from_dict(meta["rules"])
        what = (
            f"a network copying {meta['distilled_from']}"
            if meta.get("distilled_from")
            else "a trained policy"
        )
        rows.append((spec, f"{what}: {rules.preset}, {rules.num_players} players"))
    for name in shipped.value_names():
        spec = f"afterstate:{name}"
        try:
            value = load_afterstate_network(shipped.value_path(name))
        except ValueError as exc:
            rows.append((spec, f"(unreadable: {exc})"))
            continue
        games = value.training.get("games", 0)
        if value.standing_skip:
            who = value.training.get("played_by", "bots")
            what = f"the standing taught what the next mover takes, {games:,} games of {who}"
        else:
            start = "the equity skip" if value.equity_weight else "scratch"
            what = f"an afterstate value, {games:,} games of self-play from {start}"
        if value.margin is not None:
            what += f", on the champion's shortlist (margin {value.margin:g})"
        rows.append((spec, f"{what}: {value.preset}, {value.players} players"))
    return rows


def run(args: argparse.Namespace) -> int:
    rows = describe_agents() + shipped_models()
    if args.names:
        print("\n".join(name for name, _ in rows))
        return 0
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        print(f"{name:<{width}}  {description}")
    return 0
