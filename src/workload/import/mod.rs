//! Importing a real app's SQL activity: front ends that read the logs an app's statements leave
//! behind (pocketbench's own capture, Android's logcat, the sqlite3 shell's `.trace`, PhoneLab,
//! `dumpsys dbinfo`) and turn each into the one statement log form ([`record::LogRecord`]),
//! from which the conversion to a replayable trace is written once.
//!
//! Each front end is one file implementing [`LogFormat`]: it is fed a log line by line (so a
//! gigabyte of logcat is read in constant memory), returns the records a line completes, and
//! counts the lines it recognised, skipped and dropped.

pub mod convert;
pub mod dumpsys;
pub mod feed;
pub mod jsonl;
pub mod lexer;
pub mod logcat;
pub mod logcat_line;
pub mod phonelab;
pub mod pipeline;
pub mod record;
pub mod schema;
pub mod source;
pub mod sqlite_trace;
pub mod sqltext;

pub use record::{ArgValue, LogRecord, SchemaRecord, Stamp, StatementRecord};

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

/// A fresh instance of every front end ([`source::FRONT_ENDS`]), in the order auto-detection
/// tries them.
pub fn front_ends() -> Vec<Box<dyn LogFormat>> {
    source::FRONT_ENDS.iter().map(|f| (f.new)()).collect()
}

/// A fresh front end by its `--format` name.
pub fn front_end(name: &str) -> Option<Box<dyn LogFormat>> {
    source::FRONT_ENDS
        .iter()
        .find(|f| f.name == name)
        .map(|f| (f.new)())
}

/// Lines auto-detection reads before choosing a format.
pub const DETECT_LINES: usize = 1000;

/// The format whose front end recognises the most of `lines` (the first [`DETECT_LINES`] of a
/// log) with at least one record produced; `None` when none produces a record.
pub fn detect<'a>(lines: impl IntoIterator<Item = &'a str> + Clone) -> Option<&'static str> {
    let mut best: Option<(&'static str, usize)> = None;
    for mut f in front_ends() {
        let mut out = Vec::new();
        let mut recognised = 0;
        for line in lines.clone().into_iter().take(DETECT_LINES) {
            if f.feed(line, &mut out) == LineOutcome::Recognised {
                recognised += 1;
            }
        }
        f.finish(&mut out);
        if !out.is_empty() && best.is_none_or(|(_, n)| recognised > n) {
            best = Some((f.name(), recognised));
        }
    }
    best.map(|(name, _)| name)
}
