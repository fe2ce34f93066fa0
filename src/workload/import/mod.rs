//! Importing a real app's SQL activity: front ends that read the logs an app's statements leave
//! behind (pocketbench's own capture, Android's logcat, the sqlite3 shell's `.trace`, PhoneLab,
//! `dumpsys dbinfo`) and turn each into the one statement log form ([`record::LogRecord`]),
//! from which the conversion to a replayable trace is written once.
//!
//! Each front end is one file implementing [`LogFormat`]: it is fed a log line by line (so a
//! gigabyte of logcat is read in constant memory), returns the records a line completes, and
//! counts the lines it recognised, skipped and dropped.
//!
//! The commands that read a log (`trace import`, `trace stats LOG`, `device capture`) are
//! behind the default feature `import`: device builds leave them out (a board captures with
//! the preload library and the log is imported on the host), and there they are refused
//! ([`unavailable`]) before any work. The code stays in the library for the fuzz targets.

pub mod anonymize;
pub mod convert;
pub mod dumpsys;
pub mod infer;
pub mod infer_tokens;
pub mod jsonl;
pub mod lexer;
pub mod logcat;
pub mod logcat_line;
pub mod merged;
pub mod phonelab;
pub mod pipeline;
pub mod record;
pub mod schema;
pub mod source;
pub mod sql_words;
pub mod sqlite_trace;
pub mod sqltext;
pub mod stats;
pub mod stats_file;

pub use record::{ArgValue, LogRecord, SchemaRecord, Stamp, StatementRecord};

/// Whether this build reads logs (feature `import`).
pub const AVAILABLE: bool = cfg!(feature = "import");

/// Why `what` cannot run in a build without the feature `import`.
pub fn unavailable(what: &str) -> crate::error::Error {
    crate::error::Error::not_built(what, "import", "log front ends")
}

/// What a front end made of one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineOutcome {
    /// The line belongs to the format (it may only start or continue a record).
    Recognised,
    /// The line is not part of this format (another tag, another app, noise): counted, skipped.
    Skipped,
    /// The line belongs to the format but its statement cannot be used (cut short by the
    /// logger's line limit, malformed): counted as dropped, with the reason kept by the front end.
    Dropped(&'static str),
}

/// One import front end. Implementations keep at most one pending statement (a statement split
/// over several lines) between calls, never the whole log.
pub trait LogFormat {
    /// The `--format` name: `jsonl`, `android-logcat`, `sqlite-trace`, `phonelab`,
    /// `dumpsys-dbinfo`.
    fn name(&self) -> &'static str;
    /// Feed one line (without its line terminator); records the line completes are pushed to
    /// `out` in the order the log holds them.
    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome;
    /// The log ended: push a pending record if it is complete, else drop it (and count it).
    fn finish(&mut self, out: &mut Vec<LogRecord>);
    /// Statements dropped other than at a line of their own (a pending statement a later line
    /// or the end of the log showed to be cut short), with the reason and how many.
    fn late_drops(&self) -> &[(&'static str, u64)] {
        &[]
    }
}
