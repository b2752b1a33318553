//! `contio-engine slowdev --file FILE --mountpoint DIR [caps]`: a slow device.
//!
//! Mounts a FUSE file system at DIR holding one file, FILE (same name), whose reads
//! and writes are paced to device-wide caps: `--bandwidth RATE` (bytes/s, reads and
//! writes together), `--read-bps`, `--write-bps`, `--iops`, `--read-iops`,
//! `--write-iops`. A loop device attached to `DIR/NAME` is then a disk of that speed
//! for everyone who uses it, which is what paper 004's interference needs and what
//! this kernel's other ways to slow a disk (dm-delay, null_blk, ublk, cgroup throttles
//! on a parent group) cannot give here. See `fs` (the file system) and `pacer` (the
//! caps).
//!
//! Why a subcommand of the engine: the engine binary is already shipped in the wheel
//! (maturin `bindings = "bin"`), statically linked, and found by contio's Python
//! (`contio.engine.invocation.find_engine`); a second binary would need its own
//! packaging and lookup for no gain. The FUSE crate (`fuser`, without libfuse) mounts
//! with mount(2) directly when run as root, as contio's backends are, so no libfuse
//! and no `fusermount` is needed.
//!
//! Lifecycle: once mounted, one JSON line on stdout says so (`{"ready": true,
//! "file": …, "direct_io": …, "limits": {…}, "pid": …}`). The daemon serves until
//! the mount goes away (`umount DIR`) or it gets SIGTERM, SIGINT or SIGHUP: it then
//! detaches the mount lazily (MNT_DETACH), so a loop device still attached keeps
//! working until it lets go of the file, and exits once the kernel ends the session.
//! A second signal exits at once (the kernel then fails any I/O still pending).
//! Before exiting it writes a JSON summary of what it served on stderr. Exit codes:
//! 0 after a clean end, 1 when serving failed, 2 for bad arguments.

pub mod fs;
pub mod pacer;

use std::ffi::CString;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fuser::{Config, MountOption, Session};

use fs::{Backing, Counters, SlowFs};
use pacer::{Limits, Pacer, DEFAULT_SLACK};

/// The usage line of `slowdev`.
pub const USAGE: &str = "contio-engine slowdev --file FILE --mountpoint DIR \
    [--bandwidth RATE] [--read-bps RATE] [--write-bps RATE] [--iops N] [--read-iops N] \
    [--write-iops N] [--threads N]   (RATE: bytes/s, or with a unit: 50MB/s, 20MiB/s)";

/// The mount's source in /proc/self/mountinfo (its type is `fuse`: mounting with mount(2)
/// directly, as fuser does as root, leaves no `fuse.SUBTYPE`).
pub const FS_NAME: &str = "contio-slowdev";

/// What `slowdev` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub file: PathBuf,
    pub mountpoint: PathBuf,
    pub limits: Limits,
    /// Threads serving requests (each serves one request at a time).
    pub threads: usize,
}

/// Parses a rate: an integer, or a number with a unit (`50MB/s`, `20MiB/s`, `2k`):
/// decimal prefixes are powers of 1000, binary ones (Ki, Mi, Gi) of 1024, as contio's
/// throttles (`contio.qos.limits.parse_rate`).
pub fn parse_rate(text: &str) -> Option<u64> {
    let lower = text.trim().to_ascii_lowercase();
    let body = lower.strip_suffix("/s").unwrap_or(&lower).trim_end();
    let body = body
        .strip_suffix("iops")
        .or_else(|| body.strip_suffix("b"))
        .unwrap_or(body)
        .trim_end();
    let split = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    let (number, unit) = body.split_at(split);
    let factor: f64 = match unit.trim() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "ki" => 1024.0,
        "mi" => 1024.0 * 1024.0,
        "gi" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let value = number.parse::<f64>().ok()? * factor;
    (value.is_finite() && value >= 1.0).then_some(value as u64)
}

