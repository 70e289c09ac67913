"""Luck corrections (camelup_env.odds.luck): exact chance models of the deal and the dice, zero-mean
corrections at every chance node, and adjusted results whose expectation is the raw one's."""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pytest

from camelup_env import RuleSet, TakePyramidTile, apply_action, legal_actions, new_game
from camelup_env.game.engine import DieRoll, apply_outcome, chance_outcomes
from camelup_env.game.events import DieRevealed
from camelup_env.game.setup import setup_outcomes
from camelup_env.game.state import GameState
from camelup_env.odds.luck import (
    SHARE_LEGS,
    LuckLedger,
    coin_leader,
    luck_group,
    roll_luck,
    roll_outcomes,
    setup_mean,
    values,
    win_shares,
)

PRESETS = ("classic", "second_edition", "persian_tutorial", "supercup", "cup")


def _key(state: GameState) -> tuple:
    return tuple(sorted(state.stacks.items()))


def _noise(states: Sequence[GameState]) -> np.ndarray:
    """A deliberately poor V: a fixed pseudo-random number per state, unrelated to who wins."""
    out = []
    for s in states:
        digest = hashlib.sha256(repr((_key(s), s.coins, s.pyramid)).encode()).digest()
        out.append(np.frombuffer(digest[: 8 * s.rules.num_players], dtype=np.uint64) / 2.0**64)
    return np.array(out)


@pytest.mark.parametrize("preset", PRESETS)
def test_R2_1_R2_2_setup_outcomes_are_new_games_deals_with_their_frequencies(preset: str) -> None:
    """The enumerated deals are exactly the deals new_game makes, and a few thousand seeded
    deals fall on them with the enumerated probabilities (chi-square, generous bound)."""
    rules = RuleSet(preset, num_players=4)
    deals = setup_outcomes(rules)
    assert sum(p for _, p in deals) == 1
    prob = {_key(s): p for s, p in deals}
    assert len(prob) == len(deals)  # each deal once
    dealt = {_key(s): s for s, _ in deals}
    n = 4000
    seen: Counter[tuple] = Counter()
    for seed in range(n):
        state = new_game(rules, seed=seed)
        assert state == dealt[_key(state)]  # the same whole state, not only the stacks
        seen[_key(state)] += 1
    if len(prob) <= 200:  # the Persian deal (120 orders): a per-outcome check is affordable
        expected = np.array([float(prob[k]) * n for k in prob])
        observed = np.array([seen.get(k, 0) for k in prob])
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        assert chi2 < len(prob) + 6 * np.sqrt(2 * len(prob))


def _midgame_states(rules: RuleSet, count: int, seed: int) -> list[GameState]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = new_game(rules, seed=rng)
        for _ in range(int(rng.integers(0, 40))):
            if s.game_over:
                break
            s, _ = apply_action(s, rng.choice(legal_actions(s)), rng)
        if not s.game_over and TakePyramidTile() in legal_actions(s):
            out.append(s)
    return out


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("value", [coin_leader, _noise], ids=["coin_leader", "noise"])
def test_roll_luck_has_zero_mean_at_every_chance_node(preset: str, value) -> None:
    """E_o[luck(o)] = 0 over the exact outcome distribution, whatever V (R4.1, R5.5)."""
    rules = RuleSet(preset, num_players=4)
    for state in _midgame_states(rules, 6, seed=1):
        outcomes = chance_outcomes(state, TakePyramidTile())
        mean = sum(float(p) * roll_luck(state, o, value) for o, p in outcomes)
        np.testing.assert_allclose(mean, 0.0, atol=1e-12)


def test_deal_luck_has_zero_mean() -> None:
    rules = RuleSet("second_edition", num_players=3)
    mean = setup_mean(rules, _noise)
    deals = setup_outcomes(rules)
    total = sum(float(p) * (values([s], _noise)[0] - mean) for s, p in deals)
    np.testing.assert_allclose(total, 0.0, atol=1e-12)


#: a share table of the shape the classic rules' rolls fall in, far from 1 and uneven
SHARES = np.random.default_rng(11).uniform(0.1, 1.9, (SHARE_LEGS, 5))


