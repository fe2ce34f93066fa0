//! The `android-logcat` front end: the statements Android's SQLite framework writes to logcat,
//! in any layout [`logcat_line`](super::logcat_line) reads.
//!
//! Three sources, as the framework (`android_database_SQLiteConnection.cpp` and
//! `SQLiteConnection.java`) writes them:
//!
//! * tag `SQLiteStatements` (`setprop log.tag.SQLiteStatements VERBOSE`): `LABEL: "SQL"` when a
//!   statement starts, the SQL with its bound arguments expanded as literals (SQLite's legacy
//!   trace callback); LABEL is the database path.
//! * tag `SQLiteTime` (`log.tag.SQLiteTime VERBOSE`): `LABEL: "SQL" took 1.234 ms` when it ends,
//!   the SQL as prepared. A `SQLiteTime` line on the thread of a pending `SQLiteStatements`
//!   statement completes it (its duration, and the prepared SQL beside the expanded one);
//!   alone it is a statement stamped at its end.
//! * tag `SQLiteConnection`, the operation log (the slow-query log, all statements with
//!   `db.log.slow_query_threshold` 0): `KIND took Nms - succeeded, sql="SQL",
//!   bindArgs=[1, "x", null], path=PATH[, result=N][, exception="…"][, countedRows=N…]`
//!   (the forms releases print, [`operation`](super::operation)),
//!   stamped at the end. Used when the log has it and not the statement tags (the first of the
//!   two kinds seen wins; lines of the other are dropped as duplicates).
//!
//! A message holding newlines is printed by logcat as one line per line of the message, each
//! with the same prefix; such lines are joined back (per thread) until the closing quote.
//! logcat cuts a message at about 4 KB ([`LINE_LIMIT`]): a statement that reaches it without
//! closing is dropped and counted as truncated.

use super::logcat_line::{split_once_ascii, Clock, Line};
use super::operation::parse_operation;
use super::{LineOutcome, LogFormat};
use crate::workload::import::record::ms_to_ns;
use crate::workload::import::sql::lexer;
use crate::workload::import::{LogRecord, Stamp, StatementRecord};

/// Bytes of one logcat message (liblog's `LOGGER_ENTRY_MAX_PAYLOAD` is 4068, less the tag):
/// a pending statement this long is one logcat cut.
pub const LINE_LIMIT: usize = 4000;
/// Threads with a statement pending at once; more and the oldest is dropped.
const MAX_PENDING: usize = 256;

const STATEMENTS: &str = "SQLiteStatements";
const TIME: &str = "SQLiteTime";
const OPERATIONS: &str = "SQLiteConnection";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    StatementTags,
    OperationLog,
}

/// A statement seen on one thread, waiting for more lines or for its time.
#[derive(Debug)]
struct Pending {
    tid: Option<u32>,
    /// The tag whose lines are still being joined (`None`: complete, waiting for `SQLiteTime`).
    joining: Option<&'static str>,
    text: String,
    /// Bytes of the logcat message so far (all its lines), against [`LINE_LIMIT`].
    bytes: usize,
    rec: StatementRecord,
}

/// The `android-logcat` front end.
#[derive(Debug, Default)]
pub struct AndroidLogcat {
    clock: Clock,
    source: Option<Source>,
    pending: Vec<Pending>,
    /// Statements dropped other than at a line of their own, with why.
    late_drops: Vec<(&'static str, u64)>,
    /// Position in the log for lines without a time (`brief`): statements follow each other.
    synthetic_ns: u64,
}

impl AndroidLogcat {
    pub fn new() -> Self {
        Self::default()
    }

    fn late_drop(&mut self, why: &'static str) {
        match self.late_drops.iter_mut().find(|(w, _)| *w == why) {
            Some((_, n)) => *n += 1,
            None => self.late_drops.push((why, 1)),
        }
    }

    fn take_pending(&mut self, tid: Option<u32>) -> Option<Pending> {
        let i = self.pending.iter().position(|p| p.tid == tid)?;
        Some(self.pending.remove(i))
    }

    fn push_pending(&mut self, p: Pending, out: &mut Vec<LogRecord>) {
        if self.pending.len() >= MAX_PENDING {
            let old = self.pending.remove(0);
            self.close(old, out);
        }
        self.pending.push(p);
    }

