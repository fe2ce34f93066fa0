//! The storage suite (AndroBench / Mobibench style) on a target directory: sequential and
//! random file I/O under Mobibench's sync modes with 1..N threads ([`fileio`], [`mmap_io`]),
//! the SQLite transaction suites ([`sqlite_tx`]) and the raw-device / file-system / SQLite
//! calibration table ([`calibration`]). Every test runs `runs` times (3 by default); results
//! are the mean with min, max, standard deviation and coefficient of variation.

pub mod calibration;
pub mod file;
pub mod fileio;
pub mod mmap_io;
pub mod report;
pub mod sqlite_tx;

use crate::error::{Result, ResultExt};
use crate::platform::clock::mono_ns;
use file::{AlignedBuf, IoOutcome, IoTest, Pattern, SyncMode};
use serde::{Deserialize, Serialize};
use sqlite_tx::TxSettings;
use std::path::{Path, PathBuf};

/// Which parts to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Part {
    /// Sequential reads of a file.
    SeqRead,
    /// Sequential writes of a file.
    SeqWrite,
    /// Random 4 KiB reads.
    RandRead,
    /// Random 4 KiB writes.
    RandWrite,
    /// AndroBench's SQLite insert/update/delete transactions.
    Androbench,
    /// Mobibench's SQLite transactions.
    Mobibench,
    /// Raw device vs file system vs SQLite.
    Calibration,
}

impl Part {
    pub const ALL: [Part; 7] = [
        Part::SeqRead,
        Part::SeqWrite,
        Part::RandRead,
        Part::RandWrite,
        Part::Androbench,
        Part::Mobibench,
        Part::Calibration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Part::SeqRead => "seq-read",
            Part::SeqWrite => "seq-write",
            Part::RandRead => "rand-read",
            Part::RandWrite => "rand-write",
            Part::Androbench => "androbench",
            Part::Mobibench => "mobibench",
            Part::Calibration => "calibration",
        }
    }

    fn pattern(self) -> Option<Pattern> {
        match self {
            Part::SeqRead => Some(Pattern::SeqRead),
            Part::SeqWrite => Some(Pattern::SeqWrite),
            Part::RandRead => Some(Pattern::RandRead),
            Part::RandWrite => Some(Pattern::RandWrite),
            _ => None,
        }
    }
}

/// What the write tests write into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum WriteLayout {
    /// AndroBench's: sequential writes create a new file (each call extends it); random
    /// writes overwrite a file written in full beforehand. fio: `--fallocate=none` for the
    /// sequential job (on a removed file), `--overwrite=1` for the random one.
    #[default]
    Androbench,
    /// fio's default: both write into a file preallocated with fallocate(2) and never
    /// written (unwritten extents). fio: `--fallocate=native` (its default).
    Preallocated,
}

impl WriteLayout {
    pub const ALL: [WriteLayout; 2] = [WriteLayout::Androbench, WriteLayout::Preallocated];

    pub fn name(self) -> &'static str {
        match self {
            WriteLayout::Androbench => "androbench",
            WriteLayout::Preallocated => "preallocated",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    pub dir: PathBuf,
    pub parts: Vec<Part>,
    pub seq_read_size: u64,
    pub seq_write_size: u64,
    pub buffer: u64,
    /// What the write tests write into (absent in runs stored before it: AndroBench's).
    #[serde(default)]
    pub layout: WriteLayout,
    /// Random calls per thread (default: file size / 4 KiB).
    pub rand_ops: Option<u64>,
    pub modes: Vec<SyncMode>,
    pub threads: Vec<u32>,
    pub runs: u32,
    pub tx: TxSettings,
    pub seed: u64,
}

/// Mean and spread over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub stddev: f64,
    /// stddev / mean.
    pub cv: f64,
    pub runs: Vec<f64>,
}

