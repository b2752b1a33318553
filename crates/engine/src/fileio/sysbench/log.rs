//! sysbench's log: every message on stdout (stderr when the JSON document goes
//! to stdout), shown when its level is within `--verbosity` — 0 fatal, 2
//! warnings, 3 notices (the default: banner, headers, reports), 5 debug.

use std::io::Write as _;

use super::error::SysbenchError;

/// The banner's version: the sysbench whose behaviour the engine follows.
pub const SYSBENCH_VERSION: &str = "1.0.20";

const FATAL: u8 = 0;
const WARNING: u8 = 2;
const NOTICE: u8 = 3;

/// Where and how much to print.
#[derive(Debug, Clone, Copy)]
pub struct Log {
    pub verbosity: u8,
    /// The JSON document goes to stdout: the text goes to stderr.
    pub to_stderr: bool,
    /// contio asked for the document (`-json`): warnings and fatal errors go
    /// to stderr, where the caller reads why nothing ran.
    pub errors_to_stderr: bool,
}

impl Default for Log {
    /// sysbench's default verbosity, on stdout.
    fn default() -> Self {
        Log {
            verbosity: NOTICE,
            to_stderr: false,
            errors_to_stderr: false,
        }
    }
}

impl Log {
    /// One message as sysbench's `log_text` prints it: prefix, text, newline
    /// (a text ending in a newline leaves a blank line).
    fn write(&self, level: u8, prefix: &str, text: &str) {
        if level > self.verbosity {
            return;
        }
        let out = format!("{prefix}{text}\n");
        if self.to_stderr || (level < NOTICE && self.errors_to_stderr) {
            eprint!("{out}");
        } else {
            print!("{out}");
            let _ = std::io::stdout().flush();
        }
    }

    /// A notice (the reports, headers, banner).
    pub fn notice(&self, text: &str) {
        self.write(NOTICE, "", text);
    }

    /// `WARNING: text`.
    pub fn warning(&self, text: &str) {
        self.write(WARNING, "WARNING: ", text);
    }

    /// `FATAL: text`.
    pub fn fatal(&self, text: &str) {
        self.write(FATAL, "FATAL: ", text);
    }

    /// The banner sysbench prints before the test starts.
    pub fn banner(&self) {
        self.notice(&format!(
            "sysbench {SYSBENCH_VERSION} (contio-engine {})\n",
            crate::result::ENGINE_VERSION
        ));
    }

    /// Prints why the command stopped, as sysbench prints it.
    pub fn stop(&self, e: &SysbenchError) {
        match e {
            SysbenchError::Usage(line) => eprintln!("{line}"),
            SysbenchError::Fatal(message) | SysbenchError::Failed(message) => self.fatal(message),
            SysbenchError::FatalWithHint { message, hint } => {
                self.fatal(message);
                self.warning(hint);
            }
            SysbenchError::MissingMode(options) => {
                self.fatal(&format!("{e}\n"));
                self.notice(options.strip_suffix('\n').unwrap_or(options));
            }
            SysbenchError::FileIo(e) => self.fatal(&e.to_string()),
        }
    }
}
