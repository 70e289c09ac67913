"""A plain torch actor-critic (CleanRL's shape) written as a camelup model file.

Single-file PPO implementations (CleanRL's ``ppo.py`` and its kin) hold their network as two
``torch.nn.Sequential`` MLPs, ``actor`` (observation -> logits) and ``critic`` (observation ->
value): ``Linear``, activation, ``Linear``, activation, ..., ``Linear``. That is exactly the
network a camelup model file describes (sb3-contrib's ``MaskableActorCriticPolicy`` with
separate policy and value MLPs), under other parameter names, so no training library is
needed to bring such a model to ``camelup evaluate`` or a tournament:
:func:`save_actor_critic` renames the weights (the hidden layers of ``actor`` to
``mlp_extractor.policy_net``, its last layer to ``action_net``; ``critic`` likewise to
``mlp_extractor.value_net`` and ``value_net``) and writes them with
:func:`agents.policy_file.write_policy_file`, whose checks apply as to any file. Loading
stays what it is: tensors and JSON, nothing executed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.policy_file import ACTIVATIONS, Architecture, write_policy_file
from camelup_env.game.actions import action_table
from camelup_env.game.rules import RuleSet
from camelup_env.observation import Observer


def mlp_layers(net: Any, name: str) -> tuple[list[Any], str]:
    """The ``Linear`` layers of ``net`` (a ``Sequential``: Linear, activation, ..., Linear)
    and the activation's name; ``ValueError`` naming ``name`` for any other shape."""
    from torch import nn

    modules = list(net) if isinstance(net, nn.Sequential) else []
    linears, activations = modules[0::2], modules[1::2]
    if (
        not modules
        or len(modules) % 2 == 0
        or not all(type(m) is nn.Linear for m in linears)
        or len({type(a) for a in activations}) > 1
    ):
        raise ValueError(
            f"{name} must be an nn.Sequential of Linear layers with one activation "
            f"between each two (Linear, Tanh, Linear, ..., Linear)"
        )
    activation = type(activations[0]).__name__ if activations else "Tanh"
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"{name}: activation {activation} cannot be saved; use one of {ACTIVATIONS}"
        )
    return linears, activation


def save_actor_critic(
    path: str | Path,
    actor: Any,
    critic: Any,
    rules: RuleSet,
    *,
    observer: Mapping[str, Any] | Observer,
    env_version: str,
    **extra: Any,
) -> Path:
    """Write ``actor`` (observation -> one logit per action) and ``critic`` (observation ->
    value) as a camelup model file for ``rules``; ``observer``, ``env_version`` and ``extra``
    as for :func:`agents.policy_file.save_policy`. Both MLPs use the same activation. Returns
    the path written (``.zip`` added if missing)."""
    pi, pi_activation = mlp_layers(actor, "actor")
    vf, vf_activation = mlp_layers(critic, "critic")
    if len(pi) > 1 and len(vf) > 1 and pi_activation != vf_activation:
        raise ValueError(
            f"actor and critic must use one activation, got {pi_activation} and {vf_activation}"
        )
    actions = len(action_table(rules).actions)
    if pi[-1].out_features != actions:
        raise ValueError(
            f"actor gives {pi[-1].out_features} actions; {rules.preset} with "
            f"{rules.num_players} players has {actions}"
        )
    if vf[-1].out_features != 1:
        raise ValueError(f"critic must end in one value, not {vf[-1].out_features}")
    weights: dict[str, Any] = {}
    for prefix, hidden in (
        ("mlp_extractor.policy_net", pi[:-1]),
        ("mlp_extractor.value_net", vf[:-1]),
    ):
        for j, layer in enumerate(hidden):
            weights[f"{prefix}.{2 * j}.weight"] = layer.weight
            weights[f"{prefix}.{2 * j}.bias"] = layer.bias
    for head, layer in (("action_net", pi[-1]), ("value_net", vf[-1])):
        weights[f"{head}.weight"] = layer.weight
        weights[f"{head}.bias"] = layer.bias
    arch = Architecture(  # sizes as ints: a layer built from a space's numpy size keeps it
        observation_size=int(pi[0].in_features),
        action_count=actions,
        pi=tuple(int(layer.out_features) for layer in pi[:-1]),
        vf=tuple(int(layer.out_features) for layer in vf[:-1]),
        activation=pi_activation if len(pi) > 1 else vf_activation,
        share_features_extractor=True,
    )
    return write_policy_file(
        path, weights, arch, rules, observer=observer, env_version=env_version, **extra
    )
