PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# Exact pin, installed before the project: pyproject's [train] extra asks for a range
# (torch>=2.3,<3), which this CPU build on the local disk satisfies, so pip keeps it
# instead of downloading a multi-GB CUDA build.
TORCH  := torch==2.13.0
# The extras the test suite and the docs build need (see pyproject's [dev]).
EXTRAS ?= dev
PYTEST_ARGS ?= -n auto

.PHONY: venv test docs demo bench notebook clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install "$(TORCH)"
	$(PIP) install -e ".[$(EXTRAS)]"
	touch $@

test: venv
	$(PY) -m pytest $(PYTEST_ARGS)
	$(MAKE) docs

# The documentation site, strict: a broken reference or link fails the build.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir build/site

# The results notebook, executed (CARIOCA_RESULTS picks the folder; default: your
# results/rl-experiment, else shipped-results/) into build/notebook/results.html.
notebook: venv
	$(VENV)/bin/jupyter nbconvert --to html --execute notebooks/results.ipynb --output-dir build/notebook

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
