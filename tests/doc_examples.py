"""The examples of the documentation, read out of its pages: fenced Python blocks to run and
``camelup`` commands to parse (``tests/test_doc_examples.py``).

A page's Python blocks run in order in one namespace, as a reader runs them in one session,
with a scratch folder as the working directory. A block that cannot run as written is marked
on the line before its fence with ``<!-- no-run: the reason -->`` (an HTML comment: the site
does not show it).

``python tests/doc_examples.py PAGE`` runs the Python blocks of ``PAGE`` that way, reporting
each block's seconds on stderr; a failing block's traceback names ``PAGE`` and its line.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The pages: every Markdown page of the site and the README.
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
#: The tutorials: their Markdown cells are pages too (their code runs in tests/test_tutorials.py).
TUTORIALS = sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.py"))

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_NO_RUN = re.compile(r"^\s*<!--\s*no-run:\s*(?P<reason>.*?)\s*-->\s*$")
SHELL_LANGUAGES = {"sh", "bash", "shell", "console", ""}


@dataclass(frozen=True)
class Block:
    """A fenced block: its page, the line of its first code line (1-based), its language, its
    code (dedented to its fence) and the reason it is not run (``None``: it runs)."""

    page: Path
    line: int
    language: str
    code: str
    no_run: str | None

    @property
    def name(self) -> str:
        return f"{shown(self.page)}:{self.line}"


def shown(path: Path) -> str:
    """``path`` as a reader names it: from the repository's folder."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, in order."""
    lines = page.read_text().splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        language = (opening["info"].split() or [""])[0].lower()
        end = i + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        previous = next((line for line in reversed(lines[:i]) if line.strip()), "")
        marker = _NO_RUN.match(previous)
        code = "\n".join(line[indent:] for line in lines[i + 1 : end])
        found.append(Block(page, i + 2, language, code, marker["reason"] if marker else None))
        i = end + 1
    return found


def python_blocks(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.language in ("python", "py")]


def _continued(code: str) -> str:
    """``code`` with each line ending in a backslash joined to the next, as a shell reads it."""
    return re.sub(r"\\\n\s*", " ", code)


#: The programs whose command lines the pages' shell blocks are read for.
PROGRAMS = ("camelup", "python", "python3", ".venv/bin/python")


def shell_commands(page: Path) -> list[tuple[str, list[str]]]:
    """``(where, words)`` of every command line of the page's shell blocks that runs one of
    :data:`PROGRAMS` (in a ``console`` block, the lines after a ``$`` prompt), continuation
    lines joined and comments dropped. Lines of a command's output (``camelup tournament:
    error: ...``) are not commands."""
    commands = []
    for block in blocks(page):
        if block.language not in SHELL_LANGUAGES:
            continue
        text = _continued(block.code)
        for offset, line in enumerate(text.splitlines()):
            if block.language == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if (line.split() or [""])[0] not in PROGRAMS or re.match(r"\S+ [a-z]+:", line):
                continue
            commands.append((f"{block.name}+{offset}", shlex.split(line, comments=True)))
    return commands


def console_outputs(page: Path) -> list[tuple[str, list[str], str]]:
    """``(where, words, output)`` of every ``camelup`` command of the page's ``console`` blocks
    that is shown with its output: the lines after the ``$`` line, up to the next."""
    sessions = []
    for block in blocks(page):
        if block.language != "console":
            continue
        text = _continued(block.code)
        for part in re.split(r"^\$ ", text, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            if command.startswith("camelup ") and output.strip():
                sessions.append((block.name, shlex.split(command, comments=True), output))
    return sessions


def prose(path: Path) -> str:
    """The text of a page, or of a tutorial's Markdown cells (its ``#`` comment lines)."""
    text = path.read_text()
    if path.suffix == ".py":
        text = "\n".join(line[2:] for line in text.splitlines() if line.startswith("# "))
    return text


def inline_commands(path: Path) -> list[tuple[str, list[str]]]:
    """``(where, words)`` of every ``camelup`` command in the inline code of ``path``'s prose
    (a span may wrap lines), messages such as ``camelup train: error: ...`` left out."""
    commands = []
    for match in re.finditer(r"`(camelup [^`]+)`", prose(path)):
        line = " ".join(match[1].split())
        if re.match(r"camelup [a-z]+:", line):
            continue
        commands.append((f"{shown(path)}: `{line}`", line.split()))
    return commands


def run_page(page: Path) -> None:
    """Run the Python blocks of ``page`` that are not marked no-run, in order, in one namespace
    (module docstring). Each block is compiled at its line of the page, so a traceback shows
    the page's own line."""
    namespace: dict = {"__name__": "__main__"}
    for block in python_blocks(page):
        if block.no_run:
            print(f"{block.name} not run: {block.no_run}", file=sys.stderr)
            continue
        start = time.perf_counter()
        code = compile("\n" * (block.line - 1) + block.code, str(page), "exec")
        exec(code, namespace)
        print(f"{block.name} {time.perf_counter() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    run_page(Path(sys.argv[1]).resolve())
