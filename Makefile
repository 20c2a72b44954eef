# errkb — everything goes through make. `make demo` and `make test` are the
# two commands a newcomer needs; both install what is missing first.

CARGO   ?= cargo
PYTHON  ?= python3
DIST    := dist
EXT     := $(DIST)/errkb.so
RUNNER  := $(DIST)/errkb
VENV    := .venv
PY      := $(VENV)/bin/python

.PHONY: all loadable deps venv demo test test-rust test-sql bench format lint clean

all: loadable

# Debian packages the build needs (libclang for bindgen, sqlite3, node).
deps:
	@bash scripts/install-deps.sh

# The extension (dist/errkb.so, for `.load ./dist/errkb`) and the runner.
loadable: deps
	$(CARGO) build --release --locked
	@mkdir -p $(DIST)
	cp target/release/liberrkb.so $(EXT)
	cp target/release/errkb $(RUNNER)

$(PY): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	@touch $(PY)

venv: $(PY)

demo: loadable
	@bash scripts/demo.sh

test: loadable venv test-rust test-sql

test-rust:
	$(CARGO) test --locked --lib

test-sql: venv
	$(PY) -m pytest -q tests

bench: loadable venv
	$(PY) scripts/bench.py

format:
	$(CARGO) fmt

lint:
	$(CARGO) clippy --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf $(DIST) $(VENV)
