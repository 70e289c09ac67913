"""The tutorials as notebooks: execute a jupytext script, render an executed notebook to Markdown.

The ``tutorials/NN_name.py`` "percent" scripts are the source of truth (plain Python, readable
diffs). ``tests/test_tutorials.py`` executes each with :func:`execute` and saves the result to
``build/tutorials/NN_name.ipynb``; the site (``docs/hooks.py``) renders those executed notebooks
with :func:`to_markdown`, so the pages show the outputs and plots of the last test run.

``python -m tutorials.notebooks`` executes every tutorial and writes the notebooks.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Where executed notebooks go (gitignored: ``build/``).
OUT_DIR = ROOT / "build" / "tutorials"
#: Seconds one cell may run before the execution fails.
CELL_TIMEOUT = 300


def scripts() -> list[Path]:
    """The tutorial scripts, in reading order (their ``NN_`` prefix)."""
    return sorted(p for p in HERE.glob("[0-9][0-9]_*.py"))


def execute(script: Path, quick: bool = True):
    """``script`` read by jupytext and run by nbclient in the project root (an executed
    ``nbformat`` notebook). ``quick`` sets ``CAMELUP_TUTORIAL_QUICK=1`` for the kernel, which the
    tutorials read to shrink their budgets for CI."""
    import jupytext
    from nbclient import NotebookClient

    nb = jupytext.read(script)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    env = {
        **os.environ,
        "CAMELUP_TUTORIAL_QUICK": "1" if quick else "0",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute(env=env)  # keyword arguments go to the kernel's start
    return nb


def save(nb, script: Path) -> Path:
    """Write the executed notebook of ``script`` to :data:`OUT_DIR`."""
    import nbformat

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{script.stem}.ipynb"
    nbformat.write(nb, path)
    return path


def _output_text(output) -> str | None:
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return "\n".join(output.traceback)
    data = output.get("data", {})
    if "image/png" in data:
        return None
    return data.get("text/plain")


def to_markdown(nb, stem: str) -> tuple[str, dict[str, bytes]]:
    """A Markdown page of ``nb`` and its pictures ``{site path: PNG bytes}``; pictures live in
    ``tutorials/img/`` next to the page ``tutorials/<stem>.md``."""
    parts: list[str] = []
    images: dict[str, bytes] = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        parts.append(f"```python\n{cell.source}\n```")
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                name = f"img/{stem}-{len(images)}.png"
                images[f"tutorials/{name}"] = base64.b64decode(png)
                parts.append(f"![output]({name})")
                continue
            text = _output_text(output)
            if text and text.strip():
                parts.append("```text\n" + text.rstrip("\n") + "\n```")
    return "\n\n".join(parts) + "\n", images


def site_pages() -> dict[str, bytes | str]:
    """Every tutorial page for the site: the executed notebook when the tests have written one,
    else the script's cells without outputs and a note saying how to get them."""
    import jupytext
    import nbformat

    files: dict[str, bytes | str] = {}
    for script in scripts():
        executed = OUT_DIR / f"{script.stem}.ipynb"
        if executed.exists() and executed.stat().st_mtime >= script.stat().st_mtime:
            page, images = to_markdown(nbformat.read(executed, as_version=4), script.stem)
        else:
            page, images = to_markdown(jupytext.read(script), script.stem)
            page += (
                "\n!!! note\n    Outputs appear here once the tutorial has been executed "
                "(`make test`, or `python -m tutorials.notebooks`).\n"
            )
        page += f"\n*Source: `tutorials/{script.name}`.*\n"
        files[f"tutorials/{script.stem}.md"] = page
        files.update(images)
    return files


if __name__ == "__main__":
    quick = os.environ.get("CAMELUP_TUTORIAL_QUICK", "0") == "1"
    for script in scripts() if len(sys.argv) < 2 else [Path(a) for a in sys.argv[1:]]:
        start = time.perf_counter()
        path = save(execute(script, quick=quick), script)
        print(f"{path}  {time.perf_counter() - start:.1f} s")
