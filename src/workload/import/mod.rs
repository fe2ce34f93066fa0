//! Importing a real app's SQL activity: front ends that read the logs an app's statements leave
//! behind (pocketbench's own capture, Android's logcat, the sqlite3 shell's `.trace`, PhoneLab,
//! `dumpsys dbinfo`) and turn each into the one statement log form ([`record::LogRecord`]),
//! from which the conversion to a replayable trace is written once.
//!
//! - [`formats`]: the front ends, one file per format behind [`LogFormat`], and their registry;
//!   [`source`] reads a file through one of them (auto-detection, bounded lines).
//! - [`record`]: the statement log form every front end produces.
//! - [`sql`]: reading SQL text without a parser (lexer, parameters, settings, kept words).
//! - [`pipeline`]: `trace import` end to end ([`onepass`]: in one read of the log where it
//!   can be); [`convert`] the conversion rules, [`schema`] the
//!   schema sources, [`infer`] `--infer-schema`, [`anonymize`] `--anonymize`, [`merged`] a
//!   version 2 trace merged into one connection.
//! - [`stats`]: `trace stats` over a log or a trace.
//!
//! The commands that read a log (`trace import`, `trace stats LOG`, `device capture`) are
//! behind the default feature `import`: device builds leave them out (a board captures with
//! the preload library and the log is imported on the host), and there they are refused
//! ([`unavailable`]) before any work. The code stays in the library for the fuzz targets.

pub mod anonymize;
pub mod convert;
pub mod formats;
pub mod infer;
pub mod merged;
pub mod onepass;
pub mod pipeline;
pub mod record;
pub mod schema;
pub mod source;
pub mod sql;
pub mod stats;

pub use formats::{LineOutcome, LogFormat};
// Device capture feeds logcat to its front end as it streams, under these paths.
pub use formats::{logcat, logcat_line};
pub use record::{ArgValue, LogRecord, SchemaRecord, Stamp, StatementRecord};
pub use sql::sqltext;

/// Whether this build reads logs (feature `import`).
pub const AVAILABLE: bool = cfg!(feature = "import");

/// Why `what` cannot run in a build without the feature `import`.
pub fn unavailable(what: &str) -> crate::error::Error {
    crate::error::Error::not_built(what, "import", "log front ends")
}
