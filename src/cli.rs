//! The command line: every command, flag and example users see in `--help`.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "pocketbench",
    version,
    about = "Benchmark embedded databases the way phones and boards use them: one client, bursts of queries, think time between them, measured per operation.",
    after_help = "Examples:\n  pocketbench run                                   PocketData default: ycsb-c, 500 records, 1800 ops, lognormal 6.67 ms think time, SQLite\n  pocketbench run --workload ycsb-a --delay zero    saturated YCSB A\n  pocketbench run --workload workload_ia_log.json   replay an original PocketData file with its recorded breaks\n  pocketbench trace gen --workload ycsb-b -o b.pbt  pre-generate a trace\n  pocketbench run --trace b.pbt -o synchronous=off  replay it\n  pocketbench results list"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Read and write sysfs (cpufreq, powercap, power_supply) under this directory instead of
    /// /sys (also: POCKETBENCH_SYSFS_ROOT); tests point it at a fake tree.
    #[arg(long, global = true, value_name = "DIR")]
    pub sysfs_root: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a workload on an engine and report per-operation measurements.
    #[command(
        after_help = "Examples:\n  pocketbench run\n  pocketbench run --workload ycsb-a --records 1000 --ops 10000 --delay fixed:1ms\n  pocketbench run --workload pocketdata-ia --index key --delay pocketdata-ramp\n  pocketbench run --workload my.properties --pacing open --delay exponential:5ms\n  pocketbench run -o journal_mode=wal -o synchronous=normal --json\n  pocketbench run --trace app.pbt --warm --raw ops.csv\n  pocketbench run --governor powersave --background cpu:2:50%\n  pocketbench run --governor fixed:50% --energy battery"
    )]
    Run(RunArgs),
    /// Generate and inspect traces (pre-generated, replayable workloads).
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench trace gen --workload ycsb-b -o b.pbt\n  pocketbench trace show b.pbt"
    )]
    Trace(TraceCommand),
    /// Read back stored runs.
    #[command(
        subcommand,
        after_help = "Examples:\n  pocketbench results list\n  pocketbench results show 1 --json"
    )]
    Results(ResultsCommand),
    /// Run a study plan: the cartesian product of its axes, repeated, resumable.
    #[command(
        after_help = "Examples:\n  pocketbench matrix study.toml\n  pocketbench matrix study.toml --resume          after Ctrl-C, kill -9 or power loss: run only what is missing\n  pocketbench matrix --plan pocketdata             A, B, C, E × {zero, lognormal} × governors × 3 repeats\n  pocketbench matrix --plan mdperf --dry-run       list the cells without running them\n  pocketbench matrix --plan engines                every engine × journal/sync settings × {zero, lognormal} on ycsb-a\n\nPlan format: docs/studies.md"
    )]
    Matrix(MatrixArgs),
    /// Compare two cells or result sets: is the difference significant, and how large is it.
    #[command(
        after_help = "A and B are each a results store file (all its runs) or a filter over --results:\n  key=value[,key=value...], alternatives with |, e.g. engine=sqlite,delay=zero or run=3-5.\n\nExamples:\n  pocketbench compare engine=null engine=sqlite --results study.db\n  pocketbench compare 'study=2,cell=1' 'study=2,cell=3'\n  pocketbench compare before.db after.db --confidence 0.95"
    )]
    Compare(CompareArgs),
    /// Write a report: one self-contained HTML file with SVG charts, the figures as PNG or SVG
    /// files, or the summary as Markdown or CSV.
    #[command(
        after_help = "Examples:\n  pocketbench report --results study.db -o report.html\n  pocketbench report --filter 'engine=sqlite,delay=zero|fixed:1ms' -o sqlite.html\n  pocketbench report --format png -o figures/\n  pocketbench report --format md -o summary.md\n\nHow to read each figure: docs/studies.md"
    )]
    Report(ReportArgs),
    /// List engines, their versions and options.
    #[command(after_help = "Example:\n  pocketbench engines --json")]
    Engines(EnginesArgs),
    /// What this device offers and lacks for measurement, and what each means for results.
    #[command(
        after_help = "Examples:\n  pocketbench doctor\n  pocketbench doctor --json\n  pocketbench doctor --dir /data/local/tmp --results /sdcard/pb.db\n  pocketbench doctor --restore      restore cpufreq files left changed by a killed run"
    )]
    Doctor(crate::commands::doctor::DoctorArgs),
    /// Is my governor working? Compare governors on a workload and explain the difference.
    #[command(
        after_help = "Examples:\n  pocketbench diagnose\n  pocketbench diagnose --workload ycsb-a --governors performance,powersave,schedutil\n  pocketbench diagnose --trace myapp.pbt --background mixed\n  pocketbench diagnose --from-results all --results study.db"
    )]
    Diagnose(crate::commands::diagnose::DiagnoseArgs),
    /// Energy measurements: import an external power meter's CSV into a stored run.
    #[command(subcommand)]
    Energy(crate::commands::energy::EnergyCommand),
    /// The NAND flash model: replay a saved I/O trace, validate it, list presets.
    #[command(subcommand)]
    Flash(crate::commands::flash::FlashCommand),
    /// Flash micro-benchmark: INSERT/SELECT/JOIN/UPDATE per record size and request count,
    /// timed per request, with modelled NAND flash reads, programs and erases.
    Flashbench(crate::commands::flashbench::FlashbenchArgs),
    /// Storage micro-benchmarks (AndroBench/Mobibench style): sequential and random file I/O
    /// by sync mode and thread count, SQLite transactions per second, calibration table.
    Storage(crate::commands::storage::StorageArgs),
    /// Replay process (internal: started by `run`).
    #[command(name = "__replay", hide = true)]
    Replay { spec: PathBuf },
}

