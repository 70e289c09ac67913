"""Every tutorial runs end to end as a notebook (quick budgets: ``CAMELUP_TUTORIAL_QUICK=1``).

The executed notebooks are saved to ``build/tutorials/`` for the site (``docs/hooks.py``), so a
``make test`` builds pages that show the outputs of this very run. They run as scripts in
``tests/test_tutorial_scripts.py``.
"""

import pytest

from tutorials import notebooks

pytest.importorskip("nbclient")
pytest.importorskip("jupytext")


@pytest.mark.parametrize("script", notebooks.scripts(), ids=lambda p: p.stem)
def test_tutorial_runs(script, monkeypatch):
    # one torch thread in the kernel: the tests run on as many workers as cores, and torch's
    # threads, one per core, then wait on each other many times over
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nb = notebooks.execute(script, quick=True)  # a failing cell raises CellExecutionError
    notebooks.save(nb, script)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
