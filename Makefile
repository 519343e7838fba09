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

# Debian's chromium, which the browser tests (tests/test_web_browser.py) drive when it is
# installed; elsewhere Playwright's own download (`make browser` gets one or the other)
CHROMIUM_BIN ?= /usr/bin/chromium

.PHONY: venv browser test test-fast test-studies lint docs demo bench notebook clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install "$(TORCH)"
	$(PIP) install -e ".[$(EXTRAS)]"
	touch $@

# The browser for the browser tests: Debian's chromium (apt-get, as root), else Playwright's
# download; or stop at once, saying what to install.
browser: venv
	@if [ -x "$(CHROMIUM_BIN)" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "make browser: installing Debian's chromium (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium </dev/null \
			&& [ -x "$(CHROMIUM_BIN)" ] && exit 0; \
	fi; \
	echo "make browser: fetching Playwright's chromium"; \
	$(PY) -m playwright install chromium && exit 0; \
	echo "make: the browser tests need chromium: install Debian's (apt-get install chromium) or run $(PY) -m playwright install chromium" >&2; \
	exit 1

# Every test, as CI runs them (.ci/run), then the strict docs build.
test: venv browser
	$(PY) -m pytest $(PYTEST_ARGS)
	$(MAKE) docs

# For development: the tests that are neither slow nor need a browser or a Ray cluster
# (about a minute on an idle 2-core machine).
test-fast: venv
	$(PY) -m pytest $(PYTEST_ARGS) -m "not slow and not browser and not ray"

# The tests of the studies in experiments/studies/ alone (`make test` runs them too).
test-studies: venv
	$(PY) -m pytest $(PYTEST_ARGS) -m study

# Style and types, configured in pyproject.toml; CI runs it too.
lint: venv
	$(VENV)/bin/ruff check .
	mkdir -p build/typecheck
	ln -sfn ../../carioca_env build/typecheck/carioca_env
	ln -sfn ../../agents build/typecheck/carioca_agents
	ln -sfn ../../experiments build/typecheck/carioca_experiments
	$(VENV)/bin/mypy

# The documentation site, strict: a broken reference or link fails the build.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir build/site

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
