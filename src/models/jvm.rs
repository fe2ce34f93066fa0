//! The JVM engines of the data-model study — H2 and SQLite through sqlite-jdbc (relational),
//! Nitrite (document) and ObjectBox (object), each in its own idiom — through the JVM driver (`java -jar pocketbench-jvm.jar
//! models`, docs/jvm.md): pocketbench hands over the generated tuples (tab-separated files) and
//! every execution (the test's name, its SQL and its parameters, as JSON); the driver creates
//! the database, inserts, runs and times each execution in the JVM (wall time, the thread's
//! CPU time and its I/O from `/proc/thread-self/io`, as for every engine; the create and
//! insert phases too) under the budget, and writes each answer's rows back, which are
//! checksummed here like every engine's.
// Without the runner (feature jvm) only the refusal and the shared parts remain.
#![cfg_attr(not(feature = "jvm"), allow(unused_imports, dead_code))]

use super::data::DataSet;
use super::query::{self, Answer, Query, Value};
use super::{Counters, EngineScale, Execution, Request, ThreadIo};
use crate::error::{Error, Result, ResultExt};
use std::fmt::Write as _;
use std::path::Path;

/// The study engines that run in the JVM driver.
pub const ENGINES: [&str; 4] = ["h2", "sqlite-jdbc", "nitrite", "objectbox"];

/// Whether `engine` runs here: ObjectBox's native core is published for x86_64 Linux only
/// (`objectbox-linux`; docs/models.md says what ARM needs).
pub fn runs_here(engine: &str) -> bool {
    engine != "objectbox" || std::env::consts::ARCH == "x86_64"
}

/// Whether the JVM driver can run here (a Java runtime and the driver's jar).
pub fn available() -> bool {
    cfg!(feature = "jvm") && crate::run::jvm::java().is_ok() && crate::run::jvm::driver().is_ok()
}

fn params(q: &Query) -> Vec<serde_json::Value> {
    match q {
        Query::LookupId(id) => vec![(*id).into()],
        Query::LookupName(n) => vec![n.clone().into()],
        Query::AgeRange(lo, hi) | Query::JoinAge(lo, hi) => vec![(*lo).into(), (*hi).into()],
        Query::GroupAge | Query::GroupBuyer => vec![],
    }
}

fn tsv(dir: &Path, name: &str, rows: impl Iterator<Item = String>) -> Result<std::path::PathBuf> {
    let path = dir.join(name);
    let mut text = String::new();
    for r in rows {
        let _ = writeln!(text, "{r}");
    }
    std::fs::write(&path, text).run_err(format!("writing {}", path.display()))?;
    Ok(path)
}

#[derive(serde::Deserialize)]
struct Out {
    create_ns: u64,
    insert_ns: u64,
    /// The phases' thread counters (a driver built before they were kept sends none).
    #[serde(default)]
    create: Option<Counters>,
    #[serde(default)]
    insert: Option<Counters>,
    executions: Vec<Exec>,
}

#[derive(serde::Deserialize)]
struct Exec {
    test: String,
    #[serde(default)]
    skipped: bool,
    #[serde(default)]
    wall_ns: u64,
    #[serde(default)]
    cpu_ns: u64,
    /// The thread's I/O from `/proc/thread-self/io` (zeros where the driver sends none).
    #[serde(default)]
    io: ThreadIo,
    #[serde(default)]
    rows: Vec<Vec<serde_json::Value>>,
}

