//! The import front ends, one file per log format, each implementing [`LogFormat`]: it is fed
//! a log line by line (so a gigabyte of logcat is read in constant memory), returns the records
//! a line completes, and counts the lines it recognised, skipped and dropped. [`FRONT_ENDS`]
//! lists them; adding a format is one file here and one line there. Reading a file through
//! one of them (line limits, auto-detection) is [`source`](super::source). [`logcat_line`] and
//! [`operation`] read what two front ends share: logcat's line layouts, and the messages of
//! Android's operation log.

pub mod dumpsys;
pub mod jsonl;
pub mod jsonl_scan;
pub mod logcat;
pub mod logcat_line;
pub mod operation;
pub mod phonelab;
pub mod sqlite_trace;

use super::LogRecord;

/// One import front end: its `--format` name and how to start one.
pub struct FrontEnd {
    pub name: &'static str,
    pub new: fn() -> Box<dyn LogFormat>,
}

/// Every front end, in the order auto-detection tries them.
pub const FRONT_ENDS: &[FrontEnd] = &[
    FrontEnd {
        name: "jsonl",
        new: || Box::new(jsonl::Jsonl),
    },
    FrontEnd {
        name: "phonelab",
        new: || Box::new(phonelab::PhoneLab::new()),
    },
    FrontEnd {
        name: "dumpsys-dbinfo",
        new: || Box::new(dumpsys::DumpsysDbinfo::new()),
    },
    FrontEnd {
        name: "android-logcat",
        new: || Box::new(logcat::AndroidLogcat::new()),
    },
    FrontEnd {
        name: "sqlite-trace",
        new: || Box::new(sqlite_trace::SqliteTrace::new()),
    },
];

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
