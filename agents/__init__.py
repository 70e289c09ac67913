"""Scripted baselines and trained-policy loaders for camelup.

Every agent follows one protocol (:mod:`agents.base`): ``agent(observation, public_state) ->
action index``. Make one by name with :func:`make`; ``camelup agents`` lists the names.
"""

from agents.base import (
    Agent,
    UnknownAgentError,
    check,
    describe_agents,
    factory,
    is_prefix,
    legal_indices,
    make,
    model_file,
    model_prefixes,
    names,
    register,
    register_prefix,
)

__all__ = [
    "Agent",
    "UnknownAgentError",
    "check",
    "describe_agents",
    "factory",
    "is_prefix",
    "legal_indices",
    "make",
    "model_file",
    "model_prefixes",
    "names",
    "register",
    "register_prefix",
]
