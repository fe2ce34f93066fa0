//! `trace import --infer-schema` on a log with no schema: without the flag the import says the
//! flag exists and every statement fails the check (no such table); with it the header says
//! the schema is inferred, the tables, columns and affinities are the hand-worked ones, the
//! check finds nothing failing, and a replay on SQLite runs every statement without an error,
//! its reads finding the synthesised rows.

mod common;

use common::{arg, Sandbox};

const LOG: &str = r#"{"statement":{"t_ns":1000,"dur_ns":100,"conn":"a","db":"/data/notes.db","sql":"INSERT INTO notes(_id, title) VALUES(?, ?)","args":[1,"milk"]}}
{"statement":{"t_ns":2000,"dur_ns":100,"conn":"b","db":"/data/notes.db","sql":"SELECT title FROM notes WHERE _id = ?","args":[7]}}
{"statement":{"t_ns":3000,"dur_ns":100,"conn":"a","db":"/data/notes.db","sql":"UPDATE notes SET title = 'eggs', done = 1 WHERE _id = 7"}}
{"statement":{"t_ns":4000,"dur_ns":100,"conn":"b","db":"/data/notes.db","sql":"SELECT count(*) FROM tags t WHERE t.note = ?","args":[7]}}
"#;

#[test]
fn a_log_without_schema_gets_one_inferred_and_replays_without_errors() {
    let sb = Sandbox::new();
    let log = sb.write("app.jsonl", LOG);

    let plain = sb.pb(["trace", "import", arg(&log), "-o", "plain.pbt", "--check"]);
    let plain = plain.expect_ok();
    assert!(plain.stdout.contains("--infer-schema"), "{}", plain.stdout);
    assert!(plain
        .stdout
        .contains("check: 4 statement(s) failed on an in-memory SQLite"));

    let out = sb.path("app.pbt");
    let r = sb
        .pb([
            "trace",
            "import",
            arg(&log),
            "-o",
            arg(&out),
            "--infer-schema",
            "--check",
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(r["schema"], "inferred");
    assert_eq!(
        r["inferred"],
        serde_json::json!([
            {"table": "notes", "columns": [["_id", "INTEGER"], ["title", "TEXT"], ["done", "INTEGER"]], "rows": 2},
            {"table": "tags", "columns": [["note", "INTEGER"]], "rows": 1}
        ])
    );
    // Two CREATEs, 2 + 1 rows.
    assert_eq!(r["load_ops"], 5);
    assert_eq!(r["check_failed"], 0, "{}", r["check_failures"]);

    let stats = sb
        .pb(["trace", "stats", arg(&out), "--json"])
        .expect_ok()
        .json();
    assert_eq!(stats["source"]["schema"], "inferred");
    assert_eq!(
        sb.trace_show(&out)["header"]["import"]["schema"],
        "inferred"
    );

    let dir = sb.path("replay");
    let s = sb.run_json(&[
        "--engine",
        "sqlite",
        "--trace",
        arg(&out),
        "--dir",
        arg(&dir),
        "--no-overhead",
    ]);
    assert_eq!(s["errors"], 0, "{}", s["first_error"]);
    assert_eq!(s["ops"], 4);
    // Synthesised (1, milk, 1) and (7, eggs, 1), then the log's insert of (1, milk, NULL).
    let c = rusqlite::Connection::open(dir.join("db/pocketbench.sqlite")).unwrap();
    let rows: Vec<String> = c
        .prepare("SELECT _id || '|' || title || '|' || ifnull(done, '-') FROM notes ORDER BY rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, ["1|milk|1", "7|eggs|1", "1|milk|-"]);
}
