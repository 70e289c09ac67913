"""The afterstate player and its value file (agents/afterstate.py, agents/afterstate_network.py).

* the choice is the exact expectation over the dice: checked against the engine's own
  ``chance_outcomes`` / ``apply_outcome`` with a value of known form;
* hidden information stays hidden (R10): another seat's hidden race card changes neither the
  value's input rows nor the player's chances nor its choice;
* the reading's deals respect R4.4 (one card per colour per seat);
* the standing (the champion's comparison as a value) of a bet's afterstate is the champion's
  chance of that bet;
* the file is plain arrays and JSON, refused with one line when it is not an afterstate value.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.afterstate import AfterstateAgent, NetworkValue, StandingValue
from agents.afterstate_network import (
    AfterstateNetwork,
    load_afterstate_network,
    relative_to_seats,
    save_afterstate_network,
    seats_to_relative,
)
from agents.champion import ChampionAgent
from agents.race_beliefs import deal_from_beliefs, new_card_payouts
from camelup_env import (
    RuleSet,
    apply_action,
    apply_outcome,
    chance_outcomes,
    legal_action_indices,
    new_game,
)
from camelup_env.batch import BatchGames, BatchObserver
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import Afterstates, afterstates
from camelup_env.game.state import HIDDEN, GameState
from camelup_env.observation import public_view

RAW = {"odds_features": False, "race_samples": 64, "action_values": False}


def random_network(rules: RuleSet, seed: int = 0) -> AfterstateNetwork:
    """An untrained network of the raw observation's width (a value like any other)."""
    width = BatchObserver(rules, **RAW).size
    rng = np.random.default_rng(seed)
    layers = (
        (rng.normal(0, 0.05, (width, 16)).astype(np.float32), np.zeros(16, np.float32)),
        (rng.normal(0, 0.5, (16, rules.num_players)).astype(np.float32), rng.normal(0, 0.1, 4)),
    )
    layers = tuple((w, np.asarray(b, np.float32)) for w, b in layers)
    return AfterstateNetwork(
        rules.preset,
        rules.num_players,
        RAW,
        np.zeros(width, np.float32),
        np.ones(width, np.float32),
        layers,
    )


def played(rules: RuleSet, seed: int, steps: int) -> GameState:
    """A position after ``steps`` random moves (the pyramid a third of the time), so race
    cards lie on the piles."""
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=seed)
    for _ in range(steps):
        legal = legal_action_indices(state)
        action = 5 if 5 in legal and rng.random() < 0.3 else int(rng.choice(legal))
        state, _ = apply_action(state, action, rng)
        if state.game_over:
            break
    return state


def position_with_hidden_cards(rules: RuleSet) -> GameState:
    """A running position where some seat other than the mover has a card on a pile."""
    for seed in range(200):
        s = played(rules, seed, 30)
        others = [o for o, _ in (*s.winner_pile, *s.loser_pile) if o != s.current]
        if not s.game_over and others:
            return s
    raise AssertionError("no position with another seat's race card")


def swapped_card(s: GameState) -> GameState:
    """``s`` with another seat's first race card backing another camel it does not hold yet:
    a different truth behind the same public view of the mover."""
    n = s.rules.n_racing
    piles = [list(s.winner_pile), list(s.loser_pile)]
    for pile in piles:
        for k, (owner, camel) in enumerate(pile):
            if owner == s.current:
                continue
            placed = {c for p in piles for o, c in p if o == owner}
            spare = [c for c in range(n) if c not in placed]
            if not spare:
                continue
            pile[k] = (owner, spare[0])
            hands = list(s.hands)
            hands[owner] = (hands[owner] | 1 << camel) & ~(1 << spare[0])
            out = s.copy()
            out.winner_pile, out.loser_pile = tuple(piles[0]), tuple(piles[1])
            out.hands = tuple(hands)
            return out
    raise AssertionError("no card to swap")


