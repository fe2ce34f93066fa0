//! A workload's SQL is untrusted input. A trace whose statements attach a file elsewhere,
//! write a table into it, `VACUUM INTO` another file, load an extension, switch on
//! `writable_schema`, move the temporary-file directory, or run a 2^31-row recursive CTE is
//! imported and replayed on SQLite: each of those statements fails, saying it was refused (or
//! stopped after `-o max_steps` steps), the harmless statement beside them runs, and nothing
//! appears outside the run's own folder (the folder the statements name is listed before and
//! after). In a TOML spec the same statements are refused in the run phase each time they are
//! drawn, and stop the load phase when its schema holds one. Reading such a trace without
//! replaying it (`trace stats`, which classifies statements on a scratch SQLite database holding
//! the trace's schema) creates nothing either. The
//! JVM engines, which have no per-statement guard, refuse such a trace whole before a JVM
//! starts (exit 2, naming the statement).

mod common;

use common::{arg, hostile_trace, listing, Sandbox};
use std::path::Path;

/// The hostile statements, naming files in `outside`; then one harmless statement.
fn statements(outside: &Path) -> Vec<String> {
    let o = outside.display();
    vec![
        format!("ATTACH DATABASE '{o}/e.db' AS e"),
        "CREATE TABLE e.x(a)".into(),
        format!("VACUUM INTO '{o}/copy.db'"),
        "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')".into(),
        "PRAGMA writable_schema = 1".into(),
        format!("PRAGMA temp_store_directory = '{o}'"),
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2147483648) \
         SELECT count(*) FROM r"
            .into(),
        "SELECT 1".into(),
    ]
}

