#!/usr/bin/env bash
# Installs the peers that `make bench` measures contio against (docs/benchmarks.md):
#   - YCSB 0.17.0 core (site.ycsb:core:0.17.0 from Maven Central) and its runtime
#     dependencies, copied by Maven into $CONTIO_CACHE/ycsb/jars;
#   - fio and sysbench from Debian, xfsprogs for the loop-backed XFS file, and GNU time
#     (/usr/bin/time) which measures each child's peak RSS.
# Idempotent: quick when everything is already there. Exit code 2 when it cannot
# install something (the benchmarks then report a broken set-up).
set -euo pipefail
cache="${CONTIO_CACHE:-$HOME/.cache/contio}"
ycsb_dir="$cache/ycsb"
ycsb_version="0.17.0"

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

install_debian_peers
install_ycsb
