"""camelup model files: a MaskablePPO policy as tensors plus JSON, loadable without running code.

A stable-baselines3 zip cannot be loaded safely: ``MaskablePPO.load`` unpickles the ``data``
member (``cloudpickle.loads`` of its ``:serialized:`` entries), so a crafted file runs any code
it likes the moment it is opened. Model files for tournaments come from strangers, so camelup
never does that. A camelup model file is a zip with

* ``camelup.json`` — :data:`METADATA_FORMAT`, version 2: the rule set, the observer settings
  (the keyword arguments of :class:`camelup_env.observation.Observer`), ``env_version``, the
  policy architecture (observation size, action count, ``net_arch``, activation) and any extra
  JSON the writer adds (``trained_steps``, ``config``); with the optimizer saved, also
  ``training`` counters for resuming;
* ``policy.pth`` — the policy's ``state_dict``, only tensors;
* optionally ``policy.optimizer.pth`` — the Adam ``state_dict`` (tensors, numbers, tuples).

Loading reads the JSON with :func:`camelup_env.safe_json.loads`, the tensors with
``torch.load(..., weights_only=True)`` (torch's restricted unpickler: tensors and plain
containers only, no imports, no calls), builds a fresh ``MaskableActorCriticPolicy`` from the
recorded architecture and copies the weights in. Any other member of the zip — SB3's ``data``,
``pytorch_variables.pth``, anything a stranger adds — is never read.

Version 1 files (``camelup train`` before this format: an SB3 zip with ``camelup.json`` added)
load the same way: their ``policy.pth`` holds the weights, the architecture is read off the
weight shapes and the activation is SB3's default (``tanh``, which ``camelup train`` never
changed). :func:`upgrade` rewrites one as version 2
(``python -m agents.policy_file OLD.zip NEW.zip``).

Everything read is checked before it is used: member sizes (no zip bombs), the architecture
against the rule set's action count and the observer's feature count, the architecture's size
against the number of weights in the file (a small file cannot make the loader allocate a huge
network), every tensor's name, shape, dtype and finiteness. A file that fails any check raises
:class:`ModelFileError` with one line naming the file and what is wrong.

Making a model trained outside ``camelup train`` playable is :func:`save_policy` on the live
``model`` object, by the model's author (see ``docs/model-files.md``); converting somebody else's
SB3 zip would mean unpickling it, which is exactly what this format exists to avoid.
"""

from __future__ import annotations

import io
import sys
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from agents import shipped
from camelup_env import safe_json
from camelup_env.files import replacing
from camelup_env.game.actions import action_table
from camelup_env.game.rules import RuleSet
from camelup_env.observation import Observer

METADATA_MEMBER = "camelup.json"
WEIGHTS_MEMBER = "policy.pth"
OPTIMIZER_MEMBER = "policy.optimizer.pth"
METADATA_FORMAT = "camelup-maskable-ppo"
#: 2: tensors + JSON only. 1: an SB3 zip with camelup.json added (read safely, see above).
VERSION = 2
#: Keys of camelup.json that :func:`save_policy` writes itself; ``extra`` may not use them.
RESERVED_KEYS = frozenset(
    {"format", "version", "rules", "observer", "env_version", "policy", "training"}
)
#: Observer keyword arguments a file may set, with their type; a missing key is False
#: (``action_values``, added after version 1) or required (the others).
OBSERVER_SETTINGS = {"odds_features": bool, "race_samples": int, "action_values": bool}
#: Activation functions by the name camelup.json records (torch.nn class names).
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU")

#: Size limits for the members that are read (far above any camelup policy: the shipped
#: 256x256 ones hold 1.7 MB of weights).
MAX_METADATA_BYTES = 1 << 20
MAX_TENSOR_BYTES = 512 << 20
MAX_FILE_BYTES = 2 * MAX_TENSOR_BYTES + MAX_METADATA_BYTES
MAX_METADATA_DEPTH = 16
MAX_LAYERS = 16
MAX_LAYER_WIDTH = 1 << 14


class ModelFileError(ValueError):
    """A model file that cannot be used: missing, corrupt, not camelup's, or for other rules."""


