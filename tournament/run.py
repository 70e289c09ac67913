"""Run a tournament of agents: seat rotation, paired seeds, ratings, resumable results.

``camelup tournament configs/tournament/default.yaml [--agents greedy,random --players 2 ...]``

Schedule. With ``k`` agents and ``p`` players per game, the *line-ups* are every combination of
``p`` agents in config order (``p <= k``), or the agent list repeated to ``p`` seats (``p > k``,
``p`` a multiple of ``k``). Each line-up is seated in every cyclic order (``seating: orders``, the
default: the first member fixed, the others permuted, ``(p - 1)!`` orders) and each order in its
``p`` rotations (rotation ``r`` puts member ``(i + r) mod p`` of the order in seat ``i``), so every
agent sits in every seat equally often *and* plays right after every other agent equally often.
``seating: rotations`` keeps only the line-up's own order: every seat is still balanced, but an
agent always moves right after the same opponent, which biases the result badly (two identical
greedy players finished 70.6% / 29.4% against each other that way, because the one moving first
takes the leg bets that the other's turn would have found; ``results/tournaments/
classic4_rotations_bias``). A *round* is every line-up in every seating; ``games`` is rounded up
to whole rounds. All games of a round share one seed (``seed * 1_000_000 + round``): the same
setup and the same dice stream (:func:`agents.arena.game_rngs`) for every seating and line-up,
so luck is paired.

Fault isolation. Games run in worker processes (``--workers``, default ``os.cpu_count()``);
agents see only observation copies and the public view (:mod:`agents.arena`). An agent that
raises, returns an illegal action or overruns ``--move-timeout`` forfeits the game: it ranks
last with 0 coins, the others keep the coins they had and are ranked by them (no final scoring);
the tournament goes on. The time limit is enforced twice: ``SIGALRM`` inside the worker
interrupts a sleeping or looping bot; and each worker publishes the deadline of the move in
progress in shared memory, so the parent kills (SIGKILL) a worker whose bot ignores the alarm
(swallows the exception, hangs in C) once ``deadline + grace`` has passed, records the forfeit
and starts a fresh worker. A worker that dies mid-game (a bot calling ``os._exit``, a crash)
forfeits the seat on move the same way.

Results go to ``results/tournaments/<name>/`` (or ``--out``): ``config.json``; ``games.jsonl``,
one line per finished game, appended and fsynced as each game ends; and at the end
``summary.csv``, ``summary.md`` and ``summary.png``. Run the same command again after an
interruption (Ctrl-C, ``kill -9``) and it resumes: completed game ids are skipped, a truncated
last line is dropped, and a different configuration is refused. Ratings: ``openskill``
Plackett-Luce over the games in id order (so a resumed run rates exactly as an uninterrupted
one); win rates count a shared victory as ``1/k``; intervals are 95% normal approximations.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import multiprocessing as mp
import os
import signal
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

DEFAULT_CONFIG: dict[str, Any] = {
    "name": "default",
    "agents": ["random", "heuristic", "greedy", "lookahead"],
    "preset": "classic",
    "players": 4,
    "games": 100,
    "seed": 0,
    "move_timeout": 10.0,
    "max_turns": 2000,
    "seating": "orders",
    "rules": {},
}
#: keys that must match to resume (workers, out and progress may change)
IDENTITY_KEYS = ("agents", "preset", "players", "games", "seed", "move_timeout", "max_turns",
                 "rules", "seating")
#: seconds a worker may overrun a move's deadline before the parent kills it
GRACE_S = 2.0
#: deadline for an agent's warm-up (numba compilation on a cold cache)
WARMUP_S = 300.0


class TournamentError(Exception):
    """A configuration or results problem, with a message for the user."""


# Configuration ----------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentEntry:
    label: str
    spec: str
    kwargs: dict = field(default_factory=dict)


def agent_entries(items: list) -> list[AgentEntry]:
    """Agents from config items: a spec string, or ``{spec|name, label?, kwargs?}``."""
    entries: list[AgentEntry] = []
    seen: dict[str, int] = {}
    for item in items:
        if isinstance(item, str):
            spec, label, kwargs = item, item, {}
        elif isinstance(item, dict):
            spec = item.get("spec") or item.get("name")
            if not spec:
                raise TournamentError(f"agent entry {item!r} needs a 'spec' (or 'name')")
            label = item.get("label") or spec
            kwargs = dict(item.get("kwargs") or {})
        else:
            raise TournamentError(f"agent entries are strings or mappings, got {item!r}")
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label}#{seen[label]}"
        entries.append(AgentEntry(label, spec, kwargs))
    if len(entries) < 1:
        raise TournamentError("a tournament needs at least one agent")
    return entries


def load_config(path: str | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """Defaults, then the YAML file, then command-line overrides (None = not given)."""
    config = json.loads(json.dumps(DEFAULT_CONFIG))
    if path:
        from training.config import ConfigError, read_mapping

        try:
            doc = read_mapping(path)
        except ConfigError as exc:
            raise TournamentError(str(exc)) from exc
        unknown = set(doc) - set(DEFAULT_CONFIG) - {"workers", "out"}
        if unknown:
            raise TournamentError(f"{path}: unknown key(s) {sorted(unknown)}; "
                                  f"known: {sorted(DEFAULT_CONFIG)}")
        config.update(doc)
        if "name" not in doc:
            config["name"] = Path(path).stem
    for key, value in overrides.items():
        if value is not None:
            config[key] = value
    check_config(config)
    return config


def check_config(config: dict[str, Any]) -> None:
    entries = agent_entries(config["agents"])
    k, p = len(entries), config["players"]
    if not isinstance(p, int) or p < 2:
        raise TournamentError(f"players must be an integer >= 2, got {p!r}")
    if p > k and p % k:
        raise TournamentError(f"{p} players with {k} agents: the line-up repeats the agents, so "
                              f"players must be a multiple of the number of agents")
    if not isinstance(config["games"], int) or config["games"] < 1:
        raise TournamentError(f"games must be a positive integer, got {config['games']!r}")
    try:
        rules_of(config)
    except ValueError as exc:
        raise TournamentError(f"bad rules: {exc}") from exc
    if config.get("seating", "orders") not in ("orders", "rotations"):
        raise TournamentError(f"seating must be 'orders' or 'rotations', got "
                              f"{config.get('seating')!r}")
    timeout = config["move_timeout"]
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout < 0):
        raise TournamentError(f"move_timeout must be seconds >= 0 (0 = none), got {timeout!r}")
    import agents as registry

    for entry in entries:
        if ":" not in entry.spec:
            try:
                registry.factory(entry.spec)
            except registry.UnknownAgentError as exc:
                raise TournamentError(str(exc)) from exc


def rules_of(config: dict[str, Any]):
    from camelup_env.rules import RuleSet

    doc = {"preset": config["preset"], "num_players": config["players"],
           **(config.get("rules") or {})}
    return RuleSet.from_dict(doc)


def identity(config: dict[str, Any]) -> dict[str, Any]:
    # Results written before ``seating`` existed used rotations. With 2 players both modes give
    # the same schedule, so they are one identity.
    doc = {key: config.get(key, "rotations") for key in IDENTITY_KEYS}
    if doc["players"] == 2:
        doc["seating"] = "orders"
    doc["agents"] = [asdict(e) for e in agent_entries(config["agents"])]
    return json.loads(json.dumps(doc))


# Schedule ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSpec:
    game: int
    round: int
    lineup: int
    rotation: int
    seed: int
    seats: tuple[int, ...]  # agent index per seat
    order: int = 0  # which cyclic order of the line-up (seating "orders")


def lineups(k: int, p: int) -> list[tuple[int, ...]]:
    if p <= k:
        return list(itertools.combinations(range(k), p))
    return [tuple(i % k for i in range(p))]


def cyclic_orders(lineup: tuple[int, ...], seating: str) -> list[tuple[int, ...]]:
    """The seating orders of a line-up up to rotation: just the line-up (``rotations``), or
    every order with its first member fixed (``orders``: (p - 1)! of them)."""
    if seating == "rotations":
        return [lineup]
    head, rest = lineup[0], lineup[1:]
    found: dict[tuple[int, ...], None] = {}
    for perm in itertools.permutations(rest):
        found.setdefault((head, *perm), None)
    return list(found)


def round_size(k: int, p: int, seating: str = "orders") -> int:
    return sum(len(cyclic_orders(up, seating)) for up in lineups(k, p)) * p


def schedule(config: dict[str, Any]) -> list[GameSpec]:
    """Every game of the tournament in id order (module docstring)."""
    k, p = len(agent_entries(config["agents"])), config["players"]
    seating = config.get("seating", "orders")
    ups = [(up, cyclic_orders(up, seating)) for up in lineups(k, p)]
    size = sum(len(orders) for _, orders in ups) * p
    rounds = math.ceil(config["games"] / size)
    games = []
    for r in range(rounds):
        seed = config["seed"] * 1_000_000 + r
        for li, (_, orders) in enumerate(ups):
            for oi, up in enumerate(orders):
                for rot in range(p):
                    seats = tuple(up[(i + rot) % p] for i in range(p))
                    games.append(GameSpec(len(games), r, li, rot, seed, seats, oi))
    return games


# Playing games (worker side) --------------------------------------------------------------
# shared slots per worker: [deadline (time.time(), 0 = none), seat on move, game id, coins...]
_SLOTS = 3 + 10


def _set_pdeathsig() -> None:
    """Linux: die with the parent (a kill -9 of the tournament leaves no orphans)."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_DEATHSIG


