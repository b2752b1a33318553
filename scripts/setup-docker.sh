#!/usr/bin/env bash
# Makes a Docker engine reachable (installs docker.io, starts dockerd, waits until it answers).
# The script itself ships inside the Python package, so an installed `contio` can run it too
# (contio.containers.docker_engine.ensure_engine); this wrapper is for `make test` and people.
set -euo pipefail
exec "$(cd "$(dirname "$0")/.." && pwd)/python/contio/containers/setup-docker.sh" "$@"