/// Parses the arguments after `slowdev`.
pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut file = None;
    let mut mountpoint = None;
    let mut limits = Limits::default();
    let mut threads = 4usize;
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let flag = flag.trim_start_matches('-');
        let value = rest
            .next()
            .ok_or_else(|| format!("--{flag} needs a value"))?;
        let rate = || {
            parse_rate(value).ok_or_else(|| {
                format!("--{flag}: '{value}' is not a rate (a positive integer, or e.g. 50MB/s)")
            })
        };
        match flag {
            "file" => file = Some(PathBuf::from(value)),
            "mountpoint" => mountpoint = Some(PathBuf::from(value)),
            "bandwidth" => limits.bandwidth = Some(rate()?),
            "read-bps" => limits.read_bps = Some(rate()?),
            "write-bps" => limits.write_bps = Some(rate()?),
            "iops" => limits.iops = Some(rate()?),
            "read-iops" => limits.read_iops = Some(rate()?),
            "write-iops" => limits.write_iops = Some(rate()?),
            "threads" => {
                threads = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=256).contains(n))
                    .ok_or_else(|| format!("--threads: '{value}' is not a number 1-256"))?
            }
            other => return Err(format!("unknown option '--{other}'")),
        }
    }
    let file = file.ok_or("--file FILE (the backing file) is required")?;
    let mountpoint = mountpoint.ok_or("--mountpoint DIR is required")?;
    if limits.is_empty() {
        return Err(
            "give at least one cap: --bandwidth, --read-bps, --write-bps, --iops, \
             --read-iops or --write-iops"
                .into(),
        );
    }
    Ok(Options {
        file,
        mountpoint,
        limits,
        threads,
    })
}

/// Runs `slowdev ARGS…`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let options = match parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("contio-engine slowdev: {message}\nusage: {USAGE}");
            return 2;
        }
    };
    match serve(&options) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("contio-engine slowdev: {message}");
            1
        }
    }
}

/// Signals that end the daemon (see the module documentation), counted.
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    if SIGNALS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // The second signal: leave now; the kernel aborts the connection.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(1) };
    }
}

fn install_signal_handlers() -> Result<(), String> {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: the handler only touches an atomic and calls _exit, both allowed in
        // a signal handler.
        let previous =
            unsafe { signal_hook::low_level::register(signal, move || on_signal(signal)) };
        previous.map_err(|e| format!("cannot handle signal {signal}: {e}"))?;
    }
    Ok(())
}

/// Detaches the mount lazily: gone from the namespace now, ended by the kernel once
/// nothing holds the file open any more.
fn detach(mountpoint: &Path) {
    let Ok(path) = CString::new(mountpoint.as_os_str().as_bytes()) else {
        return;
    };
    // SAFETY: umount2 takes a NUL-terminated path that lives across the call.
    if unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) } != 0 {
        let error = std::io::Error::last_os_error();
        // EINVAL: not mounted any more (unmounted from outside); nothing to do.
        if error.raw_os_error() != Some(libc::EINVAL) {
            eprintln!(
                "contio-engine slowdev: detaching {}: {error}",
                mountpoint.display()
            );
        }
    }
}

