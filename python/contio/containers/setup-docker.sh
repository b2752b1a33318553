#!/usr/bin/env bash
# Makes a Docker engine reachable: installs Debian's docker.io when dockerd is missing,
# starts dockerd when nothing answers on its socket, and waits until it answers.
# Idempotent and quick (one `docker version` call) when the engine already runs.
#
# Environment:
#   CONTIO_DOCKER_LOG      where dockerd's output goes (default ~/.cache/contio/logs/dockerd.log)
#   CONTIO_DOCKER_TIMEOUT  seconds to wait for the engine to answer (default 300: a dockerd
#                          restoring containers or a swarm from an earlier boot serves its
#                          API only after that, which took over 60 s on a loaded 2-core CI host)
# Exit codes: 0 the engine answers, 1 it could not be started, 2 not root and something is missing.
set -euo pipefail

log="${CONTIO_DOCKER_LOG:-${HOME}/.cache/contio/logs/dockerd.log}"
timeout_s="${CONTIO_DOCKER_TIMEOUT:-300}"
socket=/var/run/docker.sock

engine_answers() {
    # `docker version` talks to the engine (the client alone cannot answer the Server part).
    [[ -S "$socket" ]] && timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

if command -v docker >/dev/null && engine_answers; then
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "setup-docker: no Docker engine answers on $socket and starting one needs root" >&2
    exit 2
fi

if ! command -v dockerd >/dev/null || ! command -v containerd >/dev/null; then
    echo "setup-docker: installing Debian's docker.io"
    export DEBIAN_FRONTEND=noninteractive
    # Other tools may hold the dpkg lock briefly; wait for it instead of failing.
    apt_opts=(-o DPkg::Lock::Timeout=300 -y -qq --no-install-recommends)
    if ! apt-get install "${apt_opts[@]}" docker.io >/dev/null; then
        apt-get -o DPkg::Lock::Timeout=300 update -qq
        apt-get install "${apt_opts[@]}" docker.io >/dev/null
    fi
fi

if ! pgrep -x dockerd >/dev/null; then
    mkdir -p "$(dirname "$log")"
    echo "setup-docker: starting dockerd (log: $log)"
    # setsid + nohup: dockerd outlives this script and the caller's process group, so an
    # interrupt sent to a test run does not take the engine down with it.
    setsid nohup dockerd >>"$log" 2>&1 </dev/null &
fi

deadline=$((SECONDS + timeout_s))
next_note=$((SECONDS + 30))
until engine_answers; do
    if ((SECONDS >= next_note)); then
        echo "setup-docker: waiting for dockerd to answer ($((deadline - SECONDS))s left; log: $log)" >&2
        next_note=$((SECONDS + 30))
    fi
    if ((SECONDS >= deadline)); then
        echo "setup-docker: dockerd did not answer within ${timeout_s}s; last log lines:" >&2
        tail -n 20 "$log" >&2 || true
        exit 1
    fi
    if ! pgrep -x dockerd >/dev/null; then
        echo "setup-docker: dockerd exited; last log lines:" >&2
        tail -n 20 "$log" >&2 || true
        exit 1
    fi
    sleep 0.2
done
echo "setup-docker: engine $(docker version --format '{{.Server.Version}}') is ready"
