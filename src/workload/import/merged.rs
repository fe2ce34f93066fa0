//! A version 2 trace with several connections as the one stream `trace import
//! --merge-connections` writes from the same log: with arguments inline (version 1), for
//! replayers that read version 1 only (the JVM driver), or bound (version 2, one connection),
//! for `run --merge-connections`. The run records go back through the one conversion
//! ([`Converter`], merged) as the statements they were recorded from, so a transaction of one
//! connection is never interleaved with another's and the rules stay in one place.

use super::convert::{ArgsMode, Converter, Dangling, Rules};
use super::record::{ArgValue, BlobHex, Stamp, StatementRecord};
use super::schema::objects_of;
use super::sql::sqltext::inline_args;
use crate::error::{Error, Result};
use crate::workload::op::{Op, SqlValue, TimedOp};
use crate::workload::trace::{
    TraceItem, TraceReader, TraceTotals, TraceWriter, VERSION_1, VERSION_2,
};
use std::collections::BTreeMap;
use std::path::Path;

/// What the merge made of the trace.
#[derive(Debug)]
pub struct Merged {
    /// The connections merged into one stream.
    pub connections: u32,
    pub totals: TraceTotals,
    /// Statements the conversion left out, and why (none for a trace `trace import` wrote).
    pub dropped: BTreeMap<String, u64>,
}

impl Merged {
    /// What the merge made, for a progress line: "N connection(s) … (M statements[, K left
    /// out: …])", `how` in the middle.
    pub fn describe(&self, how: &str) -> String {
        let dropped: u64 = self.dropped.values().sum();
        format!(
            "{} connection(s) {how} ({} statements{})",
            self.connections,
            self.totals.run_ops,
            if dropped > 0 {
                format!(", {dropped} left out: {:?}", self.dropped)
            } else {
                String::new()
            }
        )
    }
}

/// The argument as a statement log gives it.
fn arg(v: &SqlValue) -> ArgValue {
    match v {
        SqlValue::Null => ArgValue::Null,
        SqlValue::Integer(i) => ArgValue::Integer(*i),
        SqlValue::Real(r) => ArgValue::Real(*r),
        SqlValue::Text(t) => ArgValue::Text(t.clone()),
        SqlValue::Blob(b) => ArgValue::Blob(BlobHex {
            blob: b.iter().map(|x| format!("{x:02x}")).collect(),
        }),
    }
}

/// The SQL of a load operation with its arguments written in.
fn inline(input: &Path, op: Op) -> Result<Op> {
    match op {
        Op::SqlArgs { sql, args } => Ok(Op::Sql {
            sql: inline_args(&sql, &args).ok_or_else(|| {
                Error::input(format!(
                    "{}: a load statement has fewer arguments than parameters",
                    input.display()
                ))
            })?,
        }),
        op => Ok(op),
    }
}

/// The run record as the statement it was recorded from.
fn statement(input: &Path, t: TimedOp) -> Result<StatementRecord> {
    let (sql, args) = match t.op {
        Op::Sql { sql } => (sql, None),
        Op::SqlArgs { sql, args } => (sql, Some(args.iter().map(arg).collect())),
        _ => {
            return Err(Error::input(format!(
                "{}: not a SQL trace: only SQL traces have connections to merge",
                input.display()
            )))
        }
    };
    let r = t.recorded.unwrap_or_default();
    Ok(StatementRecord {
        t_ns: r.offset_ns,
        stamp: Stamp::Start,
        dur_ns: r.dur_ns,
        conn: Some(r.conn.to_string()),
        sql,
        args,
        ..Default::default()
    })
}

/// Write `input` (a version 2 SQL trace) to `output` as one stream with arguments inline.
pub fn to_v1(input: &Path, output: &Path) -> Result<Merged> {
    merge(input, output, ArgsMode::Inline)
}

/// Write `input` (a version 2 SQL trace) to `output` as one stream, its arguments bound
/// (version 2, one connection) or inline (version 1), as `trace import --merge-connections`
/// would have written the same log (`run --merge-connections`).
pub fn merge(input: &Path, output: &Path, args: ArgsMode) -> Result<Merged> {
    let mut reader = TraceReader::open(input)?;
    let mut header = reader.header().clone();
    let connections = header.import.as_ref().map_or(1, |i| i.connections.max(1));
    if let Some(i) = header.import.as_mut() {
        i.connections = 1;
        if args == ArgsMode::Inline {
            i.args = "inline".into();
        }
    }
    let version = match args {
        ArgsMode::Inline => VERSION_1,
        ArgsMode::Bind => VERSION_2,
    };
    let mut writer = TraceWriter::create(output, &header, version)?;
    let mut load = Vec::new();
    let mut first_run = None;
    while let Some(item) = reader.next_item()? {
        match item {
            TraceItem::Load(op) => {
                let op = match args {
                    ArgsMode::Inline => inline(input, op)?,
                    ArgsMode::Bind => op,
                };
                if let Op::Sql { sql } | Op::SqlArgs { sql, .. } = &op {
                    load.push(sql.clone());
                }
                writer.write_load(&op)?;
            }
            TraceItem::Run(t) => {
                first_run = Some(t);
                break;
            }
        }
    }
    let objects = objects_of(&load);
    let rules = Rules {
        args,
        dangling: Dangling::Commit,
        merge_connections: true,
        window: None,
        max_gap_ns: None,
        speed: 1.0,
    };
    let mut conv = Converter::new(&rules, &objects);
    let mut emit = |t: TimedOp| writer.write_run(&t);
    if let Some(t) = first_run {
        conv.feed(statement(input, t)?, &mut emit)?;
        while let Some(item) = reader.next_item()? {
            if let TraceItem::Run(t) = item {
                conv.feed(statement(input, t)?, &mut emit)?;
            }
        }
    }
    let converted = conv.finish(&mut emit)?;
    Ok(Merged {
        connections,
        totals: writer.finish()?,
        dropped: converted.dropped,
    })
}
