"""camelup's local web app (``camelup serve``): play against bots, and watch recorded games.

:mod:`webapp.app` builds the Starlette app; :mod:`webapp.games` runs the games a person plays
(the bots isolated as in tournaments), :mod:`webapp.coach` the coach's numbers,
:mod:`webapp.watch` reads tournament folders, :mod:`webapp.pages` turns public views into what
the templates show, and :mod:`webapp.serve` is the command.
"""
