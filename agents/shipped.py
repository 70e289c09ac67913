"""The trained agents every install ships, by name: ``ppo:classic4`` plays ``models/classic4.zip``,
``afterstate:afterstate_classic4`` the value file ``models/afterstate_classic4.npz``.

The model files live in this package (``agents/models/``, package data), so a project installed
from a wheel plays them as well as a clone of the repository does, from any folder. A spec of
a model-file prefix (``ppo:``, ``search:``, ``rollout:``) whose rest is one of :func:`names`
plays that file; any other rest is a path, as before. Each file's training record (config,
learning curve, evaluations) stays in the repository's ``results/models/<name>/``: that is
the run's history, this is the artifact.

A name is a file's stem: it holds no ``/`` and no suffix, so the only path it can shadow is a
file of that bare name in the current folder (model files end in ``.zip``). An old spec of the
repository's former layout (``results/models/classic4/model.zip``) is recognised and answered
with its name (:func:`missing_hint`).
"""

from __future__ import annotations

import re
from pathlib import Path

#: The folder of the shipped model files (package data of ``agents``).
MODELS = Path(__file__).resolve().parent / "models"
#: Where the shipped files were before they became package data (CHANGELOG.md, 0.2.0).
_FORMER = re.compile(r"(?:^|/)results/models/(?:distilled/)?(\w+)/model\.zip$")


def names() -> list[str]:
    """The names of the shipped model files, sorted (``classic4``, ``greedy_classic4``...)."""
    return sorted(path.stem for path in MODELS.glob("*.zip"))


def model_path(rest: str) -> Path:
    """The model file a model-file spec's ``rest`` names: the shipped file of that name, else
    the path ``rest`` itself."""
    shipped = MODELS / f"{rest}.zip"
    return shipped if rest in names() else Path(rest)


def value_names() -> list[str]:
    """The names of the shipped afterstate value files (:mod:`agents.afterstate_network`),
    sorted."""
    return sorted(path.stem for path in MODELS.glob("*.npz"))


def value_path(rest: str) -> Path:
    """The value file an ``afterstate:`` spec's ``rest`` names: the shipped file of that name,
    else the path ``rest`` itself."""
    shipped = MODELS / f"{rest}.npz"
    return shipped if rest in value_names() else Path(rest)


def missing_hint(rest: str) -> str:
    """What to add to "model file not found: REST": the name of a shipped file that ``rest``
    names at its former place, or the shipped names for a bare word that is none of them;
    ``""`` for any other path."""
    match = _FORMER.search(rest.replace("\\", "/"))
    if match is not None and match.group(1) in names():
        return (
            "; the shipped model files moved into the package in camelup 0.2.0: name it "
            f"{match.group(1)!r}, as in ppo:{match.group(1)} (CHANGELOG.md)"
        )
    if "/" not in rest and "." not in rest:
        return f"; nor a shipped model's name ({', '.join(names())})"
    return ""