def play_one(spec: GameSpec, config: dict[str, Any], cache: dict, shared=None) -> dict:
    """Play one scheduled game in this process and return its record."""
    import agents as registry
    from agents.arena import alarm_timer, play_game, public_view
    from camelup_env.engine import new_game

    entries = agent_entries(config["agents"])
    rules = rules_of(config)
    timeout = config["move_timeout"] or None
    lineup = []
    occurrence: dict[int, int] = defaultdict(int)
    for seat, index in enumerate(spec.seats):
        key = (index, occurrence[index])
        occurrence[index] += 1
        if key not in cache:
            entry = entries[index]
            agent = registry.make(entry.spec, **entry.kwargs)
            cache[key] = agent
            warm = getattr(agent, "warmup", None)
            if warm is not None:
                if shared is not None:
                    shared[1] = seat
                    for s in range(rules.num_players):
                        shared[3 + s] = rules.starting_coins
                    shared[0] = time.time() + WARMUP_S
                with contextlib.suppress(Exception), alarm_timer(WARMUP_S):
                    warm(public_view(new_game(rules, seed=0), 0))
                if shared is not None:
                    shared[0] = 0.0
        lineup.append(cache[key])
    for seat, agent in enumerate(lineup):
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(spec.seed * 64 + spec.seats[seat])

    def on_move_start(state, seat: int) -> None:
        if shared is not None:
            shared[1] = seat
            for s, c in enumerate(state.coins):
                shared[3 + s] = c
            shared[0] = time.time() + (timeout or 1e9)

    start = time.perf_counter()
    result = play_game(rules, lineup, spec.seed, move_timeout=timeout,
                       max_turns=config["max_turns"], on_move_start=on_move_start)
    if shared is not None:
        shared[0] = 0.0
    labels = [entries[i].label for i in spec.seats]
    forfeit = None
    if result.forfeit:
        forfeit = {**result.forfeit, "agent": labels[result.forfeit["seat"]]}
    return {
        "game": spec.game, "round": spec.round, "lineup": spec.lineup, "order": spec.order,
        "rotation": spec.rotation, "seed": spec.seed, "agents": labels,
        "coins": result.coins, "scores": result.scores, "ranks": result.ranks,
        "winners": [labels[s] for s in result.winners], "winner_seats": result.winners,
        "forfeit": forfeit, "truncated": result.truncated, "turns": result.turns,
        "seconds": round(time.perf_counter() - start, 4),
        "move_seconds": [round(x, 4) for x in result.move_seconds],
    }


