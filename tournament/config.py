"""Tournament settings: a typed config (YAML file, then ``--field`` overrides) and its checks.

The settings are a frozen dataclass read by :func:`camelup_config.load_config`, so a typo or a
wrong type is refused naming the file and key; each field's ``help`` is its ``--help`` text.
Problems that need more than one field (players against agents, the rule set) are checked here,
before any game is played.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from camelup_config import ConfigError, load_config, read_mapping, setting
from camelup_env.game.rules import RuleSet, preset_list
from tournament.schedule import SEED_STRIDE, round_size


class TournamentError(ConfigError):
    """A configuration, agent or results problem, with a one-line message for the user."""


#: fields that must match to resume a results folder (workers, out and the limits may change)
IDENTITY_KEYS = (
    "agents",
    "preset",
    "players",
    "games",
    "seed",
    "move_timeout",
    "max_turns",
    "rules",
    "seating",
    "pairing",
)

#: Most games a tournament may schedule, after rounding up to whole rounds: the schedule and
#: the records are held in memory (10^13 games grew it without end); a million is far beyond
#: the largest tournament of the project's results (6,000 games).
MAX_GAMES = 1_000_000
#: Largest base seed: game seeds are ``seed * SEED_STRIDE + n`` and a bot's seed is a game seed
#: times 64 plus its agent, and both must fit a signed 64-bit integer (numpy, numba, bots).
MAX_SEED = (2**63 // 64 - SEED_STRIDE) // SEED_STRIDE
#: The most the ``max_turns`` setting may be (a game's length limit; its in-process default is
#: ``camelup_env.match.MAX_TURNS``): a game's record holds every action, and a replay reads at
#: most this many.
MOST_TURNS = 100_000
#: Longest time limit (a timeout or ``cpu_seconds``): about four months; the operating system's
#: timers overflow on larger values (an infinite timeout was a traceback).
MAX_SECONDS = 10_000_000
#: Largest value of each bot limit: beyond them the kernel's resource limits overflow and the
#: bot would not start (1 TiB of memory, 1 GiB of output, 65,536 processes).
_MOST: dict[str, float] = {
    "memory_mb": 1 << 20,
    "output_kb": 1 << 20,
    "max_processes": 1 << 16,
    "max_turns": MOST_TURNS,
    "cpu_seconds": MAX_SECONDS,
}
#: Game workers per CPU on the local backend: more only wait for a CPU, each with its own bot
#: processes (a typo's 100000 would start that many processes).
WORKERS_PER_CPU = 4


def most_local_workers() -> int:
    """The most game workers this machine is given (:data:`WORKERS_PER_CPU` per CPU)."""
    return WORKERS_PER_CPU * (os.cpu_count() or 1)


def check_workers(workers: int | None, flag: str = "workers") -> None:
    """``ValueError`` naming ``flag`` unless ``workers`` is None (one per CPU) or between 1
    and :func:`most_local_workers`."""
    most = most_local_workers()
    if workers is not None and not 1 <= workers <= most:
        raise ValueError(
            f"{flag} must be between 1 and {most} ({WORKERS_PER_CPU} per CPU of this machine), "
            f"got {workers}"
        )


@dataclass(frozen=True)
class Limits:
    """What one bot process may use (see :mod:`tournament.sandbox` and :mod:`tournament.bots`)."""

    load_timeout: float
    move_timeout: float | None
    game_timeout: float | None
    memory_mb: int
    cpu_seconds: float
    output_kb: int
    max_processes: int


@dataclass(frozen=True)
class TournamentConfig:
    name: str = setting(
        "default",
        help="tournament name; results go to runs/tournaments/NAME/ unless --out is given",
    )
    agents: list[str | dict[str, Any]] = setting(
        default_factory=lambda: ["random", "heuristic", "greedy", "lookahead"],
        help="agent specs (a name from `camelup agents`, py:module:Class, ppo:model.zip or "
        "cmd:PROGRAM ARGS), comma-separated on the command line; in YAML an entry may be "
        "{spec, label, kwargs}",
    )
    preset: str = setting("classic", help=f"rule preset: {preset_list()}")
    players: int = setting(4, help="players per game")
    games: int = setting(
        100, help=f"games in all, rounded up to whole rounds (at most {MAX_GAMES:,} after rounding)"
    )
    seed: int = setting(0, help=f"base seed of the paired game seeds (0 to {MAX_SEED:,})")
    seating: str = setting(
        "orders",
        help="orders: every cyclic order of a line-up in every "
        "rotation; rotations: one order, every rotation",
    )
    pairing: str = setting(
        "order",
        help="which games share a seed (the same deal and dice): order: the rotations of one "
        "cyclic order of a line-up; round: every game of a round",
    )
    rules: dict[str, Any] = setting(
        default_factory=dict, help="extra RuleSet fields, e.g. {track_length: 20}"
    )
    max_turns: int = setting(
        2000, help="a game still running after this many turns is stopped (no forfeit)"
    )
    move_timeout: float | None = setting(
        10.0, help="seconds a bot may think about one move (0 = no limit)"
    )
    game_timeout: float | None = setting(
        600.0, help="seconds a bot may think in one game, all moves together (0 = no limit)"
    )
    load_timeout: float = setting(
        300.0, help="seconds a bot process may take to load and warm up before its first game"
    )
    memory_mb: int = setting(4096, help="address-space limit of each bot process, MiB")
    cpu_seconds: float = setting(
        3600.0,
        help="CPU-time limit of each bot process, seconds (the "
        "process is replaced before it runs short)",
    )
    output_kb: int = setting(
        1024, help="largest message a bot may send, and the size its stderr log may reach, KiB"
    )
    max_processes: int = setting(
        32, help="processes and threads a bot may add (enforced for non-root users)"
    )
    workers: int | None = setting(
        None,
        help="game workers, each with its own bot processes (default: CPU count; locally at "
        f"most {WORKERS_PER_CPU} per CPU)",
    )
    out: str | None = setting(
        None,
        help="results folder (default runs/tournaments/NAME; the committed results under "
        "results/tournaments/ are rewritten only when named here)",
    )
    backend: str = setting(
        "local",
        help="where games run: local (worker processes on this "
        "machine) or ray (Ray actors; docs/distributed.md)",
    )
    address: str | None = setting(
        None,
        help="Ray cluster to join (backend ray; default: start "
        "a local Ray instance on this machine's cores)",
    )

    def __post_init__(self) -> None:
        entries = agent_entries(self.agents)
        k, p = len(entries), self.players
        if p < 2:
            raise ValueError(f"players must be >= 2, got {p}")
        if p > k and p % k:
            raise ValueError(
                f"{p} players with {k} agents: the line-up repeats the agents, so "
                "players must be a multiple of the number of agents"
            )
        if self.seating not in ("orders", "rotations"):
            raise ValueError(f"seating must be 'orders' or 'rotations', got {self.seating!r}")
        if self.pairing not in ("order", "round"):
            raise ValueError(f"pairing must be 'order' or 'round', got {self.pairing!r}")
        try:
            self.ruleset()
        except ValueError as exc:
            raise ValueError(f"bad rules: {exc}") from exc
        self._check_games(k)  # after the rules have bounded the players
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(
                f"seed must be between 0 and {MAX_SEED} (game and bot seeds are derived from it "
                f"and must fit 64 bits), got {self.seed}"
            )
        for key in ("move_timeout", "game_timeout", "load_timeout"):
            value = getattr(self, key)
            if value is not None and not 0 <= value <= MAX_SECONDS:  # NaN fails too
                raise ValueError(
                    f"{key} must be seconds from 0 (no limit) to {MAX_SECONDS:,.0f}, got {value}"
                )
        for key, most in _MOST.items():
            if not 0 < getattr(self, key) <= most:
                raise ValueError(
                    f"{key} must be > 0 and at most {most:,}, got {getattr(self, key)}"
                )
        if self.backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', got {self.backend!r}")
        if self.address and self.backend != "ray":
            raise ValueError("address is for backend ray; add --backend ray")
        if self.backend == "local":
            check_workers(self.workers)
        elif self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        for entry in entries:
            check_spec(entry.spec)

    def _check_games(self, k: int) -> None:
        """``games`` rounded up to whole rounds must be schedulable: at most :data:`MAX_GAMES`
        (which also keeps the seed groups, at most one per game of two players, below
        ``SEED_STRIDE``, so the seeds of one base seed never run into the next one's)."""
        if self.games < 1:
            raise ValueError(f"games must be >= 1, got {self.games}")
        size = round_size(k, self.players, self.seating)
        rounds = math.ceil(min(self.games, MAX_GAMES + 1) / size)
        if rounds * size > MAX_GAMES:
            raise ValueError(
                f"games must be at most {MAX_GAMES:,} after rounding up to whole rounds of "
                f"{size:,} games ({k} agents, {self.players} players, seating "
                f"{self.seating}), got {self.games:,}"
            )

    def ruleset(self) -> RuleSet:
        return RuleSet.from_dict({"preset": self.preset, "num_players": self.players, **self.rules})

    def entries(self) -> list[AgentEntry]:
        return agent_entries(self.agents)

    def limits(self) -> Limits:
        return Limits(
            load_timeout=self.load_timeout,
            move_timeout=self.move_timeout or None,
            game_timeout=self.game_timeout or None,
            memory_mb=self.memory_mb,
            cpu_seconds=self.cpu_seconds,
            output_kb=self.output_kb,
            max_processes=self.max_processes,
        )

    def identity(self) -> dict[str, Any]:
        """The settings a resumed run must share with the saved one (JSON-safe)."""
        doc = {key: getattr(self, key) for key in IDENTITY_KEYS}
        doc["agents"] = [dataclasses.asdict(e) for e in self.entries()]
        return json.loads(json.dumps(doc))


def tournament_config(path: str | None, overrides: dict[str, Any]) -> TournamentConfig:
    """Defaults, then the YAML file, then the overrides (None = not given); the name defaults to
    the file's stem. ``agents`` may be a comma-separated string (the command-line form)."""
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if isinstance(overrides.get("agents"), str):
        overrides["agents"] = [a for a in overrides["agents"].split(",") if a]
    try:
        if path is not None and "name" not in overrides and "name" not in read_mapping(path):
            overrides["name"] = Path(path).stem
        return load_config(TournamentConfig, path, overrides)
    except TournamentError:
        raise
    except ConfigError as exc:
        raise TournamentError(str(exc)) from exc


@dataclass(frozen=True)
class AgentEntry:
    label: str
    spec: str
    kwargs: dict = dataclasses.field(default_factory=dict)


def agent_entries(items: list) -> list[AgentEntry]:
    """Agents from config items: a spec string, or ``{spec|name, label?, kwargs?}``; a label
    that repeats gets ``#2``, ``#3``..."""
    entries: list[AgentEntry] = []
    seen: dict[str, int] = {}
    for item in items:
        if isinstance(item, str):
            spec, label, kwargs = item, item, {}
        elif isinstance(item, dict):
            given = item.get("spec") or item.get("name")
            if not isinstance(given, str) or not given:
                raise ValueError(f"agent entry {item!r} needs a 'spec' (or 'name')")
            spec = given
            unknown = sorted(map(str, set(item) - {"spec", "name", "label", "kwargs"}))
            if unknown:
                raise ValueError(
                    f"agent entry {spec!r}: unknown key(s) {unknown}; an entry has spec, label "
                    "and kwargs"
                )
            label = str(item.get("label") or spec)
            given_kwargs = item.get("kwargs") or {}
            if not isinstance(given_kwargs, dict) or not all(
                isinstance(key, str) for key in given_kwargs
            ):
                raise ValueError(
                    f"agent entry {spec!r}: kwargs must be a mapping of argument names to "
                    f"values, got {str(given_kwargs)[:60]}"
                )
            kwargs = dict(given_kwargs)
        else:
            raise ValueError(f"agent entries are strings or mappings, got {item!r}")
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label}#{seen[label]}"
        entries.append(AgentEntry(label, spec, kwargs))
    if not entries:
        raise ValueError("a tournament needs at least one agent")
    return entries


