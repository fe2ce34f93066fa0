//! The `phonelab` front end: the `SQLite-Query-PhoneLab` lines of PhoneLab's logcat archives
//! (the logs PocketData's workloads were distilled from).
//!
//! A line is tab-separated: device id, UNIX time (ms), ordering (`ms.n`), the device's date and
//! time (`2015-03-22 12:05:29.324000`), pid, tid, level, tag, and the message; some tool
//! chains add columns (boot id, loss flag, a per-CPU clock) before the date, so the columns
//! are found by the tag rather than by position. The message is JSON written by PhoneLab's
//! instrumented SQLite framework after a statement ran:
//!
//! * `{"Counter":168,"LogFormat":"1.0","Time":1152240,"Arguments":"[1, x]","Results":"SELECT …",
//!   "Action":"SELECT","Rows returned":0}`: `Time` is the statement's duration in ns,
//!   `Results` its SQL (sometimes prefixed `SQLiteProgram: `), `Arguments` the bound values as
//!   Java printed them (`null`, `[]`, `[a, b]` or `a,b,`), or `Arguments(hashCoded)` with
//!   strings replaced by their Java hash codes (kept as logged).
//! * `{"Action":"SCHEMA","TABLE_NAME":"t","SCHEMA":"cid:0,name:a,type:INTEGER,notnull:0,
//!   dflt_value:null,pk:1...cid:1,…"}`: a table's `PRAGMA table_info`, which becomes a
//!   `CREATE TABLE` schema record.
//!
//! The date column (µs) is the statement's end (`stamp: end`); the UNIX ms column stands in
//! when there is no date.

use super::logcat_line::dated_ns;
use super::{LineOutcome, LogFormat};
use crate::workload::import::{ArgValue, LogRecord, SchemaRecord, Stamp, StatementRecord};
use serde_json::Value;

pub const TAG: &str = "SQLite-Query-PhoneLab";

/// The `phonelab` front end.
#[derive(Debug, Default)]
pub struct PhoneLab {}

impl PhoneLab {
    pub fn new() -> Self {
        Self::default()
    }
}