class CoinsValue:
    """A value of known form for the oracle test: chances a softmax of the coins."""

    reads_hidden_cards = False

    def check_rules(self, rules: RuleSet) -> None:
        pass

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        z = after.games.state.coins[rows].astype(float) / 3.0
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def test_the_choice_is_the_exact_expectation_over_the_dice() -> None:
    rules = RuleSet("classic", num_players=4)
    value = CoinsValue()
    for seed in range(6):
        s = played(rules, seed, 8 + 5 * seed)
        if s.game_over:
            continue
        agent = AfterstateAgent(value, deals=1)
        view = public_view(s, s.current)
        got = agent.action_chances(view)
        # the oracle: the engine's outcomes of the one deal the agent drew (the same seed)
        dealt = deal_from_beliefs(
            view,
            AfterstateAgent(value).reader.update(view, s.current, *_race(view)),
            np.random.default_rng(0),
        )
        for a in legal_action_indices(s):
            want = np.zeros(rules.num_players)
            for roll, p in chance_outcomes(dealt, a):
                new, _ = apply_outcome(dealt, a, roll)
                if new.game_over:
                    coins = np.array(new.coins)
                    won = coins == coins.max()
                    chance = won / won.sum()
                else:
                    chance = _worth(new, value, s.current)
                want += float(p) * chance
            np.testing.assert_allclose(got[a], want, atol=1e-12)
        assert agent.choose(view) == int(np.argmax(got[:, s.current]))
        illegal = sorted(set(range(got.shape[0])) - set(legal_action_indices(s)))
        assert np.all(np.isneginf(got[illegal]))


def _race(view: GameState) -> tuple[np.ndarray, np.ndarray]:
    from agents.afterstate import RACE_SAMPLES
    from camelup_env import odds

    race = odds.position_odds(view, RACE_SAMPLES).race
    return race.winner, race.loser


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_another_seats_hidden_card_changes_nothing_the_player_reads(preset: str) -> None:
    """R10: the value's input rows, the chances and the choice are the same whichever camel
    another seat's hidden card backs."""
    rules = RuleSet(preset, num_players=4)
    s = position_with_hidden_cards(rules)
    t = swapped_card(s)
    assert s != t and public_view(s, s.current) == public_view(t, s.current)
    for race_equity in (False, True):  # another seat's card counts by its expectation only
        features = AfterstateFeatures(rules, RAW, leg_equity=True, race_equity=race_equity)
        rows = []
        for truth in (s, t):  # the value's inputs: every outcome row, from the seat that chose
            after = afterstates(BatchGames.from_states([truth]))
            running = np.flatnonzero(~after.ended)
            rows.append(features.rows(after, running, s.current))
        np.testing.assert_array_equal(*rows)
    network = random_network(rules) if preset == "classic" else None
    if network is None:
        return
    chances = []
    for truth in (s, t):
        agent = AfterstateAgent(NetworkValue(network), deals=4, seed=3)
        chances.append(agent.action_chances(public_view(truth, truth.current)))
    np.testing.assert_array_equal(*chances)


def test_deals_follow_the_reading_and_r4_4() -> None:
    rules = RuleSet("classic", num_players=4)
    s = position_with_hidden_cards(rules)
    view = public_view(s, s.current)
    n = rules.n_racing
    piles = (view.winner_pile, view.loser_pile)
    beliefs = tuple(np.full((len(p), n), 1.0 / n) for p in piles)
    rng = np.random.default_rng(0)
    for _ in range(50):
        dealt = deal_from_beliefs(view, beliefs, rng)  # type: ignore[arg-type]
        dealt.validate()
        for seat in range(rules.num_players):
            cards = [c for o, c in (*dealt.winner_pile, *dealt.loser_pile) if o == seat]
            assert HIDDEN not in cards and len(set(cards)) == len(cards)  # R4.4
            assert dealt.hands[seat] == ((1 << n) - 1) & ~sum(1 << c for c in cards)
        for shown, got in zip(
            (*view.winner_pile, *view.loser_pile),
            (*dealt.winner_pile, *dealt.loser_pile),
            strict=True,
        ):
            assert shown[0] == got[0] and (shown[1] == HIDDEN or shown[1] == got[1])


def test_seat_order_conversions_are_inverse() -> None:
    rng = np.random.default_rng(0)
    values = rng.random((20, 5))
    viewers = rng.integers(5, size=20)
    rel = seats_to_relative(values, viewers)
    assert np.all(rel[:, 0] == values[np.arange(20), viewers])
    np.testing.assert_array_equal(relative_to_seats(rel, viewers), values)


