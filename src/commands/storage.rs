//! `pocketbench storage`: AndroBench/Mobibench-style file I/O and SQLite transaction suites
//! and the calibration table on a directory; stored in the results store; `--show [ID]`
//! prints a stored run.

use super::flashbench::check_sqlite_option;
use crate::bench_suites::storage::file::SyncMode;
use crate::bench_suites::storage::sqlite_tx::TxSettings;
use crate::bench_suites::storage::{self, report, Part, Settings, StorageRun, WriteLayout};
use crate::error::{Error, Result};
use crate::output::progress;
use crate::output::units::parse_size;
use crate::results::{store::Store, suites};
use clap::Args;
use std::path::PathBuf;

const SUITE: &str = "storage";

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  pocketbench storage                                    AndroBench defaults on the current directory\n  pocketbench storage --dir /data/local/tmp --sync none,osync,fsync,fdatasync,direct,mmap\n  pocketbench storage --tests seq-write,rand-write --threads 1,2,4 --runs 5\n  pocketbench storage --tests mobibench --journal-mode wal --synchronous normal\n  pocketbench storage --show --json"
)]
pub struct StorageArgs {
    /// Directory to measure (a private subdirectory is created and removed).
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// Parts to run (comma list).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "seq-read,seq-write,rand-read,rand-write,androbench,mobibench,calibration"
    )]
    pub tests: Vec<Part>,
    /// Sequential-read (and random-read) file size, a multiple of 4K (K, M, G: KiB, MiB, GiB).
    #[arg(long, default_value = "32M")]
    pub read_size: String,
    /// Sequential-write (and random-write) file size, a multiple of 4K (K, M, G: KiB, MiB, GiB).
    #[arg(long, default_value = "32M")]
    pub write_size: String,
    /// What the write tests write into: androbench (sequential writes create a new file,
    /// random writes overwrite a written one) or preallocated (a fallocated, unwritten file,
    /// as fio lays out write jobs).
    #[arg(long, value_enum, default_value_t = WriteLayout::Androbench)]
    pub layout: WriteLayout,
    /// Bytes per sequential call (K, M: KiB, MiB).
    #[arg(long, default_value = "256K")]
    pub buffer: String,
    /// Random 4 KiB calls per thread (default: file size / 4 KiB).
    #[arg(long)]
    pub rand_ops: Option<u64>,
    /// Sync modes (comma list).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "direct")]
    pub sync: Vec<SyncMode>,
    /// Thread counts (comma list), each thread on its own file.
    #[arg(long, default_value = "1")]
    pub threads: String,
    /// Repetitions of every test.
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    /// Transactions per phase of the SQLite suites.
    #[arg(long, default_value_t = 1000)]
    pub txns: u64,
    /// SQLite journal mode for the transaction suites.
    #[arg(long, default_value = "delete")]
    pub journal_mode: String,
    /// SQLite synchronous setting for the transaction suites.
    #[arg(long, default_value = "full")]
    pub synchronous: String,
    /// Seed of the random offsets and data (the same seed replays the same calls).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Results store.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Print a stored run (the latest without ID) instead of running.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "0")]
    pub show: Option<i64>,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

fn list<T>(
    text: &str,
    flag: &str,
    parse: impl Fn(&str) -> Option<T>,
    expected: &str,
) -> Result<Vec<T>> {
    text.split(',')
        .map(|w| {
            parse(w.trim()).ok_or_else(|| {
                Error::input(format!("{flag} {text}: '{w}' is not one of {expected}"))
            })
        })
        .collect()
}

