//! `pocketbench models`: the data-model study — one e-commerce schema ([`data`]), six tests of
//! ten parameterised executions each ([`query`]), run on relational engines ([`sqlite`],
//! [`sql_engine`] for BerkeleyDB's SQL front end), the
//! key-value engines with the plans an app would write ([`kv`]), a document store
//! ([`docstore`], PoloDB) and an object store ([`objectstore`], native_db), at every scale
//! asked for. Per engine and scale: the time to create the database, the insert rate, and per
//! test each execution's wall time, CPU time and I/O; every execution's answer is checked
//! against every other engine's ([`crosscheck`]). [`args`] holds the command's flags,
//! [`render`] its text.
//!
//! Running the study is the default feature `models`; device builds leave it out (size) and
//! refuse a run ([`unavailable`]) before any work, while stored runs still print and report.

pub mod args;
pub mod data;
#[cfg(feature = "model-stores")]
pub mod docstore;
pub mod jvm;
pub mod kv;
#[cfg(feature = "model-stores")]
pub mod objectstore;
pub mod query;
pub mod render;
pub mod sql_engine;
pub mod sqlite;
pub mod study;

use crate::error::{Error, Result};
use crate::platform::clock::{mono_ns, thread_cpu_ns};
use data::DataSet;
use query::{Answer, Query, Test};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The results store's kind for data-model runs.
pub const SUITE: &str = "models";

/// Whether this build runs the study (feature `models`).
pub const AVAILABLE: bool = cfg!(feature = "models");

/// Why a study run is refused by a build without the feature `models`.
pub fn unavailable() -> Error {
    Error::not_built("models", "models", "data-model study runner")
}

/// An engine as the study uses it: load the tuples, answer an execution.
pub trait ModelStore {
    /// Insert every tuple (one transaction, or the engine's bulk load).
    fn insert(&mut self, data: &DataSet) -> Result<()>;
    fn query(&mut self, q: &Query) -> Result<Answer>;
}

/// What kind of store an engine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Relational,
    KeyValue,
    Document,
    Object,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Relational => "relational",
            Kind::KeyValue => "key-value",
            Kind::Document => "document",
            Kind::Object => "object",
        }
    }
}

/// Relational engines besides the bundled SQLite that the study runs where they are built.
const SQL_ENGINES: [&str; 1] = ["berkeleydb-sql"];
/// The key-value engines the study runs where they are built.
const KV_ENGINES: [&str; 5] = ["lmdb", "redb", "rocksdb", "leveldb", "berkeleydb"];

/// Every study engine of this build, in the study's order: `sqlite` (and `berkeleydb-sql`
/// where built), then each key-value
/// engine without and with its app-maintained indexes (`lmdb`, `lmdb+index`, …), then `polodb`
/// and `native_db` (feature `model-stores`).
pub fn engines() -> Vec<String> {
    let mut out = vec!["sqlite".to_string()];
    for e in SQL_ENGINES {
        if crate::engine::descriptor(e).is_ok() {
            out.push(e.to_string());
        }
    }
    if jvm::available() {
        out.extend(
            jvm::ENGINES
                .iter()
                .filter(|e| jvm::runs_here(e))
                .map(|e| e.to_string()),
        );
    }
    for e in KV_ENGINES {
        if crate::engine::descriptor(e).is_ok() {
            out.push(e.to_string());
            out.push(format!("{e}+index"));
        }
    }
    if cfg!(feature = "model-stores") {
        out.push("polodb".into());
        out.push("native_db".into());
    }
    out
}

/// The kind of study engine `name`.
pub fn kind(name: &str) -> Kind {
    match name {
        "sqlite" | "berkeleydb-sql" | "h2" | "sqlite-jdbc" => Kind::Relational,
        "polodb" | "nitrite" => Kind::Document,
        "native_db" | "objectbox" => Kind::Object,
        _ => Kind::KeyValue,
    }
}

