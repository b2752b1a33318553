"""Which engine binding speaks to each database target, and the properties that point
it at one server container (`mysql.host`, `redis.port`, `mongodb.url`, …).
"""

from __future__ import annotations

from dataclasses import dataclass

from docker.models.containers import Container

from contio.errors import UsageError
from contio.targets.base import YCSB_DATABASE, YCSB_PASSWORD, YCSB_USER, DatabaseTarget

#: database target → the engine target that speaks its protocol
ENGINE_TARGET = {
    "mariadb": "mysql",
    "postgres": "postgres",
    "redis": "redis",
    "cassandra": "cassandra",
    "ferretdb": "mongodb",
    "mongodb": "mongodb",
}


@dataclass(frozen=True)
class EngineBinding:
    """An engine target and the properties that connect it to one server."""

    target: str
    properties: dict[str, str]


def engine_binding(target: DatabaseTarget, container: Container) -> EngineBinding:
    """How an engine on the experiment's network reaches `target` running in `container`."""
    try:
        engine_target = ENGINE_TARGET[target.name]
    except KeyError:
        raise UsageError(
            f"no engine binding for database target {target.name!r}; "
            f"known: {', '.join(ENGINE_TARGET)}"
        ) from None
    host, port = target.address(container)
    if engine_target == "mongodb":
        props = {
            "mongodb.url": f"mongodb://{host}:{port}/{YCSB_DATABASE}?w=1&directConnection=true"
        }
    elif engine_target == "redis":
        props = {"redis.host": host, "redis.port": str(port)}
    elif engine_target == "cassandra":
        props = {"cassandra.host": host, "cassandra.port": str(port)}
    else:
        props = {
            f"{engine_target}.host": host,
            f"{engine_target}.port": str(port),
            f"{engine_target}.user": YCSB_USER,
            f"{engine_target}.password": YCSB_PASSWORD,
            f"{engine_target}.database": YCSB_DATABASE,
        }
    return EngineBinding(engine_target, props)
