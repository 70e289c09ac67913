#!/usr/bin/env python3
"""A camelup tournament bot in plain Python: no camelup import, standard library only.

Run it in a tournament with ``--agents greedy,cmd:examples/line_bot.py``. It speaks the line
protocol of docs/tournaments.md: one JSON object per line on stdin, one answer per line on
stdout. Its play is simple on purpose: take the leg-bet tile of the camel in the lead when one
is offered, else roll (take a pyramid tile), else the first legal action.
"""

import json
import sys


def leader(state):
    """The camel on top of the stack furthest along the track (stacks are bottom -> top)."""
    return max(state["stacks"], key=lambda entry: entry[0])[1][-1]


def choose(message, names, colours):
    """The leader's leg-bet tile, else a roll, else the first legal action."""
    legal = message["legal"]
    lead = colours[leader(message["state"])]
    for index in legal:
        if names[index] == f"take the top {lead} leg-bet tile":
            return index
    for index in legal:
        if names[index].startswith("take a pyramid tile"):
            return index
    return legal[0]


def main():
    names, colours = [], []
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            names, colours = message["actions"], message["colours"]
            reply = {"type": "ready"}
        elif kind == "move":
            reply = {"action": choose(message, names, colours)}
        elif kind == "quit":
            return
        else:  # "end" and anything newer: no answer
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
