"""GlusterFS: volume layouts, node access (network namespaces or SSH), the one-machine
cluster of `contio cluster up`, and timed node faults."""
