"""The documentation's examples work as written (``tests/doc_examples.py`` reads them).

Every page's Python blocks run, in order, in a fresh interpreter whose working directory is a
scratch folder with the repository's data folders linked in (the pages speak from the
repository's folder: ``results/models/...``), so what a block writes stays out of the
repository. Every ``camelup`` command a page shows (its shell blocks, its inline code, the
tutorials' text) names a subcommand that exists and only options that subcommand has, and a
command of a shell block parses, without running. A ``console`` block that shows a ``camelup``
command with its output is run, and must print that output.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_examples import (
    PAGES,
    ROOT,
    TUTORIALS,
    blocks,
    console_outputs,
    inline_commands,
    python_blocks,
    shell_commands,
    shown,
)

from camelup_cli.main import SUBCOMMANDS, parser_for

#: The Python blocks that are not run, by page, each marked ``<!-- no-run: reason -->`` on its
#: page. Kept short: a block that can be made to run is made to run.
NOT_RUN: dict[str, int] = {}

#: Folders of the repository that the pages' examples read, linked into their scratch folder.
DATA_FOLDERS = ("results", "configs", "examples")


def _scratch_env(folder: Path) -> dict[str, str]:
    """``folder`` made a scratch copy of the repository's folder (its data folders linked in),
    and the environment a page's examples run in."""
    for name in DATA_FOLDERS:
        (folder / name).symlink_to(ROOT / name)
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "Agg",
        # one torch thread: the tests run on as many workers as cores, and torch's threads,
        # one per core, then wait on each other many times over (a block's 6 s become 20)
        "OMP_NUM_THREADS": "1",
        "COLUMNS": "80",  # the width of the tables the pages show
    }


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)], ids=shown)
def test_the_python_blocks_of_a_page_run(page: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("doc_examples.py")), str(page)],
        cwd=tmp_path,
        env=_scratch_env(tmp_path),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.parametrize(
    "words,output",
    [pytest.param(words, out, id=where) for p in PAGES for where, words, out in console_outputs(p)],
)
def test_a_command_prints_what_its_page_shows(words, output, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "camelup_cli", *words[1:]],
        cwd=tmp_path,
        env=_scratch_env(tmp_path),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    printed = [line.rstrip() for line in done.stdout.splitlines()]
    assert printed == [line.rstrip() for line in output.splitlines()], done.stdout


def test_only_the_listed_blocks_are_not_run() -> None:
    marked: dict[str, int] = {}
    for page in PAGES:
        for block in python_blocks(page):
            if block.no_run is not None:
                assert block.no_run, f"{block.name}: a no-run marker without its reason"
                marked[shown(page)] = marked.get(shown(page), 0) + 1
    assert marked == NOT_RUN
    assert sum(len(python_blocks(p)) for p in PAGES) > 15  # the reader found the blocks


def _options(words: list[str]) -> set[str]:
    """The option strings of the subcommand ``words[0]`` (with the trainer ``words`` pick),
    or of its action ``words[1]`` where it has actions of its own (``camelup ladder init``)."""
    parser = parser_for(words)
    for word in words:
        found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not found or word not in found[0].choices:
            break
        parser = found[0].choices[word]
    return set(parser._option_string_actions)


def _placeholders_filled(words: list[str]) -> list[str]:
    """``words`` with a synopsis's brackets dropped (``[--seat N]``) and each placeholder in
    capitals (``OUT``, ``N``, ``HEAD_IP:6379``) given a value that parses as a path, a number
    or a name."""
    words = [w.strip("[]") for w in words]
    return ["1" if re.fullmatch(r"[A-Z][A-Z0-9_]*(:[0-9]+)?", w) else w for w in words]


def _problems(words: list[str], parse: bool) -> list[str]:
    if re.fullmatch(r"[A-Z]+", words[0]):  # `camelup COMMAND --help`: any subcommand
        return []
    if words[0] not in SUBCOMMANDS:
        return [f"no subcommand {words[0]!r}"]
    known = _options(words)
    flags = [w.split("=")[0] for w in words if w.startswith("--")]
    problems = [f"{words[0]} has no option {f}" for f in flags if f.strip("[]") not in known]
    if parse and not problems:
        filled = _placeholders_filled(words)
        try:
            parser_for(filled).parse_args(filled)
        except SystemExit as exit:  # --help exits 0; a parse error 2, with its message
            if exit.code != 0:
                problems.append(f"does not parse (exit {exit.code}): {filled}")
    return problems


@pytest.mark.parametrize("page", [*PAGES, *TUTORIALS], ids=shown)
def test_the_camelup_commands_of_a_page_exist_and_parse(page: Path, capsys) -> None:
    shell = shell_commands(page) if page.suffix == ".md" else []
    problems = [
        f"{where}: {problem}"
        for commands, parse in ((shell, True), (inline_commands(page), False))
        for where, words in commands
        if words[0] == "camelup"
        for problem in _problems(words[1:], parse)
    ]
    assert not problems, "\n".join(problems) + "\n" + capsys.readouterr().err


@pytest.mark.parametrize("page", PAGES, ids=shown)
def test_the_python_scripts_a_page_runs_exist(page: Path) -> None:
    """``python path/to/script.py ...`` names a file of the repository, ``python -m module`` an
    importable module (their options are not checked: not every script parses its
    arguments with a --help)."""
    missing = []
    for where, words in shell_commands(page):
        if words[0] == "camelup":
            continue
        if words[1] == "-m":
            if importlib.util.find_spec(words[2]) is None:
                missing.append(f"{where}: no module {words[2]}")
        elif not (ROOT / words[1]).is_file():
            missing.append(f"{where}: no file {words[1]}")
    assert not missing, "\n".join(missing)


PAGE = """Text with `camelup tournament --agents a,b
--games 20` wrapped, and `camelup train: error: a message`.

<!-- no-run: needs a trained model -->
```python
print("not run")
```

!!! note
    ```json
    {"indented": true}
    ```

```console
$ camelup odds --track "1:blue" \\
    --dice-left blue  # a comment
camelup odds: an output line
$ python -m training.odds.win_model --help
```
"""


def test_the_reader_finds_blocks_markers_and_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    found = blocks(page)
    assert [(b.language, b.line) for b in found] == [("python", 6), ("json", 11), ("console", 15)]
    assert found[0].no_run == "needs a trained model" and found[2].no_run is None
    assert found[1].code == '{"indented": true}'
    assert [w for _, w in shell_commands(page)] == [
        ["camelup", "odds", "--track", "1:blue", "--dice-left", "blue"],
        ["python", "-m", "training.odds.win_model", "--help"],
    ]
    assert [w for _, w in inline_commands(page)] == [
        ["camelup", "tournament", "--agents", "a,b", "--games", "20"]
    ]
    assert [(w, out.strip()) for _, w, out in console_outputs(page)] == [
        (
            ["camelup", "odds", "--track", "1:blue", "--dice-left", "blue"],
            "camelup odds: an output line",
        )
    ]


def test_the_reader_finds_the_pages_commands() -> None:
    shell = [c for p in PAGES for c in shell_commands(p)]
    inline = [c for p in PAGES for c in inline_commands(p)]
    assert len([c for c in shell if c[1][0] == "camelup"]) > 30 and len(inline) > 40
    assert len([c for c in shell if c[1][0] != "camelup"]) > 15
    assert {words[1] for _, words in shell + inline if words[0] == "camelup"} >= set(SUBCOMMANDS)
    assert [c for p in TUTORIALS for c in inline_commands(p)]
