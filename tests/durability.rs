//! Simulated power loss under SQLite (`pocketbench durability`): the findings SQLite's own
//! documentation predicts, found by the crash VFS. With `synchronous=OFF` nothing reaches the
//! medium, so a failure after the first acknowledged commit loses it, in DELETE and WAL modes.
//! With `FULL` (DELETE and WAL) and `NORMAL` in DELETE mode, no crash point loses an
//! acknowledged commit, leaves a transaction in part or corrupts the file. WAL with `NORMAL`
//! syncs the WAL only at checkpoints: it may lose the newest commits but never corrupts. The
//! crash points and their results are the same for the same seed. With torn writes (a random
//! half of the unsynced sectors survive), `OFF` corrupts the file and `FULL` still loses
//! nothing. redb (through a crash storage backend): `durability=none` loses commits, the synced
//! levels lose none. LMDB killed with SIGKILL mid-run (`--model process-crash`) keeps every
//! acknowledged commit under each sync option (a process crash, not a power loss). The command prints the table and refuses bad flags with one line and exit
//! 2.

mod common;

use pocketbench::durability::{self, sqlite::Config, Plan};

fn plan(crashes: u64) -> Plan {
    Plan {
        crashes,
        txns: 12,
        rows_per_txn: 3,
        workload: durability::Workload::Append,
        trace: None,
        seed: 7,
        torn: false,
        replay: None,
        replay_state: 0,
        replay_dir: None,
        states: 1,
        timed: false,
    }
}

fn run(journal_mode: &str, synchronous: &str, plan: &Plan) -> durability::ConfigReport {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config {
        journal_mode: journal_mode.into(),
        synchronous: synchronous.into(),
    };
    durability::run_config(dir.path(), &cfg, plan, |_, _| {}).unwrap()
}

