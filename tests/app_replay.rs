//! A replay ends with the app's own database and only the app's errors. Real programs nobody
//! shaped for the replayer are captured (`pocketbench capture`), imported and replayed ten
//! times each with the options the import prints ("as the app ran"), and every replayed
//! database dumps (`sqlite3 .dump`, INTEGER PRIMARY KEY and AUTOINCREMENT values included)
//! exactly as the app's did, with no replay error:
//! - the `sqlite3` shell running a script with multi-line triggers, foreign-key cascades
//!   (`PRAGMA foreign_keys = ON`, printed back as `-o foreign_keys=on`), a view, savepoints
//!   and transactions;
//! - a Python program with five connections in WAL with a 20 ms busy timeout and retries on
//!   "database is locked" (three writers with different transaction styles, a reader, foreign
//!   keys left off with a dangling reference written), where only the app's order across
//!   connections (`run --order recorded`, the default) gives the app's keys;
//! - the same program with Android's default rollback journal (`TRUNCATE`), where a
//!   transaction that only reads holds its lock to its end;
//! - a Python program whose second connection gets SQLITE_BUSY and retries: the capture marks
//!   the refused attempt failed (status 5) and the import leaves it out, so the replay writes
//!   two rows, as the app did, not three.
//!
//! Also: each connection reports its wait for the app's order, and `--merge-connections`
//! replays the five connections as one stream without a transaction inside another.

mod common;

use common::{arg, Sandbox};
use std::path::{Path, PathBuf};
use std::process::Command;

const PYTHON: &str = "/usr/bin/python3";
const REPLAYS: usize = 10;

