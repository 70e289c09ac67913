"""The public API page (docs/api/public.md) and the code agree: every name it lists imports,
every package it lists exports exactly those names, every environment id and agent spec it
lists exists and none is missing; and a module's former place says where it went."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest

import agents
import camelup_env
from agents import shipped
from camelup_env.moved import MOVED, MovedModuleError

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api" / "public.md"


def _rows(section: str) -> list[list[list[str]]]:
    """The table rows of the page's ``## section``: each cell's backticked items."""
    text = PAGE.read_text().split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("|") and "`" in line]
    return [[re.findall(r"`([^`]+)`", cell) for cell in row.split("|")[1:-1]] for row in rows]


NAMES = {module[0]: names for module, names in _rows("Python names")}


@pytest.mark.parametrize("module_name", sorted(NAMES))
def test_every_listed_name_imports(module_name: str) -> None:
    module = importlib.import_module(module_name)
    missing = [name for name in NAMES[module_name] if not hasattr(module, name)]
    assert not missing, f"{module_name} lacks {missing} (docs/api/public.md lists them)"
    if hasattr(module, "__path__") and hasattr(module, "__all__"):  # a package's exports
        listed = set(NAMES[module_name]) - {"__version__"}
        assert listed == set(module.__all__), f"{module_name}: the page and __all__ differ"


def test_the_version_is_one_and_the_changelog_has_it() -> None:
    root = PAGE.parents[2]
    assert re.fullmatch(r"\d+\.\d+\.\d+", camelup_env.__version__)
    assert 'version = {attr = "camelup_env.__version__"}' in (root / "pyproject.toml").read_text()
    assert f"## {camelup_env.__version__} " in (root / "CHANGELOG.md").read_text()


def test_the_listed_environment_ids_are_the_registered_ones() -> None:
    (ids,) = _rows("Environment ids")[0]
    registered = sorted(i for i in gymnasium.registry if i.startswith("camelup/"))
    assert sorted(ids) == registered


def test_the_listed_agent_specs_are_the_registered_and_shipped_ones() -> None:
    scripted, trained, prefixes = (specs for _, specs in _rows("Agent specs"))
    assert scripted == agents.names()
    policies = [f"ppo:{name}" for name in shipped.names()]
    values = [f"afterstate:{name}" for name in shipped.value_names()]
    assert trained == policies + values
    assert all(shipped.model_path(spec[4:]).is_file() for spec in policies)
    assert all(shipped.value_path(spec.partition(":")[2]).is_file() for spec in values)
    registered = [name for name, _ in agents.describe_agents() if name.endswith(":...")]
    assert [f"{prefix}..." for prefix in prefixes] == registered


def test_a_moved_module_says_where_it_went() -> None:
    """Each former import fails, naming the present module (which imports), in a fresh
    process as a user's script meets it: ``import OLD`` and ``from PACKAGE import NAME``."""
    script = (
        "import importlib, json, sys\n"
        "from camelup_env.moved import MOVED\n"
        "said = {}\n"
        "for old, new in MOVED.items():\n"
        "    package, _, name = old.rpartition('.')\n"
        "    for how in (f'import {old}', f'from {package} import {name}'):\n"
        "        try:\n"
        "            exec(how, {})\n"
        "            said[how] = 'imported'\n"
        "        except ImportError as exc:\n"
        "            said[how] = type(exc).__name__ + ': ' + str(exc)\n"
        "    importlib.import_module(new)\n"
        "print(json.dumps(said))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=PAGE.parents[2], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    for old, new in MOVED.items():
        package, _, name = old.rpartition(".")
        for how in (f"import {old}", f"from {package} import {name}"):
            assert said[how].startswith("MovedModuleError: ") and f"moved to {new!r}" in said[how]


def test_a_module_that_never_existed_is_a_plain_error() -> None:
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.import_module("camelup_env.no_such_module")
    assert not isinstance(caught.value, MovedModuleError)
