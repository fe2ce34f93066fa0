//! Reading a log through a front end ([`formats`](super::formats)): auto-detection, and the
//! line loop (bounded line length, constant memory) that hands each record on and counts the
//! lines every front end recognised, skipped and dropped.

use super::formats::{FrontEnd, FRONT_ENDS};
use super::record::MAX_DUR_NS;
use super::{LineOutcome, LogRecord};
use crate::error::{Error, Result, ResultExt};
use crate::limits::{escape, MAX_LOG_LINE_BYTES};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Lines auto-detection feeds each front end before choosing.
const DETECT_LINES: usize = 2_000;

/// What the line loop saw.
#[derive(Clone, Debug, Default)]
pub struct LineCounts {
    pub lines: u64,
    pub recognised: u64,
    pub skipped: u64,
    /// Reason → lines dropped for it (including lines cut at the length limit).
    pub dropped: BTreeMap<String, u64>,
}

fn names() -> String {
    FRONT_ENDS
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The front end named `format`, or the one that recognises most of the file's first lines
/// (`auto`). A file nothing recognises is refused, naming the formats tried.
pub fn choose(path: &Path, format: &str) -> Result<&'static FrontEnd> {
    if format != "auto" {
        return FRONT_ENDS.iter().find(|f| f.name == format).ok_or_else(|| {
            Error::input(format!(
                "--format: unknown format {} (formats: auto, {})",
                escape(format),
                names()
            ))
        });
    }
    let mut best: Option<(&'static FrontEnd, u64)> = None;
    for fe in FRONT_ENDS {
        let mut counts = LineCounts::default();
        let mut f = (fe.new)();
        each_line(path, Some(DETECT_LINES), &mut counts, &mut |line, c| {
            if matches!(f.feed(line, &mut Vec::new()), LineOutcome::Recognised) {
                c.recognised += 1;
            }
        })?;
        if counts.recognised > 0 && best.is_none_or(|(_, n)| counts.recognised > n) {
            best = Some((fe, counts.recognised));
        }
    }
    best.map(|(fe, _)| fe)
        .ok_or_else(|| nothing_importable(path))
}

/// Nothing in the log at `path` looked like any format.
fn nothing_importable(path: &Path) -> Error {
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return Error::input(format!(
            "{}: the log is empty (nothing was recorded in it)",
            path.display()
        ));
    }
    Error::input(format!(
        "{}: nothing importable found (tried as {})",
        path.display(),
        names()
    ))
}

/// The log at `path`, read through `fe` (`counts` what it saw), gave no statement to import:
/// what was dropped and why.
pub fn nothing_read(path: &Path, fe: &FrontEnd, counts: &LineCounts) -> Error {
    let why = if counts.dropped.is_empty() {
        format!("{} of {} lines recognised", counts.recognised, counts.lines)
    } else {
        let d: Vec<String> = counts
            .dropped
            .iter()
            .map(|(why, n)| format!("{n} dropped: {why}"))
            .collect();
        d.join("; ")
    };
    Error::input(format!(
        "{}: nothing importable found when read as {} ({why})",
        path.display(),
        fe.name
    ))
}

/// Why a record no statement log may hold is dropped, whichever front end read it: SQL with a
/// NUL byte (SQLite would stop reading there, and a trace cannot hold it), or a duration past
/// the limit (`MAX_DUR_NS`, a corrupt line).
fn unusable(r: &LogRecord) -> Option<&'static str> {
    const NUL_BYTE: &str = "SQL statement contains a NUL byte";
    let has_nul = |s: &str| memchr::memchr(0, s.as_bytes()).is_some();
    match r {
        LogRecord::Statement(s)
            if has_nul(&s.sql) || s.expanded.as_deref().is_some_and(has_nul) =>
        {
            Some(NUL_BYTE)
        }
        LogRecord::Schema(s) if has_nul(&s.sql) => Some(NUL_BYTE),
        LogRecord::Statement(s) if s.dur_ns.is_some_and(|d| d > MAX_DUR_NS) => {
            Some("statement duration over 24 hours")
        }
        _ => None,
    }
}

/// Feed the whole file through front end `fe`, handing every record to `sink` in log order.
pub fn read(
    path: &Path,
    fe: &FrontEnd,
    sink: &mut dyn FnMut(LogRecord) -> Result<()>,
) -> Result<LineCounts> {
    let mut f = (fe.new)();
    let mut counts = LineCounts::default();
    let mut out = Vec::new();
    let mut failed = None;
    let mut hand_on = |out: &mut Vec<LogRecord>, c: &mut LineCounts| {
        for r in out.drain(..) {
            if let Some(why) = unusable(&r) {
                *c.dropped.entry(why.to_string()).or_default() += 1;
            } else if failed.is_none() {
                failed = sink(r).err();
            }
        }
    };
    each_line(path, None, &mut counts, &mut |line, c| {
        match f.feed(line, &mut out) {
            LineOutcome::Recognised => c.recognised += 1,
            LineOutcome::Skipped => c.skipped += 1,
            LineOutcome::Dropped(why) => *c.dropped.entry(why.to_string()).or_default() += 1,
        }
        hand_on(&mut out, c);
    })?;
    f.finish(&mut out);
    hand_on(&mut out, &mut counts);
    for (why, n) in f.late_drops() {
        *counts.dropped.entry(why.to_string()).or_default() += n;
    }
    failed.map_or(Ok(counts), Err)
}

