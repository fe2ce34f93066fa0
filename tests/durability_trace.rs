//! `durability --workload W` with a workload `run` accepts or a trace file: the first `--txns`
//! operations of its run phase are the acknowledged prefix, and each crash state must keep
//! every acknowledged write. Hand-worked on tiny workloads of three writes under the `strict`
//! model (only synced data survives): a key-value trace of three inserts on LMDB, where
//! `sync=full` loses nothing and `sync=nosync` (never synced) loses at every crash point
//! exactly the inserts acknowledged before it; and a PocketData SQL file of three INSERTs on
//! SQLite WAL, where `synchronous=full` loses nothing and `synchronous=off` loses every
//! acknowledged commit. Bad `--workload` values exit 2 with one line.

mod common;

use common::{arg, uint, Sandbox};
use serde_json::Value;

/// A YCSB workload of one loaded record and three inserts (keys 1, 2, 3) of one 8-byte field.
const THREE_INSERTS: &str = "recordcount=1\noperationcount=3\nreadproportion=0\nupdateproportion=0\ninsertproportion=1\nfieldcount=1\nfieldlength=8\n";

/// A PocketData recording: a table, then three INSERTs, each a commit of its own.
const THREE_SQL_INSERTS: &str = r#"{"init": [{"sql": "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)"}],
 "benchmark": [{"op": "query", "sql": "INSERT INTO t VALUES (1, 'one')"},
               {"op": "query", "sql": "INSERT INTO t VALUES (2, 'two')"},
               {"op": "query", "sql": "INSERT INTO t VALUES (3, 'three')"}]}"#;

fn durability(s: &Sandbox, args: &[&str]) -> Value {
    let results = s.results();
    let mut all = vec![
        "durability",
        "--no-speed",
        "--json",
        "-q",
        "--model",
        "strict",
        "--states",
        "1",
        "--crashes",
        "500",
        "--results",
        arg(&results),
    ];
    all.extend_from_slice(args);
    s.pb(all).expect_ok().json()
}

/// Nothing lost, nothing damaged, at every crash point.
fn keeps_everything(c: &Value) {
    for field in [
        "crashes_losing_commits",
        "acknowledged_lost",
        "integrity_failures",
        "atomicity_violations",
    ] {
        assert_eq!(uint(c, &format!("/{field}")), 0, "{field}: {c}");
    }
}

/// Never synced: at every crash point every acknowledged write is lost (the state is the
/// loaded database), so each finding has lost = acknowledged, the worst is all three (after
/// the workload), and nothing else is wrong.
fn loses_every_acknowledged_write(c: &Value) {
    let findings = c["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "{c}");
    for f in findings {
        assert_eq!(f["lost"], f["acknowledged"], "{f}");
        assert!(
            f["integrity"].is_null() && f["inconsistent"].is_null(),
            "{f}"
        );
        assert_eq!((uint(f, "/partial"), uint(f, "/phantom")), (0, 0), "{f}");
    }
    assert_eq!(uint(c, "/most_lost_at_once"), 3, "{c}");
    assert_eq!(
        uint(c, "/crashes_losing_commits"),
        findings.len() as u64,
        "{c}"
    );
    assert_eq!(uint(c, "/atomicity_violations"), 0, "{c}");
    // Points before the first acknowledgement lose nothing: fewer findings than points.
    assert!((findings.len() as u64) < uint(c, "/crashes"), "{c}");
}

#[test]
fn a_key_value_trace_keeps_its_acknowledged_inserts_only_when_synced() {
    let s = Sandbox::new();
    s.write("three.properties", THREE_INSERTS);
    let trace = s.trace_gen("three.pbt", &["--workload", "three.properties"]);
    let r = durability(
        &s,
        &[
            "--engine",
            "lmdb",
            "--config",
            "sync=full,nosync",
            "--workload",
            arg(&trace),
            "--txns",
            "3",
        ],
    );
    assert!(r["trace"].as_str().unwrap().ends_with("three.pbt"), "{r}");
    keeps_everything(common::durability_config(&r, "full"));
    let nosync = common::durability_config(&r, "nosync");
    loses_every_acknowledged_write(nosync);

    // The point after the workload, replayed: all three inserts acknowledged and lost, and
    // the calls that carried them named.
    let after = (uint(nosync, "/events") + 1).to_string();
    let replay = format!("1:{after}");
    let r = durability(
        &s,
        &[
            "--engine",
            "lmdb",
            "--config",
            "sync=nosync",
            "--workload",
            arg(&trace),
            "--txns",
            "3",
            "--replay-crash",
            &replay,
        ],
    );
    let f = &r["configurations"][0]["findings"][0];
    assert_eq!((uint(f, "/acknowledged"), uint(f, "/lost")), (3, 3), "{f}");
    assert!(f["in_flight"].is_null(), "{f}");
    let calls = f["calls"].as_array().unwrap();
    assert!(
        calls
            .iter()
            .any(|c| c.as_str().unwrap().starts_with("lost: write")),
        "{f}"
    );
}

#[test]
fn a_sql_workload_keeps_its_acknowledged_commits_only_when_synced() {
    let s = Sandbox::new();
    let file = s.write("three.json", THREE_SQL_INSERTS);
    let r = durability(
        &s,
        &[
            "--engine",
            "sqlite",
            "--config",
            "journal_mode=wal",
            "--config",
            "synchronous=off,full",
            "--workload",
            arg(&file),
            "--txns",
            "3",
        ],
    );
    keeps_everything(common::durability_config(&r, "full"));
    loses_every_acknowledged_write(common::durability_config(&r, "off"));
}

#[test]
fn bad_workloads_exit_2_with_one_line() {
    let s = Sandbox::new();
    s.write("not-a-trace.pbt", "PBTRACE\ntruncated");
    s.expect_refused(&[
        (
            "durability --workload nope",
            "not append, update, a built-in workload",
        ),
        (
            "durability --workload ycsb-a --model vfs",
            "a trace runs in a child process",
        ),
        ("durability --workload not-a-trace.pbt", "not-a-trace.pbt"),
        ("durability --engine lmdb --workload pocketdata-a", "lmdb"),
    ]);
}