@dataclass(frozen=True)
class Architecture:
    """What is needed to rebuild the policy network: sizes, hidden layers, activation."""

    observation_size: int
    action_count: int
    pi: tuple[int, ...]
    vf: tuple[int, ...]
    activation: str = "Tanh"
    share_features_extractor: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "class": "MaskableActorCriticPolicy",
            "observation_size": self.observation_size,
            "action_count": self.action_count,
            "net_arch": {"pi": list(self.pi), "vf": list(self.vf)},
            "activation": self.activation,
            "share_features_extractor": self.share_features_extractor,
        }

    def parameter_count(self) -> int:
        """Weights and biases of the network this architecture builds."""

        def mlp(sizes: list[int]) -> int:
            return sum((a + 1) * b for a, b in pairwise(sizes))

        pi = [self.observation_size, *self.pi]
        vf = [self.observation_size, *self.vf]
        return mlp(pi) + mlp(vf) + (pi[-1] + 1) * self.action_count + vf[-1] + 1

    def build(self) -> Any:
        """A fresh ``MaskableActorCriticPolicy`` of this shape (weights to be loaded into it)."""
        import numpy as np
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        from torch import nn

        return MaskableActorCriticPolicy(
            spaces.Box(-np.inf, np.inf, shape=(self.observation_size,), dtype=np.float32),
            spaces.Discrete(self.action_count),
            lr_schedule=lambda _: 0.0,  # a loaded policy is not trained; load_into keeps its own
            net_arch={"pi": list(self.pi), "vf": list(self.vf)},
            activation_fn=getattr(nn, self.activation),
            ortho_init=False,  # the weights are overwritten at once
            share_features_extractor=self.share_features_extractor,
        )


@dataclass
class PolicyFile:
    """A model file read and checked: its metadata and what it was trained on."""

    path: Path
    meta: dict[str, Any]
    rules: RuleSet
    observer_settings: dict[str, Any]
    env_version: str
    architecture: Architecture
    weights: dict[str, Any]
    optimizer: dict[str, Any] | None

    def observer(self) -> Observer:
        """The :class:`Observer` the policy was trained with."""
        return make_observer(self.rules, self.observer_settings)

    def policy(self, device: str = "cpu") -> Any:
        """The rebuilt ``MaskableActorCriticPolicy`` with the file's weights, in eval mode."""
        policy = self.architecture.build()
        check_weights_fit(self.weights, policy.state_dict(), self.path)
        policy.load_state_dict(self.weights)
        policy.set_training_mode(False)
        return policy.to(device)


# Writing -----------------------------------------------------------------------------------
def architecture_of(policy: Any) -> Architecture:
    """The :class:`Architecture` of a live MaskablePPO policy; ``ValueError`` if not rebuildable.

    Only what :meth:`Architecture.build` can rebuild is accepted: sb3-contrib's
    ``MaskableActorCriticPolicy`` (``"MlpPolicy"``) over a flat observation, with one of
    :data:`ACTIVATIONS`.
    """
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if type(policy) is not MaskableActorCriticPolicy:
        raise ValueError(
            f"only sb3-contrib's MaskableActorCriticPolicy (MaskablePPO with "
            f"'MlpPolicy') can be saved, not {type(policy).__name__}"
        )
    if (
        not isinstance(policy.observation_space, spaces.Box)
        or len(policy.observation_space.shape) != 1
        or not isinstance(policy.action_space, spaces.Discrete)
        or not isinstance(policy.features_extractor, FlattenExtractor)
    ):
        raise ValueError(
            "only a policy over a flat Box observation with a Discrete action "
            "space and the default feature extractor can be saved"
        )
    activation = policy.activation_fn.__name__
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation} cannot be saved; use one of {ACTIVATIONS}")
    arch = policy.net_arch
    pi, vf = (arch["pi"], arch["vf"]) if isinstance(arch, dict) else (arch, arch)
    return Architecture(
        int(policy.observation_space.shape[0]),
        int(policy.action_space.n),
        tuple(pi),
        tuple(vf),
        activation,
        bool(policy.share_features_extractor),
    )