fn limits_json(limits: &Limits) -> serde_json::Value {
    limits
        .set()
        .into_iter()
        .map(|(name, value)| (name.to_string(), serde_json::Value::from(value)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

fn serve(options: &Options) -> Result<(), String> {
    let backing = Backing::open(&options.file)
        .map_err(|e| format!("backing file {}: {e}", options.file.display()))?;
    let direct_io = backing.direct_io();
    let exposed = options.mountpoint.join(backing.name());
    let counters = Arc::new(Counters::default());
    let pacer = Pacer::new(options.limits, DEFAULT_SLACK, Instant::now());
    let filesystem = SlowFs::new(backing, pacer, counters.clone());

    install_signal_handlers()?;
    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName(FS_NAME.into()),
        MountOption::RW,
        MountOption::NoExec,
        MountOption::NoAtime,
    ];
    config.n_threads = Some(options.threads);
    config.clone_fd = true;
    let session = Session::new(filesystem, &options.mountpoint, &config)
        .map_err(|e| format!("mounting at {}: {e}", options.mountpoint.display()))?;

    let ready = serde_json::json!({
        "ready": true,
        "file": exposed,
        "mountpoint": options.mountpoint,
        "direct_io": direct_io,
        "limits": limits_json(&options.limits),
        "pid": std::process::id(),
    });
    let mut stdout = std::io::stdout().lock();
    // A parent that stopped reading is no reason to stop serving the device.
    let _ = writeln!(stdout, "{ready}").and_then(|()| stdout.flush());
    drop(stdout);

    let started = Instant::now();
    let worker = std::thread::Builder::new()
        .name("slowdev-session".into())
        .spawn(move || session.run())
        .map_err(|e| format!("starting the session: {e}"))?;
    let mut detached = false;
    while !worker.is_finished() {
        if !detached && SIGNALS.load(Ordering::SeqCst) > 0 {
            detach(&options.mountpoint);
            detached = true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let ended = worker
        .join()
        .map_err(|_| "the session thread panicked".to_string())?;
    let summary = serde_json::json!({
        "served_seconds": started.elapsed().as_secs_f64(),
        "limits": limits_json(&options.limits),
        "counters": counters.to_json(),
    });
    eprintln!("{summary}");
    ended.map_err(|e| format!("serving {}: {e}", exposed.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rates_take_contios_units() {
        assert_eq!(parse_rate("50000000"), Some(50_000_000));
        assert_eq!(parse_rate("50MB/s"), Some(50_000_000));
        assert_eq!(parse_rate("50 MB/s"), Some(50_000_000));
        assert_eq!(parse_rate("20MiB/s"), Some(20 << 20));
        assert_eq!(parse_rate("1.5k"), Some(1500));
        assert_eq!(parse_rate("200iops"), Some(200));
        assert_eq!(parse_rate("2Ki"), Some(2048));
        assert_eq!(parse_rate("0"), None);
        assert_eq!(parse_rate("fast"), None);
        assert_eq!(parse_rate("10XB/s"), None);
    }

    #[test]
    fn options_are_parsed() {
        let parsed = parse(&args(&[
            "--file",
            "/a/disk.img",
            "--mountpoint",
            "/m",
            "--bandwidth",
            "50MB/s",
            "--write-iops",
            "100",
            "--threads",
            "2",
        ]))
        .unwrap();
        assert_eq!(parsed.file, PathBuf::from("/a/disk.img"));
        assert_eq!(parsed.mountpoint, PathBuf::from("/m"));
        assert_eq!(parsed.limits.bandwidth, Some(50_000_000));
        assert_eq!(parsed.limits.write_iops, Some(100));
        assert_eq!(parsed.threads, 2);
    }

    #[test]
    fn bad_arguments_say_what_to_fix() {
        let error = |list: &[&str]| parse(&args(list)).unwrap_err();
        assert!(error(&["--file", "f", "--mountpoint", "m"]).contains("at least one cap"));
        assert!(error(&["--mountpoint", "m", "--iops", "5"]).contains("--file"));
        assert!(error(&["--file", "f", "--iops", "5"]).contains("--mountpoint"));
        assert!(
            error(&["--file", "f", "--mountpoint", "m", "--bandwidth", "fast"])
                .contains("'fast' is not a rate")
        );
        assert!(error(&["--file", "f", "--speed", "5"]).contains("unknown option '--speed'"));
        assert!(error(&["--file"]).contains("--file needs a value"));
        assert!(error(&[
            "--file",
            "f",
            "--mountpoint",
            "m",
            "--iops",
            "5",
            "--threads",
            "0"
        ])
        .contains("--threads"));
    }
}