def _worker_main(conn, shared, config: dict[str, Any]) -> None:
    _set_pdeathsig()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    cache: dict = {}
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        record = play_one(GameSpec(**task), config, cache, shared)
        try:
            conn.send(record)
        except (BrokenPipeError, OSError):
            return


def forfeit_record(spec: GameSpec, config: dict[str, Any], seat: int, coins: list[int],
                   reason: str) -> dict:
    """The record of a game the parent had to stop (its worker was killed or died)."""
    from agents.arena import final_ranks

    labels = [e.label for e in (agent_entries(config["agents"])[i] for i in spec.seats)]
    scores = list(coins)
    if seat >= 0:
        scores[seat] = 0
    ranks = final_ranks(scores, seat if seat >= 0 else None)
    winners = [s for s, r in enumerate(ranks) if r == 1]
    return {
        "game": spec.game, "round": spec.round, "lineup": spec.lineup, "order": spec.order,
        "rotation": spec.rotation, "seed": spec.seed, "agents": labels, "coins": coins,
        "scores": scores, "ranks": ranks, "winners": [labels[s] for s in winners],
        "winner_seats": winners,
        "forfeit": {"seat": seat, "agent": labels[seat] if seat >= 0 else None,
                    "reason": reason},
        "truncated": False, "turns": None, "seconds": None, "move_seconds": None,
    }


