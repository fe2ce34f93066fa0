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
    /// The held statement's SQL printed again before its profile line or the next statement
    /// showed whether these were foreign-key actions or the app's own repeats.
    repeats: u64,
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

    /// The held statement is over: emit it, and its repeats as the app's own statements.
    fn release(&mut self, out: &mut Vec<LogRecord>) {
        if let Some(r) = self.held.take() {
            for _ in 0..std::mem::take(&mut self.repeats) {
                out.push(LogRecord::Statement(r.clone()));
            }
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
                    // Printed again before it ended: its foreign-key actions.
                    for _ in 0..std::mem::take(&mut self.repeats) {
                        self.late_drop(FK_ACTION);
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
                if same_as_held {
                    if self.profiled
                        || (self.foreign_keys && WRITES.contains(&lexer::verb(sql).as_str()))
                    {
                        return LineOutcome::Dropped(FK_ACTION);
                    }
                    // Before any profile line: a profile line for it will tell.
                    self.repeats += 1;
                    return LineOutcome::Recognised;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The statements (SQL, duration) a trace's lines give, and how many were dropped why.
    type Dropped = std::collections::BTreeMap<&'static str, u64>;
    fn read(lines: &[&str]) -> (Vec<(String, Option<u64>)>, Dropped) {
        let mut f = SqliteTrace::new();
        let (mut out, mut dropped) = (Vec::new(), Dropped::new());
        for l in lines {
            if let LineOutcome::Dropped(why) = f.feed(l, &mut out) {
                *dropped.entry(why).or_default() += 1;
            }
        }
        f.finish(&mut out);
        for (why, n) in f.late_drops() {
            *dropped.entry(why).or_default() += n;
        }
        let s = out
            .into_iter()
            .filter_map(|r| match r {
                LogRecord::Statement(s) => Some((s.sql, s.dur_ns)),
                LogRecord::Schema(_) => None,
            })
            .collect();
        (s, dropped)
    }

    const TRIGGER: [&str; 4] = [
        "CREATE TRIGGER t AFTER DELETE ON a",
        "BEGIN",
        "  INSERT INTO log VALUES (old.id);",
        "END;",
    ];

    #[test]
    fn a_trigger_written_over_lines_is_one_statement() {
        let (s, dropped) = read(&TRIGGER);
        assert_eq!(
            s,
            [(TRIGGER.join("\n").trim_end_matches(';').to_string(), None)]
        );
        assert!(dropped.is_empty());
        let mut profiled = TRIGGER;
        profiled[3] = "END; -- 2000 ns";
        let (s, _) = read(&profiled);
        assert_eq!(s[0].1, Some(2000));
        assert!(s[0].0.ends_with("old.id);\nEND"));
    }

    #[test]
    fn stmt_and_profile_lines_pair_across_trigger_lines_and_fk_actions() {
        let lines = [
            "DELETE FROM a WHERE id = 1;",
            "-- TRIGGER t;",
            "-- INSERT INTO log VALUES (old.id);",
            "DELETE FROM a WHERE id = 1;",
            "-- TRIGGER t;",
            "DELETE FROM a WHERE id = 1; -- 500 ns",
            "SELECT 1;",
            "SELECT 1; -- 0 ns",
        ];
        let (s, dropped) = read(&lines);
        assert_eq!(
            s,
            [
                ("DELETE FROM a WHERE id = 1".to_string(), Some(500)),
                ("SELECT 1".to_string(), Some(0))
            ]
        );
        // The first DELETE is printed again before any profile line was seen: its profile
        // line shows the second print was its foreign-key action.
        assert_eq!(dropped, Dropped::from([(TRIGGER_LINE, 3), (FK_ACTION, 1)]));
    }

    #[test]
    fn a_plain_trace_takes_a_repeated_write_for_an_fk_action_only_with_foreign_keys_on() {
        let twice = ["DELETE FROM a WHERE id = 1;", "DELETE FROM a WHERE id = 1;"];
        let (s, _) = read(&twice);
        assert_eq!(s.len(), 2, "foreign keys off: both are the app's");
        let mut on = vec!["PRAGMA foreign_keys = on;"];
        on.extend(twice);
        on.extend(["SELECT 1;", "SELECT 1;"]);
        let (s, dropped) = read(&on);
        let sql: Vec<&str> = s.iter().map(|(q, _)| q.as_str()).collect();
        assert_eq!(
            sql,
            [
                "PRAGMA foreign_keys = on",
                "DELETE FROM a WHERE id = 1",
                "SELECT 1",
                "SELECT 1"
            ]
        );
        assert_eq!(dropped, Dropped::from([(FK_ACTION, 1)]));
    }
}
