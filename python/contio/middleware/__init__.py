"""Paper 004's I/O middleware (docs/middleware.md): per-tenant shares of a Gluster
cluster's storage nodes, decided by one coordinator and enforced by a node agent on
every storage node.

- `model`: tenants, policies and the agent's report, validated (pydantic);
- `auth`: the per-cluster secret and the signature every request carries;
- `store`: the coordinator's state in SQLite, so a restart loses no configuration;
- `coordinator`: the control loop's decisions (`contio.qos.policy`) from the reports;
- `http_api`: the coordinator's HTTP/JSON API and its client.
"""