    /// Emit a pending statement that is complete, or count it dropped.
    fn close(&mut self, p: Pending, out: &mut Vec<LogRecord>) {
        match p.joining {
            None => out.push(LogRecord::Statement(p.rec)),
            Some(_) if p.bytes >= LINE_LIMIT => {
                self.late_drop("statement cut at logcat's line limit")
            }
            Some(_) => self.late_drop("statement never closed (the log ends or moves on)"),
        }
    }

    fn record(&mut self, l: &Line, db: &str) -> StatementRecord {
        let t_ns = l.t_ns.unwrap_or(self.synthetic_ns);
        StatementRecord {
            t_ns,
            pid: l.pid,
            tid: l.tid,
            db: Some(db.to_string()),
            ..Default::default()
        }
    }

    fn choose(&mut self, s: Source) -> bool {
        *self.source.get_or_insert(s) == s
    }

    fn statement_tags(&mut self, l: &Line, out: &mut Vec<LogRecord>) -> LineOutcome {
        if !self.choose(Source::StatementTags) {
            return LineOutcome::Dropped("statement tag beside the operation log (a duplicate)");
        }
        let tag = if l.tag == STATEMENTS {
            STATEMENTS
        } else {
            TIME
        };
        // A continuation of a statement being joined on this thread?
        if let Some(mut p) = self.take_pending(l.tid) {
            if p.joining == Some(tag) && p.bytes < LINE_LIMIT {
                p.text.push('\n');
                p.text.push_str(l.msg);
                p.bytes += 1 + l.msg.len();
                return self.try_complete(p, out);
            }
            if p.joining.is_none() && tag == TIME {
                // The end of the statement that started on this thread.
                return self.time_line(l, Some(p), out);
            }
            self.close(p, out);
        }
        if tag == TIME {
            return self.time_line(l, None, out);
        }
        let Some((label, rest)) = split_once_ascii(l.msg, ": \"") else {
            return LineOutcome::Dropped("SQLiteStatements line without `label: \"sql\"`");
        };
        let rec = self.record(l, label);
        self.try_complete(
            Pending {
                tid: l.tid,
                joining: Some(STATEMENTS),
                text: rest.to_string(),
                bytes: l.msg.len(),
                rec,
            },
            out,
        )
    }

    /// A `SQLiteStatements` text is complete when it ends with the closing quote outside any
    /// quote of the SQL; then it waits on its thread for a `SQLiteTime` line.
    fn try_complete(&mut self, mut p: Pending, out: &mut Vec<LogRecord>) -> LineOutcome {
        if p.joining == Some(TIME) {
            return self.time_text(p, out);
        }
        match p.text.strip_suffix('"') {
            Some(sql) if !lexer::ends_open(sql) => {
                // The text without its closing quote becomes the statement's, not a copy.
                let mut sql = std::mem::take(&mut p.text);
                sql.pop();
                p.rec.sql = sql;
                p.joining = None;
                self.synthetic_ns = self.synthetic_ns.saturating_add(1);
                self.push_pending(p, out);
            }
            _ => self.push_pending(p, out),
        }
        LineOutcome::Recognised
    }

    /// A `SQLiteTime` line: `LABEL: "SQL" took 1.234 ms`, maybe the first of several.
    fn time_line(
        &mut self,
        l: &Line,
        started: Option<Pending>,
        out: &mut Vec<LogRecord>,
    ) -> LineOutcome {
        let Some((label, rest)) = split_once_ascii(l.msg, ": \"") else {
            if let Some(p) = started {
                self.close(p, out);
            }
            return LineOutcome::Dropped("SQLiteTime line without `label: \"sql\" took N ms`");
        };
        let (rec, expanded) = match started {
            Some(mut p) => {
                // The statement's text so far is its expanded form; the time line's SQL
                // becomes its `sql` once read.
                let expanded = std::mem::take(&mut p.rec.sql);
                (p.rec, Some(expanded))
            }
            None => {
                let mut r = self.record(l, label);
                r.stamp = Stamp::End;
                (r, None)
            }
        };
        let mut rec = rec;
        rec.expanded = expanded;
        // Whole on its line (most are): read where it lies; else joined with the next lines.
        match time_parts(rest) {
            Some((sql, ms)) => self.timed(rec, sql.to_string(), ms, out),
            None => self.push_pending(
                Pending {
                    tid: l.tid,
                    joining: Some(TIME),
                    text: rest.to_string(),
                    bytes: l.msg.len(),
                    rec,
                },
                out,
            ),
        }
        LineOutcome::Recognised
    }

