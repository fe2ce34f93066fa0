//! Simulated power loss under SQLite (`pocketbench durability`): the findings SQLite's own
//! documentation predicts, found by the crash VFS. With `synchronous=OFF` nothing reaches the
//! medium, so a failure after the first acknowledged commit loses it, in DELETE and WAL modes.
//! With `FULL` (DELETE and WAL) and `NORMAL` in DELETE mode, no crash point loses an
//! acknowledged commit, leaves a transaction in part or corrupts the file. WAL with `NORMAL`
//! syncs the WAL only at checkpoints: it may lose the newest commits but never corrupts. The
//! crash points and their results are the same for the same seed.

use pocketbench::durability::{self, sqlite::Config, Plan};

fn plan(crashes: u64) -> Plan {
    Plan {
        crashes,
        txns: 12,
        rows_per_txn: 3,
        seed: 7,
        torn: false,
        replay: None,
        timed: false,
    }
}

fn run(journal_mode: &str, synchronous: &str, plan: &Plan) -> durability::ConfigReport {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config {
        journal_mode: journal_mode.into(),
        synchronous: synchronous.into(),
    };
    durability::run_sqlite(dir.path(), &cfg, plan, |_, _| {}).unwrap()
}

#[test]
fn synchronous_off_loses_acknowledged_commits_in_both_journal_modes() {
    // Nothing is ever synced. In DELETE mode the last event is the journal delete that
    // commits transaction 12: failing there loses the 11 acknowledged before it. In WAL mode
    // closing checkpoints into the database (unsynced) and deletes the WAL (durable): failing
    // after that loses all 12.
    for (mode, most) in [("delete", 11), ("wal", 12)] {
        let r = run(mode, "off", &plan(10_000));
        assert_eq!(r.crashes, r.events, "{mode}");
        assert!(r.crashes_losing_commits > 0, "{mode}: {r:?}");
        assert_eq!(r.most_lost_at_once, most, "{mode}");
        assert!(r
            .first_finding
            .as_deref()
            .unwrap()
            .contains("--replay-crash 7:"));
    }
    // 200 points drawn from the seed find it too.
    assert!(run("delete", "off", &plan(200)).crashes_losing_commits > 0);
}

#[test]
fn synchronous_full_and_delete_normal_lose_nothing_at_any_point() {
    for (mode, sync) in [("delete", "full"), ("wal", "full"), ("delete", "normal")] {
        let r = run(mode, sync, &plan(10_000));
        // Every event was a crash point.
        assert_eq!(r.crashes, r.events, "{mode}/{sync}");
        assert_eq!(
            r.acknowledged_lost, 0,
            "{mode}/{sync}: {:?}",
            r.first_finding
        );
        assert_eq!(
            r.integrity_failures, 0,
            "{mode}/{sync}: {:?}",
            r.first_finding
        );
        assert_eq!(
            r.atomicity_violations, 0,
            "{mode}/{sync}: {:?}",
            r.first_finding
        );
    }
}

#[test]
fn wal_normal_may_lose_the_newest_commits_but_never_corrupts() {
    let r = run("wal", "normal", &plan(10_000));
    assert_eq!(r.crashes, r.events);
    assert!(
        r.acknowledged_lost > 0,
        "no checkpoint in 12 commits: they live in an unsynced WAL"
    );
    assert_eq!(r.integrity_failures, 0, "{:?}", r.first_finding);
    assert_eq!(r.atomicity_violations, 0, "{:?}", r.first_finding);
}

#[test]
fn a_crash_point_replays_exactly() {
    let p = plan(5);
    let all = run("delete", "off", &p);
    let first = &all.findings[0];
    let replay = Plan {
        replay: Some(first.point),
        ..p
    };
    let again = run("delete", "off", &replay);
    assert_eq!(again.crashes, 1);
    let mut a = again.findings[0].clone();
    let mut b = first.clone();
    a.recovery_ns = 0;
    b.recovery_ns = 0;
    assert_eq!(a, b);
}
