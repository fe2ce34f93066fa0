//! A variant of the app's trace: the edits one candidate (or several, combined) makes to the
//! statements, the engine options it changes, and the trace file that carries the edits, so
//! that a variant replays through the same path as the baseline.

use crate::error::Result;
use crate::workload::import::sql::lexer::{tokens, Kind};
use crate::workload::import::sql::sqltext::created_object;
use crate::workload::op::{Op, Recorded, SqlValue, TimedOp};
use crate::workload::trace::{TraceItem, TraceReader, TraceWriter, VERSION_2};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// One change to the trace's statements.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    /// Create an index right after each statement that creates its table (load or run
    /// phase); at the end of a trace that has only a load phase when none does. `sql` is
    /// `CREATE INDEX IF NOT EXISTS …`.
    CreateIndex { table: String, sql: String },
    /// Leave out every statement that creates index `name` (lower case).
    DropIndex { name: String },
    /// Wrap these run-phase operation ranges (inclusive) in `BEGIN` … `COMMIT`.
    Batch { runs: Vec<(u64, u64)> },
    /// Send statements of these shapes with their literals as bound parameters.
    Parameterize { shapes: BTreeSet<String> },
}

/// A trace edited and engine options changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Variant {
    pub edits: Vec<Edit>,
    /// Options set on top of the baseline's (a later one of the same key wins).
    pub options: Vec<(String, String)>,
}

