"""The game: rule sets, states (and their JSON form), actions, events, movement, the engine,
payouts, rewards and the episode settings.

The readable reference of every rule (docs/rules.md names them R0-R14), as plain data and pure
functions; every other wing of :mod:`camelup_env` (odds, observation, the batch core, the
environments, rendering) stands on it, and it imports none of them.
"""
