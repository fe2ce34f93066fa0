//! Running a benchmark: generate (or take) the trace, load the database in this process, evict
//! it from the page cache, replay the trace in a fresh process with the pacer and the per-op
//! recorder, and measure the harness's own overhead on the null engine. The JVM engines take
//! the same path through the JVM driver ([`jvm`]).

pub mod args;
pub mod child;
pub mod connections;
pub mod flash_hook;
pub mod jvm;
pub mod load;
pub mod materialize;
pub mod order;
pub mod overhead;
pub mod pacer;
pub mod replay;
pub mod sample;
pub mod screen;
pub mod spill;
pub mod verify;

use crate::engine;
use crate::error::{Error, Result, ResultExt};
use crate::platform::cache::{self, CacheState};
use crate::platform::clock::mono_ns;
use crate::workload::delay::{self, DelayModel};
use crate::workload::trace::{self, TraceHeader, TraceReader, TraceTotals};
use crate::workload::{resolve, Overrides};
use child::{ReplayReport, ReplaySpec};
use flash_hook::FlashRequest;
use pacer::Pacing;
use std::path::{Path, PathBuf};

/// Where the operations come from.
#[derive(Clone, Debug)]
pub enum WorkloadChoice {
    /// A built-in name or a workload file, generated into a trace for this run.
    Spec { spec: String, overrides: Overrides },
    /// A trace written earlier by `pocketbench trace gen`.
    Trace(PathBuf),
}

/// Everything `pocketbench run` was asked to do.
#[derive(Clone, Debug)]
pub struct RunRequest {
    pub workload: WorkloadChoice,
    pub engine: String,
    pub options: Vec<(String, String)>,
    /// Explicit `--delay`; `None` uses the workload's own (recorded, spec'd, or the default).
    pub delay: Option<DelayModel>,
    pub pacing: Pacing,
    pub seed: u64,
    /// Replay in the loading process without evicting anything.
    pub warm: bool,
    /// Replay an imported trace's connections as one stream (`--merge-connections`).
    pub merge_connections: bool,
    /// The order kept across an imported trace's connections (`--order`).
    pub order: order::Order,
    /// Also drop the whole page cache (root only).
    pub drop_caches: bool,
    /// Keep the database here instead of a temporary directory.
    pub data_dir: Option<PathBuf>,
    pub measure_overhead: bool,
    /// Governor, background load, frequency and energy observation around the replay.
    pub platform: crate::platform::session::PlatformRequest,
    /// Capture the file-level I/O trace for the flash model (`--flash-trace`, `--flash-model`).
    pub flash: FlashRequest,
    /// How a JVM engine's JVM runs (`--jvm-mode`).
    pub jvm_mode: jvm::JvmMode,
}

impl RunRequest {
    /// A run of `workload` on `engine` with every other choice at its plainest: the engine's
    /// default options, the workload's own delays, think pacing, seed 1, replayed in a fresh
    /// process from a temporary folder, no overhead measurement, the platform's default
    /// observation, no flash capture.
    pub fn plain(workload: WorkloadChoice, engine: &str) -> RunRequest {
        RunRequest {
            workload,
            engine: engine.to_string(),
            options: Vec::new(),
            delay: None,
            pacing: Pacing::Think,
            seed: 1,
            warm: false,
            merge_connections: false,
            order: Default::default(),
            drop_caches: false,
            data_dir: None,
            measure_overhead: false,
            platform: Default::default(),
            flash: Default::default(),
            jvm_mode: Default::default(),
        }
    }
}

/// What a run produced, before it is summarised and stored.
pub struct RunOutput {
    pub header: TraceHeader,
    pub trace_totals: TraceTotals,
    pub trace_path: PathBuf,
    /// The delay model in effect (trace's, or the override).
    pub delay: String,
    /// Seed of the override delays, when `--delay` replaced the trace's own.
    pub delay_seed: Option<u64>,
    pub pacing: Pacing,
    pub load: load::LoadTotals,
    pub cache: CacheState,
    /// `fresh-process`, `warm` or `fresh-jvm`.
    pub mode: &'static str,
    /// CLOCK_MONOTONIC when the replay process was spawned (or the replay began, when warm).
    pub spawn_ns: u64,
    pub report: ReplayReport,
    /// The samples' spool: the file in the work folder, then its continuations in spill
    /// folders when that filled.
    pub spool: Vec<PathBuf>,
    /// Keeps the spill folders (and what went into them) until the run is stored.
    pub spill: Vec<crate::platform::cleanup::TempDir>,
    pub overhead: Option<overhead::Overhead>,
    /// Governor, frequency, energy and background load around the replay.
    pub platform: crate::platform::session::PlatformOutcome,
    /// The flash model's report on the run's I/O trace (`--flash-model`).
    pub flash: Option<crate::flash::ModelReport>,
    /// Keeps the temporary directory (database, trace, spool) alive until the run is stored.
    pub workdir: Workdir,
}

