"""Paper 004's I/O middleware (docs/middleware.md): per-tenant shares of a Gluster
cluster's storage nodes, decided by one coordinator and enforced by a node agent on
every storage node.

- `auth`: the per-cluster secret and the signature every request carries;
- `store`: the coordinator's state in SQLite, so a restart loses no configuration;
- `coordinator`: the control loop's decisions (`contio.qos.policy`) from the reports;
- `http_api`: the coordinator's HTTP/JSON API and its client;
- `agent`, `vnode`, `bricks`, `disk_names`: VNode Sync on a node, one agent per brick disk;
- `services`: the coordinator and agent commands, light to start;
- `daemon`: the services as processes (PID and start time, detaching, stopping);
- `deployment`: `contio qos up/down`, on the local cluster or an inventory's hosts.
"""
