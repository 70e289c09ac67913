"""The referee: the only real game. Bots get copies as data and answer action indices.

:func:`play_match` deals game ``seed`` (:func:`camelup_env.match.game_rngs`: the same setup and dice
as an in-process game of that seed), starts each seat's bot, and on each turn sends the seat on
move its legal actions and its public view, checks the answer, and applies it. It records every
action, so the game can be replayed exactly (:mod:`tournament.replay`).

Forfeits (the rules of :mod:`camelup_env.match`): a bot that faults (:class:`tournament.bots.
BotFault`: a missed deadline, a crash, a limit, a protocol error) or answers an illegal action
forfeits the game: it ranks last with 0 coins, the others keep the coins they had and are ranked
by them. The deadline of a move is the move limit or what is left of the bot's thinking time for
the game, whichever is shorter.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from camelup_env.game.legality import legal_action_mask
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.match import Forfeit, GameResult, check_action, observer, run_game
from camelup_env.observation import public_view
from tournament import protocol
from tournament.bots import BotFault, BotProcess


@dataclass
class Match:
    """A played game: its result, every action index in order, and why each seat's Camel Up
    Cup bot rolled in place of its move (C12): reason -> count, per seat."""

    result: GameResult
    actions: list[int]
    fallback_reasons: list[dict[str, int]]

    @property
    def fallbacks(self) -> list[int]:
        """Per seat, the moves its Cup bot rolled in place of its own (C12)."""
        return [sum(reasons.values()) for reasons in self.fallback_reasons]


def play_match(
    rules: RuleSet,
    bots: Sequence[BotProcess],
    seed: int,
    bot_seeds: Sequence[int],
    game: int = 0,
    max_turns: int = 2000,
) -> Match:
    """Play game ``seed`` with one bot per seat (module docstring) in the one game loop,
    :func:`camelup_env.match.run_game`. A faulting bot's process is killed here; the caller
    replaces it before its next game."""
    reasons: list[dict[str, int]] = [{} for _ in range(rules.num_players)]

    def begin(state: GameState) -> None:
        for seat, bot in enumerate(bots):
            try:
                bot.begin(game, seat, bot_seeds[seat], rules)
            except BotFault as fault:
                raise Forfeit(str(fault), seat) from fault

    def move(state: GameState, thinking: list[float]) -> int:
        try:
            return ask_move(bots[state.current], state, thinking, reasons)
        except BotFault as fault:
            raise Forfeit(str(fault)) from fault

    result, actions = run_game(rules, seed, move, max_turns=max_turns, on_deal=begin)
    if result.forfeit is not None:
        bots[result.forfeit["seat"]].kill()
    end = protocol.end_message(result.coins, result.ranks, result.forfeit)
    for bot in bots:
        if bot.process.poll() is None:
            bot.tell(end)
    return Match(result, actions, reasons)


def ask_move(
    bot: BotProcess,
    state: GameState,
    thinking: list[float],
    reasons: list[dict[str, int]] | None = None,
) -> int:
    """The legal action the bot of the seat on move answers in ``state``, under the move and
    game deadlines; ``thinking[seat]`` gains the time it took, and ``reasons[seat]`` counts
    the answer by its reason if it is a Camel Up Cup bot's roll in place of its own move (C12).
    :class:`BotFault` (the forfeit reason) if it faults, answers without an action or answers an
    illegal one. The web app's games ask their bots here too, so a bot meets one set of rules
    everywhere."""
    seat = state.current
    mask = legal_action_mask(state)
    legal = np.flatnonzero(mask).tolist()
    obs = observer(state.rules)(state, seat).tolist() if bot.wants_observation else None
    message = protocol.move_message(legal, public_view(state, seat).to_dict(), obs)
    limits = bot.limits
    limit = limits.move_timeout
    late = f"timeout: no move within {limit:g} s" if limit is not None else ""
    if limits.game_timeout is not None:
        left = limits.game_timeout - thinking[seat]
        if limit is None or left < limit:
            limit = max(left, 0.0)
            late = f"timeout: thinking time for the game over {limits.game_timeout:g} s"
    start = time.perf_counter()
    reply = bot.ask(message, limit, late)
    thinking[seat] += time.perf_counter() - start
    if "action" not in reply:
        raise BotFault(f'protocol: expected {{"action": INDEX}}, got keys {sorted(reply)[:5]}')
    problem = check_action(reply["action"], mask)
    if problem is not None:
        raise BotFault(problem)
    why = reply.get("fallback")
    if reasons is not None and why:
        reasons[seat][str(why)] = reasons[seat].get(str(why), 0) + 1
    return int(reply["action"])
