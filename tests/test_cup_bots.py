"""Camel Up Cup bots in this project's tournaments (docs/rules.md C12, C13; docs/cup.md): the
Cup's interface through ``cup:PATH.py[:Class]``, each bot in its own sandboxed process.

The bots under ``tests/cup_bots/`` are small Cup-interface bots written for these tests.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agents
from agents.cup_compat import CupView, check_bet, cup_action, our_action
from camelup_env import RuleSet, apply_action, legal_action_indices, legal_actions, new_game
from camelup_env.game.actions import PlaceTile, RaceBet, TakeLegBet, TakePyramidTile, action_table
from camelup_env.observation import public_view
from tournament.bots import BotProcess
from tournament.config import AgentEntry, TournamentError, tournament_config
from tournament.records import read_games
from tournament.referee import play_match
from tournament.run import run_tournament

BOTS = Path(__file__).resolve().parent / "cup_bots"
CUP = RuleSet("cup")
ROLL = action_table(CUP).pyramid


def spec(file: str, cls: str | None = None) -> str:
    return f"cup:{BOTS / file}" + (f":{cls}" if cls else "")


def match(specs: list[str], seeds=(0, 1), move_timeout: float = 10.0):
    """Play the games ``seeds`` of ``specs`` (one bot process each) through the referee."""
    limits = tournament_config(
        None,
        {
            "agents": ["random"],
            "players": 4,
            "preset": "cup",
            "move_timeout": move_timeout,
            "load_timeout": 60.0,
        },
    ).limits()
    bots = [BotProcess(AgentEntry(s, s), limits) for s in specs]
    try:
        return [play_match(CUP, bots, seed, [seed * 64 + i for i in range(4)]) for seed in seeds]
    finally:
        for bot in bots:
            bot.close()


def test_C12_cup_bots_play_whole_games_in_their_own_processes() -> None:
    for m in match([spec("leader_bettor.py"), "greedy", spec("peeker.py"), "random"]):
        r = m.result
        assert r.forfeit is None and not r.truncated and m.fallbacks == [0, 0, 0, 0]
        assert any(a != ROLL for a in m.actions[0::4])  # the bettor did bet, not only roll


def test_C12_an_invalid_action_or_an_exception_rolls_and_is_counted() -> None:
    for m in match(
        [spec("faulty.py", "Invalid"), "greedy", spec("faulty.py", "Crasher"), "expert"]
    ):
        r = m.result
        assert r.forfeit is None and not r.truncated
        own = [m.actions[0::4], m.actions[2::4]]
        assert all(a == ROLL for moves in own for a in moves)
        assert m.fallbacks == [len(own[0]), 0, len(own[1]), 0]


def test_C12_a_bot_that_hangs_forfeits() -> None:
    (m,) = match([spec("sleeper.py"), "random", "random", "random"], seeds=(0,), move_timeout=1.0)
    assert m.result.forfeit["seat"] == 0 and "timeout" in m.result.forfeit["reason"]


def test_C13_a_cup_bot_never_sees_other_players_game_bets() -> None:
    # Peeker raises (a counted fallback) if it sees another seat's game-bet camel, or if its
    # own hashed bets do not decode; expert and the other Peeker place game bets too.
    for m in match([spec("peeker.py"), "expert", spec("peeker.py"), "expert"], seeds=(2,)):
        r = m.result
        table = action_table(CUP).actions
        bets = [
            seat
            for i, a in enumerate(m.actions)
            if isinstance(table[a], RaceBet)
            for seat in (i % 4,)
        ]
        assert {0, 2} <= set(bets) and {1, 3} & set(bets)
        assert r.forfeit is None and m.fallbacks == [0, 0, 0, 0]


def test_C13_the_view_is_the_cups_player_view_with_round_bets_in_the_order_made() -> None:
    """Oracle: the bets of random games as they were made, against every seat's rebuilt view."""
    rng = np.random.default_rng(7)
    for seed in range(4):
        state = new_game(CUP, seed=seed)
        views = [CupView(seat) for seat in range(4)]
        made: list[list[int]] = []  # round bets of this leg, in the order made
        cards: list[list[tuple[int, int]]] = [[], [], [], []]  # own game bets, in order
        while not state.game_over:
            seat = state.current
            view = public_view(state, seat)
            views[seat].update(view)
            g = views[seat].game_state(view)
            assert g.round_bets == made
            assert g.player_money_values == list(state.coins)
            for space, stack in state.stacks.items():
                assert g.camel_track[space - 1] == list(stack)
            assert g.player_has_placed_trap == [state.tile_of(p) is not None for p in range(4)]
            for entry_list, pile in ((g.game_winner_bets, 0), (g.game_loser_bets, 1)):
                truth = state.winner_pile if pile == 0 else state.loser_pile
                assert [owner for _, owner in entry_list] == [o for o, _ in truth]
                for (hashed, owner), (_, camel) in zip(entry_list, truth, strict=True):
                    assert (hashed is None) == (owner != seat)
                    assert owner != seat or check_bet(hashed, str(camel))
            for other in range(4):
                shown = g.player_game_bets[other]
                if other != seat:
                    assert shown == [None] * len(cards[other])
            assert [
                c for h in g.player_game_bets[seat] for c in range(5) if check_bet(h, str(c))
            ] == [c for _, c in cards[seat]]
            legal = legal_action_indices(state)
            index = legal[rng.integers(len(legal))]
            action = action_table(CUP).actions[index]
            leg = state.leg
            state, _ = apply_action(state, index, rng)
            if isinstance(action, TakeLegBet):
                made.append([action.camel, seat])
            if isinstance(action, RaceBet):
                cards[seat].append((action.pile, action.camel))
            if state.leg != leg:
                made = []


