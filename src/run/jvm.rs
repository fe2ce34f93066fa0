//! Runs the JVM engines (`h2`, `bdb-je`, `sqlite-jdbc`): finds a Java runtime and the JVM
//! driver's jar, writes the driver's spec (docs/jvm.md) and starts `java -jar
//! pocketbench-jvm.jar load|replay SPEC` as a child process — a fresh JVM for the load and
//! another for the replay, so a cold run starts the way an app does. The driver times every
//! operation inside the JVM and writes the same spool and report the replay process writes, so
//! the samples are stored and reported like native ones. Its exit status keeps the error kind
//! (2 bad input, 1 failure); a JVM killed by a signal is a failed run.
// Without the runner (feature jvm) only the refusal and the shared parts remain.
#![cfg_attr(not(feature = "jvm"), allow(unused_imports, dead_code))]

use super::child::ReplayReport;
use crate::error::{Error, Result, ResultExt};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Environment variable naming the driver's jar (default: found beside the build).
pub const DRIVER_VAR: &str = "POCKETBENCH_JVM_DRIVER";
/// The jar the Maven build makes (its dependencies in `lib/` beside it).
const JAR: &str = "pocketbench-jvm.jar";

/// How the JVM runs: `cold` (a fresh JVM, no warm-up, as an app starts) or `warm` (a warm-up
/// pass of the run phase first, rolled back, as a JMH-style measurement).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum JvmMode {
    #[default]
    Cold,
    Warm,
}

/// The Java runtime: `$JAVA_HOME/bin/java`, else `java` on the PATH.
pub fn java() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let j = PathBuf::from(home).join("bin/java");
        if j.is_file() {
            return Ok(j);
        }
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("java"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Error::input(
                "no Java runtime found: the JVM engines (h2, bdb-je, sqlite-jdbc, nitrite, objectbox) run in a JVM; install a JDK 17 or newer (Debian: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME",
            )
        })
}

/// The driver's jar: `$POCKETBENCH_JVM_DRIVER`, else beside this binary, else the Maven
/// build's output in the source tree this binary was built from.
pub fn driver() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(DRIVER_VAR) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::input(format!(
                "{DRIVER_VAR}={}: no such file",
                crate::limits::escape(&p.display().to_string())
            )))
        };
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            candidates.push(dir.join(JAR));
        }
    }
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("drivers/jvm/target")
            .join(JAR),
    );
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        Error::input(format!(
            "the JVM driver is not built: `mvn -f drivers/jvm/pom.xml package` builds {JAR} (or set {DRIVER_VAR} to it)"
        ))
    })
}

/// What the driver is asked to do (written as JSON; docs/jvm.md).
#[derive(Clone, Debug, Serialize)]
pub struct DriverSpec {
    pub trace: PathBuf,
    pub data_dir: PathBuf,
    pub engine: String,
    pub options: BTreeMap<String, String>,
    pub pacing: String,
    pub spool: PathBuf,
    pub report: PathBuf,
    pub jvm_mode: JvmMode,
    /// Replay without the trace's delays (the overhead pass on the null engine).
    pub no_delays: bool,
}

/// Run `java -jar DRIVER command SPEC` (the spec written to `spec_path` first) and wait for
/// it.
#[cfg(feature = "jvm")]
pub fn invoke(command: &str, spec: &impl Serialize, spec_path: &Path) -> Result<()> {
    std::fs::write(
        spec_path,
        serde_json::to_vec(spec).run_err("JVM driver spec")?,
    )
    .run_err(format!("writing {}", spec_path.display()))?;
    let (java, jar) = (java()?, driver()?);
    let (java, jar) = (
        std::path::absolute(&java).run_err("the Java runtime's path")?,
        std::path::absolute(&jar).run_err("the driver's path")?,
    );
    let mut cmd = std::process::Command::new(&java);
    // ObjectBox unpacks its native core into the working directory: the spec's own directory
    // (the run's), so parallel runs never share the file and nothing lands where the user is.
    // Every path in a spec is absolute.
    let spec_path = &std::path::absolute(spec_path).run_err("the driver spec's path")?;
    if let Some(dir) = spec_path.parent() {
        cmd.current_dir(dir);
    }
    let mut child = crate::platform::signals::unblocked(&mut cmd)
        .arg("-jar")
        .arg(&jar)
        .arg(command)
        .arg(spec_path)
        .stdin(std::process::Stdio::null())
        .spawn()
        .run_err(format!("starting {}", java.display()))?;
    crate::platform::signals::register_child(child.id(), false);
    let status = child.wait();
    crate::platform::signals::unregister_child(child.id());
    crate::platform::signals::wait_if_terminating();
    match status.run_err("waiting for the JVM driver")?.code() {
        Some(0) => Ok(()),
        Some(2) => Err(Error::input(format!(
            "the JVM driver rejected its input during {command} (see the message above)"
        ))),
        Some(c) => Err(Error::failed(format!(
            "the JVM driver failed during {command} with status {c} (see the message above)"
        ))),
        None => Err(Error::failed(format!(
            "the JVM crashed or was killed by a signal during {command}"
        ))),
    }
}

