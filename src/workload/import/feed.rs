//! Driving a front end over a whole log: lines read one at a time into one reused buffer (so a
//! gigabyte of logcat takes constant memory), CRLF and invalid UTF-8 tolerated, every line
//! counted as recognised, skipped or dropped (with the reason), records handed on as they
//! complete.

use super::{LineOutcome, LogFormat, LogRecord};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{BufRead, Read};

/// Bytes of one log line; a longer line is dropped (logcat's are at most ~4 KB, PhoneLab's
/// 64 KB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What a front end made of a log.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FeedCounts {
    pub format: String,
    pub lines: u64,
    pub recognised: u64,
    /// Lines of other tags, apps or tools.
    pub skipped: u64,
    /// Statements (or lines) that could not be used, by reason.
    pub dropped: BTreeMap<String, u64>,
    pub statements: u64,
    pub schema_records: u64,
}

impl FeedCounts {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }

    fn drop(&mut self, why: &str, n: u64) {
        *self.dropped.entry(why.to_string()).or_default() += n;
    }
}

/// Read `reader` line by line through `format`, calling `sink` with each record in order.
/// `what` names the log in errors (a read error is the only failure).
pub fn feed(
    format: &mut dyn LogFormat,
    mut reader: impl BufRead,
    what: &str,
    mut sink: impl FnMut(LogRecord) -> Result<()>,
) -> Result<FeedCounts> {
    let mut counts = FeedCounts {
        format: format.name().to_string(),
        ..Default::default()
    };
    let mut buf = Vec::with_capacity(8192);
    let mut out = Vec::new();
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::input(format!("{what}: cannot read: {e}")))?;
        if n == 0 {
            break;
        }
        counts.lines += 1;
        if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
            skip_line(&mut reader)
                .map_err(|e| Error::input(format!("{what}: cannot read: {e}")))?;
            counts.drop("line longer than 1 MiB", 1);
            continue;
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        let line = String::from_utf8_lossy(&buf);
        match format.feed(&line, &mut out) {
            LineOutcome::Recognised => counts.recognised += 1,
            LineOutcome::Skipped => counts.skipped += 1,
            LineOutcome::Dropped(why) => counts.drop(why, 1),
        }
        for r in out.drain(..) {
            emit(&mut counts, r, &mut sink)?;
        }
    }
    format.finish(&mut out);
    for r in out.drain(..) {
        emit(&mut counts, r, &mut sink)?;
    }
    for (why, n) in format.late_drops() {
        counts.drop(why, *n);
    }
    Ok(counts)
}

/// Skip to just after the next newline without holding what is skipped.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

fn emit(
    counts: &mut FeedCounts,
    r: LogRecord,
    sink: &mut impl FnMut(LogRecord) -> Result<()>,
) -> Result<()> {
    match &r {
        LogRecord::Statement(_) => counts.statements += 1,
        LogRecord::Schema(_) => counts.schema_records += 1,
    }
    sink(r)
}

/// Every record of a log, collected (for tests and small logs).
pub fn records_of(
    format: &mut dyn LogFormat,
    reader: impl BufRead,
) -> Result<(Vec<LogRecord>, FeedCounts)> {
    let mut all = Vec::new();
    let counts = feed(format, reader, "log", |r| {
        all.push(r);
        Ok(())
    })?;
    Ok((all, counts))
}
