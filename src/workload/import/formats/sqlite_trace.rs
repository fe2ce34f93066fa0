//! The `sqlite-trace` front end: what the sqlite3 shell's `.trace FILE` writes.
//!
//! The shell prints a statement when it starts, `SQL;` (SQLite's `SQLITE_TRACE_STMT`: plain
//! `.trace FILE`, or `--stmt`), and when it ends with its run time, `SQL; -- 1234 ns`
//! (`--profile`); with both (`--stmt --profile`) a statement's profile line follows its
//! statement line and completes it. A statement holding newlines is printed over several
//! lines; it ends where SQLite's `sqlite3_complete` says it does, so a `CREATE TRIGGER … BEGIN
//! …; …; END;` is one statement ([`Completion`]).
//!
//! Statement lines hold more than the app's statements; the profile lines do not:
//!
//! * a trigger's sub-program prints `-- TRIGGER name;` and each statement of its body as
//!   `-- STATEMENT;` (on one line, its whitespace flattened): SQLite runs them again on
//!   replay through the trigger, so they are counted as dropped, never replayed;
//! * a foreign-key action (`ON DELETE CASCADE`, `SET NULL`, `ON UPDATE …`) runs as a
//!   sub-program without a name, which prints its parent statement's SQL again, once per row
//!   it acts for, before the parent's profile line. Replaying it would run the parent again.
//!   With profile lines the parent's statement is pending until its profile line, so the
//!   same SQL printed meanwhile is such a sub-program, for certain. A plain trace has no such
//!   mark: there a write printed again with nothing but trigger lines in between, while the
//!   trace's `PRAGMA foreign_keys` has them on (SQLite's default is off), is taken as one.
//!   An app that really runs the same write twice in a row with foreign keys on loses the
//!   second in a plain trace; trace with `--profile` to keep it.
//!
//! The trace holds no clock: statements are placed back to back, each starting when the one
//! before ended (`t_ns` the sum of the durations before it, 0 without `--profile`), so an
//! import of it replays with zero think time unless told otherwise.

use super::{LineOutcome, LogFormat};
use crate::limits::MAX_SQL_BYTES;
use crate::workload::import::sql::complete::Completion;
use crate::workload::import::sql::lexer::{self, Kind};
use crate::workload::import::sql::sqltext::pragma_setting;
use crate::workload::import::{LogRecord, StatementRecord};

/// Words a statement may begin with; another first word is not the start of a statement.
const VERBS: &[&str] = &[
    "ALTER",
    "ANALYZE",
    "ATTACH",
    "BEGIN",
    "COMMIT",
    "CREATE",
    "DELETE",
    "DETACH",
    "DROP",
    "END",
    "EXPLAIN",
    "INSERT",
    "PRAGMA",
    "REINDEX",
    "RELEASE",
    "REPLACE",
    "ROLLBACK",
    "SAVEPOINT",
    "SELECT",
    "UPDATE",
    "UPSERT",
    "VACUUM",
    "VALUES",
    "WITH",
];

/// Statements a foreign-key action can run under (it acts on rows they delete or change).
const WRITES: &[&str] = &["DELETE", "INSERT", "REPLACE", "UPDATE", "WITH"];

const TRIGGER_LINE: &str = "a trigger's statement (printed as a comment)";
const FK_ACTION: &str = "a foreign-key action (its statement's SQL printed again)";

/// The `sqlite-trace` front end.
#[derive(Debug, Default)]
pub struct SqliteTrace {
    /// A statement being joined over lines, and how far it is complete.
    text: Option<(String, Completion)>,
    /// The statement last printed when it started, held for the profile line that completes
    /// it (and to know the sub-programs printed with its SQL).
    held: Option<StatementRecord>,
    /// A profile line was seen: statement lines are paired with profile lines.
    profiled: bool,
    /// Foreign keys on, as the trace's last `PRAGMA foreign_keys` left them.
    foreign_keys: bool,
    clock_ns: u64,
    late_drops: Vec<(&'static str, u64)>,
}

impl SqliteTrace {
    pub fn new() -> Self {
        Self::default()
    }

