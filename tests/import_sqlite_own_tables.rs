//! SQLite's own tables in an imported schema: a log's schema records or a `--schema` file
//! written by `sqlite3 DB .schema` name `sqlite_sequence` (any app with an AUTOINCREMENT
//! table has it), which SQLite creates itself and refuses to have created. The import leaves
//! it out of the load phase, so the trace replays on SQLite without an error; the app's own
//! table stays (one CREATE in the load phase, hand-counted).

mod common;

use common::{arg, Sandbox};

const LOG: &str = r#"{"schema":{"db":"a.db","type":"table","name":"notes","sql":"CREATE TABLE notes(_id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT)"}}
{"schema":{"db":"a.db","type":"table","name":"sqlite_sequence","sql":"CREATE TABLE sqlite_sequence(name,seq)"}}
{"statement":{"t_ns":1000,"db":"a.db","sql":"INSERT INTO notes(body) VALUES(?)","args":["x"]}}
{"statement":{"t_ns":2000,"db":"a.db","sql":"SELECT seq FROM sqlite_sequence WHERE name = 'notes'"}}
"#;

/// The load phase's statements of `trace` (`trace show` lists its first ones, each as
/// `KIND: SQL`), after checking their count.
fn load_phase(sb: &Sandbox, trace: &std::path::Path) -> Vec<String> {
    let shown = sb.trace_show(trace);
    let first: Vec<String> = shown["first_load"]
        .as_array()
        .expect("trace show --json has `first_load`")
        .iter()
        .map(|op| op.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        shown["header"]["workload"]["load_ops"],
        first.len(),
        "{shown}"
    );
    first
}

#[test]
fn a_logs_sqlite_sequence_record_is_left_out_and_the_trace_replays() {
    let sb = Sandbox::new();
    let trace = sb.import_log(LOG);
    let load = load_phase(&sb, &trace);
    assert_eq!(load.len(), 1, "{load:?}");
    assert!(load[0].contains("CREATE TABLE notes"), "{load:?}");
    let run = sb.replay_on_sqlite(&trace, "replay");
    assert_eq!(run["ops"], 2, "{run}");
}

#[test]
fn a_schema_file_from_the_sqlite3_shell_replays() {
    let sb = Sandbox::new();
    // What `sqlite3 notes.db .schema` prints for the app's database.
    let schema = sb.write(
        "notes.sql",
        "CREATE TABLE notes(_id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT);\n\
         CREATE TABLE sqlite_sequence(name,seq);\n",
    );
    let log = sb.write(
        "app.jsonl",
        LOG.lines()
            .skip(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    );
    let trace = sb.path("app.pbt");
    sb.pb([
        "trace",
        "import",
        arg(&log),
        "--schema",
        arg(&schema),
        "-o",
        arg(&trace),
    ])
    .expect_ok();
    assert_eq!(load_phase(&sb, &trace).len(), 1);
    sb.replay_on_sqlite(&trace, "replay");
}
