"""Imports only go down: each package imports only the packages on the floors below it.

The floors, from the ground up (docs/contributing.md, Architecture): the game and the typed
configs, which import none of the others; the agents; the tournaments (they play agents);
training (it evaluates with the tournament code); the two front ends, the command line and the
web app; and on top the tutorials, which may use everything. An upward import (say, the engine
reaching for an agent) would tie a lower floor to everything above it, so it fails here, naming
the file.
"""

from __future__ import annotations

import ast
import re
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


def import_names(tree: ast.AST, runtime_only: bool = False) -> list[str]:
    """Dotted names a module imports (absolute imports, at any depth, lazy ones included);
    ``runtime_only`` leaves out ``if TYPE_CHECKING:`` blocks, which only the type checker
    reads."""
    names: list[str] = []
    for node in ast.iter_child_nodes(tree):
        test = node.test if isinstance(node, ast.If) else None
        if runtime_only and test is not None and ast.unparse(test).endswith("TYPE_CHECKING"):
            names += [n for child in node.orelse for n in import_names(child, runtime_only)]
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        names += import_names(node, runtime_only)
    return names


def imported_packages(path: Path) -> set[str]:
    """The project packages a file imports (absolute imports, at any depth of the file)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {name.split(".")[0] for name in import_names(tree)} & FLOORS.keys()


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


#: Where the project's own prose and code live (run bulk, the virtual environment and other
#: projects' checkouts are not the project's text).
TEXT_FOLDERS = (*FLOORS, "benchmarks", "configs", "docs", "tests", "results", ".ci")
ISSUE_NUMBER = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)


def test_no_text_cites_a_tracker_issue_number() -> None:
    """Code and docs say what a thing is and why, not which ticket asked for it: a tracker's
    numbers mean nothing to a reader of the repository."""
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for folder in TEXT_FOLDERS:
        files += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.suffix in {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ""}
            and p.is_file()
            and "__pycache__" not in p.parts
        ]
    cited = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert not cited, f"tracker issue numbers cited at {cited[:10]}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Each project module with the project modules it imports."""
    paths = {
        _module_name(p): p
        for package in FLOORS
        if package != "tutorials"
        for p in (ROOT / package).rglob("*.py")
    }

    def resolve(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in paths.items():
        found = {resolve(n) for n in import_names(ast.parse(path.read_text()), runtime_only=True)}
        graph[name] = {m for m in found if m is not None and m != name}
    return graph


def test_no_module_imports_itself_through_others() -> None:
    """A circle of imports (lazy ones included) means two modules are one job split badly:
    each can only be understood, tested and loaded with the other."""
    graph = module_graph()
    circles = []
    for start in sorted(graph):
        seen, todo = set(), list(graph[start])
        while todo:
            module = todo.pop()
            if module == start:
                circles.append(start)
                break
            if module not in seen:
                seen.add(module)
                todo += graph[module]
    assert not circles, f"modules on an import circle: {circles}"


#: camelup_env's wings with the floor each stands on, from the ground up (docs/contributing.md,
#: Architecture): general helpers; the game; what reads a game (odds, pictures); the
#: observation; the batch core and the match loop; the environments and tools; the package.
WINGS = {
    "files": 0,
    "safe_json": 0,
    "compile_notice": 0,
    "stale_cache": 0,
    "interrupts": 0,
    "moved": 0,
    "game": 1,
    "odds": 2,
    "render": 2,
    "observation": 3,
    "batch": 4,
    "match": 4,
    "envs": 5,
    "camelup_v0": 5,
    "camelup_v1": 5,
    "cli": 5,
    "kernel_cache": 5,
}
#: The PettingZoo version modules live beside the environments' wing, as PettingZoo's do.
SAME_WING = {"camelup_v0": "envs", "camelup_v1": "envs"}
#: training's parts with the floor each stands on (docs/contributing.md, Architecture): a run's
#: folder, shared by every trainer (as is ``training/__init__.py``, the trainers by name and
#: their command line); then each learning line, none importing another.
TRAINING_PARTS = {"run_folder": 0, "policy": 1, "odds": 1, "afterstate": 1}


def _wing(module: str) -> str:
    part = module.split(".")[1]
    return SAME_WING.get(part, part)


@pytest.mark.parametrize(
    ("package", "floors"), [("camelup_env", WINGS), ("training", TRAINING_PARTS)]
)
def test_the_wings_of_a_package_import_only_down(package: str, floors: dict[str, int]) -> None:
    graph = module_graph()
    inside = sorted(m for m in graph if m.startswith(f"{package}."))
    unplaced = sorted({m.split(".")[1] for m in inside} - floors.keys())
    assert not unplaced, f"a new wing or root module of {package} needs its floor: {unplaced}"
    upward = [
        f"{module} imports {other}"
        for module in inside
        for other in graph[module]
        if other.startswith(f"{package}.")
        and _wing(other) != _wing(module)
        and floors[other.split(".")[1]] >= floors[module.split(".")[1]]
    ]
    assert not upward, "; ".join(upward)