class _Worker:
    def __init__(self, ctx, config: dict[str, Any]) -> None:
        self.shared = ctx.Array("d", _SLOTS, lock=False)
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, self.shared, config),
                                   daemon=True)
        self.process.start()
        child.close()
        self.task: GameSpec | None = None

    def send(self, spec: GameSpec) -> None:
        self.task = spec
        self.shared[0] = 0.0
        self.conn.send(asdict(spec))

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.send(None)
        self.process.join(2)
        if self.process.is_alive():
            self.kill()


def run_games(todo: list[GameSpec], config: dict[str, Any], workers: int, on_record) -> None:
    """Play ``todo`` on ``workers`` processes, calling ``on_record(record)`` as each ends."""
    if workers <= 1 and not config.get("_force_processes"):
        # in-process: the SIGALRM timer still applies, but a bot that ignores it hangs the run
        cache: dict = {}
        for spec in todo:
            on_record(play_one(spec, config, cache))
        return
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pending = list(reversed(todo))
    timeout = config["move_timeout"] or None
    grace = GRACE_S + (timeout or 0) * 0.5
    pool = [_Worker(ctx, config) for _ in range(min(workers, len(todo)))]
    try:
        for w in pool:
            if pending:
                w.send(pending.pop())
        while any(w.task is not None for w in pool):
            busy = {w.conn: w for w in pool if w.task is not None}
            for conn in wait(list(busy), timeout=0.25):
                w = busy[conn]
                try:
                    record = conn.recv()
                except (EOFError, OSError):
                    record = None
                if record is None:  # the worker died mid-game
                    w.process.join(1)
                    code = w.process.exitcode
                    record = _lost(w, config, f"crashed: worker process died (exit code {code})")
                    pool[pool.index(w)] = w = _replace(w, ctx, config)
                on_record(record)
                w.task = None
                if pending:
                    w.send(pending.pop())
            now = time.time()
            for i, w in enumerate(pool):
                deadline = w.shared[0]
                if w.task is not None and deadline > 0 and now > deadline + grace:
                    limit = f"{timeout:g} s" if deadline - now < WARMUP_S else "warm-up"
                    record = _lost(w, config, f"timeout: no move within {limit} (+{grace:g} s "
                                              "grace); worker killed")
                    pool[i] = _replace(w, ctx, config)
                    on_record(record)
                    if pending:
                        pool[i].send(pending.pop())
    finally:
        for w in pool:
            w.stop()


def _lost(w: _Worker, config: dict[str, Any], reason: str) -> dict:
    spec = w.task
    assert spec is not None
    n = len(spec.seats)
    if w.shared[0] > 0:  # during a move (or a warm-up): that seat forfeits
        seat = int(w.shared[1])
        coins = [int(w.shared[3 + s]) for s in range(n)]
    else:  # between moves (building an agent, say): nobody to blame; seat 0 by convention
        seat, coins = 0, [0] * n
    return forfeit_record(spec, config, seat, coins, reason)


