"""The ``camelup`` command line: the entry point (:mod:`camelup_cli.main`) and the typed config
mechanism that configured subcommands share (:mod:`camelup_cli.config`)."""
