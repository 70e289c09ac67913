"""Replay a recorded game step by step: in the terminal, as an animated GIF or an HTML page.

``camelup replay OUT --game N [--delay 0.5] [--gif game.gif] [--html game.html] [--quiet]``

A game record holds its seed and every action index; the engine is deterministic given them
(:func:`camelup_env.match.game_rngs`: the setup and the dice stream of the seed), so replaying the
actions from the seed's deal reproduces the game exactly, and the replay checks that it ends
with the coins the record says. Results folders may come from strangers: the files are read as
JSON only, every action is checked against the rules as it is replayed, and names are escaped
in the HTML page.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from camelup_env.game.actions import action_table, describe
from camelup_env.game.engine import apply_action
from camelup_env.game.events import Event
from camelup_env.game.legality import IllegalActionError
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.match import game_rngs
from camelup_env.render.event_text import describe_event
from tournament.config import MOST_TURNS, TournamentError
from tournament.records import read_games, saved_config

#: Longest pause a step may ask for, in the terminal (--delay, s) and in a GIF or page
#: (--frame-ms): a minute a step is already far slower than anyone watches.
MAX_DELAY_S = 60.0


class ReplayError(TournamentError):
    """A record that cannot be replayed, or does not replay to its recorded result."""


@dataclass(frozen=True)
class Step:
    """The state after a move (the deal for the first step), who moved and what happened."""

    state: GameState
    seat: int | None
    action: int | None
    events: tuple[Event, ...]


def rules_of(out: Path) -> RuleSet:
    """The rule set of the tournament in ``out`` (from its ``config.json``)."""
    doc = saved_config(out)
    try:
        return RuleSet.from_dict(
            {"preset": doc["preset"], "num_players": doc["players"], **(doc.get("rules") or {})}
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"{out}/config.json: no usable rule set ({exc})") from None


def find_game(out: Path, game: int) -> dict:
    for record in read_games(out / "games.jsonl"):
        if record["game"] == game:
            return record
    raise ReplayError(f"{out}/games.jsonl has no game {game}")


def replay(rules: RuleSet, record: dict) -> list[Step]:
    """Every step of the recorded game, checked against its recorded coins."""
    seed, actions = record.get("seed"), record.get("actions")
    game = record.get("game")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ReplayError(f"game {game}: no usable seed ({seed!r})")
    if not isinstance(actions, list) or len(actions) > MOST_TURNS:
        raise ReplayError(f"game {game}: no action list (recorded before games were replayable?)")
    setup_rng, dice_rng = game_rngs(seed)
    state = new_game(rules, seed=setup_rng)
    steps = [Step(state, None, None, ())]
    for i, action in enumerate(actions):
        if not isinstance(action, int) or isinstance(action, bool) or state.game_over:
            raise ReplayError(f"game {game}: move {i + 1} ({action!r}) cannot be played")
        seat = state.current
        try:
            state, events = apply_action(state, action, dice_rng)
        except (IllegalActionError, ValueError, IndexError) as exc:
            raise ReplayError(f"game {game}: move {i + 1} is illegal: {exc}") from None
        steps.append(Step(state, seat, action, events))
    if list(state.coins) != record.get("coins"):
        raise ReplayError(
            f"game {game} does not replay to its record: coins "
            f"{list(state.coins)}, recorded {record.get('coins')}"
        )
    return steps


def caption(step: Step, rules: RuleSet, labels: list[str]) -> str:
    """What happened in a step, in words (all cards shown: the game is over)."""
    if step.seat is None or step.action is None:  # the deal: neither
        return "The deal: " + ", ".join(f"P{s} {name}" for s, name in enumerate(labels))
    action = action_table(rules).actions[step.action]
    lines = [f"P{step.seat} ({labels[step.seat]}): {describe(action, rules)}"]
    lines += [describe_event(e, rules) for e in step.events]
    return "\n".join(lines)


def frames(steps: list[Step]):
    """A Pillow image of each step."""
    from PIL import Image

    from camelup_env.render.image import render_image

    return [Image.fromarray(render_image(step.state)) for step in steps]


def write_gif(path: Path, steps: list[Step], frame_ms: int) -> None:
    images = frames(steps)
    durations = [frame_ms] * (len(images) - 1) + [frame_ms * 6]  # linger on the result
    images[0].save(
        path, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0
    )


def write_html(
    path: Path, steps: list[Step], captions: list[str], title: str, frame_ms: int
) -> None:
    """One self-contained page: every frame inline, a slider, play/pause, arrow keys."""
    pictures = []
    for image in frames(steps):
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        pictures.append("data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode())
    data = json.dumps({"frames": pictures, "captions": captions}).replace("</", "<\\/")
    page = _PAGE.replace("TITLE", html.escape(title)).replace("DATA", data)
    path.write_text(page.replace("FRAME_MS", str(int(frame_ms))), encoding="utf-8")


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TITLE</title>
<style>body{font-family:sans-serif;background:#f6ecd6;margin:1.5em}
img{max-width:100%;border:1px solid #888}pre{white-space:pre-wrap;font-size:1.05em}
input[type=range]{width:60%}</style></head>
<body><h1>TITLE</h1>
<p><button id="prev">&#9664;</button> <button id="play">play</button>
<button id="next">&#9654;</button> <input id="slider" type="range" min="0" value="0">
<span id="where"></span></p>
<img id="frame" alt="the board"><pre id="caption"></pre>
<script>
const game = DATA;
const img = document.getElementById("frame"), cap = document.getElementById("caption");
const slider = document.getElementById("slider"), where = document.getElementById("where");
slider.max = game.frames.length - 1;
let i = 0, timer = null;
function show(k) {
  i = Math.max(0, Math.min(game.frames.length - 1, k));
  img.src = game.frames[i]; cap.textContent = game.captions[i]; slider.value = i;
  where.textContent = "step " + i + " of " + (game.frames.length - 1);
}
const button = document.getElementById("play");
function play() {
  if (timer) { clearInterval(timer); timer = null; button.textContent = "play"; return; }
  button.textContent = "pause";
  timer = setInterval(() => { if (i >= game.frames.length - 1) play(); else show(i + 1); },
                      FRAME_MS);
}
document.getElementById("prev").onclick = () => show(i - 1);
document.getElementById("next").onclick = () => show(i + 1);
button.onclick = play;
slider.oninput = () => show(Number(slider.value));
document.onkeydown = (e) => {
  if (e.key === "ArrowLeft") show(i - 1);
  if (e.key === "ArrowRight") show(i + 1);
};
show(0);
</script></body></html>
"""


