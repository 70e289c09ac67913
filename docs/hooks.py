"""MkDocs hook: the pages and pictures made from the project itself, at every build.

``mkdocs build`` (and ``make docs``) calls :func:`on_files`, which adds, without writing into
``docs/``:

* ``img/board.png``: a classic position drawn by the project's own renderer
  (``camelup_env.render.image``);
* ``img/observation.png``: the observation vector that position becomes for seat 0, slice by
  slice, each labelled with its name, shape and place in the vector (matplotlib);
* ``results.md``: the shipped agents and tournaments, read from ``results/`` (each tournament's
  ``summary.md`` and command, each model's ``evaluation.md``), so the page cannot drift from the
  files it describes;
* ``tutorials/*.md``: the tutorials with the outputs of their last execution
  (``tutorials.notebooks.site_pages``).

and :func:`on_page_markdown` puts the observation's slice table, rendered from
``camelup_env.observation.SLICES``, where a page says ``<!-- observation slices -->``.

``python docs/hooks.py OUT_DIR`` writes the same files to ``OUT_DIR`` to look at;
``python docs/hooks.py --readme`` refreshes the README's committed copy of the board picture.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the hook is loaded by path; the project is imported from here
    sys.path.insert(0, str(ROOT))

#: The figure's position: a few opening moves of a 2-player classic game (seed 7).
FIGURE_SEED = 7
FIGURE_PLAYERS = 2


def figure_state():
    """The position both figures show (deterministic)."""
    import numpy as np

    from camelup_env import (
        PlaceTile,
        RaceBet,
        RuleSet,
        TakeLegBet,
        TakePyramidTile,
        apply_action,
        new_game,
    )

    rng = np.random.default_rng(FIGURE_SEED)
    state = new_game(RuleSet("classic", num_players=FIGURE_PLAYERS), seed=FIGURE_SEED)
    for action in (
        TakeLegBet(0),
        PlaceTile(6, 1),
        TakePyramidTile(),
        RaceBet(0, 1),
        TakePyramidTile(),
        TakeLegBet(3),
    ):
        state, _ = apply_action(state, action, rng)
    return state


def board_png(state) -> bytes:
    """``render_image`` of ``state`` as seen by seat 0, as PNG bytes."""
    from PIL import Image

    from camelup_env.render.image import render_image

    out = io.BytesIO()
    Image.fromarray(render_image(state, viewer=0)).save(out, format="PNG")
    return out.getvalue()


def observation_png(state) -> bytes:
    """Seat 0's observation vector of ``state``, one labelled panel per slice, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from camelup_env.observation import Observer

    observer = Observer(state.rules, odds_features=False)
    obs = observer.observe(state, 0)
    names = list(observer.layout)
    cols = 3
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(13, 1.7 * rows), constrained_layout=True)
    for ax, name in zip(axes.flat, names, strict=False):
        a, b = observer.layout[name]
        part = observer.view(obs, name)
        grid = np.atleast_2d(part) if part.ndim < 2 else part.reshape(part.shape[0], -1)
        ax.imshow(
            grid,
            cmap="YlOrBr",
            vmin=min(0.0, float(grid.min())),
            vmax=max(1.0, float(grid.max())),
            aspect="auto",
            interpolation="nearest",
        )
        shape = "×".join(map(str, observer.shapes[name]))
        ax.set_title(f"{name}  ({shape})  [{a}:{b}]", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        rows_are = _row_labels(state.rules, part.shape[0] if part.ndim > 1 else 1)
        if part.ndim > 1 and rows_are:
            ax.set_yticks(range(len(rows_are)), rows_are, fontsize=7)
        elif part.ndim == 1 and len(part) <= 16:  # one row: label the entries instead
            labels = _row_labels(state.rules, len(part)) or [str(i) for i in range(len(part))]
            ax.set_xticks(range(len(part)), labels, fontsize=7)
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    fig.suptitle(
        f"observation of seat 0: {observer.size} numbers (odds_features=False; darker = larger)",
        fontsize=11,
    )
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=80)
    plt.close(fig)
    return out.getvalue()