    fn time_text(&mut self, p: Pending, out: &mut Vec<LogRecord>) -> LineOutcome {
        match time_parts(&p.text).map(|(sql, ms)| (sql.to_string(), ms)) {
            Some((sql, ms)) => self.timed(p.rec, sql, ms, out),
            None => self.push_pending(p, out),
        }
        LineOutcome::Recognised
    }

    /// The statement `rec` ended, its SQL as prepared `sql`, after `ms` milliseconds.
    fn timed(&mut self, mut rec: StatementRecord, sql: String, ms: f64, out: &mut Vec<LogRecord>) {
        let dur = (ms * 1e6).round() as u64;
        rec.dur_ns = Some(dur);
        if rec.expanded.as_deref() == Some(sql.as_str()) {
            rec.expanded = None;
        }
        rec.sql = sql;
        self.synthetic_ns = self.synthetic_ns.saturating_add(dur);
        out.push(LogRecord::Statement(rec));
    }

    fn operation_line(&mut self, l: &Line, out: &mut Vec<LogRecord>) -> LineOutcome {
        let Some(op) = parse_operation(l.msg) else {
            // Other SQLiteConnection messages (WAL truncation notes…) or a cut line.
            return if l.msg.contains(" took ") && l.msg.contains("sql=\"") {
                LineOutcome::Dropped("operation log line cut at logcat's line limit")
            } else {
                LineOutcome::Skipped
            };
        };
        if op.sql.is_none() {
            return LineOutcome::Recognised; // open, close: no statement
        }
        if !self.choose(Source::OperationLog) {
            return LineOutcome::Dropped("operation log beside the statement tags (a duplicate)");
        }
        let mut rec = self.record(l, op.path.unwrap_or(""));
        rec.tid = rec.tid.or(op.tid);
        rec.stamp = Stamp::End;
        let dur = ms_to_ns(op.ms);
        rec.dur_ns = Some(dur);
        rec.sql = op.sql.unwrap_or_default().to_string();
        rec.args = op.args;
        rec.rows = op.rows;
        rec.status = Some(if op.failed { 1 } else { 0 });
        self.synthetic_ns = self.synthetic_ns.saturating_add(dur);
        out.push(LogRecord::Statement(rec));
        LineOutcome::Recognised
    }
}

/// A complete `SQLiteTime` text after its label: `SQL" took N ms`, as the SQL and N.
fn time_parts(text: &str) -> Option<(&str, f64)> {
    let (sql, t) = split_took(text)?;
    let ms: f64 = t.strip_suffix(" ms")?.trim().parse().ok()?;
    (ms.is_finite() && ms >= 0.0 && !lexer::ends_open(sql)).then_some((sql, ms))
}

/// `text` split around its last `" took `, as `rsplit_once` splits it (by memrchr).
fn split_took(text: &str) -> Option<(&str, &str)> {
    const TOOK: &[u8] = b"\" took ";
    let b = text.as_bytes();
    let mut end = b.len();
    while let Some(at) = memchr::memrchr(b'"', &b[..end]) {
        if b[at..].starts_with(TOOK) {
            return Some((&text[..at], &text[at + TOOK.len()..]));
        }
        end = at;
    }
    None
}

impl LogFormat for AndroidLogcat {
    fn name(&self) -> &'static str {
        "android-logcat"
    }

    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let Some(l) = self.clock.parse(line) else {
            return LineOutcome::Skipped;
        };
        match l.tag {
            STATEMENTS | TIME => self.statement_tags(&l, out),
            OPERATIONS => self.operation_line(&l, out),
            _ => LineOutcome::Skipped,
        }
    }

    fn finish(&mut self, out: &mut Vec<LogRecord>) {
        for p in std::mem::take(&mut self.pending) {
            self.close(p, out);
        }
    }

    fn late_drops(&self) -> &[(&'static str, u64)] {
        &self.late_drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_splits_where_split_once_and_rsplit_once_split_it_by_memchr() {
        for text in [
            "a: \"b\" took 1 ms",
            "/d/x.db: \"SELECT ':' || \"\" took 2\" took 0.5 ms",
            "no label",
            ": \"",
            "a:\" b: \"c",
            "x\" took \" took ",
            "\" took",
            "é: \"é\" took é",
        ] {
            assert_eq!(
                split_once_ascii(text, ": \""),
                text.split_once(": \""),
                "{text}"
            );
            assert_eq!(split_took(text), text.rsplit_once("\" took "), "{text}");
        }
    }
}
