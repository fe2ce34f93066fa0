//! `trace stats FILE`: the statistics of [`stats`](super) from a trace (any version;
//! an imported one's header gives the source and what was dropped) or straight from a log
//! (auto-detected or `--format`), and their text form.

use super::{Collector, Event, Stats, Top};
use crate::error::Result;
use crate::workload::import::{source, LogRecord};
use crate::workload::op::{Op, TimedOp};
use crate::workload::trace::{TraceHeader, TraceItem, TraceReader, MAGIC};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::io::Read;
use std::path::Path;

fn is_trace(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|_| &magic == MAGIC)
}

/// The statistics of a trace or a log (`format`: a front end's name or `auto`; ignored for a
/// trace).
pub fn of_file(path: &Path, format: &str) -> Result<Stats> {
    if is_trace(path) {
        of_trace(path)
    } else if crate::workload::import::AVAILABLE {
        of_log(path, format)
    } else {
        Err(crate::workload::import::unavailable(&format!(
            "trace stats {}: not a trace, and reading a log",
            crate::limits::escape(&path.display().to_string())
        )))
    }
}

fn of_trace(path: &Path) -> Result<Stats> {
    let reader = TraceReader::open(path)?;
    let header = reader.header().clone();
    let mut feed = TraceFeed::new();
    for item in reader {
        match item? {
            TraceItem::Load(op) => feed.load(&op),
            TraceItem::Run(t) => feed.run(&t),
        }
    }
    Ok(feed.finish(path, &header))
}

/// The statistics of a trace's records, fed in the trace's order: what `trace stats` reads
/// from a trace, and what `trace import` feeds as it writes one (so it never reads it back).
pub struct TraceFeed {
    c: Collector,
    /// The time of a run record without its place in the recording: the delays before it.
    clock: u64,
    conn: String,
    /// The names of the first connections, made once.
    names: Vec<String>,
}

/// Connections whose names [`TraceFeed`] keeps made.
const NAMED_CONNECTIONS: usize = 256;

impl Default for TraceFeed {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceFeed {
    pub fn new() -> TraceFeed {
        TraceFeed {
            c: Collector::new(),
            clock: 0,
            conn: String::new(),
            names: Vec::new(),
        }
    }

    /// A load record: SQL is run on the classifying database.
    pub fn load(&mut self, op: &Op) {
        if let Op::Sql { sql } = op {
            self.c.schema(sql);
        }
    }

    /// A run record.
    pub fn run(&mut self, t: &TimedOp) {
        let kind;
        let (sql, readonly) = match &t.op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => (sql.as_str(), None),
            op => {
                kind = op.kind().name().to_ascii_uppercase();
                let reads = matches!(op, Op::Read { .. } | Op::Scan { .. });
                (kind.as_str(), Some(reads))
            }
        };
        let (conn, start, dur) = match t.recorded {
            Some(r) => (r.conn, r.offset_ns, r.dur_ns),
            None => (0, self.clock, None),
        };
        let conn = conn as usize;
        let name = if conn < NAMED_CONNECTIONS {
            while self.names.len() <= conn {
                self.names.push(self.names.len().to_string());
            }
            &self.names[conn]
        } else {
            self.conn.clear();
            let _ = write!(self.conn, "{conn}");
            &self.conn
        };
        self.c.add(Event {
            conn: name,
            start_ns: start,
            dur_ns: dur,
            sql,
            readonly,
        });
        self.clock = self.clock.saturating_add(t.delay_ns);
    }

    /// The statistics of the trace at `path` with `header`, once every record was fed.
    pub fn finish(self, path: &Path, header: &TraceHeader) -> Stats {
        let mut source = BTreeMap::from([
            ("file".to_string(), path.display().to_string()),
            ("kind".to_string(), "trace".to_string()),
            ("workload".to_string(), header.workload.name.clone()),
        ]);
        let mut dropped = BTreeMap::new();
        if let Some(i) = &header.import {
            source.insert("format".into(), i.format.clone());
            source.insert("log".into(), i.source.clone());
            source.insert("database".into(), i.db.clone());
            source.insert("schema".into(), i.schema.clone());
            if !i.anonymized.is_empty() {
                source.insert("anonymized".into(), i.anonymized.join(","));
            }
            dropped = i.dropped.clone();
        }
        let mut stats = self.c.finish(source);
        stats.dropped = dropped;
        stats
    }
}

