"""The inputs of an afterstate value (camelup_env/batch/afterstate_features.py): the viewer's
observation and each seat's leg equity, checked against the luck measure's own kernel."""

from __future__ import annotations

import numpy as np
import pytest
from test_afterstates import varied_positions

from camelup_env import RuleSet
from camelup_env.batch import BatchObserver
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import afterstates
from camelup_env.batch.luck_kernels import _leg_equity
from camelup_env.game.actions import PlaceTile, action_table
from camelup_env.odds.tables import _tables_of

RAW = {"odds_features": False, "race_samples": 64, "action_values": False}


def exact_equity(games, j: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    t = _tables_of(games.rules)
    out = np.zeros(games.rules.num_players)
    _leg_equity(
        games.state.rows,
        games.params,
        j,
        t.face_camel,
        t.face_value,
        t.face_weight,
        t.n_faces,
        out,
    )
    return out


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("second_edition", 5)])
def test_leg_equities_are_the_luck_measures_and_tiles_read_their_source(
    preset: str, players: int
) -> None:
    rules = RuleSet(preset, num_players=players)
    games = varied_positions(rules, 24, seed=11)
    after = afterstates(games)
    running = np.flatnonzero(~after.ended)
    viewers = games.current_player[after.game[running]]
    features = AfterstateFeatures(rules, RAW, leg_equity=True)
    rows = features.rows(after, running, viewers)
    plain = BatchObserver(rules, **RAW).observe(after.games, viewers, running)
    np.testing.assert_array_equal(rows[:, : plain.shape[1]], plain)
    tiles = {i for i, a in enumerate(action_table(rules).actions) if isinstance(a, PlaceTile)}
    n = rules.num_players
    checked = {"exact": 0, "tile": 0}
    for k, j in enumerate(running):
        order = (viewers[k] + np.arange(n)) % n
        got = rows[k, -n:]
        if after.action[j] in tiles:
            # the mover's tile moved; everyone else holds what they held in the source
            # position, valued at that position's odds: their equities against each other
            # are the source's
            source = exact_equity(games, int(after.game[j]))
            others = order[1:]
            diff = (got * 10.0)[1:] - (got * 10.0)[1]
            np.testing.assert_allclose(diff, source[others] - source[others][0], atol=1e-4)
            checked["tile"] += 1
        else:
            want = exact_equity(after.games, int(j))
            np.testing.assert_allclose(got, ((want - want.mean()) / 10.0)[order], atol=1e-5)
            checked["exact"] += 1
    assert checked["exact"] > 100 and checked["tile"] > 10


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("second_edition", 5)])
def test_race_equity_is_every_seats_cards_as_the_viewer_may_judge_them(
    preset: str, players: int
) -> None:
    from camelup_env.game.payouts import race_card_ev
    from camelup_env.observation import Observer

    rules = RuleSet(preset, num_players=players)
    games = varied_positions(rules, 24, seed=13)
    after = afterstates(games)
    running = np.flatnonzero(~after.ended)
    viewers = games.current_player[after.game[running]]
    leg = AfterstateFeatures(rules, RAW, leg_equity=True).rows(after, running, viewers)
    race = AfterstateFeatures(rules, RAW, leg_equity=True, race_equity=True)
    rows = race.rows(after, running, viewers)
    n = rules.num_players
    np.testing.assert_array_equal(rows[:, :-n], leg[:, :-n])  # the observation as it was
    added = (rows[:, -n:] - leg[:, -n:]) * 10.0  # each seat's cards, less the seats' mean
    observer = Observer(rules, odds_features=True, race_samples=64, action_values=True)
    sources = games.to_states()
    outcomes = after.games.to_states()
    payouts = rules.race_bet_payouts
    counted = {"own": 0, "hidden": 0}
    for k, j in enumerate(running):
        viewer, state = int(viewers[k]), outcomes[j]
        odds = observer.observe(sources[after.game[j]], 0)
        want = np.zeros(n)
        piles = (("race_winner_prob", state.winner_pile), ("race_loser_prob", state.loser_pile))
        for name, pile in piles:
            start, end = observer.layout[name]
            p = odds[start:end].astype(float)
            for below, (owner, camel) in enumerate(pile):
                if owner == viewer:  # its own card: its camel
                    want[owner] += race_card_ev(float(p[camel]), pile[:below], owner, payouts)
                    counted["own"] += 1
                else:  # a hidden card: over the camels, each by its odds
                    evs = race_card_ev(p, pile[:below], owner, payouts)
                    want[owner] += float(p @ evs / p.sum())
                    counted["hidden"] += 1
        order = (viewer + np.arange(n)) % n
        np.testing.assert_allclose(added[k], (want - want.mean())[order], atol=1e-4)
    assert counted["own"] > 20 and counted["hidden"] > 20
