VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
# Pinned here as well as in pyproject.toml: installing it first guarantees the
# local CPU wheel is used before stable-baselines3 resolves its torch requirement.
TORCH := torch==2.13.0

.PHONY: install test lint docs demo train bench clean

install: $(STAMP)

$(PY):
	python3 -m venv $(VENV)

# Then every numba kernel into numba's disk cache (`camelup compile`, camelup_cli/compile_kernels.py),
# once: a first run would otherwise compile them on the spot, and a bot would do it in its move clock.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install "$(TORCH)"
	$(PIP) install -e ".[dev,train,docs,distributed,web,clients]" "$(TORCH)"
	$(VENV)/bin/camelup compile
	touch $(STAMP)

# ruff's rules and its formatter (black's style): a change is formatted before it lands;
# then mypy, with the packages and the strictness of [tool.mypy] in pyproject.toml
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest -q -rs -n 2 --dist loadfile
	$(MAKE) --no-print-directory docs

# The documentation site in site/; --strict turns a broken link or reference into an error.
docs: install
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

# The main job: the shipped agents against the scripted bots, about a minute on 2 cores
# (the 4-player agent against three baselines, then the 2-player agent against expert and greedy).
demo: install
	rm -rf runs/demo runs/demo_2p
	$(VENV)/bin/camelup tournament configs/tournament/demo.yaml --out runs/demo
	$(VENV)/bin/camelup tournament configs/tournament/demo_2p.yaml --out runs/demo_2p

# The full training of the three shipped configs, 20M learner decisions each, on the batch
# core with distilled opponents: the 4-player classic config at about 2,800 decisions/s on 2
# cores (benchmarks/training.py), two hours; stop any time and rerun with --resume.
# The shipped classic2 is then fine-tuned against expert (`camelup train
# configs/train/ppo_finetune_2p_expert.yaml`, 2.05M decisions in 89 minutes on one core).
train: install
	$(VENV)/bin/camelup train configs/train/ppo_selfplay.yaml
	$(VENV)/bin/camelup train configs/train/ppo_selfplay_2p.yaml
	$(VENV)/bin/camelup train configs/train/ppo_selfplay_second4.yaml

bench: install
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/odds.py
	$(PY) benchmarks/env.py
	$(PY) benchmarks/vector_env.py
	$(PY) benchmarks/tournament.py

clean:
	rm -rf build dist site *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