def save_policy(
    model: Any,
    path: str | Path,
    rules: RuleSet,
    *,
    observer: Mapping[str, Any] | Observer,
    env_version: str,
    optimizer: bool = True,
    **extra: Any,
) -> Path:
    """Write ``model`` (a ``MaskablePPO`` or its ``.policy``) as a camelup model file.

    ``observer`` holds the :class:`~camelup_env.observation.Observer` keyword arguments the
    policy was trained with (:data:`OBSERVER_SETTINGS`), or is that observer itself (say
    ``env.observer`` of the ``SingleAgentEnv`` it learned on); ``env_version`` names the
    environment (``"camelup_v0"``, ...), ``extra`` any further JSON (``trained_steps=``,
    ``config=``). With ``optimizer`` (and a ``MaskablePPO``), the Adam state and the step
    counters are saved too, so :func:`load_into` can resume training. A path without the
    ``.zip`` suffix gets it, as with SB3's ``save``. The file is written to a temporary name and
    renamed, so a crash never leaves half a model. Returns the path written.
    """
    policy = getattr(model, "policy", model)
    arch = architecture_of(policy)
    training, optimizer_state = None, None
    if optimizer and hasattr(model, "num_timesteps"):
        training = {
            "num_timesteps": int(model.num_timesteps),
            "n_updates": int(getattr(model, "_n_updates", 0)),
        }
        optimizer_state = policy.optimizer.state_dict()
    return write_policy_file(
        path,
        policy.state_dict(),
        arch,
        rules,
        observer=observer,
        env_version=env_version,
        optimizer_state=optimizer_state,
        training=training,
        **extra,
    )


def write_policy_file(
    path: str | Path,
    weights: Mapping[str, Any],
    arch: Architecture,
    rules: RuleSet,
    *,
    observer: Mapping[str, Any] | Observer,
    env_version: str,
    optimizer_state: Any = None,
    training: dict[str, int] | None = None,
    **extra: Any,
) -> Path:
    """Write a camelup model file from a ``state_dict`` with ``MaskableActorCriticPolicy``'s
    parameter names and shapes for ``arch`` (what :func:`save_policy` does for a live SB3
    model; RLlib training writes its own network's weights, laid out the same way, with it).
    Arguments as for :func:`save_policy`; ``training`` holds resume counters."""
    import torch

    clash = RESERVED_KEYS & set(extra)
    if clash:
        raise ValueError(f"extra metadata may not use the reserved key(s) {sorted(clash)}")
    if isinstance(observer, Observer):
        observer = {k: getattr(observer, k) for k in OBSERVER_SETTINGS if hasattr(observer, k)}
    settings = observer_settings(dict(observer), "observer")
    observer_size = make_observer(rules, settings).size
    if observer_size != arch.observation_size:
        raise ValueError(
            f"the policy takes {arch.observation_size} features but the observer "
            f"settings {settings} give {observer_size}"
        )
    check_weights_fit(weights, arch.build().state_dict(), "the weights to save")
    doc: dict[str, Any] = {
        "format": METADATA_FORMAT,
        "version": VERSION,
        "rules": rules.to_dict(),
        "observer": settings,
        "env_version": str(env_version),
        "policy": arch.to_dict(),
    }
    members: dict[str, Any] = {WEIGHTS_MEMBER: {k: v.detach().cpu() for k, v in weights.items()}}
    if training is not None:
        doc["training"] = training
    if optimizer_state is not None:
        members[OPTIMIZER_MEMBER] = optimizer_state
    doc.update(extra)
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_member(METADATA_MEMBER), _metadata_text(doc))
        for name, obj in members.items():
            buffer = io.BytesIO()
            torch.save(obj, buffer)
            archive.writestr(_member(name), buffer.getvalue())
    return path


def _metadata_text(doc: dict[str, Any]) -> str:
    """``camelup.json`` text; refuses values (NaN, objects) that the reader would refuse."""
    import json

    return json.dumps(doc, indent=2, allow_nan=False)


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # same weights, same bytes
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


# Reading -----------------------------------------------------------------------------------
def read_metadata(path: str | Path) -> dict[str, Any]:
    """The checked ``camelup.json`` of a model file, as a dict; :class:`ModelFileError` if bad."""
    return read_policy_file(path, tensors=False).meta


