"""How contio runs a command on a Gluster node: inside its namespaces, or over SSH.

Both turn an argv into an argv (no shell strings are built from input). Over SSH the
remote side does run a shell, so every word is quoted with `shlex.quote`.
"""

from __future__ import annotations

import shlex
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from contio.errors import ClusterError
from contio.host import command

# A volume operation waits for every peer; on a dead peer glusterd gives up after ~120 s.
GLUSTER_TIMEOUT = 180.0


class GlusterNode(Protocol):
    """A node of a Gluster trusted pool."""

    @property
    def address(self) -> str:
        """What peers and clients use to reach it (IP or host name)."""
        ...

    def argv(self, cmd: Sequence[str]) -> list[str]:
        """The host-side command line that runs `cmd` on this node."""
        ...


@dataclass(frozen=True)
class NamespaceNode:
    """A node of the one-machine cluster: glusterd's network and mount namespaces."""

    address: str
    glusterd_pid: int

    def argv(self, cmd: Sequence[str]) -> list[str]:
        return ["nsenter", f"--target={self.glusterd_pid}", "--mount", "--net", "--", *cmd]


@dataclass(frozen=True)
class SshNode:
    """A node reached over SSH (`ssh_target` may be `user@host`)."""

    ssh_target: str
    address: str
    ssh_options: tuple[str, ...] = field(default=())

    def argv(self, cmd: Sequence[str]) -> list[str]:
        # BatchMode: fail instead of prompting for a password in the middle of a run.
        return [
            "ssh", "-o", "BatchMode=yes", *self.ssh_options, self.ssh_target,
            "--", shlex.join(cmd),
        ]  # fmt: skip


def gluster_xml(
    node: GlusterNode, args: Sequence[str], timeout: float = GLUSTER_TIMEOUT
) -> ET.Element:
    """Run `gluster --mode=script ARGS --xml` on `node`; the XML root, or `ClusterError`."""
    argv = node.argv(["gluster", "--mode=script", *args, "--xml"])
    proc = command.run(argv, check=False, timeout=timeout)
    try:
        root = ET.fromstring(proc.stdout)
    except ET.ParseError:
        detail = (proc.stderr or proc.stdout).strip()
        raise ClusterError(
            f"`gluster {' '.join(args)}` on {node.address} failed: {detail}"
        ) from None
    if root.findtext("opRet", "-1") != "0":
        detail = root.findtext("opErrstr") or (proc.stderr or "").strip()
        raise ClusterError(f"`gluster {' '.join(args)}` on {node.address} failed: {detail}")
    return root


def gluster_text(node: GlusterNode, args: Sequence[str], timeout: float = GLUSTER_TIMEOUT) -> str:
    """Run a gluster command whose output is not XML (e.g. `peer probe`)."""
    argv = node.argv(["gluster", "--mode=script", *args])
    proc = command.run(argv, check=False, timeout=timeout)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip()
        raise ClusterError(f"`gluster {' '.join(args)}` on {node.address} failed: {detail}")
    return proc.stdout


def wait_for_peers(nodes: Sequence[GlusterNode], timeout: float) -> float:
    """Wait until every node's glusterd sees every node connected; the seconds waited.

    Volume operations are staged on all peers, and a peer still handshaking (a pool just
    formed, a node just restarted) fails them with "Host … not connected".
    """
    start = time.monotonic()
    for node in nodes:
        while True:
            try:
                root = gluster_xml(node, ["pool", "list"])
                connected = [p.findtext("connected") for p in root.iter("peer")]
            except ClusterError:
                connected = []  # a glusterd just started may not answer yet
            if len(connected) == len(nodes) and all(c == "1" for c in connected):
                break
            if time.monotonic() - start > timeout:
                raise ClusterError(
                    f"peers of {node.address} not all connected after {timeout:g} s "
                    f"(connected: {connected})"
                )
            time.sleep(0.3)
    return time.monotonic() - start