/// Which workload, and overrides of its parameters.
#[derive(Args, Debug, Clone)]
pub struct WorkloadArgs {
    /// Built-in workload (ycsb-a … ycsb-f, pocketdata-a … pocketdata-f, pocketdata-ia/ib/ic) or a
    /// file: YCSB .properties, PocketData .json, or a TOML spec.
    #[arg(long, short = 'w', default_value = "ycsb-c")]
    pub workload: String,
    /// Records in the initial data set.
    #[arg(long)]
    pub records: Option<u64>,
    /// Operations in the run phase.
    #[arg(long)]
    pub ops: Option<u64>,
    /// Fields per record (YCSB workloads).
    #[arg(long)]
    pub field_count: Option<u16>,
    /// Bytes per field (YCSB workloads).
    #[arg(long)]
    pub field_length: Option<u32>,
    /// Request distribution: uniform, zipfian, latest (as YCSB), latest-consistent, hotspot,
    /// sequential.
    #[arg(long)]
    pub distribution: Option<String>,
    /// Fraction of point operations on keys that do not exist (PocketData SQL workloads).
    #[arg(long)]
    pub miss_ratio: Option<f64>,
    /// Column to index (PocketData SQL workloads); repeatable.
    #[arg(long = "index")]
    pub indexes: Vec<String>,
    /// Delay after each operation: zero, fixed:1ms, lognormal:6.67ms[:sigma], exponential:5ms,
    /// pocketdata-ramp, recorded. Default: the workload's recorded delays, else lognormal:6.67ms.
    #[arg(long)]
    pub delay: Option<String>,
    /// Seed for every random choice (operations, values, delays).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Replay this trace instead of generating one (its delays unless --delay is given).
    #[arg(long, short = 't', conflicts_with_all = ["records", "ops", "field_count", "field_length", "distribution", "miss_ratio", "indexes"])]
    pub trace: Option<PathBuf>,
    /// Engine to run on (see `pocketbench engines`).
    #[arg(long, short = 'e', default_value = "sqlite")]
    pub engine: String,
    /// Engine option key=value (repeatable), e.g. -o journal_mode=wal -o preset=android.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// think: sleep the delay after each operation completes; open: operations are due on a
    /// fixed schedule and latency is also reported from the intended start.
    #[arg(long, default_value = "think")]
    pub pacing: String,
    /// Replay in the loading process without evicting the page cache.
    #[arg(long)]
    pub warm: bool,
    /// Also drop the whole page cache before the replay (needs root).
    #[arg(long, conflicts_with = "warm")]
    pub drop_caches: bool,
    /// Keep the database in this directory instead of a temporary one.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Results store (SQLite file).
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Store only the summary, not the per-operation samples.
    #[arg(long)]
    pub no_samples: bool,
    /// Skip the null-engine replay that measures harness overhead.
    #[arg(long)]
    pub no_overhead: bool,
    /// Write one CSV row per operation to this file.
    #[arg(long)]
    pub raw: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress output.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub platform: crate::commands::platform::PlatformArgs,
    /// Save the database's file-level I/O trace (load and run phases) for the flash model.
    #[arg(long, value_name = "FILE")]
    pub flash_trace: Option<PathBuf>,
    /// Model the I/O trace on NAND flash and add the (modelled) counters to the summary:
    /// PRESET[,key=value…], e.g. mlc-4k,op=0.15 (see `pocketbench flash presets`).
    #[arg(long, value_name = "SPEC", num_args = 0..=1, default_missing_value = "slc-2k")]
    pub flash_model: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Write a workload as a trace file.
    #[command(
        after_help = "Examples:\n  pocketbench trace gen -o c.pbt\n  pocketbench trace gen --workload ycsb-a --ops 10000000 --delay zero -o big.pbt\n  pocketbench trace gen --workload workload_ia_log.json -o ia.pbt"
    )]
    Gen {
        #[command(flatten)]
        workload: WorkloadArgs,
        /// Output file.
        #[arg(long, short = 'o')]
        output: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Print a trace: header, totals, operation mix, delays, first operations.
    #[command(after_help = "Example:\n  pocketbench trace show c.pbt --limit 20")]
    Show {
        file: PathBuf,
        /// Operations of each phase to print.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum ResultsCommand {
    /// One line per stored run.
    #[command(after_help = "Example:\n  pocketbench results list --results study.db")]
    List {
        #[arg(long, default_value = "pocketbench.db")]
        results: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Bring the runs of spool files (kept when the store could not take a finished run) or of
    /// another store into this store, under new ids. Spool files are removed once imported.
    #[command(
        after_help = "Examples:\n  pocketbench results import pocketbench.db.spool-20261124T120000Z-4242.db\n  pocketbench results import phone.db --results lab.db"
    )]
    Import {
        /// Spool files or results stores to import.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The results store to import into.
        #[arg(long, default_value = "pocketbench.db")]
        results: PathBuf,
        /// Print what was imported as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The full summary of one run.
    #[command(after_help = "Example:\n  pocketbench results show 3 --json")]
    Show {
        id: i64,
        #[arg(long, default_value = "pocketbench.db")]
        results: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug)]
pub struct MatrixArgs {
    /// Plan file (TOML).
    #[arg(required_unless_present = "plan", conflicts_with = "plan")]
    pub file: Option<PathBuf>,
    /// Built-in plan instead of a file: pocketdata, mdperf, engines.
    #[arg(long)]
    pub plan: Option<String>,
    /// Continue the latest study of this plan in the results store: run only missing runs.
    #[arg(long)]
    pub resume: bool,
    /// Results store (overrides the plan's `results`; default pocketbench.db).
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Repeats of every cell (overrides the plan's `repeats`).
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Confidence level of the intervals in the closing table (default: the plan's, 0.90).
    #[arg(long)]
    pub confidence: Option<f64>,
    /// List the cells and the run count, run nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[arg(long)]
    pub json: bool,
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline: a results store file, or a filter over --results.
    pub a: String,
    /// Compared with A: a results store file, or a filter over --results.
    pub b: String,
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Confidence level of intervals and of the significance test.
    #[arg(long, default_value_t = 0.90)]
    pub confidence: f64,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Only runs matching key=value[,key=value...] (alternatives with |); keys: run, study,
    /// cell, repeat, workload, engine, delay, pacing and every axis of a study.
    #[arg(long)]
    pub filter: Option<String>,
    /// Output file (html, md, csv) or directory (png, svg).
    #[arg(long, short = 'o', default_value = "report.html")]
    pub output: PathBuf,
    /// html, png, svg, md or csv.
    #[arg(long, default_value = "html")]
    pub format: String,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.90)]
    pub confidence: f64,
}

#[derive(Args, Debug)]
pub struct EnginesArgs {
    #[arg(long)]
    pub json: bool,
}
