"""Fuzz: 2,000 random full classic games (2-8 players) finish without error (R5.4, R5.6, R7).

Kept in its own file so that `pytest -n 2 --dist loadfile` runs it beside the other tests.
"""

from __future__ import annotations

import pytest
from engine_positions import fuzz_games


@pytest.mark.parametrize("chunk", range(4))
def test_fuzz_classic_random_games_finish(chunk: int) -> None:
    assert fuzz_games("classic", first_seed=chunk * 500, games=500) > 500 * 20
