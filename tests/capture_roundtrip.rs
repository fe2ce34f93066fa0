//! The whole path of a real app's workload, for real: `pocketbench capture` runs a Python
//! program (the standard `sqlite3` module over Debian's shared libsqlite3) that writes and
//! reads in transactions from two threads on two connections; `trace import` turns its log
//! into a version 2 trace with typed arguments and the three connections (setup and two
//! writers) kept; `run` replays it on SQLite, one thread and connection each, with the
//! program's busy timeout, and the replayed database holds exactly the program's rows
//! (ordered dumps compared). The same log imported with `--args inline
//! --merge-connections` is a version 1 trace; H2 replays the version 2 trace through the JVM
//! driver (which `run` gives that same merged form) and ends with SQLite's rows (the driver's
//! checksum); BerkeleyDB's SQL front end (feature
//! `berkeleydb`) replays the version 2 trace with its connections and ends with the
//! program's rows too.

mod common;

use common::{arg, Sandbox};
use std::path::{Path, PathBuf};

const PYTHON: &str = "/usr/bin/python3";
const DUMP: &str = "SELECT id, body, quote(score), hex(raw) FROM notes ORDER BY id";

/// The program's database and its statement log.
fn capture(sb: &Sandbox) -> (PathBuf, PathBuf) {
    let program = common::fixture("capture/two_writers.py");
    let (db, log) = (sb.path("app.db"), sb.path("app.jsonl"));
    sb.pb([
        "capture",
        "-o",
        arg(&log),
        "--",
        PYTHON,
        arg(&program),
        arg(&db),
    ])
    .expect_ok();
    (db, log)
}

fn dump_sqlite(path: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut s = c.prepare(DUMP).unwrap();
    let rows = s
        .query_map([], |r| {
            Ok(format!(
                "{}|{}|{}|{}",
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?
            ))
        })
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

fn import(sb: &Sandbox, log: &Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let out = sb.path(name);
    let mut args = vec!["trace", "import", arg(log), "-o", arg(&out), "--json"];
    args.extend_from_slice(extra);
    sb.pb(args).expect_ok().json()
}

fn replay(sb: &Sandbox, engine: &str, trace: &str, dir: &str, extra: &[&str]) -> serde_json::Value {
    let (trace, dir) = (sb.path(trace), sb.path(dir));
    let mut args = vec![
        "--engine",
        engine,
        "--trace",
        arg(&trace),
        "--dir",
        arg(&dir),
        "--no-overhead",
    ];
    args.extend_from_slice(extra);
    sb.run_json(&args)
}

#[test]
fn a_captured_python_program_replays_with_its_connections_to_the_same_rows() {
    let sb = Sandbox::new();
    let (app_db, log) = capture(&sb);
    let want = dump_sqlite(&app_db);
    // 20 rows per writer, ids 0..40.
    assert_eq!(want.len(), 40);
    assert_eq!(want[3], "3|note 1-1 it's|0.25|01FE");

    let v2 = import(&sb, &log, "app.pbt", &[]);
    assert_eq!(v2["version"], 2);
    assert_eq!(v2["connections"], 3);
    assert_eq!(v2["dropped"], serde_json::json!({}));
    assert_eq!(v2["settings"]["busy_timeout"], "30000");
    assert_eq!(v2["engine_options"][0], "-o busy_timeout=30000");
    // CREATE, then per writer 20 × (BEGIN, INSERT, SELECT, COMMIT) + 4 UPDATEs.
    assert_eq!(v2["run_ops"], 1 + 2 * (20 * 4 + 4));

    let s = replay(
        &sb,
        "sqlite",
        "app.pbt",
        "native",
        &["-o", "busy_timeout=30000"],
    );
    assert_eq!(s["errors"], 0, "{}", s["first_error"]);
    assert_eq!(s["ops"], 169);
    assert_eq!(s["connections"]["1"]["ops"], 84);
    assert_eq!(s["connections"]["2"]["ops"], 84);
    assert_eq!(dump_sqlite(&sb.path("native/db/pocketbench.sqlite")), want);

    let v1 = import(
        &sb,
        &log,
        "app-v1.pbt",
        &["--args", "inline", "--merge-connections"],
    );
    assert_eq!(v1["version"], 1);
    assert_eq!(v1["run_ops"], 169);
    // H2 replays the version 2 trace itself: the JVM driver reads version 1, so `run` hands it
    // the trace merged and inline, as the import above wrote it.
    let h2 = replay(&sb, "h2", "app.pbt", "h2", &[]);
    assert_eq!(h2["errors"], 0, "{}", h2["first_error"]);
    assert_eq!(h2["ops"], 169);
    let v1_trace = sb.path("app-v1.pbt");
    assert_eq!(
        common::jvm::checksum(&sb, "h2", &sb.path("h2/db"), &v1_trace),
        common::jvm::checksum(&sb, "sqlite-jdbc", &sb.path("native/db"), &v1_trace)
    );

    #[cfg(feature = "berkeleydb")]
    {
        let b = replay(&sb, "berkeleydb-sql", "app.pbt", "bdb", &[]);
        assert_eq!(b["errors"], 0, "{}", b["first_error"]);
        let mut engine =
            pocketbench::engine::open("berkeleydb-sql", &[], &sb.path("bdb/db")).unwrap();
        let rows = engine.as_sql().unwrap().query(DUMP, &[]).unwrap();
        let got: Vec<String> = rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        assert_eq!(got, want);
    }
}