    fn late_drop(&mut self, why: &'static str) {
        match self.late_drops.iter_mut().find(|(w, _)| *w == why) {
            Some((_, n)) => *n += 1,
            None => self.late_drops.push((why, 1)),
        }
    }

    fn release(&mut self, out: &mut Vec<LogRecord>) {
        if let Some(r) = self.held.take() {
            out.push(LogRecord::Statement(r));
        }
    }

    /// A complete `SQL;` or `SQL; -- N ns`.
    fn complete(&mut self, text: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let (sql, dur) = match split_profile(text) {
            Some((sql, ns)) => (sql, Some(ns)),
            None => (text.strip_suffix(';').unwrap_or(text), None),
        };
        if let Some(("foreign_keys", v)) = pragma_setting(sql)
            .as_ref()
            .map(|(k, v)| (k.as_str(), v.as_str()))
        {
            self.foreign_keys = matches!(v, "1" | "on" | "true" | "yes");
        }
        let same_as_held = self.held.as_ref().is_some_and(|h| h.sql == sql);
        match dur {
            Some(ns) => {
                self.profiled = true;
                self.clock_ns += ns;
                if same_as_held {
                    if let Some(h) = self.held.as_mut() {
                        h.dur_ns = Some(ns);
                    }
                    self.release(out);
                    return LineOutcome::Recognised;
                }
                self.release(out);
                out.push(LogRecord::Statement(StatementRecord {
                    t_ns: self.clock_ns - ns,
                    dur_ns: Some(ns),
                    sql: sql.to_string(),
                    ..Default::default()
                }));
            }
            None => {
                if same_as_held
                    && (self.profiled
                        || (self.foreign_keys && WRITES.contains(&lexer::verb(sql).as_str())))
                {
                    return LineOutcome::Dropped(FK_ACTION);
                }
                self.release(out);
                self.held = Some(StatementRecord {
                    t_ns: self.clock_ns,
                    sql: sql.to_string(),
                    ..Default::default()
                });
            }
        }
        LineOutcome::Recognised
    }
}

/// `SQL; -- 1234 ns` → (`SQL`, 1234), for a complete statement's text.
fn split_profile(text: &str) -> Option<(&str, u64)> {
    let (sql, tail) = text.rsplit_once("; -- ")?;
    let ns = tail.strip_suffix(" ns")?.parse().ok()?;
    Some((sql, ns))
}

/// Whether `line` starts a statement: its first word (after any comment) is a verb.
fn starts_statement(line: &str) -> bool {
    lexer::tokens(line)
        .find(|t| !matches!(t.kind, Kind::Space | Kind::Comment))
        .is_some_and(|t| {
            t.kind == Kind::Word && VERBS.iter().any(|v| v.eq_ignore_ascii_case(t.text))
        })
}

/// A trigger's line, `-- TRIGGER name;` or `-- STATEMENT;`: one whole line.
fn is_trigger_line(line: &str) -> bool {
    line.trim_start().starts_with("--") && line.ends_with(';')
}

impl LogFormat for SqliteTrace {
    fn name(&self) -> &'static str {
        "sqlite-trace"
    }

    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let (mut text, mut scan) = match self.text.take() {
            Some((mut t, mut scan)) => {
                if t.len() + line.len() >= MAX_SQL_BYTES as usize {
                    self.late_drop("statement longer than the SQL limit (docs/limits.md)");
                    return LineOutcome::Dropped("statement longer than the SQL limit");
                }
                t.push('\n');
                scan.feed("\n");
                (t, scan)
            }
            None if is_trigger_line(line) => return LineOutcome::Dropped(TRIGGER_LINE),
            None if starts_statement(line) => (String::new(), Completion::new()),
            None => return LineOutcome::Skipped,
        };
        text.push_str(line);
        scan.feed(line);
        if scan.is_complete() {
            self.complete(&text, out)
        } else {
            self.text = Some((text, scan));
            LineOutcome::Recognised
        }
    }

    fn finish(&mut self, out: &mut Vec<LogRecord>) {
        self.release(out);
        if self.text.take().is_some() {
            self.late_drop("statement without its closing `;` at the end of the trace");
        }
    }

    fn late_drops(&self) -> &[(&'static str, u64)] {
        &self.late_drops
    }
}
