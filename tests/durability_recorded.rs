//! Power loss from a recording of the file-system calls (`durability --model strict|…`): the
//! workload runs once under the LD_PRELOAD recorder, and every crash point is rebuilt from
//! the recording and opened by the engine itself. The verdicts the engines' documentation
//! predicts: LMDB's default sync loses nothing, `MDB_NOMETASYNC` loses at most the last
//! commit ("a system crash may undo the last committed transaction"), `MDB_NOSYNC` loses many;
//! SQLite DELETE/`FULL` loses the newest commit when the journal's unlink never reached the
//! disk (the journal comes back and rolls it back) and `EXTRA`, which syncs the directory
//! after the unlink, loses nothing. `--replay-crash` names the lost calls and writes the state
//! as a directory; bad flag combinations exit 2 with one line.

mod common;

use common::{arg, pb};

use common::durability_run as run;

#[test]
fn lmdb_under_strict_power_loss_loses_what_its_sync_options_say() {
    // 6 commits; every crash point (at most 200) is tried.
    let r = run(&["--engine", "lmdb", "--txns", "6", "--crashes", "200"]);
    let full = common::durability_config(&r, "full");
    assert!(full["model"]
        .as_str()
        .unwrap()
        .contains("strict persistence model"));
    // Every point from the workload's start (the engine open) to after its last call.
    assert!(full["crashes"].as_u64().unwrap() < 200, "{full}");
    assert_eq!(full["acknowledged_lost"], 0, "{full}");
    assert_eq!(full["integrity_failures"], 0, "{full}");
    let nometa = common::durability_config(&r, "nometasync");
    assert!(
        nometa["crashes_losing_commits"].as_u64().unwrap() > 0,
        "{nometa}"
    );
    assert_eq!(nometa["most_lost_at_once"], 1, "{nometa}");
    let nosync = common::durability_config(&r, "nosync");
    assert_eq!(nosync["most_lost_at_once"], 6, "{nosync}");
    assert_eq!(nosync["atomicity_violations"], 0, "{nosync}");
}

#[test]
fn sqlite_full_loses_the_newest_commit_on_an_unsynced_unlink_and_extra_does_not() {
    // DELETE mode, 2 commits, every crash point (under 500).
    let sqlite = |sync: &str, more: &[&str]| {
        let mut args = vec!["--engine", "sqlite", "--model", "strict", "--txns", "2"];
        args.extend(["--config", "journal_mode=delete", "--config", sync]);
        args.extend_from_slice(more);
        run(&args)
    };
    let r = sqlite("synchronous=full,extra", &["--crashes", "500"]);
    let full = common::durability_config(&r, "full");
    assert!(full["crashes"].as_u64().unwrap() < 500, "{full}");
    assert!(
        full["crashes_losing_commits"].as_u64().unwrap() > 0,
        "{full}"
    );
    assert_eq!(full["most_lost_at_once"], 1, "{full}");
    assert_eq!(full["integrity_failures"], 0, "{full}");
    let extra = common::durability_config(&r, "extra");
    assert_eq!(extra["acknowledged_lost"], 0, "{extra}");
    assert_eq!(extra["integrity_failures"], 0, "{extra}");
    // The finding replays: the calls lost include the journal's unlink, and the state is
    // written out to open by hand, the journal in it.
    let first = full["first_finding"].as_str().unwrap();
    let replay = first
        .split("--replay-crash ")
        .nth(1)
        .unwrap()
        .trim_end_matches(')');
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state");
    let again = sqlite(
        "synchronous=full",
        &["--replay-crash", replay, "--replay-dir", arg(&state)],
    );
    let p = &again["configurations"][0]["findings"][0];
    assert_eq!(p["lost"], 1, "{p}");
    let calls: Vec<&str> = p["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        calls
            .iter()
            .any(|c| c.starts_with("lost: unlink") && c.ends_with("-journal")),
        "{calls:?}"
    );
    let names: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with("-journal")), "{names:?}");
    // The folder it filled is its own to fill again; a folder holding the user's files is
    // refused before any work, and nothing in it is touched.
    sqlite(
        "synchronous=full",
        &["--replay-crash", replay, "--replay-dir", arg(&state)],
    );
    let (mine, store) = (out.path().join("mine"), out.path().join("r.db"));
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), b"keep me").unwrap();
    let mut args = vec!["durability", "--engine", "sqlite", "--model", "strict"];
    args.extend(["--txns", "2", "--config", "journal_mode=delete", "--config"]);
    args.extend(["synchronous=full", "--replay-crash", replay]);
    args.extend(["--replay-dir", arg(&mine), "--results", arg(&store)]);
    let refused = pb(&args).expect_code(2);
    assert!(
        refused.stderr.contains("did not put there") && refused.stderr.contains("mine"),
        "{}",
        refused.stderr
    );
    assert_eq!(std::fs::read(mine.join("notes.txt")).unwrap(), b"keep me");
    assert!(!store.exists());
}

#[test]
fn recorded_models_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.db");
    let cases: [(&[&str], &str); 3] = [
        (&["--model", "vfs"], "--model vfs: only sqlite and redb"),
        (
            &["--replay-dir", arg(dir.path())],
            "--replay-dir: needs --replay-crash",
        ),
        (&["--states", "0"], "--states 0: must be 1 to 1000"),
    ];
    for (flags, said) in cases {
        let mut args = vec!["durability", "--engine", "lmdb", "--results", arg(&store)];
        args.extend_from_slice(flags);
        let out = pb(args).expect_code(2);
        assert!(out.stderr.contains(said), "{flags:?}: {}", out.stderr);
    }
    assert!(!store.exists());
}