fn of_log(path: &Path, format: &str) -> Result<Stats> {
    let fe = source::choose(path, format)?;
    let mut c = Collector::new();
    let counts = source::read(path, fe, &mut |r| {
        match r {
            LogRecord::Schema(s) => c.schema(&s.sql),
            LogRecord::Statement(s) => {
                let conn = s.conn.clone().unwrap_or_else(|| {
                    format!(
                        "{}/{}",
                        s.pid.map_or("?".into(), |p| p.to_string()),
                        s.tid.map_or("?".into(), |t| t.to_string())
                    )
                });
                c.add(Event {
                    conn: &conn,
                    start_ns: s.start_ns(),
                    dur_ns: s.dur_ns,
                    sql: &s.sql,
                    readonly: None,
                });
            }
        }
        Ok(())
    })?;
    let source = BTreeMap::from([
        ("file".to_string(), path.display().to_string()),
        ("kind".to_string(), "log".to_string()),
        ("format".to_string(), fe.name.to_string()),
    ]);
    let mut stats = c.finish(source);
    stats.lines = Some(counts.lines);
    stats.skipped_lines = Some(counts.skipped);
    stats.dropped = counts.dropped;
    Ok(stats)
}

fn ms(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

fn tops(out: &mut String, title: &str, tops: &[Top]) {
    let _ = writeln!(out, "{title}:");
    for t in tops {
        let _ = writeln!(
            out,
            "  {:>8}  {:>12}  {}",
            t.count,
            ms(t.total_ns),
            t.fingerprint.chars().take(100).collect::<String>()
        );
    }
}

/// The statistics as text.
pub fn render(s: &Stats) -> String {
    let mut out = String::new();
    let src: Vec<String> = s.source.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "source      {}", src.join(", "));
    if let (Some(l), Some(k)) = (s.lines, s.skipped_lines) {
        let _ = writeln!(out, "lines       {l} ({k} skipped)");
    }
    for (why, n) in &s.dropped {
        let _ = writeln!(out, "dropped     {n}: {why}");
    }
    let mix: Vec<String> = s.mix.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "statements  {} ({})", s.statements, mix.join(", "));
    let rw: Vec<String> = s
        .read_write
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let _ = writeln!(out, "sqlite      {} (sqlite3_stmt_readonly)", rw.join(", "));
    let t = &s.transactions;
    let _ = writeln!(
        out,
        "txns        {} ({} rolled back), statements mean {:.1} max {}, duration p50 {:.3} ms p99 {:.3} ms",
        t.count,
        t.rolled_back,
        t.statements_mean,
        t.statements_max,
        t.duration_us.p50 / 1e3,
        t.duration_us.p99 / 1e3
    );
    let g = &s.inter_arrival_us;
    let _ = writeln!(
        out,
        "arrivals    gap p50 {:.3} ms p90 {:.3} ms p99 {:.3} ms max {:.3} ms; {} bursts (longest {}), {} idle gaps ≥ 1 s ({} total, longest {})",
        g.p50 / 1e3,
        g.p90 / 1e3,
        g.p99 / 1e3,
        g.max / 1e3,
        s.bursts.count,
        s.bursts.longest,
        s.bursts.idle_gaps,
        ms(s.bursts.idle_ns),
        ms(s.bursts.longest_idle_ns)
    );
    let _ = writeln!(
        out,
        "conns       {} connection(s), at most {} statement(s) in flight",
        s.connections, s.max_in_flight
    );
    let d = &s.durations_us;
    let _ = writeln!(
        out,
        "durations   {} measured, p50 {:.3} ms p99 {:.3} ms max {:.3} ms",
        d.count,
        d.p50 / 1e3,
        d.p99 / 1e3,
        d.max / 1e3
    );
    let _ = writeln!(
        out,
        "replay      {} at the recorded pace ({} of it running statements)",
        ms(s.span_ns),
        ms(s.busy_ns)
    );
    if s.out_of_order > 0 {
        let _ = writeln!(
            out,
            "order       {} statement(s) stamped before the one before them",
            s.out_of_order
        );
    }
    tops(&mut out, "top by count", &s.top_by_count);
    tops(&mut out, "top by time", &s.top_by_time);
    out
}
