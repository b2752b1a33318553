# contio: `make run` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV ?= .venv
PY := $(VENV)/bin/python
# Build caches live outside the clone so a fresh clone (CI) reuses them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/contio/target
export PATH := $(HOME)/.cargo/bin:$(PATH)

# The package is installed editable: only the engine's sources and the packaging need a
# reinstall (python/ is imported in place).
SOURCES := $(shell find crates packaging -type f 2>/dev/null) Cargo.toml pyproject.toml

.PHONY: help run test test-rust test-python bench setup system-deps lint clean

help:
	@echo "make run    - install what is needed and run the default experiment"
	@echo "make test   - install what is needed and run every test (Rust and Python)"
	@echo "make bench  - run the benchmarks against their peers (see docs/benchmarks.md)"
	@echo "make lint   - formatting, clippy, ruff and mypy (part of make test)"

# Debian packages and toolchains (as root); fast when everything is present.
system-deps:
	@scripts/setup-system.sh

$(VENV)/.installed: $(SOURCES) | system-deps
	@scripts/setup-python.sh $(VENV)
	@touch $@

setup: $(VENV)/.installed

run: setup
	$(VENV)/bin/contio run

test: setup lint test-rust test-python

# The tests build for the target the engine was installed for (musl when present, as
# scripts/setup-python.sh decides), so they reuse its compiled dependencies instead of
# building the whole dependency tree a second time for the host's glibc. Recursive (=)
# so it is decided when the recipe runs, after `setup` installed the musl target.
MUSL_READY = $(shell rustup target list --installed 2>/dev/null | grep -qx x86_64-unknown-linux-musl \
	&& command -v musl-gcc >/dev/null && echo yes)
TEST_TARGET = $(if $(MUSL_READY),--target x86_64-unknown-linux-musl,)

test-rust: setup
	CONTIO_TEST_STRICT=1 cargo test --release --workspace $(TEST_TARGET)  # no fileio case may skip in CI

test-python: setup
	@scripts/setup-docker.sh  # the docker-marked tests need a running engine
	CONTIO_TEST_STRICT=1 $(PY) -m pytest --durations=25  # the slowest tests (make test < 40 min); a skip not in tests/allowed_skips.py fails

bench: setup
	@scripts/setup-bench.sh
	$(PY) -m benchmarks

# Style and types, also inside `make test` (and so CI): formatting, clippy on every target,
# ruff's rules (pyproject.toml) and mypy over python/contio.
lint: setup
	cargo fmt --all -- --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests benchmarks
	$(VENV)/bin/ruff format --check python tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache  # the package layers of pyproject.toml [tool.importlinter]

clean:
	rm -rf $(VENV)
