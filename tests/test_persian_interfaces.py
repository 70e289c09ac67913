"""The Persian tutorial's preset (docs/rules.md R14) under every interface the other presets have:
camelup_v1 (PettingZoo's api_test and seed_test), its observation slices, greedy's values of
its new actions, the scripted bots, ``camelup play``, the position notation, and state
documents written before it existed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from engine_positions import position
from pettingzoo.test import api_test, seed_test
from test_play import play

import agents
from camelup_env import (
    GameState,
    PositionError,
    RuleSet,
    action_table,
    legal_action_indices,
    new_game,
    parse_position,
)
from camelup_env.camelup_v1 import env as make_env
from camelup_env.game.actions import WandererSwap
from camelup_env.match import play_game
from camelup_env.observation import Observer
from camelup_env.odds.action_values import action_values
from tournament.config import tournament_config
from tournament.evaluate import evaluate
from tournament.records import read_games
from tournament.run import run_tournament

RED, YELLOW, BLUE, GREEN, ORANGE = range(5)
PERSIAN = "persian_tutorial"
BOTS = ["random", "heuristic", "greedy", "lookahead", "expert"]


def test_R14_camelup_v1_passes_pettingzoos_api_and_seed_tests() -> None:
    api_test(make_env(preset=PERSIAN, num_players=3), num_cycles=200)
    seed_test(lambda: make_env(preset=PERSIAN, num_players=2, odds_features=False), num_cycles=50)


def test_R14_observation_slices_decode_to_the_state() -> None:
    rules = RuleSet(PERSIAN, num_players=3)
    s = position(
        rules=rules,
        stacks={3: (RED, YELLOW), 2: (BLUE, GREEN, ORANGE)},
        wanderer=4,
        loser_cards=((2, GREEN, 1), (0, RED, 1)),
    )
    obs = Observer(rules, odds_features=False, action_values=False)
    vec = obs.observe(s, 1)
    assert obs.view(vec, "wanderer").argmax() == 3  # space 4
    cards = obs.view(vec, "loser_cards")  # relative seats: 0 = seat 1, 1 = seat 2, 2 = seat 0
    assert cards[1, GREEN] == 1 / 5 and cards[2, RED] == 1 / 5 and cards.sum() == 2 / 5
    assert list(obs.view(vec, "loser_card_value")) == [0, 2 / 5, 2 / 5, 0, 2 / 5]
    assert obs.size == obs.low.size and np.all(vec >= obs.low) and np.all(vec <= obs.high)


def test_R14_4_greedy_values_loser_cards_and_the_wanderer_from_the_exact_leg_odds() -> None:
    # only the red die is left: it ends the leg, [red, blue] 3 -> 4 passing the wanderer
    s = position(
        PERSIAN,
        stacks={3: (RED, BLUE), 2: (GREEN, ORANGE), 1: (YELLOW,)},
        wanderer=3,
        pyramid=(RED,),
        pyramid_tiles_left=1,
        leg_bets=(((RED, 5),), (), (), ()),
        leg_stacks=((), (3,), (3,), (3,), (3,)),
    )
    table = action_table(s.rules)
    values = action_values(s, 0)
    assert values[table.loser_index(YELLOW)] == 1.0  # yellow stays last: the card pays 1
    assert values[table.loser_index(RED)] == -1.0
    assert values[table.pyramid] == 0.0  # R14.2: a roll earns nothing
    # R14.6: with red swapped above blue, red's die moves red alone: P0's red card pays 5, not 1
    swap = table.index[WandererSwap(RED, BLUE)]
    assert swap in legal_action_indices(s) and values[swap] == 4.0


def test_R14_camelup_play_runs_a_whole_game() -> None:
    script = "h\nb\no\n" + "6\n" * 600  # move 6 is "draw and roll a die" every turn
    done = play(script, "--preset", PERSIAN, "--seed", "2", "--opponents", "greedy,heuristic")
    assert done.returncode == 0, done.stderr
    assert "6. draw and roll a die" in done.stdout and "Final scoreboard" in done.stdout
    assert "desert wanderer" in done.stdout and "Traceback" not in done.stdout + done.stderr


def test_R14_state_documents_from_before_the_preset_still_read() -> None:
    old = new_game(RuleSet("classic"), seed=1)
    doc = json.loads(old.to_json())
    assert "wanderer" not in doc and "loser_cards" not in doc  # as written before the preset
    assert GameState.from_dict(doc) == old
    persian = new_game(RuleSet(PERSIAN), seed=1)
    assert GameState.from_json(persian.to_json()) == persian


def test_R14_5_positions_in_the_notation_name_the_wanderer() -> None:
    s = parse_position(PERSIAN, "1:red,yellow;2:blue;3:green,orange", "red,blue,green", wanderer=4)
    assert s.wanderer == 4 and s.pyramid_tiles_left == 3 and s.leg_stacks == ((5,),) * 5
    assert parse_position(PERSIAN, "1:red,yellow,blue;3:green,orange").wanderer == 3
    with pytest.raises(PositionError, match=r"no camel is beyond it \(R14.1, R14.5\)"):
        parse_position(PERSIAN, "1:red,yellow,blue;3:green,orange", wanderer=2)
    with pytest.raises(PositionError, match=r"no desert wanderer \(R14.1\)"):
        parse_position("classic", "1:blue,green,orange,yellow,white", wanderer=2)


def test_R14_the_scripted_bots_play_legal_games() -> None:
    """random, heuristic, greedy, lookahead and expert through the tournament's game loop; an
    illegal move raises (``catch=False``)."""
    for n, names in ((2, ["greedy", "expert"]), (5, BOTS)):
        seats = [agents.make(names[i % len(names)]) for i in range(n)]
        for i, bot in enumerate(seats):
            bot.reset(seed=i)
        result = play_game(RuleSet(PERSIAN, num_players=n), seats, seed=3, catch=False)
        assert result.forfeit is None and not result.truncated


def test_R14_7_heuristic_plays_no_tile_move_into_another_block() -> None:
    """With no track tiles the heuristic's "tile in front" rule is skipped: its moves are winner
    cards, rolls and race bets only (docs/agents.md), never an index of another block."""
    rules = RuleSet(PERSIAN, num_players=2)
    kinds = [type(a).__name__ for a in action_table(rules).actions]
    seen: set[str] = set()
    for seed in range(3):
        seats = [agents.make("heuristic"), agents.make("random")]
        play_game(
            rules,
            seats,
            seed=seed,
            catch=False,
            on_step=lambda _s, seat, action, _e: seat == 0 and seen.add(kinds[action]),
        )
    assert seen <= {"TakeLegBet", "TakePyramidTile", "RaceBet"} and "TakePyramidTile" in seen


def test_R14_a_tiny_tournament_and_an_evaluation_run(tmp_path: Path) -> None:
    """``camelup tournament`` (a config with ``preset: persian_tutorial``) and ``camelup
    evaluate``: the same referee and bot processes as for every preset."""
    cfg = tournament_config(
        None,
        {
            "agents": ["random", "heuristic", "greedy"],
            "preset": PERSIAN,
            "players": 3,
            "games": 6,
            "seating": "rotations",
            "name": "pt",
            "move_timeout": 10.0,
            "workers": 1,
        },
    )
    run_tournament(cfg, tmp_path, progress=False)
    records = read_games(tmp_path / "games.jsonl")
    assert len(records) == 6
    assert all(r["forfeit"] is None and not r["truncated"] for r in records)
    result = evaluate("greedy", "random", RuleSet(PERSIAN, num_players=2), games=2, workers=1)
    assert result.games == 2 and result.forfeits == 0 and result.preset == PERSIAN
