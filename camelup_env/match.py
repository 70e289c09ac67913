"""Play one game between agents in this process (``camelup play``), with forfeits and a timer.

:func:`play_game` deals and plays a game under a rule set. Each turn the seat on move receives a
fresh observation dict and a fresh :func:`public_view` copy of the state, never the game state
itself, so an agent cannot alter the game or see other players' race-bet colours (R10).

Forfeits. An agent that raises, returns anything but a legal action index, or overruns the
per-move time limit forfeits the game at once. Scoring of a forfeit (documented in the README):
the game stops; the forfeiting seat is ranked last and scored 0 coins; every other seat keeps
the coins it had at that moment (no final leg or race-bet scoring) and is ranked by them, and
the best of them win. A game still running after ``max_turns`` turns (possible only with agents
that never roll) stops the same way without a forfeit (``truncated``).

Time limit. :func:`alarm_timer` arms ``signal.setitimer(ITIMER_REAL)`` around the agent call;
the SIGALRM handler raises :class:`MoveTimeout` inside the agent, which interrupts sleeping and
busy Python code. A move that returns late anyway (a long call into C) is still a timeout, by
the measured wall time. An agent in this process can still reach anything in it: tournaments,
which play strangers' bots, run every bot in a process of its own instead (:mod:`tournament`),
and share this module's game loop (:func:`run_game`: the deal, the forfeit rules, the scoring).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from camelup_env.game.engine import apply_action
from camelup_env.game.events import Event
from camelup_env.game.legality import legal_action_mask
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.observation import LazyObservation, Observer, public_view

#: Turns after which a game is stopped (no forfeit; see the module docstring).
MAX_TURNS = 2000


class MoveTimeout(Exception):
    """Raised inside an agent whose move overran the time limit."""


class QuitGame(BaseException):
    """A human asked to leave (``q``); not a forfeit, the game is abandoned."""


@dataclass
class GameResult:
    """How a game ended. ``coins`` are the coins when it ended; ``scores`` are the coins that
    count (the forfeiting seat's set to 0); ``ranks`` are 1 = best, ties share a rank."""

    coins: list[int]
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    turns: int
    forfeit: dict | None = None  # {"seat": s, "reason": "..."}
    truncated: bool = False
    move_seconds: list[float] = field(default_factory=list)  # per seat, total thinking time


def game_rngs(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The setup RNG and the dice RNG of game ``seed`` (paired games share them)."""
    return np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])


# Observations ------------------------------------------------------------------------------
_OBSERVERS: dict[RuleSet, Observer] = {}


def observer(rules: RuleSet) -> Callable[[GameState, int], np.ndarray]:
    """``features(state, seat)``: the observation vector of a seat (one Observer per rules)."""
    if rules not in _OBSERVERS:
        _OBSERVERS[rules] = Observer(rules)
    return _OBSERVERS[rules].observe


def observe(state: GameState, seat: int, lazy: bool = True) -> dict[str, np.ndarray]:
    """The observation dict of ``seat``: flat float32 features and the int8 action mask.

    With ``lazy`` the features are computed on first access (:class:`LazyObservation`).
    """
    mask = legal_action_mask(state)
    if seat != state.current:
        mask[:] = 0
    features = observer(state.rules)
    if lazy:
        return LazyObservation(mask, lambda: features(state, seat))
    return {"observation": features(state, seat), "action_mask": mask}


# Timing ------------------------------------------------------------------------------------
def _raise_timeout(signum: int, frame: object) -> None:
    raise MoveTimeout("move time limit exceeded")


@contextlib.contextmanager
def alarm_timer(seconds: float | None) -> Iterator[None]:
    """Raise :class:`MoveTimeout` in the block after ``seconds`` (SIGALRM; main thread only)."""
    if not (
        seconds is not None
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    ):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# The game ----------------------------------------------------------------------------------
def check_action(action: object, mask: np.ndarray) -> str | None:
    """None if ``action`` is a legal index, else why not."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return f"illegal action: returned {type(action).__name__} {action!r}, not an int index"
    if not 0 <= int(action) < len(mask):
        return f"illegal action: index {int(action)} is out of range 0..{len(mask) - 1}"
    if not mask[int(action)]:
        return f"illegal action: index {int(action)} is not legal now"
    return None


def final_ranks(scores: Sequence[int], forfeit_seat: int | None) -> list[int]:
    """Competition ranks (1 = best, ties share) by score; a forfeiting seat is last alone."""
    keys = [(s != forfeit_seat, sc) for s, sc in enumerate(scores)]
    return [1 + sum(other > key for other in keys) for key in keys]


class Forfeit(Exception):
    """The seat ``seat`` (default: the seat on move) loses the game by forfeit; ``reason`` is
    recorded (module docstring, Forfeits)."""

    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.seat = reason, seat


#: ``move(state, thinking)``: the legal action of the seat on move, its thinking time added to
#: ``thinking[seat]``; raises :class:`Forfeit`.
Move = Callable[[GameState, list[float]], int]


def run_game(
    rules: RuleSet,
    seed: int,
    move: Move,
    *,
    max_turns: int = MAX_TURNS,
    on_deal: Callable[[GameState], None] | None = None,
    on_step: Callable[[GameState, int, int, tuple[Event, ...]], None] | None = None,
) -> tuple[GameResult, list[int]]:
    """The one game loop, for agents in this process (:func:`play_game`) and for bots in
    processes of their own (:func:`tournament.referee.play_match`): deal game ``seed``
    (:func:`game_rngs`), call ``on_deal(state)``, then until the race ends or ``max_turns``
    actions: ``move`` answers for the seat on move, the action is applied and recorded, and
    ``on_step(new_state, seat, action, events)`` runs. A :class:`Forfeit` from ``on_deal`` or
    ``move`` ends the game (module docstring). Returns the result and every action, in
    order."""
    setup_rng, dice_rng = game_rngs(seed)
    state = new_game(rules, seed=setup_rng)
    thinking = [0.0] * rules.num_players
    actions: list[int] = []
    forfeit = None
    try:
        if on_deal is not None:
            on_deal(state)
        while not state.game_over and len(actions) < max_turns:
            seat = state.current
            action = move(state, thinking)
            state, events = apply_action(state, action, dice_rng)
            actions.append(action)
            if on_step is not None:
                on_step(state, seat, action, events)
    except Forfeit as exc:
        forfeit = {"seat": state.current if exc.seat is None else exc.seat, "reason": exc.reason}
    return result_of(state, len(actions), forfeit, thinking), actions


def play_game(
    rules: RuleSet,
    agents: Sequence[Callable],
    seed: int,
    *,
    move_timeout: float | None = None,
    max_turns: int = MAX_TURNS,
    on_move_start: Callable[[GameState, int], None] | None = None,
    on_step: Callable[[GameState, int, int, tuple[Event, ...]], None] | None = None,
    catch: bool = True,
) -> GameResult:
    """Play a game of ``agents`` (one per seat) from ``seed`` (see :func:`game_rngs`).

    ``on_move_start(state, seat)`` runs before each agent call, ``on_step(new_state, seat,
    action, events)`` after each applied action (omniscient events; callers hide what a viewer
    may not see). With ``catch=False`` agent errors propagate instead of forfeiting.
    """
    if len(agents) != rules.num_players:
        raise ValueError(
            f"{rules.num_players} players need {rules.num_players} agents, got {len(agents)}"
        )

    def move(state: GameState, thinking: list[float]) -> int:
        seat = state.current
        observation = observe(state, seat)
        mask = observation["action_mask"].copy()
        view = public_view(state, seat)
        if on_move_start is not None:
            on_move_start(state, seat)
        start = time.perf_counter()
        try:
            with alarm_timer(move_timeout):
                action = agents[seat](observation, view)
        except MoveTimeout as exc:
            if not catch:
                raise
            raise Forfeit(f"timeout: move exceeded {move_timeout:g} s") from exc
        except Exception as exc:
            if not catch:
                raise
            raise Forfeit(f"raised {type(exc).__name__}: {exc}"[:300]) from exc
        elapsed = time.perf_counter() - start
        thinking[seat] += elapsed
        if move_timeout is not None and move_timeout > 0 and elapsed > move_timeout:
            raise Forfeit(f"timeout: move took {elapsed:.2f} s (limit {move_timeout:g} s)")
        problem = check_action(action, mask)
        if problem is not None:
            if not catch:
                raise ValueError(problem)
            raise Forfeit(problem)
        return int(action)

    return run_game(rules, seed, move, max_turns=max_turns, on_step=on_step)[0]


def result_of(
    state: GameState,
    turns: int,
    forfeit: dict | None,
    thinking: list[float] | None = None,
) -> GameResult:
    """Score a finished, forfeited or stopped game (module docstring)."""
    coins = list(state.coins)
    scores = list(coins)
    fseat = forfeit["seat"] if forfeit else None
    if fseat is not None:
        scores[fseat] = 0
    ranks = final_ranks(scores, fseat)
    winners = [s for s, r in enumerate(ranks) if r == 1]
    return GameResult(
        coins=coins,
        scores=scores,
        ranks=ranks,
        winners=winners,
        turns=turns,
        forfeit=forfeit,
        truncated=not state.game_over and forfeit is None,
        move_seconds=thinking or [0.0] * len(coins),
    )