impl Variant {
    /// Every part's edits and options, in order.
    pub fn combine<'a>(parts: impl IntoIterator<Item = &'a Variant>) -> Variant {
        let mut v = Variant::default();
        for p in parts {
            v.edits.extend(p.edits.iter().cloned());
            v.options.extend(p.options.iter().cloned());
        }
        v
    }

    /// The baseline's options with this variant's set on top.
    pub fn options_over(&self, base: &[(String, String)]) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = base.to_vec();
        for (k, v) in &self.options {
            out.retain(|(bk, _)| bk != k);
            out.push((k.clone(), v.clone()));
        }
        out
    }

    /// Write the trace at `source` with this variant's edits as a new trace at `out`.
    pub fn write(&self, source: &Path, out: &Path) -> Result<()> {
        let mut reader = TraceReader::open(source)?;
        let parameterize = self.edits.iter().find_map(|e| match e {
            Edit::Parameterize { shapes } => Some(shapes),
            _ => None,
        });
        let version = if parameterize.is_some() {
            VERSION_2
        } else {
            reader.version()
        };
        let mut w = TraceWriter::create(out, reader.header(), version)?;
        let dropped: Vec<&str> = self
            .edits
            .iter()
            .filter_map(|e| match e {
                Edit::DropIndex { name } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let indexes: Vec<(&str, &str)> = self
            .edits
            .iter()
            .filter_map(|e| match e {
                Edit::CreateIndex { table, sql } => Some((table.as_str(), sql.as_str())),
                _ => None,
            })
            .collect();
        let mut batches: Vec<(u64, u64)> = self
            .edits
            .iter()
            .flat_map(|e| match e {
                Edit::Batch { runs } => runs.clone(),
                _ => Vec::new(),
            })
            .collect();
        batches.sort_unstable();
        // Indexes whose table no statement has created yet.
        let mut pending: Vec<(&str, &str)> = indexes.clone();
        let mut in_run = false;
        let mut seq = 0u64;
        let mut batch = batches.iter().peekable();
        while let Some(item) = reader.next_item()? {
            match item {
                TraceItem::Load(op) => {
                    if drops(&op, &dropped) {
                        continue;
                    }
                    w.write_load(&op)?;
                    for sql in after_create(&op, &indexes, &mut pending) {
                        w.write_load(&Op::Sql { sql })?;
                    }
                }
                TraceItem::Run(mut t) => {
                    in_run = true;
                    let this = seq;
                    seq += 1;
                    while batch.peek().is_some_and(|(_, last)| *last < this) {
                        batch.next();
                    }
                    let range = batch.peek().copied().copied();
                    if drops(&t.op, &dropped) {
                        continue;
                    }
                    if let Some(shapes) = parameterize {
                        parameterized(&mut t.op, shapes);
                    }
                    let recorded = t.recorded;
                    if range.is_some_and(|(first, _)| first == this) {
                        w.write_run(&added("BEGIN", 0, recorded))?;
                    }
                    let ends = range.is_some_and(|(_, last)| last == this);
                    let creates = after_create(&t.op, &indexes, &mut pending);
                    let delay = t.delay_ns;
                    if ends || !creates.is_empty() {
                        t.delay_ns = 0;
                    }
                    w.write_run(&t)?;
                    let n = creates.len();
                    for (i, sql) in creates.into_iter().enumerate() {
                        let d = if i + 1 == n && !ends { delay } else { 0 };
                        w.write_run(&added(&sql, d, recorded))?;
                    }
                    if ends {
                        w.write_run(&added("COMMIT", delay, recorded))?;
                    }
                }
            }
        }
        if !in_run {
            for (_, sql) in pending.drain(..) {
                w.write_load(&Op::Sql {
                    sql: sql.to_string(),
                })?;
            }
        }
        w.finish()?;
        Ok(())
    }
}

/// A statement the variant adds, on the connection and at the moment of the one it follows.
fn added(sql: &str, delay_ns: u64, recorded: Option<Recorded>) -> TimedOp {
    TimedOp {
        op: Op::Sql {
            sql: sql.to_string(),
        },
        delay_ns,
        recorded: recorded.map(|r| Recorded { dur_ns: None, ..r }),
    }
}

fn sql_of(op: &Op) -> Option<&str> {
    match op {
        Op::Sql { sql } | Op::SqlArgs { sql, .. } => Some(sql),
        _ => None,
    }
}

/// Whether `op` creates one of the indexes `dropped` names.
fn drops(op: &Op, dropped: &[&str]) -> bool {
    sql_of(op)
        .and_then(created_object)
        .is_some_and(|(kind, name)| kind == "index" && dropped.contains(&name.as_str()))
}

/// The indexes to create after `op` (those on the table it creates), taken off `pending`.
fn after_create(op: &Op, indexes: &[(&str, &str)], pending: &mut Vec<(&str, &str)>) -> Vec<String> {
    let name = match sql_of(op).and_then(created_object) {
        Some((kind, name)) if kind == "table" => name,
        _ => return Vec::new(),
    };
    pending.retain(|(t, _)| !t.eq_ignore_ascii_case(&name));
    indexes
        .iter()
        .filter(|(t, _)| t.eq_ignore_ascii_case(&name))
        .map(|(_, sql)| sql.to_string())
        .collect()
}

/// Rewrite a text statement of one of `shapes` with its literals as bound parameters.
fn parameterized(op: &mut Op, shapes: &BTreeSet<String>) {
    let Op::Sql { sql } = op else { return };
    if !shapes.contains(&crate::workload::import::sql::lexer::fingerprint(sql)) {
        return;
    }
    if let Some((text, args)) = bind_literals(sql) {
        *op = Op::SqlArgs { sql: text, args };
    }
}

/// `sql` with each literal as `?` and the literals as values, in order; `None` when it already
/// has parameters. Literals after `ORDER BY` or `GROUP BY` stay (there a number names a
/// column of the result, not a value).
pub fn bind_literals(sql: &str) -> Option<(String, Vec<SqlValue>)> {
    let mut text = String::with_capacity(sql.len());
    let mut args = Vec::new();
    let mut last_word = String::new();
    let mut in_by = false;
    for t in tokens(sql) {
        match t.kind {
            Kind::Param => return None,
            Kind::Word => {
                let up = t.text.to_ascii_uppercase();
                if up == "BY" && (last_word == "ORDER" || last_word == "GROUP") {
                    in_by = true;
                } else if matches!(up.as_str(), "LIMIT" | "HAVING" | "WHERE" | "FROM") {
                    in_by = false;
                }
                last_word = up;
                text.push_str(t.text);
            }
            Kind::Str | Kind::Number | Kind::Blob if !in_by && !t.open => {
                let value = literal_value(t.kind, t.text)?;
                args.push(value);
                text.push('?');
            }
            _ => text.push_str(t.text),
        }
    }
    (!args.is_empty()).then_some((text, args))
}

fn literal_value(kind: Kind, text: &str) -> Option<SqlValue> {
    Some(match kind {
        Kind::Str => SqlValue::Text(text[1..text.len() - 1].replace("''", "'")),
        Kind::Blob => {
            let hex = &text[2..text.len() - 1];
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                .collect::<Option<Vec<u8>>>()?;
            SqlValue::Blob(bytes)
        }
        _ => {
            if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                SqlValue::Integer(u64::from_str_radix(hex, 16).ok()? as i64)
            } else if let Ok(v) = text.parse::<i64>() {
                SqlValue::Integer(v)
            } else {
                SqlValue::Real(text.parse::<f64>().ok()?)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_become_parameters_but_not_result_columns() {
        let (sql, args) =
            bind_literals("SELECT a FROM t WHERE b = 'it''s' AND c > 1.5 ORDER BY 1 LIMIT 10")
                .unwrap();
        assert_eq!(
            sql,
            "SELECT a FROM t WHERE b = ? AND c > ? ORDER BY 1 LIMIT ?"
        );
        assert_eq!(
            args,
            [
                SqlValue::Text("it's".into()),
                SqlValue::Real(1.5),
                SqlValue::Integer(10)
            ]
        );
        assert_eq!(bind_literals("SELECT * FROM t WHERE a = ?"), None);
        let (_, blob) = bind_literals("INSERT INTO t VALUES (x'00ff', 0x10)").unwrap();
        assert_eq!(blob, [SqlValue::Blob(vec![0, 255]), SqlValue::Integer(16)]);
    }

    #[test]
    fn options_are_set_over_the_baseline() {
        let v = Variant {
            edits: vec![],
            options: vec![("journal_mode".into(), "wal".into())],
        };
        let base = vec![
            ("journal_mode".to_string(), "delete".to_string()),
            ("cache_size".to_string(), "-2000".to_string()),
        ];
        assert_eq!(
            v.options_over(&base),
            [
                ("cache_size".to_string(), "-2000".to_string()),
                ("journal_mode".to_string(), "wal".to_string())
            ]
        );
    }
}
