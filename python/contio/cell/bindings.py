"""Which engine binding speaks to each database target, and the properties that point
it at one server container (`mysql.host`, `redis.port`, `mongodb.url`, …).

Where the client sits: by default the engine's client container joins the host's
network namespace and reaches the server at its address on the experiment's bridge,
the path a client running on the host takes. A client container with a network
namespace of its own on the bridge adds a veth hop and the bridge's netfilter pass in
each direction, which cost 14% more CPU per operation and 15% of the ops/s against
Redis on a 2-core machine (docs/benchmarks.md, `containers`); `host_network=False`
keeps that isolation (the server is then reached by name through Docker's DNS).
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
    host_network: bool = False
    """Whether the client container joins the host's network namespace (see above)."""


def engine_binding(
    target: DatabaseTarget, container: Container, host_network: bool = True
) -> EngineBinding:
    """How an engine client reaches `target` running in `container`: from the host's
    network namespace at the server's bridge address, or (`host_network=False`) from
    the experiment's network by the server's name."""
    try:
        engine_target = ENGINE_TARGET[target.name]
    except KeyError:
        raise UsageError(
            f"no engine binding for database target {target.name!r}; "
            f"known: {', '.join(ENGINE_TARGET)}"
        ) from None
    host, port = target.address(container)
    if host_network:
        host = bridge_address(container)
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
    return EngineBinding(engine_target, props, host_network)


def bridge_address(container: Container) -> str:
    """The server's IP address on the experiment's bridge network."""
    container.reload()
    for network in container.attrs["NetworkSettings"]["Networks"].values():
        if network.get("IPAddress"):
            return network["IPAddress"]
    raise UsageError(f"container {container.name} has no address on a bridge network")
