"""``python -m camelup_cli ...`` is the ``camelup`` command."""

import sys

from camelup_cli.main import main

sys.exit(main())
