"""Games a person plays in the browser: one seat a person, every other seat an isolated bot.

A :class:`WebGame` is the referee's game (:mod:`tournament.referee`) with one seat answered by
clicks instead of a bot: the same deal and dice for a seed
(:func:`camelup_env.match.game_rngs`), bot processes started through the tournament's sandbox
(:class:`tournament.bots.BotProcess`, the tournament's default limits, each in a folder of its
own) and asked with
:func:`tournament.referee.ask_move`, and the same forfeits (:func:`camelup_env.match.result_of`).
The person has no deadline; an illegal click is refused without a forfeit (the page only offers
legal ones). A bot that cannot even load refuses the game instead (there is no game to score).

The real state never leaves this module: :meth:`WebGame.view` is the person's public view
(R10) and every turn's events are stored as the person may see them, so a page cannot show what
a bot in that seat would not be told: another seat's race bet is stored without its action index
(which names the colour). The seed decides the dice, so the pages show it only once the game is
over, and a bot's seed is derived from it one way (:func:`bot_seed`): a bot cannot work the dice
out from its own seed. Each game has an unguessable id; :class:`GameStore` keeps them
server-side, several at once, closes a game's bots when it ends, and on a timer of its own
closes and forgets games left idle, so an abandoned tab frees its bots within minutes.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from camelup_env.game.actions import RaceBet, action_table
from camelup_env.game.engine import apply_action
from camelup_env.game.events import Event
from camelup_env.game.events import public_view as hide_event
from camelup_env.game.legality import legal_action_indices, legal_action_mask
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.match import MAX_TURNS, GameResult, check_action, game_rngs, result_of
from camelup_env.observation import public_view
from tournament import protocol
from tournament.bots import BotFault, BotProcess
from tournament.config import AgentEntry, TournamentConfig
from tournament.referee import ask_move


class GameError(ValueError):
    """A request the game cannot take; the message is the one-line answer."""


class StaleTurn(GameError):
    """An action sent for a turn that is already over (a second click, another tab)."""


class TooManyGames(GameError):
    """The store holds as many unfinished games as it may, in all or for one client."""


def bot_seed(seed: int, seat: int) -> int:
    """The seed a seat's bot is given in game ``seed``: a hash of the two, 63 bits (a JSON
    number every language reads), from which the game's seed cannot be worked back."""
    digest = hashlib.blake2b(f"{seed}:{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True)
class Turn:
    """One move as the person sees it: who, which action, and the events (hidden as R10 says).
    ``action`` is None for another seat's race bet: its index names the card's colour."""

    seat: int
    action: int | None
    events: tuple[Event, ...]


class WebGame:
    """One game (module docstring). Call :meth:`start` once; then :meth:`play` the person's
    moves. Methods are not thread-safe: callers (one request at a time) hold ``lock``."""

    def __init__(
        self,
        rules: RuleSet,
        seat: int,
        opponents: Sequence[AgentEntry],
        seed: int,
        client: str = "",
    ) -> None:
        if len(opponents) != rules.num_players - 1:
            raise GameError(
                f"{rules.num_players} players need {rules.num_players - 1} "
                f"opponents, got {len(opponents)}"
            )
        self.id = secrets.token_urlsafe(12)
        self.rules, self.seat, self.seed, self.client = rules, seat, seed, client
        others = iter(opponents)
        self._entries = {s: next(others) for s in range(rules.num_players) if s != seat}
        self.labels = [
            "you" if s == seat else self._entries[s].label for s in range(rules.num_players)
        ]
        setup_rng, self._dice_rng = game_rngs(seed)
        self._state = new_game(rules, seed=setup_rng)
        self._thinking = [0.0] * rules.num_players
        self._bots: dict[int, BotProcess] = {}
        self.turns: list[Turn] = []
        self.forfeit: dict | None = None
        self.lock = threading.Lock()
        self.last_used = time.monotonic()

    # What the person may see ---------------------------------------------------------------
    def view(self) -> GameState:
        """The person's public view of the game (R10). Once the race is over the piles show
        every card, as the final scoring turned them face up (R7.2); hands stay hidden."""
        view = public_view(self._state, self.seat)
        if self._state.game_over:
            view.winner_pile, view.loser_pile = self._state.winner_pile, self._state.loser_pile
        return view

    @property
    def over(self) -> bool:
        return self.forfeit is not None or self._state.game_over or len(self.turns) >= MAX_TURNS

    def legal(self) -> list[int]:
        """The action indices the person may play now (none unless it is their turn)."""
        if self.over or self._state.current != self.seat:
            return []
        return legal_action_indices(self._state)

    def result(self) -> GameResult | None:
        """The final result once the game is over, else None."""
        if not self.over:
            return None
        return result_of(self._state, len(self.turns), self.forfeit, self._thinking)

    # Playing -------------------------------------------------------------------------------
    def start(self) -> None:
        """Start every bot (loading and warm-up, as before a tournament's game) and play the
        bots' turns up to the person's first. :class:`GameError` naming every bot that could
        not load (their processes ended; the caller closes the rest)."""
        limits = TournamentConfig().limits()
        for seat, entry in self._entries.items():
            self._bots[seat] = BotProcess(entry, limits, private_dir=True)
        with ThreadPoolExecutor(len(self._bots)) as threads:  # they load side by side
            faults = dict(zip(self._bots, threads.map(self._begin, self._bots), strict=True))
        failed = [f"P{s} ({self.labels[s]}): {f}" for s, f in faults.items() if f is not None]
        if failed:
            raise GameError("could not start " + "; ".join(failed))
        self._bots_play()

    def _begin(self, seat: int) -> BotFault | None:
        try:
            self._bots[seat].begin(0, seat, bot_seed(self.seed, seat), self.rules)
        except BotFault as fault:
            return fault
        return None

    def play(self, turn: int, action: int) -> None:
        """The person plays ``action`` as move number ``turn`` (the number of moves before
        it, so a repeated click cannot play twice); then the bots play up to the person's next
        turn or the end."""
        if self.over:
            raise GameError("the game is over")
        if turn != len(self.turns):
            raise StaleTurn(
                f"not move {turn}: the game is at move {len(self.turns)} (a second click, or "
                "another tab); reload the page"
            )
        if self._state.current != self.seat:
            raise GameError("it is not your turn")
        problem = check_action(action, legal_action_mask(self._state))
        if problem is not None:
            raise GameError(problem)
        self._apply(action)
        self._bots_play()

    def close(self) -> None:
        """Tell the bots how the game ended (if it did) and end their processes."""
        result = self.result()
        for bot in self._bots.values():
            if result is not None and bot.process.poll() is None:
                bot.tell(protocol.end_message(result.coins, result.ranks, result.forfeit))
            bot.close()
        self._bots.clear()

    def _apply(self, action: int) -> None:
        seat = self._state.current
        self._state, events = apply_action(self._state, action, self._dice_rng)
        hidden = seat != self.seat and isinstance(action_table(self.rules).actions[action], RaceBet)
        self.turns.append(
            Turn(seat, None if hidden else action, tuple(hide_event(e, self.seat) for e in events))
        )

    def _bots_play(self) -> None:
        """The bots' turns up to the person's next. The game counts as used when they are done:
        loading and thinking can outlast the idle limit."""
        try:
            while not self.over and self._state.current != self.seat:
                seat = self._state.current
                try:
                    action = ask_move(self._bots[seat], self._state, self._thinking)
                except BotFault as fault:
                    self._forfeit(seat, fault)
                    return
                self._apply(action)
            if self.over:
                self.close()
        finally:
            self.last_used = time.monotonic()

    def _forfeit(self, seat: int, fault: BotFault) -> None:
        self.forfeit = {"seat": seat, "reason": str(fault)}
        self._bots.pop(seat).kill()
        self.close()


class GameStore:
    """The games by id (module docstring). At most ``max_games`` unfinished games at once, and
    ``per_client`` of them for one client address (each runs bot processes). An unfinished game
    untouched for ``idle_seconds`` is closed (its bots end) and forgotten; a finished one, which
    keeps only its page, after ``finished_seconds``, and the oldest go first beyond
    ``max_finished``. :meth:`sweep` does it, on a timer (:meth:`start_sweeping`), not in a
    request: closing bots takes a moment."""

    def __init__(
        self,
        max_games: int = 8,
        per_client: int = 4,
        idle_seconds: float = 600.0,
        finished_seconds: float = 600.0,
        max_finished: int = 500,
    ) -> None:
        self.max_games, self.per_client = max_games, per_client
        self.idle_seconds, self.finished_seconds = idle_seconds, finished_seconds
        self.max_finished = max_finished
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    def add(self, game: WebGame) -> None:
        """Keep ``game`` (:class:`TooManyGames` when the store or its client has no room)."""
        with self._lock:
            playing = [g for g in self._games.values() if not g.over]
            if len(playing) >= self.max_games:
                raise TooManyGames(
                    f"{self.max_games} games are open already; finish one or "
                    "restart camelup serve with a larger --max-games"
                )
            if sum(g.client == game.client for g in playing) >= self.per_client:
                raise TooManyGames(
                    f"you have {self.per_client} unfinished games open already; finish one, "
                    f"or leave it and it closes after {self.idle_seconds:g} s idle"
                )
            self._games[game.id] = game

    def get(self, game_id: str) -> WebGame:
        """The game ``game_id`` (:class:`KeyError` if there is none)."""
        with self._lock:
            game = self._games[game_id]
        game.last_used = time.monotonic()
        return game

    def drop(self, game_id: str) -> None:
        """Forget a game (its caller closes it)."""
        with self._lock:
            self._games.pop(game_id, None)

    def sweep(self) -> None:
        """Close and forget the games left idle too long (class docstring). A game whose lock
        is held is in use, so not idle; closing happens outside the store's lock."""
        now = time.monotonic()
        with self._lock:
            games = list(self._games.values())
        finished = sorted((g for g in games if g.over), key=lambda g: g.last_used)
        extra = set(map(id, finished[: max(0, len(finished) - self.max_finished)]))
        for game in games:
            limit = self.finished_seconds if game.over else self.idle_seconds
            if now - game.last_used <= limit and id(game) not in extra:
                continue
            if not game.lock.acquire(blocking=False):
                continue
            try:
                with self._lock:
                    self._games.pop(game.id, None)
                game.close()
            finally:
                game.lock.release()

    def start_sweeping(self) -> None:
        """Sweep on a timer, a few times per idle limit, until :meth:`close_all`."""
        every = min(max(min(self.idle_seconds, self.finished_seconds) / 4, 0.1), 30.0)
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(every):
                self.sweep()

        self._sweeper = threading.Thread(target=loop, name="camelup-game-sweeper", daemon=True)
        self._sweeper.start()

    def close_all(self) -> None:
        """End every game's bots (the server is stopping)."""
        self._stop.set()
        if self._sweeper is not None:
            self._sweeper.join()
        with self._lock:
            games, self._games = list(self._games.values()), {}
        for game in games:
            with game.lock:
                game.close()

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)
