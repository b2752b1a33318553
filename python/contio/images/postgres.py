"""`contio/postgres`: Debian's PostgreSQL 15, run as the `postgres` user.

The entrypoint runs initdb on an empty data directory (local connections trusted,
network connections with a password), then the server with the target's options.
"""

from __future__ import annotations

from contio.images.recipe import Input, Recipe
from contio.images.registry import register

UID = 998
VERSION = 15
DATA_DIR = "/var/lib/postgresql/data"
SOCKET_DIR = "/run/postgresql"
BIN = f"/usr/lib/postgresql/{VERSION}/bin"

ENTRYPOINT = f"""\
#!/bin/sh
# Initialise an empty data directory, then replace this shell with the server.
set -eu
if [ ! -s {DATA_DIR}/PG_VERSION ]; then
    {BIN}/initdb -D {DATA_DIR} --username=postgres --auth-local=trust \\
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/tmp/initdb.log 2>&1 \\
        || {{ cat /tmp/initdb.log >&2; exit 1; }}
    echo "host all all 0.0.0.0/0 scram-sha-256" >> {DATA_DIR}/pg_hba.conf
fi
exec {BIN}/postgres -D {DATA_DIR} -c listen_addresses='*' \\
    -c unix_socket_directories={SOCKET_DIR} "$@"
"""


@register
class PostgresImage(Recipe):
    """postgresql-15 from bookworm without Debian's default cluster."""

    name = "postgres"
    depends = ("debian",)

    def dockerfile(self) -> str:
        return f"""\
FROM contio/debian:bookworm
RUN groupadd --system --gid {UID} postgres \\
 && useradd --system --uid {UID} --gid postgres --home-dir /var/lib/postgresql \\
    --shell /bin/sh postgres \\
 && mkdir -p /etc/postgresql-common \\
 && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf \\
 && apt-get update && apt-get install -y postgresql-{VERSION} postgresql-client-{VERSION} \\
 && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p {DATA_DIR} {SOCKET_DIR} && chown postgres:postgres {DATA_DIR} {SOCKET_DIR} \\
 && chmod 700 {DATA_DIR}
COPY entrypoint.sh /usr/local/bin/contio-postgres
ENV PATH={BIN}:$PATH
USER postgres
VOLUME {DATA_DIR}
EXPOSE 5432
ENTRYPOINT ["/bin/sh", "/usr/local/bin/contio-postgres"]
"""

    def inputs(self) -> dict[str, Input]:
        return {"entrypoint.sh": ENTRYPOINT.encode()}
