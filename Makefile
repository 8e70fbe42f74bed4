# Two commands: `make run` starts the dashboard, `make test` runs every test. Both set up what
# they need (virtualenv, pip packages, npm packages for the parity oracle, Debian's chromium, and
# Debian's PostgreSQL server, which the run-store tests start a throwaway cluster of) and
# are idempotent: each step re-runs only when its inputs change.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
ORACLE := tests/parity/js
POSTGRES := /usr/bin/pg_ctlcluster
# pytest workers: one per CPU, at most 4. (pytest-xdist 3.8 on pytest 9 did not keep xdist_group tests on one
# worker here, so browser tests share the CPUs: they wait for what a page shows, never a fixed time.)
JOBS ?= $(shell n=$$(nproc); echo $$(( n < 4 ? n : 4 )))

.PHONY: run test lint format bench setup clean

run: $(VENV)/.runtime $(VENV)/.native
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.address localhost

test: $(VENV)/.dev $(VENV)/.native $(ORACLE)/node_modules/.installed /usr/bin/chromium $(POSTGRES)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache --no-logo
	$(PY) -m pytest -n $(JOBS)

lint:
	$(VENV)/bin/ruff check --fix . && $(VENV)/bin/ruff format .

bench: $(VENV)/.dev $(VENV)/.native $(ORACLE)/node_modules/.installed
	$(PY) -m bench

setup: $(VENV)/.dev $(VENV)/.native $(ORACLE)/node_modules/.installed /usr/bin/chromium $(POSTGRES)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

# The compiled cores (C twins of hot code, scoring/native.py), built in place. Without a C compiler the build
# fails, the package warns and runs its Python code instead (same results), and the next make tries again.
$(VENV)/.native: setup.py $(wildcard scoring/*.c scoring/*/*.c scoring/*/*.h) | $(VENV)/.runtime
	$(PY) setup.py --quiet build_ext --inplace && touch $@ \
	  || echo "warning: the compiled cores were not built; the Python code will run (same results, slower)" >&2

$(ORACLE)/node_modules/.installed: $(ORACLE)/package.json $(ORACLE)/package-lock.json
	cd $(ORACLE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null

# The server binaries (initdb, pg_ctl) for tests/scoring/runs/; its postgresql-common brings pg_ctlcluster.
$(POSTGRES):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null

clean:
	rm -rf $(VENV) $(ORACLE)/node_modules build scoring/*.so scoring/*/*.so