impl Stat {
    pub fn of(v: &[f64]) -> Stat {
        if v.is_empty() {
            return Stat::default();
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = if v.len() > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let r = |x: f64| (x * 100.0).round() / 100.0;
        Stat {
            mean: r(mean),
            min: r(v.iter().copied().fold(f64::INFINITY, f64::min)),
            max: r(v.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            stddev: r(var.sqrt()),
            cv: if mean > 0.0 {
                (var.sqrt() / mean * 1e4).round() / 1e4
            } else {
                0.0
            },
            runs: v.iter().map(|&x| r(x)).collect(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileResult {
    pub test: IoTest,
    /// Throughput in MiB/s (2^20 bytes per second); stored before as `mb_s`, read under
    /// either name.
    #[serde(alias = "mb_s")]
    pub mib_s: Stat,
    pub iops: Stat,
    pub method: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TxResult {
    pub suite: String,
    pub phase: String,
    pub txns: u64,
    pub tps: Stat,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StorageRun {
    pub id: i64,
    pub created_at: String,
    pub tool_version: String,
    pub sqlite_version: String,
    pub settings: Settings,
    pub file_system: String,
    pub files: Vec<FileResult>,
    pub sqlite: Vec<TxResult>,
    pub calibration: Option<calibration::Calibration>,
}

/// How many times [`run`] reports progress: once per file test (pattern × sync mode × thread
/// count) and once per SQLite suite or calibration.
pub fn steps(s: &Settings) -> usize {
    s.parts
        .iter()
        .map(|p| match p.pattern() {
            Some(_) => s.modes.len() * s.threads.len(),
            None => 1,
        })
        .sum()
}

/// Run every selected part in a private directory inside `s.dir`.
pub fn run(s: &Settings, progress: &mut dyn FnMut(&str)) -> Result<StorageRun> {
    let work = crate::platform::cleanup::TempDir::new("pocketbench-storage-", Some(&s.dir))
        .run_err(format!("creating a directory in {}", s.dir.display()))?;
    let dir = work.path();
    let mut files = Vec::new();
    let mut sqlite = Vec::new();
    let mut cal = None;
    for &part in &s.parts {
        if let Some(pattern) = part.pattern() {
            for &mode in &s.modes {
                for &threads in &s.threads {
                    progress(&format!(
                        "{} {} × {threads} thread(s)",
                        pattern.name(),
                        mode.name()
                    ));
                    files.push(file_test(dir, s, pattern, mode, threads)?);
                }
            }
            continue;
        }
        progress(part.name());
        match part {
            Part::Androbench | Part::Mobibench => {
                let mut by_phase: Vec<(String, u64, Vec<f64>)> = Vec::new();
                for r in 0..s.runs {
                    let seed = s.seed + u64::from(r);
                    let phases = if part == Part::Androbench {
                        sqlite_tx::androbench(dir, &s.tx, seed)?
                    } else {
                        sqlite_tx::mobibench(dir, &s.tx, seed)?
                    };
                    for (i, p) in phases.iter().enumerate() {
                        if by_phase.len() <= i {
                            by_phase.push((p.phase.to_string(), p.txns, Vec::new()));
                        }
                        by_phase[i]
                            .2
                            .push(p.txns as f64 / (p.ns.max(1) as f64 / 1e9));
                    }
                }
                for (phase, txns, tps) in by_phase {
                    sqlite.push(TxResult {
                        suite: part.name().into(),
                        phase,
                        txns,
                        tps: Stat::of(&tps),
                    });
                }
            }
            Part::Calibration => cal = Some(calibration::run(dir, s)?),
            _ => {}
        }
    }
    Ok(StorageRun {
        id: 0,
        created_at: crate::platform::clock::utc_now(),
        tool_version: crate::TOOL_VERSION.to_string(),
        sqlite_version: rusqlite::version().to_string(),
        settings: s.clone(),
        file_system: file_system_name(&s.dir),
        files,
        sqlite,
        calibration: cal,
    })
}

fn file_test(
    dir: &Path,
    s: &Settings,
    pattern: Pattern,
    mode: SyncMode,
    threads: u32,
) -> Result<FileResult> {
    let file_size = if matches!(pattern, Pattern::SeqRead | Pattern::RandRead) {
        s.seq_read_size
    } else {
        s.seq_write_size
    };
    let io_size = if pattern.is_random() { 4096 } else { s.buffer };
    let calls = if pattern.is_random() {
        s.rand_ops.unwrap_or(file_size / 4096)
    } else {
        file_size / io_size
    };
    let t = IoTest {
        pattern,
        mode,
        file_size,
        io_size,
        ops: calls,
        threads,
    };
    let (mut mbs, mut iops, mut method) = (Vec::new(), Vec::new(), String::new());
    for r in 0..s.runs {
        let paths: Vec<PathBuf> = (0..threads)
            .map(|i| file::file_for(dir, pattern, i))
            .collect();
        for p in &paths {
            match (pattern, s.layout) {
                (Pattern::SeqWrite, WriteLayout::Androbench) => {
                    let _ = std::fs::remove_file(p);
                }
                (Pattern::SeqWrite | Pattern::RandWrite, WriteLayout::Preallocated) => {
                    file::preallocate_file(p, file_size)?;
                }
                _ => file::prepare_file(
                    p,
                    file_size,
                    &mut AlignedBuf::new(s.buffer as usize, s.seed),
                )?,
            }
        }
        let barrier = std::sync::Barrier::new(threads as usize);
        let outcomes: Vec<Result<(u64, IoOutcome, u64)>> = std::thread::scope(|sc| {
            let handles: Vec<_> = paths
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (t, barrier) = (&t, &barrier);
                    let seed = s.seed ^ (u64::from(r) << 16) ^ i as u64;
                    sc.spawn(move || {
                        barrier.wait();
                        let start = mono_ns();
                        let o = fileio::run_one(t, p, seed)?;
                        Ok((start, o, mono_ns()))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(crate::error::Error::failed("an I/O thread panicked"))
                    })
                })
                .collect()
        });
        let outcomes = outcomes.into_iter().collect::<Result<Vec<_>>>()?;
        let first = outcomes.iter().map(|o| o.0).min().unwrap_or(0);
        let last = outcomes.iter().map(|o| o.2).max().unwrap_or(0);
        let secs = (last - first).max(1) as f64 / 1e9;
        let bytes: u64 = outcomes.iter().map(|o| o.1.bytes).sum();
        let ops: u64 = outcomes.iter().map(|o| o.1.ops).sum();
        mbs.push(crate::output::units::mib_per_s(bytes, last - first));
        iops.push(ops as f64 / secs);
        method = outcomes[0].1.method.clone();
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
    }
    Ok(FileResult {
        test: t,
        mib_s: Stat::of(&mbs),
        iops: Stat::of(&iops),
        method,
    })
}

/// The file system type of `dir` (from statfs), for the report.
pub fn file_system_name(dir: &Path) -> String {
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().to_string_lossy().as_bytes()) else {
        return "unknown".into();
    };
    // SAFETY: zeroed statfs is a valid out-parameter; path is NUL-terminated.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return "unknown".into();
    }
    let magic = st.f_type as u64;
    let name = match magic {
        0xEF53 => "ext4 (or ext2/3)",
        0x0102_1994 => "tmpfs",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0xF2F5_2010 => "f2fs",
        0x794C_7630 => "overlayfs",
        0x6969 => "nfs",
        _ => "other",
    };
    format!("{name} (statfs magic {magic:#x})")
}
