#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/apt-packages.txt that are missing,
# and the Rust targets the build needs. Idempotent and quick when all is present.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

missing=()
while read -r pkg _; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < "$here/apt-packages.txt"

if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "setup: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
        exit 2
    fi
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# BFQ, the I/O scheduler block I/O weights need (cgroup v1 blkio.bfq.weight_device,
# v2 io.bfq.weight); a module on most kernels. Best effort: without it, cells with
# weights are skipped on cgroup v1 (v2 falls back to io.weight) with the reason.
if [[ $(id -u) -eq 0 ]] && ! grep -qw bfq /sys/block/*/queue/scheduler 2>/dev/null; then
    modprobe bfq 2>/dev/null || echo "setup: could not load the bfq module; block I/O weights need it" >&2
fi

if ! command -v cargo >/dev/null; then
    echo "setup: cargo not found; install Rust (rustup) first" >&2
    exit 2
fi
# Only the FerretDB image (the MongoDB protocol, offline) is built with Go.
command -v go >/dev/null || echo "setup: go not found; the contio/ferretdb image (and its tests) need Go 1.22 or later" >&2
# The static (musl) engine for images built FROM scratch; best effort, since a
# machine without rustup's servers can still build everything else.
if command -v rustup >/dev/null && ! rustup target list --installed 2>/dev/null | grep -q x86_64-unknown-linux-musl; then
    timeout 300 rustup target add x86_64-unknown-linux-musl >/dev/null 2>&1 \
        || echo "setup: could not add the musl target; static engine builds will fall back to glibc crt-static" >&2
fi