def test_C12_action_lists_translate_both_ways_as_the_cup_reads_them() -> None:
    state = new_game(CUP, seed=1)
    for action in legal_actions(state):
        assert our_action(cup_action(action)) == action
    assert our_action([0]) == TakePyramidTile() == our_action((0.0,))
    assert our_action([1, True, 4]) == PlaceTile(5, 1)
    assert our_action([2, 1.0]) == TakeLegBet(1)
    for refused in ([1, 1, 5.0], [1, 0, 5], [3, 1.0], [3, True], [5], [2], "0", None, [2, 9]):
        assert our_action(refused) is None


def test_C1_a_cup_bot_plays_the_cup_preset_only(tmp_path: Path) -> None:
    config = tournament_config(
        None,
        {
            "agents": [spec("leader_bettor.py"), "random"],
            "players": 2,
            "games": 2,
            "preset": "classic",
            "load_timeout": 60.0,
            "workers": 1,
            "name": "t",
        },
    )
    with pytest.raises(TournamentError, match=r"preset cup.*\(C1\)|\(C1\).*preset cup"):
        run_tournament(config, tmp_path / "out", progress=False)


def test_C12_cup_agents_are_listed_and_name_their_class() -> None:
    assert any(name == "cup:..." for name, _ in agents.describe_agents())
    with pytest.raises(ValueError, match="name the bot class"):
        agents.make(spec("faulty.py"))
    assert agents.make(spec("faulty.py", "Crasher")).bot.__name__ == "Crasher"


def test_C12_a_tournament_counts_the_fallbacks_in_its_records_and_summary(tmp_path) -> None:
    invalid = spec("faulty.py", "Invalid")
    config = tournament_config(
        None,
        {
            "agents": [invalid, "random", spec("leader_bettor.py"), "greedy"],
            "players": 4,
            "games": 4,
            "preset": "cup",
            "seating": "rotations",
            "load_timeout": 60.0,
            "workers": 1,
            "name": "t",
        },
    )
    run_tournament(config, tmp_path, progress=False)
    records = read_games(tmp_path / "games.jsonl")
    assert len(records) == 4
    total = 0
    for rec in records:
        seat = rec["agents"].index(invalid)
        assert rec["fallbacks"][seat] == len(rec["actions"][seat::4]) > 0
        assert sum(rec["fallbacks"]) == rec["fallbacks"][seat] and rec["forfeit"] is None
        # and says why, move by move: the action the Cup's engine would refuse
        reasons = rec["fallback_reasons"][seat]
        assert sum(reasons.values()) == rec["fallbacks"][seat]
        assert all(why.startswith("invalid action ") for why in reasons)
        total += rec["fallbacks"][seat]
    summary = (tmp_path / "summary.md").read_text()
    assert f"{invalid}: {total}" in summary and f"- {invalid}: invalid action " in summary