#[test]
fn synchronous_off_loses_acknowledged_commits_in_both_journal_modes() {
    // Nothing is ever synced: a failure after the workload (the last crash point) loses all
    // 12 acknowledged commits.
    for mode in ["delete", "wal"] {
        let r = run(mode, "off", &plan(10_000));
        assert_eq!(r.crashes, r.events + 1, "{mode}");
        assert!(r.crashes_losing_commits > 0, "{mode}: {r:?}");
        assert_eq!(r.most_lost_at_once, 12, "{mode}");
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
        // Every event was a crash point, and after the last one.
        assert_eq!(r.crashes, r.events + 1, "{mode}/{sync}");
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
    assert_eq!(r.crashes, r.events + 1);
    assert!(
        r.acknowledged_lost > 0,
        "no checkpoint in 12 commits: they live in an unsynced WAL"
    );
    assert_eq!(r.integrity_failures, 0, "{:?}", r.first_finding);
    assert_eq!(r.atomicity_violations, 0, "{:?}", r.first_finding);
}

fn run_redb(durability: &str, plan: &Plan) -> durability::ConfigReport {
    let dir = tempfile::tempdir().unwrap();
    let cfg = durability::redb::Config {
        durability: durability.into(),
    };
    durability::run_config(dir.path(), &cfg, plan, |_, _| {}).unwrap()
}

#[test]
fn redb_loses_non_durable_commits_and_keeps_synced_ones() {
    // redb recovers in milliseconds, not microseconds: a shorter workload.
    let short = Plan {
        txns: 4,
        ..plan(10_000)
    };
    // Durability::None commits stay in memory until a durable commit: all can go.
    let none = run_redb("none", &short);
    assert!(none.crashes_losing_commits > 0, "{none:?}");
    assert_eq!(none.most_lost_at_once, 4);
    assert_eq!(none.integrity_failures, 0, "{:?}", none.first_finding);
    // Eventual is an fdatasync on Linux, like immediate; paranoid adds two-phase commit.
    for d in ["eventual", "immediate", "paranoid"] {
        let r = run_redb(d, &short);
        assert_eq!(r.crashes, r.events + 1, "{d}");
        assert_eq!(
            (
                r.acknowledged_lost,
                r.integrity_failures,
                r.atomicity_violations
            ),
            (0, 0, 0),
            "{d}: {:?}",
            r.first_finding
        );
    }
}

#[test]
fn lmdb_killed_mid_run_keeps_every_acknowledged_commit() {
    // A process crash leaves the page cache alone: even sync=nosync keeps every commit.
    let sb = common::Sandbox::new();
    let json = sb
        .pb([
            "durability",
            "--engine",
            "lmdb",
            "--model",
            "process-crash",
            "--txns",
            "10",
            "--crashes",
            "8",
            "--json",
            "--no-speed",
            "-q",
        ])
        .expect_ok()
        .json();
    let configs = json["configurations"].as_array().unwrap();
    let names: Vec<&str> = configs
        .iter()
        .map(|c| c["config"][0][1].as_str().unwrap())
        .collect();
    assert_eq!(names, ["full", "nometasync", "nosync"]);
    for c in configs {
        assert!(c["model"]
            .as_str()
            .unwrap()
            .starts_with("process crash: SIGKILL"));
        assert_eq!(c["crashes"], 8, "{c}");
        assert_eq!(c["acknowledged_lost"], 0, "{c}");
        assert_eq!(c["integrity_failures"], 0, "{c}");
        assert_eq!(c["atomicity_violations"], 0, "{c}");
    }
    // Killed 1 µs after it started: it cannot have finished ten synced commits.
    let one = sb
        .pb([
            "durability",
            "--engine",
            "lmdb",
            "--model",
            "process-crash",
            "--txns",
            "10",
            "--config",
            "sync=full",
            "--replay-crash",
            "1:1",
            "--json",
            "-q",
        ])
        .expect_ok()
        .json();
    let p = &one["configurations"][0]["findings"][0];
    assert!(p["acknowledged"].as_u64().unwrap() < 10, "{p}");
    assert_eq!(p["lost"], 0, "{p}");
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

#[test]
fn torn_writes_corrupt_an_unsynced_database_and_full_survives_them() {
    let torn = Plan {
        torn: true,
        ..plan(10_000)
    };
    let off = run("delete", "off", &torn);
    assert!(off.integrity_failures > 0, "{off:?}");
    assert!(off
        .first_finding
        .as_deref()
        .unwrap()
        .contains("integrity: "));
    for mode in ["delete", "wal"] {
        let full = run(mode, "full", &torn);
        assert_eq!(full.crashes, full.events + 1);
        assert_eq!(
            (
                full.acknowledged_lost,
                full.integrity_failures,
                full.atomicity_violations
            ),
            (0, 0, 0),
            "{mode}: {:?}",
            full.first_finding
        );
    }
}

#[test]
fn the_command_prints_speed_and_safety_side_by_side() {
    let sb = common::Sandbox::new();
    std::fs::create_dir(sb.path("scratch")).unwrap();
    let out = sb
        .pb([
            "durability",
            "--txns",
            "8",
            "--crashes",
            "40",
            "--config",
            "journal_mode=wal",
            "--config",
            "synchronous=off,full",
            "-q",
            "--dir",
            "scratch",
        ])
        .expect_ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "durability: sqlite, 8 transactions of 3 rows (append), seed 1 (stored as #1)"
    );
    let row = |sync: &str| {
        lines
            .iter()
            .find(|l| {
                l.starts_with("journal_mode=wal")
                    && l.split_whitespace().nth(1) == Some(&*format!("synchronous={sync}"))
            })
            .unwrap_or_else(|| panic!("no row for {sync}: {}", out.stdout))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // journal_mode=… synchronous=… txns/s events points states losing lost (max) integrity
    // atomicity ordering
    let (off, full) = (row("off"), row("full"));
    assert!(off[2].parse::<f64>().unwrap() > 0.0);
    // One crash state per point under the VFS.
    assert_eq!(off[4], off[5], "{}", out.stdout);
    assert_ne!(off[6], "0", "synchronous=off loses commits: {}", out.stdout);
    assert_eq!(
        &full[6..12],
        ["0", "0", "(0)", "0", "0", "0"],
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("journal_mode=wal synchronous=off: "));
    // Nothing left behind in the scratch directory.
    let left: Vec<_> = std::fs::read_dir(sb.path("scratch"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");

    let json = sb
        .pb([
            "durability",
            "--txns",
            "5",
            "--crashes",
            "10",
            "--json",
            "--no-speed",
            "--config",
            "journal_mode=delete",
            "--config",
            "synchronous=full",
        ])
        .expect_ok()
        .json();
    let c = &json["configurations"][0];
    assert_eq!(
        c["config"][0],
        serde_json::json!(["journal_mode", "delete"])
    );
    assert_eq!(c["crashes"], 10);
    assert_eq!(c["acknowledged_lost"], 0);
    assert!(c["txns_per_s"].is_null());
    assert_eq!(json["id"], 2);

    // Stored: `results show` and `--show` print it again, `results list` lists it.
    let shown = sb.pb(["results", "show", "1"]).expect_ok();
    assert_eq!(shown.stdout, out.stdout);
    let again = sb.pb(["durability", "--show", "1"]).expect_ok();
    assert_eq!(again.stdout, out.stdout);
    let list = sb.pb(["results", "list"]).expect_ok();
    assert!(list.stdout.contains("durability"), "{}", list.stdout);

    // The report draws the latest run of each engine: one configuration here.
    sb.pb(["report", "--format", "svg", "-o", "figures"])
        .expect_ok();
    let svg = std::fs::read_to_string(sb.path("figures/durability.svg")).unwrap();
    assert!(svg.contains(r#"id="durability" data-points="1""#), "{svg}");
    assert!(
        svg.contains(">sqlite journal_mode=delete synchronous=full<"),
        "{svg}"
    );
    assert!(svg.contains(">none of 10 crash states<"), "{svg}");
}

#[test]
fn bad_durability_flags_are_one_line_and_exit_2() {
    let sb = common::Sandbox::new();
    sb.expect_refused(&[
        (
            "durability --config journal_mode=bogus",
            "--config journal_mode: \"bogus\" is not one of delete, truncate, persist, memory, wal, off",
        ),
        (
            "durability --config synchronous=sometimes",
            "--config synchronous",
        ),
        ("durability --config page_size=4096", "unknown key"),
        ("durability --config wal", "expected KEY=VALUE"),
        ("durability --crashes 0", "--crashes 0: must be 1 to 100000"),
        ("durability --txns 10001", "--txns 10001"),
        ("durability --rows-per-txn 0", "--rows-per-txn 0"),
        (
            "durability --replay-crash 7",
            "--replay-crash \"7\": expected SEED:POINT",
        ),
        ("durability --replay-crash 7:0", "--replay-crash \"7:0\""),
        ("durability --engine nosuch", "--engine"),
        (
            "durability --dir /no/such/dir",
            "--dir \"/no/such/dir\": not a directory",
        ),
    ]);
}

/// A finding prints the whole command line of its replay (engine, configuration, workload
/// flags that are not the defaults, seed and point); run as printed, it replays that one
/// configuration, names it, and stores nothing.
#[test]
fn a_finding_names_its_configuration_and_its_replay_stores_nothing() {
    let sb = common::Sandbox::new();
    let out = sb
        .pb(common::words(
            "durability --config journal_mode=delete --config synchronous=off --txns 5 --crashes 10 --no-speed -q",
        ))
        .expect_ok();
    let flags = out
        .stdout
        .split("(replay: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("no replay in {}", out.stdout));
    assert!(
        flags.starts_with(
            "--engine sqlite --config journal_mode=delete --config synchronous=off --txns 5 --replay-crash 1:"
        ),
        "{flags}"
    );
    let point = flags.rsplit(':').next().unwrap();
    let mut args = vec!["durability", "-q"];
    args.extend(flags.split_whitespace());
    let replay = sb.pb(&args).expect_ok();
    assert!(
        replay.stdout.contains(&format!(
            "crash point {point} of journal_mode=delete synchronous=off (a replay: not stored):"
        )),
        "{}",
        replay.stdout
    );
    assert_eq!(common::stored_runs(&sb.path("pocketbench.db")), 1);
}