#[test]
fn a_hostile_trace_replays_with_each_statement_refused_and_nothing_written_outside() {
    let sb = Sandbox::new();
    let outside = sb.path("outside");
    std::fs::create_dir(&outside).unwrap();
    let mut log = String::new();
    for (i, sql) in statements(&outside).iter().enumerate() {
        let sql = serde_json::to_string(sql).unwrap();
        log.push_str(&format!(
            "{{\"statement\":{{\"t_ns\":{},\"dur_ns\":1000,\"conn\":\"0x1\",\"sql\":{sql}}}}}\n",
            1_000_000 * (i + 1)
        ));
    }
    sb.write("app.jsonl", log);
    sb.pb(["trace", "import", "app.jsonl", "-o", "app.pbt"])
        .expect_ok();
    let before = listing(&outside);
    assert!(before.is_empty(), "{before:?}");

    let out = sb.pb([
        "run",
        "--trace",
        "app.pbt",
        "--delay",
        "zero",
        "--no-overhead",
        "-o",
        "max_steps=5000000",
        "--dir",
        arg(&sb.path("run")),
        "--results",
        arg(&sb.results()),
        "--json",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    // The import keeps an app's PRAGMAs as its settings, not as statements: the two PRAGMAs
    // are not replayed (neither is an engine option). Of the six left, five fail.
    assert_eq!(summary["ops"], 6, "{summary}");
    assert_eq!(summary["errors"], 5, "{summary}");
    assert!(summary["engine"]["options"]
        .get("writable_schema")
        .is_none());
    let first = summary["first_error"].as_str().unwrap();
    assert!(
        first.contains("refused: ATTACH or VACUUM INTO of")
            && first.contains("outside the run's database folder"),
        "{first}"
    );
    let refusals: Vec<String> = summary["failed_operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    let expect = [
        "operation 0: refused: ATTACH or VACUUM INTO of",
        "operation 1: unknown database e",
        "operation 2: refused: ATTACH or VACUUM INTO of",
        "operation 3: refused: the function load_extension()",
        "operation 4: interrupted: stopped after 5000000 virtual-machine steps (-o max_steps)",
    ];
    assert_eq!(refusals.len(), expect.len(), "{refusals:?}");
    for (got, want) in refusals.iter().zip(expect) {
        assert!(got.contains(want), "{got:?} should say {want:?}");
    }
    assert_eq!(listing(&outside), before);
}

#[test]
fn hostile_statements_in_a_spec_are_refused_in_its_load_and_its_run() {
    let sb = Sandbox::new();
    let outside = sb.path("outside");
    std::fs::create_dir(&outside).unwrap();
    let o = outside.display();
    // In the run phase: each of the three statements is refused every time it is drawn.
    let spec = format!(
        "[sql]\nrecords = 1\noperations = 30\nschema = [\"CREATE TABLE t(a)\"]\n\
         load = \"INSERT INTO t VALUES({{key}})\"\n\
         [[sql.statement]]\nsql = \"PRAGMA writable_schema = 1\"\n\
         [[sql.statement]]\nsql = \"PRAGMA temp_store_directory = '{o}'\"\n\
         [[sql.statement]]\nsql = \"VACUUM INTO '{o}/copy.db'\"\n"
    );
    sb.write("hostile.toml", spec);
    let out = sb.pb([
        "run",
        "--workload",
        "hostile.toml",
        "--delay",
        "zero",
        "--no-overhead",
        "--json",
        "--results",
        arg(&sb.results()),
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(summary["errors"], 30, "{summary}");
    let failed: Vec<&str> = summary["failed_operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 30);
    for want in [
        "refused: PRAGMA writable_schema",
        "refused: PRAGMA temp_store_directory",
        "refused: ATTACH or VACUUM INTO of",
    ] {
        assert!(
            failed.iter().any(|f| f.contains(want)),
            "{want}: {failed:?}"
        );
    }
    assert!(failed.iter().all(|f| f.contains("refused: ")), "{failed:?}");
    assert!(listing(&outside).is_empty());

    // In the load phase: the first refused statement stops the run before it is measured.
    let spec = format!(
        "[sql]\nrecords = 1\noperations = 1\n\
         schema = [\"CREATE TABLE t(a)\", \"PRAGMA temp_store_directory = '{o}'\"]\n\
         load = \"INSERT INTO t VALUES({{key}})\"\n[[sql.statement]]\nsql = \"SELECT * FROM t\"\n"
    );
    sb.write("hostile-load.toml", spec);
    let out = sb.pb([
        "run",
        "--workload",
        "hostile-load.toml",
        "--delay",
        "zero",
        "--results",
        arg(&sb.path("other.db")),
    ]);
    assert_ne!(out.code, Some(0));
    assert!(
        out.stderr.contains("load phase")
            && out.stderr.contains("refused: PRAGMA temp_store_directory"),
        "{}",
        out.stderr
    );
    assert!(listing(&outside).is_empty());
}

#[test]
fn reading_a_hostile_trace_creates_nothing_outside() {
    let sb = Sandbox::new();
    let outside = hostile_trace(&sb);
    let stats = sb
        .pb(["trace", "stats", "hostile.pbt", "--json"])
        .expect_ok()
        .json();
    assert_eq!(stats["statements"], 1, "{stats}");
    assert!(listing(&outside).is_empty(), "{:?}", listing(&outside));
}

#[test]
fn a_jvm_engine_refuses_a_hostile_trace_whole_before_starting() {
    let sb = Sandbox::new();
    let outside = sb.path("outside");
    std::fs::create_dir(&outside).unwrap();
    let log = format!(
        "{{\"statement\":{{\"t_ns\":1000,\"dur_ns\":1000,\"conn\":\"0x1\",\"sql\":\"SELECT 1\"}}}}\n\
         {{\"statement\":{{\"t_ns\":2000,\"dur_ns\":1000,\"conn\":\"0x1\",\"sql\":\"VACUUM INTO '{}/copy.db'\"}}}}\n",
        outside.display()
    );
    sb.write("app.jsonl", log);
    sb.pb(["trace", "import", "app.jsonl", "-o", "app.pbt"])
        .expect_ok();
    for engine in ["h2", "sqlite-jdbc"] {
        let out = sb
            .pb([
                "run",
                "--engine",
                engine,
                "--trace",
                "app.pbt",
                "--results",
                arg(&sb.results()),
            ])
            .expect_code(2);
        assert!(
            out.stderr.contains("operation 1") && out.stderr.contains("VACUUM INTO cannot run on"),
            "{}",
            out.stderr
        );
        assert!(!sb.results().exists());
    }
    assert!(listing(&outside).is_empty());
}