/// `[1, x]`, `a,b,`, `null`, `[]` → values typed by their look (an integer, a real, `null`,
/// else text): Java printed them all alike.
pub fn parse_arguments(s: &str) -> Option<Vec<ArgValue>> {
    if s == "null" {
        return None;
    }
    let inner = s
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(s);
    let sep = if s.starts_with('[') { ", " } else { "," };
    Some(
        inner
            .split(sep)
            .filter(|v| !v.is_empty())
            .map(|v| match (v, v.parse::<i64>(), v.parse::<f64>()) {
                ("null", _, _) => ArgValue::Null,
                (_, Ok(i), _) => ArgValue::Integer(i),
                (_, _, Ok(f)) if f.is_finite() => ArgValue::Real(f),
                _ => ArgValue::Text(v.to_string()),
            })
            .collect(),
    )
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `cid:0,name:a,type:INTEGER,notnull:1,dflt_value:null,pk:1...cid:1,…` → `CREATE TABLE`.
pub fn create_table(table: &str, schema: &str) -> Option<String> {
    let mut cols = Vec::new();
    let mut pks: Vec<(u32, String)> = Vec::new();
    for col in schema.split("...").filter(|c| !c.is_empty()) {
        let mut name = None;
        let mut ty = "";
        let mut notnull = false;
        let mut default = None;
        let mut pk = 0;
        // `dflt_value` may hold commas; every other field is a plain word.
        let mut rest = col;
        while !rest.is_empty() {
            let (key, after) = rest.split_once(':')?;
            let next = [",name:", ",type:", ",notnull:", ",dflt_value:", ",pk:"]
                .iter()
                .filter_map(|k| after.find(k))
                .min()
                .unwrap_or(after.len());
            let value = &after[..next];
            match key {
                "name" => name = Some(value),
                "type" => ty = value,
                "notnull" => notnull = value == "1",
                "dflt_value" if value != "null" => default = Some(value),
                "pk" => pk = value.parse().unwrap_or(0),
                _ => {}
            }
            rest = after[next..].strip_prefix(',').unwrap_or("");
        }
        let name = name?;
        let mut def = quote_ident(name);
        if !ty.is_empty() {
            def.push(' ');
            def.push_str(ty);
        }
        if notnull {
            def.push_str(" NOT NULL");
        }
        if let Some(d) = default {
            def.push_str(" DEFAULT ");
            def.push_str(d);
        }
        if pk > 0 {
            pks.push((pk, quote_ident(name)));
        }
        cols.push(def);
    }
    if cols.is_empty() {
        return None;
    }
    pks.sort();
    if !pks.is_empty() {
        let names: Vec<String> = pks.into_iter().map(|(_, n)| n).collect();
        cols.push(format!("PRIMARY KEY({})", names.join(", ")));
    }
    Some(format!(
        "CREATE TABLE {}({})",
        quote_ident(table),
        cols.join(", ")
    ))
}

impl LogFormat for PhoneLab {
    fn name(&self) -> &'static str {
        "phonelab"
    }

    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let cols: Vec<&str> = line.split('\t').collect();
        let Some(tag_at) = cols.iter().position(|c| *c == TAG) else {
            return LineOutcome::Skipped;
        };
        if tag_at < 3 || tag_at + 1 >= cols.len() {
            return LineOutcome::Dropped("SQLite-Query-PhoneLab line without its columns");
        }
        let msg = cols[tag_at + 1..].join("\t");
        let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&msg) else {
            return LineOutcome::Dropped("message is not a JSON object (cut short?)");
        };
        let text = |k: &str| m.get(k).and_then(Value::as_str);
        let action = text("Action").unwrap_or("");
        if action == "SCHEMA" {
            let (Some(table), Some(schema)) = (text("TABLE_NAME"), text("SCHEMA")) else {
                return LineOutcome::Dropped("SCHEMA record without TABLE_NAME and SCHEMA");
            };
            let Some(sql) = create_table(table, schema) else {
                return LineOutcome::Dropped("SCHEMA record whose columns do not parse");
            };
            out.push(LogRecord::Schema(SchemaRecord {
                db: None,
                kind: "table".into(),
                name: table.to_string(),
                sql,
            }));
            return LineOutcome::Recognised;
        }
        let Some(sql) = text("Results") else {
            return LineOutcome::Dropped("record without its SQL (Results)");
        };
        let sql = sql.strip_prefix("SQLiteProgram: ").unwrap_or(sql).trim();
        if sql.is_empty() {
            return LineOutcome::Dropped("record with empty SQL");
        }
        // The columns before the tag: … date, pid, tid, level.
        let num = |i: usize| cols.get(i).and_then(|c| c.parse::<u32>().ok());
        let date_ns = cols[..tag_at].iter().find_map(|c| dated_ns(c));
        // A millisecond count past u64's nanoseconds (year 586 912) is no time.
        let ms_ns = cols[1]
            .parse::<u64>()
            .ok()
            .and_then(|ms| ms.checked_mul(1_000_000));
        let Some(t_ns) = date_ns.or(ms_ns) else {
            return LineOutcome::Dropped("line without a time (date or UNIX ms column)");
        };
        let args = text("Arguments")
            .or_else(|| text("Arguments(hashCoded)"))
            .and_then(parse_arguments);
        out.push(LogRecord::Statement(StatementRecord {
            t_ns,
            stamp: Stamp::End,
            dur_ns: m.get("Time").and_then(Value::as_u64),
            pid: num(tag_at - 3),
            tid: num(tag_at - 2),
            sql: sql.to_string(),
            args: args.filter(|a| !a.is_empty()),
            rows: m.get("Rows returned").and_then(Value::as_u64),
            ..Default::default()
        }));
        LineOutcome::Recognised
    }

    fn finish(&mut self, _out: &mut Vec<LogRecord>) {}
}