def read_policy_file(
    path: str | Path, *, tensors: bool = True, optimizer: bool = False
) -> PolicyFile:
    """Read and check a model file without running anything in it (see the module docstring).

    ``tensors=False`` reads only the metadata (the architecture of a version 1 file is then
    unknown and left empty); ``optimizer=True`` also reads ``policy.optimizer.pth`` if present.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"model file not found: {path}{shipped.missing_hint(str(path))}")
    if path.stat().st_size > MAX_FILE_BYTES:  # before the zip directory is parsed
        raise ModelFileError(
            f"{path} is {path.stat().st_size} bytes; model files may have at most {MAX_FILE_BYTES}"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if METADATA_MEMBER not in names:
                raise ModelFileError(
                    f"{path} is a zip but not a camelup model (no {METADATA_MEMBER}); save "
                    "models with agents.policy_file.save_policy (docs/model-files.md)"
                )
            meta = safe_json.loads(
                _read(archive, path, METADATA_MEMBER, MAX_METADATA_BYTES),
                f"{path}: {METADATA_MEMBER}",
                max_bytes=MAX_METADATA_BYTES,
                max_depth=MAX_METADATA_DEPTH,
            )
            weights = _tensors(archive, path, WEIGHTS_MEMBER) if tensors else {}
            opt = (
                _tensors(archive, path, OPTIMIZER_MEMBER)
                if optimizer and OPTIMIZER_MEMBER in names
                else None
            )
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as exc:
        raise ModelFileError(f"{path} is corrupt or not a model zip: {exc}") from exc
    except ModelFileError:
        raise
    except ValueError as exc:  # safe_json names the member
        raise ModelFileError(str(exc)) from exc
    return _checked(path, meta, weights, opt, tensors)


def _read(archive: zipfile.ZipFile, path: Path, name: str, limit: int) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ModelFileError(f"{path} has no {name}") from None
    if info.file_size > limit:
        raise ModelFileError(
            f"{path}: {name} unpacks to {info.file_size} bytes; at most {limit} are accepted"
        )
    return archive.read(info)


def _tensors(archive: zipfile.ZipFile, path: Path, name: str) -> dict[str, Any]:
    import pickle

    import torch

    data = _read(archive, path, name, MAX_TENSOR_BYTES)
    try:
        obj = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except (
        pickle.UnpicklingError,
        RuntimeError,
        EOFError,
        ValueError,
        KeyError,
        AttributeError,
        TypeError,
    ) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelFileError(f"{path}: {name} is not a plain tensor file ({first})") from exc
    if not isinstance(obj, dict):
        raise ModelFileError(f"{path}: {name} holds a {type(obj).__name__}, not a state dict")
    return obj


def _fail(path: Path, message: str) -> ModelFileError:
    return ModelFileError(f"{path}: bad {METADATA_MEMBER}: {message}")


def observer_settings(raw: Any, where: str) -> dict[str, Any]:
    """Checked observer settings with every key of :data:`OBSERVER_SETTINGS` filled in."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be an object, got {type(raw).__name__}")
    unknown = set(raw) - set(OBSERVER_SETTINGS)
    if unknown:
        raise ValueError(
            f"{where} has unknown setting(s) {sorted(unknown)} (known: {sorted(OBSERVER_SETTINGS)})"
        )
    out = {"action_values": False, **raw}
    for key, kind in OBSERVER_SETTINGS.items():
        if key not in out:
            raise ValueError(f"{where} lacks {key!r}")
        value = out[key]
        if type(value) is not kind:
            raise ValueError(f"{where}.{key} must be {kind.__name__}, got {value!r}")
    if not 1 <= out["race_samples"] <= 1_000_000:
        raise ValueError(f"{where}.race_samples must be 1..1000000, got {out['race_samples']}")
    return out


def make_observer(rules: RuleSet, settings: dict[str, Any]) -> Observer:
    """The :class:`Observer` for checked :func:`observer_settings`."""
    # Always passed: a file without the flag predates camelup_v1 and reads the v0 observation,
    # while the Observer's own default is the v1 one.
    return Observer(rules, **settings)


