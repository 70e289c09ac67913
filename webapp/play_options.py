"""What a new game asks for, read from the query string of ``/play`` and checked.

``/play?preset=classic&players=2&seat=0&opponents=random[&seed=N][&coach=1]``: ``opponents``
is one agent spec for every other seat, or one per other seat, comma-separated, in seat order.
A spec is anything ``camelup agents`` lists except ``human`` (the person is the human), within
what the operator allows (:mod:`webapp.specs`: models from the served folder, code only with
``--allow-code``). Without ``seed`` the game's seed is drawn from the whole 64-bit range by
:mod:`secrets`: the seed decides the deal and the dice, so a guessable one would tell a person
(or a bot) the dice to come.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

import agents as registry
from camelup_env.game.rules import PRESETS, RuleSet
from tournament.config import AgentEntry
from webapp.games import GameError
from webapp.specs import Allowed, bot_spec

#: seeds are 64-bit numbers (module docstring)
SEED_BITS = 64


@dataclass(frozen=True)
class PlayOptions:
    rules: RuleSet
    seat: int
    opponents: tuple[AgentEntry, ...]  # label: the spec as the page wrote it; spec: the bot's
    seed: int


def suggested_opponents(allowed: Allowed) -> list[str]:
    """The specs the start page offers: every registered name but ``human``, then each model
    of the served models folder as ``ppo:``: a file at its top by its name (the shipped
    ``ppo:classic2``), a file one folder down by its path (``ppo:run/model.zip``)."""
    names = [n for n in registry.names() if n != "human"]
    top = [f"ppo:{p.stem}" for p in sorted(allowed.models.glob("*.zip"))]
    below = [
        f"ppo:{p.relative_to(allowed.models).as_posix()}"
        for p in sorted(allowed.models.glob("*/*.zip"))
    ]
    return names + top + below


def _integer(params: Mapping[str, str], name: str, default: int | None) -> int:
    text = params.get(name)
    if text is None or text == "":
        if default is None:
            raise GameError(f"{name} is required")
        return default
    try:
        return int(text)
    except ValueError:
        raise GameError(f"{name} must be a whole number, got {text[:40]!r}") from None


def play_options(params: Mapping[str, str], allowed: Allowed) -> PlayOptions:
    """The checked options of a ``/play`` query (:class:`GameError` naming what is wrong)."""
    preset = params.get("preset", "classic")
    if preset not in PRESETS:
        raise GameError(f"unknown preset {preset[:40]!r}; presets: {', '.join(PRESETS)}")
    players = _integer(params, "players", 2)
    try:
        rules = RuleSet(preset, num_players=players)
    except ValueError as exc:
        raise GameError(str(exc)) from None
    seat = _integer(params, "seat", 0)
    if not 0 <= seat < players:
        raise GameError(f"seat must be 0..{players - 1}, got {seat}")
    specs = [s.strip() for s in params.get("opponents", "random").split(",")]
    if any(not s for s in specs):
        raise GameError("opponents: an empty name (write e.g. opponents=greedy,random)")
    if len(specs) == 1:
        specs *= players - 1
    if len(specs) != players - 1:
        need = f"{players - 1} opponent{'s' if players > 2 else ''}"
        raise GameError(f"{players} players need {need} (or one for all), got {len(specs)}")
    bots = {spec: bot_spec(spec, allowed) for spec in dict.fromkeys(specs)}
    seed = _integer(params, "seed", secrets.randbits(SEED_BITS))
    if not 0 <= seed < 2**SEED_BITS:
        raise GameError(f"seed must be 0..2**{SEED_BITS}-1, got {seed}")
    return PlayOptions(rules, seat, tuple(AgentEntry(s, bots[s]) for s in specs), seed)
