//! The JVM engines under `pocketbench durability` (the driver in drivers/jvm, built by
//! scripts/test.sh with Maven): the JVM's workload writes exactly the payloads the native
//! workload writes; under `--model strict` (power loss from a recording of the JVM's
//! file-system calls, crash states read back by the engine's own recovery in the checker JVM)
//! BerkeleyDB JE's `COMMIT_SYNC` and SQLite-through-JDBC's WAL `synchronous=FULL` lose no
//! acknowledged commit while `COMMIT_NO_SYNC` and `synchronous=OFF` lose all three of three
//! at the crash point after the last acknowledgement, and ObjectBox, whose commits are synced,
//! loses nothing; a process crash (SIGKILL) loses nothing on configurations that hand each
//! commit to the operating system (JE `COMMIT_WRITE_NO_SYNC`, SQLite `synchronous=OFF`); a
//! bad `--config` or a trace workload for a JVM engine exits 2 with one line; two
//! recordings of the same JE workload make the same calls (its timed diagnostic files left
//! out), so a finding's `--replay-crash` cuts the same state.

mod common;

use serde_json::Value;
use std::process::Command;

/// `pocketbench durability ARGS --no-speed --json` with the JVM driver built; the run.
fn run(args: &[&str]) -> Value {
    common::jvm::jar();
    common::durability_run(args)
}

#[test]
fn the_jvm_writes_the_native_payloads_byte_for_byte() {
    let jar = common::jvm::jar();
    // Row (1, 0)'s first 20 bytes, as src/durability/mod.rs's payload computes them.
    let pinned = "e05a01e43b60a09efcd45d62b62d79bb66f042cf";
    assert!(hex(&pocketbench::durability::payload(1, 0)).starts_with(pinned));
    for (txn, part) in [(0, 0), (1, 0), (7, 2), (50, 63), (u64::MAX, 1)] {
        let out = Command::new("java")
            .arg("-jar")
            .arg(&jar)
            .args(["durability-payload", &txn.to_string(), &part.to_string()])
            .output()
            .expect("running java");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let java = String::from_utf8(out.stdout).unwrap();
        let rust = hex(&pocketbench::durability::payload(txn, part));
        assert_eq!(java.trim(), rust, "payload({txn}, {part})");
    }
}

#[test]
fn two_recordings_of_one_je_workload_are_the_same_calls() {
    let args = [
        "--engine",
        "bdb-je",
        "--config",
        "durability=no_sync",
        "--txns",
        "5",
        "--crashes",
        "200",
    ];
    let (a, b) = (run(&args), run(&args));
    let (a, b) = (
        common::durability_config(&a, "no_sync"),
        common::durability_config(&b, "no_sync"),
    );
    for key in ["events", "crashes", "acknowledged_lost", "first_finding"] {
        assert_eq!(a[key], b[key], "{key}: {a} against {b}");
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn bdb_je_commit_sync_loses_nothing_under_strict_and_no_sync_loses_every_commit() {
    // 3 commits, every crash point from the workload's start (well under 200).
    let r = run(&[
        "--engine",
        "bdb-je",
        "--config",
        "durability=sync,no_sync",
        "--txns",
        "3",
        "--crashes",
        "200",
    ]);
    let sync = common::durability_config(&r, "sync");
    assert!(sync["model"].as_str().unwrap().contains("strict"), "{sync}");
    assert!(sync["crashes"].as_u64().unwrap() < 200, "{sync}");
    assert_eq!(sync["acknowledged_lost"], 0, "{sync}");
    assert_eq!(sync["integrity_failures"], 0, "{sync}");
    assert_eq!(sync["atomicity_violations"], 0, "{sync}");
    // COMMIT_NO_SYNC leaves the log in JE's buffer until the environment closes: after the
    // third acknowledgement and before the close, all three are gone.
    let none = common::durability_config(&r, "no_sync");
    assert_eq!(none["most_lost_at_once"], 3, "{none}");
    assert_eq!(none["integrity_failures"], 0, "{none}");
}

#[test]
fn sqlite_jdbc_wal_full_loses_nothing_under_strict_and_off_loses_every_commit() {
    let r = run(&[
        "--engine",
        "sqlite-jdbc",
        "--config",
        "journal_mode=wal",
        "--config",
        "synchronous=full,off",
        "--txns",
        "3",
        "--crashes",
        "200",
    ]);
    let full = common::durability_config(&r, "full");
    assert!(full["crashes"].as_u64().unwrap() < 200, "{full}");
    assert_eq!(full["acknowledged_lost"], 0, "{full}");
    assert_eq!(full["integrity_failures"], 0, "{full}");
    // OFF never syncs the WAL: at the point after the last commit nothing of the three is
    // on the disk.
    let off = common::durability_config(&r, "off");
    assert_eq!(off["most_lost_at_once"], 3, "{off}");
    assert_eq!(off["atomicity_violations"], 0, "{off}");
}

#[test]
fn objectbox_syncs_every_commit() {
    let r = run(&["--engine", "objectbox", "--txns", "3", "--crashes", "200"]);
    let c = &r["configurations"][0];
    assert_eq!(c["config"], serde_json::json!([]), "{c}");
    assert!(c["events"].as_u64().unwrap() > 4, "{c}");
    assert_eq!(c["acknowledged_lost"], 0, "{c}");
    assert_eq!(c["integrity_failures"], 0, "{c}");
}

#[test]
fn a_process_crash_spares_commits_handed_to_the_operating_system() {
    // Four SIGKILLs each, at moments spread over the workload from its start.
    for (engine, config) in [
        ("bdb-je", "durability=write_no_sync"),
        ("sqlite-jdbc", "synchronous=off"),
    ] {
        let mut args = vec!["--engine", engine, "--model", "process-crash"];
        args.extend(["--config", config, "--txns", "30", "--crashes", "4"]);
        if engine == "sqlite-jdbc" {
            args.extend(["--config", "journal_mode=wal"]);
        }
        let r = run(&args);
        let c = &r["configurations"][0];
        assert!(
            c["model"].as_str().unwrap().contains("process crash"),
            "{c}"
        );
        assert_eq!(c["crashes"], 4, "{c}");
        assert_eq!(c["acknowledged_lost"], 0, "{engine}: {c}");
        assert_eq!(c["integrity_failures"], 0, "{engine}: {c}");
        assert_eq!(c["atomicity_violations"], 0, "{engine}: {c}");
    }
}

#[test]
fn bad_durability_flags_for_jvm_engines_are_one_line_and_exit_2() {
    let sb = common::Sandbox::new();
    sb.expect_refused(&[
        (
            "durability --engine bdb-je --config sync=on",
            "--config \"sync\": unknown key for bdb-je (durability)",
        ),
        (
            "durability --engine bdb-je --config durability=fsync",
            "--config durability: \"fsync\" is not one of sync, write_no_sync, no_sync",
        ),
        (
            "durability --engine objectbox --config sync=off",
            "unknown key for objectbox (it takes none",
        ),
        (
            "durability --engine h2 --config write_delay=soon",
            "--config write_delay: \"soon\": expected an integer",
        ),
        (
            "durability --engine sqlite-jdbc --workload ycsb-a",
            "--workload \"ycsb-a\": the JVM engines run the append workload only",
        ),
        (
            "durability --engine nitrite --rows-per-txn 65",
            "--rows-per-txn 65: nitrite",
        ),
        ("durability --engine h2 --model vfs", "--model vfs"),
    ]);
}
