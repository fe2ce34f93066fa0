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
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a workload on an engine and report per-operation measurements.
    #[command(
        after_help = "Examples:\n  pocketbench run\n  pocketbench run --workload ycsb-a --records 1000 --ops 10000 --delay fixed:1ms\n  pocketbench run --workload pocketdata-ia --index key --delay pocketdata-ramp\n  pocketbench run --workload my.properties --pacing open --delay exponential:5ms\n  pocketbench run -o journal_mode=wal -o synchronous=normal --json\n  pocketbench run --trace app.pbt --warm --raw ops.csv"
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
    /// List engines, their versions and options.
    #[command(after_help = "Example:\n  pocketbench engines --json")]
    Engines(EnginesArgs),
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
    /// Request distribution: uniform, zipfian, latest, hotspot, sequential.
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
pub struct EnginesArgs {
    #[arg(long)]
    pub json: bool,
}
