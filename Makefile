VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
# Pinned here as well as in pyproject.toml: installing it first guarantees the
# local CPU wheel is used before stable-baselines3 resolves its torch requirement.
TORCH := torch==2.13.0

.PHONY: install test lint demo bench clean

install: $(STAMP)

$(PY):
	python3 -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install "$(TORCH)"
	$(PIP) install -e ".[dev,train]"
	touch $(STAMP)

lint: install
	$(VENV)/bin/ruff check .

test: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n 2 --dist loadfile

demo: install
	$(VENV)/bin/camelup demo

bench: install
	$(PY) benchmarks/engine.py

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
