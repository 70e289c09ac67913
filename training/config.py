"""The typed config mechanism now lives in :mod:`camelup_cli.config` (shared with tournaments);
this re-export keeps ``from training.config import ...`` working until training imports it there.
"""

from camelup_cli.config import (
    ConfigError,
    add_override_flags,
    from_mapping,
    load_config,
    overrides_from_args,
    read_mapping,
)

__all__ = ["ConfigError", "add_override_flags", "from_mapping", "load_config",
           "overrides_from_args", "read_mapping"]
