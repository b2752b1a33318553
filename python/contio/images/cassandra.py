"""`contio/cassandra`: Apache Cassandra from Maven Central jars on the Debian JRE image.

No Cassandra tarball or package is reachable here, but `cassandra-all` and its
runtime dependencies are on Maven Central: `mvn dependency:copy-dependencies` on a
generated pom fetches them (cached under ~/.cache/contio/downloads). The image adds
a small cassandra.yaml, JVM options for a small heap on Java 17, and cqlsh as the
database's own client (its wheels fetched from PyPI on the host with `pip download`,
since only the host is set up to reach PyPI, and installed offline in the image).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from contio.errors import ImageBuildError
from contio.images.recipe import Input, Recipe, build_log_path, cache_root, require_program
from contio.images.registry import register

VERSION = "5.0.9"
CQLSH_VERSION = "6.2.2"
UID = 996
DATA_DIR = "/var/lib/cassandra"
HOME = "/opt/cassandra"

POM = f"""\
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>contio.local</groupId>
  <artifactId>cassandra-image</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>{VERSION}</version>
    </dependency>
  </dependencies>
</project>
"""

# Only what a single node needs; everything else keeps Cassandra's defaults. The
# entrypoint appends $CASSANDRA_EXTRA_YAML (cache sizes chosen by the target).
CASSANDRA_YAML = f"""\
cluster_name: contio
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:7000"
listen_address: 127.0.0.1
rpc_address: 0.0.0.0
broadcast_rpc_address: 127.0.0.1
native_transport_port: 9042
start_native_transport: true
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
data_file_directories: [{DATA_DIR}/data]
commitlog_directory: {DATA_DIR}/commitlog
hints_directory: {DATA_DIR}/hints
saved_caches_directory: {DATA_DIR}/saved_caches
cdc_raw_directory: {DATA_DIR}/cdc_raw
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
"""

LOGBACK = """\
<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level %date{ISO8601} %logger{0} %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
"""

# Java 17 hides JDK internals that Cassandra 5 reaches into; these open them again.
JVM_OPTIONS = """\
-XX:+UseG1GC
-XX:+ParallelRefProcEnabled
-XX:+HeapDumpOnOutOfMemoryError
-XX:HeapDumpPath=/tmp
-Djdk.attach.allowAttachSelf=true
-Dio.netty.tryReflectionSetAccessible=true
--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED
--add-exports=java.base/java.lang.ref=ALL-UNNAMED
--add-exports=java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
--add-exports=java.rmi/sun.rmi.server=ALL-UNNAMED
--add-exports=java.sql/java.sql=ALL-UNNAMED
--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED
--add-opens=java.base/java.lang=ALL-UNNAMED
--add-opens=java.base/java.lang.module=ALL-UNNAMED
--add-opens=java.base/java.lang.reflect=ALL-UNNAMED
--add-opens=java.base/java.io=ALL-UNNAMED
--add-opens=java.base/java.nio=ALL-UNNAMED
--add-opens=java.base/java.util=ALL-UNNAMED
--add-opens=java.base/java.util.concurrent=ALL-UNNAMED
--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
--add-opens=java.base/jdk.internal.loader=ALL-UNNAMED
--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
--add-opens=java.base/jdk.internal.reflect=ALL-UNNAMED
--add-opens=java.base/jdk.internal.math=ALL-UNNAMED
--add-opens=java.base/jdk.internal.module=ALL-UNNAMED
--add-opens=java.base/jdk.internal.util.jar=ALL-UNNAMED
--add-opens=java.base/sun.nio.ch=ALL-UNNAMED
--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED
"""

ENTRYPOINT = f"""\
#!/bin/sh
# Write the effective cassandra.yaml to /tmp (the root file system is read-only),
# then replace this shell with the JVM.
set -eu
config=/tmp/cassandra.yaml
cp /etc/cassandra/cassandra.yaml "$config"
printf '%s\\n' "${{CASSANDRA_EXTRA_YAML:-}}" >> "$config"
# Advertise the container's own address: clients in other containers take the
# node's rpc address from system.local, and 127.0.0.1 there is their own loopback.
addr="${{CASSANDRA_BROADCAST_RPC_ADDRESS:-$(hostname -i 2>/dev/null | cut -d' ' -f1)}}"
sed -i "s/^broadcast_rpc_address: .*/broadcast_rpc_address: ${{addr:-127.0.0.1}}/" "$config"
mkdir -p {DATA_DIR}/data {DATA_DIR}/commitlog {DATA_DIR}/hints {DATA_DIR}/saved_caches
heap="${{CASSANDRA_HEAP:-512m}}"
exec java -Xms"$heap" -Xmx"$heap" -Xss512k \\
    $(grep -v '^#' /etc/cassandra/jvm.options) \\
    -javaagent:$(ls {HOME}/lib/jamm-*.jar) \\
    -Dcassandra.config=file://$config \\
    -Dcassandra.storagedir={DATA_DIR} \\
    -Dcassandra-foreground=yes \\
    -Dcassandra.skip_wait_for_gossip_to_settle=0 \\
    -Dlogback.configurationFile=/etc/cassandra/logback.xml \\
    -cp "{HOME}/lib/*" org.apache.cassandra.service.CassandraDaemon "$@"