def _checked(
    path: Path, meta: Any, weights: dict[str, Any], optimizer: dict[str, Any] | None, tensors: bool
) -> PolicyFile:
    if not isinstance(meta, dict):
        raise _fail(path, f"must be a JSON object, got {type(meta).__name__}")
    if meta.get("format") != METADATA_FORMAT:
        raise ModelFileError(f"{path}: unknown model format {meta.get('format')!r}")
    version = meta.get("version")
    if version not in (1, VERSION):
        raise ModelFileError(
            f"{path}: model file version {version!r} is not one this camelup reads (1, {VERSION})"
        )
    try:
        rules = RuleSet.from_dict(meta.get("rules"))
        settings = observer_settings(meta.get("observer"), "observer")
        observer_size = make_observer(rules, settings).size
    except (ValueError, TypeError) as exc:
        raise _fail(path, str(exc)) from exc
    env_version = meta.get("env_version", "camelup_v0")
    if not isinstance(env_version, str) or len(env_version) > 64:
        raise _fail(path, f"env_version must be a short string, got {env_version!r}")
    actions = len(action_table(rules))
    if version == 1:
        arch = (
            _architecture_from_weights(path, weights)
            if tensors
            else Architecture(observer_size, actions, (), ())
        )
    else:
        arch = _architecture_from_meta(path, meta.get("policy"))
    if arch.observation_size != observer_size:
        raise ModelFileError(
            f"{path}: the policy takes {arch.observation_size} features but its "
            f"recorded observer settings give {observer_size}"
        )
    if arch.action_count != actions:
        raise ModelFileError(
            f"{path}: the policy has {arch.action_count} actions but "
            f"{rules.preset} with {rules.num_players} players has {actions}"
        )
    if tensors:
        held = _check_tensors(path, WEIGHTS_MEMBER, weights)
        if arch.parameter_count() > held:
            raise ModelFileError(
                f"{path}: the recorded architecture needs "
                f"{arch.parameter_count()} weights but {WEIGHTS_MEMBER} holds "
                f"{held}"
            )
    return PolicyFile(path, meta, rules, settings, env_version, arch, weights, optimizer)


def _architecture_from_meta(path: Path, doc: Any) -> Architecture:
    if not isinstance(doc, dict):
        raise _fail(path, "policy must be an object describing the network")
    net = doc.get("net_arch")

    def size(value: Any, name: str, most: int) -> int:
        if type(value) is not int or not 1 <= value <= most:
            raise _fail(path, f"policy.{name} must be an integer 1..{most}, got {value!r}")
        return value

    if doc.get("class") != "MaskableActorCriticPolicy":
        raise _fail(path, f"policy.class {doc.get('class')!r} is not MaskableActorCriticPolicy")
    if not isinstance(net, dict) or set(net) != {"pi", "vf"}:
        raise _fail(path, 'policy.net_arch must be {"pi": [...], "vf": [...]}')
    layers = {}
    for head in ("pi", "vf"):
        if not isinstance(net[head], list) or len(net[head]) > MAX_LAYERS:
            raise _fail(
                path, f"policy.net_arch.{head} must be a list of at most {MAX_LAYERS} layer widths"
            )
        layers[head] = tuple(size(w, f"net_arch.{head}[]", MAX_LAYER_WIDTH) for w in net[head])
    activation = doc.get("activation")
    if activation not in ACTIVATIONS:
        raise _fail(path, f"policy.activation must be one of {ACTIVATIONS}, got {activation!r}")
    share = doc.get("share_features_extractor", True)
    if type(share) is not bool:
        raise _fail(path, f"policy.share_features_extractor must be true/false, got {share!r}")
    return Architecture(
        size(doc.get("observation_size"), "observation_size", 1 << 20),
        size(doc.get("action_count"), "action_count", 1 << 16),
        layers["pi"],
        layers["vf"],
        activation,
        share,
    )


def _architecture_from_weights(path: Path, weights: dict[str, Any]) -> Architecture:
    """A version 1 file's architecture, read off its weight shapes (SB3's layer names)."""

    def widths(prefix: str) -> tuple[int, ...]:
        found = sorted(
            (int(k[len(prefix) : -len(".weight")]), v)
            for k, v in weights.items()
            if isinstance(k, str)
            and k.startswith(prefix)
            and k.endswith(".weight")
            and k[len(prefix) : -len(".weight")].isdigit()
        )
        return tuple(int(v.shape[0]) for _, v in found if getattr(v, "ndim", 0) == 2)

    # whatever the file holds there: checked to be 2-d below
    head: Any = weights.get("action_net.weight")
    first: Any = weights.get("mlp_extractor.policy_net.0.weight", head)
    if getattr(head, "ndim", 0) != 2 or getattr(first, "ndim", 0) != 2:
        raise ModelFileError(f"{path}: {WEIGHTS_MEMBER} is not a MaskablePPO policy's weights")
    return Architecture(
        int(first.shape[1]),
        int(head.shape[0]),
        widths("mlp_extractor.policy_net."),
        widths("mlp_extractor.value_net."),
    )


