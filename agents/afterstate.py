"""The afterstate player: every legal move's outcomes valued by each seat's chance to win, the
move with the best exact expectation over the dice taken (max^n: the mover takes its own entry).

This is how backgammon's learners play (TD-Gammon: value the position after the move, average
over the dice exactly, take the best). On each move:

1. **Hidden cards dealt from a reading.** The mover sees its own race cards, not the other
   seats' colours (R10). The piles' hidden cards are read as the champion reads them
   (:class:`agents.race_beliefs.RaceCardReader`: the camel each card backs, weighed by the race
   odds of when it was placed) and ``deals`` complete games are drawn from that reading
   (:func:`agents.race_beliefs.deal_from_beliefs`), from the player's own seeded generator.
2. **Afterstates.** Every legal action and every outcome it can lead to (each die left and
   each of its faces for a pyramid tile, R4.3), with exact chances, on the batch core
   (:func:`camelup_env.batch.afterstates.afterstates`), for every deal.
3. **Values.** An outcome that ends the race is worth its win shares under each deal (the
   cards then decide, R7.2); any other is valued by the player's value function
   (:class:`AfterstateValue`): a learned network (:class:`NetworkValue`, reading the mover's
   own observation only, so the deal cannot change it), the equity model
   (:class:`EquityValue`), the win network (:class:`WinNetworkValue`, every seat's
   observation) or the standing (:class:`StandingValue`, the champion's comparison: the win
   model over the leg's joint outcomes); the last three read each deal's cards, so every deal
   is valued.
4. **Choice.** Each action's chances are the outcomes' values weighed by their chances and
   averaged over the deals; the mover takes the action with its own highest chance (ties: the
   lowest action index). With ``margin`` (coins) only among the champion's shortlist: the
   moves within ``margin`` of the best by the champion's expected coins
   (:meth:`agents.champion.ChampionAgent.shortlist`), so the value chooses where the champion
   would ask its own win model, and never takes a move that gives up more coins than that
   for a chance the value may overrate (the values learned so far overrate passes). A value
   file may carry the margin it plays best at (``AfterstateNetwork.margin``): it plays there
   unless the spec's ``margin`` says otherwise.

Deterministic given the seed of :meth:`AfterstateAgent.reset` (a tournament passes each game's).
``docs/afterstate.md`` has the method, the gate (which value this choice rule needs) and every
training attempt with its paired figure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from agents import shipped
from agents.afterstate_network import (
    AfterstateNetwork,
    load_afterstate_network,
    relative_to_seats,
    seats_to_relative,
)
from agents.base import Agent, Observation
from agents.champion import ChampionAgent
from agents.race_beliefs import RaceCardReader, deal_from_beliefs, pile_payouts
from agents.standing import row_outcomes
from camelup_env import odds
from camelup_env.batch import BatchGames
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.batch.afterstates import Afterstates, afterstates
from camelup_env.batch.arrays import BatchState
from camelup_env.batch.win_chances import network_chances
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.rewards import win_shares
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import HIDDEN, GameState
from camelup_env.odds.win import WinModel, lead_progress, load_win_model
from camelup_env.odds.win_network import WinNetwork

#: complete games drawn from the reading of the hidden cards, per move
DEALS = 8
#: the race odds the reading weighs new cards by (the champion's default)
RACE_SAMPLES = 1000


class AfterstateValue(Protocol):
    """Each seat's chance to win positions of a batch, as ``viewer`` may judge them.

    A value may also have ``read(beliefs)``: the player hands it the mover's reading of the
    piles' cards (:meth:`agents.race_beliefs.RaceCardReader.update`) before each move's rows
    are judged, for a value that pays the piles by it (:class:`StandingValue` with
    ``by_reading``)."""

    #: whether the value reads the dealt hidden cards (then every deal is valued, else one)
    reads_hidden_cards: bool

    def check_rules(self, rules: RuleSet) -> None:
        """Refuse, saying why, a rule set the value cannot judge."""

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        """``(len(rows), players)`` in seat order: each seat's chance to win the outcome rows
        ``rows`` of ``after`` (running games), judged by ``viewer``."""
        ...


class NetworkValue:
    """A learned :class:`~agents.afterstate_network.AfterstateNetwork` on the viewer's own
    ``camelup_v1`` observation (which holds no other seat's card colour). A network with the
    standing's skip adds to the standing by the mover's reading (:class:`StandingValue` with
    ``by_reading``), which the player hands the reading (:meth:`read`)."""

    reads_hidden_cards = False

    def __init__(self, network: AfterstateNetwork) -> None:
        self.network = network
        self._features: dict[RuleSet, AfterstateFeatures] = {}
        self.standing = StandingValue(by_reading=True) if network.standing_skip else None

    def check_rules(self, rules: RuleSet) -> None:
        self.network.check_rules(rules)
        if self.standing is not None:
            self.standing.check_rules(rules)

    def read(self, beliefs: tuple[np.ndarray, np.ndarray]) -> None:
        if self.standing is not None:
            self.standing.read(beliefs)

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        rules = after.games.rules
        features = self._features.get(rules)
        if features is None:
            network = self.network
            features = self._features[rules] = AfterstateFeatures(
                rules, network.observer, network.leg_equity, network.race_equity, network.captures
            )
        inputs = features.rows(after, rows, viewer)
        viewers = np.full(len(rows), viewer)
        standing = None
        if self.standing is not None:
            standing = seats_to_relative(self.standing.chances(after, rows, viewer), viewers)
        return relative_to_seats(self.network.chances(inputs, standing), viewers)


class EquityValue:
    """The shipped equity win model (:mod:`camelup_env.odds.win`): each seat's coins plus what
    it holds, at the exact leg odds and the race estimate, on every deal (the model would
    otherwise draw a public view's hidden cards itself, from today's odds rather than the
    reading, at many times the cost)."""

    reads_hidden_cards = True

    def __init__(self, model: WinModel | None = None) -> None:
        self.model = model
        self._models: dict[RuleSet, WinModel] = {}

    def check_rules(self, rules: RuleSet) -> None:
        self.model_of(rules)

    def model_of(self, rules: RuleSet) -> WinModel:
        """The model given, else the shipped one of ``rules``."""
        if self.model is not None:
            return self.model
        if rules not in self._models:
            self._models[rules] = load_win_model(rules)
        return self._models[rules]

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        return np.asarray(self.model_of(after.games.rules)(after.games.to_states(rows)))


class WinNetworkValue:
    """A shipped win network (:mod:`camelup_env.odds.win_network`): every seat's own
    observation of a dealt game, its cards included; valued on every deal."""

    reads_hidden_cards = True

    def __init__(self, network: WinNetwork | None = None) -> None:
        self.network = network
        self._networks: dict[RuleSet, WinNetwork] = {}

    def check_rules(self, rules: RuleSet) -> None:
        self._network(rules)

    def _network(self, rules: RuleSet) -> WinNetwork:
        if self.network is not None:
            self.network.check_rules(rules)
            return self.network
        if rules not in self._networks:
            network = load_win_model(rules).network
            if network is None or network.players != rules.num_players:
                raise ValueError(
                    f"no win network is shipped for {rules.preset} with {rules.num_players} players"
                )
            self._networks[rules] = network
        return self._networks[rules]

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        network = self._network(after.games.rules)
        return network_chances(network, after.games.to_states(rows))


class StandingValue:
    """Each seat's chance to win as the champion compares its moves (:mod:`agents.standing`):
    the shipped win model (:mod:`camelup_env.odds.win`) applied to every seat's coins in each
    of the leg's joint outcomes with the race's winner and loser
    (:func:`camelup_env.odds.leg_scenarios`), then averaged. Where :class:`EquityValue`
    scores the mean of what each seat holds, this scores each outcome and takes the mean of
    the chances: a bet that pays when the rivals' bets pay keeps a leader's lead whatever the
    dice do, and the win model's curve rewards that. On every deal: the dealt cards are paid
    as they lie in each outcome.

    With ``by_reading`` the piles are paid as the champion pays them: each hidden card by the
    mover's reading of it (:meth:`read`, the beliefs the deals are drawn from), in expectation,
    so one valuation per outcome serves every deal (a card on the piles that a row adds is its
    own). Eight times fewer valuations a move; what it gives up is the spread of each
    outcome's coins over the hidden cards, which the deals score and the reading averages."""

    def __init__(
        self,
        model: WinModel | None = None,
        race_samples: int = RACE_SAMPLES,
        by_reading: bool = False,
    ) -> None:
        self.equity = EquityValue(model)
        self.race_samples = int(race_samples)
        self.by_reading = by_reading
        #: whether every deal is valued (its cards as they lie) or one row serves them all
        self.reads_hidden_cards = not by_reading
        self._beliefs: tuple[np.ndarray, np.ndarray] | None = None

    def check_rules(self, rules: RuleSet) -> None:
        if rules.wanderer:
            raise ValueError(
                f"the standing needs the leg's joint outcomes, which {rules.preset} (the desert "
                "wanderer's) has not"
            )
        self.equity.check_rules(rules)

    def read(self, beliefs: tuple[np.ndarray, np.ndarray]) -> None:
        self._beliefs = beliefs

    def chances(self, after: Afterstates, rows: np.ndarray, viewer: int) -> np.ndarray:
        """Rows grouped by position (board, tiles, dice left): each group shares one set of
        joint outcomes, scored for all its rows at once (:func:`agents.standing.row_outcomes`)."""
        rules = after.games.rules
        model = self.equity.model_of(rules)
        games = after.games.state
        out = np.empty((len(rows), rules.num_players))
        if not len(rows):
            return out
        position = games.leg_position(rows)
        _, first, group = np.unique(position, axis=0, return_index=True, return_inverse=True)
        group = group.reshape(-1)
        winner_pays, loser_pays = self._pile_payouts(games, rows)
        for g, s in enumerate(after.games.to_states(rows[first])):
            sc = odds.leg_scenarios(s, self.race_samples)
            assert sc is not None  # a running race of a rule set check_rules let through
            mine = np.flatnonzero(group == g)
            coins = row_outcomes(games, rows[mine], sc, winner_pays[mine], loser_pays[mine])
            k, N, P = coins.shape
            x = np.tile(lead_progress(sc.lead, rules.track_length), k)
            chances = model.from_features(coins.reshape(k * N, P), x)
            out[mine] = chances.reshape(k, N, P).mean(axis=1)
        return out

    def _pile_payouts(self, games: BatchState, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(len(rows), R, seats)`` for the winner and the loser pile: what each seat's cards
        on each row's pile pay given the pile's camel (:func:`agents.race_beliefs.pile_payouts`).
        A dealt game's cards are paid by their camels, all of them known; ``by_reading``, the
        cards the move's source had by the mover's reading of them, and those a row put on top
        by their own. Rows with the same piles share one computation."""
        rules = games.rules
        R, n, pay = rules.n_racing, rules.num_players, rules.race_bet_payouts
        read: tuple[np.ndarray, np.ndarray] = (np.zeros((0, R)), np.zeros((0, R)))
        if self.by_reading:
            if self._beliefs is None:
                raise RuntimeError("the standing by the reading judges after read(beliefs)")
            read = self._beliefs
        out = np.zeros((2, len(rows), R, n))
        found: dict[tuple[int, bytes, bytes], np.ndarray] = {}
        for p, known in enumerate(read):
            lengths = games.pile_len[rows, p].tolist()
            owners, camels = games.pile_owner[rows, p], games.pile_camel[rows, p]
            for i, m in enumerate(lengths):
                added = camels[i, len(known) : m]
                key = (p, owners[i, :m].tobytes(), added.tobytes())
                if key not in found:
                    if (added == HIDDEN).any():
                        raise ValueError(
                            "the standing pays a card it does not know: deal the game first"
                        )
                    pile = tuple(zip(owners[i, :m].tolist(), camels[i, :m].tolist(), strict=True))
                    beliefs = np.vstack([known, np.eye(R)[added]])
                    found[key] = pile_payouts(pile, beliefs, pay, n)
                out[p, i] = found[key]
        return out[0], out[1]


class AfterstateAgent(Agent):
    """The afterstate choice of the module docstring over ``value``: 1-ply, or with
    ``plies=2`` the ``candidates`` best 1-ply actions compared once more, each outcome then
    worth what the next mover's best reply (chosen by the same value in the replier's eyes,
    with the dealt cards) leaves, judged in the mover's own eyes."""

    description = "each move's outcomes valued by every seat's chance to win, exact over the dice"
    per_game = True  # the reader's memory of the piles (agents.race_beliefs)

    def __init__(
        self,
        value: AfterstateValue,
        deals: int = DEALS,
        greed: float = 8.0,
        seed: int = 0,
        plies: int = 1,
        candidates: int = 3,
        margin: float | None = None,
    ) -> None:
        if deals < 1:
            raise ValueError(f"deals must be >= 1, got {deals}")
        if plies not in (1, 2):
            raise ValueError(f"plies must be 1 or 2, got {plies}")
        if candidates < 1:
            raise ValueError(f"candidates must be >= 1, got {candidates}")
        self.value = value
        self.deals = int(deals)
        self.reader = RaceCardReader(greed)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.plies = plies
        self.candidates = int(candidates)
        #: the champion whose shortlist the choice is made from (``margin``), or None
        self.screen = None if margin is None else ChampionAgent(margin=margin, greed=greed)

    def reset(self, seed: int | None = None) -> None:
        self.reader.reset()
        if self.screen is not None:
            self.screen.reset()
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def warmup(self, public_state: GameState) -> None:
        self.value.check_rules(public_state.rules)
        self.choose(public_state)
        self.reset()

    def act(self, observation: Observation, public_state: GameState) -> int:
        return self.choose(public_state)

    def choose(self, s: GameState) -> int:
        """The action with the mover's highest expected chance (ties: the lowest index)."""
        return int(np.argmax(self.action_chances(s)[:, s.current]))

    def action_chances(self, s: GameState) -> np.ndarray:
        """``(actions, players)``: each seat's chance to win after each action, exact over
        the dice and averaged over the deals; ``-inf`` rows for illegal actions (with
        ``plies=2``, for every action but the candidates)."""
        me = s.current
        after, values = self.outcome_values(s)
        q = after.expect(values).mean(axis=0)
        if self.screen is not None:
            _, near, _ = self.screen.shortlist(s, legal_action_indices(s))
            q[np.setdiff1d(np.arange(len(q)), near)] = -np.inf
        if self.plies == 1:
            return q
        legal = np.flatnonzero(np.isfinite(q[:, me]))
        top = legal[np.argsort(-q[legal, me], kind="stable")[: self.candidates]]
        rows = np.flatnonzero(np.isin(after.action, top) & ~after.ended)
        if rows.size:
            replies = afterstates(after.games.take(rows))
            reply_values = np.empty((len(replies), s.rules.num_players))
            movers = replies.source.current_player[replies.game]
            for viewer in np.unique(movers):
                mine = np.flatnonzero(movers == viewer)
                reply_values[mine] = self._judge(
                    replies, mine[~replies.ended[mine]], int(viewer), share=False
                )[mine]
            worth = replies.expect(reply_values)  # (rows, actions, players)
            mover = replies.source.current_player
            best = np.argmax(worth[np.arange(len(rows)), :, mover], axis=1)
            # the reply is the replier's choice, what it leaves is judged by the mover's eyes:
            # in the replier's, what only the mover knows (its cards) would count for nothing
            chosen = np.flatnonzero(replies.action == best[replies.game])
            mine = self._judge(replies, chosen[~replies.ended[chosen]], me, share=False)
            kept = np.zeros_like(mine)
            kept[chosen] = mine[chosen]
            values[rows] = replies.expect(kept)[np.arange(len(rows)), best]
        out = np.full_like(q, -np.inf)
        out[top] = after.expect(values).mean(axis=0)[top]
        return out

    def outcome_values(self, s: GameState) -> tuple[Afterstates, np.ndarray]:
        """The afterstates of the deals of ``s`` (steps 1-2 of the module docstring: every
        deal's rows laid out alike, one deal where nothing on the piles is hidden) and each
        row's chances in seat order (step 3): what the 1-ply choice averages. Reads the piles
        into the mover's memory, as each move does."""
        me = s.current
        race = odds.position_odds(s, RACE_SAMPLES).race
        beliefs = self.reader.update(s, me, race.winner, race.loser)
        hidden = any(c == HIDDEN for _, c in (*s.winner_pile, *s.loser_pile))
        # nothing hidden on the piles: one deal, the others' hands being what they have left
        deals = [
            deal_from_beliefs(s, beliefs, self.rng) for _ in range(self.deals if hidden else 1)
        ]
        after = afterstates(BatchGames.from_states(deals))
        read = getattr(self.value, "read", None)  # a value that pays the piles by the reading
        if read is not None:
            read(beliefs)
        return after, self._judge(after, np.flatnonzero(~after.ended), me, share=True)

    def _judge(
        self, after: Afterstates, running: np.ndarray, viewer: int, share: bool
    ) -> np.ndarray:
        """Every row's chances in seat order: the win shares where the race ended (the cards
        as dealt), ``value``'s judgement by ``viewer`` of the ``running`` rows. ``share``: the
        source games are the deals of one position, whose running rows a value that reads no
        hidden card judges alike, so only the first deal's are valued."""
        values = win_shares(after.games.state.coins)
        if self.value.reads_hidden_cards or not share:
            if running.size:
                values[running] = self.value.chances(after, running, viewer)
            return values
        first = running[running < after.offsets[1]]
        judged = self.value.chances(after, first, viewer)
        values[running] = judged[np.searchsorted(first, running % after.offsets[1])]
        return values


#: the values ``afterstate:NAME`` plays that exist without learning or a file (the gate's)
BUILT_IN: dict[str, Callable[[], AfterstateValue]] = {
    "equity": EquityValue,
    "standing": StandingValue,
    "standing-reading": lambda: StandingValue(by_reading=True),
    "win-network": WinNetworkValue,
}


class FileMargin:
    """The default ``margin`` of :func:`load`: the file's own (``AfterstateNetwork.margin``),
    none for a value that is no file."""

    def __repr__(self) -> str:
        return "the file's margin"


FILE_MARGIN = FileMargin()


def load(
    spec: str,
    deals: int = DEALS,
    greed: float = 8.0,
    seed: int = 0,
    plies: int = 1,
    candidates: int = 3,
    margin: float | FileMargin | None = FILE_MARGIN,
) -> AfterstateAgent:
    """``afterstate:SPEC``: a learned network file (``path/to/value.npz``, or a shipped one's
    name: :func:`agents.shipped.value_names`), or one of the values that exist without
    learning - ``equity`` (the equity win model), ``standing`` (the win model over the leg's
    joint outcomes, the champion's comparison) or ``win-network`` (the shipped win network of
    the game's rule set). A file plays on the champion's shortlist it carries unless
    ``margin`` says otherwise (a number of coins, or None for every legal move)."""
    value: AfterstateValue
    if spec in BUILT_IN:
        value = BUILT_IN[spec]()
        own = None
    else:
        network = load_afterstate_network(shipped.value_path(spec))
        value, own = NetworkValue(network), network.margin
    chosen = own if isinstance(margin, FileMargin) else margin
    return AfterstateAgent(value, deals, greed, seed, plies, candidates, chosen)
