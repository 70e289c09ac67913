"""What a new game asks for, read from the query string of ``/play`` and checked.

``/play?preset=classic&players=2&seat=0&opponents=random[&seed=N][&coach=1]``: ``opponents``
is one agent spec for every other seat, or one per other seat, comma-separated, in seat order.
A spec is anything ``camelup agents`` lists except ``human`` (the person is the human): a
registered name or a ``ppo:``/``search:``/``rllib:`` model, the shipped ones included. ``py:``
imports and runs any installed callable and ``cmd:`` any program, so a page (any page the
person's browser opens can send this URL) may name them only when ``camelup serve`` was started
with ``--allow-code``.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import agents as registry
from camelup_env.rules import PRESETS, RuleSet
from webapp.games import GameError

#: where the shipped models live (offered by name on the start page)
MODELS = Path(__file__).resolve().parents[1] / "results" / "models"
#: prefixes whose agents run arbitrary code (module docstring)
CODE_PREFIXES = ("py", "cmd")
#: prefixes followed by a model's path
MODEL_PREFIXES = ("ppo", "search", "rllib")


@dataclass(frozen=True)
class PlayOptions:
    rules: RuleSet
    seat: int
    opponents: tuple[str, ...]
    seed: int


def suggested_opponents() -> list[str]:
    """The specs the start page offers: every registered name but ``human``, then each shipped
    model as ``ppo:`` (its path relative to the project, where ``camelup serve`` runs)."""
    names = [n for n in registry.names() if n != "human"]
    root = MODELS.parents[1]
    models = sorted(f"ppo:{p.relative_to(root)}" for p in MODELS.glob("*/model.zip"))
    return names + models


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


def check_spec(spec: str, allow_code: bool) -> None:
    """Refuse a spec a web page may not name (module docstring), or that names no agent."""
    prefix, sep, _ = spec.partition(":")
    if sep and prefix in CODE_PREFIXES and not allow_code:
        raise GameError(
            f"opponent {spec[:60]!r}: {prefix}: agents run any code, so the browser "
            "may name them only when camelup serve is started with --allow-code"
        )
    if spec == "human":
        raise GameError("opponent 'human': you are the human; name a bot (camelup agents)")
    if sep and prefix in MODEL_PREFIXES and not Path(spec[len(prefix) + 1 :]).exists():
        raise GameError(
            f"opponent {spec[:80]!r}: no such model file (paths are relative to "
            "where camelup serve runs)"
        )
    if prefix == "cmd" and sep:
        return  # a program: whether it starts is found out by starting it
    try:
        registry.check(spec)
    except (registry.UnknownAgentError, ImportError) as exc:
        raise GameError(str(exc)) from None


def play_options(params: Mapping[str, str], allow_code: bool = False) -> PlayOptions:
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
    for spec in dict.fromkeys(specs):
        check_spec(spec, allow_code)
    seed = _integer(params, "seed", secrets.randbelow(10**6))
    if not 0 <= seed < 2**63:
        raise GameError(f"seed must be 0..2**63-1, got {seed}")
    return PlayOptions(rules, seat, tuple(specs), seed)
