//! The JVM engines (h2, bdb-je, sqlite-jdbc, nitrite, objectbox) under `durability`: the
//! workload runs in a JVM (`java -jar pocketbench-jvm.jar durability-child SPEC`, the driver's
//! `Durability` class), which inserts record *i* with the same payloads as the native child
//! and appends `i\n` to the acknowledgement log with a plain `write(2)` after each engine
//! commit, so the process-crash model ([`super::killed`]) kills it and the recorder of
//! file-system calls ([`super::recorded`]) sees it as it sees a native child. Crash states are
//! read back by one long-lived checker JVM per configuration (`durability-check SPEC`): a
//! state's directory and the records to read go in on stdin, and one JSON line comes back with
//! the records found (their fields in hexadecimal) or why the engine could not open or read
//! them; the Rust side judges it with [`super::judge`]. A checker that dies is a finding at
//! that state (an integrity failure with its exit status or signal) and is started again.

use super::checker::{self, Checker};
use super::{is_payload, judge, ByTxn, Plan, PointResult};
use crate::error::{Error, Result, ResultExt};
use serde::Deserialize;
use std::path::Path;
use std::process::{Command, Stdio};

/// Whether `engine` runs in the JVM driver.
pub fn is_jvm(engine: &str) -> bool {
    crate::engine::jvm::is_jvm(engine)
}

/// What a JVM engine under `durability` needs before any work: a build with the JVM runner, a
/// Java runtime and the driver.
pub fn available() -> Result<()> {
    if !cfg!(feature = "jvm") {
        return Err(Error::input(crate::run::jvm::NOT_IN_BUILD));
    }
    crate::run::jvm::java()?;
    crate::run::jvm::driver()?;
    Ok(())
}

/// The JVM's flags for the workload and the checker (not for the timed run, which runs as
/// `run` does): one collector thread, the quick compiler, no performance-data file.
const QUICK: [&str; 3] = [
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
];

/// `java [flags] -jar DRIVER verb SPEC`, the spec written as `scratch/name` first; the
/// process runs in `scratch` (ObjectBox unpacks its native core into the working directory).
fn command(
    scratch: &Path,
    verb: &str,
    spec: &serde_json::Value,
    name: &str,
    quick: bool,
) -> Result<Command> {
    let scratch = std::path::absolute(scratch).run_err("the scratch directory")?;
    let spec_path = scratch.join(name);
    std::fs::write(&spec_path, spec.to_string())
        .run_err(format!("writing {}", spec_path.display()))?;
    let java = std::path::absolute(crate::run::jvm::java()?).run_err("the Java runtime's path")?;
    let jar = std::path::absolute(crate::run::jvm::driver()?).run_err("the driver's path")?;
    let mut cmd = Command::new(java);
    crate::platform::signals::unblocked(&mut cmd).current_dir(&scratch);
    if quick {
        cmd.args(QUICK);
    }
    cmd.arg("-jar").arg(jar).arg(verb).arg(spec_path);
    Ok(cmd)
}

/// The spec of `durability-child`: the engine and its options, the database directory, the
/// acknowledgement log, the workload's size and the mode (`preload`, `run`, `timed`).
fn child_spec(
    engine: &str,
    options: &[(String, String)],
    data_dir: &Path,
    acks: Option<&Path>,
    plan: &Plan,
    mode: &str,
) -> Result<serde_json::Value> {
    let data_dir = std::path::absolute(data_dir).run_err("the database directory")?;
    let acks = match acks {
        Some(a) => Some(std::path::absolute(a).run_err("the acknowledgement log")?),
        None => None,
    };
    let options: serde_json::Map<String, serde_json::Value> = options
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone())))
        .collect();
    Ok(serde_json::json!({
        "engine": engine,
        "options": options,
        "data_dir": data_dir,
        "acks": acks,
        "txns": plan.txns,
        "rows": plan.rows_per_txn,
        "mode": mode,
    }))
}

/// The workload's JVM: open the engine in `work`, run the transactions, acknowledge each in
/// `acks` (the caller spawns it, under SIGKILL timing or the recorder).
pub fn child_command(
    engine: &str,
    options: &[(String, String)],
    scratch: &Path,
    work: &Path,
    acks: &Path,
    plan: &Plan,
) -> Result<Command> {
    let spec = child_spec(engine, options, work, Some(acks), plan, "run")?;
    command(scratch, "durability-child", &spec, "jvm-child.json", true)
}

