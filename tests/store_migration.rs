//! A results store written by the previous version (schema 1, `tests/fixtures/store-v1.db`:
//! two workload runs, ids 1 and 2; a storage run and a flashbench run, suite ids 1 and 2, the
//! latter with four per-request series) is upgraded when first opened: one listing of all
//! four results under one id space (suite runs appended as 3 and 4), each shown by
//! `results show`, the workload runs untouched, and new results numbered after them.

mod common;

use common::{arg, count, Sandbox};

fn old_store(sb: &Sandbox) -> std::path::PathBuf {
    let path = sb.path("old.db");
    std::fs::copy(common::fixture("store-v1.db"), &path).expect("copying the fixture");
    path
}

#[test]
fn a_schema_1_store_is_upgraded_to_one_list_of_results() {
    let sb = Sandbox::new();
    let db = old_store(&sb);
    let list = sb
        .pb(["results", "list", "--results", arg(&db), "--json"])
        .expect_ok()
        .json();
    let rows: Vec<(i64, String, String)> = list
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["kind"].as_str().unwrap().to_string(),
                r["engine"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (1, "run".into(), "null".into()),
            (2, "run".into(), "sqlite".into()),
            // Suite kinds name the engine they measured (SQLite) in the listing.
            (3, "storage".into(), "sqlite".into()),
            (4, "flashbench".into(), "sqlite".into()),
        ]
    );
    assert_eq!(count(&db, "PRAGMA user_version", []), 2);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM sqlite_master WHERE name = 'suite_runs'",
            []
        ),
        0
    );
    // The flashbench run's four series moved with it.
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM suite_series WHERE run_id = 4",
            []
        ),
        4
    );
    // Workload runs keep their summaries and samples (40 operations each).
    let run2 = sb
        .pb(["results", "show", "2", "--results", arg(&db), "--json"])
        .expect_ok()
        .json();
    assert_eq!(
        (run2["id"].as_i64(), run2["ops"].as_u64()),
        (Some(2), Some(40))
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM op_samples WHERE run_id = 2", []),
        40
    );
    // Suite runs show as themselves; the storage figures are read under their old key.
    let storage = sb
        .pb(["results", "show", "3", "--results", arg(&db), "--json"])
        .expect_ok()
        .json();
    assert!(
        storage["files"][0]["mb_s"]["mean"].as_f64().unwrap() > 0.0,
        "{storage:#}"
    );
    let text = sb
        .pb(["results", "show", "3", "--results", arg(&db)])
        .expect_ok()
        .stdout;
    assert!(
        text.contains("MiB/s") && text.contains("storage run #3"),
        "{text}"
    );
    let flash = sb
        .pb(["results", "show", "4", "--results", arg(&db)])
        .expect_ok()
        .stdout;
    assert!(flash.contains("flashbench run #4"), "{flash}");
    sb.pb([
        "flashbench",
        "--show",
        "4",
        "--cell",
        "insert:150:10",
        "--results",
        arg(&db),
    ])
    .expect_ok();
    let out = sb
        .pb([
            "results",
            "show",
            "4",
            "--results",
            arg(&db),
            "--format",
            "csv",
        ])
        .expect_code(2);
    assert!(
        out.stderr.contains("exports as json only"),
        "{}",
        out.stderr
    );
    // A second opening changes nothing; a new run is numbered after every result.
    let again = sb
        .pb(["results", "list", "--results", arg(&db), "--json"])
        .expect_ok()
        .json();
    assert_eq!(again, list);
    let new = sb
        .pb([
            "run",
            "--engine",
            "null",
            "--records",
            "10",
            "--ops",
            "10",
            "--delay",
            "zero",
            "--no-overhead",
            "--json",
            "--results",
            arg(&db),
        ])
        .expect_ok()
        .json();
    assert_eq!(new["id"], 5);
    // The report reads workload runs only.
    let written = sb
        .pb([
            "report",
            "--results",
            arg(&db),
            "--format",
            "json",
            "-o",
            "r.json",
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(written["runs"], 3);
}
