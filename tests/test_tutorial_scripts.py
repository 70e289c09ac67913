"""Every tutorial runs as a script, as a reader runs it: ``python tutorials/NN_name.py`` from the
project root, with the quick budgets (``CAMELUP_TUTORIAL_QUICK=1``).

``tests/test_tutorials.py`` runs them as notebooks. A script meets what a notebook hides:
``__main__`` is a file, which spawned processes look for; ``sys.path[0]`` is ``tutorials/``,
not the project; and nothing displays (``plt.show()`` on a non-interactive backend). This file
is apart from the notebooks' so that the two can run on different test workers.
"""

import os
import subprocess
import sys

import pytest

from tutorials import notebooks


@pytest.mark.parametrize("script", notebooks.scripts(), ids=lambda p: p.stem)
def test_tutorial_runs_as_a_script(script):
    env = {
        **os.environ,
        "CAMELUP_TUTORIAL_QUICK": "1",
        "MPLBACKEND": "Agg",  # a display would open a window and wait at plt.show()
        # one torch thread: the tests run on as many workers as cores, and torch's threads,
        # one per core, then wait on each other many times over
        "OMP_NUM_THREADS": "1",
        # the project importable as after `make install` (its editable install), from any checkout
        "PYTHONPATH": os.pathsep.join([str(notebooks.ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, str(script.relative_to(notebooks.ROOT))],
        cwd=notebooks.ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
