//! The replay process. By default the run phase happens in a fresh process, as on a phone where
//! the app that queries the database is not the one that created it: the parent re-executes its
//! own binary with the hidden `__replay` command and a [`ReplaySpec`]; the child opens the
//! engine, replays the trace, streams samples to a spool file and writes a [`ReplayReport`].

use super::pacer::Pacing;
use super::replay::{replay, Delays, ReplayTotals, SampleSink};
use super::sample::OpSample;
use crate::engine::io::{FileKind, IoStats};
use crate::engine::{self, Engine, EngineInfo};
use crate::error::{Error, Result, ResultExt};
use crate::platform::clock::mono_ns;
use crate::platform::observe::{Observation, ObserveSpec, Observer};
use crate::platform::process::ProcessCounters;
use crate::workload::delay::DelayModel;
use crate::workload::trace::TraceReader;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the replay process must do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplaySpec {
    pub trace: PathBuf,
    pub data_dir: PathBuf,
    pub engine: String,
    pub options: Vec<(String, String)>,
    pub pacing: Pacing,
    /// Delay model overriding the trace's delays.
    pub delay: Option<String>,
    pub seed: u64,
    /// Replay an imported trace's connections as one stream.
    #[serde(default)]
    pub merge_connections: bool,
    /// The order kept across connections.
    #[serde(default)]
    pub order: super::order::Order,
    pub spool: PathBuf,
    pub report: PathBuf,
    /// Folders on other file systems that take the spool and the report when the work folder
    /// fills up ([`super::spill`]).
    #[serde(default)]
    pub spill: Vec<PathBuf>,
    /// Frequency and energy to observe beside the replay.
    #[serde(default)]
    pub observe: ObserveSpec,
    /// Capture the flash I/O trace of the run phase into this file.
    #[serde(default)]
    pub flash_trace: Option<PathBuf>,
}

/// What the replay process measured besides the samples.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayReport {
    pub engine: EngineInfo,
    /// CLOCK_MONOTONIC when the replaying process started (system-wide clock).
    pub process_start_ns: u64,
    /// Time to open the engine (connection, pragmas, statement preparation).
    pub open_ns: u64,
    pub ops: u64,
    pub errors: u64,
    pub first_error: Option<(u64, String)>,
    /// The first failed operations one by one (sequence number, message).
    #[serde(default)]
    pub failed: Vec<(u64, String)>,
    pub run_start_ns: u64,
    pub run_end_ns: u64,
    pub first_op_start_ns: u64,
    pub io_by_kind: BTreeMap<String, IoStats>,
    pub process: ProcessCounters,
    pub timer_slack_ns: Option<u64>,
    /// Frequency and energy observed beside the replay.
    #[serde(default)]
    pub observation: Option<Observation>,
    /// Read-your-writes check of the run (key-value workloads).
    #[serde(default)]
    pub verification: super::verify::Verification,
    /// How each operation's CPU time was measured (`per-operation`, `batch:N`).
    #[serde(default)]
    pub cpu_accounting: String,
    /// Engine counters (compactions, stalls, …) before and after the run.
    #[serde(default)]
    pub engine_stats: BTreeMap<String, crate::engine::StatChange>,
    /// Time and I/O outside the operations: `open` (opening the engine and preparing its
    /// statements; SQLite maps its WAL index here) and `close` (closing it after the last
    /// operation; SQLite's WAL checkpoint happens here).
    #[serde(default)]
    pub phases: BTreeMap<String, PhaseReport>,
    /// The wrapper the replay process was started through ([`RUNNER_VAR`]); set by the
    /// parent that started it.
    #[serde(default)]
    pub runner: Option<String>,
    /// An imported trace replayed with its connections kept: what each connection did.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub connections: BTreeMap<String, super::connections::ConnectionReport>,
    /// The spool's continuations in spill folders, in order, when the work folder filled.
    #[serde(default)]
    pub spool_parts: Vec<PathBuf>,
    /// Why the spool left the work folder, when it did.
    #[serde(default)]
    pub spool_note: Option<String>,
}

/// The time and I/O of a phase of the replay that belongs to no operation.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PhaseReport {
    pub ns: u64,
    pub io_by_kind: BTreeMap<String, IoStats>,
}

/// Measure `f` on this thread (whose I/O counters the engines' hooks feed).
pub fn phase<R>(f: impl FnOnce() -> R) -> (R, PhaseReport) {
    let before = crate::engine::io::thread_counters();
    let t0 = mono_ns();
    let r = f();
    let ns = mono_ns() - t0;
    let io = crate::engine::io::thread_counters().minus(&before);
    let report = PhaseReport {
        ns,
        io_by_kind: by_kind(&io),
    };
    (r, report)
}

