"""The package as a user installs it: a wheel in a fresh virtual environment, used from a folder
outside the repository.

The repository's own checks run on the source tree, where a file that a wheel leaves out is
still found. Here the project's packages are copied to a temporary folder and built into a
wheel (``pip wheel``: the build that ``pip install`` runs), the wheel is installed with pip
into a new virtual environment, and ``camelup agents`` and a shipped agent run there, from a
temporary folder, with the repository off the path. The dependencies are the development
environment's own (its site-packages is a path of the new environment, without its ``.pth``
files, so the repository's editable install stays out): nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from agents import shipped
from camelup_env import compile_notice

ROOT = Path(__file__).resolve().parents[1]
#: What the wheel is built from: everything but the repository's records, docs and tests (the
#: build's own configuration, pyproject.toml, says which packages go in).
NOT_BUILT = (
    ".git",
    ".venv",
    "results",
    "runs",
    "docs",
    "tests",
    "tutorials",
    "benchmarks",
    "site",
    "build",
    "dist",
    "external",
    "shared",
    "node_modules",
    "__pycache__",
    "*.egg-info",
    "*.nbi",
    "*.nbc",
    ".*_cache",
)
#: One move of a shipped agent, by name, in the installed package; prints where it came from.
ONE_MOVE = """
import agents
from camelup_env import RuleSet, legal_action_indices, new_game, public_view
from camelup_env.match import observe

agent = agents.make("ppo:classic4")
state = new_game(RuleSet("classic", num_players=4), seed=0)
agent.reset(seed=0)
action = agent(observe(state, state.current), public_view(state, state.current))
assert action in legal_action_indices(state), action
print(agents.__file__)
print(agent.source)
"""


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel of this checkout installed; its folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_BUILT))
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp / "dist"),
            str(source),
        ],
        cwd=tmp,
    )
    (wheel,) = (tmp / "dist").glob("camelup-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp)
    python = venv / "bin" / "python"
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp
    ).stdout.strip()
    # the development environment's packages as a plain path: its .pth files (the editable
    # install of this repository among them) are not read
    Path(purelib, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        cwd=tmp,
    )
    return venv


def test_an_installed_wheel_lists_the_shipped_agents(installed: Path, tmp_path: Path) -> None:
    out = _run([str(installed / "bin" / "camelup"), "agents", "--names"], cwd=tmp_path).stdout
    listed = [line for line in out.splitlines() if line.startswith("ppo:") and line != "ppo:..."]
    assert listed == [f"ppo:{name}" for name in shipped.names()]
    assert "ppo:classic4" in listed and "ppo:cup4" in listed
    values = [
        line
        for line in out.splitlines()
        if line.startswith("afterstate:") and line != "afterstate:..."
    ]
    assert values == [f"afterstate:{name}" for name in shipped.value_names()]
    assert {"afterstate:afterstate_classic4", "afterstate:standing_td_classic2"} <= set(values)


def test_a_shipped_agent_plays_by_name_from_the_installed_package(
    installed: Path, tmp_path: Path
) -> None:
    """``ppo:classic4`` resolves to the wheel's own file and plays a legal move; its first
    use compiles the kernels of the new install, which says so once."""
    done = _run([str(installed / "bin" / "python"), "-c", ONE_MOVE], cwd=tmp_path)
    package, model = done.stdout.split()[-2:]
    assert Path(package).is_relative_to(installed) and not Path(package).is_relative_to(ROOT)
    assert Path(model).is_relative_to(installed) and Path(model).name == "classic4.zip"
    assert done.stderr.count(compile_notice.NOTICE) == 1, done.stderr
