"""Entry point run inside a node's new mount namespace: give glusterd its own state, exec it.

`contio cluster up` starts `nsenter --net=NETNS -- unshare --mount --propagation private --
python -m contio.gluster.node_boot NODE_DIR`. Here, in the private mount namespace, the
node's directories are bind-mounted over /var/lib/glusterd, /var/log/glusterfs and /run
(glusterd's unix socket lives in /run; a shared one makes the second glusterd fail with
"Address already in use"), then this process becomes glusterd, in the foreground, so its
pid is the one contio started.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# node directory entry → system path glusterd and its brick processes use
PRIVATE_DIRS = {"glusterd": "/var/lib/glusterd", "log": "/var/log/glusterfs", "run": "/run"}


def main(argv: list[str]) -> int:
    """Bind the node's directories and exec glusterd; returns only on failure."""
    if len(argv) != 1:
        print("usage: python -m contio.gluster.node_boot NODE_DIR", file=sys.stderr)
        return 2
    node_dir = Path(argv[0])
    for name, target in PRIVATE_DIRS.items():
        source = node_dir / name
        source.mkdir(parents=True, exist_ok=True)
        Path(target).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", str(source), target], check=True)
    os.execvp("glusterd", ["glusterd", "--no-daemon"])
    return 1  # not reached: execvp replaces this process or raises


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
