"""The referee and isolated bots: one real game, bots in their own processes,
limits, the line protocol, a zoo of hostile bots, and the referee as the in-process game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from camelup_env.game.engine import apply_action
from camelup_env.game.legality import legal_actions
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.match import observer, play_game
from camelup_env.observation import public_view
from tournament import protocol
from tournament.bots import BotFault, BotProcess
from tournament.config import AgentEntry, tournament_config
from tournament.pool import MatchSetup, run_games
from tournament.referee import play_match
from tournament.schedule import GameSpec

ROOT = Path(__file__).resolve().parents[1]
LINE_BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'line_bot.py'}"


def limits(**kw):
    base = {
        "agents": ["random"],
        "players": 2,
        "move_timeout": 1.0,
        "load_timeout": 15.0,
        "game_timeout": 30.0,
        "memory_mb": 1024,
        "output_kb": 64,
    }
    return tournament_config(None, {**base, **kw}).limits()


def test_referee_plays_the_in_process_game() -> None:
    """Oracle: bots in processes play exactly the game the same agents play in-process."""
    rules = RuleSet("classic", num_players=3)
    specs = ["random", "heuristic", "random"]
    bots = [BotProcess(AgentEntry(s, s), limits()) for s in specs]
    try:
        for seed in (3, 4):
            seeds = [seed * 64 + i for i in range(3)]
            match = play_match(rules, bots, seed, seeds)
            local = [agents.make(s) for s in specs]
            for agent, s in zip(local, seeds, strict=True):
                agent.reset(s)
            expected = play_game(rules, local, seed)
            assert match.result.coins == expected.coins and match.result.forfeit is None
            assert match.result.turns == expected.turns == len(match.actions)
    finally:
        for bot in bots:
            bot.close()


def test_observation_from_the_public_view_equals_the_real_one() -> None:
    """A hosted agent's features are computed from the view it is sent (tournament.host)."""
    for preset in ("classic", "second_edition", "supercup", "persian_tutorial"):
        rules = RuleSet(preset, num_players=4)
        features = observer(rules)
        rng = np.random.default_rng(0)
        state = new_game(rules, seed=rng)
        for _ in range(40):
            if state.game_over:
                break
            for seat in range(4):
                view = public_view(state, seat)
                again = type(state).from_dict(view.to_dict())
                assert np.array_equal(features(again, seat), features(state, seat))
            moves = legal_actions(state)
            state, _ = apply_action(state, moves[rng.integers(len(moves))], rng)


def test_messages_are_json_lines_only() -> None:
    assert protocol.decode(protocol.encode({"action": 3})) == {"action": 3}
    for bad in (b"not json", b"[1, 2]", b"1" * 5000, b"\xff\xfe"):
        with pytest.raises(protocol.ProtocolError):
            protocol.decode(bad)


def test_the_standalone_example_bot_needs_no_camelup() -> None:
    text = (ROOT / "examples" / "line_bot.py").read_text()
    assert "camelup" not in "".join(
        line for line in text.splitlines() if line.startswith(("import", "from"))
    )
    rules = RuleSet("second_edition", num_players=2)
    start = protocol.start_message(0, 0, 1, rules)
    state = new_game(rules, seed=np.random.default_rng(1))
    move = protocol.move_message([0, 5], public_view(state, 0).to_dict())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-I", str(ROOT / "examples" / "line_bot.py")],
        input=protocol.encode(start) + protocol.encode(move),
        env=env,
        capture_output=True,
        timeout=30,
        cwd="/",
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies[0] == {"type": "ready"} and replies[1]["action"] in (0, 5)


ZOO = {  # bot -> what its forfeit reason starts with
    "RaisingBot": ("raised RuntimeError: bot exploded",),
    "IllegalBot": ("illegal action",),
    "SleepyBot": ("timeout: no move within 6 s",),
    "StubbornBot": ("timeout: no move within 6 s",),
    "CrashingBot": ("crashed: bot process ended (exit code 3)",),
    "ExitBot": ("raised SystemExit",),
    "InterruptBot": ("raised KeyboardInterrupt",),
    "HugeIntBot": ("illegal action: returned an int of",),
    "FloatBot": ("illegal action: returned float 1.5",),
    "HogBot": ("memory limit",),
    "FloodBot": ("output limit",),
    "ForkBot": ("timeout: no move within 6 s", "raised BlockingIOError"),
    "InitHangBot": ("timeout: not ready within 15 s (loading and warm-up)",),
    "CheatingBot": ("illegal action",),
}