def _expectations(
    state: GameState, depth: int, value, ledger_total: np.ndarray, p: Fraction, share=None
):
    """Sum over every chance path of ``depth`` rolls (players always take a pyramid tile) of
    p * raw and p * adjusted, the raw result at the end of the path being V's (or the win
    shares once the game is over): the identity E[adjusted] = E[raw] holds for any result.
    ``share(state, roll)`` scales each roll's luck (1 without it)."""
    if depth == 0 or state.game_over:
        raw = values([state], coin_leader)[0]
        return float(p) * raw, float(p) * (raw - ledger_total)
    raw_sum = np.zeros(state.rules.num_players)
    adj_sum = np.zeros(state.rules.num_players)
    for roll, q in chance_outcomes(state, TakePyramidTile()):
        after, _ = apply_outcome(state, TakePyramidTile(), roll)
        luck = roll_luck(state, roll, value)
        if share is not None:
            luck = share(state, roll) * luck
        r, a = _expectations(after, depth - 1, value, ledger_total + luck, p * q, share)
        raw_sum += r
        adj_sum += a
    return raw_sum, adj_sum


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_adjusted_result_has_the_raw_expectation_by_enumeration(preset: str) -> None:
    """Every path of three rolls from mid-game states, weighted exactly: the expected adjusted
    result equals the expected raw one, for a useful V and for noise alike, while the adjusted
    values differ from the raw ones along the paths (the corrections are not all zero)."""
    rules = RuleSet(preset, num_players=3)
    for state in _midgame_states(rules, 2, seed=7):
        for value in (coin_leader, _noise):
            raw, adj = _expectations(state, 3, value, np.zeros(3), Fraction(1))
            np.testing.assert_allclose(adj, raw, atol=1e-12)
            assert abs(sum(raw) - 1.0) < 1e-12


def test_shares_read_before_the_roll_keep_the_raw_expectation_by_enumeration() -> None:
    """Each roll's luck scaled by its group's share (leg, tiles left before the draw): still
    the raw expectation over every path of three rolls. A share that also reads the outcome
    (tripled where the die shows 3) is biased: what the test tells apart."""
    rules = RuleSet("classic", num_players=3)

    def before(state: GameState, roll: DieRoll) -> float:
        return float(SHARES[luck_group(state, 5)])

    def outcome(state: GameState, roll: DieRoll) -> float:
        return float(SHARES[luck_group(state, 5)]) * (3.0 if roll.value == 3 else 1.0)

    biased = 0.0
    for state in _midgame_states(rules, 3, seed=5):
        raw, adj = _expectations(state, 3, coin_leader, np.zeros(3), Fraction(1), before)
        np.testing.assert_allclose(adj, raw, atol=1e-12)
        raw, adj = _expectations(state, 3, coin_leader, np.zeros(3), Fraction(1), outcome)
        biased = max(biased, float(np.abs(adj - raw).max()))
    assert biased > 1e-3


@pytest.mark.parametrize("shares", [None, SHARES], ids=["whole", "shares"])
def test_ledger_sums_the_deal_and_every_roll_of_a_game(shares) -> None:
    """Through a game's hooks the ledger records the deal's luck and each roll's, in order,
    and nothing for the choices in between (bets, tiles); with shares each roll's luck is
    scaled by its group's (read before the roll), and the groups' sums keep it unscaled."""
    rules = RuleSet("second_edition", num_players=3)
    mean = setup_mean(rules, coin_leader)
    ledger = LuckLedger(coin_leader, mean, shares)
    deal, state, rolls = _random_game(rules, ledger)
    expected = [values([deal], coin_leader)[0] - mean]
    by_group = np.zeros((SHARE_LEGS, 5, 3))
    for before, roll in rolls:
        luck = roll_luck(before, roll, coin_leader)
        group = (min(before.leg, 4) - 1, before.pyramid_tiles_left - 1)
        by_group[group] += luck
        expected.append(luck if shares is None else shares[group] * luck)
    assert len(ledger.trace) == len(expected) > 5
    assert state.leg > 2  # rows past the first are exercised
    np.testing.assert_allclose(np.array(ledger.trace), np.array(expected), atol=1e-12)
    np.testing.assert_allclose(ledger.total, np.sum(expected, axis=0), atol=1e-12)
    np.testing.assert_allclose(ledger.by_group, by_group, atol=1e-12)


