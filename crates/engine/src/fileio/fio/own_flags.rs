//! contio's own flags of `contio-engine fio`, split from the arguments that go
//! to fio unchanged. fio has none of these names (its options are `--long`
//! words), so nothing a fio user types is taken away.

use super::error::FioError;

/// What `contio-engine fio` was asked, contio's part and fio's.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// `-json PATH`: write contio's result document (`-` for stdout).
    pub json: Option<String>,
    /// `-s`: a status line on stderr each second (contio's core only).
    pub status: bool,
    /// `--drop-caches`: drop the page cache before the run (root only).
    pub drop_caches: bool,
    /// `--contio-core`: run the job on contio's own I/O core instead of fio.
    pub core: bool,
    /// Everything else, for fio, in order.
    pub fio_args: Vec<String>,
}

/// fio options that decide its output: contio sets them itself under `-json`
/// (it reads fio's json+ output and each second's report).
const OUTPUT_OPTIONS: [&str; 6] = [
    "--output-format",
    "--output",
    "--minimal",
    "--append-terse",
    "--write_hist_log",
    "--log_hist_msec",
];

/// fio arguments that ask it something and run no job: fio answers them alone.
const QUERIES: [&str; 8] = [
    "--version",
    "--help",
    "--cmdhelp",
    "--enghelp",
    "--showcmd",
    "--parse-only",
    "--crctest",
    "--debug",
];

/// Splits `args` into contio's flags and fio's arguments.
pub fn split(args: &[String]) -> Result<Invocation, FioError> {
    let mut out = Invocation::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-json" => {
                let path = rest
                    .next()
                    .ok_or_else(|| FioError::flag("-json", "needs a path (or - for stdout)"))?;
                out.json = Some(path.clone());
            }
            "-s" => out.status = true,
            "--drop-caches" | "-drop-caches" => out.drop_caches = true,
            "--contio-core" => out.core = true,
            _ => out.fio_args.push(arg.clone()),
        }
    }
    if out.json.is_some() && !out.core {
        if let Some(clash) = out.fio_args.iter().find(|a| is_output_option(a)) {
            return Err(FioError::flag(
                clash,
                "with -json contio runs fio with --output-format=normal,json+ and its \
                 own latency logs to read the results; leave this out, or drop -json to \
                 get fio's output exactly as asked",
            ));
        }
    }
    Ok(out)
}

fn option_name(arg: &str) -> &str {
    arg.split_once('=').map_or(arg, |(name, _)| name)
}

fn is_output_option(arg: &str) -> bool {
    OUTPUT_OPTIONS.contains(&option_name(arg))
}

/// True when fio is only asked a question (`--version`, `--cmdhelp=bs`, …).
pub fn is_query(fio_args: &[String]) -> bool {
    fio_args
        .iter()
        .any(|a| QUERIES.contains(&option_name(a)) || a == "-h")
}

/// The job files among fio's arguments: those that are not options.
/// (fio's options that take a separate value are written `--opt=value`.)
pub fn job_files(fio_args: &[String]) -> Vec<&str> {
    fio_args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn contio_flags_come_out_and_the_rest_stays_in_order() {
        let got = split(&strings(&["-s", "a.fio", "-json", "r.json", "--section=x"])).unwrap();
        assert_eq!(got.json.as_deref(), Some("r.json"));
        assert!(got.status);
        assert_eq!(got.fio_args, strings(&["a.fio", "--section=x"]));
        assert_eq!(job_files(&got.fio_args), vec!["a.fio"]);
    }

    #[test]
    fn output_options_clash_only_with_json() {
        assert!(split(&strings(&["a.fio", "--output-format=json"])).is_ok());
        let e = split(&strings(&["a.fio", "--output-format=json", "-json", "-"])).unwrap_err();
        assert!(e.to_string().starts_with("--output-format=json:"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn queries_are_recognised() {
        assert!(is_query(&strings(&["--cmdhelp=bs"])));
        assert!(!is_query(&strings(&["a.fio"])));
    }
}