def _printable(value: object) -> str:
    """Text from a results file, safe for a terminal (no escape sequences)."""
    return "".join(c if c.isprintable() else "?" for c in str(value))[:300]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="a tournament's results folder")
    parser.add_argument("--game", type=int, required=True, help="game id (games.jsonl)")
    parser.add_argument(
        "--delay", type=float, default=0.0, help="seconds to pause after each step in the terminal"
    )
    parser.add_argument("--gif", help="write the game as an animated GIF here")
    parser.add_argument("--html", help="write the game as a self-contained HTML page here")
    parser.add_argument("--frame-ms", type=int, default=700, help="milliseconds per frame")
    parser.add_argument("--quiet", action="store_true", help="no step-by-step text")


def run(args: argparse.Namespace) -> int:
    from camelup_env.render.text import render_text

    out = Path(args.out)
    try:
        check_options(args)
        rules = rules_of(out)
        record = find_game(out, args.game)
        steps = replay(rules, record)
    except TournamentError as exc:
        print(f"camelup replay: error: {exc}", file=sys.stderr)
        return 2
    labels = [_printable(a) for a in record.get("agents", [])][: rules.num_players]
    labels += [f"seat {s}" for s in range(len(labels), rules.num_players)]
    captions = [caption(step, rules, labels) for step in steps]
    if not args.quiet:
        for k, (step, text) in enumerate(zip(steps, captions, strict=True)):
            print(f"--- step {k} ---\n{text}\n{render_text(step.state)}", flush=True)
            if args.delay > 0:
                time.sleep(args.delay)
        forfeit = record.get("forfeit")
        if isinstance(forfeit, dict):
            print(
                f"forfeit: {_printable(forfeit.get('agent'))}: {_printable(forfeit.get('reason'))}"
            )
        print(f"final coins {record['coins']} (replayed and checked)")
    title = f"{out.name}: game {args.game}"
    try:
        if args.gif:
            write_gif(Path(args.gif), steps, args.frame_ms)
            print(f"wrote {args.gif}")
        if args.html:
            write_html(Path(args.html), steps, captions, title, args.frame_ms)
            print(f"wrote {args.html}")
    except OSError as exc:  # checked before the replay; the disk may still fill up
        print(f"camelup replay: error: cannot write the output: {exc}", file=sys.stderr)
        return 2
    return 0


def check_options(args: argparse.Namespace) -> None:
    """The pauses in range and the output files writable, before any replaying."""
    if not 1 <= args.frame_ms <= 1000 * MAX_DELAY_S:
        raise ReplayError(f"--frame-ms must be between 1 and {1000 * MAX_DELAY_S:.0f}")
    if not 0 <= args.delay <= MAX_DELAY_S:  # NaN fails this too
        raise ReplayError(f"--delay must be between 0 and {MAX_DELAY_S:.0f} seconds")
    for flag, name in (("--gif", args.gif), ("--html", args.html)):
        if name is None:
            continue
        target = Path(name)
        if target.is_dir() or not target.parent.is_dir():
            raise ReplayError(f"{flag} {name}: not a file in an existing folder")
