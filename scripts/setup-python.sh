#!/usr/bin/env bash
# Creates the virtual environment and installs contio (Python package + Rust engine)
# editable, with one `pip install -e .`: the package is imported from python/, so
# `pytest` after an edit tests the edit; the engine binary goes to the venv's bin.
# (tests/cli/test_installed_wheel.py installs a built wheel, as a user would.)
# Cargo's build cache is CARGO_TARGET_DIR.
# The engine is linked statically (musl), as the wheel is; see pyproject.toml.
set -euo pipefail
venv="${1:-.venv}"
python="${PYTHON:-python3}"

if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip 'maturin>=1.5,<2'
# No build isolation: reuse the maturin installed above instead of fetching it per build.
# maturin's build hook runs the `maturin` executable, so the venv's bin must be on PATH.
PATH="$(cd "$venv" && pwd)/bin:$PATH"
export PATH
# pyproject.toml builds the engine for musl: one static binary for this host and for the
# contio/engine image FROM scratch. Without the musl target (or musl-gcc, which the C parts
# of the engine's dependencies need), fall back to glibc linked statically (crt-static).
if ! { rustup target list --installed 2>/dev/null | grep -q x86_64-unknown-linux-musl \
        && command -v musl-gcc >/dev/null; }; then
    echo "setup: no musl target (rustup) or musl-gcc; building the engine with glibc crt-static" >&2
    export MATURIN_PEP517_ARGS="--target x86_64-unknown-linux-gnu"
    export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static"
fi
"$venv/bin/python" -m pip install -q --no-build-isolation -e '.[test]'
