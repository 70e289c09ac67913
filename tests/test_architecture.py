"""Imports only go down: each package imports only the packages on the floors below it.

The floors, from the ground up (README, Layout): the game and the typed configs, which import
none of the others; the agents; the tournaments (they play agents); training (it evaluates with
the tournament code); the two front ends, the command line and the web app; and on top the
tutorials, which may use everything. An
upward import (say, the engine reaching for an agent) would tie a lower floor to everything
above it, so it fails here, naming the file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Each package with the floor it stands on.
FLOORS = {
    "camelup_env": 0,
    "camelup_config": 0,
    "agents": 1,
    "tournament": 2,
    "training": 3,
    "camelup_cli": 4,
    "webapp": 4,
    "tutorials": 5,
}


def imported_packages(path: Path) -> set[str]:
    """The project packages a file imports (absolute imports, at any depth of the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names} & FLOORS.keys()
    return found


@pytest.mark.parametrize("package", sorted(FLOORS))
def test_imports_only_go_down(package: str) -> None:
    upward = [
        f"{path.relative_to(ROOT)} imports {other}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for other in imported_packages(path)
        if other != package and FLOORS[other] >= FLOORS[package]
    ]
    assert not upward, f"{package} is on floor {FLOORS[package]}: " + "; ".join(upward)


def test_every_package_has_a_floor() -> None:
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert packages == set(FLOORS), "a new package needs its floor in FLOORS"
