"""``camelup compare``: the paired difference of two evaluations played on the same games."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from camelup_cli.main import main
from tournament.compare import CompareError, compare, read_evaluation_games
from tournament.ratings import mean_ci

HEADER = ["opponent", "game", "seed", "seat", "win_share", "coins", "opponent_coins", "forfeit"]


def write(
    folder: Path, shares: list[float], seeds: list[int] | None = None, opponent: str = "greedy"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    seeds = seeds or [g // 2 for g in range(len(shares))]
    with open(folder / "games.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        for g, share in enumerate(shares):
            writer.writerow([opponent, g, seeds[g], g % 2, share, 10, 10, False])
    return folder


def test_the_difference_is_paired_game_by_game_and_clustered_by_seed(tmp_path):
    a = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.5]
    b = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5]  # the same luck, two games better for A
    (row,) = compare(
        read_evaluation_games(write(tmp_path / "a", a)),
        read_evaluation_games(write(tmp_path / "b", b)),
    )
    assert (row.opponent, row.games) == ("greedy", 8)
    assert row.share_a == pytest.approx(4.5 / 8) and row.share_b == pytest.approx(2.5 / 8)
    expected = mean_ci([x - y for x, y in zip(a, b, strict=True)], [g // 2 for g in range(8)])
    assert (row.difference, row.half_width) == pytest.approx(expected)
    # the common luck drops out: the paired interval is narrower than either share's own
    assert row.half_width < mean_ci(a, [g // 2 for g in range(8)])[1]


def test_a_shorter_evaluation_is_compared_on_the_games_both_played(tmp_path, capsys):
    a = read_evaluation_games(write(tmp_path / "a", [1.0, 0.0, 0.0, 1.0]))
    (row,) = compare(a, read_evaluation_games(write(tmp_path / "short", [0.0, 0.0])))
    assert row.games == 2 and row.share_a == 0.5 and row.difference == pytest.approx(0.5)
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "short")]) == 0
    assert "compared on the 2 games both played (A played 4, B 2)" in capsys.readouterr().out


def test_evaluations_of_other_games_are_refused(tmp_path):
    a = read_evaluation_games(write(tmp_path / "a", [1.0, 0.0, 0.0, 1.0]))
    other = read_evaluation_games(write(tmp_path / "other", [1.0], opponent="expert"))
    with pytest.raises(CompareError, match="share no game"):
        compare(a, other)
    with pytest.raises(CompareError, match="same --seed"):
        seeded = write(tmp_path / "seeded", [1.0, 0.0, 0.0, 1.0], [5, 5, 6, 6])
        compare(a, read_evaluation_games(seeded))


def test_the_command_prints_the_difference_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    a = write(tmp_path / "a", [1.0, 0.0, 1.0, 0.0])
    b = write(tmp_path / "b", [0.0, 0.0, 1.0, 0.0])
    assert main(["compare", str(a), str(b / "games.csv")]) == 0
    assert "A - B +0.250" in capsys.readouterr().out
    (tmp_path / "junk.csv").write_text("x,y\n1,2\n")
    for bad, message in (
        (tmp_path / "nope", "cannot read"),
        (tmp_path / "junk.csv", "not an evaluation's games.csv"),
    ):
        assert main(["compare", str(a), str(bad)]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


def test_luck_adjusted_shares_are_compared_when_both_have_them(tmp_path, capsys):
    """The adjusted column (docs/luck.md) gets its own paired difference; a file without it
    (an evaluation from before, or of the batch core) leaves the adjusted figure out."""
    a, b = [1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]
    adj_a, adj_b = [0.7, 0.1, 0.6, 0.2], [0.3, 0.2, 0.5, 0.1]
    for name, shares, adjusted in (("a", a, adj_a), ("b", b, adj_b)):
        folder = tmp_path / name
        folder.mkdir()
        with open(folder / "games.csv", "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow([*HEADER, "win_share_adjusted"])
            for g, share in enumerate(shares):
                writer.writerow(["greedy", g, g // 2, g % 2, share, 10, 10, False, adjusted[g]])
    (row,) = compare(read_evaluation_games(tmp_path / "a"), read_evaluation_games(tmp_path / "b"))
    expected = mean_ci([x - y for x, y in zip(adj_a, adj_b, strict=True)], [0, 0, 1, 1])
    assert (row.adjusted_difference, row.adjusted_half_width) == pytest.approx(expected)
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert "luck-adjusted A - B +0.125" in capsys.readouterr().out
    (row,) = compare(
        read_evaluation_games(tmp_path / "a"),
        read_evaluation_games(write(tmp_path / "old", b)),
    )
    assert row.adjusted_difference != row.adjusted_difference  # nan: not measured
