//! Printing and exporting flashbench results: one line per cell (response times, BEGIN/END,
//! throughput, modelled flash work per KB), a per-request table for one cell, CSV files of
//! both for plotting against request count per record size, and reading stored runs back for
//! the report's figures ([`stored`]).

use super::{CellResult, FlashbenchRun};
use crate::error::{Result, ResultExt};
use crate::platform::atomic_file::AtomicCsv;
use std::fmt::Write as _;
use std::path::Path;

const COLUMNS: &str = "request,record_size,count,begin_us,request_mean_us,request_p50_us,request_p95_us,request_p99_us,request_max_us,end_us,total_us,throughput_kb_s,flash_reads,flash_programs,flash_erases,gc_programs,flash_ms,reads_per_kb,programs_per_kb,erases_per_kb,erased_pages_per_kb,end_programs,end_erases,db_bytes";

fn csv_row(c: &CellResult) -> Vec<String> {
    let f = &c.flash_total;
    let d = &c.flash_per_kb;
    let o = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    [
        c.request.name().to_string(),
        c.record_size.to_string(),
        c.count.to_string(),
        c.begin_us.to_string(),
        c.request_us.mean.to_string(),
        c.request_us.p50.to_string(),
        c.request_us.p95.to_string(),
        c.request_us.p99.to_string(),
        c.request_us.max.to_string(),
        c.end_us.to_string(),
        c.total_us.to_string(),
        c.throughput_kb_s.to_string(),
        f.flash_reads().to_string(),
        f.flash_programs().to_string(),
        f.erases.to_string(),
        f.gc_programs.to_string(),
        (f.flash_ns as f64 / 1e6).to_string(),
        o(d.reads_per_kb),
        o(d.programs_per_kb),
        o(d.erases_per_kb),
        o(d.erased_pages_per_kb),
        c.flash_end.flash_programs().to_string(),
        c.flash_end.erases.to_string(),
        c.db_bytes.to_string(),
    ]
    .to_vec()
}

/// The terminal table.
pub fn render(r: &FlashbenchRun) -> String {
    let s = &r.settings;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} — flashbench on SQLite {} (page_size {}, journal_mode {}, synchronous {}), seed {}",
        r.tool_version, r.sqlite_version, s.page_size, s.journal_mode, s.synchronous, s.seed
    );
    let _ = writeln!(o, "flash      {} — MODELLED, not measured", r.model);
    let _ = writeln!(
        o,
        "cells      fresh database each, pre-filled for select/join/update; caches evicted ({})",
        r.cells.first().map_or("", |c| c.cache.as_str())
    );
    let _ = writeln!(
        o,
        "\n                             response time per request (µs)                         throughput   modelled flash per KB of request data"
    );
    let _ = writeln!(
        o,
        "request  size  count   BEGIN µs     mean      p50      p95      max      END µs      KB/s     reads  programs    erases  erased pages"
    );
    for c in &r.cells {
        let d = &c.flash_per_kb;
        let v = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.3}"));
        let _ = writeln!(
            o,
            "{:<8}{:>5} {:>6} {:>10.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>11.1} {:>9.1} {:>9} {:>9} {:>9} {:>13}",
            c.request.name(),
            c.record_size,
            c.count,
            c.begin_us,
            c.request_us.mean,
            c.request_us.p50,
            c.request_us.p95,
            c.request_us.max,
            c.end_us,
            c.throughput_kb_s,
            v(d.reads_per_kb),
            v(d.programs_per_kb),
            v(d.erases_per_kb),
            v(d.erased_pages_per_kb),
        );
    }
    if r.id > 0 {
        let _ = writeln!(o, "stored     flashbench run #{}", r.id);
    }
    o
}

/// The per-request table of one cell: index, service time, flash reads/programs/erases.
pub fn render_requests(c: &CellResult, ns: &[u64], flash: [&[u64]; 3]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} {} B × {}: BEGIN {:.1} µs, END {:.1} µs",
        c.request.name(),
        c.record_size,
        c.count,
        c.begin_us,
        c.end_us
    );
    let _ = writeln!(
        o,
        "request   time µs   flash reads  programs  erases (modelled)"
    );
    for (i, t) in ns.iter().enumerate() {
        let g = |k: usize| flash[k].get(i).copied().unwrap_or(0);
        let _ = writeln!(
            o,
            "{:>7} {:>9.1} {:>13} {:>9} {:>7}",
            i + 1,
            *t as f64 / 1000.0,
            g(0),
            g(1),
            g(2)
        );
    }
    o
}

/// The latest flashbench run in `store` and how many are stored, or None when there is none.
pub fn stored(store: &crate::results::store::Store) -> Result<Option<(FlashbenchRun, usize)>> {
    let conn = store.conn();
    let what = "results store: flashbench runs";
    let (count, id, text): (i64, Option<i64>, Option<String>) = conn
        .query_row(
            "SELECT count(*), max(id), (SELECT summary FROM runs WHERE kind = 'flashbench' ORDER BY id DESC LIMIT 1)
             FROM runs WHERE kind = 'flashbench'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .run_err(what)?;
    let (Some(id), Some(text)) = (id, text) else {
        return Ok(None);
    };
    let mut run: FlashbenchRun = serde_json::from_str(&text).run_err(what)?;
    run.id = id;
    Ok(Some((run, count as usize)))
}

/// Write the cells as CSV (atomically).
pub fn write_cells_csv(r: &FlashbenchRun, path: &Path) -> Result<()> {
    let header: Vec<&str> = COLUMNS.split(',').collect();
    let mut f = AtomicCsv::create(path, &header).input_err(format!("--csv {}", path.display()))?;
    let what = format!("writing {}", path.display());
    for c in &r.cells {
        f.row(csv_row(c)).run_err(&what)?;
    }
    f.commit().run_err(&what)
}

/// Write every request of every cell as CSV: `request,record_size,count,index,ns,reads,programs,erases`.
pub fn write_requests_csv(
    r: &FlashbenchRun,
    series: &dyn Fn(&CellResult, &str) -> Result<Vec<u64>>,
    path: &Path,
) -> Result<()> {
    let header = [
        "request",
        "record_size",
        "count",
        "index",
        "ns",
        "flash_reads",
        "flash_programs",
        "flash_erases",
    ];
    let mut f =
        AtomicCsv::create(path, &header).input_err(format!("--requests-csv {}", path.display()))?;
    let what = format!("writing {}", path.display());
    for c in &r.cells {
        let ns = series(c, "ns")?;
        let (rd, pr, er) = (
            series(c, "reads")?,
            series(c, "programs")?,
            series(c, "erases")?,
        );
        for (i, t) in ns.iter().enumerate() {
            let g = |v: &Vec<u64>| v.get(i).copied().unwrap_or(0);
            f.row([
                c.request.name().to_string(),
                c.record_size.to_string(),
                c.count.to_string(),
                (i + 1).to_string(),
                t.to_string(),
                g(&rd).to_string(),
                g(&pr).to_string(),
                g(&er).to_string(),
            ])
            .run_err(&what)?;
        }
    }
    f.commit().run_err(&what)
}
