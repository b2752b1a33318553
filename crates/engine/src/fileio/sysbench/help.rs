//! `sysbench --help` and `sysbench fileio help`, laid out as sysbench 1.0.20
//! lays them out, listing what contio-engine reads (the general options that
//! fileio uses, fileio's own, and contio's additions).

/// `fileio`'s options: name, description, default (None: none shown).
const FILEIO_OPTIONS: [(&str, &str, Option<&str>); 13] = [
    ("--file-num=N", "how many test files", Some("128")),
    (
        "--file-block-size=N",
        "bytes per read or write",
        Some("16384"),
    ),
    (
        "--file-total-size=SIZE",
        "bytes over all test files",
        Some("2G"),
    ),
    (
        "--file-test-mode=STRING",
        "what run does {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}",
        None,
    ),
    (
        "--file-io-mode=STRING",
        "how requests are made {sync,async,mmap} (async: io_uring)",
        Some("sync"),
    ),
    (
        "--file-async-backlog=N",
        "requests in flight per thread in async mode",
        Some("128"),
    ),
    (
        "--file-extra-flags=[LIST,...]",
        "extra open() flags, comma-separated {sync,dsync,direct}",
        Some(""),
    ),
    (
        "--file-fsync-freq=N",
        "fsync every file after this many requests (0: never)",
        Some("100"),
    ),
    (
        "--file-fsync-all[=on|off]",
        "fsync after every write",
        Some("off"),
    ),
    (
        "--file-fsync-end[=on|off]",
        "fsync every file when the test ends",
        Some("on"),
    ),
    (
        "--file-fsync-mode=STRING",
        "the sync call {fsync, fdatasync}",
        Some("fsync"),
    ),
    (
        "--file-merged-requests=N",
        "merging of sequential requests (contio: 0 only)",
        Some("0"),
    ),
    ("--file-rw-ratio=N", "reads per write in rndrw", Some("1.5")),
];

/// The general options contio-engine reads.
const GENERAL_OPTIONS: [(&str, &str, Option<&str>); 12] = [
    ("--threads=N", "worker threads", Some("1")),
    (
        "--events=N",
        "stop after this many events (0: no limit)",
        Some("0"),
    ),
    (
        "--time=N",
        "stop after this many seconds (0: no limit)",
        Some("10"),
    ),
    (
        "--rate=N",
        "events per second (contio: 0 only, full speed)",
        Some("0"),
    ),
    (
        "--report-interval=N",
        "seconds between intermediate reports (0: none)",
        Some("0"),
    ),
    (
        "--validate[=on|off]",
        "check what is read where possible",
        Some("off"),
    ),
    ("--help[=on|off]", "this text", Some("off")),
    ("--version[=on|off]", "the version", Some("off")),
    ("--max-requests=N", "old name of --events", Some("0")),
    ("--max-time=N", "old name of --time", Some("0")),
    ("--num-threads=N", "old name of --threads", Some("1")),
    (
        "--rand-seed=N",
        "seed of the random offsets (0: from the clock)",
        Some("0"),
    ),
];

/// contio's additions.
const CONTIO_OPTIONS: [(&str, &str, Option<&str>); 3] = [
    ("--file-dir=DIR", "folder of the test files", Some(".")),
    (
        "--drop-caches",
        "drop the page cache before the run (root)",
        None,
    ),
    (
        "-json PATH",
        "write contio's result document to PATH (- for stdout)",
        None,
    ),
];

fn table(rows: &[(&str, &str, Option<&str>)]) -> String {
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(name, what, default)| {
            let default = default.map_or(String::new(), |d| format!(" [{d}]"));
            format!("  {name:<width$} {what}{default}\n")
        })
        .collect()
}

/// `sysbench fileio help`.
pub fn fileio_help() -> String {
    format!("fileio options:\n{}\n", table(&FILEIO_OPTIONS))
}

/// `sysbench --help`.
pub fn general_help() -> String {
    format!(
        "Usage:\n  sysbench [options]... [testname] [command]\n\n\
         Commands: prepare run cleanup help\n\n\
         General options:\n{}\n\
         Log options:\n  --verbosity=N messages shown {{0: fatal only, 2: warnings, 3: reports, 5: all}} [3]\n\n\
         \x20 --percentile=N       the latency percentile reported, 1-100 (0: none) [95]\n\
         \x20 --histogram[=on|off] a latency histogram in the report [off]\n\n\
         contio-engine options:\n{}\n\
         Tests:\n  fileio - file I/O (the only test contio-engine runs)\n\n\
         See 'sysbench fileio help' for fileio's options.\n\n",
        table(&GENERAL_OPTIONS),
        table(&CONTIO_OPTIONS)
    )
}