/// The role `name` plays in the study, and whether mobile apps ship it: the study's findings
/// are about the engines users choose between.
pub fn role(name: &str) -> (&'static str, bool) {
    match name {
        "sqlite" => (
            "relational: the study's SQLite, bundled with Android and iOS",
            true,
        ),
        "h2" => (
            "relational: a Java SQL database some Android apps embed",
            true,
        ),
        "sqlite-jdbc" => (
            "relational: SQLite reached from Java, in the JVM stores' runtime",
            true,
        ),
        "berkeleydb-sql" => (
            "relational: BerkeleyDB's SQLite-compatible front end",
            false,
        ),
        "nitrite" => (
            "document: Couchbase Lite's role; the document store Android apps ship",
            true,
        ),
        "objectbox" => (
            "object: db4o's role; the object database Android apps ship",
            true,
        ),
        "polodb" => ("document: a Rust stand-in (no mobile app ships it)", false),
        "native_db" => ("object: a Rust stand-in (no mobile app ships it)", false),
        n if n.ends_with("+index") => ("key-value: hand-written plans and app-kept indexes", false),
        _ => (
            "key-value: hand-written plans over get, put and scan",
            false,
        ),
    }
}

/// Create study engine `name`'s database in `dir` (files and schema).
pub fn create(name: &str, dir: &Path) -> Result<Box<dyn ModelStore>> {
    match name {
        "sqlite" => sqlite::create(dir),
        e if SQL_ENGINES.contains(&e) => sql_engine::create(e, dir),
        e if jvm::ENGINES.contains(&e) => Err(Error::input(format!(
            "{e} runs in the JVM driver: `pocketbench models` measures it there"
        ))),
        #[cfg(feature = "model-stores")]
        "polodb" => docstore::create(dir),
        #[cfg(feature = "model-stores")]
        "native_db" => objectstore::create(dir),
        _ => match name.strip_suffix("+index") {
            Some(kv) => kv::create(kv, true, dir),
            None => kv::create(name, false, dir),
        },
    }
}

/// Bytes of I/O a thread made: through read/write calls (`rchar`, `wchar`) and from or to
/// storage (`read_bytes`, `write_bytes`), from `/proc/thread-self/io`; zeros where unreadable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadIo {
    pub rchar: u64,
    pub wchar: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

impl ThreadIo {
    pub fn now() -> ThreadIo {
        let text = std::fs::read_to_string("/proc/thread-self/io").unwrap_or_default();
        let get = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(": ")?.trim().parse().ok())
                .unwrap_or(0)
        };
        ThreadIo {
            rchar: get("rchar"),
            wchar: get("wchar"),
            read_bytes: get("read_bytes"),
            write_bytes: get("write_bytes"),
        }
    }

    fn since(self, before: ThreadIo) -> ThreadIo {
        ThreadIo {
            rchar: self.rchar.saturating_sub(before.rchar),
            wchar: self.wchar.saturating_sub(before.wchar),
            read_bytes: self.read_bytes.saturating_sub(before.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(before.write_bytes),
        }
    }
}

/// One execution of a test.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Execution {
    pub wall_ns: u64,
    pub cpu_ns: u64,
    pub io: ThreadIo,
    pub rows: u64,
    pub checksum: String,
}

/// One test on one engine at one scale.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestResult {
    pub test: Test,
    pub executions: Vec<Execution>,
    /// Set when the budget ran out before every execution ran.
    pub exceeded_budget: Option<String>,
    pub total_ns: u64,
    pub mean_ns: u64,
    pub queries_per_s: f64,
    pub p50_ns: u64,
    pub p95_ns: u64,
}

/// One engine at one scale.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EngineScale {
    pub engine: String,
    pub kind: Kind,
    pub tuples: u32,
    /// People and transactions.
    pub rows: u64,
    pub create_ns: u64,
    pub insert_ns: u64,
    pub inserts_per_s: f64,
    pub tests: Vec<TestResult>,
    /// The create phase's thread counters (absent from runs stored before they were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_counters: Option<Counters>,
    /// The insert phase's thread counters (likewise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_counters: Option<Counters>,
}

/// What a phase's thread did besides its wall time: its CPU time and its I/O.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    pub cpu_ns: u64,
    pub io: ThreadIo,
}

/// Time `f` on this thread: its wall time and its [`Counters`].
fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, u64, Counters)> {
    let io0 = ThreadIo::now();
    let (w0, c0) = (mono_ns(), thread_cpu_ns());
    let out = f()?;
    let (w1, c1) = (mono_ns(), thread_cpu_ns());
    let counters = Counters {
        cpu_ns: c1.saturating_sub(c0),
        io: ThreadIo::now().since(io0),
    };
    Ok((out, w1 - w0, counters))
}

