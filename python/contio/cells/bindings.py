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
from contio.targets.engine_targets import DATABASE_BINDINGS

#: database target → the engine target that speaks its protocol
ENGINE_TARGET = DATABASE_BINDINGS


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
    return EngineBinding(
        engine_target, connection_properties(engine_target, host, port), host_network
    )


def bridge_address(container: Container) -> str:
    """The server's IP address on the experiment's bridge network."""
    container.reload()
    for network in container.attrs["NetworkSettings"]["Networks"].values():
        if network.get("IPAddress"):
            return network["IPAddress"]
    raise UsageError(f"container {container.name} has no address on a bridge network")


def connection_properties(engine_target: str, host: str, port: int) -> dict[str, str]:
    """The engine properties that point binding `engine_target` at `host:port`."""
    if engine_target == "mongodb":
        return {"mongodb.url": f"mongodb://{host}:{port}/{YCSB_DATABASE}?w=1&directConnection=true"}
    if engine_target in ("redis", "cassandra"):
        return {f"{engine_target}.host": host, f"{engine_target}.port": str(port)}
    return {
        f"{engine_target}.host": host,
        f"{engine_target}.port": str(port),
        f"{engine_target}.user": YCSB_USER,
        f"{engine_target}.password": YCSB_PASSWORD,
        f"{engine_target}.database": YCSB_DATABASE,
    }


def unreachable_binding(database: str) -> EngineBinding:
    """A binding for `database` pointed at a closed port (127.0.0.1:1): the engine checks
    every property before it connects (exit 2), then fails at once to connect (exit 1).
    `contio run` checks a spec's database cells this way before any server runs."""
    engine_target = ENGINE_TARGET[database]
    properties = connection_properties(engine_target, "127.0.0.1", 1)
    if engine_target == "mongodb":  # the driver would wait 30 s for a server by default
        properties["mongodb.url"] += "&serverSelectionTimeoutMS=200"
    return EngineBinding(engine_target, properties)