"""


def fetch_jars() -> Path:
    """Cassandra's runtime jars, fetched once per pom with Maven into the cache."""
    key = hashlib.sha256(POM.encode()).hexdigest()[:16]
    root = cache_root() / "downloads" / f"cassandra-{VERSION}-{key}"
    jars = root / "jars"
    if (root / "complete").is_file():
        return jars
    require_program("mvn", "to fetch Cassandra's jars from Maven Central")
    root.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_text(POM)
    log_path = build_log_path("cassandra-maven")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as out:
        result = subprocess.run(
            ["mvn", "-q", "-B", "-f", str(root / "pom.xml"), "dependency:copy-dependencies",
             "-DincludeScope=runtime", f"-DoutputDirectory={jars}"],
            stdout=out, stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
    if result.returncode != 0:
        raise ImageBuildError(f"Maven could not fetch cassandra-all {VERSION}; see {log_path}")
    (root / "complete").write_text("ok\n")
    return jars


def fetch_cqlsh_wheels() -> Path:
    """cqlsh and its dependencies as wheels for the image's Python (Debian bookworm: 3.11)."""
    root = cache_root() / "downloads" / f"cqlsh-{CQLSH_VERSION}-cp311"
    wheels = root / "wheels"
    if (root / "complete").is_file():
        return wheels
    wheels.mkdir(parents=True, exist_ok=True)
    log_path = build_log_path("cassandra-cqlsh")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as out:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(wheels),
             "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
             "--abi", "cp311", "--platform", "manylinux2014_x86_64",
             "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux_2_28_x86_64",
             f"cqlsh=={CQLSH_VERSION}"],
            stdout=out, stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
    if result.returncode != 0:
        raise ImageBuildError(f"pip could not download cqlsh {CQLSH_VERSION}; see {log_path}")
    (root / "complete").write_text("ok\n")
    return wheels


@register
class CassandraImage(Recipe):
    """cassandra-all {VERSION} jars + config + cqlsh on contio/jre."""

    name = "cassandra"
    depends = ("jre",)

    def dockerfile(self) -> str:
        return f"""\
FROM contio/jre:latest
RUN groupadd --system --gid {UID} cassandra \\
 && useradd --system --uid {UID} --gid cassandra --home-dir {DATA_DIR} --no-create-home \\
    --shell /usr/sbin/nologin cassandra \\
 && apt-get update && apt-get install -y python3 python3-venv \\
 && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p {DATA_DIR} && chown cassandra:cassandra {DATA_DIR}
COPY wheels/ /tmp/wheels/
RUN python3 -m venv /opt/cqlsh \\
 && /opt/cqlsh/bin/pip install -q --no-index --find-links /tmp/wheels cqlsh=={CQLSH_VERSION} \\
 && ln -s /opt/cqlsh/bin/cqlsh /usr/local/bin/cqlsh && rm -rf /tmp/wheels
COPY jars/ {HOME}/lib/
COPY cassandra.yaml logback.xml jvm.options /etc/cassandra/
COPY entrypoint.sh /usr/local/bin/contio-cassandra
USER cassandra
VOLUME {DATA_DIR}
EXPOSE 9042
ENTRYPOINT ["/bin/sh", "/usr/local/bin/contio-cassandra"]
"""

    def inputs(self) -> dict[str, Input]:
        return {
            "jars": fetch_jars(),
            "wheels": fetch_cqlsh_wheels(),
            "cassandra.yaml": CASSANDRA_YAML.encode(),
            "logback.xml": LOGBACK.encode(),
            "jvm.options": JVM_OPTIONS.encode(),
            "entrypoint.sh": ENTRYPOINT.encode(),
        }