fn settings(a: &StorageArgs) -> Result<Settings> {
    let bytes = |v: &str, flag: &str| {
        parse_size(v, flag)
            .ok()
            .filter(|b| b % 4096 == 0)
            .ok_or_else(|| {
                Error::input(format!(
                "{flag} {v}: expected a size that is a multiple of 4K (4 KiB), e.g. 256K or 32M"
            ))
            })
    };
    let (read_size, write_size, buffer) = (
        bytes(&a.read_size, "--read-size")?,
        bytes(&a.write_size, "--write-size")?,
        bytes(&a.buffer, "--buffer")?,
    );
    if buffer > read_size.min(write_size) {
        return Err(Error::input(format!(
            "--buffer {}: larger than the file sizes",
            a.buffer
        )));
    }
    if !(1..=1000).contains(&a.runs) {
        return Err(Error::input(format!("--runs {}: must be 1..1000", a.runs)));
    }
    if a.txns == 0 {
        return Err(Error::input("--txns 0: must be positive"));
    }
    if a.rand_ops == Some(0) {
        return Err(Error::input("--rand-ops 0: must be positive"));
    }
    let max = crate::limits::MAX_STORAGE_FILE_BYTES;
    crate::limits::at_most("--read-size", read_size, max)?;
    crate::limits::at_most("--write-size", write_size, max)?;
    crate::limits::at_most("--buffer", buffer, crate::limits::MAX_STORAGE_BUFFER_BYTES)?;
    if let Some(n) = a.rand_ops {
        crate::limits::at_most("--rand-ops", n, crate::limits::MAX_OPS)?;
    }
    crate::limits::at_most("--txns", a.txns, crate::limits::MAX_OPS)?;
    if a.sync
        .contains(&crate::bench_suites::storage::file::SyncMode::Mmap)
    {
        // --sync mmap maps each test file whole: its size must fit this build's address space.
        crate::limits::to_usize(read_size, "--sync mmap --read-size")?;
        crate::limits::to_usize(write_size, "--sync mmap --write-size")?;
    }
    let (read_size, write_size, rand_ops, runs, txns) = shorten(a, read_size, write_size);
    let layout = a.layout;
    check_sqlite_option("journal_mode", "--journal-mode", &a.journal_mode)?;
    check_sqlite_option("synchronous", "--synchronous", &a.synchronous)?;
    if !a.dir.is_dir() {
        return Err(Error::input(format!(
            "--dir {}: {}",
            a.dir.display(),
            if a.dir.exists() {
                "not a directory"
            } else {
                "no such directory"
            }
        )));
    }
    let threads = list(
        &a.threads,
        "--threads",
        |w| w.parse::<u32>().ok().filter(|n| (1..=256).contains(n)),
        "1..256",
    )?;
    let most_threads = u64::from(threads.iter().copied().max().unwrap_or(1));
    crate::limits::check_free_space(
        &a.dir,
        read_size
            .max(write_size)
            .saturating_mul(most_threads)
            .saturating_mul(2)
            .saturating_add(64 << 20),
        "--dir: the test files",
    )?;
    Ok(Settings {
        dir: a.dir.clone(),
        parts: a.tests.clone(),
        seq_read_size: read_size,
        seq_write_size: write_size,
        buffer,
        layout,
        rand_ops,
        modes: a.sync.clone(),
        threads,
        runs,
        tx: TxSettings {
            txns,
            journal_mode: a.journal_mode.clone(),
            synchronous: a.synchronous.clone(),
        },
        seed: a.seed,
    })
}

/// The sizes quick mode ([`crate::quick`]) runs: file sizes, random calls, runs and
/// transactions capped (the random calls also when left to their default).
fn shorten(a: &StorageArgs, read: u64, write: u64) -> (u64, u64, Option<u64>, u32, u64) {
    use crate::quick::{self, cap};
    let rand_ops = match a.rand_ops {
        None if quick::active() => Some(cap("--rand-ops", read.max(write) / 4096, quick::CALLS)),
        n => n.map(|n| cap("--rand-ops", n, quick::CALLS)),
    };
    (
        cap("--read-size (bytes)", read, quick::FILE_BYTES),
        cap("--write-size (bytes)", write, quick::FILE_BYTES),
        rand_ops,
        cap("--runs", a.runs, quick::RUNS),
        cap("--txns", a.txns, quick::TXNS),
    )
}

pub fn main(a: &StorageArgs) -> Result<i32> {
    progress::set_quiet(a.quiet || a.json);
    let r = if let Some(id) = a.show {
        let mut store = Store::open_existing(&a.results)?;
        let (id, mut r): (_, StorageRun) =
            suites::load_as(&mut store, SUITE, (id > 0).then_some(id))?;
        r.id = id;
        r
    } else {
        let s = settings(a)?;
        let mut store = Store::open(&a.results)?;
        // One step per file test (pattern × sync mode × threads) and per SQLite suite; the time
        // left is estimated from the steps done (they differ, so it firms up as they pass).
        let steps = storage::steps(&s);
        progress::phase(&format!(
            "storage: {steps} step(s), each test {} time(s), in {}",
            s.runs,
            s.dir.display()
        ));
        let mut counter = progress::RunCounter::of(steps, "step");
        let mut begun = false;
        let mut r = storage::run(&s, &mut |what| {
            if std::mem::replace(&mut begun, true) {
                counter.finish_one();
            }
            counter.start(&format!("storage: {what}"));
        })?;
        counter.finish();
        let v = serde_json::to_value(&r).map_err(|e| Error::failed(e.to_string()))?;
        r.id = suites::save(&mut store, SUITE, &r.created_at, &v, &[])?;
        r
    };
    if a.json {
        super::print_json(&r)?;
    } else {
        print!("{}", report::render(&r));
    }
    Ok(0)
}
