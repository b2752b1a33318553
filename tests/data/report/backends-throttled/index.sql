BEGIN TRANSACTION;
CREATE TABLE backends (
    name TEXT PRIMARY KEY, description TEXT, unavailable TEXT
);
INSERT INTO "backends" VALUES('local','{"type": "local-dir", "base": "/tmp", "mount": {"mount_point": "/", "fstype": "ext4", "source": "/dev/vda", "options": "rw,relatime,discard,resv_strict,resuid=65534,resgid=65534"}, "device": "254:0", "block_size": 4096, "free_bytes": 73656782848, "total_bytes": 270553174016}',NULL);
INSERT INTO "backends" VALUES('<script>alert(1)</script>','{"type": "local-dir", "base": "/tmp", "mount": {"mount_point": "/", "fstype": "ext4", "source": "/dev/vda", "options": "rw,relatime,discard,resv_strict,resuid=65534,resgid=65534"}, "device": "254:0", "block_size": 4096, "free_bytes": 73656782848, "total_bytes": 270553174016}',NULL);
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
INSERT INTO "cells" VALUES('{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',1,'backend=local · target=null · workload=workloadc · containers=1 · threads=1','{"backend": "local", "target": "null", "workload": "workloadc", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1}',1,'done',NULL,'2026-11-23T08:30:35Z');
INSERT INTO "cells" VALUES('{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',2,'backend=local · target=null · workload=workloada · containers=1 · threads=1','{"backend": "local", "target": "null", "workload": "workloada", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1}',1,'done',NULL,'2026-11-23T08:30:39Z');
INSERT INTO "cells" VALUES('{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',3,'backend=<script>alert(1)</script> · target=null · workload=workloadc · containers=1 · threads=1','{"backend": "<script>alert(1)</script>", "target": "null", "workload": "workloadc", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1}',1,'done',NULL,'2026-11-23T08:30:44Z');
INSERT INTO "cells" VALUES('{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',4,'backend=<script>alert(1)</script> · target=null · workload=workloada · containers=1 · threads=1','{"backend": "<script>alert(1)</script>", "target": "null", "workload": "workloada", "containers": 1, "io_controls": "none", "runtime": "process", "threads": 1}',1,'done',NULL,'2026-11-23T08:30:48Z');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('profile','"throttled"');
INSERT INTO "meta" VALUES('spec_fingerprint','"aefa6f831b133147832fd518ede6cbab854c7c94fdecc825ac3d8f710f5003db"');
INSERT INTO "meta" VALUES('sessions','1');
INSERT INTO "meta" VALUES('io_mechanism.session1','"none"');
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
    p95_latency_us REAL NOT NULL,
    p99_latency_us REAL NOT NULL,
    latency_source TEXT NOT NULL,
    started_at TEXT NOT NULL,
    raw_json TEXT NOT NULL
);
INSERT INTO "phases" VALUES(1,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',1,'load',1,1,'null','workloadc',1,'ok',200,0,207.222225,9.65147440145476593915e+02,9.65147440145476593915e+02,0.0,0.0,1.0,'merged-histograms','2026-11-23T08:30:31Z','raw/cell001/s1-rep1/load-c1.json');
INSERT INTO "phases" VALUES(2,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',1,'run',1,1,'null','workloadc',1,'ok',999,0,1001.578303,9.97425759930823801341e+02,9.97425759930823801341e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:31Z','raw/cell001/s1-rep1/run-c1.json');
INSERT INTO "phases" VALUES(3,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',1,'run',2,1,'null','workloadc',1,'ok',991,0,1000.624505,9.90381501800218302412e+02,9.90381501800218302412e+02,0.0,1.0,1.0,'merged-histograms','2026-11-23T08:30:32Z','raw/cell001/s1-rep2/run-c1.json');
INSERT INTO "phases" VALUES(4,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',1,'run',3,1,'null','workloadc',1,'ok',991,0,1000.514718,9.90490176877138083031e+02,9.90490176877138083031e+02,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:30:34Z','raw/cell001/s1-rep3/run-c1.json');
INSERT INTO "phases" VALUES(5,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',2,'run',1,1,'null','workloada',1,'ok',1001,0,1004.363407,9.96651205154868762275e+02,9.96651205154868762275e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:35Z','raw/cell002/s1-rep1/run-c1.json');
INSERT INTO "phases" VALUES(6,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',2,'load',2,1,'null','workloada',1,'ok',200,0,225.440754,887.151042796814,887.151042796814,0.0,1.0,1.0,'merged-histograms','2026-11-23T08:30:36Z','raw/cell002/s1-rep2/load-c1.json');
INSERT INTO "phases" VALUES(7,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',2,'run',2,1,'null','workloada',1,'ok',992,0,1000.90499,9.91103061640246210152e+02,9.91103061640246210152e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:36Z','raw/cell002/s1-rep2/run-c1.json');
INSERT INTO "phases" VALUES(8,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',2,'load',3,1,'null','workloada',1,'ok',200,0,212.768137,9.39990370832640223866e+02,9.39990370832640223866e+02,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:30:38Z','raw/cell002/s1-rep3/load-c1.json');
INSERT INTO "phases" VALUES(9,1,'{"backend": "local", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',2,'run',3,1,'null','workloada',1,'ok',998,0,1001.551372,9.96454128965039217288e+02,9.96454128965039217288e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:38Z','raw/cell002/s1-rep3/run-c1.json');
INSERT INTO "phases" VALUES(10,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',3,'load',1,1,'null','workloadc',1,'ok',200,0,204.284346,9.79027536451569289997e+02,9.79027536451569289997e+02,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:30:40Z','raw/cell003/s1-rep1/load-c1.json');
INSERT INTO "phases" VALUES(11,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',3,'run',1,1,'null','workloadc',1,'ok',996,0,1000.543172,9.95459294384150780374e+02,9.95459294384150780374e+02,0.0,1.0,1.0,'merged-histograms','2026-11-23T08:30:40Z','raw/cell003/s1-rep1/run-c1.json');
INSERT INTO "phases" VALUES(12,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',3,'run',2,1,'null','workloadc',1,'ok',1000,0,1.00060399599999993829e+03,9.99396368590956626562e+02,9.99396368590956626562e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:41Z','raw/cell003/s1-rep2/run-c1.json');
INSERT INTO "phases" VALUES(13,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloadc"}',3,'run',3,1,'null','workloadc',1,'ok',987,0,1000.489201,9.86517394703993431934e+02,9.86517394703993431934e+02,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:30:42Z','raw/cell003/s1-rep3/run-c1.json');
INSERT INTO "phases" VALUES(14,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',4,'run',1,1,'null','workloada',1,'ok',990,0,1000.631477,9.8937523229643511511e+02,9.8937523229643511511e+02,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:30:44Z','raw/cell004/s1-rep1/run-c1.json');
INSERT INTO "phases" VALUES(15,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',4,'load',2,1,'null','workloada',1,'ok',200,0,202.896042,9.85726473658860186371e+02,9.85726473658860186371e+02,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:30:45Z','raw/cell004/s1-rep2/load-c1.json');
INSERT INTO "phases" VALUES(16,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',4,'run',2,1,'null','workloada',1,'ok',986,0,1.00084448600000007446e+03,9.85168039383093400822e+02,9.85168039383093400822e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:45Z','raw/cell004/s1-rep2/run-c1.json');
INSERT INTO "phases" VALUES(17,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',4,'load',3,1,'null','workloada',1,'ok',200,0,216.968364,921.793372604312,921.793372604312,0.0,1.0,1.0,'merged-histograms','2026-11-23T08:30:47Z','raw/cell004/s1-rep3/load-c1.json');
INSERT INTO "phases" VALUES(18,1,'{"backend": "<script>alert(1)</script>", "containers": 1, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "workloada"}',4,'run',3,1,'null','workloada',1,'ok',994,0,1000.935978,9.93070507852201558342e+02,9.93070507852201558342e+02,0.0,1.0,2.0,'merged-histograms','2026-11-23T08:30:47Z','raw/cell004/s1-rep3/run-c1.json');
CREATE UNIQUE INDEX completed_runs
    ON phases(cell_key, repetition, container) WHERE phase = 'run' AND status = 'ok';
COMMIT;