def _row_labels(rules, count: int) -> list[str]:
    """Names for ``count`` rows: camels (racing first) or relative seats, when they fit."""
    if count == rules.n_camels or count == rules.n_racing:
        return list(rules.colours[:count])
    if count == rules.num_players:
        return ["me"] + [f"me+{k}" for k in range(1, count)]
    return []


def _demoted(text: str, levels: int = 1) -> str:
    """Markdown with every heading pushed ``levels`` down and its first H1 line removed."""
    lines = text.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    out, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" * levels + line if line.startswith("#") and not fenced else line)
    return "\n".join(out).strip()


def _title(readme: Path, fallback: str) -> str:
    """The first heading of a results README (its one-line description)."""
    if readme.exists():
        first = readme.read_text().strip().splitlines()[0]
        if first.startswith("# "):
            return first[2:].strip()
    return fallback


def results_page() -> tuple[str, dict[str, bytes]]:
    """The results page, built from the files in ``results/``, and the images it shows."""
    results = ROOT / "results"
    images: dict[str, bytes] = {}
    parts = [
        "# Results",
        "",
        "Everything below is read from `results/` when the site is built: the shipped agents",
        "with their training story and final evaluations, and every tournament's summary with the",
        "command that made it (run a command again with `--out results/tournaments/NAME` to",
        "check its table: a finished tournament finds every game done and rewrites the summary;",
        "without `--out` a tournament writes under `runs/`). How tournaments are scheduled and",
        "scored is on the [tournaments](tournaments.md) page; the agents are described on the",
        "[agents](agents.md) page, and how the agents were trained on the",
        "[training](training.md) page.",
        "",
        "## Shipped agents",
        "",
        _demoted((results / "models" / "README.md").read_text(), 1),
        "",
    ]
    for model in sorted(p for p in (results / "models").iterdir() if p.is_dir()):
        curve = model / "learning_curve.png"
        if curve.exists():
            uri = f"img/results/{model.name}_learning_curve.png"
            images[uri] = curve.read_bytes()
            parts += [f"### Learning curve of `{model.name}`", "", f"![{model.name}]({uri})", ""]
    parts += ["## Tournaments", ""]
    for tour in sorted(p for p in (results / "tournaments").iterdir() if p.is_dir()):
        summary = tour / "summary.md"
        if not summary.exists():
            continue
        title = _title(tour / "README.md", tour.name)
        parts += [
            f"### {title}",
            "",
            f"Files: `results/tournaments/{tour.name}/`.",
            "",
            _demoted(summary.read_text(), 3),
            "",
        ]
    return "\n".join(parts) + "\n", images


def generated() -> dict[str, bytes | str]:
    """Every generated file, by its path in the site."""
    state = figure_state()
    page, images = results_page()
    from tutorials.notebooks import site_pages

    return {
        "img/board.png": board_png(state),
        "img/observation.png": observation_png(state),
        "results.md": page,
        **images,
        **site_pages(),
    }


def on_files(files, config):  # the MkDocs hook
    from mkdocs.structure.files import File

    for uri, content in generated().items():
        files.append(File.generated(config, uri, content=content))
    return files


#: Where a page gets the observation's slice table.
SLICE_TABLE_MARKER = "<!-- observation slices -->"


def on_page_markdown(markdown, page, config, files):  # the MkDocs hook
    if SLICE_TABLE_MARKER not in markdown:
        return markdown
    from camelup_env.observation import markdown_table

    return markdown.replace(SLICE_TABLE_MARKER, markdown_table())


#: The README's picture: the same board, committed (the README is read outside the site).
README_PICTURE = ROOT / "docs" / "img" / "readme-board.png"

if __name__ == "__main__":
    if sys.argv[1:] == ["--readme"]:
        README_PICTURE.parent.mkdir(parents=True, exist_ok=True)
        README_PICTURE.write_bytes(board_png(figure_state()))
        print(README_PICTURE)
        raise SystemExit(0)
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "site-preview")
    for uri, content in generated().items():
        path = out_dir / uri
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        print(path)