/// Call `f` on each line (at most `limit`), without its terminator; a line longer than
/// [`MAX_LOG_LINE_BYTES`] is dropped and counted, invalid UTF-8 is replaced. A line is handed
/// on where it lies in the read buffer; only one that straddles two reads is copied.
fn each_line(
    path: &Path,
    limit: Option<usize>,
    counts: &mut LineCounts,
    f: &mut dyn FnMut(&str, &mut LineCounts),
) -> Result<()> {
    let file = std::fs::File::open(path).input_err(format!("{}: cannot open", path.display()))?;
    let mut input = BufReader::with_capacity(1 << 20, file);
    // The start of a line that straddles reads, and whether it already passed the limit.
    let mut carry: Vec<u8> = Vec::new();
    let mut too_long = false;
    let max = MAX_LOG_LINE_BYTES as usize;
    let mut line = |bytes: &[u8], too_long: bool, counts: &mut LineCounts| -> bool {
        if limit.is_some_and(|l| counts.lines >= l as u64) {
            return false;
        }
        counts.lines += 1;
        if too_long || bytes.len() > max {
            *counts
                .dropped
                .entry("line above the length limit".into())
                .or_default() += 1;
            return true;
        }
        let mut end = bytes.len();
        while end > 0 && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        match std::str::from_utf8(&bytes[..end]) {
            Ok(text) => f(text, counts),
            Err(_) => f(&String::from_utf8_lossy(&bytes[..end]), counts),
        }
        true
    };
    loop {
        // The message is made only on an error (not once per line).
        let buf = input
            .fill_buf()
            .map_err(|e| Error::input(format!("{}: cannot read: {e}", path.display())))?;
        if buf.is_empty() {
            if !carry.is_empty() || too_long {
                line(&carry, too_long, counts);
            }
            return Ok(());
        }
        let (used, go_on) = match memchr::memchr(b'\n', buf) {
            Some(at) if carry.is_empty() && !too_long => (at + 1, line(&buf[..at], false, counts)),
            Some(at) => {
                if !too_long {
                    carry.extend_from_slice(&buf[..at]);
                }
                let go_on = line(&carry, too_long, counts);
                carry.clear();
                too_long = false;
                (at + 1, go_on)
            }
            None => {
                // No end of line in what was read: keep it (up to just past the limit).
                if !too_long {
                    carry.extend_from_slice(&buf[..buf.len().min(max + 1 - carry.len())]);
                    if carry.len() > max {
                        carry.clear();
                        too_long = true;
                    }
                }
                (buf.len(), true)
            }
        };
        input.consume(used);
        if !go_on {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    //! The read hands every record on in log order, drops and counts what no trace may hold,
    //! and hands nothing on after the sink's first error, which it returns.
    use super::*;
    use crate::workload::import::formats::FRONT_ENDS;

    fn jsonl() -> &'static FrontEnd {
        FRONT_ENDS.iter().find(|f| f.name == "jsonl").unwrap()
    }

    /// A jsonl log of `n` statements `SELECT i`, with a NUL byte in statement 3.
    fn log(n: usize) -> tempfile::NamedTempFile {
        let mut text = String::new();
        for i in 0..n {
            let sql = if i == 3 {
                "SELECT \\u0000".to_string()
            } else {
                format!("SELECT {i}")
            };
            text.push_str(&format!(
                "{{\"statement\":{{\"t_ns\":{i},\"sql\":\"{sql}\"}}}}\n"
            ));
        }
        text.push_str("not a record\n");
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        f
    }

    fn sql(r: &LogRecord) -> String {
        match r {
            LogRecord::Statement(s) => s.sql.clone(),
            _ => panic!("not a statement"),
        }
    }

    #[test]
    fn records_arrive_in_order_and_unusable_ones_are_counted() {
        let n = 2500;
        let f = log(n);
        let mut seen = Vec::new();
        let counts = read(f.path(), jsonl(), &mut |r| {
            seen.push(sql(&r));
            Ok(())
        })
        .unwrap();
        assert_eq!(counts.lines, n as u64 + 1);
        assert_eq!(counts.recognised, n as u64);
        assert_eq!(counts.skipped, 1);
        assert_eq!(counts.dropped["SQL statement contains a NUL byte"], 1);
        let want: Vec<String> = (0..n)
            .filter(|i| *i != 3)
            .map(|i| format!("SELECT {i}"))
            .collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn the_sinks_first_error_is_returned_and_no_record_after_it_is_handed_on() {
        let f = log(3000);
        let mut calls = 0;
        let err = read(f.path(), jsonl(), &mut |_| {
            calls += 1;
            if calls == 10 {
                return Err(Error::input("the tenth record"));
            }
            Ok(())
        })
        .unwrap_err();
        assert!(err.to_string().contains("the tenth record"), "{err}");
        assert_eq!(calls, 10);
    }
}