def _roll(event) -> DieRoll:
    return DieRoll(event.die, event.camel_shown, event.value)


def _random_game(
    rules: RuleSet, ledger: LuckLedger
) -> tuple[GameState, GameState, list[tuple[GameState, DieRoll]]]:
    """One game of random moves (seed 3) fed to ``ledger`` through its hooks: the deal, the
    final state, and each roll with the state it was drawn in."""
    rng = np.random.default_rng(3)
    state = deal = new_game(rules, seed=rng)
    ledger.deal(state)
    rolls = []
    while not state.game_over:
        action = rng.choice(legal_actions(state))
        before = state
        state, events = apply_action(state, action, rng)
        ledger.step(state, action, events)
        shown = next((e for e in events if isinstance(e, DieRevealed)), None)
        if shown is not None:
            rolls.append((before, _roll(shown)))
    return deal, state, rolls


def _two_covariates(states: Sequence[GameState]) -> np.ndarray:
    """Covariates for the ledger's tests, ``(len, 2, seats)``: the noise and the coins."""
    coins = np.array([s.coins for s in states], dtype=float)
    return np.stack([_noise(states), coins], axis=1)


#: covariate weights by leg, far from 0 and uneven
WEIGHTS = np.random.default_rng(12).uniform(-1.5, 1.5, (SHARE_LEGS, 2))


def test_weighted_covariates_keep_the_raw_expectation_by_enumeration() -> None:
    """The ledger itself along every path of three rolls, with shares and covariates weighted
    by leg: the expected adjusted result is the raw one's, and the covariates move it (the
    same paths without them give other adjusted values)."""
    rules = RuleSet("classic", num_players=3)

    def paths(state: GameState, depth: int, ledger: LuckLedger, plain: LuckLedger, p: Fraction):
        if depth == 0 or state.game_over:
            raw = values([state], coin_leader)[0]
            return [(float(p), raw, raw - ledger.total, raw - plain.total)]
        out = []
        for roll, q in chance_outcomes(state, TakePyramidTile()):
            after, events = apply_outcome(state, TakePyramidTile(), roll)
            a, b = copy.deepcopy(ledger), copy.deepcopy(plain)
            a.step(after, TakePyramidTile(), events)
            b.step(after, TakePyramidTile(), events)
            out += paths(after, depth - 1, a, b, p * q)
        return out

    for state in _midgame_states(rules, 2, seed=9):
        ledger = LuckLedger(_noise, None, SHARES, _two_covariates, WEIGHTS)
        plain = LuckLedger(_noise, None, SHARES)
        ledger.deal(state)
        plain.deal(state)
        rows = paths(state, 3, ledger, plain, Fraction(1))
        p = np.array([r[0] for r in rows])
        raw, adj, without = (np.array([r[i] for r in rows]) for i in (1, 2, 3))
        np.testing.assert_allclose(p @ adj, p @ raw, atol=1e-12)
        assert np.abs(adj - without).max() > 1e-3


def test_ledger_weighs_covariates_by_leg_and_keeps_them_unweighted() -> None:
    """Each roll counts its share of V's luck plus its leg's weights times the covariates'
    luck; :attr:`by_covariate` sums the covariates' luck by leg before the weights; weights
    without covariates are refused."""
    rules = RuleSet("classic", num_players=3)
    ledger = LuckLedger(coin_leader, None, None, _two_covariates, WEIGHTS)
    _, state, rolls = _random_game(rules, ledger)
    expected, by_covariate = [], np.zeros((SHARE_LEGS, 2, 3))
    for before, roll in rolls:
        after, p, realized = roll_outcomes(before, roll)
        u = _two_covariates(after)
        extra = u[realized] - np.einsum("o,oks->ks", p, u)
        leg = min(before.leg, SHARE_LEGS) - 1
        by_covariate[leg] += extra
        expected.append(roll_luck(before, roll, coin_leader) + WEIGHTS[leg] @ extra)
    assert state.leg > 2
    np.testing.assert_allclose(np.array(ledger.trace), np.array(expected), atol=1e-12)
    np.testing.assert_allclose(ledger.by_covariate, by_covariate, atol=1e-12)
    with pytest.raises(ValueError, match="without covariates"):
        LuckLedger(coin_leader, weights=WEIGHTS)


