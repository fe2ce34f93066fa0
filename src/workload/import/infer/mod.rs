//! `trace import --infer-schema`: a schema guessed from the statements themselves, for a log
//! that comes with none. It owns the guess: which tables the statements name (`FROM`, `JOIN`,
//! `INTO`, `UPDATE`), their columns (`INSERT` column lists, `SET`, `WHERE` comparisons, the
//! select list, qualified `alias.column`), each column's affinity from the values it was
//! compared with or given (literals and bound arguments), and rows synthesised from those
//! values so that the trace's reads find data.
//!
//! Lexical only (the statements are read with [`lexer`](crate::workload::import::sql::lexer), never parsed into a tree):
//! what it cannot place it leaves out, and `--check` shows what then fails. Every size is
//! bounded (docs/limits.md): tables, columns per table, values kept per column, and the bytes
//! of values kept in all.

pub mod tokens;

use crate::limits::{
    MAX_INFERRED_COLUMNS, MAX_INFERRED_TABLES, MAX_INFERRED_VALUES, MAX_INFERRED_VALUE_BYTES,
};
use crate::workload::import::record::StatementRecord;
use crate::workload::import::sql::words::kept_word;
use crate::workload::op::{Op, SqlValue};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use tokens::{comparison_at, reduce, T};

/// One inferred column: its name (as first seen), the kinds of value seen, the values kept.
#[derive(Debug, Default)]
struct Column {
    name: String,
    /// Bits: 1 integer, 2 real, 4 text, 8 blob.
    kinds: u8,
    values: Vec<SqlValue>,
    keys: HashSet<String>,
}

#[derive(Debug, Default)]
struct Table {
    name: String,
    columns: Vec<Column>,
    /// Columns by position of `INSERT INTO t VALUES(…)` without a column list.
    positional: Vec<Column>,
}

impl Table {
    fn column(&mut self, name: &str) -> Option<&mut Column> {
        let at = self
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name));
        let at = match at {
            Some(i) => i,
            None if (self.columns.len() as u64) < MAX_INFERRED_COLUMNS => {
                self.columns.push(Column {
                    name: name.to_string(),
                    ..Column::default()
                });
                self.columns.len() - 1
            }
            None => return None,
        };
        self.columns.get_mut(at)
    }
}

/// An inferred table as `trace import` reports it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InferredTable {
    pub table: String,
    /// (column, affinity): `INTEGER`, `REAL`, `TEXT`, `BLOB`, or empty when no value was seen.
    pub columns: Vec<(String, String)>,
    pub rows: u64,
}

/// The inference, fed the chosen database's statements in log order.
#[derive(Debug, Default)]
pub struct Inference {
    tables: BTreeMap<String, Table>,
    /// Tables a `CREATE TABLE` in the log (or the schema given) makes: left to it.
    created: HashSet<String>,
    /// Bytes of values kept so far.
    bytes: u64,
}

/// Words after which a name is a table.
const TABLE_AFTER: &[&str] = &["FROM", "JOIN", "INTO", "UPDATE"];

impl Inference {
    /// Tables already made by the schema given or the log's schema records.
    pub fn new(existing: &HashSet<(String, String)>) -> Self {
        Inference {
            created: existing
                .iter()
                .filter(|(k, _)| k == "table")
                .map(|(_, n)| n.clone())
                .collect(),
            ..Inference::default()
        }
    }

    /// Read one statement of the chosen database.
    pub fn feed(&mut self, s: &StatementRecord) {
        if let Some((kind, name)) = crate::workload::import::sql::sqltext::created_object(&s.sql) {
            if kind == "table" {
                self.tables.remove(&name);
                self.created.insert(name);
            }
            return;
        }
        let args: Vec<SqlValue> = s
            .args
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(crate::workload::import::convert::value)
            .collect();
        let toks = reduce(&s.sql, &args);
        self.statement(&toks);
    }