/// The run's working directory: a temporary one (removed on drop) or the user's `--dir`.
pub enum Workdir {
    Temp(crate::platform::cleanup::TempDir),
    Kept(PathBuf),
}

impl Workdir {
    pub fn path(&self) -> &Path {
        match self {
            Workdir::Temp(t) => t.path(),
            Workdir::Kept(p) => p,
        }
    }
}

/// The trace and delay model a run will use, prepared and validated before anything is
/// measured.
pub struct Prepared {
    pub workdir: Workdir,
    pub trace_path: PathBuf,
    pub header: TraceHeader,
    pub totals: TraceTotals,
    /// Delay override applied at replay time (only when replaying a given trace).
    pub replay_delay: Option<DelayModel>,
}

/// Validate the request and produce the trace. Every bad input is reported here, before the
/// database or the results store is touched.
pub fn prepare(req: &RunRequest) -> Result<Prepared> {
    if !req.warm {
        child::runner()?;
    }
    jvm::check(
        req,
        matches!(req.workload, WorkloadChoice::Trace(_)) && req.delay.is_some(),
    )?;
    let mut created = None;
    let workdir = match &req.data_dir {
        Some(d) => {
            if crate::output::folder::fresh(d, "--dir")? {
                created = Some(d);
            }
            Workdir::Kept(d.clone())
        }
        None => Workdir::Temp(
            crate::platform::cleanup::TempDir::new("pocketbench-", None)
                .run_err("creating a temporary directory")?,
        ),
    };
    let prepared = trace_for(req, workdir).and_then(|p| {
        if crate::engine::jvm::is_jvm(&req.engine) {
            screen::check_trace(&p.trace_path, &req.engine)?;
        }
        Ok(p)
    });
    if let (Err(_), Some(d)) = (&prepared, &req.data_dir) {
        // A refused run leaves nothing behind: not the --dir it created for the run, nor the
        // trace it wrote into one it was given.
        match created {
            Some(_) => drop(std::fs::remove_dir_all(d)),
            None => drop(std::fs::remove_file(d.join("workload.pbt"))),
        }
    }
    prepared
}

/// Write (or take) the run's trace in `workdir` and check it against the engine.
fn trace_for(req: &RunRequest, workdir: Workdir) -> Result<Prepared> {
    let (trace_path, replay_delay) = match &req.workload {
        WorkloadChoice::Trace(path) => (path.clone(), req.delay.clone()),
        WorkloadChoice::Spec { spec, overrides } => {
            let workload = resolve::resolve(spec, overrides, req.seed)?;
            let asked = if crate::quick::active() {
                resolve::full_size(spec, overrides, req.seed)?
            } else {
                workload.info.clone()
            };
            crate::limits::check_free_space(
                workdir.path(),
                crate::workload::bounds::database_bytes_estimate(&asked)
                    .saturating_add(crate::workload::bounds::trace_bytes_estimate(&asked)),
                "the trace with the loaded database",
            )?;
            let delay = match &req.delay {
                Some(d) => d.clone(),
                None => default_delay(&workload.info)?,
            };
            let path = workdir.path().join("workload.pbt");
            trace::generate(workload, &delay, req.seed, &path)?;
            (path, None)
        }
    };
    if matches!(replay_delay, Some(DelayModel::Recorded)) {
        return Err(Error::input(
            "--delay recorded: a trace replays its recorded delays by default; omit --delay",
        ));
    }
    let trace_path = if req.merge_connections {
        merged_for_run(&trace_path, workdir.path())?
    } else {
        trace_path
    };
    let (header, totals) = trace::verify(&trace_path)?;
    engine::check(&req.engine, &req.options, &header.workload.model)?;
    req.platform.check()?;
    Ok(Prepared {
        workdir,
        trace_path,
        header,
        totals,
        replay_delay,
    })
}

/// `--merge-connections` on a version 2 trace with several connections: the trace as `trace
/// import --merge-connections` would have written it (one stream, a transaction never
/// interleaved with another connection's, arguments still bound), in the work folder.
fn merged_for_run(trace_path: &Path, workdir: &Path) -> Result<PathBuf> {
    let reader = trace::TraceReader::open(trace_path)?;
    let connections = reader.header().import.as_ref().map_or(1, |i| i.connections);
    if reader.version() < trace::VERSION_2 || connections <= 1 {
        return Ok(trace_path.to_path_buf());
    }
    drop(reader);
    let out = workdir.join("merged.pbt");
    let m = crate::workload::import::merged::merge(
        trace_path,
        &out,
        crate::workload::import::convert::ArgsMode::Bind,
    )?;
    crate::output::progress::phase(&format!(
        "--merge-connections: {}",
        m.describe("as one stream, a transaction never interleaved with another's")
    ));
    Ok(out)
}

/// The delay model a workload asks for when the user gave none.
fn default_delay(info: &crate::workload::WorkloadInfo) -> Result<DelayModel> {
    if info.recorded_delays {
        return Ok(DelayModel::Recorded);
    }
    let text = info
        .params
        .get("delay")
        .map(String::as_str)
        .unwrap_or(delay::DEFAULT);
    DelayModel::parse(text)
}

