//! The `update` durability workload (`durability --workload update`): which rows each
//! transaction rewrites, worked by hand; the judge on hand-built tables (the table after an
//! older transaction loses the difference; a table between two transactions is a partial one;
//! a damaged row is an integrity finding; a counter out of step is inconsistent); and through
//! the crash VFS, SQLite's documented finding holds for rewrites in place too: `synchronous=off`
//! loses acknowledged commits in DELETE and WAL mode, `full` loses none and never corrupts.
//! Process-crash engines refuse the workload with one line and exit 2.

mod common;

use common::{arg, pb};
use pocketbench::durability::{
    self, judge, last_writer, parts, payload, sqlite::Config, ByTxn, Plan, PointResult, Workload,
    PRELOAD,
};

fn plan(acknowledged_txns: u64) -> Plan {
    Plan {
        crashes: 10_000,
        txns: acknowledged_txns,
        rows_per_txn: 3,
        workload: Workload::Update,
        trace: None,
        seed: 3,
        torn: false,
        replay: None,
        replay_state: 0,
        replay_dir: None,
        states: 1,
        timed: false,
    }
}

#[test]
fn each_transaction_rewrites_the_next_rows_round_the_table() {
    // Transaction i rewrites parts (i − 1)·3, +1, +2, modulo the 64 preloaded rows.
    assert_eq!(PRELOAD, 64);
    assert_eq!(parts(Workload::Update, 1, 3), vec![0, 1, 2]);
    assert_eq!(parts(Workload::Update, 2, 3), vec![3, 4, 5]);
    // 21·3 = 63: transaction 22 wraps round.
    assert_eq!(parts(Workload::Update, 22, 3), vec![63, 0, 1]);
    assert_eq!(parts(Workload::Append, 22, 3), vec![0, 1, 2]);
    assert_eq!(last_writer(0, 0, 3), 0);
    assert_eq!(last_writer(0, 21, 3), 1);
    assert_eq!(last_writer(0, 22, 3), 22);
    // Part 2: transaction 1, then 23 (parts 66..68 mod 64 = 2, 3, 4).
    assert_eq!(last_writer(2, 22, 3), 1);
    assert_eq!(last_writer(2, 30, 3), 23);
}

/// The table with `owner[part]` as each part's writer.
fn table(owner: &[(u64, u64)]) -> ByTxn {
    let mut rows = ByTxn::new();
    for part in 0..PRELOAD {
        let txn = owner
            .iter()
            .find(|(p, _)| *p == part)
            .map_or(0, |(_, t)| *t);
        rows.entry(txn).or_default().push((part, true));
    }
    rows
}

fn judged(rows: &ByTxn, counter: u64) -> PointResult {
    let mut r = PointResult {
        point: 9,
        acknowledged: 2,
        in_flight: Some(3),
        ..PointResult::default()
    };
    judge(&mut r, rows, Some(Ok(counter)), &plan(3));
    r
}

#[test]
fn the_judge_finds_the_transaction_the_table_stands_after() {
    let after_1 = [(0, 1), (1, 1), (2, 1)];
    let after_2 = [(0, 1), (1, 1), (2, 1), (3, 2), (4, 2), (5, 2)];
    let after_3 = [
        (0, 1),
        (1, 1),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 2),
        (6, 3),
        (7, 3),
        (8, 3),
    ];
    // Acknowledged 2, transaction 3 in flight: after 2 or after 3 is right.
    let r = judged(&table(&after_2), 2);
    assert!(!r.failed(), "{r:?}");
    let r = judged(&table(&after_3), 3);
    assert!(!r.failed(), "{r:?}");
    // After 1: transaction 2 was acknowledged and is gone.
    let r = judged(&table(&after_1), 1);
    assert_eq!((r.lost, r.partial), (1, 0), "{r:?}");
    // Half of transaction 2: no transaction boundary; 1 is the newest whole one.
    let r = judged(&table(&[(0, 1), (1, 1), (2, 1), (3, 2)]), 2);
    assert_eq!((r.lost, r.partial), (1, 1), "{r:?}");
    // The counter disagrees with the table.
    let r = judged(&table(&after_2), 1);
    assert!(
        r.inconsistent.as_deref().unwrap().contains("counter is 1"),
        "{r:?}"
    );
    // A row whose payload is not its writer's.
    let mut damaged = table(&after_2);
    let mut bytes = payload(2, 3);
    bytes[0] ^= 1;
    damaged.get_mut(&2).unwrap()[0].1 = durability::is_payload(2, 3, &bytes);
    let r = judged(&damaged, 2);
    assert!(
        r.integrity.as_deref().unwrap().contains("txn 2, part 3"),
        "{r:?}"
    );
    assert_eq!(
        r.partial, 0,
        "a damaged table is an integrity finding: {r:?}"
    );
    // A row missing.
    let mut short = table(&after_2);
    short.get_mut(&0).unwrap().pop();
    let r = judged(&short, 2);
    assert!(r.integrity.as_deref().unwrap().contains("63 rows"), "{r:?}");
    // A transaction never attempted.
    let r = judged(&table(&[(0, 9)]), 2);
    assert_eq!(r.phantom, 1, "{r:?}");
}

fn run(journal_mode: &str, synchronous: &str) -> durability::ConfigReport {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config {
        journal_mode: journal_mode.into(),
        synchronous: synchronous.into(),
    };
    durability::run_config(dir.path(), &cfg, &plan(12), |_, _| {}).unwrap()
}

#[test]
fn rewrites_in_place_lose_commits_without_syncs_and_none_with_full() {
    for mode in ["delete", "wal"] {
        let off = run(mode, "off");
        assert!(off.crashes_losing_commits > 0, "{mode}: {off:?}");
        let full = run(mode, "full");
        assert_eq!(
            full.acknowledged_lost, 0,
            "{mode}: {:?}",
            full.first_finding
        );
        assert_eq!(
            full.integrity_failures, 0,
            "{mode}: {:?}",
            full.first_finding
        );
        assert_eq!(
            full.atomicity_violations, 0,
            "{mode}: {:?}",
            full.first_finding
        );
    }
    let normal = run("delete", "normal");
    assert_eq!(normal.acknowledged_lost, 0, "{:?}", normal.first_finding);
}

#[test]
fn process_crash_engines_refuse_the_update_workload() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.db");
    let out = pb([
        "durability",
        "--engine",
        "lmdb",
        "--workload",
        "update",
        "--results",
        arg(&store),
    ])
    .expect_code(2);
    assert!(
        out.stderr
            .contains("--workload update: lmdb runs through the engine's key-value interface"),
        "{}",
        out.stderr
    );
    let out = pb([
        "durability",
        "--workload",
        "update",
        "--rows-per-txn",
        "65",
        "--results",
        arg(&store),
    ])
    .expect_code(2);
    assert!(
        out.stderr.contains("--rows-per-txn 65: must be 1 to 64"),
        "{}",
        out.stderr
    );
    assert!(!store.exists());
}