/// Create the schema and load the trace's load phase in a JVM.
#[cfg(feature = "jvm")]
pub fn load(spec: &DriverSpec, spec_path: &Path) -> Result<()> {
    invoke("load", spec, spec_path)
}

/// Replay the run phase in a fresh JVM; its report, as the replay process writes it.
#[cfg(feature = "jvm")]
pub fn replay(spec: &DriverSpec, spec_path: &Path) -> Result<ReplayReport> {
    invoke("replay", spec, spec_path)?;
    let text = std::fs::read(&spec.report).run_err("reading the JVM driver's report")?;
    serde_json::from_slice(&text).run_err("the JVM driver's report")
}

/// The checks a JVM run needs before anything is measured: a Java runtime, the driver, and
/// no request the JVM path cannot honour.
pub fn check(req: &super::RunRequest, replay_delay: bool) -> Result<()> {
    let jvm = crate::engine::jvm::is_jvm(&req.engine);
    if !jvm {
        if req.jvm_mode == JvmMode::Warm {
            return Err(Error::input(
                "--jvm-mode warm: only the JVM engines (h2, bdb-je, sqlite-jdbc, nitrite, objectbox) run in a JVM",
            ));
        }
        return Ok(());
    }
    if req.warm {
        return Err(Error::input(
            "--warm replays in this process; a JVM engine replays in a JVM (--jvm-mode warm adds a warm-up pass there)",
        ));
    }
    if req.flash.wanted() {
        return Err(Error::input(
            "--flash-trace/--flash-model: the JVM engines' file I/O is not captured",
        ));
    }
    if replay_delay {
        return Err(Error::input(
            "--delay with --trace: the JVM driver replays the trace's own delays; write a trace with the delay wanted (`pocketbench trace gen --delay …`)",
        ));
    }
    if !cfg!(feature = "jvm") {
        return Err(Error::input(NOT_IN_BUILD));
    }
    java()?;
    driver()?;
    Ok(())
}

/// Why a JVM engine is refused by a build without the JVM runner (device builds).
pub const NOT_IN_BUILD: &str = "the JVM engines (h2, bdb-je, sqlite-jdbc) need the JVM runner, which this build leaves out (feature jvm: device builds have no Java driver)";

/// The trace the driver replays. The driver reads trace version 1, so a version 2 trace (an
/// imported app's, with its connections and bound arguments) is given to it as `trace import
/// --args inline --merge-connections` writes the same log: one stream, the statements of one
/// connection's transaction never interleaved with another's, arguments as literals. Said on
/// the progress line, and in docs/app-traces.md.
#[cfg(feature = "jvm")]
fn for_the_driver(trace: &Path, dir: &Path) -> Result<PathBuf> {
    use crate::workload::trace::{TraceReader, VERSION_2};
    if TraceReader::open(trace)?.version() != VERSION_2 {
        return Ok(trace.to_path_buf());
    }
    let merged = dir.join("merged-v1.pbt");
    let m = crate::workload::import::merged::to_v1(trace, &merged)?;
    crate::output::progress::phase(&format!(
        "the JVM driver reads trace version 1: {}",
        m.describe("replayed as one stream, arguments written as literals")
    ));
    Ok(merged)
}

/// A build without the JVM runner: [`check`] has already refused the JVM engines.
#[cfg(not(feature = "jvm"))]
pub fn execute(_: &super::RunRequest, _: super::Prepared) -> Result<super::RunOutput> {
    Err(Error::input(NOT_IN_BUILD))
}

