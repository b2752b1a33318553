#!/usr/bin/env bash
# Creates the virtual environment and installs contio (Python package + Rust engine)
# with one `pip install .`, as a user would. Cargo's build cache is CARGO_TARGET_DIR.
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
"$venv/bin/python" -m pip install -q --no-build-isolation '.[test]'
