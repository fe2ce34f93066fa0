//! The run summary: the one JSON document that describes a run — what ran, where, and what was
//! measured. `--json` prints it, the results store keeps it, `results show` reads it back. Its
//! keys are documented in `docs/results.md`.

use super::aggregate::{Aggregator, Schedule, TimeSplit};
use crate::engine::io::IoStats;
use crate::engine::EngineInfo;
use crate::platform::background::BackgroundReport;
use crate::platform::cache::CacheState;
use crate::platform::cpufreq::control::GovernorOutcome;
use crate::platform::cpufreq::residency::FrequencyReport;
use crate::platform::energy::{EnergyReport, Markers};
use crate::platform::environment::Environment;
use crate::platform::process::ProcessCounters;
use crate::run::overhead::Overhead;
use crate::run::RunOutput;
use crate::stats::LatencySummary;
use crate::workload::WorkloadInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSummary {
    /// Id in the results store (0 until stored).
    pub id: i64,
    pub created_at: String,
    pub tool_version: String,
    pub workload: WorkloadInfo,
    pub engine: EngineInfo,
    pub pacing: String,
    pub delay: String,
    /// Seed the trace was generated with.
    pub seed: u64,
    /// Seed of the delays when `--delay` replaced a trace's own delays at replay time.
    pub delay_seed: Option<u64>,
    pub trace: TraceRef,
    pub phases: Phases,
    pub ops: u64,
    pub errors: u64,
    pub errors_by_kind: BTreeMap<String, u64>,
    /// A trace imported from an app's log: statements that failed in the replay although the
    /// app completed them (the import leaves out what failed in the app), so every error is a
    /// divergence from the app. Zero for other workloads.
    #[serde(default)]
    pub divergences: u64,
    pub first_error: Option<String>,
    /// The first failed operations one by one (`operation N: message`), up to
    /// [`crate::run::replay::MAX_FAILED_LISTED`]; `errors` counts them all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_operations: Vec<String>,
    /// Start of the replay loop (before any initial delay) to its end (after the last sample
    /// is recorded).
    pub wall_ns: u64,
    pub throughput_ops_per_s: f64,
    /// Service time (start → end) per operation kind, microseconds.
    pub latency_us: BTreeMap<String, LatencySummary>,
    /// Response time (intended start → end) per kind, microseconds; open pacing only.
    pub response_time_us: Option<BTreeMap<String, LatencySummary>>,
    pub schedule: Option<Schedule>,
    pub time: TimeSplit,
    /// How each operation's CPU time was measured: `per-operation` (the thread CPU clock read
    /// around every operation) or `batch:N` (back-to-back operations: read once per N
    /// operations, each operation given the batch's on-CPU share of its wall time). Empty in
    /// runs stored before it was recorded (per-operation).
    #[serde(default)]
    pub cpu_accounting: String,
    /// How far sleeps overshot their deadline, microseconds.
    pub sleep_overshoot_us: LatencySummary,
    pub io: BTreeMap<String, IoStats>,
    /// Time and I/O outside the operations, by phase: `open` (opening the engine in the
    /// replay process; SQLite maps its WAL index here) and `close` (after the last operation;
    /// SQLite's WAL checkpoint is here). Not in `io`, which is the operations' own.
    #[serde(default)]
    pub io_phases: BTreeMap<String, PhaseSummary>,
    pub startup: Startup,
    pub overhead: Option<Overhead>,
    pub process: ProcessCounters,
    pub environment: serde_json::Value,
    /// CPU governor during the run: set and verified, or observed (with why control was
    /// unavailable). Absent in runs stored before it existed.
    #[serde(default)]
    pub governor: Option<GovernorOutcome>,
    /// Frequency residency, sampler cost, latency by frequency at operation start.
    #[serde(default)]
    pub frequency: Option<FrequencyReport>,
    /// Energy over the run and net of an idle baseline; null with the reason when unmeasured.
    #[serde(default)]
    pub energy: Option<EnergyReport>,
    /// Background load during the run and what it used.
    #[serde(default)]
    pub background: Option<BackgroundReport>,
    /// The run's (and baseline's) start and end on the monotonic and wall clocks.
    #[serde(default)]
    pub markers: Option<Markers>,
    /// Flash model counters (`run --flash-model`); modelled, not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash: Option<crate::flash::ModelReport>,
    /// Read-your-writes check inside the run (key-value workloads).
    #[serde(default)]
    pub verification: crate::run::verify::Verification,
    /// Engine-internal counters (RocksDB/LevelDB compactions and stalls, …) before and after
    /// the run.
    #[serde(default)]
    pub engine_stats: BTreeMap<String, crate::engine::StatChange>,
    /// An imported trace replayed with its connections kept: each connection's statements,
    /// errors, lock waits given up, latency and lag behind its recorded schedule.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub connections: BTreeMap<String, crate::run::connections::ConnectionReport>,
    /// The device the run was measured on when it came back through `pocketbench device run`
    /// or `device pull` (model, SoC, ABI, kernel, OS, root, storage: `device list`'s facts);
    /// absent for runs measured where they are stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<serde_json::Value>,
    /// Battery level and temperature and thermal zones before and after the run, and whether
    /// the CPU was thermally capped; absent where none of it is readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal: Option<crate::platform::thermal::ThermalReport>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceRef {
    pub digest: String,
    pub load_ops: u64,
    pub run_ops: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Phases {
    /// `fresh-process` (loaded by one process, replayed by another) or `warm`.
    pub mode: String,
    pub cache: CacheState,
    /// Timer slack of the replaying thread (pocketbench lowers it to 1 ns so sleeps end on time).
    pub timer_slack_ns: Option<u64>,
    /// The wrapper the replay process ran under (`POCKETBENCH_RUNNER`, e.g. qemu), if any:
    /// its timings are the emulator's, not a device's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Startup {
    /// Load phase (schema, initial data, commit).
    pub load_ns: u64,
    /// Opening the engine in the replay process.
    pub open_ns: u64,
    /// Replay process start to the first measured operation.
    pub process_start_to_first_op_ns: u64,
    /// Parent's spawn of the replay process to the first measured operation.
    pub spawn_to_first_op_ns: u64,
}

/// A phase of the replay outside the operations.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PhaseSummary {
    pub ns: u64,
    /// By file kind, with `total`.
    pub io: BTreeMap<String, IoStats>,
}