/// Load in one JVM, evict the database from the page cache, replay in a fresh JVM, and
/// measure the driver's overhead on its null store the same way.
#[cfg(feature = "jvm")]
pub fn execute(req: &super::RunRequest, prepared: super::Prepared) -> Result<super::RunOutput> {
    use crate::platform::clock::mono_ns;
    let super::Prepared {
        workdir,
        trace_path,
        header,
        totals,
        replay_delay: _,
    } = prepared;
    // Absolute: the driver runs in the run's directory (see `invoke`).
    let dir = std::path::absolute(workdir.path()).run_err("the run directory")?;
    let data_dir = dir.join("db");
    let fresh = !data_dir.exists();
    std::fs::create_dir_all(&data_dir).run_err(format!("creating {}", data_dir.display()))?;
    let driver_trace = for_the_driver(&trace_path, &dir)?;
    let spec = DriverSpec {
        trace: std::path::absolute(&driver_trace).run_err("the trace's path")?,
        data_dir: data_dir.clone(),
        engine: req.engine.clone(),
        // As the engine's option specs normalise them (`COMPRESS=On` → `compress=on`).
        options: {
            let d = crate::engine::descriptor(&req.engine)?;
            crate::engine::options::EngineOptions::validate(d.name, d.options, &req.options)?.values
        },
        pacing: req.pacing.name().into(),
        spool: dir.join("samples.spool"),
        report: dir.join("replay.json"),
        jvm_mode: req.jvm_mode,
        no_delays: false,
    };
    let spec_path = dir.join("jvm-spec.json");
    crate::output::progress::phase(&format!(
        "loading {} operations into {} (in a JVM)",
        totals.load_ops, req.engine
    ));
    let t0 = mono_ns();
    if let Err(e) = load(&spec, &spec_path) {
        // A refused or failed load leaves nothing behind: not even the empty directory.
        if fresh {
            let _ = std::fs::remove_dir_all(&data_dir);
        }
        return Err(e);
    }
    let load = super::load::LoadTotals {
        ops: totals.load_ops,
        elapsed_ns: mono_ns() - t0,
    };
    let mut session = crate::platform::session::Session::begin(&req.platform, &dir)?;
    let cache = crate::platform::cache::evict_dir(&data_dir, req.drop_caches);
    crate::output::progress::phase(&format!(
        "replaying {} operations in a fresh JVM ({}, {})",
        totals.run_ops,
        cache.state,
        match req.jvm_mode {
            JvmMode::Cold => "cold",
            JvmMode::Warm => "warm-up pass first",
        }
    ));
    let spawn_ns = mono_ns();
    let report = crate::output::progress::while_replaying(
        &spec.spool,
        totals.run_ops,
        super::sample::ENCODED_LEN as u64,
        || replay(&spec, &spec_path),
    )?;
    session.baseline(report.run_end_ns.saturating_sub(report.run_start_ns));
    let overhead = if req.measure_overhead {
        crate::output::progress::phase(
            "measuring the driver's overhead on its null store (in a JVM)",
        );
        let mut spec = spec.clone();
        spec.engine = "null".into();
        spec.data_dir = dir.join("null");
        spec.spool = dir.join("overhead.spool");
        spec.report = dir.join("overhead.json");
        spec.no_delays = true;
        spec.options.clear();
        let r = replay(&spec, &dir.join("jvm-overhead-spec.json"))?;
        Some(overhead(&spec.spool, &r)?)
    } else {
        None
    };
    let platform = session.finish(
        report.observation.clone(),
        (report.run_start_ns, report.run_end_ns),
        report.ops,
    );
    Ok(super::RunOutput {
        delay: header.delay.clone(),
        header,
        trace_totals: totals,
        trace_path,
        delay_seed: None,
        pacing: req.pacing,
        load,
        cache,
        mode: "fresh-jvm",
        spawn_ns,
        report,
        spool: vec![dir.join("samples.spool")],
        spill: Vec::new(),
        overhead,
        platform,
        flash: None,
        workdir,
    })
}

/// The overhead from the null store's samples, as the native pass reports its own.
#[cfg(feature = "jvm")]
fn overhead(spool: &Path, r: &ReplayReport) -> Result<super::overhead::Overhead> {
    use super::replay::SampleSink;
    let mut input =
        std::io::BufReader::new(std::fs::File::open(spool).run_err("the overhead samples")?);
    let mut acc = super::overhead::Accumulate::default();
    while let Some(s) =
        super::sample::OpSample::decode(&mut input).run_err("the overhead samples")?
    {
        acc.record(&s)?;
    }
    Ok(acc.overhead(r.run_start_ns, r.run_end_ns))
}
