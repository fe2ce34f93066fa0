//! `pocketbench flashbench`: run the flash micro-benchmark grid, store it, print and export it;
//! `--show [ID]` prints (and exports) a stored run instead.

use super::flash::FlashModelArgs;
use crate::bench_suites::flashbench::{self, report, CellResult, FlashbenchRun, Request, Settings};
use crate::bench_suites::parse_grid;
use crate::engine::options::EngineOptions;
use crate::error::{Error, Result};
use crate::output::progress;
use crate::quick;
use crate::results::{store::Store, suites};
use clap::Args;
use std::path::PathBuf;

const SUITE: &str = "flashbench";

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  pocketbench flashbench                                         the study's full grid (4 × 4 × 50 cells)\n  pocketbench flashbench --requests update --sizes 150 --counts 100..1000:100 --csv upd.csv\n  pocketbench flashbench --page-size 4096 --preset mlc-4k --flash precondition=fresh\n  pocketbench flashbench --show                                  the latest stored run\n  pocketbench flashbench --show --cell update:150:100          one cell's per-request table"
)]
pub struct FlashbenchArgs {
    /// Request types (comma list).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "insert,select,join,update"
    )]
    pub requests: Vec<Request>,
    /// Record sizes in bytes: comma list or A..B:STEP.
    #[arg(long, default_value = "150,300,450,600")]
    pub sizes: String,
    /// Requests per cell: comma list or A..B:STEP.
    #[arg(long, default_value = "100..5000:100")]
    pub counts: String,
    /// SQLite page size (the study used 1 KB, SQLite's default then).
    #[arg(long, default_value_t = 1024)]
    pub page_size: u32,
    /// SQLite journal mode (delete, truncate, persist, memory, wal, off).
    #[arg(long, default_value = "delete")]
    pub journal_mode: String,
    /// SQLite synchronous setting (off, normal, full, extra).
    #[arg(long, default_value = "full")]
    pub synchronous: String,
    #[command(flatten)]
    pub model: FlashModelArgs,
    /// Seed for keys and record contents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory for the cells' databases (default: the system temporary directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Results store.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Print a stored run (the latest without ID) instead of running.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "0")]
    pub show: Option<i64>,
    /// With --show: print this cell's per-request table (REQUEST:SIZE:COUNT).
    #[arg(long, requires = "show")]
    pub cell: Option<String>,
    /// Write one CSV row per cell to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Write one CSV row per request (time and modelled flash work) to this file.
    #[arg(long)]
    pub requests_csv: Option<PathBuf>,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `--journal-mode` / `--synchronous` checked against the SQLite engine's own option specs.
pub fn check_sqlite_option(key: &str, flag: &str, value: &str) -> Result<()> {
    let specs = crate::engine::sqlite::options::SPECS;
    EngineOptions::validate("sqlite", specs, &[(key.to_string(), value.to_string())])
        .map(|_| ())
        .map_err(|e| {
            let why = e.to_string();
            let why = why.rsplit(": ").next().unwrap_or_default().to_string();
            Error::input(format!("{flag} {value}: {why}"))
        })
}

fn settings(a: &FlashbenchArgs) -> Result<Settings> {
    let narrow = |v: Vec<u64>, flag: &str, max: u64| -> Result<Vec<u32>> {
        v.into_iter()
            .map(|x| {
                (x <= max)
                    .then_some(x as u32)
                    .ok_or_else(|| Error::input(format!("{flag} {x}: at most {max}")))
            })
            .collect()
    };
    if !a.page_size.is_power_of_two() || !(512..=65536).contains(&a.page_size) {
        return Err(Error::input(format!(
            "--page-size {}: must be a power of two from 512 to 65536",
            a.page_size
        )));
    }
    check_sqlite_option("journal_mode", "--journal-mode", &a.journal_mode)?;
    check_sqlite_option("synchronous", "--synchronous", &a.synchronous)?;
    let dir = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "--dir {}: not a directory",
            dir.display()
        )));
    }
    let record_sizes = narrow(parse_grid(&a.sizes, "--sizes")?, "--sizes", 1 << 20)?;
    let record_sizes = quick::cap_list("--sizes", record_sizes, u32::MAX, 2);
    let counts = narrow(parse_grid(&a.counts, "--counts")?, "--counts", 10_000_000)?;
    let counts = quick::cap_list("--counts", counts, quick::COUNT as u32, 2);
    let largest = largest_cell_bytes(&record_sizes, &counts)?;
    // A join cell fills two tables; the journal can hold a copy of what a transaction changes.
    crate::limits::check_free_space(&dir, largest.saturating_mul(3), "the largest cell")?;
    Ok(Settings {
        requests: a.requests.clone(),
        record_sizes,
        counts,
        page_size: a.page_size,
        journal_mode: a.journal_mode.clone(),
        synchronous: a.synchronous.clone(),
        model: a.model.config()?,
        seed: a.seed,
        dir,
    })
}

