//! The flash micro-benchmark (after the flash study): a two-column table (short integer
//! primary key, random string); for each request type (INSERT, SELECT, JOIN on two tables by
//! key, UPDATE), record size and request count, a fresh database (pre-filled for SELECT, JOIN
//! and UPDATE), caches evicted, BEGIN / every request / END timed one by one, and the modelled
//! NAND flash reads, programs and erases of each. See `docs/flash.md`.

pub mod cell;
pub mod report;

use crate::error::{Result, ResultExt};
use crate::flash::config::ModelConfig;
use crate::flash::counters::{Derived, FlashCounters};
use crate::flash::device::Device;
use crate::stats::{LatencyHistogram, LatencySummary};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Request {
    /// INSERT of one record.
    Insert,
    /// SELECT of one record by key.
    Select,
    /// A two-table JOIN on the key.
    Join,
    /// UPDATE of one record.
    Update,
}

impl Request {
    pub fn name(self) -> &'static str {
        match self {
            Self::Insert => "insert",
            Self::Select => "select",
            Self::Join => "join",
            Self::Update => "update",
        }
    }
}

/// Everything a flashbench run was asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    pub requests: Vec<Request>,
    pub record_sizes: Vec<u32>,
    pub counts: Vec<u32>,
    /// SQLite page size (the study: 1024, SQLite's default then).
    pub page_size: u32,
    pub journal_mode: String,
    pub synchronous: String,
    pub model: ModelConfig,
    pub seed: u64,
    /// Where the cells' databases go (a temporary directory inside it).
    pub dir: PathBuf,
}

/// One cell's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
    pub request: Request,
    pub record_size: u32,
    pub count: u32,
    pub begin_us: f64,
    pub end_us: f64,
    /// Per-request service time, µs.
    pub request_us: LatencySummary,
    pub requests_total_us: f64,
    /// BEGIN + requests + END.
    pub total_us: f64,
    /// count × record size / total time.
    pub throughput_kb_s: f64,
    /// Modelled flash work: BEGIN, the requests together, END, and all of it.
    pub flash_begin: FlashCounters,
    pub flash_requests: FlashCounters,
    pub flash_end: FlashCounters,
    pub flash_total: FlashCounters,
    /// Per KB of request data (count × record size).
    pub flash_per_kb: Derived,
    pub db_bytes: u64,
    pub cache: String,
}

/// A whole flashbench run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlashbenchRun {
    pub id: i64,
    pub created_at: String,
    pub tool_version: String,
    pub sqlite_version: String,
    pub note: String,
    pub settings: Settings,
    pub model: String,
    pub cells: Vec<CellResult>,
}

/// Series name of a cell's per-request data in the results store.
pub fn series_name(c: &CellResult, what: &str) -> String {
    format!("{}/{}/{}/{what}", c.request.name(), c.record_size, c.count)
}

/// Named per-request series: `REQUEST/SIZE/COUNT/{ns,reads,programs,erases}`.
pub type Series = Vec<(String, Vec<u64>)>;

/// Run every cell; `progress` sees (done, total). Returns the run and its per-request series.
pub fn run(
    s: &Settings,
    mut progress: impl FnMut(usize, usize),
) -> Result<(FlashbenchRun, Series)> {
    let work = crate::platform::cleanup::TempDir::new("pocketbench-flashbench-", Some(&s.dir))
        .input_err(format!("--dir {}", s.dir.display()))?;
    let device = Device::new(&s.model);
    let total = s.requests.len() * s.record_sizes.len() * s.counts.len();
    let mut cells = Vec::with_capacity(total);
    let mut series = Vec::new();
    for &req in &s.requests {
        for &size in &s.record_sizes {
            for &count in &s.counts {
                progress(cells.len(), total);
                let dir = work.path().join(format!("{}-{size}-{count}", req.name()));
                std::fs::create_dir(&dir).run_err(format!("creating {}", dir.display()))?;
                let r = cell::run(&dir, s, &device, req, size, count)?;
                std::fs::remove_dir_all(&dir).run_err(format!("removing {}", dir.display()))?;
                let c = summarise(s, req, size, count, &r);
                series.push((series_name(&c, "ns"), r.request_ns));
                for (i, what) in ["reads", "programs", "erases"].iter().enumerate() {
                    let v = r.request_flash.iter().map(|f| f[i]).collect();
                    series.push((series_name(&c, what), v));
                }
                cells.push(c);
            }
        }
    }
    progress(total, total);
    Ok((
        FlashbenchRun {
            id: 0,
            created_at: crate::platform::clock::utc_now(),
            tool_version: crate::TOOL_VERSION.to_string(),
            sqlite_version: rusqlite::version().to_string(),
            note: crate::flash::MODELLED.to_string(),
            settings: s.clone(),
            model: s.model.describe(),
            cells,
        },
        series,
    ))
}

fn summarise(s: &Settings, req: Request, size: u32, count: u32, r: &cell::CellRun) -> CellResult {
    let mut h = LatencyHistogram::default();
    for &ns in &r.request_ns {
        h.record(ns);
    }
    let req_total: u64 = r.request_ns.iter().sum();
    let total = r.begin_ns + req_total + r.end_ns;
    let kb = f64::from(count) * f64::from(size) / 1024.0;
    let mut all = r.begin_flash;
    all += r.requests_flash;
    all += r.end_flash;
    let us = |ns: u64| (ns as f64 / 10.0).round() / 100.0;
    CellResult {
        request: req,
        record_size: size,
        count,
        begin_us: us(r.begin_ns),
        end_us: us(r.end_ns),
        request_us: h.summary(),
        requests_total_us: us(req_total),
        total_us: us(total),
        throughput_kb_s: if total == 0 {
            0.0
        } else {
            (kb / (total as f64 / 1e9) * 10.0).round() / 10.0
        },
        flash_begin: r.begin_flash,
        flash_requests: r.requests_flash,
        flash_end: r.end_flash,
        flash_total: all,
        flash_per_kb: all.derived(s.model.page_size, s.model.pages_per_block, Some(kb)),
        db_bytes: r.db_bytes,
        cache: r.cache.clone(),
    }
}
