"""Files written whole or not at all.

Runs are long and may be killed at any moment (a session ends, Ctrl-C, a crash), and other
processes read their files while they run (a resume, an evaluation, the web app). A file is
therefore written under a temporary name beside it and renamed over it in one step
(``os.replace`` is atomic on one file system): a reader sees the old file or the new one, never
half of one. Every file of a run that is rewritten in place goes through here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path to write ``path``'s new content to; when the block ends without an
    error it replaces ``path``, and the temporary file never outlives the block."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> None:
    """``path`` holds ``text``, written whole or not at all."""
    with replacing(path) as tmp:
        tmp.write_text(text)


def write_json(path: str | Path, data: Any) -> None:
    """``path`` holds ``data`` as indented JSON, written whole or not at all."""
    write_text(path, json.dumps(data, indent=2) + "\n")