/// `sqlite3 DB .dump`.
fn dump(db: &Path) -> String {
    let out = Command::new("sqlite3")
        .arg(db)
        .arg(".dump")
        .output()
        .expect("running sqlite3 (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Capture `program` (its stdin from `stdin` when given) into `app.jsonl`.
fn capture(sb: &Sandbox, program: &[&str], stdin: Option<PathBuf>) -> PathBuf {
    let log = sb.path("app.jsonl");
    let mut args = vec!["capture", "-o", arg(&log), "--"];
    args.extend_from_slice(program);
    common::pb_with(args, |c| {
        c.current_dir(sb.path(""));
        if let Some(f) = &stdin {
            c.stdin(std::fs::File::open(f).unwrap());
        }
    })
    .expect_ok();
    log
}

/// Import `log` into `app.pbt`; the import's summary.
fn import(sb: &Sandbox, log: &Path) -> serde_json::Value {
    let out = sb.path("app.pbt");
    sb.pb(["trace", "import", arg(log), "-o", arg(&out), "--json"])
        .expect_ok()
        .json()
}

/// The `-o` options the import printed, as separate arguments.
fn as_the_app_ran(import: &serde_json::Value) -> Vec<String> {
    import["engine_options"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| o.as_str().unwrap().split_whitespace().map(String::from))
        .collect()
}

/// Replay `app.pbt` in `dir` with `extra` arguments; the run's summary.
fn replay(sb: &Sandbox, dir: &str, extra: &[String]) -> serde_json::Value {
    let (trace, dir) = (sb.path("app.pbt"), sb.path(dir));
    let mut args: Vec<&str> = vec!["--trace", arg(&trace), "--dir", arg(&dir), "--no-overhead"];
    args.extend(extra.iter().map(String::as_str));
    sb.run_json(&args)
}

/// Replay ten times with the printed options: each replayed database dumps as `app`.
fn replays_to_the_apps_database(sb: &Sandbox, app: &Path, options: &[String]) {
    let want = dump(app);
    for i in 0..REPLAYS {
        let dir = format!("replay{i}");
        let run = replay(sb, &dir, options);
        assert_eq!(run["errors"], 0, "replay {i}: {}", run["first_error"]);
        assert_eq!(run["divergences"], 0);
        let got = dump(&sb.path(&format!("{dir}/db/pocketbench.sqlite")));
        assert_eq!(got, want, "replay {i} ended with another database");
    }
}

#[test]
fn the_sqlite3_shell_with_triggers_cascades_and_savepoints_replays_to_its_database() {
    let sb = Sandbox::new();
    let app = sb.path("app.db");
    let script = common::fixture("apps/shop.sql");
    let log = capture(&sb, &["sqlite3", arg(&app)], Some(script));
    let imported = import(&sb, &log);
    assert_eq!(imported["dropped"], serde_json::json!({}));
    // The script turns foreign keys on; the replay's default is off, as upstream's.
    let options = as_the_app_ran(&imported);
    assert_eq!(options, ["-o", "foreign_keys=on"]);
    // 38 statements: the PRAGMA is a setting, not replayed.
    assert_eq!(imported["run_ops"], 38);
    replays_to_the_apps_database(&sb, &app, &options);
    // The cascade really ran: brian's order and its line are gone, and the log says so.
    let d = dump(&app);
    assert!(
        d.contains("INSERT INTO log VALUES(11,'order gone',2);"),
        "{d}"
    );
}

#[test]
fn five_connections_in_wal_with_retries_replay_to_the_apps_keys() {
    let sb = Sandbox::new();
    let app = sb.path("app.db");
    let program = common::fixture("apps/five_connections.py");
    let log = capture(&sb, &[PYTHON, arg(&program), arg(&app)], None);
    let imported = import(&sb, &log);
    assert_eq!(imported["connections"], 5);
    let options = as_the_app_ran(&imported);
    assert_eq!(
        options,
        ["-o", "busy_timeout=20", "-o", "journal_mode=wal"],
        "{imported}"
    );
    // Whatever the app met, only lock waits it gave up were left out.
    if let Some(obj) = imported["dropped"].as_object() {
        for why in obj.keys() {
            assert!(why.contains("lock wait given up"), "{why}");
        }
    }
    replays_to_the_apps_database(&sb, &app, &options);
    // The dangling reference the app wrote with foreign keys off is there.
    let d = dump(&app);
    assert!(
        d.lines()
            .any(|l| l.starts_with("INSERT INTO orders VALUES(")
                && l.split(',').nth(1) == Some("999")),
        "{d}"
    );

    // Each connection says how long it waited for the app's order.
    let run = replay(&sb, "reported", &options);
    let conns = run["connections"].as_object().unwrap();
    assert_eq!(conns.len(), 5);
    let waited: u64 = conns
        .values()
        .map(|c| c["order_waited"].as_u64().unwrap())
        .sum();
    assert!(waited > 0, "no statement waited for another connection");
    assert!(conns.values().all(|c| c["order_gave_up"] == 0));

    // One stream: the merge holds other connections back during a transaction, so nothing
    // meets a transaction inside a transaction.
    let mut merged = options.clone();
    merged.push("--merge-connections".into());
    let m = replay(&sb, "merged", &merged);
    assert_eq!(m["errors"], 0, "{}", m["first_error"]);
    assert_eq!(m["ops"], imported["run_ops"]);
}

#[test]
fn five_connections_with_a_rollback_journal_replay_to_the_apps_keys() {
    let sb = Sandbox::new();
    let app = sb.path("app.db");
    let program = common::fixture("apps/five_connections.py");
    let args = [PYTHON, arg(&program), arg(&app), "40", "TRUNCATE"];
    let log = capture(&sb, &args, None);
    let imported = import(&sb, &log);
    let options = as_the_app_ran(&imported);
    assert_eq!(
        options,
        ["-o", "busy_timeout=20", "-o", "journal_mode=truncate"],
        "{imported}"
    );
    replays_to_the_apps_database(&sb, &app, &options);
}

#[test]
fn an_attempt_refused_with_busy_is_not_replayed_as_a_write() {
    let sb = Sandbox::new();
    let app = sb.path("app.db");
    let program = common::fixture("apps/busy_retry.py");
    let log = capture(&sb, &[PYTHON, arg(&program), arg(&app)], None);
    let text = std::fs::read_to_string(&log).unwrap();
    let refused: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"status\":5"))
        .collect();
    assert_eq!(refused.len(), 1, "{text}");
    assert!(refused[0].contains("INSERT INTO t(who)"), "{}", refused[0]);
    let imported = import(&sb, &log);
    assert_eq!(
        imported["dropped"],
        serde_json::json!({"failed in the app: a lock wait given up (SQLITE_BUSY or SQLITE_LOCKED)": 1})
    );
    replays_to_the_apps_database(&sb, &app, &as_the_app_ran(&imported));
    let d = dump(&app);
    assert_eq!(d.matches("INSERT INTO t VALUES").count(), 2, "{d}");
}