impl EngineScale {
    /// Create, insert and every test run.
    pub fn total_ns(&self) -> u64 {
        self.create_ns + self.insert_ns + self.tests.iter().map(|t| t.total_ns).sum::<u64>()
    }
}

/// An execution whose answer differed between two engines.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Mismatch {
    pub tuples: u32,
    pub test: Test,
    pub execution: usize,
    pub engines: (String, String),
    pub answers: (String, String),
}

/// A whole `models` run as stored (results store kind `models`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelsRun {
    #[serde(default)]
    pub id: i64,
    pub created_at: String,
    pub tool_version: String,
    pub seed: u64,
    pub per_person: u32,
    pub budget_ns: u64,
    /// The think time between executions (`zero`: back to back).
    #[serde(default)]
    pub think: String,
    /// The CPU governor: set as asked, or observed (and why).
    #[serde(default)]
    pub governor: Option<crate::platform::cpufreq::control::GovernorOutcome>,
    pub engines: Vec<String>,
    pub scales: Vec<u32>,
    pub results: Vec<EngineScale>,
    pub mismatches: Vec<Mismatch>,
}

/// What a `models` run does.
#[derive(Clone, Debug)]
pub struct Request {
    pub engines: Vec<String>,
    pub scales: Vec<u32>,
    pub tests: Vec<Test>,
    pub per_person: u32,
    pub seed: u64,
    pub budget_ns: u64,
    /// Where the scratch databases go.
    pub parent: std::path::PathBuf,
    /// Pause between a test's executions.
    pub think: crate::workload::delay::DelayModel,
    /// The governor to set for the study (`None`: observe it).
    pub governor: Option<crate::platform::cpufreq::request::GovernorRequest>,
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Run `test`'s executions on `store`, stopping once they have taken more than `budget_ns`;
/// `think` draws the pause before each execution but the first (slept, not timed).
pub fn run_test(
    store: &mut dyn ModelStore,
    test: Test,
    queries: &[Query],
    budget_ns: u64,
    mut think: Option<&mut crate::workload::delay::DelaySampler>,
) -> Result<TestResult> {
    let mut executions = Vec::with_capacity(queries.len());
    let mut exceeded = None;
    let mut spent = 0u64;
    for (i, q) in queries.iter().enumerate() {
        if i > 0 {
            if let Some(t) = think.as_deref_mut() {
                let pause = t.next(i as u64 - 1);
                if pause > 0 {
                    crate::platform::clock::sleep_until(mono_ns() + pause);
                }
            }
        }
        if spent > budget_ns {
            exceeded = Some(format!(
                "exceeded budget: {} of {} executions in {}",
                executions.len(),
                queries.len(),
                crate::output::units::ns(spent)
            ));
            break;
        }
        let io0 = ThreadIo::now();
        let (w0, c0) = (mono_ns(), thread_cpu_ns());
        let answer = store.query(q)?;
        let (w1, c1) = (mono_ns(), thread_cpu_ns());
        let io = ThreadIo::now().since(io0);
        spent += w1 - w0;
        executions.push(Execution {
            wall_ns: w1 - w0,
            cpu_ns: c1.saturating_sub(c0),
            io,
            rows: answer.rows.len() as u64,
            checksum: answer.checksum(),
        });
    }
    Ok(summarize(test, executions, exceeded))
}

/// A test's result from its executions: total, mean, rate and percentiles of the wall times.
pub fn summarize(test: Test, executions: Vec<Execution>, exceeded: Option<String>) -> TestResult {
    let spent: u64 = executions.iter().map(|e| e.wall_ns).sum();
    let mut walls: Vec<u64> = executions.iter().map(|e| e.wall_ns).collect();
    walls.sort_unstable();
    let n = walls.len().max(1) as u64;
    TestResult {
        test,
        exceeded_budget: exceeded,
        total_ns: spent,
        mean_ns: spent / n,
        queries_per_s: if spent > 0 {
            executions.len() as f64 * 1e9 / spent as f64
        } else {
            0.0
        },
        p50_ns: percentile(&walls, 0.50),
        p95_ns: percentile(&walls, 0.95),
        executions,
    }
}

/// One engine at one scale, in a fresh scratch directory under `parent`.
fn run_engine(req: &Request, engine: &str, data: &DataSet, tuples: u32) -> Result<EngineScale> {
    let scratch = crate::platform::cleanup::TempDir::new("pocketbench-models-", Some(&req.parent))
        .map_err(|e| Error::failed(format!("{}: {e}", req.parent.display())))?;
    if jvm::ENGINES.contains(&engine) {
        return jvm::run_engine(req, engine, data, tuples, scratch.path());
    }
    let (mut store, create_ns, create_counters) = timed(|| create(engine, scratch.path()))?;
    let ((), insert_ns, insert_counters) = timed(|| store.insert(data))?;
    let insert_ns = insert_ns.max(1);
    let mut tests = Vec::new();
    let mut think = req.think.sampler(req.seed);
    for &test in &req.tests {
        let queries = query::executions(test, req.seed, tuples);
        tests.push(run_test(
            store.as_mut(),
            test,
            &queries,
            req.budget_ns,
            think.as_mut(),
        )?);
    }
    drop(store);
    Ok(EngineScale {
        engine: engine.to_string(),
        kind: kind(engine),
        tuples,
        rows: data.rows(),
        create_ns,
        insert_ns,
        inserts_per_s: data.rows() as f64 * 1e9 / insert_ns as f64,
        tests,
        create_counters: Some(create_counters),
        insert_counters: Some(insert_counters),
    })
}

/// Every execution's answer compared across the engines that ran it: the first engine's
/// answer is the one the others must give.
pub fn crosscheck(results: &[EngineScale]) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for b in results {
        let Some(a) = results.iter().find(|a| a.tuples == b.tuples) else {
            continue;
        };
        if std::ptr::eq(a, b) {
            continue;
        }
        for ta in &a.tests {
            let Some(tb) = b.tests.iter().find(|t| t.test == ta.test) else {
                continue;
            };
            for (k, (ea, eb)) in ta.executions.iter().zip(&tb.executions).enumerate() {
                if ea.checksum != eb.checksum {
                    out.push(Mismatch {
                        tuples: a.tuples,
                        test: ta.test,
                        execution: k + 1,
                        engines: (a.engine.clone(), b.engine.clone()),
                        answers: (
                            format!("{} rows, checksum {}", ea.rows, ea.checksum),
                            format!("{} rows, checksum {}", eb.rows, eb.checksum),
                        ),
                    });
                }
            }
        }
    }
    out
}

