"""Fitting the files :mod:`camelup_env.odds` reads to say who is winning and by how much luck.

:mod:`training.odds.win_model` fits the win-probability model (:mod:`camelup_env.odds.win`),
:mod:`training.odds.win_network` the win network on the batch core
(:mod:`camelup_env.odds.win_network`), :mod:`training.odds.luck_shares` the luck corrections'
tables (:mod:`camelup_env.odds.luck`); each is a ``python -m`` command that writes its entry of
``camelup_env/odds/win_models.json``, on the games of a mix of bots
(:mod:`training.odds.mix_games`).
"""
