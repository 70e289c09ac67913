"""The README is the landing page: short, one picture, and a table of reference agents that all
exist and link to pages that exist (its Python blocks run in tests/test_doc_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import agents
from agents import afterstate, shipped

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The landing page's length: what it is, how to start, one example per reader, the agents.
MAX_LINES = 150


def test_the_readme_is_a_landing_page() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= MAX_LINES
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(pictures) == 1 and (ROOT / pictures[0]).is_file()
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_every_reference_agent_exists_and_links_to_its_page() -> None:
    text = README.read_text().split("## Reference agents\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows
    for row in rows:
        specs_cell, _, page_cell = row.split("|")[1:4]
        for spec in re.findall(r"`([^`]+)`", specs_cell):
            prefix, sep, rest = spec.partition(":")
            if sep:
                files = (
                    [*shipped.value_names(), *afterstate.BUILT_IN]
                    if prefix == "afterstate"
                    else shipped.names()
                )
                assert agents.is_prefix(prefix) and rest in files, spec
            else:
                agents.check(spec)
        (page,) = re.findall(r"\]\(([^)]+)\)", page_cell)
        assert (ROOT / page).is_file(), page
