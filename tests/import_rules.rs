//! `trace import` end to end on a hand-written statement log: `--all-dbs` writes one trace per
//! database the log names; the version 2 trace of the busiest database keeps its two
//! connections, offsets and bound arguments (as `trace show` prints them); `--check` finds the
//! statement an in-memory SQLite refuses and `--drop-failing` leaves it out.

mod common;

use common::{arg, Sandbox};

const LOG: &str = r#"{"statement":{"t_ns":1000,"dur_ns":100,"conn":"a","db":"/data/app.db","sql":"PRAGMA journal_mode=WAL"}}
{"statement":{"t_ns":2000,"dur_ns":100,"conn":"a","db":"/data/app.db","sql":"CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)"}}
{"statement":{"t_ns":3000,"dur_ns":200,"conn":"a","db":"/data/app.db","sql":"INSERT INTO t VALUES(?,?)","args":[1,"x'y"]}}
{"statement":{"t_ns":4000,"dur_ns":100,"conn":"b","db":"/data/app.db","sql":"SELECT v FROM nosuch WHERE k=?","args":[1]}}
{"statement":{"t_ns":4500,"dur_ns":100,"conn":"c","db":"/data/other.db","sql":"SELECT 1"}}
"#;

#[test]
fn databases_connections_and_the_check() {
    let sb = Sandbox::new();
    let log = sb.write("app.jsonl", LOG);
    let dir = sb.path("all");
    let all = sb
        .pb([
            "trace",
            "import",
            arg(&log),
            "--all-dbs",
            arg(&dir),
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(all[0]["db"], "/data/app.db");
    assert_eq!(all[0]["run_ops"], 3);
    assert_eq!(all[1]["db"], "/data/other.db");
    assert_eq!(all[1]["run_ops"], 1);
    assert!(dir.join("app.db.pbt").is_file() && dir.join("other.db.pbt").is_file());

    let show = sb.trace_show(&dir.join("app.db.pbt"));
    assert_eq!(show["version"], 2);
    assert_eq!(show["header"]["import"]["connections"], 2);
    assert_eq!(show["header"]["import"]["settings"]["journal_mode"], "wal");
    assert_eq!(
        show["first_run"][1],
        "conn 0 at 1000 ns  insert: INSERT INTO t VALUES(?,?)  [1, 'x''y']  then 800 ns"
    );
    assert_eq!(
        show["first_run"][2],
        "conn 1 at 2000 ns  select: SELECT v FROM nosuch WHERE k=?  [1]  then 0 ns"
    );

    let out = sb.path("checked.pbt");
    let checked = sb
        .pb([
            "trace",
            "import",
            arg(&log),
            "-o",
            arg(&out),
            "--check",
            "--drop-failing",
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(checked["check_failed"], 1);
    assert_eq!(
        checked["check_failures"][0],
        "run #2: select: SELECT v FROM nosuch WHERE k=?  [1]: no such table: nosuch"
    );
    assert_eq!(checked["run_ops"], 2);
    assert_eq!(checked["dropped"]["failed the check (--drop-failing)"], 1);
    assert_eq!(checked["engine_options"][0], "-o journal_mode=wal");
}
