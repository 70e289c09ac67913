"""The ``camelup`` command line (:mod:`camelup_cli.main`): it parses and dispatches; what the
subcommands share (the typed config files) lives below it, in :mod:`camelup_config`."""
