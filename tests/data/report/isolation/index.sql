BEGIN TRANSACTION;
CREATE TABLE backends (
    name TEXT PRIMARY KEY, description TEXT, unavailable TEXT
);
INSERT INTO "backends" VALUES('disk','{"type": "local-dir", "base": "/tmp", "mount": {"mount_point": "/", "fstype": "ext4", "source": "/dev/vda", "options": "rw,relatime,discard,resv_strict,resuid=65534,resgid=65534"}, "device": "254:0", "block_size": 4096, "free_bytes": 75464364032, "total_bytes": 270553174016}',NULL);
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
INSERT INTO "cells" VALUES('{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'backend=disk · target=null · workload=heavy-update · containers=4 · threads=1','{"backend": "disk", "target": "null", "workload": "heavy-update", "containers": 4, "io_controls": "none", "runtime": "process", "threads": 1}',4,'done',NULL,'2026-11-23T08:22:44Z');
INSERT INTO "cells" VALUES('{"backend": "disk", "containers": 4, "io_controls": "throttle-1", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',2,'backend=disk · target=null · workload=heavy-update · containers=4 · io_controls=throttle-1 · threads=1','{"backend": "disk", "target": "null", "workload": "heavy-update", "containers": 4, "io_controls": "throttle-1", "runtime": "process", "threads": 1}',4,'skipped','block I/O controls need contio.qos, which this build does not have yet','2026-11-23T08:22:44Z');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('profile','null');
INSERT INTO "meta" VALUES('spec_fingerprint','"0c0fb3cfec7d22a5d2529a540c78de37239d4669ef80e6be95994e5b74f12ec2"');
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
INSERT INTO "phases" VALUES(1,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',1,1,'null','heavy-update',1,'ok',100,0,19.146729,5.22282422235150443163e+03,5.22282422235150443163e+03,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:38Z','raw/cell001/s1-rep1/load-c1.json');
INSERT INTO "phases" VALUES(2,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',1,2,'null','heavy-update',1,'ok',100,0,5.84155000000000090842e-01,1.71187441689277649852e+05,1.71187441689277649852e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:38Z','raw/cell001/s1-rep1/load-c2.json');
INSERT INTO "phases" VALUES(3,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',1,3,'null','heavy-update',1,'ok',100,0,5.541994,1.80440469621583870329e+04,1.80440469621583870329e+04,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:38Z','raw/cell001/s1-rep1/load-c3.json');
INSERT INTO "phases" VALUES(4,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',1,4,'null','heavy-update',1,'ok',100,0,4.28104389999999952482e+01,2.33587887290761045725e+03,2.33587887290761045725e+03,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:38Z','raw/cell001/s1-rep1/load-c4.json');
INSERT INTO "phases" VALUES(5,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',1,1,'null','heavy-update',1,'ok',861309,0,1.00612621200000012318e+03,8.56064566977010574233e+05,8.56064566977010574233e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:39Z','raw/cell001/s1-rep1/run-c1.json');
INSERT INTO "phases" VALUES(6,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',1,2,'null','heavy-update',1,'ok',850447,0,1.00123978799999986222e+03,8.49393931596334092297e+05,8.49393931596334092297e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:39Z','raw/cell001/s1-rep1/run-c2.json');
INSERT INTO "phases" VALUES(7,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',1,3,'null','heavy-update',1,'ok',843224,0,1.00224253900000007892e+03,8.41337268363541225003e+05,8.41337268363541225003e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:39Z','raw/cell001/s1-rep1/run-c3.json');
INSERT INTO "phases" VALUES(8,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',1,4,'null','heavy-update',1,'ok',865286,0,1002.591322,8.63049560686303186222e+05,8.63049560686303186222e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:39Z','raw/cell001/s1-rep1/run-c4.json');
INSERT INTO "phases" VALUES(9,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',2,1,'null','heavy-update',1,'ok',100,0,13.06331,7.65502770737278660827e+03,7.65502770737278660827e+03,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:40Z','raw/cell001/s1-rep2/load-c1.json');
INSERT INTO "phases" VALUES(10,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',2,2,'null','heavy-update',1,'ok',100,0,3.62577,2.75803484501223174457e+04,2.75803484501223174457e+04,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:40Z','raw/cell001/s1-rep2/load-c2.json');
INSERT INTO "phases" VALUES(11,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',2,3,'null','heavy-update',1,'ok',100,0,8.453264,1.18297500231863105001e+04,1.18297500231863105001e+04,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:40Z','raw/cell001/s1-rep2/load-c3.json');
INSERT INTO "phases" VALUES(12,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',2,4,'null','heavy-update',1,'ok',100,0,7.89848400000000072651e+00,1.26606574122325237115e+04,1.26606574122325237115e+04,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:40Z','raw/cell001/s1-rep2/load-c4.json');
INSERT INTO "phases" VALUES(13,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',2,1,'null','heavy-update',1,'ok',856673,0,1005.329929,852131.201198925,852131.201198925,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:41Z','raw/cell001/s1-rep2/run-c1.json');
INSERT INTO "phases" VALUES(14,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',2,2,'null','heavy-update',1,'ok',823912,0,1.01098469500000010153e+03,8.1495991390848893203e+05,8.1495991390848893203e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:41Z','raw/cell001/s1-rep2/run-c2.json');
INSERT INTO "phases" VALUES(15,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',2,3,'null','heavy-update',1,'ok',782087,0,1.0023690460000001394e+03,7.80238578915574355031e+05,7.80238578915574355031e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:41Z','raw/cell001/s1-rep2/run-c3.json');
INSERT INTO "phases" VALUES(16,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',2,4,'null','heavy-update',1,'ok',874346,0,1002.82985,8.71878714021127438141e+05,8.71878714021127438141e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:41Z','raw/cell001/s1-rep2/run-c4.json');
INSERT INTO "phases" VALUES(17,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',3,1,'null','heavy-update',1,'ok',100,0,7.388277,1.35349554436034268296e+04,1.35349554436034268296e+04,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:42Z','raw/cell001/s1-rep3/load-c1.json');
INSERT INTO "phases" VALUES(18,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',3,2,'null','heavy-update',1,'ok',100,0,15.333177,6.52180562449647550221e+03,6.52180562449647550221e+03,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:42Z','raw/cell001/s1-rep3/load-c2.json');
INSERT INTO "phases" VALUES(19,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',3,3,'null','heavy-update',1,'ok',100,0,1.07450619999999990032e+01,9.30660055753982669562e+03,9.30660055753982669562e+03,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:42Z','raw/cell001/s1-rep3/load-c3.json');
INSERT INTO "phases" VALUES(20,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'load',3,4,'null','heavy-update',1,'ok',100,0,14.616092,6.84177412129042386351e+03,6.84177412129042386351e+03,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:42Z','raw/cell001/s1-rep3/load-c4.json');
INSERT INTO "phases" VALUES(21,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',3,1,'null','heavy-update',1,'ok',865849,0,1010.710059,8.56673971224422100938e+05,8.56673971224422100938e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:43Z','raw/cell001/s1-rep3/run-c1.json');
INSERT INTO "phases" VALUES(22,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',3,2,'null','heavy-update',1,'ok',772696,0,1014.601447,7.61575890005605295315e+05,7.61575890005605295315e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:43Z','raw/cell001/s1-rep3/run-c2.json');
INSERT INTO "phases" VALUES(23,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',3,3,'null','heavy-update',1,'ok',826952,0,1.00278233099999988548e+03,8.24657529790480621142e+05,8.24657529790480621142e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:43Z','raw/cell001/s1-rep3/run-c3.json');
INSERT INTO "phases" VALUES(24,1,'{"backend": "disk", "containers": 4, "io_controls": "none", "runtime": "process", "target": "null", "threads": 1, "workload": "heavy-update"}',1,'run',3,4,'null','heavy-update',1,'ok',850998,0,1000.307169,8.5073668006472114942e+05,8.5073668006472114942e+05,0.0,0.0,0.0,'merged-histograms','2026-11-23T08:22:43Z','raw/cell001/s1-rep3/run-c4.json');
CREATE UNIQUE INDEX completed_runs
    ON phases(cell_key, repetition, container) WHERE phase = 'run' AND status = 'ok';
COMMIT;
