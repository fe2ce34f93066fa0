//! `pocketbench trace show`: a readable (or JSON) view of a trace — its header, totals, the
//! operation mix and delay statistics, and the first operations of each phase.

use super::{TraceItem, TraceReader, TraceTotals};
use crate::error::Result;
use crate::output::units::ns as fmt_ns;
use crate::workload::op::{Op, OpKind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Serialize)]
pub struct TraceOverview {
    /// The file's format version.
    pub version: u16,
    pub header: super::TraceHeader,
    pub totals: TraceTotals,
    pub digest: String,
    pub run_mix: BTreeMap<&'static str, u64>,
    pub delay_min_ns: u64,
    pub delay_max_ns: u64,
    pub delay_mean_ns: u64,
    pub first_load: Vec<String>,
    pub first_run: Vec<String>,
}

/// Read the whole trace (streaming) and summarise it, keeping the first `limit` operations of
/// each phase as text.
pub fn overview(path: &Path, limit: usize) -> Result<TraceOverview> {
    let mut reader = TraceReader::open(path)?;
    let mut mix: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut first_load, mut first_run) = (Vec::new(), Vec::new());
    let (mut dmin, mut dmax) = (u64::MAX, 0u64);
    while let Some(item) = reader.next_item()? {
        match item {
            TraceItem::Load(op) if first_load.len() < limit => first_load.push(describe(&op)),
            TraceItem::Load(_) => {}
            TraceItem::Run(t) => {
                *mix.entry(t.op.kind().name()).or_default() += 1;
                dmin = dmin.min(t.delay_ns);
                dmax = dmax.max(t.delay_ns);
                if first_run.len() < limit {
                    let at = t.recorded.map_or(String::new(), |r| {
                        format!("conn {} at {}  ", r.conn, fmt_ns(r.offset_ns))
                    });
                    first_run.push(format!(
                        "{at}{}  then {}",
                        describe(&t.op),
                        fmt_ns(t.delay_ns)
                    ));
                }
            }
        }
    }
    let totals = reader.totals().unwrap_or_default();
    Ok(TraceOverview {
        version: reader.version(),
        header: reader.header().clone(),
        digest: totals.digest_hex(),
        totals,
        run_mix: mix,
        delay_min_ns: if totals.run_ops == 0 { 0 } else { dmin },
        delay_max_ns: dmax,
        delay_mean_ns: totals
            .total_delay_ns
            .checked_div(totals.run_ops)
            .unwrap_or(0),
        first_load,
        first_run,
    })
}

/// Terminal rendering of an overview.
pub fn render(o: &TraceOverview) -> String {
    let mut s = String::new();
    let w = &o.header.workload;
    let _ = writeln!(
        s,
        "trace      {} (format v{}, digest {})",
        w.name, o.version, o.digest
    );
    let _ = writeln!(
        s,
        "source     {}   generator {}",
        w.source, o.header.generator
    );
    let _ = writeln!(s, "seed       {}   delay {}", o.header.seed, o.header.delay);
    let _ = writeln!(s, "load       {} operations", o.totals.load_ops);
    let _ = writeln!(
        s,
        "run        {} operations, delays total {}",
        o.totals.run_ops,
        fmt_ns(o.totals.total_delay_ns)
    );
    let _ = writeln!(
        s,
        "delay      min {}  mean {}  max {}",
        fmt_ns(o.delay_min_ns),
        fmt_ns(o.delay_mean_ns),
        fmt_ns(o.delay_max_ns)
    );
    let mix: Vec<String> = o
        .run_mix
        .iter()
        .map(|(k, n)| {
            format!(
                "{k} {n} ({:.1}%)",
                100.0 * *n as f64 / o.totals.run_ops.max(1) as f64
            )
        })
        .collect();
    let _ = writeln!(s, "mix        {}", mix.join(", "));
    for (k, v) in &w.params {
        let _ = writeln!(s, "param      {k} = {v}");
    }
    section(&mut s, "first load operations", &o.first_load);
    section(&mut s, "first run operations", &o.first_run);
    s
}

fn section(s: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n{title}:");
    for (i, l) in lines.iter().enumerate() {
        let _ = writeln!(s, "  {i:>4}  {l}");
    }
}

/// One operation as text.
pub fn describe(op: &Op) -> String {
    let field = |f: &Option<u16>| f.map_or("all fields".to_string(), |i| format!("field{i}"));
    match op {
        Op::Read { key } => format!("read key#{key}"),
        Op::Scan { key, len } => format!("scan key#{key} len {len}"),
        Op::Update {
            key,
            field: f,
            seed,
        } => format!("update key#{key} {} seed {seed:#x}", field(f)),
        Op::ReadModifyWrite {
            key,
            field: f,
            seed,
        } => {
            format!("readmodifywrite key#{key} {} seed {seed:#x}", field(f))
        }
        Op::Insert { key, seed } => format!("insert key#{key} seed {seed:#x}"),
        Op::Sql { sql } => format!("{}: {}", OpKind::of_sql(sql).name(), truncate(sql, 100)),
        Op::SqlArgs { sql, args } => {
            let values: Vec<String> = args.iter().map(|a| truncate(&a.literal(), 40)).collect();
            format!(
                "{}: {}  [{}]",
                OpKind::of_sql(sql).name(),
                truncate(sql, 100),
                values.join(", ")
            )
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}
