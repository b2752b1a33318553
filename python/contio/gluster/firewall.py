"""The one iptables rule the local cluster needs: accept forwarding on its own bridge.

Once dockerd runs, the FORWARD policy is DROP and bridged frames pass through iptables
(`bridge-nf-call-iptables = 1`), so peers on the bridge cannot reach each other unless
accepted. The rule goes into DOCKER-USER when that chain exists (Docker's place for user
rules), else at the top of FORWARD — which also keeps working if dockerd starts later.
"""

from __future__ import annotations

import shutil
from typing import Any

from contio.host import command


def accept_bridge_rule(bridge: str) -> dict[str, Any] | None:
    """The rule (chain + spec) to add for `bridge`, or None when iptables is absent."""
    if shutil.which("iptables") is None:
        return None
    has_docker_user = (
        command.run(["iptables", "-n", "-L", "DOCKER-USER"], check=False).returncode == 0
    )
    chain = "DOCKER-USER" if has_docker_user else "FORWARD"
    return {"table": "filter", "chain": chain, "rule": ["-i", bridge, "-o", bridge, "-j", "ACCEPT"]}


def insert(rule: dict[str, Any]) -> None:
    """Insert `rule` at the top of its chain."""
    command.run(["iptables", "-t", rule["table"], "-I", rule["chain"], "1", *rule["rule"]])
