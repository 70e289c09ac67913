"""A run's folder: its name and place (the two fields every trainer's config has), its progress
record, opened new or resumed, and written whole.

Every trainer keeps ``out_dir/progress.json``: what the run has done (decisions or iterations,
snapshots, checkpoints, queued evaluations) and its config. A resume reads it back and refuses
a config that would mix two runs; every write replaces the file whole
(:mod:`camelup_env.files`), so a run killed at any moment resumes from its last record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import MISSING, asdict, fields
from pathlib import Path
from typing import Any

from camelup_config import ConfigError, setting
from camelup_env.files import write_json


def name_setting(default: str) -> Any:
    """The ``name`` field (each trainer has its own default)."""
    return setting(default, help="Name of the run (recorded in the model file).")


def out_dir_setting(default: str) -> Any:
    """The ``out_dir`` field (each trainer has its own default)."""
    return setting(default, help="Output folder of the run.")


def write_progress(out: Path, progress: dict[str, Any]) -> None:
    """``out/progress.json`` holds ``progress``."""
    write_json(out / "progress.json", progress)


def resume_command(command: str | None, fallback: str) -> str:
    """The command that continues an interrupted run: the one given, with ``--resume``."""
    again = command or fallback
    return again if "--resume" in again else f"{again} --resume"


def open_progress(
    cfg: Any,
    resume: bool,
    may_change: frozenset[str],
    fresh: dict[str, Any],
    has_checkpoint: Callable[[Path, dict[str, Any]], bool],
    done: Callable[[dict[str, Any]], str],
) -> dict[str, Any]:
    """A run's progress record (``out_dir/progress.json``): ``fresh`` for a new run, or the
    interrupted run's when resuming, which is said on stdout with ``done(progress)`` (what the
    run had done, e.g. "2,048 of 4,096 decisions"). A resumed run may change only
    ``may_change`` (train longer, move the folder, change the machine); anything else would mix
    two runs."""
    out = Path(cfg.out_dir)
    progress_file = out / "progress.json"
    if resume:
        if not progress_file.exists():
            raise ConfigError(f"nothing to resume in {out}: no checkpoint yet")
        progress = json.loads(progress_file.read_text())
        saved = {**_defaults(cfg), **progress["config"]}  # a setting added since: its default
        changed = sorted(
            k for k, v in asdict(cfg).items() if saved.get(k) != v and k not in may_change
        )
        if changed:
            raise ConfigError(
                f"--resume with a different config (changed: {changed}); use the "
                "config of the interrupted run or a new out_dir"
            )
        if not has_checkpoint(out, progress):
            raise ConfigError(f"nothing to resume in {out}: its checkpoint is missing")
        progress["config"] = asdict(cfg)
        print(f"resuming the run in {out}/ from its last checkpoint: {done(progress)}", flush=True)
        return progress
    if progress_file.exists():
        raise ConfigError(f"{out} already holds a run; pass --resume or use a new out_dir")
    return {"config": asdict(cfg), **fresh}


def _defaults(cfg: Any) -> dict[str, Any]:
    """Each setting of ``cfg``'s dataclass at its default: what a run recorded before the
    setting existed played with."""
    out = {}
    for f in fields(cfg):
        if f.default is not MISSING:
            out[f.name] = f.default
        elif f.default_factory is not MISSING:
            out[f.name] = f.default_factory()
    return out