/// Bytes of records one cell holds (and keeps in memory as its values) at most.
pub const MAX_CELL_BYTES: u64 = 256 << 20;

/// The largest cell's records in bytes: refused (before any allocation) above
/// [`MAX_CELL_BYTES`], since each axis alone is bounded but their product is what one cell
/// writes and holds.
fn largest_cell_bytes(sizes: &[u32], counts: &[u32]) -> Result<u64> {
    let size = sizes.iter().copied().max().unwrap_or(0);
    let count = counts.iter().copied().max().unwrap_or(0);
    let bytes = u64::from(size) * u64::from(count);
    if bytes > MAX_CELL_BYTES {
        return Err(Error::input(format!(
            "--sizes × --counts: a cell of {count} records of {size} bytes holds {} \
             (at most {} per cell)",
            crate::limits::human(bytes),
            crate::limits::human(MAX_CELL_BYTES)
        )));
    }
    Ok(bytes)
}

pub fn main(a: &FlashbenchArgs) -> Result<i32> {
    progress::set_quiet(a.quiet || a.json);
    for (p, flag) in [(&a.csv, "--csv"), (&a.requests_csv, "--requests-csv")] {
        if let Some(p) = p {
            crate::output::target::check(p, flag)?;
        }
    }
    if let Some(id) = a.show {
        return show(a, (id > 0).then_some(id));
    }
    let s = settings(a)?;
    let mut store = Store::open(&a.results)?;
    let total = s.requests.len() * s.record_sizes.len() * s.counts.len();
    progress::phase(&format!(
        "flashbench: {total} cells ({})",
        s.model.describe()
    ));
    let (mut last, started) = (std::time::Instant::now(), std::time::Instant::now());
    let (mut r, series) = flashbench::run(&s, |done, total| {
        if (last.elapsed().as_secs() >= 5 || done == total) && done > 0 {
            // At the mean pace of the cells so far (cells grow with their count, so early
            // estimates run short).
            let left = started
                .elapsed()
                .mul_f64((total - done) as f64 / done as f64);
            progress::phase(&format!(
                "flashbench: {done}/{total} cells, {} elapsed, ~{} left",
                crate::output::units::clock(started.elapsed()),
                crate::output::units::clock(left)
            ));
            last = std::time::Instant::now();
        }
    })?;
    let value = serde_json::to_value(&r).map_err(|e| Error::failed(e.to_string()))?;
    r.id = suites::save(&mut store, SUITE, &r.created_at, &value, &series)?;
    let lookup = |c: &CellResult, what: &str| {
        let name = flashbench::series_name(c, what);
        Ok(series
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default())
    };
    output(a, &r, &lookup)
}

fn show(a: &FlashbenchArgs, id: Option<i64>) -> Result<i32> {
    let mut store = Store::open_existing(&a.results)?;
    let (id, mut r): (_, FlashbenchRun) = suites::load_as(&mut store, SUITE, id)?;
    r.id = id;
    let store = std::cell::RefCell::new(store);
    let lookup = |c: &CellResult, what: &str| {
        suites::series(
            &mut store.borrow_mut(),
            id,
            &flashbench::series_name(c, what),
        )
    };
    if let Some(spec) = &a.cell {
        let c = find_cell(&r, spec)?;
        let ns = lookup(c, "ns")?;
        let (rd, pr, er) = (
            lookup(c, "reads")?,
            lookup(c, "programs")?,
            lookup(c, "erases")?,
        );
        print!("{}", report::render_requests(c, &ns, [&rd, &pr, &er]));
        return Ok(0);
    }
    output(a, &r, &lookup)
}

fn find_cell<'a>(r: &'a FlashbenchRun, spec: &str) -> Result<&'a CellResult> {
    let bad = || {
        Error::input(format!(
            "--cell {spec}: expected REQUEST:SIZE:COUNT of a stored cell"
        ))
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let [req, size, count] = parts[..] else {
        return Err(bad());
    };
    let req = <Request as clap::ValueEnum>::from_str(req, false).map_err(|_| bad())?;
    let (size, count): (u32, u32) = (
        size.parse().map_err(|_| bad())?,
        count.parse().map_err(|_| bad())?,
    );
    r.cells
        .iter()
        .find(|c| c.request == req && c.record_size == size && c.count == count)
        .ok_or_else(bad)
}

fn output(
    a: &FlashbenchArgs,
    r: &FlashbenchRun,
    lookup: &dyn Fn(&CellResult, &str) -> Result<Vec<u64>>,
) -> Result<i32> {
    if let Some(p) = &a.csv {
        report::write_cells_csv(r, p)?;
    }
    if let Some(p) = &a.requests_csv {
        report::write_requests_csv(r, lookup, p)?;
    }
    if a.json {
        super::print_json(r)?;
    } else {
        print!("{}", report::render(r));
    }
    Ok(0)
}
