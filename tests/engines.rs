//! Every engine in this build runs every YCSB core workload (A–F) on a small data set through
//! the real binary — load in one process, replay in a fresh one — with no failed operation and
//! every point read matching what was written (the replayer's read-your-writes check). Also:
//! bad engine input is one line and exit status 2; SQL workloads fail fast on key-value
//! engines; BerkeleyDB's SQL engine replays an original PocketData JSON file.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pocketbench");

fn pocketbench(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run pocketbench")
}

/// Run `workload` on `engine` with `options`; returns the summary.
fn run(engine: &str, workload: &str, options: &[&str], dir: &Path) -> Value {
    let results = dir.join(format!("{engine}-{workload}.db"));
    let mut args = vec![
        "run",
        "--quiet",
        "--json",
        "--no-overhead",
        "--no-samples",
        "--engine",
        engine,
        "--workload",
        workload,
        "--records",
        "200",
        "--ops",
        "250",
        "--delay",
        "zero",
        "--results",
        results.to_str().unwrap(),
    ];
    for o in options {
        args.extend(["-o", o]);
    }
    let out = pocketbench(&args);
    assert!(
        out.status.success(),
        "{engine} {workload} {options:?}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("summary JSON")
}

/// All six YCSB workloads on `engine`, each with the options given for it.
fn all_ycsb(engine: &str, options: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for w in ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f"] {
        let s = run(engine, w, options, dir.path());
        assert_eq!(s["engine"]["name"], engine);
        assert_eq!(s["ops"], 250, "{engine} {w}");
        assert_eq!(s["errors"], 0, "{engine} {w}: {}", s["first_error"]);
        let v = &s["verification"];
        assert_eq!(v["mismatches"], 0, "{engine} {w}");
        assert_eq!(v["unchecked"], 0, "{engine} {w}: every read is tracked");
        let reads = s["latency_us"]["read"]["count"].as_u64().unwrap_or(0)
            + s["latency_us"]["readmodifywrite"]["count"]
                .as_u64()
                .unwrap_or(0);
        assert_eq!(v["checked"].as_u64(), Some(reads), "{engine} {w}");
        if w != "ycsb-e" {
            assert!(reads > 0, "{engine} {w} made no point reads");
        }
        // Every engine reports per-operation I/O, and how it was measured.
        assert!(!s["engine"]["io_method"].as_str().unwrap_or("").is_empty());
        assert!(s["io"]["total"].is_object());
    }
}

#[test]
fn sqlite_runs_every_ycsb_workload() {
    all_ycsb("sqlite", &[]);
}

#[test]
fn lmdb_runs_every_ycsb_workload() {
    all_ycsb("lmdb", &[]);
    // Writes through the map, metadata unsynced, reads in write transactions.
    let dir = tempfile::tempdir().unwrap();
    let s = run(
        "lmdb",
        "ycsb-f",
        &["writemap=on", "sync=nometasync", "read_txn=write"],
        dir.path(),
    );
    assert_eq!(s["verification"]["mismatches"], 0);
}

#[test]
fn redb_runs_every_ycsb_workload() {
    all_ycsb("redb", &[]);
    let dir = tempfile::tempdir().unwrap();
    let s = run("redb", "ycsb-a", &["durability=paranoid"], dir.path());
    // The storage-backend shim sees redb's syncs: at least one per committed update.
    let updates = s["latency_us"]["update"]["count"].as_u64().unwrap();
    assert!(s["io"]["main"]["syncs"].as_u64().unwrap() >= updates);
}

#[test]
fn lmdb_syncs_are_counted_per_operation() {
    let dir = tempfile::tempdir().unwrap();
    let synced = run("lmdb", "ycsb-a", &["sync=full"], dir.path());
    let unsynced = run("lmdb", "ycsb-a", &["sync=nosync"], dir.path());
    let updates = synced["latency_us"]["update"]["count"].as_u64().unwrap();
    assert!(synced["io"]["other"]["syncs"].as_u64().unwrap() >= updates);
    assert_eq!(unsynced["io"]["other"]["syncs"], 0);
}

