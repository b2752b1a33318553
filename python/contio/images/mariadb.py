"""`contio/mariadb`: Debian's MariaDB server (MySQL protocol), run as the `mysql` user.

The entrypoint initialises an empty data directory, then runs the server with the
options the target passes as arguments.
"""

from __future__ import annotations

from contio.images.recipe import Input, Recipe
from contio.images.registry import register

UID = 999
DATA_DIR = "/var/lib/mysql"
SOCKET = "/run/mysqld/mysqld.sock"

ENTRYPOINT = f"""\
#!/bin/sh
# Initialise an empty data directory, then replace this shell with the server.
set -eu
if [ ! -d {DATA_DIR}/mysql ]; then
    mariadb-install-db --datadir={DATA_DIR} --skip-test-db --auth-root-authentication-method=socket \\
        --auth-root-socket-user=mysql \\
        --skip-name-resolve >/tmp/install-db.log 2>&1 || {{ cat /tmp/install-db.log >&2; exit 1; }}
fi
exec mariadbd --datadir={DATA_DIR} --socket={SOCKET} --bind-address=0.0.0.0 \\
    --skip-name-resolve "$@"
"""


@register
class MariadbImage(Recipe):
    """mariadb-server and its client from bookworm, `mysql` fixed at uid {UID}."""

    name = "mariadb"
    depends = ("debian",)

    def dockerfile(self) -> str:
        return f"""\
FROM contio/debian:bookworm
RUN groupadd --system --gid {UID} mysql \\
 && useradd --system --uid {UID} --gid mysql --home-dir {DATA_DIR} --no-create-home \\
    --shell /usr/sbin/nologin mysql \\
 && apt-get update && apt-get install -y mariadb-server mariadb-client \\
 && rm -rf /var/lib/apt/lists/* {DATA_DIR} \\
 && mkdir -p {DATA_DIR} /run/mysqld && chown mysql:mysql {DATA_DIR} /run/mysqld
COPY entrypoint.sh /usr/local/bin/contio-mariadb
USER mysql
VOLUME {DATA_DIR}
EXPOSE 3306
ENTRYPOINT ["/bin/sh", "/usr/local/bin/contio-mariadb"]
"""

    def inputs(self) -> dict[str, Input]:
        return {"entrypoint.sh": ENTRYPOINT.encode()}
