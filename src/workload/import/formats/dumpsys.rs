//! The `dumpsys-dbinfo` front end: the recent-operations sections of `adb shell dumpsys
//! dbinfo` (or of a bug report's `DUMP OF SERVICE dbinfo`). Small — the framework keeps the
//! last 20 operations per connection — but available on any phone without root or setup, so
//! it is how to discover what an app runs.
//!
//! The dump is read as `SQLiteConnectionPool` and `SQLiteConnection` print it:
//!
//! ```text
//! ** Database info for pid 1234 [com.example.app] **
//! Connection pool for /data/user/0/com.example.app/databases/app.db:
//!   Available primary connection:
//!     Connection #0:
//!       Most recently executed operations:
//!         0: [2024-05-14 10:11:12.345] executeForCursorWindow took 2ms - succeeded, sql="SELECT …", path=/data/…
//! ```
//!
//! and as older releases and other wrappers of the same class print an operation: without
//! `, path=…` (the pool names the database), with `tid=…` and `bindArgs=[…]` (the forms
//! [`operation`](super::operation) reads), with `[Pid:(N)]` before it, or with a time without
//! its year (`[05-14 10:11:12.345]`, placed on the clock logcat's year-less lines use).
//!
//! Operations are listed newest first; each connection's list is emitted oldest first. The
//! bracketed time is when the operation started (`stamp: start`), with its duration in ms.
//! `prepare` operations (no execution), `open`/`close` (no SQL) and operations still running
//! are not statements. The connection is `PATH#N`.

use super::logcat_line::Clock;
use super::operation::parse_operation;
use super::{LineOutcome, LogFormat};
use crate::workload::import::record::ms_to_ns;
use crate::workload::import::{LogRecord, Stamp, StatementRecord};

/// Operations kept of one connection's list (the framework prints at most 20).
const MAX_OPERATIONS: usize = 64;

/// The `dumpsys-dbinfo` front end.
#[derive(Debug, Default)]
pub struct DumpsysDbinfo {
    pid: Option<u32>,
    pool: Option<String>,
    conn: Option<String>,
    in_operations: bool,
    clock: Clock,
    /// The current connection's operations, newest first as printed.
    block: Vec<StatementRecord>,
}

impl DumpsysDbinfo {
    pub fn new() -> Self {
        Self::default()
    }

    fn flush(&mut self, out: &mut Vec<LogRecord>) {
        self.in_operations = false;
        while let Some(r) = self.block.pop() {
            out.push(LogRecord::Statement(r));
        }
    }

    fn operation(&mut self, text: &str) -> LineOutcome {
        // `N: [date] operation`
        let Some((n, rest)) = text.split_once(": [") else {
            return LineOutcome::Dropped("operation line without `N: [time]`");
        };
        if n.parse::<u32>().is_err() {
            return LineOutcome::Dropped("operation line without its number");
        }
        let Some((date, op)) = rest.split_once(']') else {
            return LineOutcome::Dropped("operation line without its time");
        };
        let Some(t_ns) = self.clock.stamp_ns(date) else {
            return LineOutcome::Dropped("operation time is not `[YYYY-]MM-DD HH:MM:SS.mmm`");
        };
        let op = op.trim_start();
        // Some vendors' builds print the calling process first: `[Pid:(1234)]`.
        let (pid, op) = match op.strip_prefix("[Pid:(").and_then(|r| r.split_once(")]")) {
            Some((pid, op)) => (pid.parse().ok(), op.trim_start()),
            None => (None, op),
        };
        if op.contains(" started ") && op.contains(" - running") {
            return LineOutcome::Dropped("operation still running when dumped");
        }
        let Some(parsed) = parse_operation(op) else {
            return LineOutcome::Dropped("operation not `KIND took Nms - STATUS[, sql=\"…\"…]`");
        };
        let Some(sql) = parsed.sql else {
            return LineOutcome::Recognised; // open, close
        };
        if parsed.kind == "prepare" {
            return LineOutcome::Recognised;
        }
        if self.block.len() >= MAX_OPERATIONS {
            return LineOutcome::Dropped("more operations listed than a connection keeps");
        }
        self.block.push(StatementRecord {
            t_ns,
            stamp: Stamp::Start,
            dur_ns: Some(ms_to_ns(parsed.ms)),
            pid: pid.or(self.pid),
            tid: parsed.tid,
            conn: self.conn.clone(),
            db: self
                .pool
                .clone()
                .or_else(|| parsed.path.map(str::to_string)),
            sql: sql.to_string(),
            status: Some(if parsed.failed { 1 } else { 0 }),
            args: parsed.args,
            rows: parsed.rows,
            ..Default::default()
        });
        LineOutcome::Recognised
    }
}

impl LogFormat for DumpsysDbinfo {
    fn name(&self) -> &'static str {
        "dumpsys-dbinfo"
    }

    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("** Database info for pid ") {
            self.flush(out);
            self.pid = rest.split(' ').next().and_then(|p| p.parse().ok());
            self.pool = None;
            return LineOutcome::Recognised;
        }
        if let Some(rest) = t.strip_prefix("Connection pool for ") {
            self.flush(out);
            self.pool = Some(rest.strip_suffix(':').unwrap_or(rest).to_string());
            return LineOutcome::Recognised;
        }
        if let Some(rest) = t.strip_prefix("Connection #") {
            self.flush(out);
            let n = rest.strip_suffix(':').unwrap_or(rest);
            self.conn = Some(format!("{}#{n}", self.pool.as_deref().unwrap_or("")));
            return LineOutcome::Recognised;
        }
        if t == "Most recently executed operations:" {
            self.flush(out);
            self.in_operations = true;
            return LineOutcome::Recognised;
        }
        if self.in_operations {
            if t.split_once(": [")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            {
                return self.operation(t);
            }
            if t == "<none>" {
                return LineOutcome::Recognised;
            }
            self.flush(out);
        }
        LineOutcome::Skipped
    }

    fn finish(&mut self, out: &mut Vec<LogRecord>) {
        self.flush(out);
    }
}
