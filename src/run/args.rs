//! The flags of `pocketbench run` (also a study cell's flags: `study::flags` reads them by
//! introspection) and how they become a [`RunRequest`]. Bad values are input errors naming the
//! flag.

use super::{pacer::Pacing, RunRequest, WorkloadChoice};
use crate::engine::options::parse_pair;
use crate::error::{Error, Result};
use crate::flash::config::ModelConfig;
use crate::output::target::check as check_output_file;
use crate::platform::cpufreq::request::GovernorRequest;
use crate::platform::session::PlatformRequest;
use crate::run::flash_hook::FlashRequest;
use crate::workload::delay::DelayModel;
use crate::workload::Overrides;
use clap::Args;
use std::path::PathBuf;

/// Which workload, and overrides of its parameters.
#[derive(Args, Debug, Clone)]
pub struct WorkloadArgs {
    /// Built-in workload (ycsb-a … ycsb-f, pocketdata-a … pocketdata-f, pocketdata-ia/ib/ic) or a
    /// file: YCSB .properties, PocketData .json, or a TOML spec.
    #[arg(long, short = 'w', default_value = "ycsb-c")]
    pub workload: String,
    /// Records in the initial data set. Default: the workload's own (500 for the built-in
    /// workloads, PocketData's size; a file's recordcount).
    #[arg(long)]
    pub records: Option<u64>,
    /// Operations in the run phase. Default: the workload's own (1800 for the built-in
    /// workloads; a file's operationcount).
    #[arg(long)]
    pub ops: Option<u64>,
    /// Fields per record (YCSB workloads). Default: the workload's own (10, as YCSB).
    #[arg(long)]
    pub field_count: Option<u16>,
    /// Bytes per field (YCSB workloads). Default: the workload's own (100, as YCSB).
    #[arg(long)]
    pub field_length: Option<u32>,
    /// Request distribution: uniform, zipfian, latest (as YCSB), latest-consistent, hotspot,
    /// sequential. Default: the workload's own (zipfian for ycsb-a/b/c/e/f, latest for ycsb-d,
    /// uniform for a properties file that names none, as YCSB).
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

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Replay this trace instead of generating one (its delays unless --delay is given): a
    /// file, or a published trace's address http[s]://SERVER/traces/SHA256 (fetched into the
    /// cache, its SHA-256 checked; POCKETBENCH_TOKEN is sent if set).
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
    #[arg(long, value_enum, default_value_t = Pacing::Think)]
    pub pacing: Pacing,
    /// Replay in the loading process without evicting the page cache.
    #[arg(long)]
    pub warm: bool,
    /// An imported trace's connections replayed as one stream on one connection, in start
    /// order (default: each connection on its own thread and connection).
    #[arg(long)]
    pub merge_connections: bool,
    /// An imported trace's connections: recorded keeps the app's order across them (a
    /// statement after the write transactions committed before it started in the log, commits
    /// in the app's order, lock waits retried); time only keeps each statement's recorded
    /// offset and its own connection's order.
    #[arg(long, value_enum, default_value_t = crate::run::order::Order::Recorded)]
    pub order: crate::run::order::Order,
    /// The JVM engines (h2, bdb-je, sqlite-jdbc, nitrite, objectbox): cold runs a fresh JVM
    /// with no warm-up, as an app starts; warm first runs the run phase once untimed (rolled
    /// back), like a JMH warm-up.
    #[arg(long, value_enum, default_value_t = crate::run::jvm::JvmMode::Cold)]
    pub jvm_mode: crate::run::jvm::JvmMode,
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
    pub platform: crate::platform::args::PlatformArgs,
    /// CPU frequency governor for the run, on every cpufreq policy: performance, powersave,
    /// ondemand, conservative, schedutil, interactive, userspace:FREQ (e.g. 1.2GHz, max) or
    /// fixed:50%. Needs root; without permission the run goes ahead and says so. Restored
    /// afterwards, also on Ctrl-C, SIGTERM and panic.
    #[arg(long, value_name = "GOVERNOR")]
    pub governor: Option<String>,
    /// Save the database's file-level I/O trace (load and run phases) for the flash model.
    #[arg(long, value_name = "FILE")]
    pub flash_trace: Option<PathBuf>,
    /// Model the I/O trace on NAND flash and add the (modelled) counters to the summary:
    /// PRESET[,key=value…], e.g. mlc-4k,op=0.15 (see `pocketbench flash presets`).
    #[arg(long, value_name = "SPEC", num_args = 0..=1, default_missing_value = "slc-2k")]
    pub flash_model: Option<String>,
}

impl WorkloadArgs {
    /// The workload overrides given on the command line.
    pub fn overrides(&self) -> Result<Overrides> {
        if let Some(r) = self.miss_ratio {
            if !(0.0..=1.0).contains(&r) {
                return Err(Error::input(format!(
                    "--miss-ratio {r}: must be between 0 and 1"
                )));
            }
        }
        Ok(Overrides {
            records: self.records,
            ops: self.ops,
            field_count: self.field_count,
            field_length: self.field_length,
            distribution: self.distribution.clone(),
            miss_ratio: self.miss_ratio,
            indexes: self.indexes.clone(),
        })
    }

    /// The `--delay` model, if given.
    pub fn delay(&self) -> Result<Option<DelayModel>> {
        self.delay.as_deref().map(DelayModel::parse).transpose()
    }
}

impl RunArgs {
    /// The request these flags ask for; every flag is checked, nothing is created.
    pub fn request(&self) -> Result<RunRequest> {
        let pacing = self.pacing;
        let options = self
            .options
            .iter()
            .map(|o| parse_pair(o))
            .collect::<Result<Vec<_>>>()?;
        let workload = match &self.trace {
            Some(path) => WorkloadChoice::Trace(path.clone()),
            None => WorkloadChoice::Spec {
                spec: self.workload.workload.clone(),
                overrides: self.workload.overrides()?,
            },
        };
        if let Some(raw) = &self.raw {
            check_output_file(raw, "--raw")?;
        }
        Ok(RunRequest {
            workload,
            engine: self.engine.clone(),
            options,
            delay: self.workload.delay()?,
            pacing,
            seed: self.workload.seed,
            warm: self.warm,
            merge_connections: self.merge_connections,
            order: self.order,
            drop_caches: self.drop_caches,
            data_dir: self.dir.clone(),
            measure_overhead: !self.no_overhead,
            platform: PlatformRequest {
                governor: self.governor()?,
                ..self.platform.request()?
            },
            flash: self.flash_request()?,
            jvm_mode: self.jvm_mode,
        })
    }

    fn governor(&self) -> Result<Option<GovernorRequest>> {
        self.governor
            .as_deref()
            .map(|g| {
                GovernorRequest::parse(g).map_err(|e| Error::input(format!("--governor {g}: {e}")))
            })
            .transpose()
    }

    fn flash_request(&self) -> Result<FlashRequest> {
        if let Some(t) = &self.flash_trace {
            check_output_file(t, "--flash-trace")?;
        }
        Ok(FlashRequest {
            trace_out: self.flash_trace.clone(),
            model: self
                .flash_model
                .as_deref()
                .map(|s| ModelConfig::parse_spec(s, "--flash-model"))
                .transpose()?,
        })
    }
}