/// Counters by file kind with their `total` added.
fn with_total(by_kind: &BTreeMap<String, IoStats>) -> BTreeMap<String, IoStats> {
    let mut io = by_kind.clone();
    let mut total = IoStats::default();
    for s in io.values() {
        total.add(s);
    }
    io.insert("total".into(), total);
    io
}

/// Assemble the summary of `out` from its aggregated samples.
pub fn build(
    out: &RunOutput,
    agg: &Aggregator,
    max_backlog: u64,
    created_at: String,
) -> RunSummary {
    let r = &out.report;
    let wall_ns = r.run_end_ns.saturating_sub(r.run_start_ns);
    let open = out.pacing == crate::run::pacer::Pacing::Open;
    let io = with_total(&r.io_by_kind);
    let io_phases = r
        .phases
        .iter()
        .map(|(name, p)| {
            let s = PhaseSummary {
                ns: p.ns,
                io: with_total(&p.io_by_kind),
            };
            (name.clone(), s)
        })
        .collect();
    let mut environment =
        serde_json::to_value(Environment::capture()).unwrap_or(serde_json::Value::Null);
    if out.platform.governor.control == "set" {
        // Captured after the restore: say what was in force during the run instead.
        environment["governor"] = serde_json::json!({
            "value": out.platform.governor.requested,
            "how": "set by pocketbench for the run, restored afterwards (see `governor`)",
        });
    }
    RunSummary {
        id: 0,
        created_at,
        tool_version: crate::TOOL_VERSION.to_string(),
        workload: out.header.workload.clone(),
        engine: r.engine.clone(),
        pacing: if open { "open" } else { "think" }.to_string(),
        delay: out.delay.clone(),
        seed: out.header.seed,
        delay_seed: out.delay_seed,
        trace: TraceRef {
            digest: out.trace_totals.digest_hex(),
            load_ops: out.trace_totals.load_ops,
            run_ops: out.trace_totals.run_ops,
        },
        phases: Phases {
            mode: out.mode.to_string(),
            cache: out.cache.clone(),
            timer_slack_ns: r.timer_slack_ns,
            runner: r.runner.clone(),
        },
        ops: r.ops,
        errors: r.errors,
        errors_by_kind: agg.errors(),
        divergences: if out.header.import.is_some() {
            r.errors
        } else {
            0
        },
        first_error: r
            .first_error
            .as_ref()
            .map(|(seq, msg)| format!("operation {seq}: {msg}")),
        failed_operations: r
            .failed
            .iter()
            .map(|(seq, msg)| format!("operation {seq}: {msg}"))
            .collect(),
        wall_ns,
        throughput_ops_per_s: if wall_ns == 0 {
            0.0
        } else {
            r.ops as f64 * 1e9 / wall_ns as f64
        },
        latency_us: agg.latency(),
        response_time_us: open.then(|| agg.response()),
        schedule: open.then(|| agg.schedule(max_backlog)),
        time: agg.time,
        cpu_accounting: r.cpu_accounting.clone(),
        sleep_overshoot_us: agg.sleep_overshoot(),
        io,
        io_phases,
        startup: Startup {
            load_ns: out.load.elapsed_ns,
            open_ns: r.open_ns,
            process_start_to_first_op_ns: r.first_op_start_ns.saturating_sub(r.process_start_ns),
            spawn_to_first_op_ns: r.first_op_start_ns.saturating_sub(out.spawn_ns),
        },
        overhead: out.overhead,
        process: r.process,
        environment,
        governor: Some(out.platform.governor.clone()),
        frequency: Some(out.platform.frequency.clone()),
        energy: Some(out.platform.energy.clone()),
        background: out.platform.background.clone(),
        markers: out.platform.markers,
        flash: out.flash.clone(),
        verification: r.verification,
        engine_stats: r.engine_stats.clone(),
        connections: r.connections.clone(),
        device: None,
        thermal: out.platform.thermal.clone(),
    }
}
