"""Configuration dataclasses loaded from YAML, with every field overridable on the command line.

One mechanism for every configured command (training, tournaments): a frozen dataclass whose
fields carry their documentation as ``metadata={"help": ...}`` (see :func:`setting`); that text
is the ``--field-name`` flag's ``--help``, so the docs of a setting live in one place.

``load_config(TrainConfig, "configs/train/ppo_selfplay.yaml", overrides)`` reads the file, checks
that every key is a field of the dataclass and that every value has the field's type, then applies
``overrides`` (already-parsed command-line values). A bad file gets a ``ConfigError`` naming the
file, the key and what was expected — a typo never silently falls back to a default.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A config class: a dataclass.
T = TypeVar("T", bound="DataclassInstance")


class ConfigError(ValueError):
    """A configuration file or override that cannot be used; the message says why."""


def _check_type(name: str, value: Any, annotation: Any, where: str) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        for option in args:
            try:
                return _check_type(name, value, option, where)
            except ConfigError:
                continue
        raise ConfigError(f"{where}: {name}={value!r} is not a {annotation}")
    if annotation is type(None):
        if value is None:
            return None
        raise ConfigError(f"{where}: {name} must be null, got {value!r}")
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: {name} must be a list, got {value!r}")
        item = args[0] if args else Any
        items = [_check_type(f"{name}[{i}]", v, item, where) for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {name} must be a mapping, got {value!r}")
        key_t, value_t = args or (Any, Any)
        return {
            _check_type(f"{name} key", k, key_t, where): _check_type(
                f"{name}[{k}]", v, value_t, where
            )
            for k, v in value.items()
        }
    if annotation is Any:
        return value
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if annotation is int and isinstance(value, bool):
        raise ConfigError(f"{where}: {name} must be an integer, got {value!r}")
    if not isinstance(value, annotation):
        raise ConfigError(
            f"{where}: {name} must be {annotation.__name__}, got {type(value).__name__} {value!r}"
        )
    return value


def from_mapping(cls: type[T], data: dict[str, Any], where: str) -> T:
    """Build ``cls`` from a mapping, checking names and types (see module docstring)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {unknown}; known: {sorted(names)}")
    values = {k: _check_type(k, v, hints[k], where) for k, v in data.items()}
    try:
        config = cls(**values)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return config


def read_mapping(path: str | Path) -> dict[str, Any]:
    """The settings in a YAML file (an empty file is no settings); ``ConfigError`` naming the
    file when it cannot be read, is not YAML, or is not a mapping at the top level."""
    try:
        loaded = yaml.safe_load(Path(path).read_text())
    except FileNotFoundError as exc:
        raise ConfigError(f"config file not found: {path}") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from exc
    data = loaded or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level")
    return data


def load_config(cls: type[T], path: str | Path | None, overrides: dict[str, Any]) -> T:
    """Read ``path`` (YAML) if given, then apply ``overrides`` (field -> value)."""
    data: dict[str, Any] = {}
    where = "command line"
    if path is not None:
        where = str(path)
        data = read_mapping(path)
    data = {**data, **{k: v for k, v in overrides.items() if v is not None}}
    return from_mapping(cls, data, where)


def setting(
    default: Any = dataclasses.MISSING, *, help: str, default_factory: Any = dataclasses.MISSING
) -> Any:
    """A config field with its documentation, e.g. ``games: int = setting(100, help="...")``."""
    return dataclasses.field(
        default=default, default_factory=default_factory, metadata={"help": help}
    )


def yaml_value(text: str) -> Any:
    """A command-line value parsed as YAML (`[128, 128]`, `{self: 1.0}`, `3e-4`)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise argparse.ArgumentTypeError(f"not a YAML value: {text!r}") from exc


def add_override_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """One ``--field-name VALUE`` flag per dataclass field, its help the field's ``help``
    metadata; values are parsed as YAML scalars (so ``--net-arch "[128, 128]"`` and
    ``--opponent-mix "{self: 1.0}"`` work)."""
    group = parser.add_argument_group("overrides (any config field)")
    for f in dataclasses.fields(cls):
        text = f.metadata.get("help")
        if text is not None and f.default is not dataclasses.MISSING:
            text = f"{text} (default: {f.default!r})"
        group.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            type=yaml_value,
            default=None,
            metavar=f.name.upper(),
            help=text.replace("%", "%%") if text else None,
        )


def overrides_from_args(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    return {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(cls)
        if getattr(args, f.name, None) is not None
    }