/// Close `engine` and measure it.
pub fn close(engine: Box<dyn Engine>) -> PhaseReport {
    phase(|| drop(engine)).1
}

/// Counters by file kind name, every kind present.
fn by_kind(io: &crate::engine::io::IoCounters) -> BTreeMap<String, IoStats> {
    FileKind::ALL
        .iter()
        .map(|k| (k.name().to_string(), *io.kind(*k)))
        .collect()
}

impl SampleSink for super::spill::Spool {
    fn record(&mut self, sample: &OpSample) -> Result<()> {
        super::spill::Spool::record(self, sample)
    }
}

/// Entry point of `pocketbench __replay SPEC.json`.
pub fn main(spec_path: &Path) -> Result<()> {
    // Die with the parent, even a SIGKILLed one: it owns the run (and any governor setting).
    // SAFETY: PR_SET_PDEATHSIG takes a plain signal number.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) };
    let text = std::fs::read_to_string(spec_path)
        .run_err(format!("replay spec {}", spec_path.display()))?;
    let spec: ReplaySpec = serde_json::from_str(&text).run_err("replay spec")?;
    let started = crate::platform::clock::process_start_ns();
    if let Some(p) = &spec.flash_trace {
        crate::run::flash_hook::child_begin(
            p,
            &crate::run::flash_hook::engine_label(&spec.engine, &spec.options),
        )?;
    }
    let mut reader = TraceReader::open(&spec.trace)?;
    let (engine, open) = phase(|| -> Result<_> {
        let mut engine = engine::open(&spec.engine, &spec.options, &spec.data_dir)?;
        engine.create_schema(&reader.header().workload.model)?;
        Ok(engine)
    });
    let mut engine = engine?;
    let mut report = replay_with(engine.as_mut(), &mut reader, &spec, started, open.ns)?;
    report.phases.insert("open".into(), open);
    report.phases.insert("close".into(), close(engine));
    if spec.flash_trace.is_some() {
        crate::run::flash_hook::child_finish()?;
    }
    let json = serde_json::to_vec(&report).run_err("replay report")?;
    super::spill::write_report(&spec.report, &spec.spill, &json)
}

/// Replay `reader` on an open engine according to `spec` and describe the result.
pub fn replay_with(
    engine: &mut dyn Engine,
    reader: &mut TraceReader,
    spec: &ReplaySpec,
    process_start_ns: u64,
    open_ns: u64,
) -> Result<ReplayReport> {
    let timer_slack_ns = crate::platform::clock::set_timer_slack(1);
    let delay = spec.delay.as_deref().map(DelayModel::parse).transpose()?;
    let mut sink = super::spill::Spool::create(&spec.spool, &spec.spill)?;
    // SAFETY: gettid has no arguments.
    let observer = Observer::start(&spec.observe, unsafe { libc::gettid() });
    let connections = reader.header().import.as_ref().map_or(1, |i| i.connections);
    let mut by_connection = BTreeMap::new();
    let totals = if reader.version() >= crate::workload::trace::VERSION_2
        && connections > 1
        && !spec.merge_connections
    {
        let open = || engine::open(&spec.engine, &spec.options, &spec.data_dir);
        let plan = match spec.order {
            super::order::Order::Recorded => {
                let wal = spec
                    .options
                    .iter()
                    .any(|(k, v)| k == "journal_mode" && v.eq_ignore_ascii_case("wal"));
                Some(super::order::Plan::of(&spec.trace, !wal)?)
            }
            super::order::Order::Time => None,
        };
        let (totals, conns) =
            super::connections::replay(reader, connections, &open, plan.as_ref(), &mut sink)?;
        by_connection = conns;
        totals
    } else {
        replay(
            engine,
            reader,
            spec.pacing,
            Delays::new(delay.as_ref(), spec.seed),
            &mut sink,
        )?
    };
    let observation = observer.finish();
    let (spool_parts, spool_note) = sink.finish()?;
    let mut report = report(
        engine.info(),
        totals,
        process_start_ns,
        open_ns,
        timer_slack_ns,
    );
    report.observation = Some(observation);
    report.connections = by_connection;
    report.spool_parts = spool_parts;
    report.spool_note = spool_note;
    Ok(report)
}

fn report(
    engine: EngineInfo,
    t: ReplayTotals,
    process_start_ns: u64,
    open_ns: u64,
    timer_slack_ns: Option<u64>,
) -> ReplayReport {
    let io_by_kind = by_kind(&t.io);
    ReplayReport {
        engine,
        process_start_ns,
        open_ns,
        ops: t.ops,
        errors: t.errors,
        first_error: t.first_error,
        failed: t.failed,
        run_start_ns: t.run_start_ns,
        run_end_ns: t.run_end_ns,
        first_op_start_ns: t.first_op_start_ns,
        io_by_kind,
        process: t.process,
        timer_slack_ns,
        observation: None,
        verification: t.verification,
        cpu_accounting: t.cpu_accounting.to_string(),
        engine_stats: t.engine_stats,
        phases: BTreeMap::new(),
        runner: None,
        connections: BTreeMap::new(),
        spool_parts: Vec::new(),
        spool_note: None,
    }
}