#[cfg(feature = "berkeleydb")]
#[test]
fn berkeleydb_runs_every_ycsb_workload() {
    all_ycsb("berkeleydb", &[]);
    all_ycsb("berkeleydb", &["transactions=off", "cache_size=1048576"]);
    // BerkeleyDB's I/O hooks see each commit's log write and sync, on the log file.
    let dir = tempfile::tempdir().unwrap();
    let s = run("berkeleydb", "ycsb-a", &["sync=on"], dir.path());
    let updates = s["latency_us"]["update"]["count"].as_u64().unwrap();
    assert!(s["io"]["wal"]["syncs"].as_u64().unwrap() >= updates);
    assert!(s["io"]["wal"]["sync_ns"].as_u64().unwrap() > 0);
    let results = dir.path().join("bad.db");
    let bad = pocketbench(&[
        "run",
        "--engine",
        "berkeleydb",
        "-o",
        "page_size=3000",
        "--results",
        results.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("engine berkeleydb: must be a power of two"),
        "{err}"
    );
    assert!(!results.exists());
}

#[cfg(feature = "berkeleydb")]
#[test]
fn berkeleydb_sql_runs_ycsb_and_pocketdata_json() {
    all_ycsb("berkeleydb-sql", &["sync=write_nosync"]);
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/pocketdata/workload_a_0ms.json");
    if file.exists() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("r.db");
        let out = pocketbench(&[
            "run",
            "--quiet",
            "--json",
            "--no-overhead",
            "--engine",
            "berkeleydb-sql",
            "-o",
            "sync=off",
            "--workload",
            file.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["errors"], 0, "{}", s["first_error"]);
        assert!(s["latency_us"]["select"]["count"].as_u64().unwrap() > 0);
        // I/O from BerkeleyDB's hooks: the log is the WAL.
        assert!(s["io"]["wal"]["writes"].as_u64().unwrap() > 0);
    }
}

#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_runs_every_ycsb_workload_and_reports_compactions() {
    all_ycsb("rocksdb", &[]);
    all_ycsb("rocksdb", &["wal=off", "compression=none"]);
    // A tiny memtable forces flushes during the run; they show in the statistics.
    let dir = tempfile::tempdir().unwrap();
    let s = run(
        "rocksdb",
        "ycsb-a",
        &["write_buffer_size=65536", "sync=on"],
        dir.path(),
    );
    let flushes = &s["engine_stats"]["rocksdb.db.flush.micros.count"];
    assert!(
        flushes["after"].as_u64() > flushes["before"].as_u64(),
        "{flushes}"
    );
    assert!(s["engine_stats"]["rocksdb.stall.micros"].is_object());
    let updates = s["latency_us"]["update"]["count"].as_u64().unwrap();
    assert!(s["io"]["other"]["syncs"].as_u64().unwrap() >= updates);
}

#[cfg(feature = "leveldb")]
#[test]
fn leveldb_runs_every_ycsb_workload() {
    all_ycsb("leveldb", &[]);
    all_ycsb("leveldb", &["sync=on", "compression=none"]);
}

#[test]
fn bad_engine_input_is_one_line_and_status_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--engine", "lmdb", "-o", "nope=1"],
            "engine lmdb has no option 'nope'",
        ),
        (
            &["--engine", "lmdb", "-o", "sync=sometimes"],
            "engine lmdb: expected one of",
        ),
        (
            &["--engine", "redb", "-o", "cache_size=-5"],
            "engine redb: must be between",
        ),
        (
            &["--engine", "lmdb", "--workload", "pocketdata-a"],
            "lmdb is a key-value engine (SQL engines:",
        ),
        (&["--engine", "nosuchdb"], "unknown engine \"nosuchdb\""),
    ];
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.db");
    for (args, expected) in cases {
        let mut all = vec!["run", "--quiet", "--results", results.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = pocketbench(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    assert!(
        !results.exists(),
        "bad input must not touch the results store"
    );
}

#[test]
fn engines_lists_every_engine_with_options() {
    let out = pocketbench(&["engines", "--json"]);
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    for n in ["sqlite", "null", "lmdb", "redb"] {
        assert!(names.contains(&n), "{names:?}");
    }
    #[cfg(feature = "all-engines")]
    for n in ["berkeleydb", "berkeleydb-sql", "rocksdb", "leveldb"] {
        assert!(names.contains(&n), "{names:?}");
    }
    for e in list.as_array().unwrap() {
        assert!(!e["version"].as_str().unwrap().is_empty());
        for o in e["options"].as_array().unwrap() {
            assert!(!o["help"].as_str().unwrap().is_empty(), "{e}");
        }
    }
}