def command_of(spec: str) -> list[str] | None:
    """The program and arguments of a ``cmd:`` spec, else None."""
    if not spec.startswith("cmd:"):
        return None
    try:
        argv = shlex.split(spec[4:])
    except ValueError as exc:
        raise ValueError(f"agent {spec!r}: {exc}") from exc
    if not argv:
        raise ValueError(f"agent {spec!r}: cmd: needs a program, e.g. cmd:./mybot --fast")
    return argv


def check_spec(spec: str) -> None:
    """Refuse a spec that cannot name an agent: an unknown name or prefix, a missing program.
    (Whether the agent can actually be built is checked by starting it, before the first game.)
    """
    import agents as registry

    argv = command_of(spec)
    if argv is not None:
        if shutil.which(argv[0]) is None:
            raise ValueError(f"agent {spec!r}: program {argv[0]!r} not found or not executable")
        return
    try:
        registry.check(spec)
    except registry.UnknownAgentError as exc:
        raise ValueError(f"{exc} (or cmd:PROGRAM ARGS)") from exc


def check_model_game(spec: str, rules: RuleSet) -> None:
    """Refuse a spec whose model file is unreadable or was trained for another game than
    ``rules``: its metadata is read (a second, no tensors) so that the mistake is one line
    before any game, not the first game's load error."""
    import agents as registry
    from agents.policy_file import ModelFileError, read_policy_file

    try:
        path = registry.model_file(spec)
        recorded = None if path is None else read_policy_file(path, tensors=False).rules
    except (ModelFileError, OSError) as exc:
        raise ValueError(f"agent {spec!r}: {exc}") from None
    if recorded is not None and recorded != rules:
        raise ValueError(
            f"agent {spec!r} was trained for {recorded.preset} with {recorded.num_players} "
            f"players; this game is {rules.preset} with {rules.num_players} players"
        )
