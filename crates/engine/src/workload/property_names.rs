//! Every property name the engine knows (YCSB 0.17 `CoreWorkload` and `Client`).
//!
//! Unlike YCSB, an unknown name is an error that names the closest known one,
//! and properties YCSB knows but contio does not use are accepted with a
//! warning, so YCSB workload files run unchanged.

/// Every core property contio acts on, besides those in `MEASUREMENT`.
pub const USED: &[&str] = &[
    "recordcount",
    "operationcount",
    "maxexecutiontime",
    "threadcount",
    "target",
    "insertstart",
    "insertcount",
    "table",
    "fieldcount",
    "fieldnameprefix",
    "fieldlength",
    "minfieldlength",
    "fieldlengthdistribution",
    "readallfields",
    "writeallfields",
    "readproportion",
    "updateproportion",
    "insertproportion",
    "scanproportion",
    "readmodifywriteproportion",
    "requestdistribution",
    "zeropadding",
    "insertorder",
    "hotspotdatafraction",
    "hotspotopnfraction",
    "minscanlength",
    "maxscanlength",
    "scanlengthdistribution",
    "exponential.percentile",
    "exponential.frac",
    "core_workload_insertion_retry_limit",
    "core_workload_insertion_retry_interval",
    "measurement.interval",
    "db",
    "dotransactions",
    "workload",
    "dataintegrity",
    "exporter",
    "exportfile",
];

/// Status lines, measurement and the start barrier: what the `tpcc` and
/// `cstress` subcommands take with `-p` besides their own; the core workload acts
/// on them too.
pub const MEASUREMENT: &[&str] = &[
    "status.interval",
    "measurementtype",
    "hdrhistogram.percentiles",
    "measurement.histogram.verbose",
    "histogram.buckets",
    "timeseries.granularity",
    "measurement.raw.output_file",
    "measurement.raw.no_summary",
    "hdrhistogram.fileoutput",
    "hdrhistogram.output.path",
    "label",
    "startbarrier.ready",
    "startbarrier.go",
    "startbarrier.timeout",
];

/// Properties YCSB knows that have no effect in contio (accepted with a warning).
pub const NO_EFFECT: &[&str] = &[
    "measurement.trackjvm",
    "reportlatencyforeacherror",
    "latencytrackederrors",
    "readallfieldsbyname",
    "fieldlengthhistogram",
];

/// Every known core property name.
pub fn known() -> impl Iterator<Item = &'static str> {
    USED.iter().chain(MEASUREMENT).chain(NO_EFFECT).copied()
}

/// True when `key` is a known core property.
pub fn is_known(key: &str) -> bool {
    known().any(|k| k == key)
}