/// Run `engine` at one scale in the JVM, in the scratch directory `dir`.
#[cfg(feature = "jvm")]
pub fn run_engine(
    req: &Request,
    engine: &str,
    data: &DataSet,
    tuples: u32,
    dir: &Path,
) -> Result<EngineScale> {
    // Absolute: the driver runs in this directory (crate::run::jvm::invoke).
    let dir = &std::path::absolute(dir).run_err("the scratch directory")?;
    let people = tsv(
        dir,
        "people.tsv",
        data.people
            .iter()
            .map(|p| format!("{}\t{}\t{}\t{}\t{}", p.id, p.name, p.age, p.gender, p.color)),
    )?;
    let transactions = tsv(
        dir,
        "transactions.tsv",
        data.transactions.iter().map(|t| {
            format!(
                "{}\t{}\t{}\t{}\t{}\t{}",
                t.id, t.seller, t.buyer, t.price, t.item, t.date
            )
        }),
    )?;
    let queries: Vec<serde_json::Value> = req
        .tests
        .iter()
        .flat_map(|&test| {
            query::executions(test, req.seed, tuples)
                .into_iter()
                .map(move |q| {
                    serde_json::json!({ "test": test.name(), "sql": test.sql(), "params": params(&q) })
                })
        })
        .collect();
    let queries_path = dir.join("queries.json");
    std::fs::write(
        &queries_path,
        serde_json::to_vec(&queries).run_err("models queries")?,
    )
    .run_err(format!("writing {}", queries_path.display()))?;
    let out_path = dir.join("models-out.json");
    let db = dir.join("db");
    std::fs::create_dir_all(&db).run_err(format!("creating {}", db.display()))?;
    let spec = serde_json::json!({
        "engine": engine, "data_dir": db, "ddl": super::sqlite::DDL, "people": people,
        "transactions": transactions, "queries": queries_path, "out": out_path,
        "budget_ns": req.budget_ns.min(i64::MAX as u64),
    });
    crate::run::jvm::invoke("models", &spec, &dir.join("models-spec.json"))?;
    let out: Out = serde_json::from_slice(
        &std::fs::read(&out_path).run_err("reading the JVM driver's answers")?,
    )
    .run_err("the JVM driver's answers")?;
    let mut tests = Vec::new();
    for &test in &req.tests {
        let mine: Vec<&Exec> = out
            .executions
            .iter()
            .filter(|e| e.test == test.name())
            .collect();
        let ran: Vec<Execution> = mine
            .iter()
            .filter(|e| !e.skipped)
            .map(|e| {
                let rows = e
                    .rows
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(|v| match v {
                                serde_json::Value::Number(n) => Value::Int(n.as_i64().unwrap_or(0)),
                                other => Value::Text(other.as_str().unwrap_or("").to_string()),
                            })
                            .collect()
                    })
                    .collect();
                let answer = Answer::new(rows);
                Execution {
                    wall_ns: e.wall_ns,
                    cpu_ns: e.cpu_ns,
                    io: e.io,
                    rows: answer.rows.len() as u64,
                    checksum: answer.checksum(),
                }
            })
            .collect();
        if mine.is_empty() {
            return Err(Error::failed(format!(
                "{engine}: the JVM driver returned no execution of test {}",
                test.name()
            )));
        }
        let spent: u64 = ran.iter().map(|e| e.wall_ns).sum();
        let exceeded = (ran.len() < mine.len()).then(|| {
            format!(
                "exceeded budget: {} of {} executions in {}",
                ran.len(),
                mine.len(),
                crate::output::units::ns(spent)
            )
        });
        tests.push(super::summarize(test, ran, exceeded));
    }
    let insert_ns = out.insert_ns.max(1);
    Ok(EngineScale {
        engine: engine.to_string(),
        kind: super::kind(engine),
        tuples,
        rows: data.rows(),
        create_ns: out.create_ns,
        insert_ns,
        inserts_per_s: data.rows() as f64 * 1e9 / insert_ns as f64,
        tests,
        create_counters: out.create,
        insert_counters: out.insert,
    })
}

/// A build without the JVM runner (device builds): the engine is refused.
#[cfg(not(feature = "jvm"))]
pub fn run_engine(_: &Request, _: &str, _: &DataSet, _: u32, _: &Path) -> Result<EngineScale> {
    Err(Error::input(crate::run::jvm::NOT_IN_BUILD))
}
