#!/usr/bin/env bash
# Installs the peers that `make bench` measures contio against (docs/benchmarks.md):
#   - YCSB 0.17.0 core (site.ycsb:core:0.17.0 from Maven Central) and its runtime
#     dependencies, copied by Maven into $CONTIO_CACHE/ycsb/jars;
#   - fio and sysbench from Debian, xfsprogs for the loop-backed XFS file, and GNU time
#     (/usr/bin/time) which measures each child's peak RSS;
#   - go-ycsb 1.0.3 (Go module github.com/pingcap/go-ycsb) with only its basic and redis
#     bindings, into $CONTIO_CACHE/go-ycsb/bin, and go-tpc 1.0.7 (github.com/pingcap/go-tpc)
#     into $CONTIO_CACHE/go-tpc/bin, both from the Go module proxy at pinned versions.
# Idempotent: quick when everything is already there. Exit code 2 when it cannot
# install something (the benchmarks then report a broken set-up).
set -euo pipefail
cache="${CONTIO_CACHE:-$HOME/.cache/contio}"
ycsb_dir="$cache/ycsb"
ycsb_version="0.17.0"
go_ycsb_version="v1.0.3"
go_tpc_version="v1.0.7"
# The go.mod/go.sum that pin go-ycsb's dependencies for the trimmed main (see install_go_ycsb).
go_ycsb_pins="$(cd "$(dirname "$0")/.." && pwd)/benchmarks/go/go-ycsb"

install_debian_peers() {
    local missing=()
    for pkg in fio sysbench xfsprogs time; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    ((${#missing[@]})) || return 0
    if [[ $(id -u) -ne 0 ]]; then
        echo "setup-bench: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
        exit 2
    fi
    echo "setup-bench: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_ycsb() {
    local stamp="$ycsb_dir/jars/.complete-$ycsb_version"
    [[ -f "$stamp" ]] && return 0
    if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
        echo "setup-bench: YCSB needs java and mvn (Debian: default-jre-headless maven)" >&2
        exit 2
    fi
    echo "setup-bench: fetching YCSB $ycsb_version core and its dependencies from Maven Central"
    mkdir -p "$ycsb_dir/jars"
    # A throw-away project whose only dependency is YCSB core: Maven resolves the
    # transitive runtime jars (HdrHistogram, jackson, htrace) and copies them out.
    cat > "$ycsb_dir/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>contio.bench</groupId>
  <artifactId>ycsb-peer</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>site.ycsb</groupId>
      <artifactId>core</artifactId>
      <version>$ycsb_version</version>
    </dependency>
  </dependencies>
</project>
EOF
    mvn -q -B -f "$ycsb_dir/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$ycsb_dir/jars"
    if ! ls "$ycsb_dir/jars"/core-"$ycsb_version".jar >/dev/null 2>&1; then
        echo "setup-bench: Maven did not produce core-$ycsb_version.jar in $ycsb_dir/jars" >&2
        exit 2
    fi
    touch "$stamp"
}

require_go() {
    if ! command -v go >/dev/null; then
        echo "setup-bench: the Go peers need the go command (Debian: golang-go, or /usr/local/go)" >&2
        exit 2
    fi
}

# go-ycsb's own main registers every binding it has, and building it pulls TiKV, RocksDB
# (cgo), FoundationDB and more. The main here is go-ycsb's cmd/go-ycsb at the pinned
# version with every binding import but basic and redis removed; its go.mod/go.sum are
# the ones in benchmarks/go/go-ycsb, so every dependency is pinned too.
install_go_ycsb() {
    local dir="$cache/go-ycsb" bin="$cache/go-ycsb/bin/go-ycsb-$go_ycsb_version"
    [[ -x "$bin" ]] && return 0
    require_go
    echo "setup-bench: building go-ycsb $go_ycsb_version (basic and redis bindings only)"
    export GOFLAGS="-mod=mod -buildvcs=false"
    local module src
    module=$(cd /tmp && go mod download -json "github.com/pingcap/go-ycsb@$go_ycsb_version" \
        | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    if [[ ! -d "$module/cmd/go-ycsb" ]]; then
        echo "setup-bench: go mod download gave no go-ycsb $go_ycsb_version source" >&2
        exit 2
    fi
    src="$dir/src"
    rm -rf "$src"
    mkdir -p "$src" "$dir/bin"
    cp "$module"/cmd/go-ycsb/*.go "$src/"
    chmod u+w "$src"/*.go
    sed -i -E '/"github.com\/pingcap\/go-ycsb\/db\/(basic|redis)"/!{/"github.com\/pingcap\/go-ycsb\/db\//d}' \
        "$src/main.go"
    if [[ $(grep -c '"github.com/pingcap/go-ycsb/db/' "$src/main.go") -ne 2 ]]; then
        echo "setup-bench: go-ycsb's main.go no longer lists its bindings as expected" >&2
        exit 2
    fi
    cp "$go_ycsb_pins/go.mod" "$go_ycsb_pins/go.sum" "$src/"
    (cd "$src" && go build -trimpath -o "$bin.tmp" .)
    mv "$bin.tmp" "$bin"
}

# go-tpc's go.mod has no replace directives, so `go install module@version` builds it
# with exactly the dependency versions its own go.mod and go.sum pin.
install_go_tpc() {
    local bin="$cache/go-tpc/bin/go-tpc-$go_tpc_version"
    [[ -x "$bin" ]] && return 0
    require_go
    echo "setup-bench: building go-tpc $go_tpc_version"
    mkdir -p "$cache/go-tpc/gobin"
    (cd /tmp && GOFLAGS="-buildvcs=false" GOBIN="$cache/go-tpc/gobin" \
        go install -trimpath "github.com/pingcap/go-tpc/cmd/go-tpc@$go_tpc_version")
    mkdir -p "$cache/go-tpc/bin"
    mv "$cache/go-tpc/gobin/go-tpc" "$bin"
}

install_debian_peers
install_ycsb
install_go_ycsb
install_go_tpc
