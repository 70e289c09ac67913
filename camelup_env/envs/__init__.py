"""The single-agent Gymnasium environment, its vector form, and their registration.

The PettingZoo environments are the version modules :mod:`camelup_env.camelup_v1` (and the
legacy ``camelup_v0``) beside this wing, as PettingZoo names its own.
"""
