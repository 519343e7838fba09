PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# Exact pin: an unpinned torch pulls a multi-GB CUDA build.
TORCH  := torch==2.13.0
PYTEST_ARGS ?= -n auto

.PHONY: venv test demo bench clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install "$(TORCH)"
	$(PIP) install -e ".[test,ray,rllib]"
	touch $@

test: venv
	$(PY) -m pytest $(PYTEST_ARGS)

demo: venv
	$(VENV)/bin/carioca tournament --preset demo

$(VENV)/.bench-installed: $(VENV)/.installed
	$(PIP) install -e ".[bench]"
	touch $@

bench: $(VENV)/.bench-installed
	$(VENV)/bin/carioca bench --quick

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