/// The environment variable naming a wrapper the replay process is started through, as
/// cargo's target runners: `POCKETBENCH_RUNNER=qemu-aarch64-static` runs an ARM build's
/// replay under qemu on a host that cannot execute it directly (no binfmt_misc).
pub const RUNNER_VAR: &str = "POCKETBENCH_RUNNER";

/// The wrapper from [`RUNNER_VAR`], if set: its words (program, then arguments). Refused
/// (bad input, before anything is measured) when its program is not found.
pub fn runner() -> Result<Option<Vec<String>>> {
    let Some(text) = std::env::var_os(RUNNER_VAR) else {
        return Ok(None);
    };
    let text = text.to_string_lossy().into_owned();
    let words: Vec<String> = text.split_whitespace().map(String::from).collect();
    let Some(program) = words.first() else {
        return Ok(None);
    };
    let found = if program.contains('/') {
        std::path::Path::new(program).is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
    };
    if !found {
        return Err(Error::input(format!(
            "{RUNNER_VAR}={}: no such program (on PATH)",
            crate::limits::escape(&text)
        )));
    }
    Ok(Some(words))
}

/// The command that starts this binary again (the replay process, the durability workload):
/// directly, or behind the runner (returned as written, for the result). Never falls back to
/// running in this process.
///
/// Without a runner it starts `/proc/self/exe` where there is one: the image this process
/// runs, even when the file it came from was replaced meanwhile (a rebuild or an upgrade
/// during a long `advise`), where the path would name the new file or nothing.
pub fn self_command() -> Result<(std::process::Command, Option<String>)> {
    let exe = std::env::current_exe().run_err("locating the pocketbench binary")?;
    Ok(match runner()? {
        Some(words) => {
            let mut c = std::process::Command::new(&words[0]);
            c.args(&words[1..]).arg(exe);
            (c, Some(words.join(" ")))
        }
        None => (this_image(exe), None),
    })
}

#[cfg(target_os = "linux")]
fn this_image(exe: std::path::PathBuf) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    let image = std::path::Path::new("/proc/self/exe");
    if !image.exists() {
        return std::process::Command::new(exe);
    }
    let mut c = std::process::Command::new(image);
    c.arg0(exe);
    c
}

#[cfg(not(target_os = "linux"))]
fn this_image(exe: std::path::PathBuf) -> std::process::Command {
    std::process::Command::new(exe)
}

/// Run the replay in a fresh process and wait for it. The child's stderr passes through; its
/// exit status keeps the error kind (2 bad input, 1 failure).
pub fn spawn(spec: &ReplaySpec) -> Result<ReplayReport> {
    let spec_path = spec.report.with_extension("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(spec).run_err("replay spec")?)
        .run_err(format!("writing {}", spec_path.display()))?;
    let (mut command, runner) = self_command()?;
    let mut child = crate::platform::signals::unblocked(&mut command)
        .arg("__replay")
        .arg(&spec_path)
        .stdin(std::process::Stdio::null())
        .spawn()
        .run_err("starting the replay process")?;
    // A SIGTERM to this process stops the replay too (see platform::signals).
    crate::platform::signals::register_child(child.id(), false);
    let status = child.wait();
    crate::platform::signals::unregister_child(child.id());
    crate::platform::signals::wait_if_terminating();
    let status = status.run_err("waiting for the replay process")?;
    match status.code() {
        Some(0) => {}
        Some(2) => {
            return Err(Error::input(
                "the replay process rejected its input (see the message above)",
            ))
        }
        Some(c) => {
            return Err(Error::failed(format!(
                "the replay process failed with status {c}"
            )))
        }
        None => return Err(Error::failed("the replay process was killed by a signal")),
    }
    let text = super::spill::read_report(&spec.report, &spec.spill, child.id())?;
    let mut report: ReplayReport = serde_json::from_slice(&text).run_err("replay report")?;
    report.runner = runner;
    Ok(report)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The image this process runs is started, not the file its path names now; the path is
    /// still what the child sees as its name.
    #[test]
    fn this_binary_is_started_from_its_running_image() {
        let exe = std::env::current_exe().unwrap();
        let c = super::this_image(exe.clone());
        assert_eq!(c.get_program(), "/proc/self/exe");
        // The image's path resolves to this test binary while it runs.
        assert_eq!(std::fs::read_link("/proc/self/exe").unwrap(), exe);
    }
}