def _replace(w: _Worker, ctx, config: dict[str, Any]) -> _Worker:
    w.kill()
    return _Worker(ctx, config)


# Results files ----------------------------------------------------------------------------
def read_games(path: Path) -> list[dict]:
    """Records of ``games.jsonl``; a truncated last line (killed mid-write) is cut off."""
    if not path.exists():
        return []
    data = path.read_bytes()
    records = []
    offset = 0
    good = 0
    while offset < len(data):
        end = data.find(b"\n", offset)
        if end < 0:  # no newline: the last write was interrupted
            break
        line = data[offset:end]
        offset = end + 1
        if not line.strip():
            good = offset
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if data[offset:].strip():
                raise TournamentError(f"{path}: corrupt line {len(records) + 1}: {exc}") from exc
            break  # a damaged last line
        good = offset
    if good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
            fh.flush()
            os.fsync(fh.fileno())
    return records


class GameLog:
    """Append-only ``games.jsonl``: one fsynced line per game."""

    def __init__(self, path: Path) -> None:
        self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def append(self, record: dict) -> None:
        self.fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()


def prepare_out(out: Path, config: dict[str, Any]) -> list[dict]:
    """Create or resume ``out``; return the games already played."""
    out.mkdir(parents=True, exist_ok=True)
    cfg_path = out / "config.json"
    games_path = out / "games.jsonl"
    mine = identity(config)
    if cfg_path.exists():
        saved = json.loads(cfg_path.read_text())
        theirs = identity({**saved, "agents": saved["agents"]})
        theirs["agents"] = saved["agents"]
        if theirs != mine:
            diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            details = "; ".join(f"{k}: saved {theirs.get(k)!r}, now {mine.get(k)!r}"
                                for k in diff)
            raise TournamentError(
                f"{out} holds a tournament with a different configuration ({details}). "
                f"Resume with the same settings, or choose another --out/--name."
            )
    elif games_path.exists() and games_path.stat().st_size:
        raise TournamentError(f"{games_path} exists without config.json; refusing to mix runs")
    else:
        tmp = cfg_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(mine, indent=2) + "\n")
        os.replace(tmp, cfg_path)
    return read_games(games_path)