/// Run the request: every scale, every engine, under the governor asked for (restored after,
/// also when a run fails).
pub fn measure(req: &Request) -> Result<ModelsRun> {
    use crate::platform::cpufreq::{control, discover};
    if !AVAILABLE {
        return Err(unavailable());
    }
    let root = crate::platform::sysfs::sysfs_root();
    let cf = discover(&root);
    let governor = req
        .governor
        .as_ref()
        .map(|g| control::apply(g, &cf, &root))
        .transpose()?;
    let mut results = Vec::new();
    let steps = req.scales.len() * req.engines.len();
    // How long before it starts: every test stops at its budget, so this bounds the whole.
    let bound = std::time::Duration::from_nanos(
        req.budget_ns
            .saturating_mul((steps * req.tests.len()) as u64),
    );
    crate::output::progress::phase(&format!(
        "models: {} engine(s) × {} scale(s) × {} test(s); each test stops at its --budget, so at most {} (small scales take seconds)",
        req.engines.len(),
        req.scales.len(),
        req.tests.len(),
        crate::output::units::clock(bound)
    ));
    let mut counter = crate::output::progress::RunCounter::of(steps, "step");
    for &tuples in &req.scales {
        let data = DataSet::generate(req.seed, tuples, req.per_person);
        for engine in &req.engines {
            counter.start(&format!("models: {engine}, {tuples} tuples"));
            results.push(run_engine(req, engine, &data, tuples)?);
            counter.finish_one();
        }
    }
    counter.finish();
    let governor = match governor {
        Some(c) => c.finish(),
        None => control::observe(&cf),
    };
    let mismatches = crosscheck(&results);
    Ok(ModelsRun {
        id: 0,
        created_at: crate::platform::clock::utc_now(),
        tool_version: crate::TOOL_VERSION.into(),
        seed: req.seed,
        per_person: req.per_person,
        budget_ns: req.budget_ns,
        think: req.think.to_string(),
        governor: Some(governor),
        engines: req.engines.clone(),
        scales: req.scales.clone(),
        results,
        mismatches,
    })
}