def test_adjusted_means_agree_with_the_raw_mean_on_10000_random_games() -> None:
    """10,000 games of random players (classic, 2 players), each corrected twice on the same
    moves: by the coin leader and by noise, a ``V`` that knows nothing of who wins. For both the
    adjusted mean agrees with the raw one within their intervals and the luck's mean is within
    three standard errors of zero; noise only widens the spread (an unbiased correction
    cannot narrow what it does not predict)."""
    rules = RuleSet("classic", num_players=2)
    models = (coin_leader, _noise)
    means = [setup_mean(rules, value) for value in models]
    raw, luck = [], [[] for _ in models]
    for seed in range(10_000):
        rng = np.random.default_rng(10_000 + seed)
        state = new_game(rules, seed=rng)
        ledgers = [LuckLedger(value, mean) for value, mean in zip(models, means, strict=True)]
        for ledger in ledgers:
            ledger.deal(state)
        while not state.game_over:
            action = rng.choice(legal_actions(state))
            state, events = apply_action(state, action, rng)
            for ledger in ledgers:
                ledger.step(state, action, events)
        raw.append(win_shares(state)[0])
        for total, ledger in zip(luck, ledgers, strict=True):
            total.append(ledger.total[0])
    result = np.array(raw)

    def half(x: np.ndarray) -> float:
        return 1.96 * float(x.std()) / np.sqrt(len(x))

    for total in map(np.array, luck):
        adjusted = result - total
        assert abs(adjusted.mean() - result.mean()) < half(result) + half(adjusted)
        assert abs(total.mean()) < 3 * float(total.std()) / np.sqrt(len(total))
        assert total.std() > 0
    assert (result - np.array(luck[1])).std() > 2 * result.std()


def test_ledger_refuses_a_step_before_the_deal() -> None:
    state = new_game(RuleSet("classic", num_players=2), seed=0)
    with pytest.raises(RuntimeError, match=r"before LuckLedger\.deal"):
        LuckLedger(coin_leader).step(state, TakePyramidTile(), ())


def test_evaluate_reports_the_adjusted_share_game_by_game() -> None:
    """An evaluation through the referee carries each game's luck-adjusted share: the win
    share less the candidate's luck replayed from the record, and an interval of its own."""
    from tournament.evaluate import evaluate
    from tournament.luck import GameLuck

    rules = RuleSet("classic", num_players=2)
    result = evaluate("greedy", "heuristic", rules, 8, seed=5, workers=1, referee=True)
    luck = GameLuck.shipped(rules)
    assert luck is not None
    adjusted = [g.win_share_adjusted for g in result.per_game]
    assert not np.isnan(adjusted).any()
    assert not np.allclose(adjusted, [g.win_share for g in result.per_game])
    assert result.adjusted == pytest.approx(np.mean(adjusted))
    assert result.adjusted_ci_low < result.adjusted < result.adjusted_ci_high
    bare = evaluate("greedy", "heuristic", rules, 8, seed=5, workers=1, referee=True, luck=False)
    assert np.isnan(bare.adjusted)
    assert [g.win_share for g in bare.per_game] == [g.win_share for g in result.per_game]


def test_evaluate_builds_the_candidate_with_its_keyword_arguments() -> None:
    """``candidate_kwargs`` (``--candidate-kwargs``) reach the candidate's bot process: greedy
    without desert tiles plays other games on the same seeds, under a label that says so."""
    from tournament.evaluate import evaluate

    rules = RuleSet("classic", num_players=2)
    plain = evaluate("greedy", "heuristic", rules, 4, seed=5, workers=1, luck=False)
    variant = evaluate(
        "greedy",
        "heuristic",
        rules,
        4,
        seed=5,
        workers=1,
        luck=False,
        candidate_kwargs={"place_tiles": False},
    )
    assert variant.candidate == 'greedy {"place_tiles": false}'
    assert [g.coins for g in variant.per_game] != [g.coins for g in plain.per_game]
