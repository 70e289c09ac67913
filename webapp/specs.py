"""Which agents a web page may name, and the spec each bot is started with.

Any page a person's browser opens can send a ``/play`` URL to a local server, so the URL is
untrusted input that names programs to run. :func:`bot_spec` sorts a spec into three kinds:

* a registered name (``random``, ``greedy``...): the project's own code, always allowed;
* a model (a prefix that plays a model file: ``ppo:``, ``search:``, ``rollout:``, ``rllib:``):
  model files are read as data, never unpickled (docs/model-files.md), and only from the
  served models folder (``camelup serve --models``). A path outside it and a path that does not
  exist get the same answer, so a page cannot learn which files the server has;
* code (``py:``, ``cmd:``, ``cup:`` and any other prefix): refused unless the operator named
  folders with ``--allow-code DIR``, and then only a program, Camel Up Cup file or Python module
  whose file lies in one of them. ``py:`` modules are found without importing anything (an
  import runs code). A prefix whose file cannot be told is refused.

The returned spec names every file by its absolute path: bots run in a folder of their own
(:class:`tournament.bots.BotProcess`), where a relative path would mean nothing.
"""

from __future__ import annotations

import importlib.machinery
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import agents as registry
from agents import shipped
from tournament.bots import ROOT
from webapp.games import GameError

#: where the shipped models live (the default served models folder)
SHIPPED_MODELS = shipped.MODELS


@dataclass(frozen=True)
class Allowed:
    """What the operator lets pages name: the models folder, and the folders whose code may run
    (none: no code at all)."""

    models: Path
    code: tuple[Path, ...] = ()

    @classmethod
    def of(cls, models: Path | None = None, code: tuple[Path, ...] = ()) -> Allowed:
        return cls((models or SHIPPED_MODELS).resolve(), tuple(Path(d).resolve() for d in code))


def bot_spec(spec: str, allowed: Allowed) -> str:
    """The spec to start ``spec``'s bot with (module docstring), or :class:`GameError`."""
    if spec == "human":
        raise GameError("opponent 'human': you are the human; name a bot (camelup agents)")
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in registry.model_prefixes():
        return f"{prefix}:{_model_path(spec, rest, allowed.models)}"
    if not sep or not (prefix == "cmd" or registry.is_prefix(prefix)):  # cmd: is a program
        try:
            registry.check(spec)
        except (registry.UnknownAgentError, ImportError) as exc:
            raise GameError(str(exc)) from None
        return spec
    if not allowed.code:
        raise GameError(
            f"opponent {spec[:60]!r}: {prefix}: agents run code the page names, so camelup "
            "serve runs them only when started with --allow-code DIR (code from DIR only)"
        )
    return _code_spec(spec, prefix, rest, allowed.code)


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _model_path(spec: str, rest: str, models: Path) -> Path:
    """The model ``rest`` names: a path relative to the models folder or to where the server
    runs, or a file at the folder's top by its name without ``.zip`` (the shipped ones:
    ``ppo:classic2``)."""
    for candidate in (models / rest, models / f"{rest}.zip", Path.cwd() / rest):
        path = candidate.resolve()
        if _inside(path, (models,)) and path.exists():
            return path
    raise GameError(
        f"opponent {spec[:80]!r}: no such model in the served models folder "
        "(paths are relative to it; camelup serve --models names it)"
    )


def _code_spec(spec: str, prefix: str, rest: str, folders: tuple[Path, ...]) -> str:
    outside = GameError(
        f"opponent {spec[:80]!r}: not found in a folder camelup serve --allow-code names"
    )
    if prefix == "cmd":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise GameError(f"opponent {spec[:60]!r}: {exc}") from None
        if not argv:
            raise GameError(f"opponent {spec[:60]!r}: cmd: needs a program")
        found = argv[0] if "/" in argv[0] else shutil.which(argv[0])
        program = (Path.cwd() / found).resolve() if found else None
        if program is None or not _inside(program, folders) or not program.is_file():
            raise outside
        return "cmd:" + shlex.join([str(program), *argv[1:]])
    if prefix == "cup":
        path, sep, cls = rest.rpartition(":")
        if not sep or not path.endswith(".py"):  # as agents.cup_bot.load reads it
            path, cls = rest, ""
        file = (Path.cwd() / path).resolve()
        if not _inside(file, folders) or not file.is_file():
            raise outside
        return f"cup:{file}" + (f":{cls}" if cls else "")
    if prefix == "py":
        module = rest.partition(":")[0]
        origin = _module_file(module)
        if origin is None or not _inside(origin, folders):
            raise outside
        return spec  # imported by name, from the path _module_file searched
    raise GameError(
        f"opponent {spec[:60]!r}: the web app cannot tell which file a {prefix}: spec runs"
    )


def _module_file(name: str) -> Path | None:
    """The file a bot would import module ``name`` from, found without importing it or its
    packages (None: not found). A bot's import path is its own empty folder, the project
    (:data:`tournament.bots.ROOT`), then this interpreter's path after its script's folder."""
    path = [str(ROOT), *sys.path[1:]]
    parts = name.split(".")
    spec = None
    for depth in range(len(parts)):
        if not parts[depth].isidentifier() or not path:
            return None
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: depth + 1]), path)
        if spec is None:
            return None
        path = list(spec.submodule_search_locations or [])
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve()
