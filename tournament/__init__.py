"""Tournaments and evaluation: one referee, every bot in its own process, every game replayable.

Modules, one concern each: :mod:`~tournament.config` (the typed settings), :mod:`~tournament.
schedule` (who plays whom, in which seat, with which seed), :mod:`~tournament.protocol` (the JSON
line messages between referee and bot), :mod:`~tournament.sandbox` (resource limits of a bot
process), :mod:`~tournament.host` (a bot process hosting an in-project agent),
:mod:`~tournament.bots` (the referee's handle on a bot process), :mod:`~tournament.referee` (the
only real game), :mod:`~tournament.pool` (game workers), :mod:`~tournament.records` (the results
folder), :mod:`~tournament.ratings` (statistics), :mod:`~tournament.report` (summaries),
:mod:`~tournament.replay` (replaying a recorded game), and the commands :mod:`~tournament.cli`
and :mod:`~tournament.evaluate`. ``docs/tournaments.md`` is the user's guide.
"""