/// Run a `durability-child` to its end; its stdout.
fn run_to_end(mut cmd: Command, what: &str) -> Result<String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .run_err(format!("starting the JVM ({what})"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(Error::failed(format!(
            "the JVM driver failed ({what}, {}): {}",
            out.status,
            said.lines().last().unwrap_or("no message")
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Create the starting database in `base`: the schema and record 0.
pub fn prepare(
    engine: &str,
    options: &[(String, String)],
    scratch: &Path,
    base: &Path,
) -> Result<()> {
    std::fs::create_dir_all(base).run_err(format!("creating {}", base.display()))?;
    let plan = Plan {
        rows_per_txn: 1,
        ..Plan::default()
    };
    let spec = child_spec(engine, options, base, None, &plan, "preload")?;
    let cmd = command(scratch, "durability-child", &spec, "jvm-preload.json", true)?;
    run_to_end(cmd, "preparing the starting database").map(|_| ())
}

/// Transactions per second on the real device (real syncs), measured inside the JVM.
pub fn speed(
    engine: &str,
    options: &[(String, String)],
    scratch: &Path,
    work: &Path,
    plan: &Plan,
) -> Result<f64> {
    let spec = child_spec(engine, options, work, None, plan, "timed")?;
    let cmd = command(scratch, "durability-child", &spec, "jvm-timed.json", false)?;
    let out = run_to_end(cmd, "timing the workload")?;
    out.trim()
        .parse()
        .map_err(|_| Error::failed(format!("the JVM driver's speed: {}", out.trim())))
}

/// What the checker prints for one crash state.
#[derive(Deserialize)]
struct Found {
    open_ns: u64,
    /// Each record present: its number and its fields in hexadecimal.
    records: Vec<(u64, Vec<String>)>,
    error: Option<String>,
}

fn start_checker(
    key: String,
    engine: &str,
    options: &[(String, String)],
    scratch: &Path,
    recorder: Option<&Path>,
) -> Result<Checker> {
    let options: serde_json::Map<String, serde_json::Value> = options
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone())))
        .collect();
    let spec = serde_json::json!({ "engine": engine, "options": options });
    let mut cmd = command(scratch, "durability-check", &spec, "jvm-check.json", true)?;
    // The recorder, preloaded with nothing to record, makes the checker's syncs no-ops: the
    // crash state is scratch.
    if let Some(lib) = recorder {
        // Absolute: the JVM runs in the scratch directory.
        cmd.env(
            "LD_PRELOAD",
            std::path::absolute(lib).run_err("the recorder's path")?,
        );
    }
    Checker::spawn(key, "the checker JVM", cmd, scratch.join("checker.err"))
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Open the crash state in `state` with the engine's own recovery (in this configuration's
/// checker JVM, started in `scratch` when none runs) and judge it against `acknowledged`
/// commits. `recorder`: the recorder library, preloaded to make the checker's syncs no-ops.
pub fn check(
    engine: &str,
    options: &[(String, String)],
    scratch: &Path,
    state: &Path,
    acknowledged: u64,
    plan: &Plan,
    recorder: Option<&Path>,
) -> Result<PointResult> {
    let key = format!("{engine} {options:?} {} {recorder:?}", scratch.display());
    let state = std::path::absolute(state).run_err("the crash state's path")?;
    let mut r = PointResult {
        acknowledged,
        in_flight: (acknowledged < plan.txns).then_some(acknowledged + 1),
        ..PointResult::default()
    };
    let start = || start_checker(key.clone(), engine, options, scratch, recorder);
    let request = format!("{}\t{}", acknowledged + 2, state.display());
    let answer = checker::ask(&key, start, &request, |f: &Found| f.error.is_none())?;
    match answer {
        Ok(found) => judged(found, &mut r, plan),
        Err(why) => r.integrity = Some(why),
    }
    Ok(r)
}

/// Judge what the checker found (`r` holds the acknowledgements): a store that did not open
/// is an integrity failure; else the records present, their empty (padding) fields left out,
/// by the rules of every engine, a record that could not be read an integrity failure too.
fn judged(found: Found, r: &mut PointResult, plan: &Plan) {
    r.recovery_ns = found.open_ns;
    if let Some(e) = found.error.as_ref().filter(|e| e.starts_with("recovery")) {
        r.integrity = Some(e.clone());
        return;
    }
    let mut rows = ByTxn::new();
    for (txn, fields) in found.records {
        let mut parts = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            match unhex(f) {
                Some(bytes) if !bytes.is_empty() => {
                    parts.push((i as u64, is_payload(txn, i as u64, &bytes)))
                }
                Some(_) => {}
                None => {
                    r.integrity
                        .get_or_insert(format!("record {txn}: the checker sent {f:?}"));
                }
            }
        }
        rows.insert(txn, parts);
    }
    if let Some(e) = found.error {
        r.integrity.get_or_insert(e);
    }
    // The records are the only trace of a commit: no counter is kept beside them.
    judge(r, &rows, None, plan);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durability::{payload, PRELOAD};

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// Record `txn` as the checker prints it: `rows` payloads, then empty fields up to 64.
    fn record(txn: u64, rows: u64) -> (u64, Vec<String>) {
        let fields = (0..PRELOAD)
            .map(|p| {
                if p < rows {
                    hex(&payload(txn, p))
                } else {
                    String::new()
                }
            })
            .collect();
        (txn, fields)
    }

    fn plan() -> Plan {
        Plan {
            txns: 5,
            rows_per_txn: 2,
            ..Plan::default()
        }
    }

    fn acknowledged(n: u64) -> PointResult {
        PointResult {
            acknowledged: n,
            in_flight: Some(n + 1),
            ..PointResult::default()
        }
    }

    #[test]
    fn a_checker_answer_is_judged_as_every_engines_records() {
        // Three acknowledged; the store holds the preload and transactions 1 and 2: one lost.
        let found = Found {
            open_ns: 7,
            records: vec![record(0, PRELOAD), record(1, 2), record(2, 2)],
            error: None,
        };
        let mut r = acknowledged(3);
        judged(found, &mut r, &plan());
        assert_eq!((r.lost, r.partial, r.phantom, r.recovery_ns), (1, 0, 0, 7));
        assert!(r.integrity.is_none() && r.inconsistent.is_none(), "{r:?}");
        // The one in flight (4) present in part: one of its two rows.
        let found = Found {
            open_ns: 1,
            records: vec![record(0, PRELOAD), record(1, 2), record(4, 1)],
            error: None,
        };
        let mut r = acknowledged(3);
        judged(found, &mut r, &plan());
        assert_eq!((r.lost, r.partial), (2, 1), "{r:?}");
        // A damaged field is no row of its transaction: transaction 1 is lost.
        let mut bad = record(1, 2);
        bad.1[0].replace_range(0..2, "zz");
        let found = Found {
            open_ns: 1,
            records: vec![record(0, PRELOAD), bad],
            error: None,
        };
        let mut r = acknowledged(1);
        judged(found, &mut r, &plan());
        assert_eq!(r.lost, 1, "{r:?}");
        assert!(r.integrity.unwrap().contains("record 1"));
    }

    #[test]
    fn a_checker_answer_reads_as_the_records_and_the_time_to_open() {
        // A stand-in for a checker JVM (how one that dies is described: `checker`'s tests).
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            r#"read line; echo '{"open_ns": 5, "records": [[0, ["ab"]]], "error": null}'; read more"#,
        ]);
        let mut c =
            Checker::spawn(String::new(), "the checker JVM", cmd, dir.path().join("e")).unwrap();
        let found: Found = c.ask("4\tstate").unwrap();
        assert_eq!((found.open_ns, found.records.len()), (5, 1));
        assert_eq!(found.records[0].1, ["ab"]);
    }

    #[test]
    fn a_store_that_does_not_open_is_an_integrity_failure_with_the_engines_words() {
        let found = Found {
            open_ns: 3,
            records: vec![],
            error: Some("recovery failed: IllegalStateException: file corrupted".into()),
        };
        let mut r = acknowledged(2);
        judged(found, &mut r, &plan());
        assert_eq!(r.lost, 0, "nothing judged when nothing could be read");
        assert_eq!(
            r.integrity.as_deref(),
            Some("recovery failed: IllegalStateException: file corrupted")
        );
        // A record that could not be read: the rest are still judged.
        let found = Found {
            open_ns: 3,
            records: vec![record(0, PRELOAD)],
            error: Some("reading record 1: boom".into()),
        };
        let mut r = acknowledged(1);
        judged(found, &mut r, &plan());
        assert_eq!(r.lost, 1);
        assert_eq!(r.integrity.as_deref(), Some("reading record 1: boom"));
    }
}