# Statistics -------------------------------------------------------------------------------
def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal-approximation interval."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def summarise(records: list[dict], labels: list[str]) -> dict[str, Any]:
    """Per-agent statistics, openskill ratings and the head-to-head matrix."""
    from openskill.models import PlackettLuce

    records = sorted(records, key=lambda r: r["game"])
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    shares: dict[str, list[float]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    ranks: dict[str, list[float]] = defaultdict(list)
    forfeits: dict[str, int] = defaultdict(int)
    ahead = defaultdict(float)
    met = defaultdict(int)
    seat_shares: dict[int, list[float]] = defaultdict(list)
    for rec in records:
        agents, rk = rec["agents"], rec["ranks"]
        n_win = len(rec["winner_seats"])
        for seat, label in enumerate(agents):
            share = 1.0 / n_win if seat in rec["winner_seats"] else 0.0
            shares[label].append(share)
            seat_shares[seat].append(share)
            scores[label].append(rec["scores"][seat])
            ranks[label].append(rk[seat])
        if rec["forfeit"]:
            forfeits[rec["forfeit"]["agent"] or agents[rec["forfeit"]["seat"]]] += 1
        for i, j in itertools.permutations(range(len(agents)), 2):
            a, b = agents[i], agents[j]
            if a == b:
                continue
            met[a, b] += 1
            ahead[a, b] += 1.0 if rk[i] < rk[j] else 0.5 if rk[i] == rk[j] else 0.0
        teams = [[ratings[label]] for label in agents]
        rated = model.rate(teams, ranks=list(rk))
        updates: dict[str, list] = defaultdict(list)
        for label, team in zip(agents, rated, strict=True):
            updates[label].append(team[0])
        for label, new in updates.items():
            mu = sum(r.mu for r in new) / len(new)
            sigma = sum(r.sigma for r in new) / len(new)
            ratings[label] = model.rating(mu=mu, sigma=sigma, name=label)
    rows = []
    for label in labels:
        win, win_ci = mean_ci(shares[label])
        coins, coins_ci = mean_ci(scores[label])
        rank, _ = mean_ci(ranks[label])
        r = ratings[label]
        rows.append({
            "agent": label, "games": len(shares[label]), "win_rate": win, "win_ci": win_ci,
            "mean_coins": coins, "coins_ci": coins_ci, "mean_rank": rank,
            "ordinal": r.ordinal(), "mu": r.mu, "sigma": r.sigma,
            "forfeits": forfeits[label],
        })
    rows.sort(key=lambda row: -row["ordinal"])
    h2h = {a: {b: (ahead[a, b] / met[a, b] if met[a, b] else None) for b in labels}
           for a in labels}
    seats = {seat: mean_ci(v) for seat, v in sorted(seat_shares.items())}
    forfeit_list = [(r["game"], r["forfeit"]["agent"], r["forfeit"]["reason"])
                    for r in records if r["forfeit"]]
    return {"rows": rows, "h2h": h2h, "h2h_games": {f"{a} vs {b}": n for (a, b), n in
                                                   met.items()},
            "seats": seats, "games": len(records), "forfeits": forfeit_list,
            "truncated": sum(1 for r in records if r.get("truncated"))}


def _pct(x: float, ci: float) -> str:
    return f"{100 * x:.1f}% ± {100 * ci:.1f}"


def write_summary(out: Path, config: dict[str, Any], summary: dict[str, Any],
                  command: str | None = None) -> None:
    rows = summary["rows"]
    labels = [row["agent"] for row in rows]
    with open(out / "summary.csv", "w") as fh:
        cols = ["agent", "games", "win_rate", "win_ci", "mean_coins", "coins_ci", "mean_rank",
                "ordinal", "mu", "sigma", "forfeits"]
        fh.write(",".join(cols) + "\n")
        for row in rows:
            fh.write(",".join(f"{row[c]:.4f}" if isinstance(row[c], float) else str(row[c])
                              for c in cols) + "\n")
    n = config["players"]
    lines = [f"# Tournament `{config['name']}`", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += [
        f"{summary['games']} games · preset `{config['preset']}` · {n} players per game · "
        f"seed {config['seed']} · move time limit {config['move_timeout']} s · "
        f"forfeits {len(summary['forfeits'])} · stopped at the turn cap {summary['truncated']}",
        "",
        "Win rate counts a shared victory as 1/k; ± is the 95% interval (normal approximation). "
        "Ordinal = mu - 3 sigma (openskill Plackett-Luce). "
        f"An equal player wins {100 / n:.1f}% of its games.",
        "",
        "| agent | games | win rate | mean coins | mean rank | ordinal | mu | sigma | forfeits |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['agent']} | {r['games']} | {_pct(r['win_rate'], r['win_ci'])} | "
            f"{r['mean_coins']:.2f} ± {r['coins_ci']:.2f} | {r['mean_rank']:.2f} | "
            f"{r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['forfeits']} |")
    lines += ["", "Head to head: the share of games in which the row agent finished ahead of "
                  "the column agent when both played (ties count 1/2).", "",
              "| | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for a in labels:
        cells = ["—" if a == b or summary["h2h"][a][b] is None
                 else f"{100 * summary['h2h'][a][b]:.1f}%" for b in labels]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", "Win rate by seat (all agents; seat 0 starts): " + ", ".join(
        f"seat {s}: {_pct(m, ci)}" for s, (m, ci) in summary["seats"].items())]
    if summary["forfeits"]:
        lines += ["", "Forfeits (game, agent, reason):", ""]
        lines += [f"- game {g}: {a}: {why}" for g, a, why in summary["forfeits"][:50]]
        if len(summary["forfeits"]) > 50:
            lines.append(f"- ... and {len(summary['forfeits']) - 50} more")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    _chart(out / "summary.png", config, rows)


def _chart(path: Path, config: dict[str, Any], rows: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [r["agent"] for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    axes[0].bar(labels, [100 * r["win_rate"] for r in rows],
                yerr=[100 * r["win_ci"] for r in rows], capsize=4, color="#c8913a")
    axes[0].axhline(100 / config["players"], color="grey", ls="--", lw=1)
    axes[0].set_ylabel("win rate (%), 95% CI")
    axes[1].bar(labels, [r["mean_coins"] for r in rows], yerr=[r["coins_ci"] for r in rows],
                capsize=4, color="#4a7fb5")
    axes[1].set_ylabel("mean final coins, 95% CI")
    for ax in axes:
        ax.tick_params(axis="x", rotation=20)
    fig.suptitle(f"{config['name']}: {config['preset']}, {config['players']} players, "
                 f"{sum(r['games'] for r in rows) // config['players']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# Driver ------------------------------------------------------------------------------------
def run_tournament(config: dict[str, Any], out: Path, workers: int | None = None,
                   progress: bool = True, command: str | None = None) -> dict[str, Any]:
    """Play (or resume) the tournament into ``out`` and write the summaries."""
    done = prepare_out(out, config)
    games = schedule(config)
    done_ids = {r["game"] for r in done}
    todo = [g for g in games if g.game not in done_ids]
    workers = workers or os.cpu_count() or 1
    log = GameLog(out / "games.jsonl")
    records = list(done)
    bar = None
    try:
        if progress and todo:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            bar = Progress(TextColumn(f"[bold]{config['name']}"), BarColumn(),
                           MofNCompleteColumn(), TextColumn("games"), TimeElapsedColumn(),
                           TextColumn("eta"), TimeRemainingColumn(), transient=False)
            task = bar.add_task("games", total=len(games), completed=len(done))
            bar.start()

        def on_record(record: dict) -> None:
            log.append(record)
            records.append(record)
            if bar is not None:
                bar.advance(task)

        if todo:
            run_games(todo, config, workers, on_record)
    finally:
        if bar is not None:
            bar.stop()
        log.close()
    labels = [e.label for e in agent_entries(config["agents"])]
    summary = summarise(records, labels)
    write_summary(out, config, summary, command)
    return summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="tournament YAML (configs/tournament/...)")
    parser.add_argument("--agents", help="comma-separated agent specs (overrides the config)")
    parser.add_argument("--players", type=int, help="players per game")
    parser.add_argument("--games", type=int, help="games in all (rounded up to whole rounds)")
    parser.add_argument("--preset", help="rule preset: classic or second_edition")
    parser.add_argument("--seed", type=int, help="base seed of the paired game seeds")
    parser.add_argument("--name", help="tournament name (results/tournaments/<name>)")
    parser.add_argument("--out", help="results folder (default results/tournaments/<name>)")
    parser.add_argument("--workers", type=int, help="worker processes (default: CPU count)")
    parser.add_argument("--move-timeout", type=float, dest="move_timeout",
                        help="seconds per move before an agent forfeits (0 = no limit)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    overrides = {
        "agents": args.agents.split(",") if args.agents else None,
        "players": args.players, "games": args.games, "preset": args.preset,
        "seed": args.seed, "name": args.name, "move_timeout": args.move_timeout,
    }
    try:
        config = load_config(args.config, overrides)
        out = Path(args.out or config.get("out") or Path("results/tournaments") / config["name"])
        workers = args.workers or config.get("workers")
        command = getattr(args, "command_line", None)  # set by camelup's cli
        if command is None:
            prog = "camelup" if sys.argv[0].endswith("camelup") else f"python {sys.argv[0]}"
            command = " ".join([prog, *sys.argv[1:]])
        summary = run_tournament(config, out, workers, progress=not args.no_progress,
                                 command=command)
    except TournamentError as exc:
        print(f"camelup tournament: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: every finished game is saved; run the same command again to "
              "resume", file=sys.stderr)
        return 130
    print((out / "summary.md").read_text())
    print(f"results in {out}/ ({summary['games']} games)")
    return 0


if __name__ == "__main__":
    _parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(_parser)
    raise SystemExit(run(_parser.parse_args()))
