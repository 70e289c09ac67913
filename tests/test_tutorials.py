"""Every tutorial runs end to end as a notebook (quick budgets: ``CAMELUP_TUTORIAL_QUICK=1``).

The executed notebooks are saved to ``build/tutorials/`` for the site (``docs/hooks.py``), so a
``make test`` builds pages that show the outputs of this very run.
"""

import pytest

from tutorials import notebooks

pytest.importorskip("nbclient")
pytest.importorskip("jupytext")


@pytest.mark.parametrize("script", notebooks.scripts(), ids=lambda p: p.stem)
def test_tutorial_runs(script):
    nb = notebooks.execute(script, quick=True)  # a failing cell raises CellExecutionError
    notebooks.save(nb, script)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