    fn observe(
        &mut self,
        table: &str,
        column: Option<&str>,
        position: usize,
        v: Option<&SqlValue>,
    ) {
        let key = table.to_ascii_lowercase();
        if self.created.contains(&key) || key.starts_with("sqlite_") {
            return;
        }
        if !self.tables.contains_key(&key) && (self.tables.len() as u64) >= MAX_INFERRED_TABLES {
            return;
        }
        let t = self.tables.entry(key).or_insert_with(|| Table {
            name: table.to_string(),
            ..Table::default()
        });
        let col = match column {
            Some(c) => match t.column(c) {
                Some(c) => c,
                None => return,
            },
            None if (position as u64) < MAX_INFERRED_COLUMNS => {
                while t.positional.len() <= position {
                    t.positional.push(Column::default());
                }
                &mut t.positional[position]
            }
            None => return,
        };
        let Some(v) = v else { return };
        col.kinds |= kind_bit(v);
        let size = match v {
            SqlValue::Text(t) => t.len() as u64,
            SqlValue::Blob(b) => b.len() as u64,
            _ => 8,
        };
        if matches!(v, SqlValue::Null)
            || (col.values.len() as u64) >= MAX_INFERRED_VALUES
            || self.bytes + size > MAX_INFERRED_VALUE_BYTES
        {
            return;
        }
        if col.keys.insert(v.literal()) {
            col.values.push(v.clone());
            self.bytes += size;
        }
    }