def test_hostile_bots_forfeit_with_the_right_reason(tmp_path: Path) -> None:
    """The zoo: every hostile bot forfeits its game, named, and every other game is scored;
    the bots that attack the game through frames and gc change nothing."""
    marker, pidfile = tmp_path / "marker", tmp_path / "pids"
    marker.touch()  # InitHangBot hangs from its first build
    kwargs = {"InitHangBot": {"marker": str(marker)}, "ForkBot": {"pidfile": str(pidfile)}}
    names = [*ZOO, "SnoopBot"]
    entries = (
        AgentEntry("random", "random"),
        *(AgentEntry(n, f"py:tests.faulty_bots:{n}", kwargs.get(n, {})) for n in names),
    )
    rules = RuleSet("classic", num_players=2)
    setup = MatchSetup(entries, rules.to_dict(), limits(move_timeout=6.0), 2000, str(tmp_path))
    games = [
        GameSpec(i, 0, 0, i % 2, 7, (0, i + 1) if i % 2 else (i + 1, 0)) for i in range(len(names))
    ]
    games += [GameSpec(len(names), 0, 0, 0, 8, (0, 0))]  # a clean game after the zoo
    records: dict[int, dict] = {}
    run_games(games, setup, 2, lambda r: records.__setitem__(r["game"], r))
    assert sorted(records) == list(range(len(games)))
    for i, name in enumerate(names):
        record = records[i]
        if name == "SnoopBot":
            assert record["forfeit"] is None and max(record["coins"]) < 999
            continue
        forfeit = record["forfeit"]
        assert forfeit is not None and forfeit["agent"] == name, record
        assert forfeit["reason"].startswith(ZOO[name]), (name, forfeit["reason"])
        seat = forfeit["seat"]
        assert record["scores"][seat] == 0 and record["ranks"][seat] == 2
        assert max(record["coins"]) < 999
    assert records[len(names)]["forfeit"] is None
    for pid in map(int, pidfile.read_text().split()):  # ForkBot's children went with it
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_bot_that_answers_garbage_or_nothing_forfeits(tmp_path: Path) -> None:
    rules = RuleSet("classic", num_players=2)
    talker = tmp_path / "talker.py"
    talker.write_text(
        "import json, sys\nfor line in sys.stdin:\n"
        "    ready = json.loads(line)['type'] == 'start'\n"
        "    reply = json.dumps({'type': 'ready'}) if ready else 'hello'\n"
        "    print(reply, flush=True)\n"
    )
    bot = BotProcess(AgentEntry("talker", f"cmd:{sys.executable} {talker}"), limits())
    try:
        bot.begin(0, 0, 0, rules)
        state = new_game(rules, seed=np.random.default_rng(0))
        with pytest.raises(BotFault, match="protocol: not JSON"):
            bot.ask(protocol.move_message([0], public_view(state, 0).to_dict()), 5.0, "late")
    finally:
        bot.kill()
    silent = BotProcess(
        AgentEntry("mute", f'cmd:{sys.executable} -c "import time; time.sleep(60)"'), limits()
    )
    try:
        with pytest.raises(BotFault, match=r"timeout: not ready within 0\.5 s"):
            silent.ask(
                protocol.start_message(0, 0, 0, rules), 0.5, "timeout: not ready within 0.5 s"
            )
    finally:
        silent.kill()


def test_a_raising_bot_leaves_its_traceback_in_its_log(tmp_path: Path) -> None:
    """The forfeit reason is one line; the bot's log holds the whole traceback, which names
    the line of the bot that raised."""
    entries = (
        AgentEntry("random", "random"),
        AgentEntry("raiser", "py:tests.faulty_bots:RaisingBot"),
    )
    rules = RuleSet("classic", num_players=2)
    setup = MatchSetup(entries, rules.to_dict(), limits(), 2000, str(tmp_path))
    records: list[dict] = []
    run_games([GameSpec(0, 0, 0, 0, 7, (0, 1))], setup, 1, records.append)
    assert records[0]["forfeit"]["reason"] == "raised RuntimeError: bot exploded"
    (log,) = tmp_path.glob("*raiser*.log")
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "faulty_bots.py" in text
    assert "RuntimeError: bot exploded" in text