def test_the_value_file_round_trips_and_plays_by_spec(tmp_path: Path) -> None:
    rules = RuleSet("classic", num_players=4)
    network = random_network(rules)
    path = tmp_path / "value.npz"
    save_afterstate_network(path, network)
    back = load_afterstate_network(path)
    obs = np.random.default_rng(1).random((7, network.mean.size)).astype(np.float32)
    np.testing.assert_array_equal(back.chances(obs), network.chances(obs))
    agent = agents.make(f"afterstate:{path}")
    s = played(rules, 2, 10)
    action = agent(None, public_view(s, s.current))  # type: ignore[arg-type]
    assert action in legal_action_indices(s)


def test_a_file_that_is_no_afterstate_value_is_refused_in_one_line(tmp_path: Path) -> None:
    rules = RuleSet("classic", num_players=4)
    network = random_network(rules)
    path = tmp_path / "value.npz"
    save_afterstate_network(path, network)
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    cases = {
        "kind": {**arrays, "meta": np.array(json.dumps({"kind": "win-network"}))},
        "width": {**arrays, "w1": arrays["w1"][:, :3], "b1": arrays["b1"][:3]},
        "pickle": {**arrays, "w0": np.array([[object()]], dtype=object)},
    }
    expected = {"kind": "meta must be JSON", "width": "one score per seat", "pickle": "not a"}
    for name, broken in cases.items():
        bad = tmp_path / f"{name}.npz"
        np.savez(bad, **broken)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=expected[name]) as err:
            load_afterstate_network(bad)
        assert "\n" not in str(err.value) and str(bad) in str(err.value)


def _worth(state: GameState, value: CoinsValue, viewer: int) -> np.ndarray:
    """A state's chances by the engine: win shares once over, else ``value`` by ``viewer``."""
    if state.game_over:
        coins = np.array(state.coins)
        won = coins == coins.max()
        return won / won.sum()
    z = np.array(state.coins, float) / 3.0
    if isinstance(value, ViewerValue):
        z[viewer] += 1.0 / 3.0
    e = np.exp(z - z.max())
    return e / e.sum()


class ViewerValue(CoinsValue):
    """Chances a softmax of the coins, the viewer's own a coin higher: each seat judges alike
    but for thinking well of itself, as a seat that knows its own cards does."""

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        z = after.games.state.coins[rows].astype(float) / 3.0
        z[:, viewer] += 1.0 / 3.0
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def test_two_plies_value_each_outcome_by_the_next_movers_best_reply() -> None:
    """Each reply chosen in the replier's eyes, what it leaves judged in the mover's."""
    rules = RuleSet("classic", num_players=3)
    value = ViewerValue()
    s = played(rules, 4, 9)
    s.winner_pile, s.loser_pile = (), ()  # nothing hidden: the one deal is the game
    s.hands = tuple((1 << rules.n_racing) - 1 for _ in range(rules.num_players))
    legal = legal_action_indices(s)
    agent = AfterstateAgent(value, plies=2, candidates=len(legal))
    got = agent.action_chances(public_view(s, s.current))
    for a in legal:
        want = np.zeros(rules.num_players)
        for roll, p in chance_outcomes(s, a):
            new, _ = apply_outcome(s, a, roll)
            if new.game_over:
                want += float(p) * _worth(new, value, s.current)
                continue
            replies = []
            for b in legal_action_indices(new):
                reply = np.zeros(rules.num_players)
                mine = np.zeros(rules.num_players)
                for roll2, p2 in chance_outcomes(new, b):
                    after, _ = apply_outcome(new, b, roll2)
                    reply += float(p2) * _worth(after, value, new.current)
                    mine += float(p2) * _worth(after, value, s.current)
                replies.append((reply, mine))
            best = max(replies, key=lambda r: r[0][new.current])  # first best: lowest index
            want += float(p) * best[1]
        np.testing.assert_allclose(got[a], want, atol=1e-12)
    one = AfterstateAgent(value, plies=2, candidates=1).action_chances(public_view(s, s.current))
    assert np.isfinite(one[:, 0]).sum() == 1


