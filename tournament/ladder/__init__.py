"""A standing ladder: bots arrive, new versions replace old ones, games play on, one table.

Modules, one concern each: :mod:`~tournament.ladder.schema` (the tables) and
:mod:`~tournament.ladder.db` (the engine and the migrations), :mod:`~tournament.ladder.store`
(the ladder folder, its settings and entries), :mod:`~tournament.ladder.choice` (who sits at
the next table), :mod:`~tournament.ladder.claims` (runners sharing the work),
:mod:`~tournament.ladder.results` (storing a played game), :mod:`~tournament.ladder.segments`
(the game records, as tournament folders), :mod:`~tournament.ladder.runner` (``ladder run``),
:mod:`~tournament.ladder.table` (the standings and the export) and the command,
:mod:`~tournament.ladder.cli`. Games are played by the tournament's referee, game workers and
sandbox, and recorded as its records. ``docs/ladder.md`` is the user's guide.
"""