def _check_tensors(path: Path, name: str, weights: dict[str, Any]) -> int:
    """Every entry a finite float tensor; returns how many numbers they hold."""
    import torch

    total = 0
    for key, value in weights.items():
        if not isinstance(key, str) or not isinstance(value, torch.Tensor):
            raise ModelFileError(f"{path}: {name} entry {str(key)[:60]!r} is not a named tensor")
        if not value.is_floating_point() or not bool(torch.isfinite(value).all()):
            raise ModelFileError(f"{path}: {name} entry {key!r} is not a finite float tensor")
        total += value.numel()
    return total


def check_weights_fit(
    weights: Mapping[str, Any], expected: Mapping[str, Any], path: str | Path
) -> None:
    """One-line :class:`ModelFileError` unless ``weights`` has exactly ``expected``'s shapes."""
    missing = sorted(set(expected) - set(weights))
    unexpected = sorted(set(weights) - set(expected))
    if missing or unexpected:
        raise ModelFileError(
            f"{path}: the weights do not fit the recorded architecture "
            f"(missing {missing[:3]}, unexpected {unexpected[:3]})"
        )
    for key, tensor in expected.items():
        if tuple(weights[key].shape) != tuple(tensor.shape):
            raise ModelFileError(
                f"{path}: the weights do not fit the recorded architecture "
                f"({key} is {tuple(weights[key].shape)}, the architecture "
                f"needs {tuple(tensor.shape)})"
            )


# Resuming training and upgrading old files ---------------------------------------------------
def load_into(model: Any, path: str | Path, weights_only: bool = False) -> dict[str, Any]:
    """Load a model file's weights, optimizer state and counters into a built ``MaskablePPO``.

    For ``camelup train --resume``: the caller builds the model from the run's config (as for a
    fresh run), then this copies in what the checkpoint holds, without unpickling anything.
    ``weights_only`` (fine-tuning, ``init_from``) leaves the optimizer and counters fresh.
    The architecture must match the model's; returns the file's metadata.
    """
    file = read_policy_file(path, optimizer=not weights_only)
    policy = model.policy
    mine = architecture_of(policy)
    if mine != file.architecture:
        raise ModelFileError(
            f"{path}: the file's network {file.architecture.to_dict()} is not "
            f"the model's {mine.to_dict()}"
        )
    check_weights_fit(file.weights, policy.state_dict(), path)
    policy.load_state_dict(file.weights)
    if weights_only:
        return file.meta
    if file.optimizer is not None:
        try:
            policy.optimizer.load_state_dict(file.optimizer)
        except (ValueError, KeyError, TypeError, RuntimeError) as exc:
            raise ModelFileError(
                f"{path}: {OPTIMIZER_MEMBER} does not fit the model's "
                f"optimizer: {str(exc).splitlines()[0]}"
            ) from exc
    counters = file.meta.get("training", {"num_timesteps": file.meta.get("trained_steps", 0)})
    steps = counters.get("num_timesteps") if isinstance(counters, dict) else None
    if type(steps) is not int or steps < 0:
        raise _fail(Path(path), f"training.num_timesteps must be a count, got {steps!r}")
    model.num_timesteps = steps
    updates = counters.get("n_updates", 0)
    model._n_updates = updates if type(updates) is int and updates >= 0 else 0
    return file.meta


def upgrade(source: str | Path, target: str | Path) -> Path:
    """Rewrite a version 1 (or 2) model file as version 2, read safely; returns the new path."""
    file = read_policy_file(source)
    extra = {k: v for k, v in file.meta.items() if k not in RESERVED_KEYS}
    return save_policy(
        file.policy(),
        target,
        file.rules,
        observer=file.observer_settings,
        env_version=file.env_version,
        **extra,
    )


def _main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m agents.policy_file OLD.zip NEW.zip", file=sys.stderr)
        return 2
    try:
        print(upgrade(argv[0], argv[1]))
    except ModelFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
