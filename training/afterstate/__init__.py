"""The afterstate learner: every seat's chance to win, learned TD-Gammon's way on the batch core.

:mod:`training.afterstate.trainer` is the whole trainer, read top to bottom (``camelup train
--trainer afterstate``); the player it trains is :mod:`agents.afterstate`, its file
:mod:`agents.afterstate_network`.
"""
