"""Shared pytest configuration for the camelup test suite."""

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runs folder holding one real tournament, ``demo``: 2 games of random against
    heuristic, 2 players (the web app's Watch reads it)."""
    from tournament.config import tournament_config
    from tournament.run import run_tournament

    root = tmp_path_factory.mktemp("runs")
    config = tournament_config(
        None,
        {"agents": ["random", "heuristic"], "players": 2, "games": 2, "workers": 1, "name": "demo"},
    )
    run_tournament(config, root / "demo", progress=False)
    return root
