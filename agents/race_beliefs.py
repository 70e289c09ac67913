"""Which camel each hidden race card backs, read from who placed it and when.

A race card on a pile shows its owner but not its camel (R7.2, R10), yet the order of a pile is
public, and players back the camel that looks best *when they bet*. A seat that watches the
piles between its turns sees each new card arrive together with the race odds of that moment,
so it can weigh each camel by those odds instead of today's (the Camel Up Cup's bots measured
this as their one information edge that held up; see ``docs/champion.md``).

:class:`RaceCardReader` keeps, per seat it plays, the belief of every card on the two piles:

* a card whose camel the view shows (the seat's own) is certain;
* a hidden card that arrived since the seat's last turn is weighed ``p(c) ** greed`` (renormed),
  ``p`` the mean of the race odds at the seat's previous turn and now (the card was placed in
  between), for the winner pile P(win), for the loser pile P(last); ``greed`` above 1 sharpens
  the belief toward the favourite, which is what greedy-like bettors back;
* an owner holds one card per camel (R4.4), so each new card's weight is multiplied by the
  chance that the owner's earlier cards (both piles) do not already back that camel;
* cards found on the piles the first time a seat is seen (a game joined late) are weighed by
  today's odds.

:func:`pile_payouts` turns the beliefs into what every seat is paid given the pile's camel, and
:func:`new_card_payouts` into what a card put on top now would be paid; :func:`odds_beliefs`
is the same beliefs without the reading (greedy's model), to measure the reading against.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from camelup_env.game.state import HIDDEN, GameState

Pile = tuple[tuple[int, int], ...]


@dataclass
class _Seen:
    """One seat's view of the piles at its last turn, with each card's belief row."""

    piles: tuple[Pile, Pile] = ((), ())
    odds: tuple[np.ndarray, np.ndarray] | None = None  # (P(win), P(last)) at that turn
    beliefs: tuple[list[np.ndarray], list[np.ndarray]] = field(default_factory=lambda: ([], []))


class RaceCardReader:
    """Beliefs over the camels of the race cards on the piles (module docstring)."""

    def __init__(self, greed: float = 8.0) -> None:
        if greed < 0:
            raise ValueError(f"greed must be >= 0, got {greed}")
        self.greed = float(greed)
        self._seen: dict[int, _Seen] = {}

    def reset(self) -> None:
        """Forget every game seen (a new game starts)."""
        self._seen.clear()

    def update(
        self, s: GameState, seat: int, win: np.ndarray, last: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The beliefs ``(winner pile, loser pile)``, each ``(cards, R)`` with rows summing to 1,
        after reading ``s`` as ``seat`` with the race odds ``win`` / ``last`` of now. A pile
        that is not the one remembered grown by new cards on top means another game: the seat's
        memory starts again."""
        seen = self._seen.get(seat)
        piles = (s.winner_pile, s.loser_pile)
        if seen is None or any(p[: len(q)] != q for p, q in zip(piles, seen.piles, strict=True)):
            seen = _Seen()
        now = (np.asarray(win, float), np.asarray(last, float))
        then = now if seen.odds is None else seen.odds
        beliefs = (list(seen.beliefs[0]), list(seen.beliefs[1]))
        for k, pile in enumerate(piles):
            probs = (then[k] + now[k]) / 2
            for owner, camel in pile[len(seen.piles[k]) :]:
                beliefs[k].append(self._belief(owner, camel, probs, piles, beliefs))
        self._seen[seat] = _Seen(piles, now, beliefs)
        R = len(now[0])
        return tuple(  # type: ignore[return-value]
            np.array(b).reshape(len(b), R) for b in beliefs
        )

    def _belief(
        self,
        owner: int,
        camel: int,
        probs: np.ndarray,
        piles: tuple[Pile, Pile],
        beliefs: tuple[list[np.ndarray], list[np.ndarray]],
    ) -> np.ndarray:
        R = len(probs)
        if camel >= 0:
            return np.eye(R)[camel]
        weight = np.maximum(probs, 0.0) ** self.greed
        for k in range(2):  # the owner's cards believed so far, on either pile
            for (q, _), row in zip(piles[k], beliefs[k], strict=False):
                if q == owner:
                    weight = weight * (1.0 - row)
        total = weight.sum()
        return weight / total if total > 0 else np.full(R, 1.0 / R)