def test_a_margin_chooses_among_the_champions_shortlist_only() -> None:
    """``margin``: the value's choice among the moves within ``margin`` coins of the champion's
    best; at 0 that is the champion's best by its coins (its win model never asked), at a
    margin wider than any gap every legal move, as without one."""
    rules = RuleSet("classic", num_players=4)
    value = NetworkValue(load_afterstate_network(agents.shipped.value_path("afterstate_classic4")))
    plain_differs = 0
    for seed in range(8):
        s = played(rules, seed, 6 + seed)
        view = public_view(s, s.current)
        expert = ChampionAgent(risk=False)
        best = expert.choose(view, legal_action_indices(view))
        assert AfterstateAgent(value, margin=0.0).choose(view) == best
        plain = AfterstateAgent(value).choose(view)
        assert AfterstateAgent(value, margin=1000.0).choose(view) == plain
        plain_differs += plain != best
    assert plain_differs > 0  # the shortlist binds


def test_a_file_plays_on_its_own_margin_unless_the_spec_says_otherwise(tmp_path: Path) -> None:
    """A file's ``margin`` is its default shortlist, kept through a save; a spec's ``margin``
    (a number, or None for every move) overrides it; a built-in value has none."""
    network = load_afterstate_network(agents.shipped.value_path("afterstate_classic4"))
    path = tmp_path / "value.npz"
    save_afterstate_network(path, dataclasses.replace(network, margin=0.0))
    assert load_afterstate_network(path).margin == 0.0
    own = agents.make(f"afterstate:{path}")
    assert own.screen is not None and own.screen.margin == 0.0
    assert agents.make(f"afterstate:{path}", margin=None).screen is None
    assert agents.make(f"afterstate:{path}", margin=2.0).screen.margin == 2.0
    assert agents.make("afterstate:afterstate_classic4").screen is None
    assert agents.make("afterstate:standing-reading").screen is None
    rules = RuleSet("classic", num_players=4)
    s = played(rules, 3, 9)
    view = public_view(s, s.current)
    best = ChampionAgent(risk=False).choose(view, legal_action_indices(view))
    assert own.choose(view) == best  # margin 0: the champion's best by its coins


@pytest.mark.parametrize("margin", [-1.0, "1", True, float("inf")])
def test_a_file_with_a_bad_margin_is_refused_in_one_line(tmp_path: Path, margin: object) -> None:
    network = load_afterstate_network(agents.shipped.value_path("afterstate_classic4"))
    path = tmp_path / "value.npz"
    save_afterstate_network(path, network)
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps({**meta, "margin": margin}))
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match="margin") as err:
        load_afterstate_network(bad)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("by_reading", [False, True])
