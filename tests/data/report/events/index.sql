BEGIN TRANSACTION;
CREATE TABLE backends (
    name TEXT PRIMARY KEY, description TEXT, unavailable TEXT
);
INSERT INTO "backends" VALUES('dispersed','{"backend": "gluster", "instance": "gluster-f21f00bb", "options": {"volume_type": "dispersed", "bricks": null, "replica": null, "disperse": 3, "redundancy": 1, "volume_name": null, "volume_options": {}, "mount_options": [], "cluster": "anrec", "nodes": 3, "disks_per_node": 1, "disk_size": "1GiB", "subnet": "10.219.0.0/24", "inventory": null}, "volume": "contio-f21f00bb", "volume_info": {"name": "contio-f21f00bb", "type": "Disperse", "status": "Started", "brick_count": 3, "distribute_count": 1, "replica_count": 1, "disperse_count": 3, "redundancy_count": 1, "bricks": ["10.219.0.11:/var/lib/contio/clusters/anrec/node1/disk1/contio-f21f00bb", "10.219.0.12:/var/lib/contio/clusters/anrec/node2/disk1/contio-f21f00bb", "10.219.0.13:/var/lib/contio/clusters/anrec/node3/disk1/contio-f21f00bb"], "options": {"storage.fips-mode-rchecksum": "on", "transport.address-family": "inet", "nfs.disable": "on"}}, "cluster": {"kind": "local", "name": "anrec", "bridge": "ctanrecbr", "host_address": "10.219.0.1", "nodes": [{"node": 1, "netns": "ctanrecn1", "address": "10.219.0.11", "running": true, "brick_disks": [{"mount_point": "/var/lib/contio/clusters/anrec/node1/disk1", "fstype": "xfs", "source": "/dev/loop6"}]}, {"node": 2, "netns": "ctanrecn2", "address": "10.219.0.12", "running": true, "brick_disks": [{"mount_point": "/var/lib/contio/clusters/anrec/node2/disk1", "fstype": "xfs", "source": "/dev/loop7"}]}, {"node": 3, "netns": "ctanrecn3", "address": "10.219.0.13", "running": true, "brick_disks": [{"mount_point": "/var/lib/contio/clusters/anrec/node3/disk1", "fstype": "xfs", "source": "/dev/loop8"}]}]}, "mount": {"mount_point": "/var/lib/contio/backends/gluster-f21f00bb/mnt", "fstype": "fuse.glusterfs", "source": "10.219.0.11:/contio-f21f00bb", "options": "rw,relatime", "super_options": "rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072", "device": "0:41"}, "client": "glusterfs native (FUSE)"}',NULL);
CREATE TABLE cells (
    cell_key TEXT PRIMARY KEY,
    cell_index INTEGER NOT NULL,
    label TEXT NOT NULL,
    levels TEXT NOT NULL,
    members INTEGER NOT NULL,  -- engines per repetition (containers × mix members)
    status TEXT NOT NULL DEFAULT 'pending',  -- pending | running | done | skipped
    reason TEXT,
    finished_at TEXT
);
INSERT INTO "cells" VALUES('{"backend": "dispersed", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1, "workload": "writes"}',1,'backend=dispersed · workload=writes · containers=1 · threads=1','{"backend": "dispersed", "workload": "writes", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1}',1,'done',NULL,'2026-11-24T05:08:17Z');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('profile','null');
INSERT INTO "meta" VALUES('spec_fingerprint','"e6d91469a9e5fca06152e155d922805ac128091f2733c0b6fbda8639997d5c2c"');
INSERT INTO "meta" VALUES('sessions','1');
INSERT INTO "meta" VALUES('io_mechanism.session1','"cgroup-v1 blkio (blkio.throttle.*, blkio.bfq.weight_device with BFQ)"');
CREATE TABLE phases (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    cell_key TEXT NOT NULL REFERENCES cells(cell_key),
    cell_index INTEGER NOT NULL,
    phase TEXT NOT NULL,
    repetition INTEGER NOT NULL,
    container INTEGER NOT NULL,
    target TEXT NOT NULL,
    workload TEXT NOT NULL,
    threads INTEGER NOT NULL,
    status TEXT NOT NULL,
    operations INTEGER NOT NULL,
    failed_operations INTEGER NOT NULL,
    runtime_ms REAL NOT NULL,
    throughput_ops_per_sec REAL NOT NULL,
    steady_ops_per_sec REAL NOT NULL,
    warmup_excluded_s REAL NOT NULL,
    p95_latency_us REAL,  -- NULL: no operation completed (a starved group)
    p99_latency_us REAL,
    latency_source TEXT NOT NULL,
    started_at TEXT NOT NULL,
    raw_json TEXT NOT NULL,
    reads_per_sec REAL,        -- file workloads only (NULL for YCSB phases)
    writes_per_sec REAL,
    iops REAL,
    read_mib_per_sec REAL,
    written_mib_per_sec REAL,
    io_control TEXT NOT NULL DEFAULT ''  -- JSON of the block I/O controls applied
);
INSERT INTO "phases" VALUES(1,1,'{"backend": "dispersed", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1, "workload": "writes"}',1,'load',1,1,'files','writes',1,'ok',1024,0,6.67935534000000075138e+02,1.53308208333770107853e+03,1.53308208333770107853e+03,0.0,2381.0,16687.0,'merged-histograms','2026-11-24T05:07:32.248Z','raw/cell001/s1-rep1/load-c1.json',0.0,1.53308208333770107853e+03,1.53308208333770107853e+03,0.0,5.98860188803789483813e+00,'');
INSERT INTO "phases" VALUES(2,1,'{"backend": "dispersed", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1, "workload": "writes"}',1,'run',1,1,'files','writes',1,'ok',20555,0,15000.84829,1.37025584171146897459e+03,1.37025584171146897459e+03,0.0,3575.0,8091.0,'merged-histograms','2026-11-24T05:07:33.035Z','raw/cell001/s1-rep1/run-c1.json',0.0,1.37025584171146897459e+03,1.37025584171146897459e+03,0.0,5.35256188168542568206e+00,'');
INSERT INTO "phases" VALUES(3,1,'{"backend": "dispersed", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1, "workload": "writes"}',1,'load',2,1,'files','writes',1,'ok',1024,0,1337.07121,7.65853001950434645554e+02,7.65853001950434645554e+02,0.0,4235.0,20895.0,'merged-histograms','2026-11-24T05:07:56.277Z','raw/cell001/s1-rep2/load-c1.json',0.0,7.65853001950434645554e+02,7.65853001950434645554e+02,0.0,2.99161328886888533418e+00,'');
INSERT INTO "phases" VALUES(4,1,'{"backend": "dispersed", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1, "workload": "writes"}',1,'run',2,1,'files','writes',1,'ok',19122,0,15000.286169,1.27477567991456362502e+03,1.27477567991456362502e+03,0.0,3753.0,14943.0,'merged-histograms','2026-11-24T05:07:57.751Z','raw/cell001/s1-rep2/run-c1.json',0.0,1.27477567991456362502e+03,1.27477567991456362502e+03,0.0,4.97959249966626416039e+00,'');
CREATE UNIQUE INDEX completed_runs
    ON phases(cell_key, repetition, container) WHERE phase = 'run' AND status = 'ok';
COMMIT;
