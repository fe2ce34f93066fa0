//! An anonymised trace replays as the app ran: `pocketbench capture` records a real Python
//! program (`tests/fixtures/capture/fk_program.py`: foreign keys on, AUTOINCREMENT and rowid
//! keys the program reads back and names again as literals, as bound integers and as bound
//! text, UNIQUE two-letter codes, CHECKs, a DEFAULT a later DELETE looks for, cascading
//! deletes, a trigger); `trace import --anonymize` with `literals,paths` and with
//! `literals,identifiers,paths` hides its texts, reals and blobs (the program's e-mail
//! addresses, SKUs and product names are nowhere in the trace) and keeps the PRAGMA's setting;
//! `run` replays each with the options the import printed with 0 errors, and every table ends
//! with as many rows as the program's: customers 30 − 6 deleted = 24, products 12, purchases
//! 120 − 24 cascaded with those 6 customers (4 each) − 8 with quantity 4 and the DEFAULT note
//! (n ≡ 3 mod 12, of 10 the 2 with n ≡ 0 mod 5 already gone) = 88; the trigger's
//! per-customer counts sum alike.

mod common;

use common::{arg, Sandbox};
use pocketbench::workload::op::{Op, SqlValue};
use pocketbench::workload::trace::{TraceItem, TraceReader};
use std::path::Path;

const PYTHON: &str = "/usr/bin/python3";
const SALT: &str = "a salt the trace never holds";

fn count(db: &Path, sql: &str) -> i64 {
    common::count(db, sql, [])
}

/// (table, rows) of every table of `db` but SQLite's own, by name.
fn rows_per_table(db: &Path) -> Vec<(String, i64)> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut s = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap();
    let names: Vec<String> = s
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names
        .into_iter()
        .map(|n| {
            let rows = c
                .query_row(&format!("SELECT count(*) FROM \"{n}\""), [], |r| r.get(0))
                .unwrap();
            (n, rows)
        })
        .collect()
}

/// Every SQL text and text argument of the trace's run phase, joined.
fn trace_text(trace: &Path) -> String {
    let mut all = String::new();
    for item in TraceReader::open(trace).unwrap() {
        match item.unwrap() {
            TraceItem::Run(t) => match t.op {
                Op::Sql { sql } => all += &sql,
                Op::SqlArgs { sql, args } => {
                    all += &sql;
                    for a in args {
                        if let SqlValue::Text(s) = a {
                            all += &s;
                        }
                    }
                }
                _ => {}
            },
            TraceItem::Load(_) => {}
        }
        all.push('\n');
    }
    all
}

#[test]
fn an_anonymised_capture_with_foreign_keys_replays_to_the_same_rows() {
    let sb = Sandbox::new();
    let (app_db, log) = (sb.path("app.db"), sb.path("app.jsonl"));
    let program = common::fixture("capture/fk_program.py");
    sb.pb([
        "capture",
        "-o",
        arg(&log),
        "--",
        PYTHON,
        arg(&program),
        arg(&app_db),
    ])
    .expect_ok();
    let want = rows_per_table(&app_db);
    let names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["customer", "product", "purchase"]);
    assert_eq!((want[0].1, want[1].1, want[2].1), (24, 12, 88));
    let orders = count(&app_db, "SELECT sum(orders) FROM customer");

    // Without anonymisation the program's values are in the trace.
    let plain = sb.path("plain.pbt");
    sb.pb(["trace", "import", arg(&log), "-o", arg(&plain)])
        .expect_ok();
    let plain_text = trace_text(&plain);
    for secret in ["example.com", "SKU-003", "Product 7", "gift 4"] {
        assert!(plain_text.contains(secret), "{secret}");
    }

    for (scope, renamed) in [
        ("literals,paths", false),
        ("literals,identifiers,paths", true),
    ] {
        let trace = sb.path(&format!("{scope}.pbt"));
        let v = sb
            .pb([
                "trace",
                "import",
                arg(&log),
                "-o",
                arg(&trace),
                "--anonymize",
                scope,
                "--salt",
                SALT,
                "--json",
            ])
            .expect_ok()
            .json();
        assert_eq!(v["dropped"], serde_json::json!({}), "{scope}: {v}");
        assert_eq!(v["settings"]["foreign_keys"], "on", "{scope}: {v}");
        let text = trace_text(&trace);
        for secret in ["example.com", "SKU-", "Product", "gift", "customer"] {
            assert_eq!(
                text.contains(secret),
                secret == "customer" && !renamed,
                "{scope}: {secret}"
            );
        }
        let shown = sb.trace_show(&trace);
        let anonymized: Vec<&str> = shown["header"]["import"]["anonymized"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(anonymized.join(","), scope);

        let dir = sb.path(&format!("replay-{scope}"));
        let mut args = vec![
            "--engine",
            "sqlite",
            "--trace",
            arg(&trace),
            "--dir",
            arg(&dir),
            "--no-overhead",
        ];
        for o in v["engine_options"].as_array().unwrap() {
            args.extend(o.as_str().unwrap().split_whitespace());
        }
        let run = sb.run_json(&args);
        assert_eq!(run["errors"], 0, "{scope}: {}", run["first_error"]);
        let replayed = dir.join("db/pocketbench.sqlite");
        let got = rows_per_table(&replayed);
        if renamed {
            let mut a: Vec<i64> = got.iter().map(|(_, n)| *n).collect();
            let mut b: Vec<i64> = want.iter().map(|(_, n)| *n).collect();
            a.sort();
            b.sort();
            assert_eq!(a, b, "{scope}: {got:?}");
            assert!(got.iter().all(|(n, _)| !names.contains(&n.as_str())));
        } else {
            assert_eq!(got, want, "{scope}");
            assert_eq!(count(&replayed, "SELECT sum(orders) FROM customer"), orders);
        }
    }
}