def test_a_bets_standing_is_the_champions_chance_of_it(by_reading: bool) -> None:
    """The standing of the position a leg or race bet leaves (its rows have no chance) is
    the champion's risk choice's chance of that bet (:func:`agents.standing.win_chances` over
    the source position's joint outcomes, the bet's swing added to the mover): every card
    known as in a deal, or (``by_reading``) the hidden cards paid by the mover's reading, as
    the champion pays them."""
    from agents.race_beliefs import RaceCardReader
    from agents.standing import action_outcomes, leg_tile_outcomes, seat_outcomes, win_chances
    from camelup_env import odds
    from camelup_env.game.actions import RaceBet, TakeLegBet, action_table
    from camelup_env.odds.win import lead_progress, load_win_model

    rules = RuleSet("classic", num_players=4)
    model = load_win_model(rules)
    table = action_table(rules).actions
    value = StandingValue(by_reading=by_reading)
    checked = {TakeLegBet: 0, RaceBet: 0}
    hidden_read = 0
    pay, R = rules.race_bet_payouts, rules.n_racing
    for seed in range(3):
        s = played(rules, seed, 12 + 4 * seed)
        if s.game_over:
            continue
        me = s.current
        if by_reading:
            view = public_view(s, me)
            race = odds.position_odds(view, 1000).race
            beliefs = RaceCardReader().update(view, me, race.winner, race.loser)
            s = deal_from_beliefs(view, beliefs, np.random.default_rng(seed))
            value.read(beliefs)
            hidden_read += sum(c == HIDDEN for _, c in (*view.winner_pile, *view.loser_pile))
        else:
            beliefs = tuple(
                np.eye(R)[[c for _, c in p]].reshape(len(p), R)
                for p in (s.winner_pile, s.loser_pile)
            )
        after = afterstates(BatchGames.from_states([s]))
        bets = np.flatnonzero([isinstance(table[a], (TakeLegBet, RaceBet)) for a in after.action])
        got = value.chances(after, bets, me)
        sc = odds.leg_scenarios(s, value.race_samples)
        base = seat_outcomes(s, sc, (beliefs[0], beliefs[1]))
        paid = (
            new_card_payouts(s.winner_pile, beliefs[0], pay),
            new_card_payouts(s.loser_pile, beliefs[1], pay),
        )
        progress = lead_progress(sc.lead, rules.track_length)
        for k, row in enumerate(bets):
            action = table[after.action[row]]
            if isinstance(action, TakeLegBet):
                swing = leg_tile_outcomes(sc.ranks[:, action.camel], s.leg_stacks[action.camel][0])
            else:
                camel = sc.winner if action.pile == 0 else sc.loser
                swing = np.where(camel == action.camel, paid[action.pile][action.camel], -1.0)
            add = action_outcomes(s, action, float(swing.mean()), sc, *paid)
            want = win_chances(model, base, me, add[None], progress)[0]
            np.testing.assert_allclose(got[k, me], want, atol=1e-12)
            checked[type(action)] += 1
    assert all(checked.values())
    assert hidden_read > 0 or not by_reading  # the reading paid some card it cannot see


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
@pytest.mark.parametrize("by_reading", [False, True])
def test_the_standing_of_many_rows_is_the_champions_of_each(preset: str, by_reading: bool) -> None:
    """The standing scores rows grouped by position, one product for each group
    (:func:`agents.standing.row_outcomes`): the chances the champion's reference scoring
    (:func:`agents.standing.seat_outcomes`, one game at a time) gives each row, for every
    move and every reply to it (a 2-ply choice's rows: rolls, tiles, bets, cards added to the
    piles), the piles paid as dealt or by the mover's reading."""
    from agents.race_beliefs import RaceCardReader
    from agents.standing import seat_outcomes
    from camelup_env import odds
    from camelup_env.odds.win import lead_progress, load_win_model

    rules = RuleSet(preset, num_players=4)
    R, model = rules.n_racing, load_win_model(rules)
    s = position_with_hidden_cards(rules)
    me = s.current
    value = StandingValue(by_reading=by_reading)
    known = (np.zeros((0, R)), np.zeros((0, R)))
    if by_reading:
        view = public_view(s, me)
        race = odds.position_odds(view, 1000).race
        known = RaceCardReader().update(view, me, race.winner, race.loser)
        s = deal_from_beliefs(view, known, np.random.default_rng(0))
        value.read(known)
    moves = afterstates(BatchGames.from_states([s]))
    after = afterstates(moves.games.take(np.flatnonzero(~moves.ended)))
    rows = np.flatnonzero(~after.ended)
    got = value.chances(after, rows, me)
    for k, t in enumerate(after.games.to_states(rows)):
        piles = tuple(
            np.vstack([read, np.eye(R)[[c for _, c in pile[len(read) :]]].reshape(-1, R)])
            for read, pile in zip(known, (t.winner_pile, t.loser_pile), strict=True)
        )
        sc = odds.leg_scenarios(t, value.race_samples)
        coins = seat_outcomes(t, sc, piles)
        want = model.from_features(coins, lead_progress(sc.lead, rules.track_length))
        np.testing.assert_allclose(got[k], want.mean(axis=0), atol=1e-12)
    added = after.games.state.pile_len[rows].sum(axis=1) > moves.source.state.pile_len[0].sum()
    assert added.any() and len(np.unique(after.action[rows])) > 20  # bets, tiles and rolls


@pytest.mark.parametrize("spec", ["standing", "standing-reading"])
def test_the_standing_plays_by_spec_and_refuses_the_wanderers_rules(spec: str) -> None:
    agent = agents.make(f"afterstate:{spec}", deals=2)
    assert isinstance(agent.value, StandingValue)
    assert agent.value.by_reading == (spec == "standing-reading")
    rules = RuleSet("classic", num_players=4)
    s = position_with_hidden_cards(rules)
    t = swapped_card(s)
    # R10: dealt from (or paid by) the reading of the view, never the true hidden card
    chances = [
        AfterstateAgent(
            StandingValue(by_reading=agent.value.by_reading), deals=2, seed=1
        ).action_chances(public_view(x, s.current))
        for x in (s, t)
    ]
    np.testing.assert_array_equal(*chances)
    with pytest.raises(ValueError, match="joint outcomes"):
        StandingValue().check_rules(RuleSet("persian_tutorial", num_players=4))
