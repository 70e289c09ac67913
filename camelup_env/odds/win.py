"""Each seat's chance to win the game: a win-probability model over the seats' equity.

A seat's *equity* is its coins plus the expected coins still to come from what it holds now:
its leg-bet tiles, position tiles and loser cards at the exact leg odds (R6.2, R9.3, R14.4),
its pyramid tiles (R6.2), and its race cards at the race odds (R7.2). The luck corrections
(:mod:`camelup_env.odds.luck`) value the referee's view, every card's camel known; a seat's
public view (R10: other seats' cards on the piles hidden) is valued by drawing the hidden
cards' camels, each card backing a camel its owner has not bet on yet in proportion to the
camel's race odds (the model of :func:`camelup_env.game.payouts.race_card_ev`), and averaging
over :data:`HIDDEN_DRAWS` seeded draws - so the chances a seat sees (the web coach's) depend on
nothing it may not see. Partners' shares (R9.4), the desert tiles' payouts still to come
(R5.3) and the floor of a seat's coins (R8.1: a losing tile's -1 counts in full) are left out.

The model turns equities into win probabilities by a softmax whose sharpness grows as the race
nears its end (a coin of lead matters more when less is left to win):

    P(seat i wins) = exp(beta(x) e_i) / sum_j exp(beta(x) e_j),
    beta(x) = exp(b0 + b1 x + b2 x^2),  x = leading racing camel's space / track length.

The coefficients are fitted by maximum likelihood on positions of played games
(:mod:`training.odds.win_model`); the shipped ones, with the commands and measured quality, are in
``win_models.json`` beside this module (``docs/luck.md`` has the figures).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from camelup_env.game.legality import uncovered_tiles
from camelup_env.game.payouts import leg_tile_ev, loser_card_ev, pile_evs, position_tile_ev
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import HIDDEN, GameState
from camelup_env.odds.leg import leg_rank_probabilities
from camelup_env.odds.luck import SHARE_LEGS, win_shares
from camelup_env.odds.position_estimate import position_odds
from camelup_env.odds.win_network import WinNetwork, load_win_network

#: the shipped coefficients, by ``preset/players``
SHIPPED = Path(__file__).with_name("win_models.json")
#: race odds samples behind the race cards' value (the shared position estimate's)
WIN_RACE_SAMPLES = 256
#: draws of a public view's hidden race cards (module docstring), from one fixed seed
HIDDEN_DRAWS = 64
#: the luck covariates of :meth:`WinModel.covariates`, in order
COVARIATES = ("held", "race", "capture", "anticipated")
#: the covariate a model with a win network (:mod:`camelup_env.odds.win_network`) adds last
NETWORK_COVARIATE = "network"


def equity(state: GameState, race_samples: int = WIN_RACE_SAMPLES) -> np.ndarray:
    """Each seat's coins plus the expected coins of what it holds (module docstring)."""
    held, race = equity_parts(state, race_samples)
    return held + race


