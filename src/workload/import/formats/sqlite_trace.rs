//! The `sqlite-trace` front end: what the sqlite3 shell's `.trace FILE` writes.
//!
//! The shell prints each statement as it runs, with its bound values expanded, followed by
//! `;` (`SQL;`, over several lines when the SQL holds newlines); with `.trace FILE --profile`
//! it prints each statement when it ends with its run time, `SQL; -- 1234 ns`. With both
//! (`--stmt --profile`) a statement's profile line follows its statement line and completes
//! it. Statements run by triggers are printed as comments (`-- TRIGGER name;`) and dropped.
//!
//! The trace holds no clock: statements are placed back to back, each starting when the one
//! before ended (`t_ns` the sum of the durations before it, 0 without `--profile`), so an
//! import of it replays with zero think time unless told otherwise.

use super::{LineOutcome, LogFormat};
use crate::limits::MAX_SQL_BYTES;
use crate::workload::import::sql::lexer::{self, Kind};
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

/// The `sqlite-trace` front end.
#[derive(Debug, Default)]
pub struct SqliteTrace {
    /// A statement being joined over lines.
    text: Option<String>,
    /// A complete statement line, held for the profile line that may follow it.
    held: Option<StatementRecord>,
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
        if lexer::tokens(sql).all(|t| matches!(t.kind, Kind::Space | Kind::Comment)) {
            self.release(out);
            return LineOutcome::Dropped("a trigger's statement (printed as a comment)");
        }
        if let (Some(ns), Some(held)) = (dur, self.held.as_mut()) {
            if held.sql == sql {
                held.dur_ns = Some(ns);
                self.clock_ns += ns;
                self.release(out);
                return LineOutcome::Recognised;
            }
        }
        self.release(out);
        let rec = StatementRecord {
            t_ns: self.clock_ns,
            dur_ns: dur,
            sql: sql.to_string(),
            ..Default::default()
        };
        match dur {
            Some(ns) => {
                self.clock_ns += ns;
                out.push(LogRecord::Statement(rec));
            }
            None => self.held = Some(rec),
        }
        LineOutcome::Recognised
    }
}

/// `SQL; -- 1234 ns` → (`SQL`, 1234).
fn split_profile(text: &str) -> Option<(&str, u64)> {
    let (sql, tail) = text.rsplit_once("; -- ")?;
    let ns = tail.strip_suffix(" ns")?.parse().ok()?;
    (!lexer::ends_open(sql)).then_some((sql, ns))
}

/// Whether `text` (one or more joined lines) is a whole statement.
fn is_complete(text: &str) -> bool {
    split_profile(text).is_some()
        || text
            .strip_suffix(';')
            .is_some_and(|sql| !lexer::ends_open(sql))
}

fn starts_statement(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("--") {
        // A trigger's statement, one whole line: `-- TRIGGER name;`.
        return t.ends_with(';');
    }
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_uppercase();
    VERBS.contains(&word.as_str())
}

impl LogFormat for SqliteTrace {
    fn name(&self) -> &'static str {
        "sqlite-trace"
    }

    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let text = match self.text.take() {
            Some(mut t) => {
                if t.len() + line.len() >= MAX_SQL_BYTES as usize {
                    self.late_drop("statement longer than the SQL limit (docs/limits.md)");
                    return LineOutcome::Dropped("statement longer than the SQL limit");
                }
                t.push('\n');
                t.push_str(line);
                t
            }
            None if starts_statement(line) => line.to_string(),
            None => return LineOutcome::Skipped,
        };
        if is_complete(&text) {
            self.complete(&text, out)
        } else {
            self.text = Some(text);
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