    fn statement(&mut self, toks: &[T]) {
        let verb = match toks.first() {
            Some(T::Word(up, _)) => up.as_str(),
            _ => return,
        };
        if !matches!(
            verb,
            "SELECT" | "INSERT" | "REPLACE" | "UPDATE" | "DELETE" | "WITH"
        ) {
            return;
        }
        // Tables (with their alias, and whether an INSERT writes it); the aliases of the
        // select list (`AS n`) are no columns.
        let mut tables: Vec<(String, Option<String>, bool)> = Vec::new();
        let mut skip: HashSet<usize> = HashSet::new();
        let mut aliases: HashSet<String> = HashSet::new();
        let mut in_from = false;
        for i in 0..toks.len() {
            if toks[i].is("AS") {
                if let Some(n) = toks.get(i + 1).and_then(T::name) {
                    aliases.insert(n.to_ascii_lowercase());
                    skip.insert(i + 1);
                }
            }
            let after_table =
                TABLE_AFTER.iter().any(|w| toks[i].is(w)) || (in_from && toks[i].punct(","));
            match &toks[i] {
                T::Word(up, _) if kept_word(up) => in_from = up == "FROM",
                T::Punct(p) if p == "(" || p == ")" => in_from = false,
                _ => {}
            }
            if !after_table {
                continue;
            }
            let mut j = i + 1;
            while toks.get(j).is_some_and(|t| t.is("OR")) {
                j += 2; // UPDATE OR REPLACE
            }
            if toks.get(j + 1).is_some_and(|t| t.punct(".")) {
                skip.insert(j); // main.t, temp.t
                j += 2;
            }
            let Some(name) = toks.get(j).and_then(T::name) else {
                continue;
            };
            let into = toks[i].is("INTO");
            if toks.get(j + 1).is_some_and(|t| t.punct("(")) && !into {
                continue; // a table-valued function
            }
            skip.insert(j);
            let mut alias = None;
            let at = if toks.get(j + 1).is_some_and(|t| t.is("AS")) {
                j + 2
            } else {
                j + 1
            };
            if let Some(a) = toks.get(at).and_then(T::name) {
                alias = Some(a.to_ascii_lowercase());
                skip.insert(at);
            }
            tables.push((name.to_string(), alias, into));
        }
        // Unqualified columns go to a table read (not the one an INSERT … SELECT writes).
        // Every table named exists, columns or not (`DELETE FROM log`): no column and a
        // position beyond the limit record the table alone.
        for (name, _, _) in &tables {
            self.observe(name, None, usize::MAX, None);
        }
        let Some(first) = tables
            .iter()
            .find(|t| !t.2)
            .or(tables.first())
            .map(|t| t.0.clone())
        else {
            return;
        };
        let resolve = |q: &str| {
            tables
                .iter()
                .find(|(n, a, _)| a.as_deref() == Some(q) || n.eq_ignore_ascii_case(q))
                .map(|(n, _, _)| n.clone())
        };
        let mut i = 0;
        while i < toks.len() {
            if toks[i].is("INTO") {
                i = self.insert(toks, i, &mut skip);
                continue;
            }
            let Some(name) = toks[i].name().map(str::to_string) else {
                i += 1;
                continue;
            };
            let qualified = toks.get(i + 1).is_some_and(|t| t.punct("."));
            if !qualified && (skip.contains(&i) || aliases.contains(&name.to_ascii_lowercase())) {
                i += 1;
                continue;
            }
            let (table, column, at) = if qualified {
                let Some(c) = toks.get(i + 2).and_then(T::name) else {
                    i += 2;
                    continue;
                };
                match resolve(&name.to_ascii_lowercase()) {
                    Some(t) => (t, c.to_string(), i + 2),
                    None => {
                        i += 3;
                        continue;
                    }
                }
            } else if toks.get(i + 1).is_some_and(|t| t.punct("(")) {
                i += 1; // a function
                continue;
            } else {
                let owner = tables
                    .iter()
                    .find(|(n, _, into)| {
                        !into
                            && self.tables.get(&n.to_ascii_lowercase()).is_some_and(|t| {
                                t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&name))
                            })
                    })
                    .map_or(first.clone(), |(n, _, _)| n.clone());
                (owner, name, i)
            };
            let values = self.values_after(toks, at + 1);
            if values.is_empty() {
                self.observe(&table, Some(&column), 0, None);
            }
            for v in &values {
                self.observe(&table, Some(&column), 0, Some(v));
            }
            i = at + 1;
        }
    }

    /// The values a column at `i - 1` is compared with: `= v`, `IN (v, …)`, `BETWEEN v AND v`.
    fn values_after(&self, toks: &[T], i: usize) -> Vec<SqlValue> {
        let val = |k: usize| match toks.get(k) {
            Some(T::Value(v)) => Some(v.clone()),
            _ => None,
        };
        if let Some(j) = comparison_at(toks, i) {
            return val(j).into_iter().collect();
        }
        let i = if toks.get(i).is_some_and(|t| t.is("NOT")) {
            i + 1
        } else {
            i
        };
        match toks.get(i) {
            Some(t) if t.is("BETWEEN") => [val(i + 1), val(i + 3)].into_iter().flatten().collect(),
            Some(t) if t.is("IN") && toks.get(i + 1).is_some_and(|t| t.punct("(")) => {
                let mut out = Vec::new();
                let mut k = i + 2;
                while let Some(v) = val(k) {
                    out.push(v);
                    if !toks.get(k + 1).is_some_and(|t| t.punct(",")) {
                        break;
                    }
                    k += 2;
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// `INTO name [(columns)] VALUES (…), …` at `i`: the columns and the values given them.
    /// Returns where the generic scan goes on.
    fn insert(&mut self, toks: &[T], i: usize, skip: &mut HashSet<usize>) -> usize {
        let mut j = i + 1;
        if toks.get(j + 1).is_some_and(|t| t.punct(".")) {
            j += 2;
        }
        let Some(table) = toks.get(j).and_then(T::name).map(str::to_string) else {
            return j;
        };
        skip.insert(j);
        j += 1;
        if toks.get(j).is_some_and(|t| t.is("AS")) {
            j += 2;
        }
        let mut columns: Vec<String> = Vec::new();
        if toks.get(j).is_some_and(|t| t.punct("(")) {
            j += 1;
            // In a column list every word is a column, keywords too (`date`, `key`).
            while let Some(T::Word(_, n) | T::Ident(n)) = toks.get(j) {
                columns.push(n.to_string());
                self.observe(&table, Some(n), 0, None);
                j += 1;
                if !toks.get(j).is_some_and(|t| t.punct(",")) {
                    break;
                }
                j += 1;
            }
            if !toks.get(j).is_some_and(|t| t.punct(")")) {
                return j;
            }
            j += 1;
        }
        if !toks.get(j).is_some_and(|t| t.is("VALUES")) {
            return j;
        }
        j += 1;
        while toks.get(j).is_some_and(|t| t.punct("(")) {
            j += 1;
            let mut position = 0;
            let mut depth = 0usize;
            let mut item: Vec<&T> = Vec::new();
            while let Some(t) = toks.get(j) {
                j += 1;
                let end = depth == 0 && (t.punct(",") || t.punct(")"));
                if !end {
                    depth = match t {
                        T::Punct(p) if p == "(" => depth + 1,
                        T::Punct(p) if p == ")" => depth.saturating_sub(1),
                        _ => depth,
                    };
                    item.push(t);
                    continue;
                }
                let value = match item[..] {
                    [T::Value(v)] => Some(v),
                    _ => None,
                };
                match columns.get(position) {
                    Some(c) => self.observe(&table, Some(c), 0, value),
                    None if columns.is_empty() => self.observe(&table, None, position, value),
                    None => {}
                }
                position += 1;
                item.clear();
                if t.punct(")") {
                    break;
                }
            }
            if !toks.get(j).is_some_and(|t| t.punct(",")) {
                break;
            }
            j += 1;
        }
        j
    }

    /// The tables inferred, each as its `CREATE TABLE` and the rows synthesised for it
    /// (`INSERT`s with bound values, or literals when `inline`).
    pub fn finish(mut self, inline: bool) -> (Vec<InferredTable>, Vec<Op>) {
        let mut report = Vec::new();
        let mut ops = Vec::new();
        let quote = |n: &str| format!("\"{}\"", n.replace('"', "\"\""));
        for t in self.tables.values_mut() {
            // Positional inserts need exactly that many columns: the named ones first, then
            // `c1`, `c2`, … (taking the positional values) up to the widest.
            let positional = std::mem::take(&mut t.positional);
            for (k, p) in positional.into_iter().enumerate() {
                if k >= t.columns.len() {
                    t.column(&format!("c{}", k + 1));
                }
                if let Some(c) = t.columns.get_mut(k) {
                    c.kinds |= p.kinds;
                    for v in p.values {
                        if (c.values.len() as u64) < MAX_INFERRED_VALUES
                            && c.keys.insert(v.literal())
                        {
                            c.values.push(v);
                        }
                    }
                }
            }
            if t.columns.is_empty() {
                // Named without a column (`DELETE FROM log`): a table needs one.
                t.column("c1");
            }
            let columns: Vec<(String, String)> = t
                .columns
                .iter()
                .map(|c| (c.name.clone(), affinity(c.kinds).to_string()))
                .collect();
            let defs: Vec<String> = columns
                .iter()
                .map(|(n, a)| format!("{} {a}", quote(n)).trim_end().to_string())
                .collect();
            ops.push(Op::Sql {
                sql: format!("CREATE TABLE {}({})", quote(&t.name), defs.join(", ")),
            });
            let rows = t.columns.iter().map(|c| c.values.len()).max().unwrap_or(0);
            let names: Vec<String> = t.columns.iter().map(|c| quote(&c.name)).collect();
            let insert = format!(
                "INSERT INTO {}({}) VALUES({})",
                quote(&t.name),
                names.join(","),
                vec!["?"; names.len()].join(",")
            );
            for r in 0..rows {
                let args: Vec<SqlValue> = t
                    .columns
                    .iter()
                    .map(|c| match c.values.len() {
                        0 => SqlValue::Null,
                        n => c.values[r % n].clone(),
                    })
                    .collect();
                ops.push(if inline {
                    Op::Sql {
                        sql: crate::workload::import::sql::sqltext::inline_args(&insert, &args)
                            .unwrap_or_default(),
                    }
                } else {
                    Op::SqlArgs {
                        sql: insert.clone(),
                        args,
                    }
                });
            }
            report.push(InferredTable {
                table: t.name.clone(),
                columns,
                rows: rows as u64,
            });
        }
        (report, ops)
    }
}

fn kind_bit(v: &SqlValue) -> u8 {
    match v {
        SqlValue::Null => 0,
        SqlValue::Integer(_) => 1,
        SqlValue::Real(_) => 2,
        SqlValue::Text(_) => 4,
        SqlValue::Blob(_) => 8,
    }
}

/// The declared type whose affinity fits the kinds of value seen.
fn affinity(kinds: u8) -> &'static str {
    match kinds {
        0 => "",
        1 => "INTEGER",
        2 | 3 => "REAL",
        4..=7 => "TEXT",
        8 => "BLOB",
        _ => "",
    }
}

#[cfg(test)]
mod tests;