/// Load, evict, replay and measure overhead (and capture the flash I/O trace when asked).
pub fn execute(req: &RunRequest, prepared: Prepared) -> Result<RunOutput> {
    if engine::jvm::is_jvm(&req.engine) {
        return jvm::execute(req, prepared);
    }
    let flash = &req.flash;
    let Prepared {
        workdir,
        trace_path,
        header,
        totals,
        replay_delay,
    } = prepared;
    let data_dir = workdir.path().join("db");
    std::fs::create_dir_all(&data_dir).run_err(format!("creating {}", data_dir.display()))?;
    let spill_dirs = spill::folders(workdir.path());
    let mut spec = ReplaySpec {
        trace: trace_path.clone(),
        data_dir: data_dir.clone(),
        engine: req.engine.clone(),
        options: req.options.clone(),
        pacing: req.pacing,
        delay: replay_delay.as_ref().map(ToString::to_string),
        seed: req.seed,
        merge_connections: req.merge_connections,
        order: req.order,
        spool: workdir.path().join("samples.spool"),
        report: workdir.path().join("replay.json"),
        spill: spill_dirs.iter().map(|d| d.path().to_path_buf()).collect(),
        observe: Default::default(),
        flash_trace: flash
            .wanted()
            .then(|| workdir.path().join("run.flashtrace")),
    };
    let flash_engine = flash_hook::engine_label(&req.engine, &req.options);

    crate::output::progress::phase(&format!(
        "loading {} operations into {}",
        totals.load_ops, req.engine
    ));
    if flash.wanted() {
        flash_hook::begin_load();
    }
    let mut engine = engine::open(&req.engine, &req.options, &data_dir)?;
    let mut reader = TraceReader::open(&trace_path)?;
    let load = load::load(engine.as_mut(), &mut reader)?;
    let mut session = crate::platform::session::Session::begin(&req.platform, workdir.path())?;
    spec.observe = session.observe_spec();
    let mut flash_records = Vec::new();

    let (cache, mode, spawn_ns, report) = if req.warm {
        crate::output::progress::phase(&format!(
            "replaying {} operations in this process (warm)",
            totals.run_ops
        ));
        let mut reader = TraceReader::open(&trace_path)?;
        let spawn_ns = mono_ns();
        if flash.wanted() {
            flash_hook::mark_run();
        }
        let mut report = child::replay_with(engine.as_mut(), &mut reader, &spec, spawn_ns, 0)?;
        report.phases.insert("close".into(), child::close(engine));
        if flash.wanted() {
            flash_records = flash_hook::end()?;
        }
        (CacheState::warm(), "warm", spawn_ns, report)
    } else {
        drop(engine);
        if flash.wanted() {
            flash_records = flash_hook::end()?;
        }
        let cache = cache::evict_dir(&data_dir, req.drop_caches);
        crate::output::progress::phase(&format!(
            "replaying {} operations in a fresh process ({})",
            totals.run_ops, cache.state
        ));
        let spawn_ns = mono_ns();
        let report = crate::output::progress::while_replaying(
            &spec.spool,
            totals.run_ops,
            sample::ENCODED_LEN as u64,
            || child::spawn(&spec),
        )?;
        (cache, "fresh-process", spawn_ns, report)
    };

    if let Some(why) = &report.spool_note {
        let went: Vec<String> = report
            .spool_parts
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "pocketbench: note: the work folder filled during the replay ({why}); the samples \
             went on in {} (until the run is stored) and none was lost",
            went.join(", ")
        );
    }
    let mut spool = vec![spec.spool.clone()];
    spool.extend(report.spool_parts.iter().cloned());
    session.baseline(report.run_end_ns.saturating_sub(report.run_start_ns));
    let child_trace = spec.flash_trace.as_deref().filter(|_| !req.warm);
    let flash = if flash.wanted() {
        crate::output::progress::phase("modelling the flash I/O trace");
        flash_hook::finish(flash, flash_records, child_trace, &spool, &flash_engine)?
    } else {
        None
    };
    let overhead = if req.measure_overhead {
        crate::output::progress::phase("measuring harness overhead on the null engine");
        Some(overhead::measure(&trace_path)?)
    } else {
        None
    };
    let delay_seed = replay_delay.is_some().then_some(req.seed);
    let platform = session.finish(
        report.observation.clone(),
        (report.run_start_ns, report.run_end_ns),
        report.ops,
    );
    let delay = replay_delay.map_or_else(|| header.delay.clone(), |d| d.to_string());
    Ok(RunOutput {
        header,
        trace_totals: totals,
        trace_path,
        delay,
        delay_seed,
        pacing: req.pacing,
        load,
        cache,
        mode,
        spawn_ns,
        report,
        spool,
        spill: spill_dirs,
        overhead,
        platform,
        flash,
        workdir,
    })
}