def equity_parts(
    state: GameState, race_samples: int = WIN_RACE_SAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """A seat's equity in two parts: what this leg settles (coins, leg-bet tiles, position
    tiles, loser cards, pyramid tiles) and what the race's end settles (race cards). The luck
    covariates weigh them apart: the race cards' value is the one that moves with the race
    estimate rather than with the leg."""
    rules = state.rules
    held = np.array(state.coins, dtype=float)
    race_part = np.zeros(rules.num_players)
    tiles = [uncovered_tiles(state, seat) for seat in range(rules.num_players)]
    # the leg odds value what this leg's bets will pay; where none is held (a deal, a leg's
    # start) they are not needed, and a deal's board is one no other deal shares
    needs_odds = any(tiles) or state.position_bets or state.loser_cards
    probs = leg_rank_probabilities(state) if needs_odds else np.zeros(0)
    pays_tiles = rules.pyramid_tile_value and not rules.roll_pays_at_once
    for seat in range(rules.num_players):
        held[seat] += sum(leg_tile_ev(probs, c, v) for c, v in tiles[seat])
        if pays_tiles:
            held[seat] += rules.pyramid_tile_value * state.pyramid_tiles[seat]
    for owner, pos, camel, _ in state.position_bets:
        held[owner] += position_tile_ev(probs, pos, camel)
    for owner, camel, value in state.loser_cards:
        held[owner] += loser_card_ev(probs, camel, value)
    if state.winner_pile or state.loser_pile:
        race = position_odds(state, race_samples).race
        n, pay = rules.num_players, rules.race_bet_payouts
        for winner_pile, loser_pile, weight in _pile_draws(state, race.winner, race.loser):
            race_part += weight * pile_evs(winner_pile, race.winner, pay, n)
            race_part += weight * pile_evs(loser_pile, race.loser, pay, n)
    return held, race_part


def next_captures(state: GameState) -> np.ndarray:
    """What each seat's next turn is likely to take from the leg-bet stacks: seats in turn
    order from the one to move each take the top tile worth most at the exact leg odds, or a
    pyramid tile's coin where no tile is worth more; the ``k``-th pick goes to the seat ``k``
    turns away. Equity counts a bet only once it is taken, so a roll that leaves a rich tile
    for the next seat moves that seat's chances before its bet does: this anticipates it."""
    rules = state.rules
    probs = leg_rank_probabilities(state)
    stacks = [list(stack) for stack in state.leg_stacks]
    out = np.zeros(rules.num_players)
    for k in range(rules.num_players):
        best, camel = float(rules.pyramid_tile_value), None
        for c, stack in enumerate(stacks):
            if stack and (ev := leg_tile_ev(probs, c, stack[0])) > best:
                best, camel = ev, c
        if camel is not None and (len(stacks[camel]) > 1 or not rules.endless_leg_bets):
            stacks[camel].pop(0)
        out[(state.current + k) % rules.num_players] += best
    return out


def _pile_draws(
    state: GameState, p_win: np.ndarray, p_last: np.ndarray
) -> list[tuple[tuple, tuple, float]]:
    """The piles with their hidden cards' camels drawn (module docstring), each with its
    weight; the piles as they are when no card is hidden."""
    piles = (state.winner_pile, state.loser_pile)
    if all(camel != HIDDEN for pile in piles for _, camel in pile):
        return [(*piles, 1.0)]
    rng = np.random.default_rng(0)
    n_racing = state.rules.n_racing
    draws = []
    for _ in range(HIDDEN_DRAWS):
        used: dict[int, set[int]] = {}  # each owner's camels so far (one card per colour, R4.4)
        for pile in piles:
            for owner, camel in pile:
                if camel != HIDDEN:
                    used.setdefault(owner, set()).add(camel)
        drawn = []
        for pile, odds in zip(piles, (p_win, p_last), strict=True):
            cards = []
            for owner, camel in pile:
                if camel == HIDDEN:
                    mine = used.setdefault(owner, set())
                    free = np.array([c not in mine for c in range(n_racing)], dtype=float)
                    w = np.asarray(odds, dtype=float) * free
                    w = w / w.sum() if w.sum() > 0 else free / free.sum()
                    camel = int(rng.choice(n_racing, p=w))
                    mine.add(camel)
                cards.append((owner, camel))
            drawn.append(tuple(cards))
        draws.append((drawn[0], drawn[1], 1.0 / HIDDEN_DRAWS))
    return draws


def progress(state: GameState) -> float:
    """How far the race has come: the leading racing camel's space over the track length."""
    rules = state.rules
    lead = max(
        (space for space, camels in state.stacks.items() if min(camels) < rules.n_racing),
        default=1,
    )
    return float(lead_progress(lead, rules.track_length))


def lead_progress(lead: np.ndarray | int, track_length: int) -> np.ndarray:
    """The race's progress ``x`` of :meth:`WinModel.sharpness` from the leading racing camel's
    space (one number or an array of them): the space over the track length, clipped to the
    track. The one home of ``x``: :func:`progress` of a state, the champion's joint outcomes
    and the training's roll luck on the batch core's rows all read it here."""
    return np.clip(lead, 1, track_length) / track_length


@dataclass(frozen=True)
class WinModel:
    """``P(seat wins)`` from equities (module docstring); ``model(states)`` is a
    :data:`camelup_env.odds.luck.ValueFn`."""

    beta: tuple[float, float, float]
    race_samples: int = WIN_RACE_SAMPLES
    #: the luck corrections' shares fitted for this model, ``(SHARE_LEGS, tiles)``
    #: (:class:`camelup_env.odds.luck.LuckLedger`), or None: every roll counts whole
    luck_shares: tuple[tuple[float, ...], ...] | None = None
    #: the luck covariates' weights fitted with the shares, ``(SHARE_LEGS,
    #: len(covariate_names))``, or None: the covariates are not counted
    luck_weights: tuple[tuple[float, ...], ...] | None = None
    #: the learned win network of this rule set, whose chances are one more luck covariate
    network: WinNetwork | None = None

    @property
    def covariate_names(self) -> tuple[str, ...]:
        """The rows of :meth:`covariates`: :data:`COVARIATES`, then the network's chances where
        the model has one."""
        return COVARIATES if self.network is None else (*COVARIATES, NETWORK_COVARIATE)

    def sharpness(self, x: np.ndarray | float) -> np.ndarray:
        """``beta(x)``, positive: more equity never lowers a seat's chance."""
        b0, b1, b2 = self.beta
        x = np.asarray(x)
        return np.exp(b0 + b1 * x + b2 * x * x)

    def from_features(self, equities: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Win probabilities of rows of equities ``(k, seats)`` at progress ``x`` ``(k,)``."""
        # the max and the sum column by column: numpy reduces a short last axis ten times
        # slower, and the afterstate player scores (rows x joint outcomes, seats) at a time
        top = equities[:, 0].copy()
        for column in equities.T[1:]:
            np.maximum(top, column, out=top)
        e = np.exp(self.sharpness(x)[:, None] * (equities - top[:, None]))
        total = e[:, 0].copy()
        for column in e.T[1:]:
            total += column
        return e / total[:, None]

    def __call__(self, states: Sequence[GameState]) -> np.ndarray:
        eq = np.stack([equity(s, self.race_samples) for s in states])
        return self.from_features(eq, np.array([progress(s) for s in states]))

    def covariates(self, states: Sequence[GameState]) -> np.ndarray:
        """The luck covariates (:data:`COVARIATES`) of each state, ``(len(states), 4, seats)``,
        each less the seats' mean: the seats' two parts of equity
        (:func:`equity_parts`) and their next captures (:func:`next_captures`), in tens of
        coins, then the chances to win with each seat's next capture counted in its equity
        (the bets the dice invite, taken before they are). A finished game's are its final
        coins, zeros and its win shares. The network's chances, where the model has one, are
        read on the batch core (:func:`camelup_env.batch.win_chances.luck_covariates` adds
        them). A :data:`camelup_env.odds.luck.CovariateFn`."""
        out = np.zeros((len(states), len(COVARIATES), states[0].rules.num_players))
        for i, state in enumerate(states):
            if state.game_over:
                out[i, 0] = np.asarray(state.coins) / 10.0
                out[i, 3] = win_shares(state)
                continue
            held, race = equity_parts(state, self.race_samples)
            capture = next_captures(state)
            out[i, :3] = held / 10.0, race / 10.0, capture / 10.0
            ahead = (held + race + capture)[None]
            out[i, 3] = self.from_features(ahead, np.array([progress(state)]))[0]
        return out - out.mean(axis=2, keepdims=True)


def load_win_model(rules: RuleSet, path: Path = SHIPPED) -> WinModel:
    """The fitted model of ``rules``' preset at its player count, else at the nearest fitted
    count, one whose entry has no win network first (the sharpness depends on the coins at
    stake more than on the seats; a network reads games of its own count only, so an entry's
    network serves its own count and the others take its tables fitted without the network,
    ``luck_shares_plain`` and ``luck_covariates_plain``). JSON and plain arrays only."""
    try:
        entries = json.loads(path.read_text())["models"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a win-model file ({exc})") from None
    fitted = {
        int(k.split("/")[1]): v for k, v in entries.items() if k.split("/")[0] == rules.preset
    }
    if not fitted:
        raise ValueError(
            f"no win-probability model for the {rules.preset} preset "
            f"(fitted: {', '.join(sorted(entries))})"
        )
    players = min(
        fitted,
        key=lambda p: (
            abs(p - rules.num_players),
            p != rules.num_players and "network" in fitted[p],
            p,
        ),
    )
    entry = fitted[players]
    beta = entry["beta"]
    if not (isinstance(beta, list) and len(beta) == 3 and all(isinstance(b, float) for b in beta)):
        raise ValueError(f"{path}: {rules.preset}/{players}: beta must be three numbers")
    where = f"{path}: {rules.preset}/{players}"
    network = _network(path, entry.get("network"), where)
    shares, weights = entry.get("luck_shares"), entry.get("luck_covariates")
    if network is not None and players != rules.num_players:
        # only where every nearest entry has a network: another count reads the entry's
        # tables fitted without it (training.odds.luck_shares fits both on the same games)
        network = None
        shares, weights = entry.get("luck_shares_plain"), entry.get("luck_covariates_plain")
    if network is not None and (network.players, network.preset) != (players, rules.preset):
        raise ValueError(f"{where}: its network reads {network.preset}/{network.players} games")
    width = len(COVARIATES) + (network is not None)
    return WinModel(
        (beta[0], beta[1], beta[2]),
        luck_shares=None if shares is None else _share_table(shares, where, "luck_shares"),
        luck_weights=None
        if weights is None
        else _share_table(weights, where, "luck_covariates", width),
        network=network,
    )


def _network(path: Path, name: object, where: str) -> WinNetwork | None:
    """An entry's ``network``: a file name in the ``win_networks`` folder beside ``path``
    (nothing else is read), or None where the entry names none."""
    if name is None:
        return None
    if not isinstance(name, str) or Path(name).name != name or not name.endswith(".npz"):
        raise ValueError(f"{where}: network must be a .npz file name in win_networks/")
    return load_win_network(path.parent / "win_networks" / name)


def _share_table(
    rows: object, where: str, name: str, width: int | None = None
) -> tuple[tuple[float, ...], ...]:
    """A ``luck_shares`` or ``luck_covariates`` entry checked: SHARE_LEGS rows of equal
    length (``width`` where given), finite numbers."""
    if not (
        isinstance(rows, list)
        and len(rows) == SHARE_LEGS
        and all(isinstance(r, list) and r and len(r) == len(rows[0]) for r in rows)
        and (width is None or len(rows[0]) == width)
        and all(
            isinstance(v, float | int) and not isinstance(v, bool) and np.isfinite(v)
            for r in rows
            for v in r
        )
    ):
        size = "equal length of" if width is None else f"{width}"
        raise ValueError(f"{where}: {name} must be {SHARE_LEGS} rows of {size} finite numbers")
    return tuple(tuple(float(v) for v in r) for r in rows)