def odds_beliefs(s: GameState, win: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Greedy's model as beliefs (no reading): a hidden card backs each camel with today's
    race odds (``win`` on the winner pile, ``last`` on the loser pile), a seen card its camel.
    With one hidden card per owner this is :func:`camelup_env.game.payouts.race_card_ev`'s
    model; an owner's second card is counted apart here, where greedy's lets an owner back a
    camel at most once (``1 - (1 - p) ** j`` for ``j`` cards)."""
    R = len(win)
    return tuple(  # type: ignore[return-value]
        np.array([np.eye(R)[c] if c >= 0 else p for _, c in pile]).reshape(len(pile), R)
        for pile, p in ((s.winner_pile, win), (s.loser_pile, last))
    )


def _correct_before(beliefs: np.ndarray) -> np.ndarray:
    """``out[j, c, x]``: P(x of the cards below card ``j`` back camel ``c``), the cards
    independent (a Poisson-binomial per camel), for ``j`` = 0 .. cards (the last is a card on
    top)."""
    m, R = beliefs.shape
    out = np.zeros((m + 1, R, m + 1))
    dist = np.zeros((R, m + 1))
    dist[:, 0] = 1.0
    for j in range(m):
        out[j] = dist
        q = beliefs[j][:, None]
        grown = dist * (1.0 - q)
        grown[:, 1:] += dist[:, :-1] * q
        dist = grown
    out[m] = dist
    return out


def _paid(payouts: tuple[int, ...], m: int) -> np.ndarray:
    """The payout of a correct card with ``x`` correct cards below it, for x = 0 .. m."""
    last = len(payouts) - 1
    return np.array([payouts[min(x, last)] for x in range(m + 1)], dtype=float)


def pile_payouts(
    pile: Pile, beliefs: np.ndarray, payouts: tuple[int, ...], num_players: int
) -> np.ndarray:
    """``(R, seats)``: each seat's expected coins from the cards on ``pile`` given that camel
    ``c`` is the pile's camel (R7.2): a card pays ``payouts[x]`` when it backs ``c`` with ``x``
    cards backing ``c`` below it, else -1; the cards' camels drawn from ``beliefs``."""
    R = beliefs.shape[1]
    out = np.zeros((R, num_players))
    if not pile:
        return out
    below = _correct_before(beliefs)
    paid = _paid(payouts, len(pile))
    for j, (owner, _) in enumerate(pile):
        q = beliefs[j]
        out[:, owner] += q * (below[j] @ paid) - (1.0 - q)
    return out


def new_card_payouts(pile: Pile, beliefs: np.ndarray, payouts: tuple[int, ...]) -> np.ndarray:
    """``(R,)``: what a card on camel ``c`` put on top of ``pile`` now is paid if ``c`` is the
    pile's camel, the cards below drawn from ``beliefs`` (it pays -1 otherwise)."""
    if not pile:
        return np.full(beliefs.shape[1], float(payouts[0]))
    return _correct_before(beliefs)[len(pile)] @ _paid(payouts, len(pile))


def deal_from_beliefs(
    view: GameState, beliefs: tuple[np.ndarray, np.ndarray], rng: np.random.Generator
) -> GameState:
    """A complete game consistent with a seat's public view, its hidden race cards drawn from
    ``beliefs`` (winner pile, loser pile, as :meth:`RaceCardReader.update` gives them): card by
    card in pile order, each among the colours its owner has not placed yet in this deal
    (R4.4: one card per colour), weighed by its belief row (uniformly where the row leaves no
    colour); each hidden hand the colours its owner has left."""
    n = view.rules.n_racing
    used: dict[int, int] = {}  # owner -> bit mask of colours placed (seen or dealt)
    for pile in (view.winner_pile, view.loser_pile):
        for owner, camel in pile:
            if camel != HIDDEN:
                used[owner] = used.get(owner, 0) | 1 << camel
    piles = []
    for pile, rows in zip((view.winner_pile, view.loser_pile), beliefs, strict=True):
        dealt = []
        for (owner, camel), row in zip(pile, rows, strict=True):
            if camel == HIDDEN:
                free = (used.get(owner, 0) >> np.arange(n) & 1) == 0
                weight = np.where(free, np.maximum(row, 0.0), 0.0).cumsum()
                if weight[-1] <= 0:
                    weight = free.cumsum().astype(float)
                camel = int(np.searchsorted(weight, rng.random() * weight[-1], side="right"))
                used[owner] = used.get(owner, 0) | 1 << camel
            dealt.append((owner, camel))
        piles.append(tuple(dealt))
    full = (1 << n) - 1
    hands = tuple(
        full & ~used.get(seat, 0) if hand == HIDDEN else hand
        for seat, hand in enumerate(view.hands)
    )
    out = view.copy()
    out.winner_pile, out.loser_pile = piles
    out.hands = hands
    return out
